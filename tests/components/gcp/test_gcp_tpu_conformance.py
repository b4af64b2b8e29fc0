"""Conformance: what accelfit renders for a GKE TPU slice pool and a TPU VM slice, per TPU generation the planner
can choose (v4, v5e, v5p, v6e), against the facts of a blueprint known to deploy.

Upstream facts (recorded here, not copied code):
- XPK = AI-Hypercomputer/xpk @ 367c838253bea41e7d7716145ad6513f44c1a21e
  - src/xpk/core/system_characteristics.py: per generation the GKE accelerator label, the node machine type,
    chips per VM (4 for every multi-host topology), VMs per slice = chips / 4, device type = prefix-(chips x
    TensorCores per chip), and the Kueue flavor labels cloud.google.com/gke-tpu-accelerator and
    cloud.google.com/gke-tpu-topology.
  - src/xpk/core/nodepool.py: one node pool per slice in one zone (--node-locations), --num-nodes = VMs per
    slice, --placement-type=COMPACT and --tpu-topology only when the slice has more than one VM, --enable-gvnic,
    --host-maintenance-interval (default AS_NEEDED, src/xpk/parser/cluster.py).
  - src/xpk/core/capacity.py: --spot; a reservation as --reservation-affinity=specific --reservation=NAME;
    flex-start as --flex-start --enable-autoscaling --location-policy=ANY --reservation-affinity=none
    --no-enable-autorepair --max-nodes, starting at 0 nodes.
- TOOLKIT = GoogleCloudPlatform/cluster-toolkit @ 1047080375afbb44da4b596be314634e7486af4a
  - modules/compute/gke-node-pool/variables.tf: upgrade_settings SURGE, max_surge 0, max_unavailable 1.
  - modules/compute/gke-node-pool/main.tf: per-zone min/max_node_count for TPU autoscaling, location_policy ANY.
- RUNTIMES = https://cloud.google.com/tpu/docs/runtimes (read 2026-11-23): JAX/PyTorch software versions
  v2-alpha-tpuv6e (v6e), v2-alpha-tpuv5 (v5p), v2-alpha-tpuv5-lite (v5e), tpu-ubuntu2204-base (v4).
"""

from __future__ import annotations

import gcp_plans
import pytest

from accelfit.catalog import load_catalog
from accelfit.planner.model import NodePool, PlanAccelerator, Taint, TpuVmSlice

XPK = ("AI-Hypercomputer/xpk", "src/xpk/core/system_characteristics.py, nodepool.py, capacity.py",
       "367c838253bea41e7d7716145ad6513f44c1a21e")
TOOLKIT = ("GoogleCloudPlatform/cluster-toolkit", "modules/compute/gke-node-pool/main.tf, variables.tf",
           "1047080375afbb44da4b596be314634e7486af4a")

# One multi-host slice per generation: (canonical generation, Cloud TPU type, xpk facts).
XPK_SLICES = {
    "tpu-v6e": ("v6e-16", {"topology": "4x4", "machine_type": "ct6e-standard-4t",
                           "gke_accelerator": "tpu-v6e-slice", "vms_per_slice": 4}),
    "tpu-v5p": ("v5p-128", {"topology": "4x4x4", "machine_type": "ct5p-hightpu-4t",
                            "gke_accelerator": "tpu-v5p-slice", "vms_per_slice": 16}),
    "tpu-v5e": ("v5litepod-16", {"topology": "4x4", "machine_type": "ct5lp-hightpu-4t",
                                 "gke_accelerator": "tpu-v5-lite-podslice", "vms_per_slice": 4}),
    "tpu-v4": ("v4-32", {"topology": "2x2x4", "machine_type": "ct4p-hightpu-4t",
                         "gke_accelerator": "tpu-v4-podslice", "vms_per_slice": 4}),
}
RUNTIME = {"tpu-v6e": "v2-alpha-tpuv6e", "tpu-v5p": "v2-alpha-tpuv5", "tpu-v5e": "v2-alpha-tpuv5-lite",
           "tpu-v4": "tpu-ubuntu2204-base"}
CATALOG = load_catalog()
GENERATIONS = sorted(XPK_SLICES)


def _zone(generation: str) -> str:
    return CATALOG.available_zones(generation)[0]


def _gke_plan(generation: str, *, spot: bool = False, reservation: str | None = None, min_nodes: int = 0):
    slice_name, _facts = XPK_SLICES[generation]
    tpu_slice = CATALOG.tpu_slice(slice_name)
    zone = _zone(generation)
    region = zone.rsplit("-", 1)[0]
    pool = NodePool(name="tpu-0", role="tpu", machine_type=tpu_slice.gke_machine_type, accelerator=generation,
                    accelerators_per_node=tpu_slice.chips_per_host, gke_accelerator=tpu_slice.gke_accelerator,
                    min_nodes=min_nodes, max_nodes=tpu_slice.hosts, initial_nodes=tpu_slice.hosts, zones=(zone,),
                    spot=spot, reservation=reservation,
                    taints=(Taint(key="google.com/tpu", value="present", effect="NoSchedule"),),
                    tpu_topology=tpu_slice.topology, tpu_slice=slice_name, compact_placement=True)
    base = gcp_plans.gke_tpu_multislice()
    return base.model_copy(update={
        "workload": "conf", "region": region, "zones": (zone,),
        "accelerator": PlanAccelerator(name=generation, kind="tpu", count=tpu_slice.chips,
                                       topology=tpu_slice.topology, slice=slice_name, slices=1),
        "node_pools": (gcp_plans.system_pool((zone,)), pool)})


