"""Several workloads on one shared cluster (issue 17): recorded under mocks, asserting on the resources and their
inputs. One GKE (or EKS) cluster, network and NAT built once with the fleet's name; each workload's pools (planned
and standby, scaled from 0), bucket, identity, flavors, ClusterQueue (all in one cohort) and LocalQueue."""

from __future__ import annotations

from collections import Counter

import pytest

import fleet_plans
from fleet_plans import FLEET

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def gke():
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(
        eligible={"jax-pretrain": {"tpu-v5e"}, "chat-serve": {"l4", "tpu-v5e"}}))
    assert error is None, error
    return recording


def of_type(recording, kind):
    return [item for item in recording.resources if item.type == kind]


def test_one_gke_cluster_network_and_nat_named_after_the_fleet(gke):
    assert gke.duplicate_urns == []
    [cluster] = of_type(gke, "gcp:container/cluster:Cluster")
    assert cluster.name == f"{FLEET}-gke-cluster" and cluster.inputs["name"] == f"{FLEET}-gke"
    assert cluster.inputs["resourceLabels"]["workload"] == f"{FLEET}-shared"
    assert [item.name for item in of_type(gke, "gcp:compute/routerNat:RouterNat")] == [f"{FLEET}-net-nat"]
    assert [item.name for item in of_type(gke, "gcp:compute/network:Network")] == [f"{FLEET}-net-vpc"]
    assert len(of_type(gke, "accelfit:gcp:ProjectServices")) == 1
    assert len(of_type(gke, "pulumi:providers:kubernetes")) == 1
    # The training workload holds upgrades off the shared cluster's nodes.
    exclusions = cluster.inputs["maintenancePolicy"]["maintenanceExclusions"]
    assert [item["exclusionOptions"]["scope"] for item in exclusions] == ["NO_MINOR_OR_NODE_UPGRADES"]
    releases = Counter(item.inputs["chart"] for item in of_type(gke, "kubernetes:helm.sh/v3:Release"))
    assert all(count == 1 for count in releases.values()), releases


def test_both_workloads_pools_in_the_one_cluster_standby_from_zero(gke):
    pools = {item.inputs["name"]: item.inputs for item in of_type(gke, "gcp:container/nodePool:NodePool")}
    assert set(pools) == {f"{FLEET}-gke-system", "jax-pretrain-tpu", "jax-pretrain-tpu-fb1", "chat-serve-gpu",
                          "chat-serve-gpu-fb1"}
    assert {inputs["cluster"] for inputs in pools.values()} == {f"{FLEET}-gke-cluster-id"}
    assert pools["jax-pretrain-tpu"]["nodeConfig"]["machineType"] == "ct5lp-hightpu-4t"
    assert pools["chat-serve-gpu"]["nodeConfig"]["guestAccelerators"][0]["type"] == "nvidia-l4"
    for standby in ("jax-pretrain-tpu-fb1", "chat-serve-gpu-fb1"):
        assert pools[standby]["initialNodeCount"] == 0 and pools[standby]["nodeConfig"]["spot"] is True
    assert pools["chat-serve-gpu-fb1"]["autoscaling"]["totalMinNodeCount"] == 0
    assert pools["chat-serve-gpu"]["nodeConfig"]["resourceLabels"]["workload"] == "chat-serve"
    assert pools[f"{FLEET}-gke-system"]["nodeConfig"]["resourceLabels"]["workload"] == f"{FLEET}-shared"


def test_each_workload_its_own_bucket_identity_and_group(gke):
    buckets = {item.name: item.inputs for item in of_type(gke, "gcp:storage/bucket:Bucket")}
    assert set(buckets) == {"jax-pretrain-data-bucket", "chat-serve-data-bucket"}
    assert buckets["chat-serve-data-bucket"]["labels"]["workload"] == "chat-serve"
    members = {item.inputs["member"] for item in of_type(gke, "gcp:serviceaccount/iAMMember:IAMMember")}
    assert members == {"serviceAccount:acme-ml-examples.svc.id.goog[jax-pretrain/jax-pretrain]",
                       "serviceAccount:acme-ml-examples.svc.id.goog[chat-serve/chat-serve]"}
    groups = {item.name: item for item in gke.resources if item.type.startswith("accelfit:fleet:")}
    assert {(item.type, name) for name, item in groups.items()} == {
        ("accelfit:fleet:SharedCluster", FLEET), ("accelfit:fleet:Workload", "jax-pretrain"),
        ("accelfit:fleet:Workload", "chat-serve")}
    parents = {item.name: item.parent_name for item in gke.resources}
    assert parents["chat-serve-gpu"] == "chat-serve" and parents[f"{FLEET}-gke"] == FLEET
    assert parents["chat-serve-ksa"] == "chat-serve" and parents[f"{FLEET}-k8s"] == FLEET


