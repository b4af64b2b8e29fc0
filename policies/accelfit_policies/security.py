"""Security rules: no public IPs on accelerator nodes, no SSH from the world, IMDSv2, private buckets, private
Kubernetes control planes and encryption at rest."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any

from pulumi_policy import Policy, EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy
from pulumi_policy.proxy import UnknownValueError

from .framework import Settings, resource_policy, stack_policy
from .nodes import node_group
from .usage import (
    EKS_CLUSTER,
    GKE_CLUSTER,
    LAUNCH_TEMPLATE,
    TPU_QUEUED,
    TPU_VM,
    accelerator_use,
)
from .view import ResourceView, fmt, get, items, number, truthy

GCS_BUCKET = "gcp:storage/bucket:Bucket"
S3_BUCKET = "aws:s3/bucket:Bucket"
S3_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
S3_ENCRYPTION = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
GCP_FIREWALL = "gcp:compute/firewall:Firewall"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EBS_VOLUME = "aws:ebs/volume:Volume"
GCE_INSTANCE = "gcp:compute/instance:Instance"
GCE_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"  # gce-gpu-vm: its group's VMs (components/gcp/gpu_vm.py)
EC2_INSTANCE = "aws:ec2/instance:Instance"  # ec2-gpu-vm (components/aws/gpu_vm.py)
WORLD = ("0.0.0.0/0", "::/0")


# ---- no-public-ips-on-accelerators --------------------------------------------------------------------------

def _public_node_group(view: ResourceView) -> list[str]:
    """An accelerator node group whose own input leaves its nodes on public IPs (nodes.NodePaths.private_nodes)."""
    node = node_group(view)
    if node is None or not node.paths.private_nodes or accelerator_use(view) is None:
        return []
    private, value = node.private_setting()
    if private:
        return []
    egress = f" ({node.paths.egress})" if node.paths.egress else ""
    return [f"{view.label} gives its accelerator nodes public IPs ({node.paths.private_nodes} is {value}); allowed: "
            f"private nodes only. Fix: set {node.paths.private_nodes}: true{egress}."]


def check_no_public_ips(view: ResourceView, settings: Settings) -> list[str]:
    props = view.props
    if found := _public_node_group(view):
        return found
    if view.type == TPU_VM:
        configs = [get(props, "networkConfig"), *items(get(props, "networkConfigs"))]
        if any(truthy(get(config, "enableExternalIps")) for config in configs if config):
            return [f"{view.label} has external IPs (networkConfig.enableExternalIps is true); allowed: false. "
                    "Fix: set enableExternalIps: false and reach the VMs through IAP; egress goes through Cloud NAT."]
    if view.type == TPU_QUEUED:
        for spec in items(get(props, "tpu.nodeSpecs")):
            if truthy(get(spec, "node.networkConfig.enableExternalIps")):
                return [f"{view.label} asks for external IPs on slice {get(spec, 'nodeId', '?')}; allowed: false. "
                        "Fix: set node.networkConfig.enableExternalIps: false."]
    if view.type in (GCE_INSTANCE, GCE_TEMPLATE):
        for index, interface in enumerate(items(get(props, "networkInterfaces"))):
            if items(get(interface, "accessConfigs")) or items(get(interface, "ipv6AccessConfigs")):
                return [f"{view.label} gives network interface {index} an external IP (accessConfigs is set); "
                        "allowed: none. Fix: drop accessConfigs; reach the VM through IAP (gcloud compute ssh "
                        "--tunnel-through-iap) and let Cloud NAT carry its egress."]
    if view.type == EC2_INSTANCE and truthy(get(props, "associatePublicIpAddress")):
        return [f"{view.label} associates a public IP (associatePublicIpAddress is true); allowed: none. Fix: set "
                "associatePublicIpAddress: false, launch into a private subnet and use SSM Session Manager."]
    if view.type == LAUNCH_TEMPLATE:
        for interface in items(get(props, "networkInterfaces")):
            if truthy(get(interface, "associatePublicIpAddress")):
                return [f"{view.label} associates a public IP with network card "
                        f"{fmt(number(get(interface, 'networkCardIndex', 0)))}; allowed: none. "
                        "Fix: drop associatePublicIpAddress and launch into private subnets."]
    return []


def no_public_ips_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("no-public-ips-on-accelerators", "Accelerator nodes and TPU VMs have no public IPs.",
                           check_no_public_ips, None, enforcement_level)


# ---- private-control-plane ----------------------------------------------------------------------------------

def check_private_control_plane(view: ResourceView, settings: Settings) -> list[str]:
    props = view.props
    if view.type == GKE_CLUSTER and not truthy(get(props, "privateClusterConfig.enablePrivateNodes")):
        return [f"{view.label} is not a private cluster (privateClusterConfig.enablePrivateNodes is "
                f"{get(props, 'privateClusterConfig.enablePrivateNodes', 'unset')}); allowed: true. Fix: set "
                "privateClusterConfig.enablePrivateNodes: true with a masterIpv4CidrBlock."]
    if view.type == EKS_CLUSTER and truthy(get(props, "vpcConfig.endpointPublicAccess")):
        cidrs = [str(cidr) for cidr in items(get(props, "vpcConfig.publicAccessCidrs"))]
        if not cidrs or any(cidr in WORLD for cidr in cidrs):
            return [f"{view.label} opens its Kubernetes API to the internet (publicAccessCidrs "
                    f"{cidrs or 'unset = 0.0.0.0/0'}); allowed: private endpoint or listed office/VPN ranges. Fix: "
                    "set endpointPublicAccess: false or list only your ranges in publicAccessCidrs."]
    return []


def private_control_plane_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("private-control-plane", "Kubernetes clusters have private nodes and no API open to "
                           "the world.", check_private_control_plane, None, enforcement_level)


# ---- no-ssh-from-world --------------------------------------------------------------------------------------

SSH_OPTIONS = {
    "ports": {"type": "array", "items": {"type": "integer"}, "default": [22],
              "description": "Administrative ports that must not be open to 0.0.0.0/0."},
}


def _world(ranges: Sequence[Any]) -> bool:
    for cidr in ranges:
        try:
            if ipaddress.ip_network(str(cidr), strict=False).prefixlen == 0:
                return True
        except ValueError:
            continue
    return False


def _gcp_ports_open(allow: Any, port: int) -> bool:
    protocol = str(get(allow, "protocol", "")).lower()
    if protocol not in ("tcp", "all"):
        return False
    ports = [str(item) for item in items(get(allow, "ports"))]
    if not ports:
        return True  # no ports listed = every port of the protocol
    for item in ports:
        low, _, high = item.partition("-")
        if low.isdigit() and int(low) <= port <= int(high or low):
            return True
    return False


def _aws_rule_open(rule: Any, port: int, cidr_keys: tuple[str, ...]) -> bool:
    cidrs = [cidr for key in cidr_keys for cidr in (items(get(rule, key)) or ([get(rule, key)] if get(rule, key)
                                                                              else []))]
    if not _world(cidrs):
        return False
    protocol = str(get(rule, "protocol", get(rule, "ipProtocol", ""))).lower()
    if protocol in ("-1", "all"):
        return True
    if protocol not in ("tcp", "6"):
        return False
    low, high = number(get(rule, "fromPort")), number(get(rule, "toPort"))
    return low is not None and high is not None and low <= port <= high


def _open_ports(view: ResourceView, ports: list[int]) -> list[int]:
    """The admin ports this firewall rule or security group opens to the whole internet."""
    props = view.props
    if view.type == GCP_FIREWALL:
        ingress = str(get(props, "direction", "INGRESS")).upper() == "INGRESS"
        if not (ingress and _world(items(get(props, "sourceRanges"))) and not truthy(get(props, "disabled"))):
            return []
        return [port for port in ports if any(_gcp_ports_open(allow, port) for allow in items(get(props, "allows")))]
    if view.type == SECURITY_GROUP:
        return [port for port in ports if any(_aws_rule_open(rule, port, ("cidrBlocks", "ipv6CidrBlocks"))
                                              for rule in items(get(props, "ingress")))]
    if view.type == SECURITY_GROUP_RULE and str(get(props, "type", "")) == "ingress":
        return [port for port in ports if _aws_rule_open(props, port, ("cidrBlocks", "ipv6CidrBlocks"))]
    if view.type == INGRESS_RULE:
        return [port for port in ports if _aws_rule_open(props, port, ("cidrIpv4", "cidrIpv6"))]
    return []


def check_no_ssh_from_world(view: ResourceView, settings: Settings) -> list[str]:
    open_ports = _open_ports(view, [int(port) for port in settings.get("ports") or [22]])
    if not open_ports:
        return []
    return [f"{view.label} opens port(s) {', '.join(map(str, open_ports))} to 0.0.0.0/0; allowed: known ranges "
            "only. Fix: restrict the source to your VPN/office ranges or use IAP (35.235.240.0/20) / SSM Session "
            "Manager instead of open SSH."]


def no_ssh_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("no-ssh-from-world", "No SSH (or other admin port) open to the whole internet.",
                           check_no_ssh_from_world, SSH_OPTIONS, enforcement_level)


# ---- imdsv2-required ----------------------------------------------------------------------------------------

IMDS_OPTIONS = {
    "maxHopLimit": {"type": "integer", "minimum": 1, "default": 2,
                    "description": "Highest httpPutResponseHopLimit; 1 keeps pods away from the node's role."},
}


def check_imdsv2(view: ResourceView, settings: Settings) -> list[str]:
    if view.type not in (LAUNCH_TEMPLATE, EC2_INSTANCE):
        return []
    tokens = get(view.props, "metadataOptions.httpTokens", "optional (unset)")
    if tokens != "required":
        return [f"{view.label} allows IMDSv1 (metadataOptions.httpTokens is {tokens}); allowed: required. Fix: set "
                "metadataOptions.httpTokens: required (IMDSv2 only)."]
    hops = number(get(view.props, "metadataOptions.httpPutResponseHopLimit"))
    limit = int(settings.get("maxHopLimit", 2))
    if hops is not None and hops > limit:
        return [f"{view.label} sets metadata hop limit {fmt(hops)}; allowed at most {limit}. Fix: lower "
                "metadataOptions.httpPutResponseHopLimit so containers cannot reach the node's credentials."]
    return []


def imdsv2_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("imdsv2-required", "EC2 launch templates and instances require IMDSv2.", check_imdsv2, IMDS_OPTIONS,
                           enforcement_level)


# ---- private-buckets ----------------------------------------------------------------------------------------

_BLOCKS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")


def check_private_bucket(view: ResourceView, settings: Settings) -> list[str]:
    props = view.props
    if view.type == GCS_BUCKET:
        problems = []
        prevention = get(props, "publicAccessPrevention", "inherited (unset)")
        if prevention != "enforced":
            problems.append(f"publicAccessPrevention is {prevention} (allowed: enforced)")
        if not truthy(get(props, "uniformBucketLevelAccess")):
            problems.append(f"uniformBucketLevelAccess is {get(props, 'uniformBucketLevelAccess', 'unset')} "
                            "(allowed: true)")
        if problems:
            return [f"{view.label} may become public: {'; '.join(problems)}. Fix: set publicAccessPrevention: "
                    "enforced and uniformBucketLevelAccess: true."]
    if view.type == S3_PUBLIC_ACCESS_BLOCK:
        off = [key for key in _BLOCKS if not truthy(get(props, key))]
        if off:
            return [f"{view.label} leaves {', '.join(off)} off; allowed: all four true. Fix: set "
                    f"{', '.join(f'{key}: true' for key in off)}."]
    return []


def private_buckets_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("private-buckets", "Buckets cannot be made public.", check_private_bucket, None,
                           enforcement_level)


# ---- s3-bucket-safeguards (stack) ---------------------------------------------------------------------------

def _bucket_refs(views: Sequence[ResourceView], token: str) -> set[str]:
    """Parents (components) holding a companion resource of `token`, and the bucket names it points at."""
    found: set[str] = set()
    for view in views:
        if view.type == token:
            if view.parent:
                found.add(f"parent:{view.parent}")
            try:  # the bucket id is unknown during a real first preview; the parent still matches
                bucket = get(view.props, "bucket")
            except UnknownValueError:
                bucket = None
            if isinstance(bucket, str):
                found.add(f"bucket:{bucket}")
    return found


def check_s3_safeguards(views: Sequence[ResourceView], settings: Settings) -> list[tuple[str, str | None]]:
    """Every S3 bucket has a public access block and an encryption configuration beside it (same component or
    same bucket id): the inline Bucket settings are deprecated, so a bucket alone is neither (reference 3.4)."""
    blocks, encryption = _bucket_refs(views, S3_PUBLIC_ACCESS_BLOCK), _bucket_refs(views, S3_ENCRYPTION)
    out: list[tuple[str, str | None]] = []
    for view in views:
        if view.type != S3_BUCKET:
            continue
        keys = {f"parent:{view.parent}" if view.parent else "", f"bucket:{view.name}-id", f"bucket:{view.name}"}
        missing = [what for what, refs in (("BucketPublicAccessBlock", blocks),
                                           ("BucketServerSideEncryptionConfiguration", encryption))
                   if not keys & refs]
        if missing:
            out.append((f"{view.label} has no {' and no '.join(missing)}; allowed: both present. Fix: create them "
                        "for the bucket (the DataBucket component does).", view.urn or None))
    return out


def s3_safeguards_policy(enforcement_level: EnforcementLevel | None = None) -> StackValidationPolicy:
    return stack_policy("s3-bucket-safeguards", "Every S3 bucket has a public access block and encryption.",
                        check_s3_safeguards, None, enforcement_level)


# ---- encryption-at-rest -------------------------------------------------------------------------------------

ENCRYPTION_OPTIONS = {
    "s3Algorithms": {"type": "array", "items": {"type": "string"}, "default": ["aws:kms", "aws:kms:dsse"],
                     "description": "Allowed S3 default encryption algorithms."},
}


def _launch_template_encryption(view: ResourceView, settings: Settings) -> list[str]:
    plain_disks = [str(get(mapping, "deviceName", "?")) for mapping in items(get(view.props, "blockDeviceMappings"))
                   if get(mapping, "ebs") and not truthy(get(mapping, "ebs.encrypted"))]
    if not plain_disks:
        return []
    return [f"{view.label} has unencrypted EBS volumes ({', '.join(plain_disks)}: encrypted is not true); "
            "allowed: encrypted only. Fix: set ebs.encrypted: \"true\" on every block device mapping."]


def _instance_encryption(view: ResourceView, settings: Settings) -> list[str]:
    props = view.props
    plain = [name for name, volume in [("rootBlockDevice", get(props, "rootBlockDevice"))]
             + [(f"ebsBlockDevices[{index}]", device)
                for index, device in enumerate(items(get(props, "ebsBlockDevices")))]
             if volume and not truthy(get(volume, "encrypted"))]
    if not get(props, "rootBlockDevice"):
        plain.insert(0, "rootBlockDevice (unset, so the AMI's default)")
    if not plain:
        return []
    return [f"{view.label} has unencrypted EBS volumes ({', '.join(plain)}); allowed: encrypted only. Fix: "
            "set rootBlockDevice.encrypted: true (and encrypted on every ebsBlockDevices entry)."]


def _volume_encryption(view: ResourceView, settings: Settings) -> list[str]:
    if truthy(get(view.props, "encrypted")):
        return []
    return [f"{view.label} is unencrypted; allowed: encrypted. Fix: set encrypted: true."]


def _bucket_encryption(view: ResourceView, settings: Settings) -> list[str]:
    allowed = list(settings.get("s3Algorithms") or ["aws:kms", "aws:kms:dsse"])
    algorithms = [str(get(rule, "applyServerSideEncryptionByDefault.sseAlgorithm", "unset"))
                  for rule in items(get(view.props, "rules"))] or ["unset"]
    wrong = [algorithm for algorithm in algorithms if algorithm not in allowed]
    if not wrong:
        return []
    return [f"{view.label} encrypts with {', '.join(wrong)}; allowed: {', '.join(allowed)}. Fix: set "
            "sseAlgorithm: aws:kms (with bucketKeyEnabled: true to keep KMS costs down)."]


def _cluster_secrets_encryption(view: ResourceView, settings: Settings) -> list[str]:
    props = view.props
    resources = [str(item) for config in items(get(props, "encryptionConfig")) or
                 ([get(props, "encryptionConfig")] if get(props, "encryptionConfig") else [])
                 for item in items(get(config, "resources"))]
    if "secrets" in resources:
        return []
    return [f"{view.label} does not envelope-encrypt Kubernetes secrets (encryptionConfig.resources is "
            f"{resources or 'unset'}); allowed: includes secrets. Fix: set encryptionConfig with "
            "resources: [secrets] and a KMS key."]


# One check per resource type that holds data at rest.
_ENCRYPTION_CHECKS = {LAUNCH_TEMPLATE: _launch_template_encryption, EC2_INSTANCE: _instance_encryption,
                      EBS_VOLUME: _volume_encryption, S3_ENCRYPTION: _bucket_encryption,
                      EKS_CLUSTER: _cluster_secrets_encryption}


def check_encryption(view: ResourceView, settings: Settings) -> list[str]:
    check = _ENCRYPTION_CHECKS.get(view.type)
    return check(view, settings) if check else []


def encryption_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("encryption-at-rest", "Disks, buckets and cluster secrets are encrypted at rest.",
                           check_encryption, ENCRYPTION_OPTIONS, enforcement_level)


def policies() -> list[Policy]:
    return [no_public_ips_policy(), private_control_plane_policy(), no_ssh_policy(), imdsv2_policy(),
            private_buckets_policy(), s3_safeguards_policy(), encryption_policy()]
