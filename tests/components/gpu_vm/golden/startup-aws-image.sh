#!/bin/bash
# accelfit GPU VM startup: installs the autostop idle check and the job (training.code / image / command) as
# systemd units. Rendered by components/gpu_vm_script.py; every placeholder value is shell-quoted there, and the
# helper scripts read the values back from an environment file written with printf %q, so no value is ever shell
# syntax. The job's own command reaches the VM base64-encoded and runs only as the job.
#
# The job: accelfit-job.service fetches the code into the job directory (an archive from the bucket, or a git
# commit) or pulls the image, then runs the command there (or the image with every GPU, through the NVIDIA
# Container Toolkit). It starts at every boot until it succeeds once: after a Spot preemption the cloud restarts
# the VM (Compute Engine: its managed instance group recreates it with the same boot disk; EC2: the persistent Spot
# request starts the stopped instance), and the job resumes from its last checkpoint. The job directory and the
# done marker live on the boot disk, which both clouds keep.
#
# Autostop: a systemd timer runs the idle check every minute. The GPUs count as busy while the job's unit is
# starting or running, or any GPU reports utilization at or above the threshold (nvidia-smi). After
# AUTOSTOP_IDLE_MINUTES without a busy minute the check acts:
# - Compute Engine: through the VM's managed instance group (stop-instances or delete-instances), since the group
#   repairs a VM stopped or deleted any other way (https://cloud.google.com/compute/docs/instance-groups/about-repair).
# - EC2: `shutdown -h now`; InstanceInitiatedShutdownBehavior (stop | terminate) decides what EC2 does. A Spot
#   instance the user (or this check) stops stays stopped: its persistent request reopens only when it is started
#   (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-request-status.html).
# The last busy time lives under /run (cleared at every boot), so a restarted VM gets a fresh idle window.
set -euo pipefail

CLOUD=aws
AUTOSTOP_IDLE_MINUTES=30
AUTOSTOP_ACTION=stop
BUSY_UTILIZATION_PCT=5
GROUP=''
BUCKET_URL=s3://lora-ft-data-1234
JOB_KEY=d51209760234ef9f
COMMAND_B64=cHl0aG9uIHRyYWluLnB5
CODE_KIND=''
CODE_URL=''
CODE_COMMIT=''
IMAGE=123456789012.dkr.ecr.us-east-1.amazonaws.com/lora-ft:v3
IMAGE_REGISTRY=123456789012.dkr.ecr.us-east-1.amazonaws.com
IMAGE_AUTH=ecr
ECR_REGION=us-east-1
# $(ARCH) is apt's own substitution in the toolkit repository's source line, not the shell's.
# shellcheck disable=SC2016
TOOLKIT_REPO_URL='https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH)'
TOOLKIT_KEY_URL=https://nvidia.github.io/libnvidia-container/gpgkey
TOOLKIT_FINGERPRINT=C95B321B61E88C1809C4F759DDCAE044F796ECB0
TOOLKIT_KEYRING=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg
TOOLKIT_LIST=/etc/apt/sources.list.d/nvidia-container-toolkit.list
TOOLKIT_VERSION=1.20.0
TOOLKIT_PACKAGES='nvidia-container-toolkit-base libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit'
JOB_DIR=/var/lib/accelfit/job
# Tests run this script and its helpers under another root directory; on a VM ACCELFIT_ROOT is unset.
ROOT=${ACCELFIT_ROOT:-}