def test_a_flavor_per_pool_and_a_cluster_queue_per_workload_in_one_cohort(gke):
    flavors = {item.inputs["metadata"]["name"]: item.inputs for item in of_type(gke, KUEUE + "ResourceFlavor")}
    assert set(flavors) == {"jax-pretrain-tpu", "jax-pretrain-tpu-fb1", "chat-serve-gpu", "chat-serve-gpu-fb1"}
    assert flavors["chat-serve-gpu"]["spec"]["nodeLabels"]["cloud.google.com/gke-nodepool"] == "chat-serve-gpu"
    assert flavors["chat-serve-gpu"]["metadata"]["labels"]["accelfit.io/workload"] == "chat-serve"
    queues = {item.inputs["metadata"]["name"]: item.inputs["spec"] for item in of_type(gke, KUEUE + "ClusterQueue")}
    assert set(queues) == {"jax-pretrain", "chat-serve"}
    assert {spec["cohortName"] for spec in queues.values()} == {FLEET}
    assert all(spec["preemption"]["reclaimWithinCohort"] == "Any" for spec in queues.values())

    def listed(queue):
        [group] = queues[queue]["resourceGroups"]
        return [(flavor["name"], {r["name"]: r["nominalQuota"] for r in flavor["resources"]})
                for flavor in group["flavors"]]

    # Own flavors first in fallback order with the pools' quota; then the eligible ones it may borrow, at 0.
    serve = listed("chat-serve")
    assert [name for name, _ in serve] == ["chat-serve-gpu", "chat-serve-gpu-fb1", "jax-pretrain-tpu",
                                           "jax-pretrain-tpu-fb1"]
    assert serve[0][1]["nvidia.com/gpu"] == "8" and serve[0][1]["google.com/tpu"] == "0"
    assert all(set(quota.values()) == {"0"} for _, quota in serve[2:])
    # jax-pretrain is eligible only for TPU v5e: it borrows no GPU pool.
    assert [name for name, _ in listed("jax-pretrain")] == ["jax-pretrain-tpu", "jax-pretrain-tpu-fb1"]
    local = {item.inputs["metadata"]["namespace"]: item.inputs["spec"] for item in of_type(gke, KUEUE + "LocalQueue")}
    assert local == {"jax-pretrain": {"clusterQueue": "jax-pretrain"}, "chat-serve": {"clusterQueue": "chat-serve"}}
    namespaces = {item.inputs["metadata"]["name"]: item.inputs["metadata"]["labels"]
                  for item in of_type(gke, "kubernetes:core/v1:Namespace")}
    assert namespaces["chat-serve"]["accelfit.io/cluster-queue"] == "chat-serve"


def test_a_validation_failure_in_the_second_workload_creates_nothing():
    broken = fleet_plans.gpu_serving()
    broken = broken.model_copy(update={"node_pools": tuple(
        pool.model_copy(update={"machine_type": "g2-standard-999"}) if pool.role == "gpu" else pool
        for pool in broken.node_pools)})
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(fleet_plans.tpu_pretrain(), broken))
    assert error is not None
    assert any(item.field.startswith("workloads[1].node_pools[1].machine_type") for item in error.problems), \
        [item.render() for item in error.problems]
    assert recording.resources == []


def test_a_second_region_or_a_name_clash_is_refused_before_anything_exists():
    other = fleet_plans.gpu_serving(region="us-central1", zones=("us-central1-a",))
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(fleet_plans.tpu_pretrain(), other))
    assert error is not None and recording.resources == []
    assert any(item.field == "workloads[1].region" for item in error.problems)
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(fleet=fleet_plans.tpu_pretrain().workload))
    assert error is not None and recording.resources == []
    assert any(item.field == "fleet" for item in error.problems)


def test_a_fleet_name_kueue_cannot_use_as_a_cohort_is_refused():
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(fleet="ml_fleet"))
    assert error is not None and recording.resources == []
    assert any(item.field == "accelfit:fleet" and "RFC 1123" in item.message for item in error.problems)


