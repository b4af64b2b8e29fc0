"""Every shipped stack's rendered queues against its plan's chain, step by step, with the model of Kueue's
documented flavor assignment (tests/components/kubernetes/kueue_model.py): what moves a job to each step is that
every step before it has its quota held (quota-full; steps of one capacity group are one flavor, moved between by
the autoscaler: test_capacity_groups_in_stacks); a job evicted for pods not ready is assigned again from the
first step; and the wait the plan prints is the timeout the stack's Kueue release carries."""

from __future__ import annotations

import pytest
import yaml

from accelfit.planner.fleet.fallback_triggers import NODE_PROVISION_TIMEOUT_MINUTES, PODS_READY_TIMEOUT_MINUTES
from stack_documents import STACKS, stack_document
from tests.components.kubernetes.kueue_model import PodSet, Queue, quantity

ACCELERATORS = ("nvidia.com/gpu", "google.com/tpu")


def objects(document: dict, kind: str) -> list[dict]:
    return [row["inputs"] for row in document["resources"] if (row.get("inputs") or {}).get("kind") == kind]


def plans(document: dict) -> list[dict]:
    """Every plan whose pools the stack builds: each workload's, and a hybrid workload's overflow cluster's."""
    plan = document["plan"]
    found = [member["plan"] for member in plan["workloads"]] if "workloads" in plan else [plan]
    return found + [each["overflow"]["plan"] for each in found if each.get("overflow")]


def dispatching(document: dict) -> set[str]:
    """The components holding a MultiKueue manager's objects: its queue runs no job, it dispatches them to its
    workers (tests/components/kubernetes/test_multikueue.py drives that)."""
    checks = {row["inputs"]["metadata"]["name"] for row in document["resources"]
              if (row.get("inputs") or {}).get("kind") == "AdmissionCheck"
              and row["inputs"]["spec"]["controllerName"] == "kueue.x-k8s.io/multikueue"}
    return {row["parent"] for row in document["resources"] if (row.get("inputs") or {}).get("kind") == "ClusterQueue"
            and {check["name"] for check in row["inputs"]["spec"].get("admissionChecksStrategy", {}).get(
                "admissionChecks", [])} & checks}


def worker_queues(document: dict) -> list[tuple[str, dict]]:
    """(the Kueue component it is in, the ClusterQueue) for every queue that admits jobs onto the stack's pools."""
    skip = dispatching(document)
    return [(row["parent"], row["inputs"]) for row in document["resources"]
            if (row.get("inputs") or {}).get("kind") == "ClusterQueue" and row["parent"] not in skip]


def rank_of(document: dict) -> dict[str, int]:
    """Flavor name -> the chain rank of its pool (1 = planned), as the plan built the pools."""
    return {f"{plan['workload']}-{pool['name']}": pool.get("fallback_rank", 0) or 1
            for plan in plans(document) for pool in plan["node_pools"] if pool["role"] != "system"}


def own_flavors(queue: Queue) -> list[tuple[str, str]]:
    """(flavor, its accelerator resource) for the flavors with quota of their own, in the queue's order."""
    out = []
    for name, quotas in queue.flavors():
        held = [resource for resource in ACCELERATORS if quotas.get(resource, 0) > 0]
        if held:
            out.append((name, held[0]))
    return out


QUEUED = [(stack, f"{parent}/{queue['metadata']['name']}") for stack in STACKS
          for parent, queue in worker_queues(stack_document(stack))]


@pytest.mark.parametrize(("stack", "name"), QUEUED)
def test_each_step_is_reached_when_the_steps_before_have_their_quota_held(stack, name):
    document = stack_document(stack)
    [spec] = [queue["spec"] for parent, queue in worker_queues(document)
              if f"{parent}/{queue['metadata']['name']}" == name]
    ranks = rank_of(document)
    steps = own_flavors(Queue(spec))
    assert steps, f"{stack}: queue {name} has no flavor of its own"
    assert [ranks[flavor] for flavor, _ in steps] == sorted(ranks[flavor] for flavor, _ in steps), \
        f"{stack}: queue {name} does not list its flavors in the chain's order"
    for index, (flavor, resource) in enumerate(steps):
        queue = Queue(spec)
        for before, _ in steps[:index]:  # other jobs hold every step before this one
            quotas = dict(queue.flavors())[before]
            queue.usage.update({(before, held): amount for held, amount in quotas.items()})
        job = PodSet(count=1, requests={resource: 1, "cpu": 1})
        assert queue.assign(job) == flavor, f"{stack}: a job should move to step {index + 1} ({flavor})"
    # pods-not-ready: the evicted job's quota is released, so it is assigned the first step again.
    queue = Queue(spec)
    first, resource = steps[0]
    job = PodSet(count=1, requests={resource: 1, "cpu": 1})
    queue.evict(queue.admit(job), job)
    assert queue.assign(job) == first


@pytest.mark.parametrize("stack", sorted({stack for stack, _ in QUEUED}))
def test_the_wait_the_plan_prints_is_the_timeout_the_stacks_kueue_carries(stack):
    document = stack_document(stack)
    skip = dispatching(document)  # a MultiKueue manager runs no pods: nothing waits for them to be ready there
    workers = [row["inputs"]["values"] for row in document["resources"]
               if row["type"] == "kubernetes:helm.sh/v3:Release" and row["inputs"].get("name") == "kueue"
               and row["parent"] not in skip]
    assert workers
    for values in workers:
        config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
        timeout_minutes = quantity(config["waitForPodsReady"]["timeout"].removesuffix("m"))
        assert timeout_minutes == PODS_READY_TIMEOUT_MINUTES
    members = document["plan"].get("workloads", [])
    for member in members:  # the fleet form's document carries each workload's chain
        for step in member["fallback"]:
            if step["rank"] > 1 and step["pool"] and step["moves_when"][0] == "no-capacity":
                # A capacity-group step: the autoscaler moves the job (test_capacity_groups_in_stacks), and the
                # wait is its node provisioning timeout, not Kueue's.
                assert step["wait_minutes"] == NODE_PROVISION_TIMEOUT_MINUTES
            elif step["rank"] > 1 and step["pool"]:
                assert step["wait_minutes"] == timeout_minutes and step["moves_when"][0] == "quota-full"
