"""Pricing of resources: hand-computed expectations, and a real-format `pulumi preview --json` priced exactly as
the in-process preview prices the same resources."""

import json
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.errors import InputError
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.pulumi_preview import load_preview, resources_from_preview

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def one(catalog, type_token, props, **context):
    report = price_resources([NeutralResource(type=type_token, name="r", props=props)], catalog,
                             PricingContext(**context))
    assert len(report.resources) == 1, report.unpriced
    return report.resources[0]


def test_gke_gpu_pool_at_max_nodes(catalog):
    hourly = catalog.price("gcp", "a3-highgpu-8g", "us-central1", "on-demand").hourly_usd
    cost = one(catalog, "gcp:container/nodePool:NodePool",
               {"location": "us-central1", "nodeConfig": {"machineType": "a3-highgpu-8g"},
                "autoscaling": {"totalMinNodeCount": 0, "totalMaxNodeCount": 4}, "initialNodeCount": 4})
    # No training run in the context: nothing says the pool stops, so it bills at its maximum all month. Each
    # node's boot disk (no diskType/diskSizeGb: GKE's 100 GB pd-balanced) bills while its node exists.
    disk = 100 * catalog.service_price("gcp", "pd-balanced", "us-central1").usd
    assert cost.monthly_usd == pytest.approx(hourly * 4 * 730 + 4 * disk, abs=0.01)
    assert cost.full_scale_monthly_usd == pytest.approx(hourly * 4 * 730 + 4 * disk, abs=0.01)


def test_spot_tpu_pool_prices_chips_per_host(catalog):
    chip = catalog.price("gcp", "tpu-v6e", "us-central1", "spot").hourly_usd
    cost = one(catalog, "gcp:container/nodePool:NodePool",
               {"location": "us-central1-a", "nodeConfig": {"machineType": "ct6e-standard-4t", "spot": True},
                "autoscaling": {"minNodeCount": 0, "maxNodeCount": 2}})
    assert cost.monthly_usd == pytest.approx(chip * 4 * 2 * 730, abs=0.01)


def test_tpu_vm_from_accelerator_config(catalog):
    chip = catalog.price("gcp", "tpu-v5p", "us-east5", "on-demand").hourly_usd
    cost = one(catalog, "gcp:tpu/v2Vm:V2Vm",
               {"zone": "us-east5-a", "acceleratorConfig": {"type": "V5P", "topology": "4x4x4"}})
    assert cost.monthly_usd == pytest.approx(chip * 64 * 730, abs=0.01)


def test_eks_spot_node_group(catalog):
    spot = catalog.price("aws", "p5.48xlarge", "us-east-1", "spot").hourly_usd
    cost = one(catalog, "aws:eks/nodeGroup:NodeGroup",
               {"instanceTypes": ["p5.48xlarge"], "capacityType": "SPOT",
                "scalingConfig": {"minSize": 0, "maxSize": 2, "desiredSize": 2}}, regions={"aws": "us-east-1"})
    # No launch template in the stack: EKS's 20 GiB root volume per node, gp3.
    disk = 20 * catalog.service_price("aws", "ebs-gp3", "us-east-1").usd
    assert cost.monthly_usd == pytest.approx(spot * 2 * 730 + 2 * disk, abs=0.01)


def test_bucket_sized_from_context(catalog):
    rate = catalog.service_price("gcp", "gcs-standard", "us-central1").usd
    cost = one(catalog, "gcp:storage/bucket:Bucket", {"location": "US-CENTRAL1"}, bucket_gib=1000,
               bucket_basis="test")
    assert cost.monthly_usd == pytest.approx(1000 * rate, abs=0.01)


