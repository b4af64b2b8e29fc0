"""A third cloud registered from one test-only module (tests/clouds/fake_cloud.py) and its own data (its catalog
rows in tests/clouds/fakecloud_data/, its stack in tests/clouds/fakecloud_stack/) is looked up, planned, built,
priced and checked by the policy pack through the real CLI (`accelfit check`, `plan`, `preview`), without any file
outside that module and data naming it (issue 35): the spec's placement.clouds, the catalog rows' cloud and the
plan's cloud and platform are values checked against the registry (accelfit/clouds/names.py); where its rows live,
its stack's region key, its regions, its builder, its pricer and what the policy pack reads of its nodes are fields
and hooks of its record."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog, loader, store
from accelfit.cli.main import main
from accelfit.clouds import all_clouds, cloud_named, cloud_of_platform, clouds_supporting, register, unregister
from accelfit.errors import InputError
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.pricers import priced_types
from accelfit.planner.planner import plan
from accelfit.spec import WorkloadSpec
from tests.clouds import fake_cloud

ROOT = Path(__file__).parents[2]
STACK = "fakecloud-training"
STACK_FILE = Path(__file__).parent / "fakecloud_stack" / f"Pulumi.{STACK}.yaml"


@pytest.fixture
def cloud_with_rows_in(tmp_path, monkeypatch):
    """The fake cloud registered with its rows in a private copy of its folder that a test may change, and a
    private active-catalog folder (its compiled cache); nothing cached is left behind for other tests."""
    folder = tmp_path / "fakecloud_data"
    shutil.copytree(fake_cloud.DATA_DIR, folder)
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path / "catalog"))
    loader.forget_active()
    register(dataclasses.replace(fake_cloud.CLOUD, catalog_dir=folder))
    try:
        yield folder
    finally:
        unregister(fake_cloud.CLOUD.name)
        loader.forget_active()


def test_the_registry_knows_it(third_cloud):
    assert cloud_named("fakecloud") is third_cloud
    assert cloud_of_platform("fake-gpu") is third_cloud
    assert third_cloud not in clouds_supporting("tpu")
    assert "fakecloud" in [cloud.name for cloud in clouds_supporting("model-server")]


def test_its_rows_come_from_its_own_folder(third_cloud):
    """The loader reads the files its record names from the folder its record names, with the shipped data."""
    assert loader.cloud_files() == [fake_cloud.DATA_DIR / "fakecloud.yaml"]
    catalog = load_catalog()
    machine = catalog.instance_type("fakecloud", fake_cloud.MACHINE_TYPE)
    assert machine is not None and (machine.accelerator, machine.accelerator_count) == ("h100-80gb", 8)
    assert machine.regions == (fake_cloud.REGION,)  # filled from its own availability row
    price = catalog.price("fakecloud", fake_cloud.MACHINE_TYPE, fake_cloud.REGION, "on-demand")
    assert price is not None and price.hourly_usd == fake_cloud.HOURLY_USD and not price.verified
    assert catalog.instance_type("aws", "p5.48xlarge") is not None  # the shipped rows are still there


def test_unregistered_its_rows_are_gone():
    assert loader.cloud_files() == []
    catalog = load_catalog()
    assert fake_cloud.MACHINE_TYPE not in {row.name for row in catalog.instance_types}
    assert fake_cloud.REGION not in {row.region for row in catalog.prices}


def test_a_change_to_its_file_recompiles_the_cached_catalog(cloud_with_rows_in, monkeypatch):
    """The compiled cache's key covers the cloud's own folder: unchanged, a fresh process reads the cache without
    parsing; after its price changes, the cache misses and the new price is read."""
    from accelfit.catalog import compiled

    first = load_catalog()
    assert first.price("fakecloud", fake_cloud.MACHINE_TYPE, fake_cloud.REGION, "on-demand").hourly_usd == 10.0
    assert (store.catalog_dir() / compiled.CACHE_FILE).is_file()
    loader.forget_active()
    with monkeypatch.context() as patched:
        patched.setattr(loader, "_load", lambda *args, **kwargs: pytest.fail("parsed although the cache holds it"))
        assert load_catalog() == first
    data = cloud_with_rows_in / "fakecloud.yaml"
    data.write_text(data.read_text().replace("hourly_usd: 10.0", "hourly_usd: 12.5"))
    loader.forget_active()
    assert load_catalog().price("fakecloud", fake_cloud.MACHINE_TYPE, fake_cloud.REGION,
                                "on-demand").hourly_usd == 12.5


def test_a_broken_row_in_its_file_is_refused_naming_that_file(cloud_with_rows_in):
    """The integrity checks run over its rows too: a price for a machine type no file lists."""
    data = cloud_with_rows_in / "fakecloud.yaml"
    data.write_text(data.read_text().replace("sku: fk-h100-8, unit", "sku: fk-h100-9, unit"))
    loader.forget_active()
    with pytest.raises(InputError) as raised:
        load_catalog()
    assert [(p.file, p.field) for p in raised.value.problems] == [(str(data), "prices[0].sku")]


def test_the_preview_prices_its_resource(third_cloud):
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": fake_cloud.MACHINE_TYPE,
                                                                         "nodes": 2, "region": fake_cloud.REGION},
                           urn="urn:fake:gpu")
    report = price_resources([node], load_catalog(), PricingContext())
    assert fake_cloud.NODE_TYPE in priced_types()
    (cost,) = report.resources
    assert cost.monthly_usd == pytest.approx(2 * 10.0 * 730, rel=0.01)
    assert "fk-h100-8: on-demand $10/instance-hour (as of 2026-11-01)" in cost.basis
    assert report.unpriced == ()


def test_an_unknown_machine_is_reported_unpriced(third_cloud):
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": "fk-none",
                                                                         "region": fake_cloud.REGION})
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


def test_its_regions_and_stack_key_are_known_once_registered(third_cloud):
    from accelfit.spec.regions import cloud_of_region
    from accelfit.stackschema import config_schema

    assert cloud_of_region(fake_cloud.REGION) == "fakecloud"
    assert "fakecloud:region" in config_schema("single")["properties"]
    unregister(fake_cloud.CLOUD.name)
    try:
        assert cloud_of_region(fake_cloud.REGION) is None
        assert "fakecloud:region" not in config_schema("single")["properties"]
    finally:
        register(fake_cloud.CLOUD)


def test_a_spec_plans_on_it_at_its_price(third_cloud):
    chosen = plan(_spec(), load_catalog())
    assert (chosen.cloud, chosen.platform, chosen.region) == ("fakecloud", "fake-gpu", fake_cloud.REGION)
    assert chosen.option.startswith(f"fake-gpu/fakecloud/{fake_cloud.REGION}/h100-80gb/{fake_cloud.MACHINE_TYPE}/")
    (pool,) = chosen.node_pools  # no system pool: the cloud's cluster platform needs none
    assert (pool.machine_type, pool.accelerators_per_node, pool.buying) == (fake_cloud.MACHINE_TYPE, 8, "on-demand")
    compute = next(line for line in chosen.estimate.breakdown if line.item == "compute")
    # Its one price, for the hours the plan runs the nodes: $10 an hour per node (no boot disk: no disk service).
    assert compute.monthly_usd == pytest.approx(10.0 * chosen.estimate.accelerator_hours / 8, rel=0.01)


def test_its_plan_is_built_by_its_own_builder_and_priced_by_its_pricer(third_cloud):
    """The preview's two halves for this cloud: the plan built under mocks by the builder its record names
    (fake_cloud.BUILDERS), recording its one resource type with the plan's machine type and node range, and the
    recorded resources priced by its pricer at the plan's rate."""
    from accelfit.preview.recorder import record
    from components.build import build
    from components.common import Ownership

    catalog = load_catalog()
    chosen = plan(_spec(), catalog)
    (pool,) = chosen.node_pools
    ownership = Ownership(team="ml", cost_center="cc-1", environment="dev", workload="third")
    recording = record(lambda: build(chosen, ownership, catalog), project="third", stack="dev")
    (node,) = [r for r in recording.resources if r.type == fake_cloud.NODE_TYPE]
    assert node.name == f"third-{pool.name}"
    assert node.inputs == {"machineType": fake_cloud.MACHINE_TYPE, "nodes": pool.max_nodes,
                           "minNodes": pool.min_nodes, "region": fake_cloud.REGION,
                           "labels": {**pool.labels, fake_cloud.POOL_LABEL: node.name},
                           "tags": ownership.aws_tags(), "privateNodes": True,
                           "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]}
    neutral = [NeutralResource(type=r.type, name=r.name, props=r.inputs, urn=r.urn) for r in recording.resources]
    report = price_resources(neutral, catalog, PricingContext())
    (cost,) = report.resources
    assert report.unpriced == () and cost.full_scale_monthly_usd == pytest.approx(10.0 * pool.max_nodes * 730,
                                                                                  rel=0.01)


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

    rows = load_catalog()
    # Its availability: a zone that is not <region>-<letter> and a source no AWS rule would take; both are its own.
    offered = Availability(cloud="fakecloud", sku=fake_cloud.MACHINE_TYPE, region="fk-west2",
                           zones=("fk-zone-9",), as_of="2026-11-01", source="recalled")
    catalog = rows.model_copy(update={"availability": (*rows.availability, offered)})
    assert _integrity(catalog) == []
    index = next(i for i, row in enumerate(catalog.instance_types) if row.cloud == "fakecloud")
    machine = catalog.instance_types[index].model_copy(update={"gke_accelerator": "nvidia-h100-80gb"})
    price = next(row for row in catalog.prices if row.cloud == "fakecloud")
    tpu_price = price.model_copy(update={"sku": "tpu-v5p", "unit": "chip-hour"})
    broken = catalog.model_copy(update={
        "instance_types": (*catalog.instance_types[:index], machine, *catalog.instance_types[index + 1:]),
        "prices": (*catalog.prices, tpu_price)})
    found = [(p.field, p.message, p.fix) for p in _integrity(broken)]
    assert (f"instance_types[{index}].gke_accelerator",
            "gke_accelerator, gpudirect and extra_networks are GCP-only", "remove them from FakeCloud rows") in found
    assert [message for field, message, _ in found if field == f"prices[{len(catalog.prices)}].sku"] == [
        "chip-hour prices name a TPU generation on gcp"]


# The real CLI, in-process, on a project holding the fake cloud's stack (as tests/preview/* drive shipped stacks).

def _project(tmp_path: Path, edit: tuple[str, str] | None = None) -> Path:
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    text = STACK_FILE.read_text()
    if edit is not None:
        assert edit[0] in text
        text = text.replace(*edit)
    (tmp_path / "stacks" / STACK_FILE.name).write_text(text)
    return tmp_path


def _json_of(args: list[str], capsys) -> dict:  # noqa: ANN001
    assert main(args) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_its_stack_previews_through_the_cli_with_plan_equal_to_preview(third_cloud, tmp_path, capsys, monkeypatch):
    """`accelfit preview --stack`: the program under mocks builds its node, the preview prices it at the plan's
    figures, and the policy pack reads its accelerators (the advisory spot rule names its node)."""
    monkeypatch.chdir(_project(tmp_path))
    document = _json_of(["preview", "--stack", STACK, "--json"], capsys)
    planned = document["plan"]
    assert (planned["cloud"], planned["platform"], planned["region"]) == ("fakecloud", "fake-gpu", fake_cloud.REGION)
    (node,) = [r for r in document["resources"] if r["type"] == fake_cloud.NODE_TYPE]
    assert {key: node["inputs"][key] for key in ("machineType", "minNodes", "nodes", "region")} == {
        "machineType": fake_cloud.MACHINE_TYPE, "minNodes": 0, "nodes": 1, "region": fake_cloud.REGION}
    # The shared Kubernetes layer on its cluster: the GPU Operator as its record's profile says (driver and toolkit
    # on the node image), and Kueue's flavor selecting exactly its node by the labels the node carries.
    by_name = {r["name"]: r for r in document["resources"]}
    operator = by_name["third-k8s-gpu-operator-release"]["inputs"]["values"]
    assert (operator["driver"], operator["toolkit"], operator["devicePlugin"]) == (
        {"enabled": False}, {"enabled": False}, {"enabled": True})
    (flavor,) = [r for r in document["resources"] if r["type"].endswith(":ResourceFlavor")]
    assert flavor["inputs"]["spec"]["nodeLabels"].items() <= node["inputs"]["labels"].items()
    assert node["inputs"]["labels"][fake_cloud.POOL_LABEL] == node["name"]
    for figure in ("monthly_usd", "full_scale_monthly_usd", "run_total_usd"):  # plan = preview
        assert document["cost"][figure] == pytest.approx(planned["estimate"][figure], rel=1e-5, abs=0.05), figure
    assert document["cost"]["full_scale_monthly_usd"] == pytest.approx(fake_cloud.HOURLY_USD * 730, rel=1e-5)
    policies = document["policies"]
    assert len(policies["rules"]) >= 20
    assert [(v["policy"], v["resource"], v["level"]) for v in policies["violations"]] == [
        ("spot-outside-prod", node["name"], "advisory")]
    assert "runs h100-80gb on on-demand capacity" in policies["violations"][0]["message"]
    # `plan --stack --json` prints the plan the preview shows (and the lock's state beside it).
    stacked = _json_of(["plan", "--stack", STACK, "--json"], capsys)
    assert stacked.pop("lock")["state"] == "none" and stacked == planned


def test_the_policy_pack_counts_its_accelerators(third_cloud, tmp_path, capsys, monkeypatch):
    """Its 8 GPUs count against the environment's limit: at 4, the preview fails on its node (exit 1)."""
    project = _project(tmp_path)
    config_path = project / "policies" / "config" / "staging.json"
    config = json.loads(config_path.read_text())
    config["max-accelerators"]["maxAccelerators"] = 4
    config_path.write_text(json.dumps(config))
    monkeypatch.chdir(project)
    assert main(["preview", "--stack", STACK]) == 1
    captured = capsys.readouterr()
    assert "max-accelerators" in captured.out + captured.err and "8" in captured.out + captured.err


def test_check_and_plan_spec_on_it(third_cloud, tmp_path, capsys, monkeypatch):
    """`accelfit check` of its stack passes; `accelfit plan SPEC` of the same workload chooses the same option."""
    import yaml

    monkeypatch.chdir(_project(tmp_path))
    assert main(["check", f"stacks/{STACK_FILE.name}"]) == 0, capsys.readouterr().err
    assert "ok: stack file" in capsys.readouterr().out
    stacked = _json_of(["plan", "--stack", STACK, "--json"], capsys)
    spec = yaml.safe_load(STACK_FILE.read_text())["config"]["accelfit:workload"]
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    assert main(["check", "spec.yaml"]) == 0, capsys.readouterr().err
    assert "ok: workload spec" in capsys.readouterr().out
    alone = _json_of(["plan", "spec.yaml", "--json"], capsys)
    chosen = alone.get("plan", alone)
    assert (chosen["cloud"], chosen["option"]) == ("fakecloud", stacked["option"])
    assert chosen["estimate"]["run_total_usd"] == pytest.approx(stacked["estimate"]["run_total_usd"], rel=1e-6)


def test_its_region_key_takes_only_its_regions(third_cloud, tmp_path, capsys, monkeypatch):
    """`fakecloud:region` is its record's region key: another cloud's region there is refused (exit 2), naming
    the key, what the region is, and the fix."""
    monkeypatch.chdir(_project(tmp_path, ("fakecloud:region: fk-east1", "fakecloud:region: us-east1")))
    assert main(["check", f"stacks/{STACK_FILE.name}"]) == 2
    err = capsys.readouterr().err
    assert "config.fakecloud:region" in err and "not a FakeCloud region (us-east1 is a Google Cloud region)" in err
    assert "fakecloud:region: fk-east1" in err and "Traceback" not in err


def test_no_file_of_the_project_names_it():
    """What it needed from the project are the registry's fields and hooks: no source file names it."""
    names = ("fakecloud", "fake-gpu", fake_cloud.MACHINE_TYPE, fake_cloud.REGION)
    named = [str(path.relative_to(ROOT)) for package in ("accelfit", "components", "policies")
             for path in sorted((ROOT / package).rglob("*")) if path.suffix in (".py", ".yaml", ".json")
             and any(name in path.read_text(encoding="utf-8") for name in names)]
    assert named == []


def refuse_every_plan(plan, catalog) -> list:  # noqa: ANN001
    """A plan rule for the test below: FakeCloud refuses every plan (as a cloud's quota rule might)."""
    from accelfit.errors import problem

    return [problem("plan", "node_pools[0].max_nodes", "FakeCloud builds no nodes this week", "plan elsewhere",
                    plan.node_pools[0].max_nodes)]


def test_its_plan_rules_run_before_anything_is_built(tmp_path, capsys, monkeypatch):
    """Its record's `plan_check` is the rule `accelfit check` (and the build) runs on its plans: exit 2 naming it."""
    register(dataclasses.replace(fake_cloud.CLOUD, plan_check=f"{__name__}:refuse_every_plan"))
    try:
        monkeypatch.chdir(_project(tmp_path))
        assert main(["check", f"stacks/{STACK_FILE.name}"]) == 2
        err = capsys.readouterr().err
        assert "node_pools[0].max_nodes" in err and "FakeCloud builds no nodes this week" in err
        assert main(["preview", "--stack", STACK]) == 2
        assert "FakeCloud builds no nodes this week" in capsys.readouterr().err
    finally:
        unregister(fake_cloud.CLOUD.name)
