"""The AWS components under Pulumi mocks: assertions on the recorded resources and their inputs."""

from __future__ import annotations

import base64
import json

import pytest
from aws_plans import ACCESS, EXAMPLES, h100_training_plan, l4_inference_plan, ownership_for, with_pool

import components.aws as aws_components
from accelfit.errors import InputError
from accelfit.preview.recorder import record
from components.aws import (
    AwsNetwork, AwsNetworkArgs, DataBucket, DataBucketArgs, ManagedNodeGroup, ManagedNodeGroupArgs, NodeTaint,
)

# AWS resources that take no tags (their parent resource carries them).
UNTAGGABLE = {
    "aws:ec2/routeTableAssociation:RouteTableAssociation", "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    "aws:iam/rolePolicy:RolePolicy", "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls", "aws:s3/bucketVersioning:BucketVersioning",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "aws:s3/bucketPolicy:BucketPolicy",
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "aws:autoscaling/tag:Tag",
}


def build(name: str, catalog):
    make, owner = EXAMPLES[name]
    plan = make()
    return record(lambda: aws_components.build(plan, owner(plan), catalog, ACCESS))


@pytest.fixture(scope="module")
def training(catalog):
    return build("example-aws-h100-training", catalog)


@pytest.fixture(scope="module")
def inference(catalog):
    return build("example-aws-l4-inference", catalog)


@pytest.fixture(scope="module", params=list(EXAMPLES))
def example(request, catalog):
    return request.param, build(request.param, catalog)


