"""The generic paths that used to name the shipped clouds follow a third cloud's record (issue 35): each test
registers the fake cloud (tests/clouds/fake_cloud.py) or a variant of it and shows the path reading the record's
field instead of a list of gcp/aws or their platforms."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import ClassVar

import pytest

from accelfit.cli.main import main
from accelfit.clouds import register, unregister
from accelfit.preflight.errors import credentials_error
from accelfit.preflight.model import Needs, Observed, QuotaNeed, QuotaReading, ReservationNeed, ReservationReading
from tests.clouds import fake_cloud
from tests.clouds.test_third_cloud import STACK, _project


@pytest.fixture
def cloud_variant():
    """Register the fake cloud with some fields changed; unregistered after the test."""
    registered: list[str] = []

    def install(**changes: object) -> object:
        cloud = register(dataclasses.replace(fake_cloud.CLOUD, **changes))
        registered.append(cloud.name)
        return cloud

    yield install
    for name in registered:
        unregister(name)


# 1. Preflight: the reader, how to log in and how to ask for more are the class the record names.

class FakeReader:
    """A preflight reader for the fake cloud: every zone offers what is asked; the needs it read are kept."""

    read_needs: ClassVar[list[Needs]] = []

    @classmethod
    def for_needs(cls, needs: Needs) -> FakeReader:
        return cls()

    @staticmethod
    def login(profile: str = "") -> str:
        return f"run `fakecloud auth login{' --profile ' + profile if profile else ''}`"

    @staticmethod
    def quota_request(need: QuotaNeed, project: str, wanted: int) -> str:
        return f"fakecloud quotas raise {need.metric} --to {wanted} --region {need.region}"

    @staticmethod
    def reservation_request(res: ReservationNeed, wanted: int, project: str) -> str:
        return f"fakecloud reservations resize {res.name} --count {wanted}"

    def read(self, needs: Needs) -> Observed:
        FakeReader.read_needs.append(needs)
        from accelfit.preflight.model import zone_key

        return Observed(zones={zone_key(z.zone, z.machine_type): True for z in needs.zones})


class LockedOutReader(FakeReader):
    def read(self, needs: Needs) -> Observed:
        raise credentials_error("fakecloud", "no token in ~/.fakecloud", profile="ml")


def test_preflight_reads_it_with_the_reader_its_record_names(cloud_variant, tmp_path, capsys, monkeypatch):
    """`accelfit preflight --stack` builds the reader the record names for the stack's needs and compares its
    answer: the fake node's zone offering is read and fits (exit 0); its pool has no quota rules, said as a note."""
    cloud_variant(preflight_reader=f"{__name__}:FakeReader")
    monkeypatch.chdir(_project(tmp_path))
    FakeReader.read_needs.clear()
    assert main(["preflight", "--stack", STACK, "--json"]) == 0, capsys.readouterr().err
    document = json.loads(capsys.readouterr().out)
    (report,) = document["reports"]
    (needs,) = FakeReader.read_needs
    assert report["cloud"] == "fakecloud" and document["fits"]
    assert [(z.zone, z.machine_type) for z in needs.zones] == [(fake_cloud.REGION, fake_cloud.MACHINE_TYPE)]
    assert [(f["kind"], f["status"]) for f in report["findings"]] == [("zone", "ok")]
    assert any("no FakeCloud quota rules known for fk-h100-8; not checked" in note for note in report["notes"])


def test_a_cloud_without_a_reader_is_not_read(cloud_variant, tmp_path, capsys, monkeypatch):
    """The fake cloud as shipped names no reader: preflight has nothing to read (exit 0), as for owned servers."""
    cloud_variant()
    monkeypatch.chdir(_project(tmp_path))
    assert main(["preflight", "--stack", STACK]) == 0
    assert "nothing to check" in capsys.readouterr().out