install -d -m 0755 "$ROOT/etc/accelfit" "$ROOT/var/lib/accelfit" "$ROOT$JOB_DIR" "$ROOT/usr/local/sbin" \
  "$ROOT/etc/systemd/system"
{
  printf 'CLOUD=%q\n' "$CLOUD"
  printf 'AUTOSTOP_IDLE_MINUTES=%q\n' "$AUTOSTOP_IDLE_MINUTES"
  printf 'AUTOSTOP_ACTION=%q\n' "$AUTOSTOP_ACTION"
  printf 'BUSY_UTILIZATION_PCT=%q\n' "$BUSY_UTILIZATION_PCT"
  printf 'GROUP=%q\n' "$GROUP"
  printf 'BUCKET_URL=%q\n' "$BUCKET_URL"
  printf 'JOB_KEY=%q\n' "$JOB_KEY"
  printf 'CODE_KIND=%q\n' "$CODE_KIND"
  printf 'CODE_URL=%q\n' "$CODE_URL"
  printf 'CODE_COMMIT=%q\n' "$CODE_COMMIT"
  printf 'IMAGE=%q\n' "$IMAGE"
  printf 'IMAGE_REGISTRY=%q\n' "$IMAGE_REGISTRY"
  printf 'IMAGE_AUTH=%q\n' "$IMAGE_AUTH"
  printf 'ECR_REGION=%q\n' "$ECR_REGION"
  printf 'TOOLKIT_REPO_URL=%q\n' "$TOOLKIT_REPO_URL"
  printf 'TOOLKIT_KEY_URL=%q\n' "$TOOLKIT_KEY_URL"
  printf 'TOOLKIT_FINGERPRINT=%q\n' "$TOOLKIT_FINGERPRINT"
  printf 'TOOLKIT_KEYRING=%q\n' "$TOOLKIT_KEYRING"
  printf 'TOOLKIT_LIST=%q\n' "$TOOLKIT_LIST"
  printf 'TOOLKIT_VERSION=%q\n' "$TOOLKIT_VERSION"
  printf 'TOOLKIT_PACKAGES=%q\n' "$TOOLKIT_PACKAGES"
  printf 'JOB_DIR=%q\n' "$JOB_DIR"
} > "$ROOT/etc/accelfit/accelfit.env"
if [ -n "$COMMAND_B64" ]; then
  printf '%s' "$COMMAND_B64" | base64 -d > "$ROOT/etc/accelfit/command.sh"
else
  : > "$ROOT/etc/accelfit/command.sh"
fi
chmod 0700 "$ROOT/etc/accelfit/command.sh"

cat > "$ROOT/usr/local/sbin/accelfit-idle-check" <<'CHECK'
#!/bin/bash
set -euo pipefail
ROOT=${ACCELFIT_ROOT:-}
# shellcheck source=/dev/null
. "$ROOT/etc/accelfit/accelfit.env"
install -d -m 0755 "$ROOT/run/accelfit"
stamp=$ROOT/run/accelfit/last-busy
now=$(date +%s)
[ -f "$stamp" ] || echo "$now" > "$stamp"
busy=false
state=$(systemctl is-active accelfit-job.service 2>/dev/null || true)
case "$state" in
  active|activating|deactivating|reloading) busy=true ;;
esac
if utilization=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null); then
  while read -r pct; do
    if [ "${pct:-0}" -ge "$BUSY_UTILIZATION_PCT" ]; then
      busy=true
    fi
  done <<< "$utilization"
fi
if [ "$busy" = true ]; then
  echo "$now" > "$stamp"
  exit 0
fi
idle_seconds=$(( now - $(cat "$stamp") ))
if [ "$idle_seconds" -lt $(( AUTOSTOP_IDLE_MINUTES * 60 )) ]; then
  exit 0
fi
logger -t accelfit "GPUs idle for ${AUTOSTOP_IDLE_MINUTES} min: autostop ${AUTOSTOP_ACTION}"
if [ "$CLOUD" = gcp ]; then
  metadata=http://metadata.google.internal/computeMetadata/v1/instance
  name=$(curl -sf -H 'Metadata-Flavor: Google' "$metadata/name")
  zone=$(curl -sf -H 'Metadata-Flavor: Google' "$metadata/zone")
  verb=stop-instances
  if [ "$AUTOSTOP_ACTION" = delete ]; then
    verb=delete-instances
  fi
  gcloud compute instance-groups managed "$verb" "$GROUP" --instances="$name" --zone="${zone##*/}" --quiet
else
  shutdown -h now
fi
CHECK

