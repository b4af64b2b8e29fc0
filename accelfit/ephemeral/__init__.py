"""Ephemeral environments: a short-lived, scaled copy of a stack for one pull request (`accelfit ephemeral up --from
STACK --name pr-123 --ttl 24h`). The copy is an ordinary stack file, stacks/Pulumi.<name>.yaml, so it is planned,
priced and policy-checked like any other; what makes it ephemeral is data in it:

- `accelfit:environment: ephemeral`: the policy configuration policies/config/ephemeral.json, whose
  stack-monthly-budget cap is mandatory and whose max-accelerators (8) keeps it to one node or a small slice;
- `accelfit:expiresAt`: its hard TTL (accelfit.expiry), labelled on every resource and destroyed by
  `accelfit ephemeral sweep`;
- its workload scaled to the smallest shape that runs the pipeline end to end: the same workload kind, model and
  accelerator type (placement.accelerators kept), a short training run (1B tokens within a day) or one serving replica at
  one request per second, spot pricing unless the spec pins the accelerator set to on-demand-only clouds, and the
  spec budget set to the environment's cap. Its pools scale to zero when the run ends (the planner's pools for a
  training run, and the serving fallback pools, are 0-minimum); the TTL sweep is what ends a serving copy.

Pure: the CLI (accelfit.cli.ephemeral_command) writes the file and runs Pulumi.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.expiry import expires_at

ENVIRONMENT = "ephemeral"
# A stack name that is also a DNS label, a GitHub environment-free PR tag and a label value: pr-123, demo-a.
EPHEMERAL_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,28}[a-z0-9])?\Z")
# The keys of the source that do not carry over: its lock (the copy plans its own, smaller shape) and its lock
# requirement (a fresh copy has no lock to require).
_DROPPED = ("selection", "requireLock", "environment", "expiresAt")
SHORT_RUN_TOKENS = "1B"


def check_name(name: str, existing: set[str]) -> str:
    if not EPHEMERAL_NAME.match(name or ""):
        raise InputError([problem(None, "--name", "not an ephemeral stack name: a lowercase letter, then up to 29 "
                                  "lowercase letters, digits or '-' (not ending in '-')", "e.g. --name pr-123", name)])
    if name in existing:
        raise InputError([problem(f"stacks/Pulumi.{name}.yaml", "--name", "a stack of this name exists",
                                  "choose another name, or `accelfit ephemeral down --name NAME` first", name)])
    return name


def scaled_workload(spec: dict[str, Any], cap_usd: float) -> dict[str, Any]:
    """The same workload at its smallest end-to-end shape (see the module's docstring)."""
    scaled = copy.deepcopy(spec)
    budget = scaled.setdefault("budget", {})
    budget.pop("max_total_usd", None)
    budget["max_monthly_usd"] = cap_usd
    budget["pricing"] = "spot"
    if scaled.get("kind") == "training":
        training = scaled.setdefault("training", {})
        training["tokens"] = SHORT_RUN_TOKENS
        training["deadline_days"] = 1
        if isinstance(scaled.get("data"), dict) and isinstance(scaled["data"].get("dataset_tb"), (int, float)):
            scaled["data"]["dataset_tb"] = min(scaled["data"]["dataset_tb"], 1)
    else:
        inference = scaled.setdefault("inference", {})
        inference["requests_per_second"] = 1
        inference["traffic"] = "steady"
    return scaled


def ephemeral_document(source_document: dict[str, Any], project: str, name: str, ttl: dt.timedelta,
                       now: dt.datetime, cap_usd: float) -> dict[str, Any]:
    """The stack file of ephemeral copy `name` of a source stack's document."""
    config = {key: value for key, value in source_document["config"].items()
              if key not in {f"{project}:{dropped}" for dropped in _DROPPED}}
    config[f"{project}:environment"] = ENVIRONMENT
    config[f"{project}:expiresAt"] = expires_at(now, ttl)
    if f"{project}:workload" in config:
        config[f"{project}:workload"] = scaled_workload(config[f"{project}:workload"], cap_usd)
    else:
        config[f"{project}:workloads"] = [scaled_workload(spec, cap_usd) for spec in config[f"{project}:workloads"]]
    return {"config": config}
