"""Creating, destroying and sweeping ephemeral stacks: the file work and the Pulumi CLI calls, kept apart from the
pure copy (accelfit.ephemeral). Pulumi runs through its CLI (`pulumi stack init`, `up`, `destroy`, `stack rm`), only
where the CLI is on PATH; where it is not, `up` stops after the offline preview and says so."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from accelfit.errors import InputError, problem


# The stack tag `ephemeral up` sets on the backend stack (`pulumi stack tag set`): the scheduled sweep lists the
# backend's stacks by it (`pulumi stack ls --json --tag NAME`), since the stack files the pull-request job writes are
# never committed. Pulumi CLI reference: pulumi_stack_tag_set, pulumi_stack_ls (--tag "tag-name or
# tag-name=tag-value", --json rows with `name`), pulumi_stack_tag_get.
EXPIRY_TAG = "accelfit:expiresAt"
# ... and when it was made and what it costs an hour at its plan (the preview's monthly figure over 730 h), so that
# closing the pull request can say what the copy cost so far without its stack file.
CREATED_TAG = "accelfit:createdAt"
HOURLY_TAG = "accelfit:hourlyUsd"


@dataclass(frozen=True)
class Created:
    name: str
    path: Path
    monthly_usd: float
    source_monthly_usd: float
    expires_at: str
    cap_usd: float | None
    mandatory_violations: int
    autostop: dict[str, Any] = field(default_factory=dict)


def pulumi_cli() -> str | None:
    return shutil.which("pulumi")


def _pulumi(args: list[str], project_dir: Path, fix: str, *, capture: bool) -> str:
    cli = pulumi_cli()
    if cli is None:
        raise InputError([problem(None, "pulumi", "the Pulumi CLI is not on PATH", fix)])
    done = subprocess.run([cli, *args], cwd=project_dir, check=False, text=True,
                          stdout=subprocess.PIPE if capture else None)
    if done.returncode != 0:
        raise RuntimeError(f"pulumi {' '.join(args)} failed with exit {done.returncode}")
    return done.stdout or ""


def run_pulumi(args: list[str], project_dir: Path) -> None:
    _pulumi(args, project_dir, "install it (README: Running it for real) or pass --no-deploy", capture=False)


def pulumi_output(args: list[str], project_dir: Path) -> str:
    """What a Pulumi CLI command prints (a listing, a tag's value); its errors go to the terminal."""
    return _pulumi(args, project_dir, "install it (README: Running it for real) and log in", capture=True)


def tag_stack(project_dir: Path, stack_ref: str, created: Created, now: dt.datetime) -> None:
    """The backend stack's tags: its expiry (the sweep's key), when it was made and its planned hourly cost."""
    from accelfit.expiry import expires_at
    from accelfit.pricing.figures import HOURS_PER_MONTH

    tags = ((EXPIRY_TAG, created.expires_at), (CREATED_TAG, expires_at(now, dt.timedelta(0))),
            (HOURLY_TAG, f"{created.monthly_usd / HOURS_PER_MONTH:.4f}"))
    for tag, value in tags:
        run_pulumi(["stack", "tag", "set", tag, value, "--stack", stack_ref], project_dir)


def cost_so_far(project_dir: Path, stack_ref: str, now: dt.datetime) -> dict[str, Any] | None:
    """Hours since the copy was made times its planned hourly cost (an estimate at the plan's prices, not a bill);
    None for a stack without the tags (made before them, or never deployed)."""
    from accelfit.expiry import parse_instant

    try:
        created = pulumi_output(["stack", "tag", "get", CREATED_TAG, "--stack", stack_ref], project_dir).strip()
        hourly = float(pulumi_output(["stack", "tag", "get", HOURLY_TAG, "--stack", stack_ref], project_dir))
        hours = max(0.0, (now - parse_instant(created, f"stack tag {CREATED_TAG}")).total_seconds() / 3600)
    except (RuntimeError, ValueError, InputError):
        return None
    return {"created_at": created, "hours": round(hours, 2), "hourly_usd": hourly, "usd": round(hours * hourly, 2)}


def backend_expired_stacks(project_dir: Path, now: dt.datetime, org: str) -> list[str]:
    """The backend's ephemeral stacks (tagged accelfit:expiresAt, named as `ephemeral up` names them) whose expiry
    has passed, whether or not a stack file exists here."""
    from accelfit.ephemeral import EPHEMERAL_NAME
    from accelfit.expiry import expired

    rows = json.loads(pulumi_output(["stack", "ls", "--json", "--tag", EXPIRY_TAG], project_dir) or "[]")
    found = []
    for row in rows:
        name = str(row.get("name", "")).rsplit("/", 1)[-1]  # `org/name` where the CLI qualifies it
        if not EPHEMERAL_NAME.match(name):
            continue
        ref = f"{org}/{name}" if org else name
        value = pulumi_output(["stack", "tag", "get", EXPIRY_TAG, "--stack", ref], project_dir).strip()
        if expired(value, now, f"stack tag {EXPIRY_TAG} of {ref}"):
            found.append(name)
    return sorted(found)


def existing_stacks(project_dir: Path) -> set[str]:
    from accelfit.stackfile import stack_path

    folder = stack_path("x", project_dir).parent
    return {p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in folder.glob("Pulumi.*.yaml")}


def autostopped_workloads(resources: list[dict[str, Any]]) -> list[str]:
    """The workloads whose planned serving pool may scale to zero outside a daily cron window, as built: their KEDA
    ScaledObject (route rank 0) has minReplicaCount 0 and a cron trigger (components/kubernetes/serving)."""
    from accelfit.pricing.serving_objects import RANK_LABEL, SCALED_OBJECT_TYPE, route_of

    found = set()
    for row in resources:
        inputs = row.get("inputs") or {}
        labels = (inputs.get("metadata") or {}).get("labels") or {}
        spec = inputs.get("spec") or {}
        route = route_of(inputs)
        if (row.get("type") == SCALED_OBJECT_TYPE and route and str(labels.get(RANK_LABEL)) == "0"
                and spec.get("minReplicaCount") == 0
                and any(trigger.get("type") == "cron" for trigger in spec.get("triggers") or [])):
            found.add(route)
    return sorted(found)


def _autostop_report(document: dict[str, Any], project: str) -> dict[str, Any]:
    from accelfit.ephemeral import serves, workload_specs

    serving = [spec for spec in workload_specs(document["config"], project) if serves(spec)]
    if not serving:
        return {}
    inference = serving[0].get("inference") or {}
    return {"from_utc": inference.get("serving_start_utc"), "hours_per_day": inference.get("hours_per_day"),
            "workloads": sorted(str(spec.get("name", "")) for spec in serving)}


def create(project_dir: Path, source: str, name: str, ttl: dt.timedelta, now: dt.datetime,
           autostop_hours: float | None = None) -> Created:
    """Write stacks/Pulumi.<name>.yaml as the scaled copy of `source`, and preview it offline (priced, checked by
    its policy). A copy with a mandatory violation is removed again: nothing half-made stays."""
    from accelfit.atomicwrite import write_atomically
    from accelfit.environments import environment_settings
    from accelfit.ephemeral import ENVIRONMENT, check_name, ephemeral_document
    from accelfit.preview.run import preview_stack
    from accelfit.stackfile import load_stack, read_project, stack_path
    from accelfit.yamlio import read_yaml

    check_name(name, existing_stacks(project_dir))
    source_stack = load_stack(source, project_dir)  # an unknown source is exit 2 naming the stacks there are
    cap = environment_settings(project_dir, ENVIRONMENT).max_monthly_usd or 0.0
    project = read_project(project_dir)["name"]
    document = ephemeral_document(read_yaml(source_stack.path), project, name, ttl, now, cap, autostop_hours)
    path = stack_path(name, project_dir)
    header = (f"# Ephemeral copy of stack {source} (accelfit ephemeral up): destroyed by `accelfit ephemeral down "
              f"--name {name}`, or by `accelfit ephemeral sweep` after accelfit:expiresAt.\n")
    write_atomically(path, (header + yaml.safe_dump(document, sort_keys=False)).encode(), what="the stack file")
    try:
        source_monthly = preview_stack(source, project_dir).document["cost"]["monthly_usd"]
        result = preview_stack(name, project_dir)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    if result.mandatory_violations:
        path.unlink(missing_ok=True)
    autostop = _autostop_report(document, project)
    if autostop:  # per serving workload: whether what the stack builds lets it stop (see autostopped_workloads)
        stopped = autostopped_workloads(result.document["resources"])
        autostop["workloads"] = {workload: workload in stopped for workload in autostop["workloads"]}
    return Created(name, path, result.document["cost"]["monthly_usd"], source_monthly,
                   document["config"][f"{project}:expiresAt"], cap, result.mandatory_violations, autostop)


def destroy_plan(project_dir: Path, name: str) -> list[dict[str, Any]]:
    """What `pulumi destroy` removes: every resource the stack's program creates (its recorded preview), each with
    whether it is protected (a protected resource would stop the destroy)."""
    from accelfit.preview.run import preview_stack

    resources = preview_stack(name, project_dir).document["resources"]
    return [{"urn": row["urn"], "type": row["type"], "protect": row["protect"]} for row in resources if row["custom"]]


def expired_stacks(project_dir: Path, now: dt.datetime) -> list[str]:
    from accelfit.expiry import expired
    from accelfit.stackfile import read_project, stack_path
    from accelfit.yamlio import read_yaml

    project = read_project(project_dir)["name"]
    found = []
    for name in sorted(existing_stacks(project_dir)):
        path = stack_path(name, project_dir)
        config = (read_yaml(path) or {}).get("config") or {}
        if isinstance(config, dict) and expired(config.get(f"{project}:expiresAt"), now, str(path)):
            found.append(name)
    return found


def is_ephemeral(project_dir: Path, name: str) -> bool:
    from accelfit.ephemeral import ENVIRONMENT
    from accelfit.stackfile import load_stack

    return load_stack(name, project_dir).environment == ENVIRONMENT


def destroy(project_dir: Path, name: str, stack_ref: str) -> None:
    """`pulumi destroy` and `pulumi stack rm`, then the stack file: the file goes last, so a failed destroy leaves
    what the next sweep needs to try again."""
    from accelfit.stackfile import stack_path

    run_pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack_ref], project_dir)
    run_pulumi(["stack", "rm", "--yes", "--stack", stack_ref], project_dir)
    stack_path(name, project_dir).unlink(missing_ok=True)
