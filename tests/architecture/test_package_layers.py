"""No two packages import each other, and every import goes down the layering below (issue 35).

A package is a second-level name: `accelfit.planner`, `components.gcp`, or a module that stands alone at the top
(`accelfit.errors`, `components.build`). Every import counts, wherever it stands (tests/test_import_cycles.py reads
them): an import moved into a function or under `if TYPE_CHECKING:` still ties the two packages together. Two
packages that import each other are one job split in two, or a lower one reaching up: the fix is to move the shared
part down (as accelfit/durations.py, accelfit/shared_texts.py and accelfit/stack_plan.py were), not to allow it.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.test_import_cycles import import_graph

# The allowed layering, bottom first: a package imports packages of its own layer or lower ones, never a higher one.
# Within a layer, a pair may still not import each other (test_no_two_packages_import_each_other).
LAYERS: tuple[tuple[str, ...], ...] = (
    # Foundation: values, errors, reading and writing files, formatting. Imports nothing above.
    ("accelfit.values", "accelfit.errors", "accelfit.inputfile", "accelfit.validation", "accelfit.yamlio",
     "accelfit.jsonio", "accelfit.unwind", "accelfit.atomicwrite", "accelfit.paths", "accelfit.sizes",
     "accelfit.lock_setting", "accelfit.durations", "accelfit.shared_texts", "accelfit.chartvalues",
     "accelfit.ordering", "accelfit.expiry",
     # The environments: each a policy configuration file, read by the rules, the stack and the components.
     "accelfit.environments"),
    # The model-server engines: facts and flag rendering, read by the spec, the planner and the components.
    ("accelfit.engines",),
    # The buying-model table: one record per way to buy capacity (tier, chain order, sunk or marginal, who sells
    # it), read by the spec, catalog, planner, pricing, policies and components.
    ("accelfit.buying",),
    # The cloud registry: one record per cloud (platforms, catalog files, priced types, what it cannot do), read by
    # every layer above; its hooks in higher layers are named by module path, never imported here.
    ("accelfit.clouds",),
    # What the user and the clouds state: the catalog and the workload spec.
    ("accelfit.catalog", "accelfit.spec"),
    # The pure core: the clouds' rules, pricing, the planner.
    ("accelfit.cloudrules", "accelfit.pricing", "accelfit.planner"),
    # A stack: its file, keys, rules, lock, calibration, policy configuration, and its plan.
    ("accelfit.calibration", "accelfit.stackrules", "accelfit.stackkeys", "accelfit.stackschema",
     "accelfit.stackfile", "accelfit.lockfile", "accelfit.policy_config", "accelfit.stack_plan"),
    # The policy pack (rules over a neutral view of a resource).
    ("policies", "policies.accelfit_policies", "policies.runner", "policies.analyzer_client", "policies.__main__"),
    # Pulumi components: shared parts, then each platform's, then the assembly and the program.
    ("components", "components.common", "components.stack_config", "components.fleet", "components.fleet_groups"),
    ("components.baremetal", "components.gpu_vm_script", "components.aws", "components.kubernetes",
     "components.gcp"),
    # A hybrid workload's overflow: a cluster (built by the assembly's builder, passed in) and MultiKueue over both.
    ("components.hybrid",),
    ("components.build", "components.program"),
    # What runs the program and reads its results.
    ("accelfit.preview", "accelfit.preflight"),
    ("accelfit.reports", "accelfit.simulate", "accelfit.diff", "accelfit.ephemeral"),
    ("accelfit", "accelfit.cli"),
)

# Known two-way ties still to undo, each with why it stands; test_each_allowed_tie_still_exists says when one is
# gone. None is left: the last (the planner reading GCP flex-start and AWS Capacity Block data from the cloud rules,
# which check plans) ended when that data moved down to the cloud registry (accelfit/clouds/gcp_flex_start.py,
# accelfit/clouds/aws_capacity_blocks.py).
ALLOWED_TIES: dict[frozenset[str], str] = {}


def package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


@pytest.fixture(scope="module")
def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in import_graph().items():
        source = package_of(module)
        graph[source] |= {package_of(target) for target in targets} - {source}
    return graph


def ties(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    return {frozenset({source, target}) for source, targets in graph.items() for target in targets
            if source in graph.get(target, set())}


def test_no_two_packages_import_each_other(package_graph):
    found = ties(package_graph) - set(ALLOWED_TIES)
    assert not found, "packages that import each other: " + "; ".join(" <-> ".join(sorted(pair))
                                                                     for pair in sorted(found, key=sorted))


def test_each_allowed_tie_still_exists(package_graph):
    gone = set(ALLOWED_TIES) - ties(package_graph)
    assert not gone, f"undone: remove from ALLOWED_TIES: {[sorted(pair) for pair in gone]}"


def test_every_package_has_a_layer(package_graph):
    listed = {package for layer in LAYERS for package in layer}
    packages = set(package_graph) | {target for targets in package_graph.values() for target in targets}
    assert packages <= listed, f"place these in LAYERS: {sorted(packages - listed)}"


def test_imports_go_down_the_layers(package_graph):
    level = {package: index for index, layer in enumerate(LAYERS) for package in layer}
    upward = sorted(f"{source} -> {target}" for source, targets in package_graph.items() for target in targets
                    if source in level and target in level and level[target] > level[source])
    assert not upward, f"imports up the layering: {upward}"


def test_the_check_sees_a_tie():
    """Not vacuous: a two-way pair and an upward import are found."""
    graph = {"accelfit.planner": {"accelfit.reports"}, "accelfit.reports": {"accelfit.planner"}}
    assert ties(graph) == {frozenset({"accelfit.planner", "accelfit.reports"})}
