"""Finds user text that became syntax in a preview document (`accelfit preview --json`): the fuzz runner's check
for injections (issue 36). For every object the preview recorded:

  - model server containers: the command and args go through Kubernetes' `$(VAR)` expansion and run with stub
    `bash`, `python3`, `ray` and `vllm` that record their argv; anything else running, anything printed, or a
    `--model=` other than the spec's own location is an injection;
  - GCS FUSE volumes: the mountOptions, split as the CSI driver splits them, may hold only the fixed options and
    one `only-dir` equal to the weights' folder;
  - IAM policies: a Resource or s3:prefix value may hold no wildcard or policy variable but the builder's own
    trailing `/*` (literal characters are written ${*} ${?} ${$});
  - names: a Kubernetes object's name is a DNS label (at most 63), and a LeaderWorkerSet's leaves room for its
    worker pods' `controller-revision-hash` (`<name>-<group>-<10 characters>`, kubernetes#64023, lws#410).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STUBS = ("bash", "python3", "ray", "vllm")
MULTI_NODE_SCRIPT = "/vllm-workspace/examples/online_serving/multi-node-serving.sh"
GCSFUSE_FIXED = {"implicit-dirs", "file-cache:enable-parallel-downloads:true", "file-cache:cache-file-for-range-read:false",
                 "file-cache:download-chunk-size-mb:32", "file-cache:max-size-mb:-1",
                 "metadata-cache:stat-cache-max-size-mb:32", "metadata-cache:ttl-secs:3600",
                 "metadata-cache:type-cache-max-size-mb:4"}
GROUP_ENV = {"LWS_GROUP_SIZE": "2", "LWS_LEADER_ADDRESS": "leader.example"}
_IAM_LITERALS = re.compile(r"\$\{[*?$]\}")


def injections(document: Any) -> list[str]:
    """What in the preview document shows user text read as syntax; empty when nothing does."""
    if not isinstance(document, dict):
        return []
    weights = ((document.get("spec") or {}).get("model") or {}).get("weights")
    resources = [item for item in document.get("resources") or [] if isinstance(item, dict)]
    found: list[str] = []
    maxima = _max_replicas(resources)
    for resource in resources:
        kind, inputs = str(resource.get("type", "")), resource.get("inputs") or {}
        if not isinstance(inputs, dict):
            continue
        for container in _server_containers(kind, inputs):
            found += _command_problems(container, weights)
        found += _mount_problems(inputs, weights)
        if kind.startswith("aws:iam/") and isinstance(inputs.get("policy"), str):
            found += _iam_problems(inputs["policy"], weights)
        if kind.startswith("kubernetes:"):
            found += _name_problems(kind, inputs, maxima)
    return found


# --- containers ----------------------------------------------------------------------------------------------------
def _server_containers(kind: str, inputs: dict) -> Iterator[dict]:
    spec = inputs.get("spec") or {}
    templates = []
    if kind.endswith("apps/v1:Deployment"):
        templates.append(spec.get("template") or {})
    elif kind.endswith("LeaderWorkerSet"):
        group = spec.get("leaderWorkerTemplate") or {}
        templates += [group.get("leaderTemplate") or {}, group.get("workerTemplate") or {}]
    for template in templates:
        for container in (template.get("spec") or {}).get("containers") or []:
            if isinstance(container, dict) and container.get("name") == "vllm":  # the model server's container
                yield container


def expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' `$(NAME)` expansion of command and args (kubernetes third_party/forked/golang/expansion)."""
    out, index = [], 0
    while index < len(text):
        if text[index] != "$" or index + 1 == len(text):
            out.append(text[index])
            index += 1
        elif text[index + 1] == "$":
            out.append("$")
            index += 2
        elif text[index + 1] == "(" and ")" in text[index + 2:]:
            end = text.index(")", index + 2)
            out.append(env.get(text[index + 2:end], text[index:end + 1]))
            index = end + 1
        else:
            out.append(text[index:index + 2])
            index += 2
    return "".join(out)


def run_with_stubs(container: dict) -> tuple[list[list[str]], str, list[str]]:
    """(the stub calls, everything printed, files the command created) for one container."""
    env = {item["name"]: str(item.get("value", "<from a Secret>")) for item in container.get("env") or []
           if isinstance(item, dict) and "name" in item}
    env.update(GROUP_ENV)
    argv = [expand(str(part), env) for part in (*(container.get("command") or []), *(container.get("args") or []))]
    with tempfile.TemporaryDirectory(prefix="accelfit-oracle-") as folder:
        root = Path(folder)
        stubs, log, work = root / "bin", root / "calls", root / "work"
        for path in (stubs, log, work):
            path.mkdir()
        for name in STUBS:
            (stubs / name).write_text(f'#!/bin/sh\nn=$(ls "$STUB_LOG" | wc -l)\nprintf "%s\\0" "{name}" "$@" > '
                                      f'"$STUB_LOG/$n"\n')
            (stubs / name).chmod(0o755)
        try:
            done = subprocess.run(argv, env={**env, "PATH": f"{stubs}{os.pathsep}/usr/bin{os.pathsep}/bin",
                                             "STUB_LOG": str(log)}, cwd=work, capture_output=True, text=True,
                                  timeout=20, check=False)
            printed = done.stdout + done.stderr
        except (OSError, subprocess.TimeoutExpired) as error:
            printed = f"could not run: {error}"
        calls = [(log / name).read_bytes().decode("utf-8", "replace").split("\0")[:-1]
                 for name in sorted(os.listdir(log), key=int)]
        created = sorted(os.listdir(work))
    return calls, printed, created


