"""No comparison against a cloud-name string outside the cloud registry (issue 35).

A branch on `cloud == "gcp"`, `platform != "baremetal-gpu"` or `cloud in ("gcp", "aws")` is a capability spread over
the code base: adding a cloud means finding every one. They dispatch through accelfit/clouds instead (a Cloud
record's field, `cloud_named`, `cloud_of_platform`). The scan reads the AST of accelfit/, components/ and policies/
and counts, per file, every comparison (==, !=, is, is not, in, not in) one of whose operands is a cloud-name
literal, an enum member named after one (`Cloud.gcp`) or a literal tuple/list/set holding one, every
`.startswith(...)`/`.endswith(...)` with one, and every `case` on one. A dict keyed by cloud names (a lookup table) is
not a comparison and is left alone. The names are the registered clouds'
and the owned clouds' platforms (bare metal). STILL_TO_CONVERT lists the files that had such comparisons when the
gate came in, with their count; it may only shrink, as tests/architecture/test_complexity.py's list does.
"""

from __future__ import annotations

import ast
from pathlib import Path

from accelfit.clouds import all_clouds

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("accelfit", "components", "policies")
REGISTRY = "accelfit/clouds/"

# issue 35: shrink to nothing. file -> comparisons against cloud-name literals in it when counted.
STILL_TO_CONVERT: dict[str, int] = {}


def cloud_strings() -> frozenset[str]:
    names = {cloud.name for cloud in all_clouds()}
    owned_platforms = {platform for cloud in all_clouds() if cloud.owned for platform in cloud.platforms}
    return frozenset(names | owned_platforms)


def _holds_name(node: ast.AST, names: frozenset[str]) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in names
    if isinstance(node, ast.Attribute):  # an enum member named after a cloud: Cloud.gcp, Platform.baremetal_gpu
        return node.attr in {name.replace("-", "_") for name in names}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_holds_name(element, names) for element in node.elts)
    return False


_COMPARING = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _is_cloud_comparison(node: ast.AST, names: frozenset[str]) -> bool:
    if isinstance(node, ast.Compare):
        return (any(isinstance(op, _COMPARING) for op in node.ops)
                and any(_holds_name(operand, names) for operand in (node.left, *node.comparators)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("startswith", "endswith") and any(_holds_name(arg, names) for arg in node.args)
    if isinstance(node, ast.match_case):
        return isinstance(node.pattern, ast.MatchValue) and _holds_name(node.pattern.value, names)
    return False


def count_comparisons(source: str, names: frozenset[str] | None = None) -> int:
    names = names if names is not None else cloud_strings()
    return sum(1 for node in ast.walk(ast.parse(source)) if _is_cloud_comparison(node, names))


def comparisons() -> dict[str, int]:
    names = cloud_strings()
    found: dict[str, int] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(REGISTRY):
                continue
            count = count_comparisons(path.read_text(encoding="utf-8"), names)
            if count:
                found[relative] = count
    return found


def test_no_new_cloud_string_comparison_and_the_list_only_shrinks():
    found = comparisons()
    grown = {path: count for path, count in found.items() if count > STILL_TO_CONVERT.get(path, 0)}
    assert not grown, ("cloud-name string comparisons (dispatch through accelfit.clouds instead: a Cloud field, "
                       f"cloud_named, cloud_of_platform): {grown}; listed: "
                       f"{ {path: STILL_TO_CONVERT.get(path, 0) for path in grown} }")
    shrunk = {path: found.get(path, 0) for path, count in STILL_TO_CONVERT.items() if found.get(path, 0) < count}
    assert not shrunk, f"fewer cloud-name comparisons now: lower (or remove) their STILL_TO_CONVERT entries: {shrunk}"


def test_the_scan_catches_a_planted_comparison():
    planted = """
def pick(cloud, platform, kind):
    if cloud == "gcp":
        return 1
    if platform not in ("baremetal-gpu", "gke-gpu"):
        return 2
    if kind.startswith("aws"):
        return 3
    if cloud is Cloud.aws:
        return 7
    match cloud:
        case "onprem":
            return 4
    return {"gcp": 5, "aws": 6}[cloud]  # a lookup table: not a comparison
"""
    assert count_comparisons(planted) == 5


def test_the_names_come_from_the_registry():
    assert {"gcp", "aws", "onprem", "baremetal-gpu"} <= cloud_strings()
