#!/usr/bin/env bash
# accelfit NVIDIA driver, rendered from components/baremetal/templates/driver.sh.tmpl.
# From NVIDIA's CUDA repository (added by the repositories step): the open kernel modules held to the pinned build,
# and per GPU fabric Fabric Manager with NSCQ (NVSwitch boards) plus NVLSM (NVLink 5: B200), as NVIDIA's driver
# container installs them (NVIDIA/gpu-driver-container ubuntu22.04/install.sh); then persistence mode and, on
# hosts with RDMA NICs, nvidia-peermem for GPUDirect RDMA.
# Idempotent: does nothing when the pinned driver is running. It never replaces a different running driver under
# workloads: that needs a drain and a reboot, done by a person.
set -euo pipefail

# The node's name, the first argument: one script per class of alike hosts (components/baremetal/host_preparation.py).
NODE_NAME=${1:?the node name is the first argument}
DRIVER_VERSION=580.178.04
DRIVER_BRANCH=580
PINNING_PACKAGE=nvidia-driver-pinning-580
DRIVER_PACKAGES=nvidia-open
FABRIC_MANAGER_PACKAGES=nvidia-fabricmanager
NSCQ_PACKAGES=libnvidia-nscq
NVLINK5_PINNED_PACKAGES=libnvsdm
NVLINK5_PACKAGES='nvlsm infiniband-diags'
# What preflight found (none | nvswitch | nvlink5).
FABRIC_FILE=/etc/accelfit/gpu-fabric

fail() {
  echo "accelfit driver step FAILED on ${NODE_NAME}: $*" >&2
  exit 1
}

running=""
if command -v nvidia-smi >/dev/null 2>&1; then
  running=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
fi
if [ -n "${running}" ] && [ "${running}" != "${DRIVER_VERSION}" ]; then
  fail "driver ${running} is running but ${DRIVER_VERSION} is pinned; drain the node, purge the old driver (apt-get purge 'nvidia-*' 'libnvidia-*'), reboot, then run pulumi up again"
fi
[ -r "${FABRIC_FILE}" ] || fail "${FABRIC_FILE} is missing; the preflight step writes it"
fabric=$(cat "${FABRIC_FILE}")

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

# The kernel modules are built (DKMS) against the running kernel, so its headers come first.
install_latest "linux-headers-$(uname -r)"
# NVIDIA's pinning package holds every driver package to one branch, so an unattended upgrade cannot move the
# driver to another branch (driver installation guide: "Version locking").
install_latest "${PINNING_PACKAGE}"
read -ra driver_packages <<<"${DRIVER_PACKAGES}"
install_pinned "${DRIVER_VERSION}-" "${driver_packages[@]}"

if [ "${fabric}" = nvswitch ] || [ "${fabric}" = nvlink5 ]; then
  # Fabric Manager trains the NVSwitch fabric; NSCQ exposes NVSwitch health to DCGM. Both at the driver's build.
  read -ra fabric_packages <<<"${FABRIC_MANAGER_PACKAGES} ${NSCQ_PACKAGES}"
  install_pinned "${DRIVER_VERSION}-" "${fabric_packages[@]}"
  if [ "${fabric}" = nvlink5 ]; then
    # NVLink 5 switch trays need the NVLink subnet manager next to Fabric Manager.
    read -ra nvlink5_pinned <<<"${NVLINK5_PINNED_PACKAGES}"
    install_pinned "${DRIVER_VERSION}-" "${nvlink5_pinned[@]}"
    read -ra nvlink5_packages <<<"${NVLINK5_PACKAGES}"
    install_latest "${nvlink5_packages[@]}"
  fi
  systemctl enable --now nvidia-fabricmanager
fi

modprobe nvidia 2>/dev/null || true
nvidia-smi >/dev/null 2>&1 || fail "driver ${DRIVER_VERSION} is installed but not loaded; reboot ${NODE_NAME} and run pulumi up again"
running=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
[ "${running}" = "${DRIVER_VERSION}" ] || fail "driver ${running} loaded after installing ${DRIVER_VERSION}; reboot ${NODE_NAME} and run pulumi up again"

# Persistence mode keeps the driver initialised between jobs (no per-job GPU init delay, stable clocks).
install -d -m 0755 /etc/systemd/system/nvidia-persistenced.service.d
cat >/etc/systemd/system/nvidia-persistenced.service.d/accelfit.conf <<'UNIT'
[Service]
ExecStart=
ExecStart=/usr/bin/nvidia-persistenced --user root --persistence-mode --verbose
UNIT
systemctl daemon-reload
systemctl enable nvidia-persistenced >/dev/null
systemctl restart nvidia-persistenced
if nvidia-smi --query-gpu=persistence_mode --format=csv,noheader | grep -qv Enabled; then
  fail "persistence mode is not on for every GPU; check journalctl -u nvidia-persistenced"
fi

# GPUDirect RDMA: nvidia-peermem lets RDMA NICs read and write GPU memory. Only on hosts with RDMA devices
# (the module needs ib_core); loaded at every boot.
if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
  printf 'nvidia-peermem\n' >/etc/modules-load.d/accelfit-nvidia-peermem.conf
  modprobe nvidia-peermem || fail "nvidia-peermem does not load (RDMA devices present); install the NIC's RDMA stack (rdma-core or MLNX_OFED) and run again"
fi
echo "accelfit driver ${DRIVER_VERSION} (R${DRIVER_BRANCH}) running on ${NODE_NAME} (fabric ${fabric}, persistence mode on)"
