"""Cloud TPU rules the SDK types do not carry, checked against a Plan before anything is created. Pure; no
Pulumi import. Each rule returns `Problem`s that name the plan field, the rule and the fix (exit code 2).

- zone availability: a slice (GKE pool or TPU VM) only in a zone Google lists for its generation, from the
  catalog's availability rows (tpu_availability.yaml, sourced from cloud.google.com/tpu/docs/regions-zones);
- data disks: the disk type a TPU VM generation accepts (tpu_disks.py);
- queued resources: what pulumi-gcp 10.2.0's V2QueuedResource cannot express.
"""

from __future__ import annotations

from accelfit.catalog.models import Catalog, Cloud, TpuSlice
from accelfit.errors import Problem, join_path, problem
from accelfit.cloudrules.gcp import tpu_disks

FILE = "plan"
AVAILABILITY_SOURCE = "https://cloud.google.com/tpu/docs/regions-zones"


def zone_problems(path: str, tpu_slice: TpuSlice, zone: str, catalog: Catalog) -> list[Problem]:
    """The slice's generation must be listed in `zone`; the message says where it is listed instead."""
    if catalog.zone_listing(tpu_slice.accelerator, zone, Cloud.gcp) is not None:
        return []
    listed = catalog.available_zones(tpu_slice.accelerator, Cloud.gcp)
    fix = (f"use a zone Google lists for {tpu_slice.accelerator}: {', '.join(listed)}" if listed
           else f"add the zones Google lists for {tpu_slice.accelerator} to tpu_availability.yaml")
    return [problem(FILE, path, f"{tpu_slice.accelerator} ({tpu_slice.name}) cannot be created in {zone}: "
                                f"Google's TPU zone list ({AVAILABILITY_SOURCE}) does not name it", fix, zone)]


def pool_zone_problems(path: str, tpu_slice: TpuSlice, zones: tuple[str, ...], catalog: Catalog) -> list[Problem]:
    problems: list[Problem] = []
    for index, zone in enumerate(zones):
        problems += zone_problems(join_path(path, index), tpu_slice, zone, catalog)
    return problems


def data_disk_problems(path: str, tpu_slice: TpuSlice, data_disk_gb: int) -> list[Problem]:
    """A data disk only where the VM can write it: single-host slices (tpu_disks.py)."""
    if not data_disk_gb:
        return []
    reason = tpu_disks.data_disk_problem(tpu_slice.accelerator_config_type, tpu_slice.topology)
    return [problem(FILE, path, *reason, data_disk_gb)] if reason else []


def generation_of(catalog: Catalog, *, machine_type: str | None = None,
                  accelerator_config_type: str | None = None) -> str | None:
    """The TPU generation of a GKE TPU machine type or a TPU API accelerator_config.type (catalog slices)."""
    for tpu_slice in catalog.tpu_slices:
        if machine_type is not None and tpu_slice.gke_machine_type == machine_type:
            return tpu_slice.accelerator
        if accelerator_config_type is not None and tpu_slice.accelerator_config_type == accelerator_config_type:
            return tpu_slice.accelerator
    return None


def component_zone_problem(where: str, generation: str | None, zone: str, catalog: Catalog) -> Problem | None:
    """For components used by hand (no plan): the zone must be one Google lists for the generation."""
    if generation is None or catalog.zone_listing(generation, zone) is not None:
        return None
    listed = catalog.available_zones(generation)
    return problem(where, "zone", f"Google's TPU zone list ({AVAILABILITY_SOURCE}) does not name {zone} for "
                                  f"{generation}", f"use one of: {', '.join(listed) or '(none listed)'}", zone)
