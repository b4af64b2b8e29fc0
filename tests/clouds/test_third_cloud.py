"""A third cloud registered from one test-only module (tests/clouds/fake_cloud.py) is looked up, planned, priced by
the preview's pricing and refused where it lacks a feature, without any file outside that module changing (issue 35):
the spec's placement.clouds, the catalog rows' cloud and the plan's cloud and platform are values checked against
the registry (accelfit/clouds/names.py), not enums. Its plan is built by the component builder its record names
(`component_builders`, in the same module) and what that records is priced by its pricer."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.clouds import all_clouds, cloud_named, cloud_of_platform, clouds_supporting, register, unregister
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.pricers import priced_types
from accelfit.planner.planner import plan
from accelfit.spec import WorkloadSpec
from tests.clouds import fake_cloud


@pytest.fixture
def third_cloud():
    register(fake_cloud.CLOUD)
    try:
        yield fake_cloud.CLOUD
    finally:
        unregister(fake_cloud.CLOUD.name)


def test_the_registry_knows_it(third_cloud):
    assert cloud_named("fakecloud") is third_cloud
    assert cloud_of_platform("fake-gpu") is third_cloud
    assert third_cloud not in clouds_supporting("tpu")
    assert "fakecloud" in [cloud.name for cloud in clouds_supporting("model-server")]


def test_the_preview_prices_its_resource(third_cloud):
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": fake_cloud.MACHINE_TYPE,
                                                                         "nodes": 2}, urn="urn:fake:gpu")
    report = price_resources([node], load_catalog(), PricingContext())
    assert fake_cloud.NODE_TYPE in priced_types()
    (cost,) = report.resources
    assert cost.monthly_usd == pytest.approx(2 * 10.0 * 730, rel=0.01)
    assert "fk-h100-8 on demand $10/h" in cost.basis
    assert report.unpriced == ()


def test_an_unknown_machine_is_reported_unpriced(third_cloud):
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": "fk-none"})
    report = price_resources([node], load_catalog(), PricingContext())
    assert report.resources == () and "gpu (fakecloud:compute/gpuNode:GpuNode)" in report.unpriced[0]


def test_unregistering_removes_it_and_its_pricers():
    register(fake_cloud.CLOUD)
    assert fake_cloud.NODE_TYPE in priced_types()
    unregister(fake_cloud.CLOUD.name)
    assert "fakecloud" not in [cloud.name for cloud in all_clouds()]
    assert fake_cloud.NODE_TYPE not in priced_types()


def _spec() -> WorkloadSpec:
    return WorkloadSpec.model_validate(dict(
        name="third", kind="training", framework="pytorch", model={"parameters": "7B"},
        training={"tokens": "20B", "deadline_days": 10},
        placement={"orchestration": "kubernetes", "clouds": [fake_cloud.CLOUD.name]}))


def test_the_spec_refuses_it_until_registered():
    with pytest.raises(ValueError, match="Input should be 'gcp' or 'aws'"):
        _spec()


def test_the_spec_schema_lists_it(third_cloud):
    schema = WorkloadSpec.model_json_schema()
    assert schema["$defs"]["PlacementCloud"]["enum"] == ["gcp", "aws", "fakecloud"]


def test_a_spec_plans_on_it_at_its_price(third_cloud):
    chosen = plan(_spec(), fake_cloud.with_its_rows(load_catalog()))
    assert (chosen.cloud, chosen.platform, chosen.region) == ("fakecloud", "fake-gpu", fake_cloud.REGION)
    assert chosen.option.startswith(f"fake-gpu/fakecloud/{fake_cloud.REGION}/h100-80gb/{fake_cloud.MACHINE_TYPE}/")
    (pool,) = chosen.node_pools  # no system pool: the cloud's cluster platform needs none
    assert (pool.machine_type, pool.accelerators_per_node, pool.buying) == (fake_cloud.MACHINE_TYPE, 8, "on-demand")
    compute = next(line for line in chosen.estimate.breakdown if line.item == "compute")
    # Its one price, for the hours the plan runs the nodes: $10 an hour per node (no boot disk: no disk service).
    assert compute.monthly_usd == pytest.approx(10.0 * chosen.estimate.accelerator_hours / 8, rel=0.01)
    # Its pool, rendered as its own resource type, is priced by its own pricer at the same rate.
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": pool.machine_type,
                                                                         "nodes": pool.max_nodes})
    (cost,) = price_resources([node], load_catalog(), PricingContext()).resources
    assert cost.basis.startswith(f"{fake_cloud.MACHINE_TYPE} on demand $10/h")


def test_its_plan_is_built_by_its_own_builder_and_priced_by_its_pricer(third_cloud):
    """The preview's two halves for this cloud: the plan built under mocks by the builder its record names
    (fake_cloud.BUILDERS), recording its one resource type with the plan's machine type and node count, and the
    recorded resources priced by its pricer at the plan's rate."""
    from accelfit.preview.recorder import record
    from components.build import build
    from components.common import Ownership

    catalog = fake_cloud.with_its_rows(load_catalog())
    chosen = plan(_spec(), catalog)
    (pool,) = chosen.node_pools
    ownership = Ownership(team="ml", cost_center="cc-1", environment="dev", workload="third")
    recording = record(lambda: build(chosen, ownership, catalog), project="third", stack="dev")
    (node,) = recording.resources
    assert (node.type, node.name) == (fake_cloud.NODE_TYPE, f"third-{pool.name}")
    assert node.inputs == {"machineType": fake_cloud.MACHINE_TYPE, "nodes": pool.max_nodes,
                           "region": fake_cloud.REGION}
    neutral = [NeutralResource(type=r.type, name=r.name, props=r.inputs, urn=r.urn) for r in recording.resources]
    report = price_resources(neutral, catalog, PricingContext())
    (cost,) = report.resources
    assert report.unpriced == () and cost.monthly_usd == pytest.approx(10.0 * pool.max_nodes * 730, rel=0.01)


