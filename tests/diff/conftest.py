"""Fixtures for the diff tests: the realistic base/head pair (fixtures/, rebuilt by fixtures/regenerate.py) and a
`make_document` factory for small hand-made cases."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"
ROOT = HERE.parents[1]


@pytest.fixture
def base_path() -> Path:
    return FIXTURES / "base.json"


@pytest.fixture
def head_path() -> Path:
    return FIXTURES / "head.json"


@pytest.fixture
def base_doc(base_path) -> dict[str, Any]:
    return json.loads(base_path.read_text(encoding="utf-8"))


@pytest.fixture
def head_doc(head_path) -> dict[str, Any]:
    return json.loads(head_path.read_text(encoding="utf-8"))


def _resource(name: str, *, type: str = "gcp:container/nodePool:NodePool", parent: str | None = "pool",
              inputs: dict[str, Any] | None = None, monthly_usd: float = 0.0, custom: bool = True,
              protect: bool = False) -> dict[str, Any]:
    return {"type": type, "name": name, "urn": f"urn:pulumi:dev::accelfit::{type}::{name}", "parent": parent,
            "custom": custom, "inputs": inputs or {}, "protect": protect, "monthly_usd": monthly_usd,
            "cost_basis": None}


def _document(resources: list[dict[str, Any]] | None = None, *, violations: list[dict[str, Any]] | None = None,
              option: str = "gke-gpu/gcp/us-central1/l4/g2-standard-24/x1/spot", lock_state: str = "none",
              lock_message: str = "no selection is locked", max_monthly_usd: float | None = None,
              monthly_usd: float | None = None, stack: str = "dev") -> dict[str, Any]:
    resources = copy.deepcopy(resources or [])
    total = sum(r["monthly_usd"] for r in resources) if monthly_usd is None else monthly_usd
    return {"schema_version": 1, "stack": stack, "environment": stack, "plan": {"option": option},
            "lock": {"state": lock_state, "message": lock_message, "locked_option": None, "fresh_option": option,
                     "fresh_monthly_delta_usd": None},
            "budget": {"max_monthly_usd": max_monthly_usd, "max_total_usd": None}, "resources": resources,
            "cost": {"monthly_usd": total, "min_monthly_usd": 0.0, "assumptions": []},
            "policies": {"pack": "accelfit", "rules": [], "violations": violations or []}}


@pytest.fixture
def make_resource():
    return _resource


@pytest.fixture
def make_document():
    return _document


@pytest.fixture
def write_json(tmp_path):
    def write(name: str, document: Any) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(document), encoding="utf-8")
        return path
    return write
