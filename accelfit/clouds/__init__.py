"""The cloud registry (issue 35): one `Cloud` record per cloud, one module each, looked up by name or platform.
Imports nothing above the foundation; callers in the planner, pricing, preflight and components dispatch through it
instead of comparing cloud-name strings (tests/architecture/test_no_cloud_strings.py).

Beside the records, the cloud data the planner needs while it plans, sourced and dated in data/: GCP flex-start's
limits (gcp_flex_start.py) and what AWS sells as a Capacity Block (aws_capacity_blocks.py). They sit here, below the
planner, because the cloud rules (accelfit/cloudrules) check plans and so import the planner."""

from accelfit.clouds.cloud import FEATURES, Cloud
from accelfit.clouds.registry import (
    UnknownCloud, all_clouds, cloud_named, cloud_names, cloud_of_platform, cloud_of_scheme,
    clouds_supporting, hook, is_cluster_platform, register, unregister,
)

__all__ = ["FEATURES", "Cloud", "UnknownCloud", "all_clouds", "cloud_named", "cloud_names", "cloud_of_platform",
           "cloud_of_scheme", "clouds_supporting", "hook", "is_cluster_platform", "register", "unregister"]
