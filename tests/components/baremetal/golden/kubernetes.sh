#!/usr/bin/env bash
# accelfit kubeadm node prerequisites, rendered from components/baremetal/templates/kubernetes.sh.tmpl.
# What kubeadm's install guide asks of a node before it joins: swap off, the overlay and br_netfilter modules,
# bridged traffic through iptables and IP forwarding, containerd with the systemd cgroup driver, and kubelet,
# kubeadm and kubectl from pkgs.k8s.io at the control plane's Kubernetes minor, held there.
# https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/install-kubeadm/
# https://kubernetes.io/docs/setup/production-environment/container-runtimes/
# Idempotent: each setting is written only when it differs, containerd restarts only when its config changed.
set -euo pipefail

# The node's name, the first argument: one script per class of alike hosts (components/baremetal/host_preparation.py).
NODE_NAME=${1:?the node name is the first argument}
API_SERVER=10.20.0.5:6443
# The control plane's minor (accelfit:kubernetesVersion); empty: read from the API server's public /version.
KUBERNETES_MINOR=''
KUBERNETES_PACKAGES='kubelet kubeadm kubectl'
SUPPORTED_OS='ubuntu-22.04=ubuntu2204 ubuntu-24.04=ubuntu2404 debian-12=debian12'
RUNTIME_PACKAGES=containerd.io
RUNTIME_REPO_URL='https://download.docker.com/linux/{distro}'
RUNTIME_KEY_URL='https://download.docker.com/linux/{distro}/gpg'
RUNTIME_FINGERPRINT=9DC858229FC7DD38854AE2D88D81803C0EBFCD88
RUNTIME_KEYRING=/etc/apt/keyrings/docker-archive-keyring.gpg
RUNTIME_LIST=/etc/apt/sources.list.d/docker-containerd.list
K8S_REPO_URL='https://pkgs.k8s.io/core:/stable:/v{minor}/deb/'
K8S_KEY_URL='https://pkgs.k8s.io/core:/stable:/v{minor}/deb/Release.key'
K8S_FINGERPRINT=DE15B14486CD377B9E876E1A234654DA9A296436
K8S_KEYRING=/etc/apt/keyrings/kubernetes-apt-keyring.gpg
K8S_LIST=/etc/apt/sources.list.d/kubernetes.list
CONTAINERD_CONFIG=/etc/containerd/config.toml
# containerd per Kubernetes minor (containerd/containerd RELEASES.md, "Kubernetes support": 1.31 needs 1.7.20+ or
# 2.0; Kubernetes 1.35 is the last release supporting containerd 1.x, per the Kubernetes 1.35 notes EKS repeats in
# https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html).
MIN_CONTAINERD=1.7.20
MIN_CONTAINERD_FROM_1_36=2.0.0

fail() {
  echo "accelfit kubernetes step FAILED on ${NODE_NAME}: $*" >&2
  exit 1
}

# The host's OS and architecture as NVIDIA's CUDA repository names them (SUPPORTED_OS: "ID-VERSION_ID=cuda_dir ...").
[ -r /etc/os-release ] || fail "cannot read /etc/os-release"
# shellcheck disable=SC1091
. /etc/os-release
os_name="${ID:-unknown}-${VERSION_ID:-unknown}"
cuda_os=""
for entry in ${SUPPORTED_OS}; do
  if [ "${entry%%=*}" = "${os_name}" ]; then
    cuda_os=${entry#*=}
  fi
done
[ -n "${cuda_os}" ] || fail "unsupported OS ${os_name}; accelfit prepares these (OS=NVIDIA repository): ${SUPPORTED_OS}"
dpkg_arch=$(dpkg --print-architecture)
case "${dpkg_arch}" in
  amd64) cuda_arch=x86_64 ;;
  arm64) cuda_arch=sbsa ;;
  *) fail "unsupported architecture ${dpkg_arch}; NVIDIA's repositories serve amd64 and arm64" ;;
esac
export DEBIAN_FRONTEND=noninteractive
apt_updated=no

apt_update_once() {
  if [ "${apt_updated}" = no ]; then
    apt-get update -q
    apt_updated=yes
  fi
}

