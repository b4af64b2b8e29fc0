"""Boot disks of cluster nodes: which priced disk a node boots from, and what it costs per node-hour. Pure.

A node's boot disk exists while its node exists, so it bills for exactly the hours the node does: its rate is
added to the node's hourly rate and follows the pool's run/scale rules (`accelfit.pricing.figures`).
- GKE GPU and system pools: `nodeConfig.diskType`, else the API default pd-balanced (GKE NodeConfig.diskType:
  "If unspecified, the default disk type is 'pd-balanced'"); GPU pools take their family's default from the
  boot-disk rules (accelfit/cloudrules/gcp/data/gke_rules.yaml), read here so plan and stack use the same row.
- EKS node groups: the launch template's gp3 root volume (components/aws/node_group.py); gp3 includes 3000 IOPS
  and 125 MB/s, which accelfit does not raise, so only capacity is priced.
- TPU machines (GKE TPU pools, TPU VMs): not priced here. A TPU VM includes a 100 GiB boot disk
  (https://cloud.google.com/tpu/docs/setup-persistent-disk); whether GKE TPU nodes' boot disks bill apart from
  the TPU chips is not established from a stored source, so neither plan nor preview prices them.
- Bare metal: owned servers, no cloud disk.
"""

from __future__ import annotations

from accelfit.cloudrules.gcp.rules import gcp_rules
from accelfit.pricing.figures import HOURS_PER_MONTH

GKE_DEFAULT_DISK_TYPE = "pd-balanced"
EKS_ROOT_VOLUME_SERVICE = "ebs-gp3"


def gke_boot_disk_type(machine_family: str) -> str:
    """The disk type accelfit sets on a GKE GPU pool of this family (its boot-disk rule's default)."""
    rule = gcp_rules().boot_disk(machine_family)
    return rule.default if rule else GKE_DEFAULT_DISK_TYPE


def disk_hourly_usd(size_gib: float, usd_per_gib_month: float) -> float:
    """A disk's cost per hour while it exists (disks are billed per GiB-month, prorated by the second)."""
    return size_gib * usd_per_gib_month / HOURS_PER_MONTH