def _integrity(catalog) -> list:  # noqa: ANN001
    from accelfit.catalog.integrity import Located, check_integrity

    sections = ("accelerators", "instance_types", "tpu_slices", "prices", "service_prices", "efficiency",
                "availability", "not_sold")
    return check_integrity({section: [Located(row, f"{section}.yaml", f"{section}[{index}]")
                                      for index, row in enumerate(getattr(catalog, section))]
                            for section in sections})


def test_the_catalog_rules_follow_its_record(third_cloud):
    """Its rows are checked by its own record's catalog rules: no GKE accelerator fields, no TPU prices (it has no
    tpu_platforms), zones that need not be <region>-<letter>, no AWS source rule; the messages name it."""
    from accelfit.catalog import Availability

    rows = fake_cloud.with_its_rows(load_catalog())
    # Its availability: a zone that is not <region>-<letter> and a source no AWS rule would take; both are its own.
    offered = Availability(cloud="fakecloud", sku=fake_cloud.MACHINE_TYPE, region=fake_cloud.REGION,
                           zones=("fk-zone-9",), as_of="2026-11-01", source="recalled")
    catalog = rows.model_copy(update={"availability": (*rows.availability, offered)})
    assert _integrity(catalog) == []
    machine = catalog.instance_types[-1].model_copy(update={"gke_accelerator": "nvidia-h100-80gb"})
    tpu_price = catalog.prices[-1].model_copy(update={"sku": "tpu-v5p", "unit": "chip-hour"})
    broken = catalog.model_copy(update={"instance_types": (*catalog.instance_types[:-1], machine),
                                        "prices": (*catalog.prices, tpu_price)})
    found = [(p.field, p.message, p.fix) for p in _integrity(broken)]
    assert (f"instance_types[{len(catalog.instance_types) - 1}].gke_accelerator",
            "gke_accelerator, gpudirect and extra_networks are GCP-only", "remove them from FakeCloud rows") in found
    assert [message for field, message, _ in found if field == f"prices[{len(catalog.prices)}].sku"] == [
        "chip-hour prices name a TPU generation on gcp"]
