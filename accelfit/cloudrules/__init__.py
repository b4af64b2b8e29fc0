"""Cloud rules the SDK types do not carry, and their sourced data: one home in the pure core.

Mocks accept any value, so what each cloud enforces beyond its SDK's types (zones an offering is in, name-length
limits, disk types per machine family, the node-pool forms GKE accepts, EFA layouts per instance type, EKS
versions, FSx sizes, a shared cluster's pool and queue limits, ...) is data here, each row with its source and
date, and the checks that apply it return `Problem`s naming the plan field and the fix.

Read by pricing (`accelfit.pricing.node_disks` prices the boot disk GKE gives a machine family), by the
components (which refuse a plan with any problem before creating a resource) and by `accelfit check`; this
package imports nothing from `components/` or `policies/` and never Pulumi (tests/test_boundaries.py).

- `gcp/`: Google Cloud (rules.py + data/gke_rules.yaml, names.py, tpu_rules.py, tpu_disks.py, tpu_runtime.py,
  node_settings.py, retention.py; validation.py checks a whole GCP plan);
- `aws/`: AWS (instance_rules.py + data/efa_layouts.yaml, efa.py, eks_versions.py,
  fsx_sizes.py, addressing.py; plan_checks.py checks a whole EKS plan);
- `baremetal/`: owned servers (host_software.py + data/host_packages.yaml: driver branches, packages, which GPU
  models are SXM; checks.py checks a bare-metal plan against its inventory);
- `shared_cluster.py` + data/shared_cluster_rules.yaml: what one cluster holding several workloads may hold;
- `stack_checks.py`: all of the above that a stack's plan can be checked against alone, which `accelfit check` runs.

The cloud data the planner reads while it plans (GCP flex-start's limits, what AWS sells as a Capacity Block) lives a
layer down, in the cloud registry (accelfit/clouds/gcp_flex_start.py, accelfit/clouds/aws_capacity_blocks.py): this
package imports the planner (its checks read plans), so the planner imports nothing of it.
"""