def test_its_login_fix_comes_from_its_reader(cloud_variant, tmp_path, capsys, monkeypatch):
    """Credentials it refuses: exit 2, and the fix is how its reader says to log in (for the profile in use)."""
    cloud_variant(preflight_reader=f"{__name__}:LockedOutReader")
    monkeypatch.chdir(_project(tmp_path))
    assert main(["preflight", "--stack", STACK]) == 2
    err = capsys.readouterr().err
    assert "fakecloud credentials" in err and "no token in ~/.fakecloud" in err
    assert "run `fakecloud auth login --profile ml`" in err and "Traceback" not in err


def test_its_quota_and_reservation_requests_come_from_its_reader(cloud_variant):
    """A short quota or reservation names the request its reader writes, not GCP's console or the AWS CLI."""
    from accelfit.preflight.compare import compare
    from accelfit.preflight.model import quota_key, reservation_key

    cloud_variant(preflight_reader=f"{__name__}:FakeReader")
    quota = QuotaNeed(cloud="fakecloud", region=fake_cloud.REGION, metric="gpus-h100", label="H100 GPUs",
                      unit="gpus", amount=16, by_step=(("third/gpu", 16),))
    reservation = ReservationNeed(cloud="fakecloud", region=fake_cloud.REGION, zone="", name="res-1", instances=4,
                                  pools=("third/gpu",))
    observed = Observed(quotas={quota_key(fake_cloud.REGION, "gpus-h100"): QuotaReading(limit=8, usage=0,
                                                                                         source="fake")},
                        reservations={reservation_key("", "res-1"): ReservationReading(count=2, in_use=1)})
    report = compare(Needs(stack=STACK, quotas=(quota,), reservations=(reservation,)), observed, "fakecloud")
    requests = {f.kind: f.request for f in report.findings if f.status == "short"}
    assert requests == {"quota": f"fakecloud quotas raise gpus-h100 --to 16 --region {fake_cloud.REGION}",
                        "reservation": "fakecloud reservations resize res-1 --count 5"}


def test_the_shipped_readers_say_how_to_log_in_and_ask():
    """The shipped records' readers carry what preflight's tables used to: the same words for GCP and AWS."""
    from accelfit.preflight.readers import reader_class

    assert reader_class("gcp").login("ml") == ("run `gcloud auth application-default login` (or set "
                                               "GOOGLE_APPLICATION_CREDENTIALS to a key file)")
    assert reader_class("aws").login() == "run `aws sso login --profile NAME` (then AWS_PROFILE=NAME) or `aws configure`"
    assert "--profile ml" in reader_class("aws").login("ml")
    with pytest.raises(ValueError, match="'onprem' has no preflight reader"):
        reader_class("onprem")


# 2. `accelfit catalog --cloud`: the registered clouds with catalog rows of their own.

def test_catalog_lists_it_under_cloud(cloud_variant, capsys):
    """Registered, its name is a --cloud choice (the help lists it) and filters to its own rows."""
    cloud_variant()
    assert main(["catalog", "--help"]) == 0
    assert "--cloud [gcp|aws|fakecloud]" in capsys.readouterr().out
    document = _json_of(["catalog", "--cloud", "fakecloud", "--json"], capsys)
    assert document["filters"]["cloud"] == "fakecloud"
    assert [(row["cloud"], row["name"]) for row in document["instance_types"]] == [
        ("fakecloud", fake_cloud.MACHINE_TYPE)]
    assert [price["hourly_usd"] for price in document["instance_types"][0]["prices"]] == [fake_cloud.HOURLY_USD]


def test_catalog_refuses_a_cloud_without_rows(cloud_variant, capsys):
    """A cloud whose record lists no catalog files (as owned servers) is no --cloud choice: exit 2 naming the
    choices; neither is a cloud that is not registered."""
    cloud_variant(catalog_files=(), catalog_dir=None)
    assert main(["catalog", "--cloud", "fakecloud"]) == 2
    assert "'fakecloud' is not one of 'gcp', 'aws'" in capsys.readouterr().err
    assert main(["catalog", "--cloud", "onprem"]) == 2
    assert "'onprem' is not one of 'gcp', 'aws'" in capsys.readouterr().err


