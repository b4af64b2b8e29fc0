"""Spec builders for planner tests: a base spec per kind, changed field by field in each test."""

from __future__ import annotations

import copy
from typing import Any

from accelfit.spec import WorkloadSpec

TRAINING: dict[str, Any] = {
    "name": "t", "kind": "training", "framework": "jax", "maturity": "stable",
    "model": {"parameters": "8B", "precision": "bf16"},
    "training": {"tokens": "200B", "deadline_days": 14},
    "placement": {"clouds": ["gcp", "aws"]},
    "budget": {"pricing": "on-demand"},
}

INFERENCE: dict[str, Any] = {
    "name": "serve", "kind": "inference", "framework": "pytorch",
    "model": {"parameters": "8B", "precision": "bf16"},
    "inference": {"requests_per_second": 20, "input_tokens": 1024, "output_tokens": 256, "latency_p99_ms": 4000,
                  "traffic": "variable"},
    "placement": {"clouds": ["gcp", "aws"]},
    "budget": {"pricing": "on-demand"},
}


def make_spec(base: dict[str, Any], **changes: Any) -> WorkloadSpec:
    """make_spec(TRAINING, model__precision="fp8") sets model.precision; a value of None removes the key."""
    document = copy.deepcopy(base)
    for dotted, value in changes.items():
        keys = dotted.split("__")
        node = document
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = value
    return WorkloadSpec.model_validate(document)
