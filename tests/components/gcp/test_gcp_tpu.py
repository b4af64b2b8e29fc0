"""Cloud TPU beyond the example stacks: GKE multislice pools, queued multislice, spot, data disks."""

from __future__ import annotations

import gcp_plans
import pytest


def test_gke_tpu_multislice_has_one_atomic_pool_per_slice():
    recording, error = gcp_plans.record_plan(gcp_plans.gke_tpu_multislice())
    assert error is None and recording.duplicate_urns == []
    pools = [item for item in recording.of_type("gcp:container/nodePool:NodePool") if "-tpu-" in item.name]
    assert [pool.name for pool in sorted(pools, key=lambda p: p.name)] == ["tpu-train-tpu-0-pool",
                                                                          "tpu-train-tpu-1-pool"]
    for pool in pools:
        inputs = pool.inputs
        assert inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "4x4"}
        assert inputs["nodeLocations"] == ["us-west4-a"]
        assert inputs["initialNodeCount"] == 4
        # Per-zone bounds: GKE checks a multi-host slice against max_node_count ("Maximum node count 0 is not a
        # valid size of TPU pod slice" when only the total_* bounds are set).
        assert inputs["autoscaling"] == {"minNodeCount": 0, "maxNodeCount": 4, "locationPolicy": "ANY"}
        assert inputs["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}
        node = inputs["nodeConfig"]
        assert node["machineType"] == "ct5lp-hightpu-4t"
        assert node["spot"] is True
        assert node["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
        assert node["taints"] == [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}]
        assert node["labels"]["accelfit.io/role"] == "tpu" and node["labels"]["accelfit.io/tpu-slice"] == "v5litepod-16"
        assert "guestAccelerators" not in node
        assert node["gvnic"] == {"enabled": True}
        assert node["hostMaintenancePolicy"] == {"maintenanceInterval": "AS_NEEDED"}
        assert inputs["networkConfig"]["enablePrivateNodes"] is True
        assert pool.parent_name == pool.name.removesuffix("-pool")


def test_reserved_tpu_pool_consumes_the_named_reservation():
    plan = gcp_plans.gke_tpu_multislice()
    pools = tuple(pool.model_copy(update={"buying": "reservation", "reservation": "v5e-res", "min_nodes": 4})
                  if pool.role == "tpu" else pool for pool in plan.node_pools)
    recording, error = gcp_plans.record_plan(plan.model_copy(update={"node_pools": pools}))
    assert error is None
    pool = recording.named("tpu-train-tpu-0-pool").inputs
    assert pool["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": ["v5e-res"]}
    assert "autoscaling" not in pool  # all hosts, always: a fixed atomic slice


def test_queued_slices_in_a_plan_are_refused_before_anything_is_created():
    # pulumi-gcp 10.2.0's V2QueuedResource node has no serviceAccount: the slices would run as the project's
    # default compute account, which a plan cannot name (no project number) or grant.
    recording, error = gcp_plans.record_plan(gcp_plans.queued_multislice())
    assert error is not None and recording.resources == []
    fields = {item.field for item in error.problems}
    assert {"tpu_vm_slices[0].queued", "tpu_vm_slices[1].queued"} <= fields


def _queued(**changes):
    from accelfit.preview.recorder import record
    from components.gcp.tpu_queued import QueuedSlice, TpuQueuedSlices, TpuQueuedSlicesArgs

    fields = dict(project=gcp_plans.PROJECT, zone="us-east5-a", network="net", subnetwork="sub",
                  slices=tuple(QueuedSlice(node_id=f"ms-slice-{index}", accelerator_type="v5p-128",
                                           runtime_version="v2-alpha-tpuv5") for index in range(2)),
                  runtime_service_account="123456789-compute@developer.gserviceaccount.com",
                  data_bucket="ms-data-bucket")
    fields.update(changes)
    return record(lambda: TpuQueuedSlices("ms", TpuQueuedSlicesArgs(**fields)))


def test_queued_multislice_by_hand_is_one_request_and_grants_the_runtime_account_the_bucket():
    recording = _queued()
    [queued] = recording.of_type("gcp:tpu/v2QueuedResource:V2QueuedResource")
    specs = queued.inputs["tpu"]["nodeSpecs"]
    assert [spec["nodeId"] for spec in specs] == ["ms-slice-0", "ms-slice-1"]
    for spec in specs:
        assert spec["parent"] == f"projects/{gcp_plans.PROJECT}/locations/us-east5-a"
        assert spec["node"]["acceleratorType"] == "v5p-128"
        assert spec["node"]["networkConfig"]["enableExternalIps"] is False
    grant = recording.named("ms-runtime-object-user").inputs
    assert grant == {"bucket": "ms-data-bucket", "role": "roles/storage.objectUser",
                     "member": "serviceAccount:123456789-compute@developer.gserviceaccount.com"}


@pytest.mark.parametrize("account", [None, "nodes@acme.iam.gserviceaccount.com"])
def test_queued_slices_without_the_default_compute_account_named_are_refused(account):
    from accelfit.errors import InputError

    with pytest.raises(InputError) as caught:
        _queued(runtime_service_account=account)
    assert [item.field for item in caught.value.problems] == ["runtime_service_account"]


def test_spot_multislice_as_vms():
    plan = gcp_plans.queued_multislice()
    slices = tuple(item.model_copy(update={"queued": False, "spot": True}) for item in plan.tpu_vm_slices)
    recording, error = gcp_plans.record_plan(plan.model_copy(update={"tpu_vm_slices": slices}))
    assert error is None and recording.duplicate_urns == []
    vms = recording.of_type("gcp:tpu/v2Vm:V2Vm")
    assert len(vms) == 2
    for vm in vms:
        assert vm.inputs["schedulingConfig"] == {"spot": True, "reserved": False}
        assert "dataDisks" not in vm.inputs


def test_a_data_disk_on_a_multi_host_slice_is_refused_before_anything_is_created():
    # A multi-host slice could attach it only read-only, and a new disk is blank: it could never hold data.
    plan = gcp_plans.tpu_jax_pretrain()
    slices = tuple(item.model_copy(update={"data_disk_gb": 2048}) for item in plan.tpu_vm_slices)
    recording, error = gcp_plans.record_plan(plan.model_copy(update={"tpu_vm_slices": slices}))
    assert error is not None and recording.resources == []
    [item] = error.problems
    assert item.field == "tpu_vm_slices[0].data_disk_gb" and "read-only" in item.message


@pytest.mark.parametrize(("accelerator", "slice_name", "config", "topology", "zone", "runtime", "disk_type"), [
    ("tpu-v6e", "v6e-4", "V6E", "2x2", "us-central1-b", "v2-alpha-tpuv6e", "hyperdisk-balanced"),
    ("tpu-v5p", "v5p-8", "V5P", "2x2x1", "us-east5-a", "v2-alpha-tpuv5", "pd-balanced"),
    ("tpu-v5e", "v5litepod-8", "V5LITE_POD", "2x4", "us-west4-a", "v2-alpha-tpuv5-lite", "pd-balanced"),
])
def test_single_host_data_disk_is_the_generations_type_and_writable(accelerator, slice_name, config, topology,
                                                                   zone, runtime, disk_type):
    # https://cloud.google.com/tpu/docs/setup-persistent-disk: v6e takes Hyperdisk Balanced/ML only; a disk is
    # read-write on one VM.
    from accelfit.planner.model import PlanAccelerator, TpuVmSlice

    region = zone.rsplit("-", 1)[0]
    plan = gcp_plans.tpu_jax_pretrain().model_copy(update={
        "region": region, "zones": (zone,),
        "accelerator": PlanAccelerator(name=accelerator, kind="tpu", count=4, topology=topology, slice=slice_name,
                                       slices=1),
        "tpu_vm_slices": (TpuVmSlice(name="slice-0", accelerator_type=slice_name, accelerator_config_type=config,
                                     topology=topology, zone=zone, runtime_version=runtime, data_disk_gb=500),)})
    recording, error = gcp_plans.record_plan(plan)
    assert error is None, error
    [disk] = recording.of_type("gcp:compute/disk:Disk")
    assert disk.inputs["type"] == disk_type and disk.inputs["size"] == 500 and disk.inputs["zone"] == zone
    [vm] = recording.of_type("gcp:tpu/v2Vm:V2Vm")
    assert vm.inputs["dataDisks"] == [{"sourceDisk": disk.name + "-id", "mode": "READ_WRITE"}]


def _record_pool(**changes):
    from accelfit.preview.recorder import record
    from components.gcp.tpu_node_pool import TpuNodePool, TpuNodePoolArgs

    fields = dict(cluster="cluster-id", location="us-central1", zone="us-central1-b",
                  machine_type="ct6e-standard-4t", tpu_slice="v6e-16", tpu_topology="4x4", service_account="sa@x",
                  min_nodes=0, max_nodes=4, initial_nodes=0)
    fields.update(changes)
    return record(lambda: TpuNodePool("slice", TpuNodePoolArgs(**fields))).named("slice-pool").inputs


def test_flex_start_pool_scales_the_whole_slice_from_zero_without_autorepair():
    pool = _record_pool(flex_start=True)
    assert pool["nodeConfig"]["flexStart"] is True
    assert pool["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert pool["autoscaling"] == {"minNodeCount": 0, "maxNodeCount": 4, "locationPolicy": "ANY"}
    assert pool["initialNodeCount"] == 0
    assert pool["management"] == {"autoRepair": False, "autoUpgrade": True}


def test_fixed_slice_has_no_autoscaler_and_all_hosts():
    pool = _record_pool(min_nodes=4, initial_nodes=4)
    assert "autoscaling" not in pool and pool["initialNodeCount"] == 4
    assert "flexStart" not in pool["nodeConfig"]


def test_flex_start_with_spot_or_a_reservation_is_refused():
    from accelfit.errors import InputError
    with pytest.raises(InputError) as caught:
        _record_pool(flex_start=True, spot=True, min_nodes=4, initial_nodes=4, host_maintenance_interval="NEVER")
    fields = {item.field for item in caught.value.problems}
    assert {"flex_start", "min_nodes", "host_maintenance_interval"} <= fields


def test_pd_balanced_on_a_v6e_vm_is_refused():
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.gcp.tpu_vm import TpuVmSlice, TpuVmSliceArgs

    args = TpuVmSliceArgs(zone="us-central1-b", accelerator_config_type="V6E", topology="2x2",
                          runtime_version="v2-alpha-tpuv6e", network="n", subnetwork="s", service_account="sa@x",
                          data_disk_gb=100, data_disk_type="pd-balanced")
    with pytest.raises(InputError) as caught:
        record(lambda: TpuVmSlice("v6e", args))
    [item] = caught.value.problems
    assert item.field == "data_disk_gb" and "hyperdisk-balanced" in item.message and "use hyperdisk-balanced" in item.fix


def test_a_tpu_pool_built_by_hand_in_a_zone_google_does_not_list_is_refused():
    from accelfit.errors import InputError

    with pytest.raises(InputError) as caught:
        _record_pool(zone="us-central1-a")  # v6e (ct6e-standard-4t) is listed in us-central1-b only
    [item] = caught.value.problems
    assert item.field == "zone" and "tpu-v6e" in item.message and "us-central1-b" in item.fix


def test_a_tpu_vm_built_by_hand_in_a_zone_google_does_not_list_is_refused():
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.gcp.tpu_vm import TpuVmSlice, TpuVmSliceArgs

    args = TpuVmSliceArgs(zone="us-east1-d", accelerator_config_type="V5P", topology="2x2x1",
                          runtime_version="v2-alpha-tpuv5", network="n", subnetwork="s", service_account="sa@x")
    with pytest.raises(InputError) as caught:
        record(lambda: TpuVmSlice("v5p", args))
    [item] = caught.value.problems
    assert item.field == "zone" and "tpu-v5p" in item.message and "us-central1-a, us-east5-a" in item.fix


@pytest.mark.parametrize("bounds", [dict(max_nodes=3, initial_nodes=0), dict(min_nodes=2, initial_nodes=2)])
def test_a_multi_host_pool_by_hand_that_is_not_0_or_all_hosts_is_refused(bounds):
    # GKE: "Maximum node count N is not a valid size of TPU pod slice" (v6e-16 = 4 hosts).
    from accelfit.errors import InputError

    with pytest.raises(InputError) as caught:
        _record_pool(**bounds)
    [item] = caught.value.problems
    assert item.field == "max_nodes" and "4 hosts" in item.message