def test_catalog_forgets_it_when_unregistered(capsys):
    assert main(["catalog", "--cloud", "fakecloud"]) == 2
    assert "'fakecloud' is not one of 'gcp', 'aws'." in capsys.readouterr().err


def _json_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(args) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


# 3. Cluster platforms: the records' cluster platforms, their system pool and the word for their clusters.

FLEET_STACK = "fakecloud-fleet"


def _fleet_project(tmp_path: Path) -> Path:
    """A fleet of two fake-cloud workloads in its one region (both training on its cluster platform)."""
    import yaml

    project = _project(tmp_path)
    single = yaml.safe_load((project / "stacks" / f"Pulumi.{STACK}.yaml").read_text())["config"]
    workload = single.pop("accelfit:workload")
    second = {**workload, "name": "fourth", "training": {**workload["training"], "tokens": "10B"}}
    config = {**single, "accelfit:fleet": "fk-fleet", "accelfit:workloads": [workload, second]}
    (project / "stacks" / f"Pulumi.{FLEET_STACK}.yaml").write_text(yaml.safe_dump({"config": config}))
    return project


def test_its_cluster_platform_is_a_cluster_platform(cloud_variant):
    from accelfit.clouds import is_cluster_platform

    assert [is_cluster_platform(p) for p in ("gke-gpu", "gke-tpu", "eks-gpu", "tpu-vm", "gce-gpu-vm",
                                             "baremetal-gpu")] == [True, True, True, False, False, False]
    assert not is_cluster_platform("fake-gpu")  # not registered yet
    cloud_variant()
    assert is_cluster_platform("fake-gpu")


def test_with_a_system_pool_its_workloads_share_one_fleet_cluster(cloud_variant, tmp_path, capsys, monkeypatch):
    """A variant whose record has a system pool and names its clusters: the fleet's two workloads join one shared
    cluster of its kind, which builds the record's system pool once and prices it as the record says."""
    cloud_variant(system_pool_machine=fake_cloud.MACHINE_TYPE, cluster_kind="fks",
                  shared_cluster_parts=("FakeCloud control plane", "system pool"))
    monkeypatch.chdir(_fleet_project(tmp_path))
    fleet = _json_of(["plan", "--stack", FLEET_STACK, "--json"], capsys)
    (cluster,) = fleet["clusters"]
    assert (cluster["name"], cluster["cloud"], cluster["platform"], cluster["workloads"]) == (
        "fk-fleet", "fakecloud", "fks", ["third", "fourth"])
    assert cluster["system_pool"]["machine_type"] == fake_cloud.MACHINE_TYPE
    assert cluster["shared"] == ["FakeCloud control plane", "system pool"]
    assert [line["item"] for line in cluster["breakdown"]] == ["system", "nat"]  # no control-plane fee service
    assert [member["cluster"] for member in fleet["workloads"]] == ["fk-fleet", "fk-fleet"]
    assert fleet["workloads"][0]["placement"].startswith("cluster fk-fleet (FKS in fakecloud fk-east1)")
    for member in fleet["workloads"]:  # each plan carries the system pool a single stack would build
        assert member["plan"]["node_pools"][0]["role"] == "system"


def test_without_a_system_pool_each_workload_gets_its_own_cluster(cloud_variant, tmp_path, capsys, monkeypatch):
    """The fake cloud as it is (no system pool: a shared cluster would have none to build, and the plan's schema
    requires one): each workload runs in a cluster of its own, said in words, and no cluster costs are made up."""
    cloud_variant()
    monkeypatch.chdir(_fleet_project(tmp_path))
    fleet = _json_of(["plan", "--stack", FLEET_STACK, "--json"], capsys)
    assert fleet["clusters"] == [] and [member["cluster"] for member in fleet["workloads"]] == [None, None]
    assert fleet["workloads"][0]["placement"] == (
        f"its own cluster third (FAKE-GPU in fakecloud {fake_cloud.REGION}): FakeCloud clusters build no system "
        "pool, which a shared cluster holds once")
    plan = fleet["workloads"][0]["plan"]
    assert [pool["role"] for pool in plan["node_pools"]] == ["gpu"]
    assert {line["item"] for line in plan["estimate"]["breakdown"]} & {"system", "cluster"} == set()


