"""A node pool carries its buying model as one value (NodePool.buying), not four flags, while plan documents keep
the flags they always had (spot, capacity_block, flex_start) in their places, so plans and previews stay byte for
byte the same and older plan documents still load (issue 35)."""

from __future__ import annotations

import pytest

from accelfit.planner.model import NodePool

BASE = dict(name="gpu", role="gpu", machine_type="a3-highgpu-8g", min_nodes=0, max_nodes=2, initial_nodes=0,
            zones=("us-central1-a",))
KEYS_BEFORE = ["name", "role", "machine_type", "accelerator", "accelerators_per_node", "gke_accelerator", "min_nodes",
               "max_nodes", "initial_nodes", "spot", "reservation", "zones", "taints", "labels", "compact_placement",
               "tpu_topology", "tpu_slice", "efa_interfaces", "gpudirect", "local_nvme_gb", "driver_version",
               "disk_size_gb", "gpu_sharing_strategy", "gpu_max_shared_clients", "serving_start_utc",
               "serving_hours_per_day", "capacity_block"]


@pytest.mark.parametrize(("buying", "reservation", "flags"), [
    ("on-demand", None, {"spot": False, "capacity_block": False}),
    ("spot", None, {"spot": True, "capacity_block": False}),
    ("reservation", "h100-res", {"spot": False, "capacity_block": False}),
    ("capacity-block", "cr-0123456789abcdef0", {"spot": False, "capacity_block": True}),
    ("flex-start", None, {"spot": False, "capacity_block": False, "flex_start": True}),
])
def test_one_value_written_as_the_flags_it_replaced_and_read_back(buying, reservation, flags):
    pool = NodePool(**BASE, buying=buying, reservation=reservation)
    document = pool.model_dump(mode="json")
    assert list(document) == KEYS_BEFORE + (["flex_start"] if buying == "flex-start" else [])
    assert {key: document[key] for key in flags} == flags
    assert NodePool.model_validate(document) == pool  # an older plan document loads to the same pool


def test_flags_on_input_and_on_copy_set_the_value():
    assert NodePool(**BASE, spot=True).buying == "spot"
    assert NodePool(**BASE, reservation="cr-0123456789abcdef0", capacity_block=True).buying == "capacity-block"
    assert NodePool(**BASE).model_copy(update={"flex_start": True}).buying == "flex-start"
    assert NodePool(**BASE, spot=True).model_copy(update={"spot": False}).buying == "on-demand"


def test_two_buying_models_or_a_commitment_are_refused():
    with pytest.raises(ValueError, match="one buying model; spot and flex-start are both set"):
        NodePool(**BASE, spot=True, flex_start=True)
    with pytest.raises(ValueError, match="a pool on committed-1y is built as on-demand"):
        NodePool(**BASE, buying="committed-1y")
    with pytest.raises(ValueError, match="unknown buying model 'spott'"):
        NodePool(**BASE, buying="spott")
