#!/bin/bash
# accelfit GPU VM startup: installs the autostop idle check and runs the team's command once.
# Rendered by components/gpu_vm_script.py; every placeholder value is shell-quoted there.
#
# Autostop: a systemd timer runs the idle check every minute. The GPUs count as busy while the job's unit runs or
# any GPU reports utilization at or above the threshold (nvidia-smi --query-gpu=utilization.gpu). After
# AUTOSTOP_IDLE_MINUTES without a busy minute the check acts:
# - stop: `shutdown -h now`. On Compute Engine a guest shutdown stops the VM (status TERMINATED, disks kept); on EC2
#   an instance launched with InstanceInitiatedShutdownBehavior=stop stops.
# - delete: Compute Engine: the VM deletes itself (`gcloud compute instances delete`, allowed by an IAM binding on
#   this instance only); EC2: `shutdown -h now` with InstanceInitiatedShutdownBehavior=terminate terminates it.
# The last busy time lives under /run (cleared at every boot), so a restarted VM gets a fresh idle window.
set -euo pipefail

CLOUD=gcp
AUTOSTOP_IDLE_MINUTES=30
AUTOSTOP_ACTION=stop
BUSY_UTILIZATION_PCT=5
COMMAND_B64=Y2QgL29wdC9qb2IgJiYgdG9yY2hydW4gdHJhaW4ucHk=

install -d -m 0755 /etc/accelfit /var/lib/accelfit
cat > /etc/accelfit/autostop.env <<ENV
CLOUD=${CLOUD}
AUTOSTOP_IDLE_MINUTES=${AUTOSTOP_IDLE_MINUTES}
AUTOSTOP_ACTION=${AUTOSTOP_ACTION}
BUSY_UTILIZATION_PCT=${BUSY_UTILIZATION_PCT}
ENV

cat > /usr/local/sbin/accelfit-idle-check <<'CHECK'
#!/bin/bash
set -euo pipefail
# shellcheck source=/dev/null
. /etc/accelfit/autostop.env
install -d -m 0755 /run/accelfit
stamp=/run/accelfit/last-busy
now=$(date +%s)
[ -f "$stamp" ] || echo "$now" > "$stamp"
busy=false
if systemctl is-active --quiet accelfit-job.service; then
  busy=true
fi
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
if [ "$AUTOSTOP_ACTION" = delete ] && [ "$CLOUD" = gcp ]; then
  metadata=http://metadata.google.internal/computeMetadata/v1/instance
  name=$(curl -sf -H 'Metadata-Flavor: Google' "$metadata/name")
  zone=$(curl -sf -H 'Metadata-Flavor: Google' "$metadata/zone")
  gcloud compute instances delete "$name" --zone "${zone##*/}" --quiet
else
  shutdown -h now
fi
CHECK
chmod 0755 /usr/local/sbin/accelfit-idle-check

cat > /etc/systemd/system/accelfit-idle.service <<'UNIT'
[Unit]
Description=accelfit autostop: stop the VM when its GPUs have been idle

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/accelfit-idle-check
UNIT

cat > /etc/systemd/system/accelfit-idle.timer <<'UNIT'
[Unit]
Description=accelfit autostop idle check, every minute

[Timer]
OnBootSec=1min
OnUnitActiveSec=1min
AccuracySec=10s

[Install]
WantedBy=timers.target
UNIT

if [ -n "$COMMAND_B64" ]; then
  printf '%s' "$COMMAND_B64" | base64 -d > /etc/accelfit/command.sh
  chmod 0700 /etc/accelfit/command.sh
  # Runs until it succeeds once: after a spot reclaim and restart it runs again (resume from the last checkpoint).
  cat > /etc/systemd/system/accelfit-job.service <<'UNIT'
[Unit]
Description=accelfit job (training.command)
After=network-online.target
Wants=network-online.target
ConditionPathExists=!/var/lib/accelfit/job-done

[Service]
Type=simple
ExecStart=/bin/bash -l /etc/accelfit/command.sh
ExecStopPost=/bin/sh -c 'if [ "$SERVICE_RESULT" = success ]; then touch /var/lib/accelfit/job-done; fi'
StandardOutput=journal

[Install]
WantedBy=multi-user.target
UNIT
fi

systemctl daemon-reload
systemctl enable --now accelfit-idle.timer
if [ -n "$COMMAND_B64" ]; then
  systemctl enable accelfit-job.service
  systemctl start --no-block accelfit-job.service
fi
