"""The shape of the resource inputs the pricer reads, checked before a `pulumi preview --json` document is priced.

A hand-edited or foreign preview document can carry a list where a map belongs, a node count as a string or
`inf` as a disk size; priced blindly, each of those is a traceback deep in `resources.py`. Here every input the
pricer reads is checked once, and a mistyped one is an `InputError` that names the step, the resource and the
field. Inputs the pricer does not read are not checked (they are the provider's business).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from accelfit.errors import Problem, join_path, problem

# Node counts, sizes in GiB and throughput per TiB: far above any real value, far below float trouble.
MAX_QUANTITY = 1e9
_LOCATION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{1,63}\Z")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}\Z")

COUNT, TEXT, LOCATION, FLAG = "count", "text", "location", "flag"
Shape = str | Mapping[str, Any] | list[Any]

_TPU_CONFIG = {"type": TEXT, "topology": TEXT}
_SCHEDULING = {"spot": FLAG, "preemptible": FLAG}

SHAPES: dict[str, Mapping[str, Shape]] = {
    "gcp:container/nodePool:NodePool": {
        "nodeConfig": {"machineType": TEXT, "spot": FLAG, "preemptible": FLAG},
        "location": LOCATION, "nodeCount": COUNT, "initialNodeCount": COUNT, "nodeLocations": [LOCATION],
        "autoscaling": {"totalMaxNodeCount": COUNT, "maxNodeCount": COUNT, "totalMinNodeCount": COUNT,
                        "minNodeCount": COUNT},
    },
    "gcp:tpu/v2Vm:V2Vm": {"acceleratorConfig": _TPU_CONFIG, "acceleratorType": TEXT, "zone": LOCATION,
                          "schedulingConfig": _SCHEDULING},
    "gcp:tpu/v2QueuedResource:V2QueuedResource": {
        "zone": LOCATION, "schedulingConfig": _SCHEDULING,
        "tpu": {"nodeSpecs": [{"node": {"acceleratorConfig": _TPU_CONFIG, "acceleratorType": TEXT}}]},
    },
    "gcp:compute/routerNat:RouterNat": {"region": LOCATION},
    "aws:ec2/natGateway:NatGateway": {"region": LOCATION},
    "gcp:storage/bucket:Bucket": {"location": LOCATION},
    "gcp:filestore/instance:Instance": {"fileShares": {"capacityGb": COUNT}, "tier": TEXT},
    "gcp:compute/disk:Disk": {"size": COUNT, "type": TEXT},
    "gcp:compute/instanceGroupManager:InstanceGroupManager": {"zone": LOCATION, "targetSize": COUNT},
    "gcp:compute/instanceTemplate:InstanceTemplate": {
        "machineType": TEXT, "scheduling": {"provisioningModel": TEXT},
        "disks": [{"diskSizeGb": COUNT, "diskType": TEXT, "boot": FLAG}]},
    "aws:eks/nodeGroup:NodeGroup": {"instanceTypes": [TEXT], "scalingConfig": {"maxSize": COUNT, "minSize": COUNT},
                                    "capacityType": TEXT, "region": LOCATION},
    "aws:fsx/lustreFileSystem:LustreFileSystem": {"storageCapacity": COUNT, "deploymentType": TEXT,
                                                  "perUnitStorageThroughput": COUNT, "region": LOCATION},
}


def input_problems(source: str, where: str, resource_type: str, inputs: Any) -> list[Problem]:
    """Problems with the priced inputs of one resource; `where` names it (step index and resource name)."""
    if not isinstance(inputs, Mapping):
        return [problem(source, f"{where}.inputs", f"expected a map of inputs, found {_kind(inputs)}",
                        "pass an unmodified `pulumi preview --json` output")]
    shape = SHAPES.get(resource_type)
    return _check(source, f"{where}.inputs", inputs, shape) if shape else []


def _check(source: str, path: str, value: Any, shape: Shape) -> list[Problem]:
    if isinstance(shape, Mapping):
        if not isinstance(value, Mapping):
            return [_bad(source, path, "a map", value)]
        found: list[Problem] = []
        for key, inner in shape.items():
            if value.get(key) is not None:
                found += _check(source, join_path(path, key), value[key], inner)
        return found
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [_bad(source, path, "a list", value)]
        found = []
        for index, item in enumerate(value):
            found += _check(source, join_path(path, index), item, shape[0])
        return found
    if shape == COUNT:
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
              and 0 <= value <= MAX_QUANTITY)
        return [] if ok else [_bad(source, path, f"a number from 0 to {MAX_QUANTITY:,.0f}", value)]
    if shape == FLAG:
        return [] if isinstance(value, bool) else [_bad(source, path, "true or false", value)]
    pattern = _LOCATION if shape == LOCATION else _NAME
    if isinstance(value, str) and pattern.match(value):
        return []
    return [_bad(source, path, "a region or zone name" if shape == LOCATION else "a short name", value)]


def _bad(source: str, path: str, wanted: str, value: Any) -> Problem:
    return problem(source, path, f"expected {wanted}, found {_kind(value)}",
                   "pass an unmodified `pulumi preview --json` output", value)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}" if math.isfinite(value) else "a non-finite number"
    return {str: "text", list: "a list", dict: "a map", type(None): "null"}.get(type(value), type(value).__name__)