# install_pinned PREFIX PACKAGE...: install each PACKAGE at the newest apt version starting with PREFIX and hold it
# there: "580.178.04-" is one exact upstream build (580.178.04-1 or 580.178.04-0ubuntu1, whatever the repository
# publishes), "1.35." a Kubernetes minor. Packages already at a matching version are left alone. A version the
# configured repositories do not publish stops the step with the package, the version and what is published,
# instead of installing something else.
install_pinned() {
  local want=$1 package installed found
  shift
  for package in "$@"; do
    # shellcheck disable=SC2016  # ${Version} is dpkg-query's field name, not a shell expansion
    installed=$(dpkg-query -W -f '${Version}' "${package}" 2>/dev/null || true)
    case "${installed}" in
      "${want}"*) continue ;;
    esac
    apt_update_once
    found=$(apt-cache madison "${package}" | awk -v want="${want}" 'index($3, want) == 1 { print $3; exit }')
    [ -n "${found}" ] || fail "no ${package} ${want} in the configured apt sources (published: $(apt-cache madison "${package}" | awk '{ print $3 }' | head -n 5 | tr '\n' ' ')); pin a version the repository publishes (apt-cache madison ${package}) and run pulumi up again"
    apt-get install -y -q --no-install-recommends --allow-downgrades --allow-change-held-packages "${package}=${found}"
    apt-mark hold "${package}" >/dev/null
  done
}

# install_latest PACKAGE...: packages with their own release line (OS tools, NVLSM), installed when missing and
# left to the OS's own updates.
install_latest() {
  local package
  for package in "$@"; do
    # shellcheck disable=SC2016  # ${Status} is dpkg-query's field name
    if dpkg-query -W -f '${Status}' "${package}" 2>/dev/null | grep -q "install ok installed"; then
      continue
    fi
    apt_update_once
    apt-get install -y -q --no-install-recommends "${package}" || fail "cannot install ${package} from the configured apt sources"
  done
}

