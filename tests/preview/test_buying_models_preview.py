"""Each way of buying capacity (issue 25), end to end: a spec plans on it, priced with sources, and the offline
preview records the resources that buy it that way, priced exactly as the plan prices them (plan = preview).

- a named GCP reservation: the GKE pool consumes it by name (SPECIFIC_RESERVATION with the key
  compute.googleapis.com/reservation-name, https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations);
  its machines are already paid, so they add $0;
- DWS flex-start: the GKE pool sets node_config.flex_start, starts at 0 nodes, no auto-repair, no reservation
  (cluster-toolkit gke-node-pool, xpk capacity.py); priced at the flex-start row;
- an AWS Capacity Block: the EKS node group has capacity type CAPACITY_BLOCK and no instance types, its launch
  template names the type, market type capacity-block and the block's reservation id
  (https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html); priced for the whole block;
- an AWS On-Demand Capacity Reservation: the launch template targets the reservation id; already paid.
"""

from __future__ import annotations

from accelfit.preview.run import preview_stack

from test_cost_agreement import figures_agree
from test_preview_stack import project_copy

GKE = "example-gcp-gke-h100-training"
EKS = "example-aws-h100-training"
ALLOW = "      accelerators: [h100-80gb]"


def _preview(tmp_path, stack: str, pricing: str, extra: tuple[str, str] | None = None) -> dict:
    project_copy(tmp_path, stack, ("      pricing: on-demand", f"      pricing: {pricing}"))
    if extra is not None:
        path = tmp_path / "stacks" / f"Pulumi.{stack}.yaml"
        text = path.read_text()
        assert extra[0] in text
        path.write_text(text.replace(extra[0], extra[1]))
    return preview_stack(stack, tmp_path).document


def _resource(document: dict, kind: str, name_part: str) -> dict:
    (found,) = [row for row in document["resources"] if row["type"] == kind and name_part in row["name"]]
    return found


def test_a_named_gcp_reservation_is_consumed_by_name_and_priced_as_already_paid(tmp_path):
    document = _preview(tmp_path, GKE, "reservation", (ALLOW, ALLOW + "\n      reservations: [{name: h100-res, "
                                                              "zone: us-central1-a, instance_type: a3-highgpu-8g, count: 16}]"))
    plan = document["plan"]
    assert plan["pricing"] == "reservation" and plan["zones"] == ["us-central1-a"]
    assert any("reservation h100-res is capacity the team already holds" in reason and "sunk cost" in reason
               and "on-demand equivalent is $87.83/instance-hour" in reason for reason in plan["reasons"])
    pool = _resource(document, "gcp:container/nodePool:NodePool", "-gpu-pool")
    assert pool["inputs"]["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": ["h100-res"]}
    assert pool["inputs"]["nodeLocations"] == ["us-central1-a"] and not pool["inputs"]["nodeConfig"]["spot"]
    assert "reservation h100-res: already paid, $0 here" in pool["cost_basis"]
    # Only the nodes' boot disks bill: far below the same nodes on demand.
    assert pool["run_usd"] < 100
    figures_agree(document)