def test_eks_two_workload_fleet_shares_one_cluster():
    recording, error = fleet_plans.record_cluster(fleet_plans.aws_cluster(), config=fleet_plans.aws_config())
    assert error is None, error
    assert recording.duplicate_urns == []
    [cluster] = of_type(recording, "aws:eks/cluster:Cluster")
    assert cluster.name.startswith(f"{FLEET}-cluster") and cluster.inputs["tags"]["workload"] == f"{FLEET}-shared"
    groups = {item.name: item.inputs for item in of_type(recording, "aws:eks/nodeGroup:NodeGroup")}
    assert set(groups) == {f"{FLEET}-pool-system-ng", "llm-pretrain-pool-gpu-ng", "chat-serve-pool-gpu-ng"}
    assert groups["chat-serve-pool-gpu-ng"]["tags"]["workload"] == "chat-serve"
    assert groups[f"{FLEET}-pool-system-ng"]["tags"]["workload"] == f"{FLEET}-shared"
    assert len({inputs["clusterName"] for inputs in groups.values()}) == 1
    agents = [item for item in of_type(recording, "aws:eks/addon:Addon")
              if item.inputs["addonName"] == "eks-pod-identity-agent"]
    assert len(agents) == 1  # one add-on per cluster, shared by every workload's role
    associations = {item.inputs["namespace"] for item in of_type(recording, "aws:eks/podIdentityAssociation:"
                                                                 "PodIdentityAssociation")}
    assert {"llm-pretrain", "chat-serve"} <= associations
    assert len(of_type(recording, "aws:ec2/natGateway:NatGateway")) == len(
        {zone for plan in fleet_plans.aws_cluster().plans for zone in plan.zones})
    queues = {item.inputs["metadata"]["name"]: item.inputs["spec"]
              for item in of_type(recording, KUEUE + "ClusterQueue")}
    assert set(queues) == {"llm-pretrain", "chat-serve"}
    assert {spec["cohortName"] for spec in queues.values()} == {FLEET}
    releases = Counter(item.inputs["chart"] for item in of_type(recording, "kubernetes:helm.sh/v3:Release"))
    assert all(count == 1 for count in releases.values()), releases


def test_a_bad_workload_built_alone_stops_the_fleet_before_its_cluster_exists():
    """A fleet's TPU VM workload (built alone) with a slice in a zone outside its region: refused with the shared
    cluster's resources not created either."""
    from accelfit.catalog import load_catalog
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.build import build_fleet

    import gcp_plans

    cluster = fleet_plans.gcp_cluster()
    vm = gcp_plans.tpu_jax_pretrain()
    bad = vm.model_copy(update={"workload": "vm-train", "environment": "dev", "tpu_vm_slices": tuple(
        item.model_copy(update={"zone": "europe-west4-a"}) for item in vm.tpu_vm_slices)})

    class Member:
        def __init__(self, plan, cluster_name):
            self.name, self.plan, self.cluster = plan.workload, plan, cluster_name
            self.eligible_accelerators = (plan.accelerator.name,)

    class Shared:
        name, network, zones, system_pool = FLEET, None, (), None

    class Fleet:
        name = FLEET
        clusters = (Shared(),)
        workloads = (*(Member(plan, FLEET) for plan in cluster.plans), Member(bad, None))

    caught = []

    def program():
        try:
            build_fleet(Fleet(), fleet_plans.ownership(FLEET), load_catalog())
        except InputError as error:
            caught.append(error)

    recording = record(program, config={"gcp:project": gcp_plans.PROJECT})
    assert caught and recording.resources == []
    assert any(item.field.startswith("workloads[2].tpu_vm_slices[0].zone") for item in caught[0].problems), \
        [item.render() for item in caught[0].problems]


def test_long_fleet_and_workload_names_fit_every_gke_name_limit():
    """gke_rules.yaml name limits with the fleet's names: a 37-character fleet name (the longest the stack form
    accepts) and long workload names still give valid physical names (shortened with a stable hash)."""
    from accelfit.cloudrules.gcp.rules import gcp_rules

    fleet = "platform-team-ml-fleet-production-x01"
    assert len(fleet) == 37
    plans = (fleet_plans.tpu_pretrain(workload="pretraining-workload-for-the-big-model"),
             fleet_plans.gpu_serving(workload="serving-workload-for-the-chat-frontend"))
    recording, error = fleet_plans.record_cluster(fleet_plans.gcp_cluster(*plans, fleet=fleet))
    assert error is None, error
    limits = {row.resource: row.max_length for row in gcp_rules().name_limits}
    kinds = {"gcp:container/cluster:Cluster": "container_cluster", "gcp:container/nodePool:NodePool":
             "container_node_pool", "gcp:compute/firewall:Firewall": "compute_firewall",
             "gcp:compute/network:Network": "compute_network", "gcp:compute/subnetwork:Subnetwork":
             "compute_subnetwork", "gcp:compute/router:Router": "compute_router",
             "gcp:compute/routerNat:RouterNat": "compute_router_nat"}
    checked = 0
    for item in recording.resources:
        if item.type in kinds:
            assert len(item.inputs["name"]) <= limits[kinds[item.type]], (item.type, item.inputs["name"])
            checked += 1
        if item.type == "gcp:serviceaccount/account:Account":
            assert 6 <= len(item.inputs["accountId"]) <= limits["iam_service_account_id"], item.inputs["accountId"]
    pools = [item.inputs["name"] for item in recording.resources if item.type == "gcp:container/nodePool:NodePool"]
    assert len(pools) == len(set(pools)) == 5 and checked > 10
