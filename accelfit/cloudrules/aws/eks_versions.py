"""The Kubernetes version an EKS plan is built with, from data/eks_versions.yaml. Pure: no Pulumi import."""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Any

from accelfit.errors import Problem, problem
from accelfit.yamlio import read_package_yaml

DATA = Path(__file__).parent / "data" / "eks_versions.yaml"


@functools.cache
def eks_versions() -> dict[str, Any]:
    return read_package_yaml(DATA)


def eks_version(requested: str | None) -> str:
    """The plan's version, or accelfit's default when the plan names none."""
    return requested or eks_versions()["default"]


def eks_version_problems(requested: str | None, source: str = "plan") -> list[Problem]:
    """A version accelfit has no data for, or one past EKS standard support on the data's date."""
    data = eks_versions()
    version = eks_version(requested)
    row = data["versions"].get(version)
    known = ", ".join(data["versions"])
    if row is None:
        return [problem(source, "eks_version", "no EKS version data (support dates, matching Cluster Autoscaler) "
                        "for this version", f"use one of {known}", version)]
    as_of = data["as_of"] if isinstance(data["as_of"], dt.date) else dt.date.fromisoformat(str(data["as_of"]))
    if row["end_of_standard_support"] <= as_of:
        return [problem(source, "eks_version", f"EKS standard support for {version} ended on "
                        f"{row['end_of_standard_support']} (extended support bills extra, then EKS upgrades the "
                        "cluster itself)", f"use {data['default']}", version)]
    return []
