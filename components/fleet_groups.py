"""The two components that group a fleet's resources: one per shared cluster (its shared items) and one per
workload (its pools, storage, identity). They create nothing themselves; they make the resource tree say whose
each resource is, which is how the preview attributes cost to workloads (accelfit/preview/fleet_costs.py, attribute)."""

from __future__ import annotations

import pulumi

from accelfit.planner.fleet.model import SHARED_COMPONENT, WORKLOAD_COMPONENT


class SharedClusterGroup(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None):
        super().__init__(SHARED_COMPONENT, name, None, opts)
        self.register_outputs({})


class WorkloadGroup(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None):
        super().__init__(WORKLOAD_COMPONENT, name, None, opts)
        self.register_outputs({})