def _rendered_pool(plan) -> dict:
    recording, error = gcp_plans.record_plan(plan)
    assert error is None, error
    return recording.named("conf-tpu-0-pool").inputs


@pytest.mark.parametrize("generation", GENERATIONS)
def test_catalog_slice_shape_matches_xpk(generation):
    slice_name, facts = XPK_SLICES[generation]
    tpu_slice = CATALOG.tpu_slice(slice_name)
    assert tpu_slice.topology == facts["topology"]
    assert tpu_slice.gke_machine_type == facts["machine_type"]
    assert tpu_slice.gke_accelerator == facts["gke_accelerator"]
    assert tpu_slice.hosts == facts["vms_per_slice"] and tpu_slice.chips_per_host == 4


@pytest.mark.parametrize("generation", GENERATIONS)
def test_gke_tpu_pool_matches_xpk_and_cluster_toolkit(generation):
    _, facts = XPK_SLICES[generation]
    pool = _rendered_pool(_gke_plan(generation))
    node = pool["nodeConfig"]
    assert node["machineType"] == facts["machine_type"]                                  # xpk --machine-type
    assert pool["nodeLocations"] == [_zone(generation)]                                   # xpk --node-locations
    assert pool["placementPolicy"] == {"type": "COMPACT", "tpuTopology": facts["topology"]}  # xpk multi-host
    assert pool["initialNodeCount"] == facts["vms_per_slice"]                             # xpk --num-nodes
    # Scale to zero between runs: per-zone bounds of one whole slice (GKE checks max_node_count), ANY.
    assert pool["autoscaling"] == {"minNodeCount": 0, "maxNodeCount": facts["vms_per_slice"],
                                   "locationPolicy": "ANY"}                                 # toolkit per-zone
    assert node["gvnic"] == {"enabled": True}                                             # xpk --enable-gvnic
    assert node["hostMaintenancePolicy"] == {"maintenanceInterval": "AS_NEEDED"}          # xpk default
    assert pool["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}  # toolkit
    assert node["labels"]["accelfit.io/tpu-slice"] == XPK_SLICES[generation][0]
    assert node["taints"] == [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert "guestAccelerators" not in node  # TPU machine types carry their chips


@pytest.mark.parametrize("generation", GENERATIONS)
def test_fixed_reserved_slice_matches_xpk_reservation_capacity(generation):
    _, facts = XPK_SLICES[generation]
    pool = _rendered_pool(_gke_plan(generation, reservation="tpu-res", min_nodes=facts["vms_per_slice"]))
    assert "autoscaling" not in pool and pool["initialNodeCount"] == facts["vms_per_slice"]  # --num-nodes
    assert pool["nodeConfig"]["reservationAffinity"] == {                  # --reservation-affinity=specific
        "consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": ["tpu-res"]}
    assert pool["nodeConfig"]["spot"] is False


@pytest.mark.parametrize("generation", GENERATIONS)
def test_spot_slice_matches_xpk_spot_capacity(generation):
    pool = _rendered_pool(_gke_plan(generation, spot=True))
    assert pool["nodeConfig"]["spot"] is True                                                 # xpk --spot
    assert pool["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}


@pytest.mark.parametrize("generation", GENERATIONS)
def test_kueue_flavor_selects_the_labels_xpk_selects(generation):
    from accelfit.preview.recorder import record
    from components.build import build

    _, facts = XPK_SLICES[generation]
    plan = _gke_plan(generation)

    def program():
        build(plan, gcp_plans.ownership(plan), catalog=CATALOG)

    recording = record(program, config={"gcp:project": gcp_plans.PROJECT})
    labels = recording.named("conf-k8s-kueue-flavor-tpu-0").inputs["spec"]["nodeLabels"]
    assert labels["cloud.google.com/gke-tpu-accelerator"] == facts["gke_accelerator"]
    assert labels["cloud.google.com/gke-tpu-topology"] == facts["topology"]


@pytest.mark.parametrize("generation", GENERATIONS)
def test_tpu_vm_slice_matches_xpk_shape_and_the_runtime_page(generation):
    slice_name, facts = XPK_SLICES[generation]
    tpu_slice = CATALOG.tpu_slice(slice_name)
    zone = _zone(generation)
    plan = gcp_plans.tpu_jax_pretrain().model_copy(update={
        "workload": "conf", "region": zone.rsplit("-", 1)[0], "zones": (zone,),
        "accelerator": PlanAccelerator(name=generation, kind="tpu", count=tpu_slice.chips,
                                       topology=tpu_slice.topology, slice=slice_name, slices=1),
        "tpu_vm_slices": (TpuVmSlice(name="slice-0", accelerator_type=slice_name,
                                     accelerator_config_type=tpu_slice.accelerator_config_type,
                                     topology=tpu_slice.topology, zone=zone, runtime_version=RUNTIME[generation]),)})
    recording, error = gcp_plans.record_plan(plan)
    assert error is None, error
    [vm] = recording.of_type("gcp:tpu/v2Vm:V2Vm")
    assert vm.inputs["acceleratorConfig"] == {"type": tpu_slice.accelerator_config_type,
                                              "topology": facts["topology"]}
    assert vm.inputs["runtimeVersion"] == RUNTIME[generation]
    assert vm.inputs["zone"] == zone and vm.inputs["networkConfig"]["enableExternalIps"] is False