# 4. Platform-string branches: what the plan says and sizes by the record's fields.

def _fake_plan():  # noqa: ANN202
    from accelfit.catalog import load_catalog
    from accelfit.planner.planner import plan
    from tests.clouds.test_third_cloud import _spec

    return plan(_spec(), load_catalog())


def test_the_quota_reason_names_the_quota_its_record_names(cloud_variant):
    """A plan on a cloud's GPU cluster platform says which quota it counts against: the record's `gpu_quota`;
    a record that names none gets no such sentence (the fake cloud as it is)."""
    cloud_variant()
    assert not any(reason.startswith("Quota:") for reason in _fake_plan().reasons)
    unregister(fake_cloud.CLOUD.name)
    cloud_variant(gpu_quota="FakeCloud's regional GPU quota")
    (quota,) = [reason for reason in _fake_plan().reasons if reason.startswith("Quota:")]
    assert quota == ("Quota: 8 × h100-80gb (208 vCPUs) count against FakeCloud's regional GPU quota; check it "
                     "before `pulumi up` and request the difference if it is lower.")


def test_the_unit_word_follows_the_record(cloud_variant):
    """How a plan counts its units: from the platform's record (TPU platform, owned, VM platform, else nodes)."""
    from accelfit.planner.lock import unit_word

    assert [unit_word(p, 2) for p in ("gke-tpu", "tpu-vm", "baremetal-gpu", "gce-gpu-vm", "ec2-gpu-vm", "gke-gpu",
                                      "eks-gpu")] == ["2 slices", "2 slices", "2 servers", "2 VMs", "2 VMs",
                                                      "2 nodes", "2 nodes"]
    cloud_variant()
    assert unit_word("fake-gpu", 1) == "1 node"
    unregister(fake_cloud.CLOUD.name)
    cloud_variant(vm_platform="fake-gpu")
    assert unit_word("fake-gpu", 3) == "3 VMs"


def test_the_pods_range_is_sized_where_the_record_fixes_it(cloud_variant):
    """A GPU cluster whose record says its pods range is fixed at creation gets one sized for its nodes."""
    from types import SimpleNamespace

    from accelfit.planner.build import network_plan
    from accelfit.planner.model import NetworkPlan
    from tests.clouds.test_third_cloud import _spec

    big = SimpleNamespace(offer=SimpleNamespace(cloud="fakecloud", platform="fake-gpu", instance=None), units=2000)
    cloud_variant()
    assert network_plan(_spec(), big).pods_cidr == NetworkPlan().pods_cidr  # the default
    unregister(fake_cloud.CLOUD.name)
    cloud_variant(pods_range_fixed_at_creation=True)
    assert network_plan(_spec(), big).pods_cidr == "10.128.0.0/13"


def test_capacity_groups_follow_the_record(cloud_variant):
    """Whether the cloud's autoscaler moves work between a workload's pools, and by which node label, is its
    record's `capacity_groups`."""
    from accelfit.planner.fleet.capacity_groups import (EKS_CAPACITY_GROUP_LABEL, GKE_COMPUTE_CLASS_LABEL,
                                                        node_label_key, why_not_grouped)

    cloud_variant()
    chosen = _fake_plan()
    (pool,) = chosen.node_pools
    assert why_not_grouped(chosen, pool) == "fake-gpu has no cluster autoscaler choosing between pools"
    for mechanism, label in (("node-label", EKS_CAPACITY_GROUP_LABEL), ("compute-class", GKE_COMPUTE_CLASS_LABEL)):
        unregister(fake_cloud.CLOUD.name)
        cloud_variant(capacity_groups=mechanism)
        assert why_not_grouped(chosen, pool) is None and node_label_key(chosen) == label