def _model_argument(weights: str | None) -> str | None:
    if not isinstance(weights, str):
        return None
    if weights.startswith("gs://"):
        return "--model=/models"
    if weights.startswith("s3://"):
        return f"--model={weights}"
    return f"--model={weights.removeprefix('hf://')}"


def _command_problems(container: dict, weights: str | None) -> list[str]:
    calls, printed, created = run_with_stubs(container)
    problems = []
    if printed.strip() or created:
        problems.append(f"the server command printed or created something: {printed[:120]!r} {created[:3]}")
    for call in calls:
        if call[:2] == ["bash", MULTI_NODE_SCRIPT] and call[2] in ("leader", "worker"):
            continue
        if call[:3] != ["python3", "-m", "vllm.entrypoints.openai.api_server"]:
            problems.append(f"the server command ran something else: {call[:4]}")
        elif _model_argument(weights) not in call:
            models = [part for part in call if part.startswith("--model")]
            problems.append(f"--model changed on its way to the server: {models[:2]}")
    worker = bool(calls) and calls[0][2:3] == ["worker"]
    if not worker and not any(call[:1] == ["python3"] for call in calls):
        problems.append(f"the server never started: {calls[:3]}")
    return problems


# --- mount options -------------------------------------------------------------------------------------------------
def _mount_problems(inputs: dict, weights: str | None) -> list[str]:
    problems = []
    for options in _find_mount_options(inputs):
        flags = [option.split("=", 1) if "=" in option else [option] for option in options.split(",")]
        extra = [flag[0] for flag in flags if flag[0] not in GCSFUSE_FIXED and flag[0] != "only-dir"]
        only = [flag[1] for flag in flags if flag[0] == "only-dir" and len(flag) == 2]
        folder = weights.removeprefix("gs://").partition("/")[2].strip("/") if isinstance(weights, str) else ""
        if extra or len(only) > 1 or (only and only[0] != folder):
            problems.append(f"GCS FUSE mount options carry more than the folder: {extra[:4]} {only[:2]}")
    return problems


def _find_mount_options(node: Any, depth: int = 0) -> Iterator[str]:
    if depth > 30:
        return
    if isinstance(node, dict):
        attributes = node.get("volumeAttributes")
        if isinstance(attributes, dict) and isinstance(attributes.get("mountOptions"), str):
            yield attributes["mountOptions"]
        for value in node.values():
            yield from _find_mount_options(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _find_mount_options(value, depth + 1)


# --- IAM -----------------------------------------------------------------------------------------------------------
def _iam_problems(policy: str, weights: str | None) -> list[str]:
    if not isinstance(weights, str) or not weights.startswith("s3://"):
        return []
    bucket = weights.removeprefix("s3://").partition("/")[0]
    try:
        statements = json.loads(policy).get("Statement") or []
    except (ValueError, AttributeError):
        return []
    problems = []
    for statement in statements:
        values = _strings(statement.get("Resource")) + _strings(
            ((statement.get("Condition") or {}).get("StringLike") or {}).get("s3:prefix"))
        for value in values:
            if bucket not in value and statement.get("Sid") != "ListWeights":
                continue
            body = _IAM_LITERALS.sub("", value.removesuffix("/*"))
            if "*" in body or "?" in body or "${" in body:
                problems.append(f"an IAM value holds a wildcard or variable from the location: {value[:120]!r}")
    return problems


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


# --- names ---------------------------------------------------------------------------------------------------------
def _max_replicas(resources: list[dict]) -> dict[str, int]:
    """The most groups each server may run: its autoscaler's maximum (KEDA ScaledObject)."""
    maxima: dict[str, int] = {}
    for resource in resources:
        spec = (resource.get("inputs") or {}).get("spec") if isinstance(resource.get("inputs"), dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("scaleTargetRef"), dict):
            name, most = spec["scaleTargetRef"].get("name"), spec.get("maxReplicaCount")
            if isinstance(name, str) and isinstance(most, int):
                maxima[name] = max(most, maxima.get(name, 0))
    return maxima


def _name_problems(kind: str, inputs: dict, maxima: dict[str, int]) -> list[str]:
    name = (inputs.get("metadata") or {}).get("name")
    if not isinstance(name, str) or kind.endswith(("helm.sh/v3:Release", "yaml/v2:ConfigFile")):
        return []
    if len(name) > 253 or (kind.endswith(("core/v1:Service", "core/v1:Namespace")) and len(name) > 63):
        return [f"{kind.rsplit(':', 1)[-1]} name longer than Kubernetes allows: {name!r} ({len(name)})"]
    if kind.endswith("LeaderWorkerSet"):
        groups = max(maxima.get(name, 0), int((inputs.get("spec") or {}).get("replicas") or 1))
        label = f"{name}-{groups - 1}-{'h' * 10}"
        if len(label) > 63:
            return [f"LeaderWorkerSet {name!r}: its worker pods' controller-revision-hash {len(label)} > 63"]
    return []