def test_fsx_and_cluster_fee(catalog):
    fsx = one(catalog, "aws:fsx/lustreFileSystem:LustreFileSystem",
              {"storageCapacity": 2400, "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 125},
              regions={"aws": "us-east-1"})
    rate = catalog.service_price("aws", "fsx-lustre-persistent2-125", "us-east-1").usd
    assert fsx.monthly_usd == pytest.approx(2400 * rate, abs=0.01)
    fee = one(catalog, "gcp:container/cluster:Cluster", {}, regions={"gcp": "us-central1"})
    assert fee.monthly_usd == pytest.approx(0.10 * 730, abs=0.01)


def test_unpriced_types_cost_nothing_and_unknown_prices_are_reported(catalog):
    report = price_resources([
        NeutralResource("gcp:compute/network:Network", "vpc", {}),
        NeutralResource("gcp:container/nodePool:NodePool", "odd", {"location": "mars-1",
                                                                  "nodeConfig": {"machineType": "x"}}),
    ], catalog)
    assert report.monthly_usd == 0
    assert report.unpriced and "odd" in report.unpriced[0]


def test_real_preview_json_priced_like_the_in_process_preview(catalog):
    """The fixture follows the documented `pulumi preview --json` schema (steps with op/urn/newState{type,
    inputs,custom,parent}), including the stack step and a delete that must not be priced."""
    from accelfit.preview.run import preview_stack

    in_process = preview_stack("dev", Path(__file__).parents[2]).document
    preview_resources = load_preview(FIXTURES / "pulumi-preview-dev.json")
    from accelfit.preview.run import pricing_context
    from accelfit.stackfile import load_stack
    from accelfit.planner.model import Plan

    stack = load_stack("dev", Path(__file__).parents[2])
    # The document's plan is the one `plan --stack --json` prints: the Plan plus its fallback chain.
    plan = Plan.model_validate({key: value for key, value in in_process["plan"].items()
                                if key not in ("fallback", "fallback_omitted")})
    report = price_resources(preview_resources, catalog, pricing_context(stack, plan))
    assert report.monthly_usd == in_process["cost"]["monthly_usd"]
    assert {cost.urn: cost.monthly_usd for cost in report.resources} == {
        r["urn"]: r["monthly_usd"] for r in in_process["resources"] if r["monthly_usd"]}
    assert not any("old-pool" in cost.urn for cost in report.resources)


def test_not_a_preview_document():
    with pytest.raises(InputError, match="steps"):
        resources_from_preview({"resources": []}, "x.json")


def test_cost_command(capsys, monkeypatch):
    from accelfit.cli.main import main

    monkeypatch.chdir(Path(__file__).parents[2])
    code = main(["cost", "--pulumi-preview", str(FIXTURES / "pulumi-preview-dev.json"), "--stack", "dev", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["monthly_usd"] > 0 and document["assumptions"]


# --- a GPU VM's managed instance group (gce-gpu-vm) --------------------------------------------------------------

GPU_TEMPLATE = {"machineType": "g2-standard-24", "scheduling": {"provisioningModel": "SPOT"},
                "disks": [{"boot": True, "diskSizeGb": 200, "diskType": "pd-balanced"}],
                "labels": {"autostop-idle-minutes": "30", "autostop-action": "stop"}}


def _group(catalog, target_size, template=GPU_TEMPLATE):
    resources = [NeutralResource("gcp:compute/instanceGroupManager:InstanceGroupManager", "job-gpu-mig",
                                 {"zone": "us-central1-a", "targetSize": target_size})]
    if template is not None:
        resources.append(NeutralResource("gcp:compute/instanceTemplate:InstanceTemplate", "job-gpu-template",
                                         template))
    return price_resources(resources, catalog, PricingContext(regions={"gcp": "us-central1"}))


def test_a_gpu_vm_group_is_priced_as_its_template_times_its_size(catalog):
    hourly = catalog.price("gcp", "g2-standard-24", "us-central1", "spot").hourly_usd
    disk_hourly = 200 * catalog.service_price("gcp", "pd-balanced", "us-central1").usd / 730
    [one_vm] = _group(catalog, 1).resources
    assert one_vm.name == "job-gpu-mig"  # the template itself costs nothing
    # No run in the context: with autostop the VM bills the idle tail, its kept boot disk all month.
    assert one_vm.full_scale_monthly_usd == pytest.approx((hourly + disk_hourly) * 730, abs=0.01)
    [two] = _group(catalog, 2).resources
    assert two.full_scale_monthly_usd == pytest.approx(2 * one_vm.full_scale_monthly_usd, abs=0.02)
    [none] = _group(catalog, 0).resources
    assert none.full_scale_monthly_usd == 0


def test_a_group_without_its_template_is_reported_unpriced(catalog):
    report = _group(catalog, 1, template=None)
    assert not report.resources and report.unpriced and "job-gpu-mig" in report.unpriced[0]