cat > "$ROOT/usr/local/sbin/accelfit-fetch" <<'FETCH'
#!/bin/bash
# Puts the job's code in the job directory (an archive unpacked, or a git commit checked out) or pulls its image.
# Once per source: a restarted VM keeps what the job wrote there (checkpoints, caches) and does not fetch again.
set -euo pipefail
ROOT=${ACCELFIT_ROOT:-}
# shellcheck source=/dev/null
. "$ROOT/etc/accelfit/accelfit.env"
job=$ROOT$JOB_DIR
marker=$ROOT/var/lib/accelfit/fetched
fail() {
  echo "accelfit fetch FAILED: $*" >&2
  exit 1
}

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

fetch_archive() {
  local scratch
  scratch=$(mktemp -d)
  if [ "$CLOUD" = gcp ]; then
    gcloud storage cp "$CODE_URL" "$scratch/code.tar" || fail "cannot copy $CODE_URL (the VM's service account reads it)"
  else
    aws s3 cp "$CODE_URL" "$scratch/code.tar" || fail "cannot copy $CODE_URL (the instance role reads it)"
  fi
  tar -xf "$scratch/code.tar" -C "$job" --no-same-owner || fail "cannot unpack $CODE_URL (a tar or tar.gz archive)"
  rm -rf "$scratch"
}

fetch_git() {
  git -C "$job" init -q
  git -C "$job" fetch -q --depth 1 "$CODE_URL" "$CODE_COMMIT" \
    || git -C "$job" fetch -q "$CODE_URL" '+refs/heads/*:refs/remotes/accelfit/*' '+refs/tags/*:refs/tags/*' \
    || fail "cannot fetch $CODE_URL (a public repository)"
  git -C "$job" -c advice.detachedHead=false checkout -q --force "$CODE_COMMIT" \
    || fail "commit $CODE_COMMIT is not in $CODE_URL"
  [ "$(git -C "$job" rev-parse HEAD)" = "$CODE_COMMIT" ] || fail "checked out $(git -C "$job" rev-parse HEAD), not $CODE_COMMIT"
}

# Docker with the NVIDIA runtime: the Deep Learning images ship both; a VM without them gets Ubuntu's docker.io and
# the NVIDIA Container Toolkit from NVIDIA's repository (key fingerprint checked, the release the plan pins), as
# https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html describes.
ensure_container_runtime() {
  local config before after packages
  if ! command -v docker >/dev/null 2>&1; then
    install_latest docker.io
  fi
  if ! command -v nvidia-ctk >/dev/null 2>&1; then
    install_latest ca-certificates curl gnupg
    add_repository "NVIDIA container toolkit" "$TOOLKIT_KEY_URL" "$TOOLKIT_FINGERPRINT" "$TOOLKIT_KEYRING" \
      "$TOOLKIT_LIST" "deb [signed-by=$TOOLKIT_KEYRING] $TOOLKIT_REPO_URL /"
    read -ra packages <<<"$TOOLKIT_PACKAGES"
    install_pinned "$TOOLKIT_VERSION-" "${packages[@]}"
  fi
  config=$ROOT/etc/docker/daemon.json
  before=$(sha256sum "$config" 2>/dev/null || true)
  nvidia-ctk runtime configure --runtime=docker
  after=$(sha256sum "$config" 2>/dev/null || true)
  if [ "$before" != "$after" ]; then
    systemctl restart docker
  fi
}

pull_image() {
  ensure_container_runtime
  case "$IMAGE_AUTH" in
    gcp) gcloud auth configure-docker "$IMAGE_REGISTRY" --quiet ;;
    ecr) aws ecr get-login-password --region "$ECR_REGION" \
           | docker login --username AWS --password-stdin "$IMAGE_REGISTRY" ;;
  esac
  docker pull "$IMAGE" || fail "cannot pull $IMAGE"
}

source_id="$CODE_KIND $CODE_URL $CODE_COMMIT $IMAGE"
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$source_id" ]; then
  exit 0
fi
install -d -m 0755 "$job"
case "$CODE_KIND" in
  archive) fetch_archive ;;
  git) fetch_git ;;
esac
if [ -n "$IMAGE" ]; then
  pull_image
fi
printf '%s\n' "$source_id" > "$marker"
FETCH

