"""Pure mappings from plan values to the strings EKS managed node groups expect. No Pulumi here.

These are spellings and fixed facts, not choices: the plan decided the instance type, spot or reservation and
taints; these functions only say how EKS writes them.
"""

from __future__ import annotations

import base64
import re

from accelfit.cloudrules.aws.capacity_types import capacity_type as eks_capacity_type

# EKS-optimized accelerated AMIs come with the NVIDIA driver, container toolkit and EFA software installed
# (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html). AMI type names:
# https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html#AmazonEKS-Type-Nodegroup-amiType
AMI_NVIDIA_X86 = "AL2023_x86_64_NVIDIA"
AMI_NVIDIA_ARM = "AL2023_ARM_64_NVIDIA"
AMI_STANDARD_X86 = "AL2023_x86_64_STANDARD"
AMI_STANDARD_ARM = "AL2023_ARM_64_STANDARD"

# Graviton families put a "g" right after the generation digit (m7g, c7gn, r8gd, g5g); the Grace-based
# p6e-gb200 does not, so it is listed (https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html).
_GRAVITON = re.compile(r"[a-z]+[0-9]+g[a-z]*")
_ARM_EXCEPTIONS = frozenset({"p6e-gb200"})

# Kubernetes taint effects in the spelling the EKS API takes
# (https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html).
_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}


def instance_family(instance_type: str) -> str:
    """'p5.48xlarge' -> 'p5'."""
    return instance_type.split(".", 1)[0]


def is_arm(instance_type: str) -> bool:
    family = instance_family(instance_type)
    return family in _ARM_EXCEPTIONS or _GRAVITON.fullmatch(family) is not None


def ami_type(instance_type: str, accelerated: bool) -> str:
    """The EKS AMI type: the NVIDIA accelerated AL2023 image for GPU pools, the standard one otherwise."""
    arm = is_arm(instance_type)
    if accelerated:
        return AMI_NVIDIA_ARM if arm else AMI_NVIDIA_X86
    return AMI_STANDARD_ARM if arm else AMI_STANDARD_X86


def taint_effect(kubernetes_effect: str) -> str:
    """'NoSchedule' -> 'NO_SCHEDULE'; raises KeyError for an unknown effect."""
    return _TAINT_EFFECTS[kubernetes_effect]


def capacity_type(spot: bool, capacity_block: bool) -> str:
    """EKS capacityType: SPOT, CAPACITY_BLOCK (ML Capacity Blocks) or ON_DEMAND (also for On-Demand Capacity
    Reservations, which are targeted from the launch template instead), from the table the preview's pricer reads
    back (accelfit/cloudrules/aws/capacity_types.py)."""
    if spot and capacity_block:
        raise ValueError("a node group cannot be both spot and a capacity block")
    return eks_capacity_type("spot" if spot else "capacity-block" if capacity_block else "on-demand")


# nodeadm merges this NodeConfig with the one EKS generates for a managed node group; RAID0 stripes every
# instance-store NVMe disk into one array and puts kubelet and containerd storage (pod ephemeral storage, images)
# on it (https://awslabs.github.io/amazon-eks-ami/nodeadm/doc/api/#localstorageoptions). EKS requires the
# launch template's user data to be MIME multi-part
# (https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html#launch-template-user-data).
_SCRATCH_USER_DATA = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  instance:
    localStorage:
      strategy: RAID0

--//--
"""


def scratch_user_data() -> str:
    """The MIME user data that mounts local NVMe as scratch (plain text, see `scratch_user_data_base64`)."""
    return _SCRATCH_USER_DATA


def scratch_user_data_base64() -> str:
    """Launch templates take user data base64-encoded."""
    return base64.b64encode(_SCRATCH_USER_DATA.encode()).decode()
