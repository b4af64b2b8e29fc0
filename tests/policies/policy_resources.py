"""Resource dicts for the policy tests, shaped exactly as the components record them (the golden files)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.proxy import unknown_checking_proxy

from policies.runner import wire_props

ROOT = Path(__file__).parents[2]
GOLDEN_FILES = sorted(ROOT.glob("tests/components/*/golden/*.json"))
CONFIG_DIR = ROOT / "policies" / "config"


def config(env: str) -> dict[str, Any]:
    return json.loads((CONFIG_DIR / f"{env}.json").read_text())


def urn(name: str, type_token: str, stack: str = "test") -> str:
    return f"urn:pulumi:{stack}::accelfit::{type_token}::{name}"


def golden(path: Path) -> list[dict[str, Any]]:
    """A golden file as runner resources {type, name, urn, props, protect, parent URN}."""
    rows = json.loads(path.read_text())
    types = {row["name"]: row["type"] for row in rows}
    return [{"type": row["type"], "name": row["name"], "urn": urn(row["name"], row["type"]),
             "props": row["inputs"], "protect": row["protect"],
             "parent": urn(row["parent"], types[row["parent"]]) if row["parent"] else None} for row in rows]


def golden_named(file_stem: str, name: str) -> dict[str, Any]:
    path = next(path for path in GOLDEN_FILES if path.stem == file_stem)
    return copy.deepcopy(next(row for row in golden(path) if row["name"] == name))


def gke_gpu_pool() -> dict[str, Any]:
    return golden_named("gcp-gke-h100-training", "llm-train-gpu-pool")


def gke_system_pool() -> dict[str, Any]:
    return golden_named("gcp-gke-h100-training", "llm-train-gke-system")


def gke_cluster() -> dict[str, Any]:
    return golden_named("gcp-gke-h100-training", "llm-train-gke-cluster")


def gcs_bucket() -> dict[str, Any]:
    return golden_named("gcp-gke-h100-training", "llm-train-data-bucket")


def filestore() -> dict[str, Any]:
    return golden_named("gcp-gke-h100-training", "llm-train-shared-filestore")


def iap_firewall() -> dict[str, Any]:
    return golden_named("gcp-gke-h100-training", "llm-train-net-allow-iap-ssh")


def tpu_vm() -> dict[str, Any]:
    return golden_named("gcp-tpu-jax-pretrain", "jax-pretrain-slice-0-vm")


def aws(name: str) -> dict[str, Any]:
    return golden_named("example-aws-h100-training", name)


def tpu_pool() -> dict[str, Any]:
    """A GKE v5p-128 pool as TpuNodePool records it (no golden example has one yet)."""
    labels = {"cost-center": "cc-4410", "environment": "prod", "managed-by": "accelfit", "team": "research-llm",
              "workload": "llm-pretrain"}
    return {"type": "gcp:container/nodePool:NodePool", "name": "llm-pretrain-tpu-0-pool",
            "urn": urn("llm-pretrain-tpu-0-pool", "gcp:container/nodePool:NodePool"), "protect": False,
            "parent": None, "props": {
                "cluster": "c-id", "initialNodeCount": 16, "location": "us-east5", "nodeLocations": ["us-east5-a"],
                "networkConfig": {"enablePrivateNodes": True},
                "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x4x4"},
                "nodeConfig": {"machineType": "ct5p-hightpu-4t", "spot": False, "resourceLabels": labels,
                               "labels": {"accelfit.io/role": "tpu", "accelfit.io/tpu-slice": "v5p-128"},
                               "taints": [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}]}}}


def resource_args(resource: dict[str, Any], policy_config: dict[str, Any] | None = None,
                  stack_tags: dict[str, str] | None = None) -> ResourceValidationArgs:
    """What the analyzer server builds for one resource (reference/pulumi.md 6.2): props through the wire
    (ints as floats) inside the unknown-checking proxy."""
    options = PolicyResourceOptions(resource.get("protect", False), [], None, [], PolicyCustomTimeouts(0, 0, 0), [],
                                    resource.get("parent"))
    return ResourceValidationArgs(resource["type"], unknown_checking_proxy(wire_props(resource["props"])),
                                  resource.get("urn", ""), resource["name"], options, None, policy_config, stack_tags)


def stack_args(resources: list[dict[str, Any]], policy_config: dict[str, Any] | None = None) -> StackValidationArgs:
    items = []
    for resource in resources:
        options = PolicyResourceOptions(resource.get("protect", False), [], None, [], PolicyCustomTimeouts(0, 0, 0),
                                        [], resource.get("parent"))
        items.append(PolicyResource(resource["type"], unknown_checking_proxy(wire_props(resource["props"])),
                                    resource.get("urn", ""), resource["name"], options, None, None, [], {}))
    return StackValidationArgs(items, policy_config)


def violations(policy: Any, args: Any) -> list[str]:
    """Messages the policy reports, called as the server calls it."""
    found: list[str] = []
    policy.validate(args, lambda message, urn=None: found.append(message))
    return found


def edit(resource: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    resource = copy.deepcopy(resource)
    change(resource["props"])
    return resource