cat > "$ROOT/usr/local/sbin/accelfit-run-job" <<'RUN'
#!/bin/bash
# Runs the job in the job directory: the image with every GPU (the directory at /workspace), or the command.
set -euo pipefail
ROOT=${ACCELFIT_ROOT:-}
# shellcheck source=/dev/null
. "$ROOT/etc/accelfit/accelfit.env"
job=$ROOT$JOB_DIR
command_file=$ROOT/etc/accelfit/command.sh
export ACCELFIT_BUCKET_URL=$BUCKET_URL
cd "$job"
if [ -n "$IMAGE" ]; then
  docker rm --force accelfit-job >/dev/null 2>&1 || true
  run=(docker run --rm --name accelfit-job --gpus all --ipc host --network host --volume "$job:/workspace"
    --workdir /workspace --env ACCELFIT_BUCKET_URL --env ACCELFIT_JOB_DIR=/workspace)
  if [ -s "$command_file" ]; then
    exec "${run[@]}" --entrypoint sh "$IMAGE" -c "$(cat "$command_file")"
  fi
  exec "${run[@]}" "$IMAGE"
fi
export ACCELFIT_JOB_DIR=$job
exec bash -l "$command_file"
RUN

cat > "$ROOT/usr/local/sbin/accelfit-job-pending" <<'PENDING'
#!/bin/bash
# ExecCondition: run the job unless this job (its command, code and image) has already succeeded once.
ROOT=${ACCELFIT_ROOT:-}
# shellcheck source=/dev/null
. "$ROOT/etc/accelfit/accelfit.env"
[ "$(cat "$ROOT/var/lib/accelfit/job-done" 2>/dev/null)" != "$JOB_KEY" ]
PENDING

cat > "$ROOT/usr/local/sbin/accelfit-job-finished" <<'FINISHED'
#!/bin/bash
# ExecStopPost: a job that exited 0 is done; it does not run again at the next boot.
ROOT=${ACCELFIT_ROOT:-}
# shellcheck source=/dev/null
. "$ROOT/etc/accelfit/accelfit.env"
if [ "${SERVICE_RESULT:-}" = success ] && [ "${EXIT_STATUS:-}" = 0 ]; then
  printf '%s\n' "$JOB_KEY" > "$ROOT/var/lib/accelfit/job-done"
fi
FINISHED
chmod 0755 "$ROOT/usr/local/sbin/accelfit-idle-check" "$ROOT/usr/local/sbin/accelfit-fetch" \
  "$ROOT/usr/local/sbin/accelfit-run-job" "$ROOT/usr/local/sbin/accelfit-job-pending" \
  "$ROOT/usr/local/sbin/accelfit-job-finished"

cat > "$ROOT/etc/systemd/system/accelfit-idle.service" <<'UNIT'
[Unit]
Description=accelfit autostop: stop the VM when its GPUs have been idle

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/accelfit-idle-check
UNIT

cat > "$ROOT/etc/systemd/system/accelfit-idle.timer" <<'UNIT'
[Unit]
Description=accelfit autostop idle check, every minute

[Timer]
OnBootSec=1min
OnUnitActiveSec=1min
AccuracySec=10s

[Install]
WantedBy=timers.target
UNIT

# No start timeout: pulling a large image or a big archive takes longer than systemd's default 90 s.
cat > "$ROOT/etc/systemd/system/accelfit-job.service" <<'UNIT'
[Unit]
Description=accelfit job (training.code, training.image, training.command)
After=network-online.target docker.service
Wants=network-online.target

[Service]
Type=simple
Environment=HOME=/root
ExecCondition=/usr/local/sbin/accelfit-job-pending
ExecStartPre=/usr/local/sbin/accelfit-fetch
ExecStart=/usr/local/sbin/accelfit-run-job
ExecStopPost=/usr/local/sbin/accelfit-job-finished
TimeoutStartSec=infinity
StandardOutput=journal

[Install]
WantedBy=multi-user.target
UNIT

systemctl daemon-reload
systemctl enable --now accelfit-idle.timer
if [ -n "$COMMAND_B64" ] || [ -n "$IMAGE" ]; then
  systemctl enable accelfit-job.service
  systemctl start --no-block accelfit-job.service
fi
