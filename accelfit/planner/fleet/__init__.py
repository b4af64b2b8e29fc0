"""Fleet: a stack's plan. Every stack is a fleet (a single workload is a fleet of one) and goes through here.

- stack.py: `plan_fleet`, each workload planned, placed, given its chain and its serving section;
- model.py: the fleet plan (FleetPlan, FleetWorkload, SharedCluster, FallbackStep), the contract with components/;
- clusters.py: which workloads share a cluster (same cloud, region and network layout) and which run alone;
- chain.py: a workload's fallback chain (the same type on other capacity tiers, then other accelerators) and its
  standby pools; capacity_groups.py: the steps the cloud's autoscaler moves between; fallback_triggers.py: what
  moves a job to the next step (Kueue); provisioning.py: which pools take nodes through a ProvisioningRequest;
- costs.py: the stack's cost, shared-cluster items counted once; policy_limits.py: the environment's limits over
  the whole stack;
- hybrid.py, overflow.py: a dedicated workload's cloud overflow cluster and its hours.

May import anything else in the planner; nothing else in the planner imports fleet/ (the package's lazy
`plan_fleet` export aside).
"""
