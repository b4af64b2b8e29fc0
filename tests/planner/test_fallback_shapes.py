"""Multi-host TPU fallback steps keep the job's slice shape (same topology, same hosts per slice) or are not
offered; every chain step says what moves a job there and how long it waits (fallback_triggers)."""

from __future__ import annotations

from types import SimpleNamespace

from accelfit.catalog import load_catalog
from accelfit.planner.fleet.fallback_triggers import PODS_READY_TIMEOUT_MINUTES
from accelfit.planner.fleet.chain import _other_slice_shape
from tests.planner.fleet_specs import spec
from tests.planner.test_fleet import fleet

CATALOG = load_catalog()


def offer_of(slice_name: str) -> SimpleNamespace:
    return SimpleNamespace(tpu_slice=CATALOG.tpu_slice(slice_name))


def test_a_multi_host_slice_is_not_offered_a_slice_of_another_shape():
    planned = CATALOG.tpu_slice("v6e-16")  # 4x4, 4 hosts
    assert _other_slice_shape(planned, offer_of("v5litepod-64"))  # 8x8, 16 hosts: the case
    assert not _other_slice_shape(planned, offer_of("v5litepod-16"))  # 4x4, 4 hosts: same shape
    assert not _other_slice_shape(planned, SimpleNamespace(tpu_slice=None))  # a GPU step: another kind


def test_a_single_host_slice_may_fall_back_to_another_single_host_shape():
    assert not _other_slice_shape(CATALOG.tpu_slice("v6e-4"), offer_of("v5litepod-8"))


def pretrain():
    return spec(name="pre", kind="training", framework="jax", model={"parameters": "8B"},
                training={"tokens": "200B", "deadline_days": 7}, data={"dataset_tb": 0.5},
                placement={"clouds": ["gcp"], "regions": ["us-central1"], "accelerators": ["tpu-v6e", "tpu-v5e"]},
                budget={"max_monthly_usd": 300000, "pricing": ["on-demand", "spot"]})


def test_a_planned_multi_host_job_gets_no_step_of_another_shape_and_the_plan_says_why():
    [member] = fleet(pretrain())[0].workloads
    planned = CATALOG.tpu_slice(member.plan.accelerator.slice)
    assert planned.multi_host
    for step in member.fallback:
        sliced = CATALOG.tpu_slice(step.option.split("/")[4])
        if sliced is not None:
            assert (sliced.topology, sliced.hosts) == (planned.topology, planned.hosts), step.option
    assert any("not offered" in reason and planned.topology in reason for reason in member.fallback_omitted)
    standby = [pool for pool in member.plan.node_pools if pool.fallback_rank]
    assert standby and all(pool.tpu_topology == planned.topology for pool in standby if pool.role == "tpu")


def test_each_step_with_a_pool_says_what_moves_a_job_there_and_how_long_it_waits():
    [member] = fleet(pretrain())[0].workloads
    first, *rest = member.fallback
    assert (first.moves_when, first.wait_minutes) == ((), None)
    for step in rest:
        if step.pool is None:
            assert (step.moves_when, step.wait_minutes) == ((), None)  # listed only: no flavor to move to
        else:
            assert step.moves_when[0] == "quota-full" and "pods-not-ready" in step.moves_when
            assert step.wait_minutes == PODS_READY_TIMEOUT_MINUTES