def test_a_flex_start_plan_builds_a_flex_start_pool_priced_at_the_flex_start_row(tmp_path):
    # Flex-start capacity runs at most 7 days: a 6-day deadline keeps the run inside it.
    document = _preview(tmp_path, GKE, "flex-start", ("      deadline_days: 21", "      deadline_days: 6"))
    plan = document["plan"]
    assert plan["pricing"] == "flex-start"
    assert any(reason.startswith("Price: $87.83/instance-hour flex-start in us-central1")
               and "about-flex-start-vms" in reason for reason in plan["reasons"])
    assert any(warning.startswith("flex-start: GKE creates the nodes when DWS finds capacity")
               for warning in plan["warnings"])
    pool = _resource(document, "gcp:container/nodePool:NodePool", "-gpu-pool")
    inputs = pool["inputs"]
    assert inputs["nodeConfig"]["flexStart"] is True and not inputs["nodeConfig"]["spot"]
    assert inputs["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert inputs["initialNodeCount"] == 0 and inputs["management"]["autoRepair"] is False
    assert "flex-start $87.83/instance-hour" in pool["cost_basis"]
    # A multi-node flex-start pool is queued, and a queued GPU pool takes no compact placement (issue 33; xpk
    # src/xpk/core/nodepool.py, Cluster Toolkit modules/compute/gke-node-pool/main.tf: data/flex_start.yaml).
    assert inputs["queuedProvisioning"] == {"enabled": True} and not inputs.get("placementPolicy")
    figures_agree(document)


def test_flex_start_sizes_the_stacks_own_deadline_into_seven_days_on_more_nodes(tmp_path):
    """Issue 33: at the stack's 21-day deadline the run fits on fewer nodes over more than 7 days; on flex-start the
    search grows the node count until the run fits in flex-start's 7 days, instead of refusing."""
    document = _preview(tmp_path, GKE, "flex-start")
    plan = document["plan"]
    assert plan["pricing"] == "flex-start" and plan["estimate"]["hours"] <= 7 * 24
    pool = _resource(document, "gcp:container/nodePool:NodePool", "-gpu-pool")
    assert pool["inputs"]["autoscaling"]["totalMaxNodeCount"] == plan["accelerator"]["nodes"] > 4
    assert pool["inputs"]["queuedProvisioning"] == {"enabled": True} and not pool["inputs"].get("placementPolicy")
    figures_agree(document)


BLOCK = ALLOW + ("\n      reservations: [{name: cr-0123456789abcdef0, zone: us-east-1a, instance_type: p5.48xlarge, "
                 "count: 32, capacity_block: true}]")


def test_a_capacity_block_plan_launches_into_the_block_and_pays_for_the_whole_block(tmp_path):
    document = _preview(tmp_path, EKS, "capacity-block", (ALLOW, BLOCK))
    plan = document["plan"]
    assert plan["pricing"] == "capacity-block" and plan["zones"][0] == "us-east-1a"
    assert any(reason.startswith("Price: $41.53/instance-hour capacity-block in us-east-1")
               and "capacityblocks/pricing" in reason for reason in plan["reasons"])
    group = _resource(document, "aws:eks/nodeGroup:NodeGroup", "-gpu-ng")
    template = _resource(document, "aws:ec2/launchTemplate:LaunchTemplate", "-gpu-lt")
    assert group["inputs"]["capacityType"] == "CAPACITY_BLOCK" and not group["inputs"].get("instanceTypes")
    assert template["inputs"]["instanceType"] == "p5.48xlarge"
    assert template["inputs"]["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["inputs"]["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}
    assert not template["inputs"].get("placement")  # a block needs no cluster placement group
    # The run takes 11.8 days: a 12-day block, every hour of it, at the block rate.
    assert "12-day block" in group["cost_basis"]
    nodes = group["inputs"]["scalingConfig"]["maxSize"]
    assert group["run_usd"] > nodes * 41.528 * 12 * 24
    figures_agree(document)


def test_an_on_demand_capacity_reservation_is_targeted_by_id_and_already_paid(tmp_path):
    document = _preview(tmp_path, EKS, "reservation", (ALLOW, ALLOW + (
        "\n      reservations: [{name: cr-0123456789abcdef1, zone: us-east-1b, instance_type: p5.48xlarge, "
        "count: 32}]")))
    group = _resource(document, "aws:eks/nodeGroup:NodeGroup", "-gpu-ng")
    template = _resource(document, "aws:ec2/launchTemplate:LaunchTemplate", "-gpu-lt")
    assert group["inputs"]["capacityType"] == "ON_DEMAND" and group["inputs"]["instanceTypes"] == ["p5.48xlarge"]
    assert template["inputs"]["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef1"}}
    assert not template["inputs"].get("instanceMarketOptions")
    assert document["plan"]["zones"][0] == "us-east-1b"
    assert "reservation cr-0123456789abcdef1: already paid, $0 here" in group["cost_basis"]
    figures_agree(document)


# ---- a standby step never consumes the planned reservation (issue 33) ------------------------------------------------
# With budget.pricing [reservation, on-demand] the on-demand standby pool is where jobs go when the reservation is full:
# if it also consumed the reservation, it would never get a node then. GKE: NO_RESERVATION, "Do not consume from any
# reserved capacity" (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig#reservationaffinity);
# EC2: capacity reservation preference `none`, "The instance avoids running in a Capacity Reservation even if one is
# available" (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_LaunchTemplateCapacityReservationSpecificationRequest.html).

def test_the_gke_on_demand_standby_pool_never_consumes_the_planned_reservation(tmp_path):
    document = _preview(tmp_path, GKE, "[reservation, on-demand]", (ALLOW, ALLOW + (
        "\n      reservations: [{name: h100-res, zone: us-central1-a, instance_type: a3-highgpu-8g, count: 16}]")))
    planned = _resource(document, "gcp:container/nodePool:NodePool", "-gpu-pool")
    standby = _resource(document, "gcp:container/nodePool:NodePool", "-gpu-fb2-pool")
    assert planned["inputs"]["nodeConfig"]["reservationAffinity"]["values"] == ["h100-res"]
    assert standby["inputs"]["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert "reservation" not in standby["cost_basis"]  # priced on demand, as the plan's on-demand step
    figures_agree(document)


def test_the_eks_on_demand_standby_node_group_never_launches_into_the_planned_reservation(tmp_path):
    document = _preview(tmp_path, EKS, "[reservation, on-demand]", (ALLOW, ALLOW + (
        "\n      reservations: [{name: cr-0123456789abcdef1, zone: us-east-1b, instance_type: p5.48xlarge, "
        "count: 32}]")))
    planned = _resource(document, "aws:ec2/launchTemplate:LaunchTemplate", "-gpu-lt")
    standby = _resource(document, "aws:ec2/launchTemplate:LaunchTemplate", "-gpu-fb2-lt")
    assert planned["inputs"]["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef1"}}
    assert standby["inputs"]["capacityReservationSpecification"] == {"capacityReservationPreference": "none"}
    group = _resource(document, "aws:eks/nodeGroup:NodeGroup", "-gpu-fb2-ng")
    assert group["inputs"]["capacityType"] == "ON_DEMAND" and "reservation" not in group["cost_basis"]
    figures_agree(document)
