"""Every shipped stack's capacity groups, from its rendered objects: a step the plan says is reached on no-capacity
is the next pool of its group in the autoscaler's order, and the documented autoscaler behaviour (autoscaler_model)
sends a job admitted to the group's flavor to that pool when the pools before it have no capacity."""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

import pytest

from accelfit.planner.fleet.capacity_groups import EKS_CAPACITY_GROUP_LABEL, GKE_COMPUTE_CLASS_LABEL
from components.kubernetes.capacity_fallback import PRIORITY_EXPANDER
from stack_documents import ROOT, STACKS, stack_document
from tests.components.kubernetes.autoscaler_model import Autoscaler, Pool

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
# A managed node group's Auto Scaling group as EKS names it: eks-<node group name>-<uuid>.
ASG_SUFFIX = "-8ec2d1e8-7b06-f2f7-3e17-9a0b2f1c3d4e"


def of_type(document: dict, kind: str) -> list[dict]:
    return [row for row in document["resources"] if row["type"] == kind]


def group_flavors(document: dict) -> dict[str, dict]:
    """Group label value -> the ResourceFlavor spec that selects it."""
    out = {}
    for row in of_type(document, KUEUE + "ResourceFlavor"):
        labels = row["inputs"]["spec"].get("nodeLabels", {})  # a MultiKueue manager's flavor selects no nodes
        for key in (GKE_COMPUTE_CLASS_LABEL, EKS_CAPACITY_GROUP_LABEL):
            if key in labels:
                out[labels[key]] = row["inputs"]["spec"]
    return out


def autoscaler(document: dict, no_capacity: set[str]) -> tuple[Autoscaler, dict[str, str]]:
    """The stack's autoscaler as rendered; `no_capacity`: GKE node pool / EKS node group names the cloud refuses.
    Also returns pool name in the model -> the plan's pool resource name (for the assertions)."""
    gke = of_type(document, "gcp:container/nodePool:NodePool")
    if gke:
        pools = [Pool(row["inputs"]["name"], row["inputs"]["nodeConfig"].get("labels") or {},
                      row["inputs"]["name"] not in no_capacity) for row in gke]
        classes = {row["inputs"]["metadata"]["name"]: [p["nodepools"] for p in row["inputs"]["spec"]["priorities"]]
                   for row in of_type(document, "kubernetes:cloud.google.com/v1:ComputeClass")}
        return Autoscaler(pools, compute_classes=classes), {pool.name: pool.name for pool in pools}
    groups = of_type(document, "aws:eks/nodeGroup:NodeGroup")
    [release] = [row for row in of_type(document, "kubernetes:helm.sh/v3:Release")
                 if row["inputs"].get("name") == "cluster-autoscaler"] or [None]
    values = release["inputs"]["values"] if release else {}
    expander = ({int(key): value for key, value in values.get("expanderPriorities", {}).items()}
                if "priority" in values.get("extraArgs", {}).get("expander", "") else None)
    # Under mocks a node group's name is its resource name (the expander's regexes are built from the same output).
    pools = [Pool(f"eks-{row['name']}{ASG_SUFFIX}", row["inputs"].get("labels") or {}, row["name"] not in no_capacity)
             for row in groups]
    return Autoscaler(pools, expander=expander), {pool.name: pool.name.removeprefix("eks-").removesuffix(ASG_SUFFIX)
                                                   for pool in pools}


def rendered_pools(document: dict) -> list[tuple[str, dict[str, str]]]:
    """(rendered pool / node group name, its node labels) of every accelerator pool."""
    gke = [(row["inputs"]["name"], row["inputs"]["nodeConfig"].get("labels") or {})
           for row in of_type(document, "gcp:container/nodePool:NodePool")]
    eks = [(row["name"], row["inputs"].get("labels") or {}) for row in of_type(document, "aws:eks/nodeGroup:NodeGroup")]
    return gke + eks


def group_members(document: dict) -> dict[str, list[str]]:
    """Group label value -> its rendered pools in the chain's order (the plan's fallback rank, 0 = planned)."""
    out: dict[str, list[tuple[int, str]]] = {}
    for name, labels in rendered_pools(document):
        group = labels.get(GKE_COMPUTE_CLASS_LABEL) or labels.get(EKS_CAPACITY_GROUP_LABEL)
        if group:
            out.setdefault(group, []).append((int(labels.get("accelfit.io/fallback-rank", "0")), name))
    return {group: [name for _, name in sorted(members)] for group, members in out.items()}


# Shipped stacks whose spec lists two ways to buy its GPUs, so the chain has a standby of the same type: the
# shipped examples list one (the chain steps only through budget.pricing), so the groups are also checked on copies
# of them that list on-demand and spot.
VARIANTS = {f"{stack}+spot": stack for stack in ("example-gcp-l4-inference", "example-aws-l4-inference")}