def test_tpu_candidates_come_from_the_record_with_tpu_platforms(cloud_variant):
    """TPU slices are offered on each allowed cloud whose record sells TPUs, on its tpu_platforms, tagged with its
    name (was: always gcp, gke-tpu/tpu-vm). A variant that claims TPUs on its cluster platform is searched there
    (and finds no zone for them in its catalog); the shipped GCP still gets every TPU offer."""
    from accelfit.catalog import load_catalog
    from accelfit.planner.candidates import OfferSet, _tpu_offers
    from accelfit.spec import WorkloadSpec

    cloud_variant(tpu_platforms=("fake-gpu",), unsupported=())
    spec = WorkloadSpec.model_validate(dict(
        name="tpus", kind="training", framework="jax", model={"parameters": "7B"},
        training={"tokens": "20B", "deadline_days": 10},
        placement={"orchestration": "kubernetes", "clouds": ["fakecloud", "gcp"]}))
    found = OfferSet()
    _tpu_offers(spec, load_catalog(), found, "on-demand")
    fake = [r for r in found.rejected if r.platform == "fake-gpu"]
    assert fake and {r.rule for r in fake} == {"no-availability"}
    assert found.offers and {(o.cloud, o.platform) for o in found.offers} == {("gcp", "gke-tpu")}


def test_the_tie_break_order_places_its_platform_by_its_kind(cloud_variant):
    """The documented order (owned, TPU, GPU clusters, GPU VMs) is read from the records: the shipped platforms as
    documented, the fake cloud's GPU cluster platform after the shipped clusters and before the VMs, and gone again
    once it is unregistered."""
    from accelfit.planner.choose import _platform_rank
    from accelfit.planner.preferences import platform_order

    shipped = ("baremetal-gpu", "gke-tpu", "tpu-vm", "gke-gpu", "eks-gpu", "gce-gpu-vm", "ec2-gpu-vm")
    assert platform_order() == shipped
    cloud_variant()
    assert platform_order() == (*shipped[:5], "fake-gpu", *shipped[5:])
    assert _platform_rank("eks-gpu") < _platform_rank("fake-gpu") < _platform_rank("gce-gpu-vm")
    unregister(fake_cloud.CLOUD.name)
    assert platform_order() == shipped
    cloud_variant(vm_platform="fake-gpu", cluster_platform="")
    assert platform_order() == (*shipped, "fake-gpu")


def test_a_platform_without_a_cluster_plans_on_vms(cloud_variant):
    """The plan's orchestration: vms on every cloud platform that is not a cluster platform (its record's), else
    kubernetes; owned servers run Kubernetes."""
    from accelfit.planner.planner import runs_on_vms

    assert [runs_on_vms(p) for p in ("tpu-vm", "gce-gpu-vm", "ec2-gpu-vm", "gke-gpu", "gke-tpu", "eks-gpu",
                                     "baremetal-gpu")] == [True, True, True, False, False, False, False]
    cloud_variant()
    assert not runs_on_vms("fake-gpu")
    unregister(fake_cloud.CLOUD.name)
    cloud_variant(cluster_platform="", vm_platform="fake-gpu")
    assert runs_on_vms("fake-gpu")


def test_the_catalog_cloud_choice_is_the_registrys_and_cannot_be_fixed():
    """click.Choice assigns its choices once, empty; after that the registry answers, and a fixed list given later
    is refused rather than silently ignored."""
    import pytest

    from accelfit.cli.catalog_command import _CloudWithCatalog

    choice = _CloudWithCatalog()
    assert choice.choices == ("gcp", "aws")
    with pytest.raises(AttributeError, match="registry"):
        choice.choices = ("gcp",)
