#!/usr/bin/env bash
# accelfit cluster join, rendered from components/baremetal/templates/join.sh.tmpl.
# The bootstrap token arrives on standard input from a Pulumi secret; it is never part of this script, and the
# kubeadm configuration holding it lives in a private temporary file removed on exit.
# Idempotent: a host that has joined already is left alone.
set -euo pipefail

# The node's name, the first argument: one script per class of alike hosts (components/baremetal/host_preparation.py).
NODE_NAME=${1:?the node name is the first argument}
API_SERVER=10.20.0.5:6443
CA_CERT_HASH=sha256:abababababababababababababababababababababababababababababababab
TAINT_KEY=nvidia.com/gpu
TAINT_VALUE=present
TAINT_EFFECT=NoSchedule

fail() {
  echo "accelfit join FAILED on ${NODE_NAME}: $*" >&2
  exit 1
}

if [ -f /etc/kubernetes/kubelet.conf ]; then
  echo "${NODE_NAME} has joined a cluster already (/etc/kubernetes/kubelet.conf exists); nothing to do"
  exit 0
fi
for tool in kubeadm kubelet containerd; do
  command -v "${tool}" >/dev/null 2>&1 || fail "${tool} not found; the kubernetes step installs it"
done
# kubeadm.k8s.io/v1beta4 is read by kubeadm 1.31 and later (v1beta3 is deprecated):
# https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta4/
kubeadm_minor=$(kubeadm version -o short | sed -n 's/^v1\.\([0-9][0-9]*\)\..*/\1/p')
if [ -z "${kubeadm_minor}" ] || [ "${kubeadm_minor}" -lt 31 ]; then
  fail "kubeadm $(kubeadm version -o short) cannot read JoinConfiguration v1beta4; the cluster and its nodes need Kubernetes 1.31 or later"
fi

join_token=""
IFS= read -r join_token || true
[ -n "${join_token}" ] || fail "no join token on standard input; set it with: pulumi config set --secret accelfit:joinToken \"\$(kubeadm token generate)\""
[[ "${join_token}" =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || fail "the join token is not a kubeadm bootstrap token (abcdef.0123456789abcdef); generate one with: kubeadm token generate (accelfit keeps it valid in the cluster)"

join_config=$(mktemp)
trap 'rm -f "${join_config}"' EXIT
chmod 600 "${join_config}"
# The GPU taint is set at registration too, so no pod lands on the node before accelfit's node patch applies.
cat >"${join_config}" <<JOIN
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "${API_SERVER}"
    token: "${join_token}"
    caCertHashes:
      - "${CA_CERT_HASH}"
nodeRegistration:
  name: "${NODE_NAME}"
  taints:
    - key: "${TAINT_KEY}"
      value: "${TAINT_VALUE}"
      effect: "${TAINT_EFFECT}"
JOIN
kubeadm join --config "${join_config}"
echo "accelfit: ${NODE_NAME} joined ${API_SERVER}"
