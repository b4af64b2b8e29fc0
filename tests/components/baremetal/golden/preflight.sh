#!/usr/bin/env bash
# accelfit host preflight, rendered from components/baremetal/templates/preflight.sh.tmpl.
# Checks what the inventory claims before anything is installed, and records the GPU fabric it finds
# (/etc/accelfit/gpu-fabric) for the driver step. Safe to run any number of times.
set -euo pipefail

# The node's name, the first argument: one script per class of alike hosts (components/baremetal/host_preparation.py).
NODE_NAME=${1:?the node name is the first argument}
EXPECTED_GPUS=8
GPU_MODEL=h100-80gb
MIN_FREE_GIB=50
SUPPORTED_OS='ubuntu-22.04=ubuntu2204 ubuntu-24.04=ubuntu2404 debian-12=debian12'
# What preflight itself runs (lspci), from the OS archive: a minimal server image may lack it.
PREFLIGHT_PACKAGES=pciutils
# none | nvswitch | nvlink5 from the inventory's form_factor, or detect.
FABRIC=nvswitch
FABRIC_FILE=/etc/accelfit/gpu-fabric

fail() {
  echo "accelfit preflight FAILED on ${NODE_NAME}: $*" >&2
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

read -ra preflight_packages <<<"${PREFLIGHT_PACKAGES}"
install_latest "${preflight_packages[@]}"

# GPUs on the PCI bus (vendor 10de, class 0300 VGA or 0302 3D controller; NVSwitches are bridges and do not
# count). This works before any driver is installed.
command -v lspci >/dev/null 2>&1 || fail "lspci not found after installing ${PREFLIGHT_PACKAGES}"
pci_gpus=$(lspci -n -d 10de: | awk '$2 == "0300:" || $2 == "0302:"' | wc -l)
if [ "${pci_gpus}" -ne "${EXPECTED_GPUS}" ]; then
  fail "the inventory says ${EXPECTED_GPUS} x ${GPU_MODEL} but ${pci_gpus} NVIDIA GPUs are on the PCI bus; fix gpu_count in the inventory or reseat the missing GPUs"
fi

# Once a driver is loaded it must see them all too: a GPU can sit on the bus yet have fallen off the driver.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  driver_gpus=$(nvidia-smi -L | grep -c '^GPU ' || true)
  if [ "${driver_gpus}" -ne "${EXPECTED_GPUS}" ]; then
    fail "nvidia-smi sees ${driver_gpus} GPUs but the inventory says ${EXPECTED_GPUS}; look for Xid errors in dmesg"
  fi
fi

# The GPU fabric, the way NVIDIA's driver container tells (NVIDIA/gpu-driver-container nvidia-driver:
# _assert_nvswitch_system, _assert_nvlink5_system): NVLink 4 and older NVSwitches are NVIDIA PCI bridges (class
# 0680); NVLink 5 switch trays are managed through an InfiniBand port whose VPD carries SW_MNG.
found=none
if [ "$(lspci -n -d 10de: | awk '$2 == "0680:"' | wc -l)" -gt 0 ]; then
  found=nvswitch
fi
for vpd in /sys/class/infiniband/*/device/vpd; do
  if [ -f "${vpd}" ] && grep -q "SW_MNG" "${vpd}" 2>/dev/null; then
    found=nvlink5
  fi
done
case "${FABRIC}" in
  detect) ;;
  none)
    [ "${found}" = none ] || fail "the inventory says form_factor pcie but this host has NVSwitches (${found}); set form_factor: sxm for ${NODE_NAME}" ;;
  *)
    [ "${found}" = "${FABRIC}" ] || fail "the inventory says form_factor sxm (${FABRIC}) but preflight finds '${found}'; set form_factor: pcie for ${NODE_NAME} if its GPUs are PCIe cards" ;;
esac
install -d -m 0755 "$(dirname "${FABRIC_FILE}")"
printf '%s\n' "${found}" >"${FABRIC_FILE}"

# Free disk where the driver, container images and kubelet data go.
for path in / /var; do
  free_kib=$(df --output=avail -k "${path}" | tail -n 1 | tr -d ' ')
  free_gib=$((free_kib / 1024 / 1024))
  if [ "${free_gib}" -lt "${MIN_FREE_GIB}" ]; then
    fail "${free_gib} GiB free on ${path}, need at least ${MIN_FREE_GIB} GiB; free space or grow the disk"
  fi
done

# Secure Boot refuses unsigned kernel modules: the DKMS-built NVIDIA modules would not load.
if command -v mokutil >/dev/null 2>&1 && mokutil --sb-state 2>/dev/null | grep -q "SecureBoot enabled"; then
  fail "Secure Boot is enabled; the DKMS-built NVIDIA modules would not load. Enroll a MOK key for DKMS or disable Secure Boot"
fi

echo "accelfit preflight passed on ${NODE_NAME}: ${os_name} (NVIDIA repository ${cuda_os}/${cuda_arch}), ${pci_gpus} x ${GPU_MODEL}, fabric ${found}, kernel $(uname -r)"
