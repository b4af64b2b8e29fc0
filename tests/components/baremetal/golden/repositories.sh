#!/usr/bin/env bash
# accelfit apt repositories, rendered from components/baremetal/templates/repositories.sh.tmpl.
# NVIDIA's CUDA repository (driver, Fabric Manager, NSCQ, NVLSM: it keeps every published build, so a pinned
# driver stays installable) and NVIDIA's container-toolkit repository, each trusted only with the signing key whose
# fingerprint components/baremetal/data/host_packages.yaml records. Idempotent.
set -euo pipefail

# The node's name, the first argument: one script per class of alike hosts (components/baremetal/host_preparation.py).
NODE_NAME=${1:?the node name is the first argument}
SUPPORTED_OS='ubuntu-22.04=ubuntu2204 ubuntu-24.04=ubuntu2404 debian-12=debian12'
PREREQUISITES='ca-certificates curl gnupg pciutils kmod'
CUDA_REPO_URL='https://developer.download.nvidia.com/compute/cuda/repos/{os}/{arch}/'
CUDA_KEY_URL='https://developer.download.nvidia.com/compute/cuda/repos/{os}/{arch}/3bf863cc.pub'
CUDA_FINGERPRINT=EB693B3035CD5710E231E123A4B469963BF863CC
CUDA_KEYRING=/usr/share/keyrings/nvidia-cuda-archive-keyring.gpg
CUDA_LIST=/etc/apt/sources.list.d/nvidia-cuda.list
# $(ARCH) is apt's own substitution in this repository's source line, not the shell's.
# shellcheck disable=SC2016
TOOLKIT_REPO_URL='https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH)'
TOOLKIT_KEY_URL=https://nvidia.github.io/libnvidia-container/gpgkey
TOOLKIT_FINGERPRINT=C95B321B61E88C1809C4F759DDCAE044F796ECB0
TOOLKIT_KEYRING=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg
TOOLKIT_LIST=/etc/apt/sources.list.d/nvidia-container-toolkit.list

fail() {
  echo "accelfit repositories step FAILED on ${NODE_NAME}: $*" >&2
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

read -ra prerequisites <<<"${PREREQUISITES}"
install_latest "${prerequisites[@]}"

cuda_url=${CUDA_REPO_URL//\{os\}/${cuda_os}}
cuda_url=${cuda_url//\{arch\}/${cuda_arch}}
cuda_key=${CUDA_KEY_URL//\{os\}/${cuda_os}}
cuda_key=${cuda_key//\{arch\}/${cuda_arch}}
add_repository "NVIDIA CUDA" "${cuda_key}" "${CUDA_FINGERPRINT}" "${CUDA_KEYRING}" "${CUDA_LIST}" \
  "deb [signed-by=${CUDA_KEYRING}] ${cuda_url} /"
add_repository "NVIDIA container toolkit" "${TOOLKIT_KEY_URL}" "${TOOLKIT_FINGERPRINT}" "${TOOLKIT_KEYRING}" \
  "${TOOLKIT_LIST}" "deb [signed-by=${TOOLKIT_KEYRING}] ${TOOLKIT_REPO_URL} /"
apt_update_once
echo "accelfit repositories ready on ${NODE_NAME}: ${cuda_url} and ${TOOLKIT_REPO_URL}"
