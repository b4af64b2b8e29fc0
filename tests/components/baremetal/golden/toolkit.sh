#!/usr/bin/env bash
# accelfit NVIDIA Container Toolkit, rendered from components/baremetal/templates/toolkit.sh.tmpl.
# Idempotent: installs only what is missing and restarts containerd only when its configuration changed.
set -euo pipefail

# The node's name, the first argument: one script per class of alike hosts (components/baremetal/host_preparation.py).
NODE_NAME=${1:?the node name is the first argument}
TOOLKIT_VERSION=1.20.0
TOOLKIT_PACKAGES='nvidia-container-toolkit-base libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit'
CONTAINERD_CONFIG=/etc/containerd/config.toml

fail() {
  echo "accelfit container toolkit step FAILED on ${NODE_NAME}: $*" >&2
  exit 1
}

command -v containerd >/dev/null 2>&1 || fail "containerd not found; the kubernetes step installs it"

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

# From NVIDIA's container-toolkit repository (the repositories step added it), all four at one release.
read -ra toolkit_packages <<<"${TOOLKIT_PACKAGES}"
install_pinned "${TOOLKIT_VERSION}-" "${toolkit_packages[@]}"

# The NVIDIA runtime as containerd's default, so GPU pods get their devices without a runtime class.
before=$(sha256sum "${CONTAINERD_CONFIG}" 2>/dev/null || true)
nvidia-ctk runtime configure --runtime=containerd --set-as-default
after=$(sha256sum "${CONTAINERD_CONFIG}")
if [ "${before}" != "${after}" ]; then
  systemctl restart containerd
fi
echo "accelfit container toolkit ${TOOLKIT_VERSION} configured on ${NODE_NAME}"
