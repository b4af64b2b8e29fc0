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
  training run, and the serving fallback pools, are 0-minimum);
- autostop for serving (`--autostop`, default 4h): the copy serves for that long a day from the minute it was
  created (`inference.hours_per_day` and `inference.serving_start_utc`), then its servers go once idle and its
  nodes follow (accelfit/planner/costing/option_costs.py, SCHEDULED_SERVING_PLATFORMS, says how on each platform), and
  it is priced for those hours only. Where the chosen platform has no daily window (TPU serving) the copy is priced all
  day and `up` reports the workload as not autostopped.

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
_AUTOSTOP = re.compile(r"^([1-9][0-9]{0,3})([mh])\Z")
# A daily window of at least a quarter of an hour (a server loads its weights in minutes) and under a day (at 24 h
# nothing stops).
_AUTOSTOP_MINUTES = (15, 23 * 60)


def parse_autostop(text: str) -> float:
    """Hours a day a serving copy serves (`--autostop 90m`, `--autostop 4h`)."""
    match = _AUTOSTOP.match((text or "").strip())
    minutes = None if match is None else int(match[1]) * (60 if match[2] == "h" else 1)
    if minutes is None or not _AUTOSTOP_MINUTES[0] <= minutes <= _AUTOSTOP_MINUTES[1]:
        raise InputError([problem(None, "--autostop", "not a serving time of 15m to 23h",
                                  "write minutes or hours, e.g. --autostop 90m or --autostop 4h", text)])
    return minutes / 60


DEFAULT_AUTOSTOP = "4h"
DEFAULT_AUTOSTOP_HOURS = parse_autostop(DEFAULT_AUTOSTOP)


def serves(spec: dict[str, Any]) -> bool:
    return spec.get("kind") != "training"


def check_name(name: str, existing: set[str]) -> str:
    if not EPHEMERAL_NAME.match(name or ""):
        raise InputError([problem(None, "--name", "not an ephemeral stack name: a lowercase letter, then up to 29 "
                                  "lowercase letters, digits or '-' (not ending in '-')", "e.g. --name pr-123", name)])
    if name in existing:
        raise InputError([problem(f"stacks/Pulumi.{name}.yaml", "--name", "a stack of this name exists",
                                  "choose another name, or `accelfit ephemeral down --name NAME` first", name)])
    return name


def scaled_workload(spec: dict[str, Any], cap_usd: float, autostop: tuple[str, float]) -> dict[str, Any]:
    """The same workload at its smallest end-to-end shape (see the module's docstring); `autostop` is the serving
    window's (start HH:MM UTC, hours a day)."""
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
        inference["serving_start_utc"], inference["hours_per_day"] = autostop
    return scaled


def workload_specs(config: dict[str, Any], project: str) -> list[dict[str, Any]]:
    single = config.get(f"{project}:workload")
    specs = [single] if single is not None else config.get(f"{project}:workloads") or []
    return [spec for spec in specs if isinstance(spec, dict)]


def ephemeral_document(source_document: dict[str, Any], project: str, name: str, ttl: dt.timedelta,
                       now: dt.datetime, cap_usd: float, autostop_hours: float | None = None) -> dict[str, Any]:
    """The stack file of ephemeral copy `name` of a source stack's document. `autostop_hours`: how long its serving
    workloads serve a day from `now` (None: the default); given for a copy that serves nothing, it is refused."""
    if autostop_hours is not None and not any(serves(spec) for spec in workload_specs(source_document["config"],
                                                                                      project)):
        raise InputError([problem(None, "--autostop", "the source stack serves nothing: a training copy stops "
                                  "by itself when its run ends", "drop --autostop", autostop_hours)])
    hours = autostop_hours if autostop_hours is not None else DEFAULT_AUTOSTOP_HOURS
    autostop = (now.astimezone(dt.UTC).strftime("%H:%M"), hours)
    config = {key: value for key, value in source_document["config"].items()
              if key not in {f"{project}:{dropped}" for dropped in _DROPPED}}
    config[f"{project}:environment"] = ENVIRONMENT
    config[f"{project}:expiresAt"] = expires_at(now, ttl)
    if f"{project}:workload" in config:
        config[f"{project}:workload"] = scaled_workload(config[f"{project}:workload"], cap_usd, autostop)
    else:
        config[f"{project}:workloads"] = [scaled_workload(spec, cap_usd, autostop)
                                          for spec in config[f"{project}:workloads"]]
    return {"config": config}