# add_repository NAME KEY_URL FINGERPRINT KEYRING LIST SOURCE_LINE: trust a repository's signing key only when
# its fingerprint is the recorded one, then add the repository signed by that key alone. Idempotent.
add_repository() {
  local name=$1 key_url=$2 fingerprint=$3 keyring=$4 list=$5 line=$6 key found
  if [ -s "${keyring}" ] && [ -f "${list}" ] && [ "$(cat "${list}")" = "${line}" ]; then
    return 0
  fi
  key=$(mktemp)
  curl -fsSL --retry 3 "${key_url}" -o "${key}" || fail "cannot download the ${name} signing key from ${key_url}"
  found=$(gpg --batch --with-colons --show-keys "${key}" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
  [ "${found}" = "${fingerprint}" ] || fail "the ${name} signing key at ${key_url} has fingerprint '${found}', expected ${fingerprint}; refusing to trust it"
  install -d -m 0755 "$(dirname "${keyring}")"
  gpg --batch --yes --dearmor -o "${keyring}" "${key}"
  chmod 0644 "${keyring}"
  rm -f "${key}"
  printf '%s\n' "${line}" >"${list}"
  apt_updated=no
}

# The version every node must match: kubelet may not be newer than the API server.
if [ -z "${KUBERNETES_MINOR}" ]; then
  # system:public-info-viewer lets anyone read /version (Kubernetes RBAC default roles).
  version_json=$(curl -fsSk --max-time 15 "https://${API_SERVER}/version") || fail "cannot read https://${API_SERVER}/version to learn the cluster's Kubernetes version; set it: pulumi config set accelfit:kubernetesVersion 1.35"
  KUBERNETES_MINOR=$(printf '%s' "${version_json}" | sed -n 's/.*"gitVersion": *"v\([0-9][0-9]*\.[0-9][0-9]*\)\..*/\1/p')
  [ -n "${KUBERNETES_MINOR}" ] || fail "no gitVersion in https://${API_SERVER}/version; set accelfit:kubernetesVersion"
fi

minor_number=${KUBERNETES_MINOR#1.}
if [ "${minor_number}" -ge 36 ]; then
  MIN_CONTAINERD=${MIN_CONTAINERD_FROM_1_36}
fi
# From 1.35 the kubelet refuses cgroup v1 by default.
if [ "${minor_number}" -ge 35 ] && [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
  fail "the host runs cgroup v1; Kubernetes ${KUBERNETES_MINOR} needs cgroup v2 (boot with systemd.unified_cgroup_hierarchy=1)"
fi

# Swap off now and at boot: the kubelet refuses to start with swap on by default.
swapoff -a
if grep -Eq '^[^#].*[[:space:]]swap[[:space:]]' /etc/fstab; then
  sed -i -E 's/^([^#].*[[:space:]]swap[[:space:]].*)$/# disabled by accelfit (kubelet): \1/' /etc/fstab
fi

# Kernel modules and sysctls for pod networking.
printf 'overlay\nbr_netfilter\n' >/etc/modules-load.d/accelfit-kubernetes.conf
modprobe overlay
modprobe br_netfilter
cat >/etc/sysctl.d/99-accelfit-kubernetes.conf <<'SYSCTL'
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward = 1
SYSCTL
sysctl --system >/dev/null

# containerd from Docker's repository (the same 2.x line on Ubuntu and Debian), with the systemd cgroup driver
# kubeadm configures the kubelet for.
runtime_url=${RUNTIME_REPO_URL//\{distro\}/${ID}}
runtime_key=${RUNTIME_KEY_URL//\{distro\}/${ID}}
add_repository "containerd (Docker)" "${runtime_key}" "${RUNTIME_FINGERPRINT}" "${RUNTIME_KEYRING}" "${RUNTIME_LIST}" \
  "deb [signed-by=${RUNTIME_KEYRING}] ${runtime_url} ${VERSION_CODENAME:?} stable"
read -ra runtime_packages <<<"${RUNTIME_PACKAGES}"
install_latest "${runtime_packages[@]}"
containerd_version=$(containerd --version | awk '{ print $3 }' | sed 's/^v//')
if [ "$(printf '%s\n%s\n' "${MIN_CONTAINERD}" "${containerd_version}" | sort -V | head -n 1)" != "${MIN_CONTAINERD}" ]; then
  fail "containerd ${containerd_version} is older than ${MIN_CONTAINERD}, which Kubernetes ${KUBERNETES_MINOR} needs; check which containerd is installed (apt-cache policy containerd.io containerd) and run again"
fi
before=$(sha256sum "${CONTAINERD_CONFIG}" 2>/dev/null || true)
# containerd.io ships a config with the CRI plugin disabled (for Docker); the kubelet needs it.
if [ ! -s "${CONTAINERD_CONFIG}" ] || grep -Eq '^disabled_plugins *= *\["cri"\]' "${CONTAINERD_CONFIG}"; then
  install -d -m 0755 "$(dirname "${CONTAINERD_CONFIG}")"
  containerd config default >"${CONTAINERD_CONFIG}"
fi
sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' "${CONTAINERD_CONFIG}"
grep -q 'SystemdCgroup = true' "${CONTAINERD_CONFIG}" || fail "could not set SystemdCgroup = true in ${CONTAINERD_CONFIG}; set it by hand"
after=$(sha256sum "${CONTAINERD_CONFIG}")
systemctl enable containerd >/dev/null
if [ "${before}" != "${after}" ]; then
  systemctl restart containerd
fi

# kubelet, kubeadm, kubectl at the control plane's minor.
repo_url=${K8S_REPO_URL//\{minor\}/${KUBERNETES_MINOR}}
key_url=${K8S_KEY_URL//\{minor\}/${KUBERNETES_MINOR}}
add_repository "Kubernetes ${KUBERNETES_MINOR}" "${key_url}" "${K8S_FINGERPRINT}" "${K8S_KEYRING}" "${K8S_LIST}" \
  "deb [signed-by=${K8S_KEYRING}] ${repo_url} /"
read -ra kubernetes_packages <<<"${KUBERNETES_PACKAGES}"
install_pinned "${KUBERNETES_MINOR}." "${kubernetes_packages[@]}"
systemctl enable kubelet >/dev/null
echo "accelfit kubernetes prerequisites ready on ${NODE_NAME} (${os_name}, ${cuda_arch}): Kubernetes ${KUBERNETES_MINOR}, containerd ${containerd_version}"
