#!/usr/bin/env bash
# accelfit host preflight, rendered from components/baremetal/templates/preflight.sh.tmpl.
# Read-only, so safe to run any number of times: checks what the inventory claims before anything is installed.
set -euo pipefail

NODE_NAME=gpu-01
EXPECTED_GPUS=8
GPU_MODEL=h100-80gb
MIN_FREE_GIB=50

fail() {
  echo "accelfit preflight FAILED on ${NODE_NAME}: $*" >&2
  exit 1
}

# The driver and toolkit steps install with apt.
[ -r /etc/os-release ] || fail "cannot read /etc/os-release"
# shellcheck disable=SC1091
. /etc/os-release
case "${ID:-unknown}" in
  ubuntu | debian) ;;
  *) fail "unsupported OS '${ID:-unknown}'; accelfit prepares Ubuntu or Debian hosts" ;;
esac

# GPUs on the PCI bus (vendor 10de, class 0300 VGA or 0302 3D controller; NVSwitches are bridges and do not
# count). This works before any driver is installed.
command -v lspci >/dev/null 2>&1 || fail "lspci not found; install pciutils"
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

# Kernel headers: the driver's kernel modules are built against the running kernel.
kernel=$(uname -r)
[ -d "/lib/modules/${kernel}/build" ] || fail "kernel headers for ${kernel} are missing; install linux-headers-${kernel}"

# Free disk where the driver, container images and kubelet data go.
for path in / /var; do
  free_kib=$(df --output=avail -k "${path}" | tail -n 1 | tr -d ' ')
  free_gib=$((free_kib / 1024 / 1024))
  if [ "${free_gib}" -lt "${MIN_FREE_GIB}" ]; then
    fail "${free_gib} GiB free on ${path}, need at least ${MIN_FREE_GIB} GiB; free space or grow the disk"
  fi
done

echo "accelfit preflight passed on ${NODE_NAME}: ${pci_gpus} x ${GPU_MODEL}, kernel ${kernel}"