@functools.cache
def document_of(name: str) -> dict:
    if name not in VARIANTS:
        return stack_document(name)
    from accelfit.preview.run import preview_stack

    stack = VARIANTS[name]
    copy = Path(tempfile.mkdtemp())
    shutil.copy(ROOT / "Pulumi.yaml", copy / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", copy / "policies" / "config")
    shutil.copytree(ROOT / "stacks", copy / "stacks")
    path = copy / "stacks" / f"Pulumi.{stack}.yaml"
    text = path.read_text()
    assert "      pricing: on-demand\n" in text
    path.write_text(text.replace("      pricing: on-demand\n", "      pricing: [on-demand, spot]\n"))
    return preview_stack(stack, copy).document


NAMES = [*STACKS, *VARIANTS]
GROUPED = [(name, group, position) for name in NAMES
           for group, members in group_members(document_of(name)).items() for position in range(1, len(members))]


def test_capacity_groups_are_rendered_on_both_clouds():
    """Not vacuous: a GKE (ComputeClass) and an EKS (priority expander) stack both carry a group step."""
    assert set(VARIANTS) <= {name for name, _, _ in GROUPED}


@pytest.mark.parametrize(("stack", "group", "position"), GROUPED)
def test_a_group_step_is_where_the_autoscaler_sends_a_job_the_pools_before_cannot_place(stack, group, position):
    """A test per step: the job Kueue admitted to the group's flavor (its pods select the flavor's node labels) goes
    to this pool when every pool before it in the chain has no capacity, after trying them in the chain's order."""
    document = document_of(stack)
    members = group_members(document)[group]
    [selector] = [spec["nodeLabels"] for value, spec in group_flavors(document).items() if value == group]
    model, names = autoscaler(document, set(members[:position]))
    landed = model.scale_up(selector)
    assert landed is not None and names[landed] == members[position], f"{stack}: tried {model.tried}"
    assert [names[name] for name in model.tried] == members[:position + 1]
    fresh, names = autoscaler(document, set())
    assert names[fresh.scale_up(selector)] == members[0]  # capacity on the planned pool: it stays there


def chains(document: dict) -> list[tuple[str, list[dict]]]:
    """(workload, its fallback chain) from either form's document: a fleet lists its workloads, a single stack's
    plan is its one workload's, chain included."""
    plan = document["plan"]
    if "workloads" in plan:
        return [(member["name"], member["fallback"]) for member in plan["workloads"]]
    return [(plan["workload"], plan["fallback"])]


@pytest.mark.parametrize("stack", sorted({stack for stack, _, _ in GROUPED}))
def test_the_plan_says_no_capacity_for_exactly_the_group_steps(stack):
    """Each document carries each workload's chain: its no-capacity steps are its groups' later pools, each
    waiting the autoscaler's node provisioning timeout."""
    document = document_of(stack)
    said = {(name, step["rank"]) for name, chain in chains(document)
            for step in chain if "no-capacity" in step["moves_when"]}
    labels = dict(rendered_pools(document))
    # Rendered pool names differ by cloud and form (an EKS node group's carries -pool-...-ng): the pool's labels
    # name its workload and fallback rank in every form.
    assert said == {(labels[name]["accelfit.io/workload"], int(labels[name]["accelfit.io/fallback-rank"]))
                    for members in group_members(document).values() for name in members[1:]}


@pytest.mark.parametrize("stack", sorted({stack for stack, _, _ in GROUPED}))
def test_group_objects_are_rendered_for_the_cloud(stack):
    document = document_of(stack)
    if of_type(document, "gcp:container/nodePool:NodePool"):
        classes = of_type(document, "kubernetes:cloud.google.com/v1:ComputeClass")
        assert classes and all(row["inputs"]["spec"]["whenUnsatisfiable"] == "DoNotScaleUp"
                               and row["inputs"]["spec"]["nodePoolAutoCreation"] == {"enabled": False}
                               for row in classes)
        assert set(group_flavors(document)) == {row["inputs"]["metadata"]["name"] for row in classes}
    else:
        [release] = [row for row in of_type(document, "kubernetes:helm.sh/v3:Release")
                     if row["inputs"].get("name") == "cluster-autoscaler"]
        assert release["inputs"]["values"]["extraArgs"]["expander"] == PRIORITY_EXPANDER
        assert release["inputs"]["values"]["expanderPriorities"]["1"] == [".*"]


@pytest.mark.parametrize("stack", STACKS)
def test_a_stack_without_group_steps_renders_no_group_objects(stack):
    """The cross-accelerator chain stays Kueue's: no ComputeClass, least-waste alone, when the plan has no group."""
    if any(s == stack for s, _, _ in GROUPED):
        pytest.skip("has capacity groups")
    document = stack_document(stack)
    assert not of_type(document, "kubernetes:cloud.google.com/v1:ComputeClass")
    assert not group_flavors(document)
    for row in of_type(document, "kubernetes:helm.sh/v3:Release"):
        if row["inputs"].get("name") == "cluster-autoscaler":
            assert row["inputs"]["values"]["extraArgs"]["expander"] == "least-waste"
