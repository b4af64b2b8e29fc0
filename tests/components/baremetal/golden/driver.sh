#!/usr/bin/env bash
# accelfit NVIDIA driver, rendered from components/baremetal/templates/driver.sh.tmpl.
# Idempotent: installs only what is missing and does nothing when the pinned driver is running. It never
# replaces a different running driver under workloads: that needs a drain and a reboot, done by a person.
set -euo pipefail

NODE_NAME=gpu-01
DRIVER_VERSION=570.172.08
DRIVER_BRANCH=570
FABRIC_MANAGER=yes

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

export DEBIAN_FRONTEND=noninteractive
apt_updated=no

# install_pinned VERSION PACKAGE...: install each PACKAGE at the apt version belonging to upstream VERSION
# (e.g. 570.172.08 -> 570.172.08-0ubuntu1) and hold it there. Packages already at VERSION are left alone.
install_pinned() {
  local want=$1 package installed found
  shift
  for package in "$@"; do
    # shellcheck disable=SC2016  # ${Version} is dpkg-query's field name, not a shell expansion
    installed=$(dpkg-query -W -f '${Version}' "${package}" 2>/dev/null || true)
    case "${installed}" in
      "${want}"-*) continue ;;
    esac
    if [ "${apt_updated}" = no ]; then
      apt-get update -q
      apt_updated=yes
    fi
    found=$(apt-cache madison "${package}" | awk -v want="${want}-" 'index($3, want) == 1 { print $3; exit }')
    [ -n "${found}" ] || fail "no ${package} ${want} in the configured apt sources; add NVIDIA's apt repository for this OS release and run again"
    apt-get install -y -q --no-install-recommends --allow-downgrades --allow-change-held-packages "${package}=${found}"
    apt-mark hold "${package}" >/dev/null
  done
}

# Open kernel modules: NVIDIA's recommended flavour from Turing on, and the only one for Blackwell.
packages=("nvidia-driver-${DRIVER_BRANCH}-server-open")
# HGX boards route GPU-to-GPU traffic through NVSwitches, which need Fabric Manager at the driver's exact version.
if [ "${FABRIC_MANAGER}" = yes ]; then
  packages+=("nvidia-fabricmanager-${DRIVER_BRANCH}")
fi
install_pinned "${DRIVER_VERSION}" "${packages[@]}"
if [ "${FABRIC_MANAGER}" = yes ]; then
  systemctl enable --now nvidia-fabricmanager
fi

modprobe nvidia 2>/dev/null || true
nvidia-smi >/dev/null 2>&1 || fail "driver ${DRIVER_VERSION} is installed but not loaded; reboot ${NODE_NAME} and run pulumi up again"
running=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
[ "${running}" = "${DRIVER_VERSION}" ] || fail "driver ${running} loaded after installing ${DRIVER_VERSION}; reboot ${NODE_NAME} and run pulumi up again"
echo "accelfit driver ${DRIVER_VERSION} running on ${NODE_NAME}"
