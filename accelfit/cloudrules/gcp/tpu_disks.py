"""Which data disk a TPU VM generation accepts, from `data/tpu_vm_disks.yaml` (sourced, dated). Pure.

A data disk is created only for a single-host slice and attached read-write, so the VM can fill it; a multi-host
slice is several VMs, where a disk can only be read-only and a new (blank) one would never hold data.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from accelfit.yamlio import read_package_yaml
from accelfit.cloudrules.gcp.node_settings import topology_chips

DISKS_FILE = Path(__file__).parent / "data" / "tpu_vm_disks.yaml"


@dataclass(frozen=True)
class TpuDiskRule:
    config_type: str
    generation: str
    disk_types: tuple[str, ...]
    max_disks_per_vm: int
    single_host_max_chips: int
    source: str

    @property
    def default_type(self) -> str:
        return self.disk_types[0]


@functools.cache
def disk_rules() -> dict[str, TpuDiskRule]:
    """accelerator_config.type (V6E, V5P, ...) -> its rule."""
    data = read_package_yaml(DISKS_FILE)
    return {config_type: TpuDiskRule(config_type=config_type, source=data["source"],
                                     **{**row, "disk_types": tuple(row["disk_types"])})
            for config_type, row in data["generations"].items()}


def is_multi_host(config_type: str, topology: str) -> bool:
    """More chips than one VM of the generation holds. Unknown generations count as multi-host (no disk)."""
    rule = disk_rules().get(config_type)
    return rule is None or topology_chips(topology) > rule.single_host_max_chips


def data_disk_problem(config_type: str, topology: str, disk_type: str | None = None) -> tuple[str, str] | None:
    """(what is wrong, the fix) for a data disk on a slice, or None when the disk can be used."""
    rule = disk_rules().get(config_type)
    if rule is None:
        return (f"no data-disk rule for accelerator type {config_type}",
                "add it to accelfit/cloudrules/gcp/data/tpu_vm_disks.yaml, or set data_disk_gb: 0")
    if is_multi_host(config_type, topology):
        return (f"a multi-host slice ({topology}) attaches a disk only read-only, so a new (blank) disk could never "
                f"hold data ({rule.source})",
                "set data_disk_gb: 0 and read the dataset from the GCS bucket or Filestore")
    if disk_type is not None and disk_type not in rule.disk_types:
        return (f"{rule.generation} VMs take {', '.join(rule.disk_types)} data disks, not {disk_type} "
                f"({rule.source})", f"use {rule.default_type}")
    return None
