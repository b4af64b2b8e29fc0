"""Pure IAM policy documents and AWS-managed policy ARNs. No Pulumi here, so each document is unit-tested.

Least privilege: the cluster role gets only AmazonEKSClusterPolicy, nodes only the three policies EKS lists for
the node role, and workloads reach the data bucket through EKS Pod Identity with a policy scoped to that bucket.
"""

from __future__ import annotations

import json
import re
from typing import Any

from accelfit.values import split_location


def partition(region: str | None) -> str:
    """The ARN partition of a region (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html)."""
    if region and region.startswith("cn-"):
        return "aws-cn"
    if region and region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def managed_policy_arn(name: str, region: str | None = None) -> str:
    return f"arn:{partition(region)}:iam::aws:policy/{name}"


# https://docs.aws.amazon.com/eks/latest/userguide/cluster-iam-role.html
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
# https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html: the worker policy, image pulls
# (PullOnly is the narrower successor of ReadOnly) and the VPC CNI's ENI management.
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonEKS_CNI_Policy")


def assume_role_policy(service: str, *, tag_session: bool = False) -> str:
    """Trust policy letting one AWS service principal assume the role (Pod Identity also needs TagSession:
    https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html)."""
    actions = ["sts:AssumeRole", "sts:TagSession"] if tag_session else "sts:AssumeRole"
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": actions}]})


def bucket_read_write_policy(bucket_arn: str) -> str:
    """Read, write and list one bucket; no bucket-level administration (policy, ACLs, deletion)."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "ListBucket", "Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetBucketLocation"],
         "Resource": bucket_arn},
        {"Sid": "ReadWriteObjects", "Effect": "Allow",
         "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
         "Resource": f"{bucket_arn}/*"}]})


# In a Resource ARN and a StringLike value, '*' and '?' are wildcards and '${...}' a policy variable; the literal
# characters are written ${*}, ${?} and ${$} (IAM User Guide, "IAM policy elements: Variables and tags", special
# characters: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#policy-vars-specialchars;
# the same three in the AWS IoT Core policy-variables page). One pass, so the '$' of an inserted ${*} is not escaped.
_IAM_SPECIAL = re.compile(r"[*?$]")


def iam_literal(text: str) -> str:
    """`text` as a literal inside an IAM Resource or StringLike value: it matches itself and nothing else."""
    return _IAM_SPECIAL.sub(lambda match: "${" + match.group() + "}", text)


def weights_read_policy(weights: str) -> str:
    """List the weights' prefix and read its objects (s3://bucket/prefix), nothing else: what the model streamer
    needs to read a model folder (vLLM docs, Run:ai model streamer; IAM: s3:prefix condition key,
    https://docs.aws.amazon.com/AmazonS3/latest/userguide/amazon-s3-policy-keys.html). The bucket and prefix are
    literals (iam_literal): `s3://bucket/team-a*` grants the prefix `team-a*`, never every `team-a...`; only the
    trailing `/*` this function adds is a wildcard."""
    location = split_location(weights)
    bucket, prefix = iam_literal(location.bucket), iam_literal(location.key)
    listing: dict[str, Any] = {"Sid": "ListWeights", "Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetBucketLocation"],
                     "Resource": f"arn:aws:s3:::{bucket}"}
    if prefix:
        listing["Condition"] = {"StringLike": {"s3:prefix": [f"{prefix}/*", prefix]}}
    objects = f"arn:aws:s3:::{bucket}/{prefix}/*" if prefix else f"arn:aws:s3:::{bucket}/*"
    return json.dumps({"Version": "2012-10-17", "Statement": [
        listing, {"Sid": "ReadWeights", "Effect": "Allow", "Action": ["s3:GetObject"], "Resource": objects}]})


def deny_insecure_transport_policy(bucket_arn: str) -> str:
    """Bucket policy refusing plain-HTTP requests
    (https://docs.aws.amazon.com/AmazonS3/latest/userguide/security-best-practices.html)."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "DenyInsecureTransport", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
         "Resource": [bucket_arn, f"{bucket_arn}/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})


def kms_key_use_policy(key_arn: str) -> str:
    """What EKS needs on the secrets-encryption key, and nothing else
    (https://docs.aws.amazon.com/eks/latest/userguide/enable-kms.html)."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"],
         "Resource": key_arn}]})


def cluster_autoscaler_policy(cluster_name: str) -> str:
    """The Cluster Autoscaler's permissions: describe calls on everything (auto-discovery, instance types, launch
    templates, managed node groups for scale-from-zero), and resizing only the Auto Scaling groups EKS tagged as
    this cluster's (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "Full Cluster Autoscaler
    Features Policy", with the tag condition terraform-aws-iam's cluster-autoscaler policy uses)."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "Describe", "Effect": "Allow", "Resource": "*", "Action": [
            "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances",
            "autoscaling:DescribeLaunchConfigurations", "autoscaling:DescribeScalingActivities",
            "autoscaling:DescribeTags", "ec2:DescribeImages", "ec2:DescribeInstanceTypes",
            "ec2:DescribeLaunchTemplateVersions", "ec2:GetInstanceTypesFromInstanceRequirements",
            "eks:DescribeNodegroup"]},
        {"Sid": "ResizeOwnGroups", "Effect": "Allow", "Resource": "*",
         "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
         "Condition": {"StringEquals": {f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster_name}": "owned"}}}]})