class TestEveryExample:
    def test_no_duplicate_names(self, example):
        assert example[1].duplicate_urns == []

    def test_every_child_is_parented_to_its_component(self, example):
        _, recording = example
        components = {r.urn: r for r in recording.resources if not r.custom}
        roots = [r for r in recording.resources if r.parent is None]
        assert [r.type for r in roots] == ["accelfit:aws:EksGpuStack"]
        for resource in recording.resources:
            if resource.parent is None:
                continue
            assert resource.parent in components, resource.name
            assert resource.name.startswith(components[resource.parent].name + "-"), resource.name
        for resource in recording.resources:
            if resource.custom:
                assert resource.parent is not None and recording.named(resource.parent_name).type.startswith(
                    "accelfit:aws:"), resource.name

    def test_every_taggable_resource_is_tagged(self, example):
        name, recording = example
        plan = EXAMPLES[name][0]()
        for resource in recording.resources:
            if not resource.custom or resource.type in UNTAGGABLE:
                continue
            tags = resource.inputs.get("tags", {})
            assert {key: tags.get(key) for key in ("team", "cost-center", "environment", "workload")} == {
                "team": tags.get("team"), "cost-center": tags.get("cost-center"),
                "environment": plan.environment, "workload": plan.workload}, resource.name
            assert tags["team"] and tags["cost-center"], resource.name

    def test_instances_volumes_and_interfaces_are_tagged_through_the_template(self, example):
        for template in example[1].of_type("aws:ec2/launchTemplate:LaunchTemplate"):
            kinds = {spec["resourceType"]: spec["tags"] for spec in template.inputs["tagSpecifications"]}
            assert set(kinds) == {"instance", "volume", "network-interface"}
            assert all(tags["team"] for tags in kinds.values())

    def test_imdsv2_and_encrypted_root(self, example):
        for template in example[1].of_type("aws:ec2/launchTemplate:LaunchTemplate"):
            assert template.inputs["metadataOptions"] == {
                "httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1}
            (root,) = template.inputs["blockDeviceMappings"]
            assert root["deviceName"] == "/dev/xvda"
            assert root["ebs"]["encrypted"] == "true" and root["ebs"]["volumeType"] == "gp3"

    def test_network_spans_two_zones_with_private_nodes(self, example):
        recording = example[1]
        subnets = recording.of_type("aws:ec2/subnet:Subnet")
        assert sorted(s.inputs["availabilityZone"] for s in subnets) == [
            "us-east-1a", "us-east-1a", "us-east-1b", "us-east-1b"]
        assert all(s.inputs["mapPublicIpOnLaunch"] is False for s in subnets)
        assert len(recording.of_type("aws:ec2/natGateway:NatGateway")) == 2
        for group in recording.of_type("aws:eks/nodeGroup:NodeGroup"):
            assert all("private" in subnet for subnet in group.inputs["subnetIds"])

    def test_nothing_is_open_to_the_world(self, example):
        for group in example[1].of_type("aws:ec2/securityGroup:SecurityGroup"):
            for rule in group.inputs.get("ingress", []):
                assert "0.0.0.0/0" not in rule.get("cidrBlocks", []), group.name

    def test_node_security_group_allows_all_traffic_between_nodes(self, example):
        recording = example[1]
        prefix = recording.resources[0].name
        (nodes,) = [g for g in recording.of_type("aws:ec2/securityGroup:SecurityGroup") if g.name.endswith("nodes-sg")]
        assert "ingress" not in nodes.inputs and "egress" not in nodes.inputs  # rules are separate resources
        group_id = f"{prefix}-network-nodes-sg-id"
        ingress = [r.inputs for r in recording.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
                   if r.inputs["securityGroupId"] == group_id]
        assert {"ipProtocol": "-1", "referencedSecurityGroupId": group_id} in [
            {k: rule.get(k) for k in ("ipProtocol", "referencedSecurityGroupId")} for rule in ingress]
        assert not [rule for rule in ingress if rule.get("cidrIpv4")]  # nothing from outside
        egress = {(r.inputs["ipProtocol"], r.inputs.get("referencedSecurityGroupId"), r.inputs.get("cidrIpv4"))
                  for r in recording.of_type("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")}
        assert egress == {("-1", group_id, None), ("-1", None, "0.0.0.0/0")}

    def test_s3_gateway_endpoint_on_private_route_tables(self, example):
        (endpoint,) = example[1].of_type("aws:ec2/vpcEndpoint:VpcEndpoint")
        assert endpoint.inputs["serviceName"] == "com.amazonaws.us-east-1.s3"
        assert endpoint.inputs["vpcEndpointType"] == "Gateway"
        assert sorted(endpoint.inputs["routeTableIds"]) == [
            f"{example[1].resources[0].name}-network-private-{z}-rt-id" for z in "ab"]

    def test_cluster_endpoint_restricted_logged_and_encrypted(self, example):
        (cluster,) = example[1].of_type("aws:eks/cluster:Cluster")
        assert cluster.inputs["vpcConfig"]["endpointPrivateAccess"] is True
        # Public, but only for the configured ranges (the deploy workflow runs outside the VPC).
        assert cluster.inputs["vpcConfig"]["endpointPublicAccess"] is True
        assert cluster.inputs["vpcConfig"]["publicAccessCidrs"] == ["203.0.113.0/24"]
        assert cluster.inputs["version"] == "1.35"
        assert len(cluster.inputs["vpcConfig"]["subnetIds"]) == 2
        assert cluster.inputs["enabledClusterLogTypes"] == [
            "api", "audit", "authenticator", "controllerManager", "scheduler"]
        assert cluster.inputs["accessConfig"]["authenticationMode"] == "API"
        assert cluster.inputs["encryptionConfig"]["resources"] == ["secrets"]
        assert cluster.inputs["kubernetesNetworkConfig"] == {"serviceIpv4Cidr": "10.68.0.0/20"}

    def test_iam_roles_carry_only_the_managed_policies_eks_documents(self, example):
        recording = example[1]
        prefix = recording.resources[0].name
        attached = {(a.inputs["role"], a.inputs["policyArn"].rsplit("/", 1)[1])
                    for a in recording.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
        assert attached == {
            (f"{prefix}-roles-cluster", "AmazonEKSClusterPolicy"),
            (f"{prefix}-roles-nodes", "AmazonEKSWorkerNodePolicy"),
            (f"{prefix}-roles-nodes", "AmazonEC2ContainerRegistryPullOnly"),
            (f"{prefix}-roles-nodes", "AmazonEKS_CNI_Policy")}
        trust = {r.name: json.loads(r.inputs["assumeRolePolicy"])["Statement"][0]["Principal"]["Service"]
                 for r in recording.of_type("aws:iam/role:Role")}
        assert trust == {f"{prefix}-roles-cluster": "eks.amazonaws.com", f"{prefix}-roles-nodes": "ec2.amazonaws.com",
                         f"{prefix}-identity-role": "pods.eks.amazonaws.com",
                         f"{prefix}-autoscaler-role": "pods.eks.amazonaws.com"}
        assert not any("managedPolicyArns" in r.inputs for r in recording.of_type("aws:iam/role:Role"))

    def test_bucket_protections(self, example):
        recording = example[1]
        (block,) = recording.of_type("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")
        assert all(block.inputs[key] is True for key in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls",
                                                         "restrictPublicBuckets"))
        (versioning,) = recording.of_type("aws:s3/bucketVersioning:BucketVersioning")
        assert versioning.inputs["versioningConfiguration"]["status"] == "Enabled"
        (encryption,) = recording.of_type(
            "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration")
        assert encryption.inputs["rules"][0]["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "aws:kms"
        (lifecycle,) = recording.of_type("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration")
        rules = {rule["id"]: rule for rule in lifecycle.inputs["rules"]}
        assert rules["checkpoints-age-out"]["filter"] == {"prefix": "checkpoints/"}
        assert rules["checkpoints-age-out"]["expiration"] == {"days": 30}
        assert rules["replaced-versions-and-stale-uploads"]["abortIncompleteMultipartUpload"] == {
            "daysAfterInitiation": 7}
        (policy,) = recording.of_type("aws:s3/bucketPolicy:BucketPolicy")
        assert json.loads(policy.inputs["policy"])["Statement"][0]["Effect"] == "Deny"
        (ownership,) = recording.of_type("aws:s3/bucketOwnershipControls:BucketOwnershipControls")
        assert ownership.inputs["rule"] == {"objectOwnership": "BucketOwnerEnforced"}

    def test_pods_reach_the_bucket_through_pod_identity(self, example):
        recording = example[1]
        name = recording.resources[0].name
        associations = {(a.inputs["namespace"], a.inputs["serviceAccount"])
                        for a in recording.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")}
        assert associations == {(name, name), ("kube-system", "cluster-autoscaler")}
        assert recording.named(f"{name}-identity-agent").inputs["addonName"] == "eks-pod-identity-agent"
        (access,) = [p for p in recording.of_type("aws:iam/rolePolicy:RolePolicy") if p.name.endswith("bucket-access")]
        resources = {s["Resource"] for s in json.loads(access.inputs["policy"])["Statement"]}
        assert resources == {f"arn:aws:mock:::{name}-data-bucket", f"arn:aws:mock:::{name}-data-bucket/*"}


class TestH100Training:
    def gpu_group(self, recording):
        return recording.named("llm-pretrain-pool-gpu-ng")

    def test_gpu_node_group(self, training):
        group = self.gpu_group(training).inputs
        assert group["amiType"] == "AL2023_x86_64_NVIDIA"
        assert group["instanceTypes"] == ["p5.48xlarge"]
        assert group["capacityType"] == "ON_DEMAND"
        assert group["scalingConfig"] == {"minSize": 0, "maxSize": 7, "desiredSize": 7}
        assert group["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
        assert group["labels"]["accelfit.io/accelerator"] == "h100-80gb"
        assert group["launchTemplate"] == {"id": "llm-pretrain-pool-gpu-lt-id", "version": "1"}
        assert "diskSize" not in group  # the launch template sets the root volume

    def test_efa_interfaces_one_per_network_card(self, training):
        template = training.named("llm-pretrain-pool-gpu-lt").inputs
        interfaces = template["networkInterfaces"]
        assert len(interfaces) == 33  # the ENA primary and 32 EFA-only interfaces, one per card
        assert [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces] == [
            (0, 0, "interface"), (0, 1, "efa-only")] + [(card, 0, "efa-only") for card in range(1, 32)]
        assert all(i["securityGroups"] == ["llm-pretrain-network-nodes-sg-id",
                                           "llm-pretrain-cluster-eks-cluster-sg-id"] for i in interfaces)
        assert "vpcSecurityGroupIds" not in template

    def test_cluster_placement_group_in_one_zone(self, training):
        (placement,) = training.of_type("aws:ec2/placementGroup:PlacementGroup")
        assert placement.inputs["strategy"] == "cluster"
        assert placement.parent_name == "llm-pretrain-pool-gpu"
        assert training.named("llm-pretrain-pool-gpu-lt").inputs["placement"] == {
            "groupName": "llm-pretrain-pool-gpu-pg"}
        assert self.gpu_group(training).inputs["subnetIds"] == ["llm-pretrain-network-private-a-id"]

    def test_local_nvme_becomes_raid0_scratch(self, training):
        user_data = base64.b64decode(training.named("llm-pretrain-pool-gpu-lt").inputs["userData"]).decode()
        assert "Content-Type: application/node.eks.aws" in user_data and "strategy: RAID0" in user_data
        assert "userData" not in training.named("llm-pretrain-pool-system-lt").inputs

    def test_system_pool_is_standard_and_untainted(self, training):
        group = training.named("llm-pretrain-pool-system-ng").inputs
        assert group["amiType"] == "AL2023_x86_64_STANDARD"
        assert "taints" not in group
        assert len(group["subnetIds"]) == 2
        template = training.named("llm-pretrain-pool-system-lt").inputs
        assert "networkInterfaces" not in template and "placement" not in template
        assert template["vpcSecurityGroupIds"] == ["llm-pretrain-network-nodes-sg-id",
                                                   "llm-pretrain-cluster-eks-cluster-sg-id"]

    def test_fsx_lustre_linked_to_the_bucket(self, training):
        fs = training.named("llm-pretrain-lustre-fs").inputs
        assert (fs["deploymentType"], fs["storageCapacity"], fs["perUnitStorageThroughput"]) == (
            "PERSISTENT_2", 19200, 125)
        assert fs["subnetIds"] == "llm-pretrain-network-private-a-id"  # the GPU nodes' zone
        link = training.named("llm-pretrain-lustre-bucket-link").inputs
        assert link["fileSystemId"] == "llm-pretrain-lustre-fs-id"
        assert link["dataRepositoryPath"] == "s3://llm-pretrain-data-bucket"
        assert link["fileSystemPath"] == "/data"
        assert link["s3"]["autoExportPolicy"]["events"] == ["NEW", "CHANGED", "DELETED"]

    def test_fsx_opens_only_lustre_ports_to_the_nodes(self, training):
        group = training.named("llm-pretrain-lustre-sg").inputs
        assert [(r["fromPort"], r["toPort"], r["protocol"]) for r in group["ingress"]] == [
            (988, 988, "tcp"), (1018, 1023, "tcp")]
        assert all(r["securityGroups"] == ["llm-pretrain-network-nodes-sg-id", "llm-pretrain-cluster-eks-cluster-sg-id"]
                   and r["self"] is True and "cidrBlocks" not in r for r in group["ingress"])

    def test_staging_is_not_protected(self, training):
        assert not any(r.protect for r in training.resources)
        assert training.named("llm-pretrain-cluster-eks").inputs["deletionProtection"] is False


class TestL4Inference:
    def test_autoscaling_gpu_pool_over_two_zones(self, inference):
        group = inference.named("chat-serve-pool-gpu-ng").inputs
        assert group["instanceTypes"] == ["g6.xlarge"]
        assert group["amiType"] == "AL2023_x86_64_NVIDIA"
        assert group["scalingConfig"] == {"minSize": 13, "maxSize": 18, "desiredSize": 13}
        assert group["subnetIds"] == ["chat-serve-network-private-a-id", "chat-serve-network-private-b-id"]

    def test_autoscaler_node_template_tags_on_the_auto_scaling_group(self, inference):
        tags = {t.inputs["tag"]["key"]: (t.inputs["autoscalingGroupName"], t.inputs["tag"]["value"])
                for t in inference.of_type("aws:autoscaling/tag:Tag") if t.parent_name == "chat-serve-pool-gpu"}
        asg = "eks-chat-serve-pool-gpu-ng-asg"
        prefix = "k8s.io/cluster-autoscaler/node-template"
        assert tags[f"{prefix}/taint/nvidia.com/gpu"] == (asg, "present:NoSchedule")
        assert tags[f"{prefix}/label/accelfit.io/role"] == (asg, "inference")
        assert tags[f"{prefix}/label/k8s.amazonaws.com/accelerator"] == (asg, "l4")
        assert tags[f"{prefix}/resources/ephemeral-storage"] == (asg, "250G")
        # The label the Kueue flavor selects on, known to the autoscaler even at zero nodes.
        assert tags[f"{prefix}/label/eks.amazonaws.com/nodegroup"] == (asg, "chat-serve-pool-gpu-ng")
        group = inference.named("chat-serve-pool-gpu-ng").inputs
        assert group["labels"]["k8s.amazonaws.com/accelerator"] == "l4"

    def test_no_efa_no_placement_no_filesystem(self, inference):
        assert inference.of_type("aws:ec2/placementGroup:PlacementGroup") == []
        assert "networkInterfaces" not in inference.named("chat-serve-pool-gpu-lt").inputs
        assert inference.of_type("aws:fsx/lustreFileSystem:LustreFileSystem") == []

    def test_prod_protects_data_and_cluster(self, inference):
        assert [r.name for r in inference.resources if r.protect] == ["chat-serve-data-bucket"]
        assert inference.named("chat-serve-cluster-eks").inputs["deletionProtection"] is True


class TestCapacity:
    def test_spot(self, catalog):
        plan = with_pool(l4_inference_plan(), 1, spot=True)
        recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
        assert recording.named("chat-serve-pool-gpu-ng").inputs["capacityType"] == "SPOT"
        assert "capacityReservationSpecification" not in recording.named("chat-serve-pool-gpu-lt").inputs

    def test_on_demand_capacity_reservation(self, catalog):
        plan = with_pool(h100_training_plan(), 1, reservation="cr-0123456789abcdef0")
        recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
        template = recording.named("llm-pretrain-pool-gpu-lt").inputs
        assert template["capacityReservationSpecification"] == {
            "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}}
        assert "instanceMarketOptions" not in template
        assert recording.named("llm-pretrain-pool-gpu-ng").inputs["capacityType"] == "ON_DEMAND"

    def test_capacity_block(self, catalog):
        plan = with_pool(h100_training_plan(), 1, reservation="cr-0123456789abcdef0", capacity_block=True)
        recording = record(lambda: aws_components.build(plan, ownership_for(plan), catalog, ACCESS))
        template = recording.named("llm-pretrain-pool-gpu-lt").inputs
        assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
        assert template["capacityReservationSpecification"]["capacityReservationTarget"] == {
            "capacityReservationId": "cr-0123456789abcdef0"}
        group = recording.named("llm-pretrain-pool-gpu-ng").inputs
        assert group["capacityType"] == "CAPACITY_BLOCK"
        # EKS: the launch template carries the instance type, the node group names none (never both).
        assert template["instanceType"] == "p5.48xlarge"
        assert "instanceTypes" not in group


class TestByHand:
    """The components compose without a Plan, as in a user's own Pulumi program."""

    def program(self):
        network = AwsNetwork("lab", AwsNetworkArgs(region="us-west-2", zones=("us-west-2a", "us-west-2b"),
                                                   cidr="10.8.0.0/16", tags={"team": "lab"}))
        ManagedNodeGroup("lab-a100", ManagedNodeGroupArgs(
            cluster_name="existing-cluster", node_role_arn="arn:aws:iam::123456789012:role/nodes",
            subnet_ids=[network.private_subnet_ids["us-west-2a"]],
            security_group_ids=[network.node_security_group_id], instance_type="p4d.24xlarge",
            min_size=0, max_size=2, desired_size=0, efa_interfaces=4, placement_group=True,
            taints=(NodeTaint("nvidia.com/gpu", "present", "NoSchedule"),), tags={"team": "lab"}, region="us-west-2"))
        DataBucket("lab-data", DataBucketArgs(checkpoint_retention_days=7))

    def test_composes(self):
        recording = record(self.program)
        assert recording.duplicate_urns == []
        assert len(recording.named("lab-a100-lt").inputs["networkInterfaces"]) == 5
        assert recording.named("lab-private-a").inputs["cidrBlock"] == "10.8.0.0/18"
        assert recording.named("lab-data-lifecycle").inputs["rules"][0]["expiration"] == {"days": 7}

    def test_hand_args_are_checked_before_anything_is_created(self):
        def program():
            ManagedNodeGroup("bad", ManagedNodeGroupArgs(
                cluster_name="c", node_role_arn="r", subnet_ids=["s1", "s2"], security_group_ids=["g"],
                instance_type="p5.48xlarge", min_size=2, max_size=1, desired_size=1, spot=True,
                capacity_reservation_id="cr-0123456789abcdef0", efa_interfaces=32,
                taints=(NodeTaint("k", "v", "NoWay"),)))

        with pytest.raises(InputError) as raised:
            record(program)
        assert {p.field for p in raised.value.problems} == {
            "desired_size", "capacity_reservation_id", "subnet_ids", "taints[0].effect"}
        assert all(p.file == "component args (ManagedNodeGroup)" for p in raised.value.problems)

    def test_a_group_cannot_both_launch_into_and_avoid_a_reservation(self):
        from components.aws.node_group import validate_node_group_args

        args = ManagedNodeGroupArgs(
            cluster_name="c", node_role_arn="r", subnet_ids=["s1"], security_group_ids=["g"],
            instance_type="p5.48xlarge", min_size=0, max_size=2, desired_size=0,
            capacity_reservation_id="cr-0123456789abcdef0", avoid_reservations=True)
        assert [p.field for p in validate_node_group_args(args)] == ["avoid_reservations"]

    def test_network_args_checked(self):
        with pytest.raises(InputError) as raised:
            record(lambda: AwsNetwork("n", AwsNetworkArgs(region="us-east-1", zones=("us-east-1a",),
                                                          cidr="8.8.0.0/16")))
        assert {p.field for p in raised.value.problems} == {"zones", "cidr"}

    def test_nat_zones_must_be_the_networks_own(self):
        with pytest.raises(InputError) as raised:
            record(lambda: AwsNetwork("n", AwsNetworkArgs(region="us-east-1", zones=("us-east-1a", "us-east-1b"),
                                                          nat_zones=("us-east-1c",))))
        assert {p.field for p in raised.value.problems} == {"nat_zones"}

    def test_a_network_with_one_nat_zone_routes_every_zone_through_it(self):
        recording = record(lambda: AwsNetwork("n", AwsNetworkArgs(
            region="us-east-1", zones=("us-east-1a", "us-east-1b"), nat_zones=("us-east-1b",))))
        [nat] = recording.of_type("aws:ec2/natGateway:NatGateway")
        assert nat.name == "n-nat-b" and len(recording.of_type("aws:ec2/eip:Eip")) == 1
        for table in ("n-private-a-rt", "n-private-b-rt"):
            assert recording.named(table).inputs["routes"] == [{"cidrBlock": "0.0.0.0/0", "natGatewayId": "n-nat-b-id"}]
        every = record(lambda: AwsNetwork("n", AwsNetworkArgs(region="us-east-1", zones=("us-east-1a", "us-east-1b"))))
        assert len(every.of_type("aws:ec2/natGateway:NatGateway")) == 2  # a cluster keeps one per zone
