#!/usr/bin/env bash
# accelfit NVIDIA Container Toolkit, rendered from components/baremetal/templates/toolkit.sh.tmpl.
# Idempotent: installs only what is missing and restarts containerd only when its configuration changed.
set -euo pipefail

NODE_NAME=gpu-01
TOOLKIT_VERSION=1.17.8
CONTAINERD_CONFIG=/etc/containerd/config.toml

fail() {
  echo "accelfit container toolkit step FAILED on ${NODE_NAME}: $*" >&2
  exit 1
}

command -v containerd >/dev/null 2>&1 || fail "containerd not found; install the container runtime the cluster uses first"

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

install_pinned "${TOOLKIT_VERSION}" nvidia-container-toolkit-base libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit

# The NVIDIA runtime as containerd's default, so GPU pods get their devices without a runtime class.
before=$(sha256sum "${CONTAINERD_CONFIG}" 2>/dev/null || true)
nvidia-ctk runtime configure --runtime=containerd --set-as-default
after=$(sha256sum "${CONTAINERD_CONFIG}")
if [ "${before}" != "${after}" ]; then
  systemctl restart containerd
fi
echo "accelfit container toolkit ${TOOLKIT_VERSION} configured on ${NODE_NAME}"
