"""The Plan: the planner's answer, and the only thing components build from.

Frozen and explicit: everything a component needs (machine types, counts, zones, taints, labels, storage sizes)
is decided here, so `components/` chooses nothing. `accelfit plan --json` prints `Plan.to_json_dict()`, whose
keys scripts rely on (design.md section 4).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_serializer, model_validator

from accelfit.buying import BuyingModel, buying_model
from accelfit.clouds.names import PlanCloud as PlanCloud, Platform as Platform  # the plan's vocabulary, re-exported
from accelfit.planner.serving.traffic import ServingRoute


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# The flags plan documents carry a pool's buying model as, and the model each one names.
_BUYING_FLAGS = {"spot": "spot", "capacity_block": "capacity-block", "flex_start": "flex-start"}


def _buying_of(flags: Mapping[str, bool], reservation: str | None) -> str:
    """The one buying model the flags state (none set: a held reservation where one is named, else on demand)."""
    chosen = [model for flag, model in _BUYING_FLAGS.items() if flags.get(flag)]
    if len(chosen) > 1:
        raise ValueError(f"a pool has one buying model; {' and '.join(chosen)} are both set")
    return chosen[0] if chosen else ("reservation" if reservation else "on-demand")


class Taint(Frozen):
    key: str
    value: str
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class NodePool(Frozen):
    """One group of identical nodes. GPU/TPU pools carry their accelerators; the system pool carries none."""

    name: str = Field(description="Short role name used in resource names, e.g. system, gpu, tpu-0.")
    role: Literal["system", "gpu", "tpu"]
    machine_type: str = Field(description="GCP machine type or AWS instance type.")
    accelerator: str | None = Field(default=None, description="Canonical accelerator name.")
    accelerators_per_node: int = Field(default=0, ge=0)
    gke_accelerator: str | None = Field(default=None, description="GKE guest accelerator / TPU node label.")
    min_nodes: int = Field(ge=0)
    max_nodes: int = Field(ge=1)
    initial_nodes: int = Field(ge=0)
    buying: str = Field(
        default="on-demand", description="The buying model the pool's nodes are obtained under (accelfit/buying: "
        "on-demand, spot, reservation, flex-start, capacity-block; a commitment's pools are on-demand). Plan "
        "documents carry it as the flags spot, capacity_block and flex_start, as they did before it existed.")
    reservation: str | None = Field(default=None, description="Name of a reservation/capacity block to consume.")
    zones: tuple[str, ...] = Field(min_length=1)
    taints: tuple[Taint, ...] = ()
    labels: dict[str, str] = Field(default_factory=dict)
    compact_placement: bool = Field(default=False, description="Place nodes close together (multi-node training).")
    tpu_topology: str | None = Field(default=None, description="TPU slice topology, e.g. 4x4x4.")
    tpu_slice: str | None = Field(default=None, description="Cloud TPU accelerator type, e.g. v5p-128.")
    efa_interfaces: int = Field(default=0, ge=0, description="AWS: EFA interfaces per node (0 = none).")
    gpudirect: Literal["none", "tcpx", "tcpxo", "rdma"] = "none"
    local_nvme_gb: float = Field(default=0, ge=0)
    driver_version: str | None = Field(default=None, description="GPU driver: GKE DEFAULT/LATEST or a pinned version.")
    disk_size_gb: int = Field(default=200, ge=10)
    gpu_sharing_strategy: Literal["TIME_SHARING", "MPS"] | None = Field(
        default=None, description="GCP: share each GPU between pods (GKE GPU sharing); None = one pod per GPU.")
    gpu_max_shared_clients: int = Field(default=0, ge=0, description="GCP: pods per GPU when sharing.")
    serving_start_utc: str | None = Field(
        default=None, description="Inference served part of the day: the pool scales up at this time (HH:MM, UTC) "
        "and to zero serving_hours_per_day later, by a schedule the stack builds; None = the pool runs all day.")
    serving_hours_per_day: float | None = Field(default=None, gt=0, lt=24)
    avoid_reservations: bool = Field(
        default=False, description="Never consume reserved capacity (GKE NO_RESERVATION, EC2 capacity reservation "
        "preference none): a standby pool of a plan on a held reservation, so the reservation stays the planned "
        "pool's and the standby step gets capacity when the reservation is full.")
    fallback_rank: int = Field(
        default=0, ge=0, description="0 = a planned pool; above 0 = a fleet workload's standby pool for that step of "
        "its fallback chain (FallbackStep.rank), scaled from 0 nodes.")
    measured_power_w: float | None = Field(
        default=None, gt=0, le=2000, description="Owned servers: the board power per accelerator `accelfit "
        "calibrate` measured (DCGM power draw), which the energy term used instead of the catalog's; the servers' "
        "nodes carry it for the preview. None = the catalog's.")

    @field_validator("buying")
    @classmethod
    def _a_pool_model(cls, value: str) -> str:
        model = buying_model(value)
        if model.pool_model != model.name:
            raise ValueError(f"buying: a pool on {value} is built as {model.pool_model}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _buying_from_flags(cls, data: Any) -> Any:
        """Plan documents (and callers) state the buying model as the flags spot, capacity_block and flex_start."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        flags = {flag: bool(data.pop(flag, False)) for flag in _BUYING_FLAGS}
        stated = _buying_of(flags, data.get("reservation"))
        if "buying" not in data:
            data["buying"] = stated
        elif any(flags.values()) and stated != data["buying"]:
            raise ValueError(f"buying is {data['buying']} but the pool's flags say {stated}")
        return data

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> NodePool:
        """As pydantic's, but the buying-model flags of a plan document (spot, capacity_block, flex_start) in
        `update` set `buying`: a copy is not validated, and the flags are read from `buying`."""
        if update and any(flag in update for flag in _BUYING_FLAGS):
            changed = dict(update)
            flags = {flag: bool(getattr(self, flag)) for flag in _BUYING_FLAGS}
            flags.update({flag: bool(changed.pop(flag)) for flag in _BUYING_FLAGS if flag in changed})
            changed.setdefault("buying", _buying_of(flags, changed.get("reservation", self.reservation)))
            update = changed
        return super().model_copy(update=update, deep=deep)

    @property
    def buying_record(self) -> BuyingModel:
        return buying_model(self.buying)

    @property
    def spot(self) -> bool:
        return self.buying_record.preemptible

    @property
    def capacity_block(self) -> bool:
        """AWS: `reservation` is an EC2 Capacity Block for ML (market type capacity-block) rather than an On-Demand
        Capacity Reservation."""
        return self.buying_record.whole_block

    @property
    def flex_start(self) -> bool:
        """GCP: the pool runs on Dynamic Workload Scheduler flex-start capacity (no spot, no reservation, starts at
        0 nodes, each node runs at most 7 days)."""
        return self.buying_record.queued

    @model_serializer(mode="wrap")
    def _planned_pools_as_before(self, handler: Any) -> Any:
        """A planned pool (rank 0) serializes as it did before fleets existed, and the buying model as the flags it
        replaced, in their places: plan documents, previews and their goldens stay byte for byte the same."""
        data = handler(self)
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key == "buying":
                out["spot"] = self.spot
                continue
            out[key] = value
            if key == "serving_hours_per_day":
                out["capacity_block"] = self.capacity_block
                if self.flex_start:  # pools not on flex-start serialize as before it existed
                    out["flex_start"] = True
        if self.fallback_rank == 0:
            out.pop("fallback_rank", None)
        if not self.avoid_reservations:
            out.pop("avoid_reservations", None)  # likewise
        if self.measured_power_w is None:
            out.pop("measured_power_w", None)  # likewise: plans without a measured power as before
        return out


class TpuVmSlice(Frozen):
    """A TPU slice run as TPU VMs (orchestration: vms)."""

    name: str = Field(description="Slice name suffix, e.g. slice-0.")
    accelerator_type: str = Field(description="Cloud TPU accelerator type, e.g. v5p-128.")
    accelerator_config_type: str = Field(description="V2Vm accelerator_config.type, e.g. V5P.")
    topology: str
    zone: str
    runtime_version: str = Field(description="TPU software version matching the framework.")
    spot: bool = False
    reserved: bool = False
    queued: bool = Field(default=False, description="Obtain capacity through a Cloud TPU queued resource.")
    data_disk_gb: int = Field(default=0, ge=0, description="Persistent data disk attached to the slice; 0 = none.")


class GpuVmPlan(Frozen):
    """One GPU VM for a single-node job without a cluster (gce-gpu-vm, ec2-gpu-vm): everything the component
    builds, decided here (accelfit.planner.gpu_vms)."""

    machine_type: str = Field(description="GCE machine type (GPUs bundled with a2/a3/g2) or EC2 instance type.")
    accelerator: str
    gpus: int = Field(ge=1)
    zone: str
    spot: bool = False
    boot_disk_gb: int = Field(ge=50, description="Boot disk: the image, the environment, weights and data cache.")
    boot_disk_type: str = Field(description="GCE disk type (pd-balanced, hyperdisk-balanced) or EBS volume type.")
    image: str = Field(description="GCE: image family path projects/<project>/global/images/family/<family>; "
                                   "EC2: resolve:ssm:<public parameter> naming the Deep Learning AMI.")
    image_source: str = Field(description="Where the image name comes from (docs page), with its date.")
    autostop_idle_minutes: int = Field(ge=5)
    autostop_action: Literal["stop", "delete"] = "stop"
    command: str | None = Field(default=None, description="What the job runs (training.command): at every boot "
                                                          "until it succeeds once.")
    code: str | None = Field(default=None, description="training.code: the archive or pinned git commit the startup "
                                                       "script fetches into the job directory.")
    container_image: str | None = Field(default=None, description="training.image: the container the startup script "
                                                                  "runs with the GPUs.")

    @model_serializer(mode="wrap")
    def _job_fields_when_set(self, handler: Any) -> Any:
        """A VM without code or image serializes as before those fields existed."""
        data = handler(self)
        if isinstance(data, dict):
            for name in ("code", "container_image"):
                if data.get(name) is None:
                    data.pop(name, None)
        return data


class NetworkPlan(Frozen):
    cidr: str = "10.0.0.0/16"
    pods_cidr: str = "10.64.0.0/14"
    services_cidr: str = "10.68.0.0/20"
    extra_networks: int = Field(default=0, ge=0, description="GCP: extra VPCs for GPUDirect NICs.")
    efa: bool = Field(default=False, description="AWS: EFA networking between nodes.")
    placement_group: bool = Field(default=False, description="AWS: cluster placement group for the GPU nodes.")
    master_cidr: str = Field(default="172.16.0.0/28", description="GCP: /28 for the private GKE control plane.")


class StoragePlan(Frozen):
    dataset_tb: float = Field(ge=0)
    checkpoint_tb: float = Field(ge=0, description="Checkpoints kept, TB (sized from the model's state).")
    bucket_versioning: bool = True
    checkpoint_retention_days: int = Field(default=30, ge=1, description="Older checkpoint objects age out.")
    shared_filesystem: Literal["none", "filestore", "fsx-lustre"] = "none"
    filesystem_capacity_gib: int = Field(default=0, ge=0)
    filesystem_throughput_mbps_per_tib: int = Field(default=0, ge=0, description="FSx for Lustre per-unit throughput.")
    filestore_tier: Literal["BASIC_HDD", "BASIC_SSD", "ZONAL", "REGIONAL", "ENTERPRISE", "HIGH_SCALE_SSD"] = Field(
        default="ZONAL", description="GCP: Filestore service tier when shared_filesystem is filestore.")


class CostLine(Frozen):
    item: str = Field(description="compute, system, cluster, nat, storage, filesystem, egress, standby (the "
                      "fallback chain's standby pools: full scale only)")
    monthly_usd: float = Field(description="Per month as planned (see Estimate.monthly_usd).")
    full_scale_monthly_usd: float = Field(description="Per month at its maximum size all month.")
    total_usd: float = Field(description="Training: its share of the run total; inference: per month.")
    note: str = ""

    @model_validator(mode="before")
    @classmethod
    def _full_scale_defaults_to_monthly(cls, data: Any) -> Any:
        return _full_scale_default(data)


def _full_scale_default(data: Any) -> Any:
    """Documents and hand-built estimates from before the three figures: full scale = monthly."""
    if isinstance(data, dict) and "full_scale_monthly_usd" not in data and "monthly_usd" in data:
        return {**data, "full_scale_monthly_usd": data["monthly_usd"]}
    return data


class Estimate(Frozen):
    hours: float = Field(description="Wall-clock hours of the run (training) or per month of service (inference).")
    accelerator_hours: float
    devices: int = Field(description="Accelerators (GPUs or TPU chips) in use.")
    mfu: float | None = Field(default=None, description="Model FLOPs utilisation assumed (training).")
    mfu_source: str = ""
    replicas: int | None = Field(default=None, description="Serving replicas (inference).")
    tokens_per_second: float | None = Field(default=None, description="Training or serving throughput estimate.")
    latency_p99_ms: float | None = Field(default=None, description="Estimated p99 latency (inference).")
    latency_target_p99_ms: float | None = Field(default=None, description="The spec's p99 target (inference).")
    latency_headroom: float | None = Field(default=None, description=(
        "Share of the p99 target left unused by the estimate, e.g. 0.25 = the estimate is 75% of the target."))
    memory_per_device_gib: float = Field(description="Memory the workload needs per device.")
    monthly_usd: float = Field(description=(
        "What the stack costs per month while it exists, as planned: always-on parts (control plane, NAT, system "
        "pool, storage) all month, accelerator pools for the hours they are planned to run in that month."))
    full_scale_monthly_usd: float = Field(description=(
        "Every pool at its maximum all month: the most the autoscaler can spend."))
    run_total_usd: float | None = Field(default=None, description=(
        "Training: the run from start to end with its fixed overheads (see cost_assumptions); None for inference."))
    total_usd: float = Field(description="Training: run_total_usd; inference: monthly_usd (kept for scripts).")
    cost_assumptions: tuple[str, ...] = ()
    breakdown: tuple[CostLine, ...]
    prices_verified: bool = Field(default=True, description="False when a price used is second-hand.")

    @model_validator(mode="before")
    @classmethod
    def _full_scale_defaults_to_monthly(cls, data: Any) -> Any:
        return _full_scale_default(data)


class PlanAccelerator(Frozen):
    name: str
    kind: Literal["gpu", "tpu"]
    count: int = Field(ge=1, description="Total accelerators (GPUs or TPU chips).")
    topology: str | None = None
    slice: str | None = Field(default=None, description="TPU accelerator type per slice, e.g. v5p-128.")
    slices: int | None = Field(default=None, description="TPU slices (multislice when > 1).")
    instance_type: str | None = None
    nodes: int | None = None
    per_node: int | None = None


class Alternative(Frozen):
    option: str
    platform: Platform
    cloud: PlanCloud
    region: str
    accelerator: str
    count: int
    pricing: str
    hours: float
    monthly_usd: float
    total_usd: float
    score_usd: float = Field(description="Cost after soft-preference penalties, used for ranking.")
    why_not: str


class Rejection(Frozen):
    option: str
    rule: str = Field(description="Which rule rejected it; rejections are grouped by rule.")
    reason: str


class ServingPool(Frozen):
    """One model-server pool of an inference workload, in route order: everything the server is built with."""

    rank: int = Field(ge=1, description="Route order: 1 = the planned pool, then the fallback steps in order.")
    fallback_rank: int = Field(ge=0, description="0 = the planned pools; above 0 = the standby pools of that step of "
                               "the fallback chain (NodePool.fallback_rank).")
    node_pools: tuple[str, ...] = Field(min_length=1, description="The plan's node pools this server runs on.")
    accelerator: str
    kind: Literal["gpu", "tpu"]
    machine_type: str
    accelerators_per_node: int = Field(ge=1)
    pricing: str
    tensor_parallel: int = Field(ge=1, description="vLLM --tensor-parallel-size: chips per pipeline stage.")
    pipeline_parallel: int = Field(ge=1, description="vLLM --pipeline-parallel-size: nodes per replica (GPU).")
    data_parallel: int = Field(default=1, ge=1, description="vLLM --data-parallel-size: a Mixture-of-Experts "
                               "replica over several nodes runs one data-parallel attention rank per node.")
    expert_parallel: bool = Field(default=False, description="vLLM --enable-expert-parallel: the routed experts "
                                  "spread over every GPU of the replica (its nodes' all-to-alls in the model).")
    chips_per_replica: int = Field(ge=1)
    nodes_per_replica: int = Field(ge=1, description="1: a Deployment; above 1: a LeaderWorkerSet group.")
    replicas_at_rate: int = Field(ge=1, description="Replicas that carry the planned rate on this pool alone.")
    replicas_min: int = Field(ge=0, description="The planned pool: replicas_at_rate, the replicas that carry "
                              "requests_per_second × peak_factor (the pool's minimum nodes hold them); a standby "
                              "pool: 0 (scaled from 0 like its nodes).")
    replicas_max: int = Field(ge=1, description="What the pool's maximum nodes hold (the environment's policy "
                              "bounds the pool).")
    max_num_seqs: int = Field(ge=1, description="vLLM --max-num-seqs: the planned batch (sequences in flight).")
    in_flight_per_replica: float = Field(default=0.0, ge=0, description="Requests in flight (running and waiting) "
                                         "on one replica at its share of the planned peak: the autoscaler's load "
                                         "target per server (serving/traffic.py pool_scaling); 0 = not modelled.")
    max_model_len: int = Field(ge=1, description="vLLM --max-model-len: the longest request, tokens.")
    dtype: str = Field(description="vLLM --dtype.")
    quantization: str | None = Field(default=None, description="vLLM --quantization, when the precision needs one.")
    gpu_memory_utilization: float = Field(gt=0, le=1, description="vLLM --gpu-memory-utilization: the share of "
                                          "device memory the plan sized the KV cache against.")
    cpu_millis_per_pod: int = Field(default=0, ge=0, description="CPU one server pod requests, millicores: its "
                                    "accelerators' share of the node's vCPUs, halved (server_pods.yaml); 0 = unknown.")
    memory_mib_per_pod: int = Field(default=0, ge=0, description="Memory one server pod requests, MiB, as for CPU.")
    weights_gib: float = Field(ge=0, description="Weights one replica holds.")
    weights_read_gbps: float | None = Field(default=None, gt=0, description="What one node reads the weights at "
                                            "(weights_read.yaml); None without model.weights.")
    weights_load_seconds: float | None = Field(default=None, ge=0, description="Estimated read of a node's share of "
                                               "the weights; None without model.weights.")
    startup_seconds: float = Field(ge=0, description="Estimated engine start after the read (CUDA graphs, XLA).")
    ttft_p99_ms: float = Field(description="Modelled p99 time to first token at the planned batch.")
    tpot_p99_ms: float = Field(description="Modelled p99 time per output token (one engine step at the batch).")
    e2e_p99_ms: float = Field(description="Modelled p99 end-to-end latency at the planned batch.")
    ttft_margin: float | None = Field(default=None, description="Share of inference.ttft_p99_ms left unused.")
    tpot_margin: float | None = Field(default=None, description="Share of inference.tpot_p99_ms left unused.")
    e2e_margin: float = Field(description="Share of inference.latency_p99_ms left unused.")


class ServingPlan(Frozen):
    """An inference workload's model server (issue 26): which server, why, where it loads the weights, and each
    serving pool in route order (the planned pool first, then the fallback pools it is eligible for)."""

    server: str = Field(description="The engine the stack builds (accelfit.engines: vllm, ...), or none.")
    why: str = Field(description="Why this server: the spec's inference.server, or its default.")
    weights: str | None = Field(default=None, description="model.weights.")
    weights_reader: Literal["gcs-fuse", "runai-streamer", "hf-hub"] | None = None
    weights_token: str | None = Field(default=None, description="hf://: the stack config key holding the token.")
    requests_per_second: float
    ttft_target_ms: float | None = None
    tpot_target_ms: float | None = None
    e2e_target_ms: float
    route: str = Field(description="The route order across the pools, and why.")
    pools: tuple[ServingPool, ...] = ()
    notes: tuple[str, ...] = ()

    @field_validator("server")
    @classmethod
    def _known_engine(cls, server: str) -> str:
        from accelfit.engines import NONE, engines

        if server != NONE and server not in engines():
            raise ValueError(f"server: {server} is not an engine ({', '.join(engines())}) nor none")
        return server


class OverflowPlan(Frozen):
    """A dedicated workload's cloud overflow (placement.overflow): the cloud cluster that takes the jobs its owned
    servers have no room for, through Kueue MultiKueue, and what it is expected to cost."""

    cloud: str
    region: str
    worker: str = Field(description="The overflow cluster's name in the MultiKueue manager (after the owned one).")
    owned_worker: str = Field(description="The owned cluster's name in the MultiKueue manager (tried first).")
    hours_per_month: float = Field(description="Hours a month the overflow pool runs at its full size (an assumption).")
    moves_when: str = Field(description="How a job gets to the overflow cluster.")
    wait_minutes: int = Field(description="How long a job the owned cluster cannot admit waits before the overflow "
                              "cluster is tried (the MultiKueue Incremental dispatcher's round).")
    manager: str = Field(description="Which cluster dispatches the jobs, and how it reaches the workers.")
    plan: Plan = Field(description="The overflow cluster as planned for the spec in that cloud and region; its "
                       "accelerator pools scale from 0 and carry the hours they are priced for.")


class Plan(Frozen):
    workload: str
    kind: str
    framework: str
    environment: str
    option: str = Field(description="Stable id of the chosen option; `accelfit lock` stores it.")
    platform: Platform
    cloud: PlanCloud
    region: str
    zones: tuple[str, ...]
    pricing: str
    orchestration: Literal["kubernetes", "vms"]
    accelerator: PlanAccelerator
    node_pools: tuple[NodePool, ...] = ()
    tpu_vm_slices: tuple[TpuVmSlice, ...] = ()
    gpu_vm: GpuVmPlan | None = Field(default=None, description="gce-gpu-vm / ec2-gpu-vm: the one VM.")
    baremetal_hosts: tuple[str, ...] = Field(default=(), description="Inventory server names used.")
    network: NetworkPlan = Field(default_factory=NetworkPlan)
    gke_release_channel: Literal["RAPID", "REGULAR", "STABLE"] = Field(
        default="REGULAR", description="GCP: GKE release channel of the cluster.")
    eks_version: str | None = Field(
        default=None, description="AWS: EKS Kubernetes version, e.g. 1.33; None = the version EKS defaults to.")
    storage: StoragePlan
    estimate: Estimate
    reasons: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    catalog_as_of: dt.date = Field(description="Newest price date the plan used.")
    catalog: str = Field(default="", description="Which catalog the plan used: the shipped snapshot, or the one "
                         "`accelfit catalog update` imported, with its date and source.")
    serving: ServingPlan | None = Field(default=None, description="Inference: the model server and its pools in route "
                                        "order; None for training.")
    overflow: OverflowPlan | None = Field(default=None, description="placement.overflow: the cloud cluster that "
                                          "takes the jobs the owned servers have no room for; None without one.")
    route: ServingRoute | None = Field(default=None, description="The serving route and autoscaling the stack builds "
                                       "with the model server (one endpoint across the serving pools, in route "
                                       "order); None when it builds no server.")

    @model_serializer(mode="wrap")
    def _cluster_plans_as_before(self, handler: Any) -> Any:
        """A plan without a GPU VM serializes as it did before GPU VMs existed: plan documents, previews and their
        goldens stay byte for byte the same."""
        data = handler(self)
        if isinstance(data, dict) and self.gpu_vm is None:
            data.pop("gpu_vm", None)
        if isinstance(data, dict) and self.serving is None:
            data.pop("serving", None)  # training plans serialize as before serving existed
        if isinstance(data, dict) and self.overflow is None:
            data.pop("overflow", None)  # plans without an overflow serialize as before it existed
        if isinstance(data, dict) and self.route is None:
            data.pop("route", None)  # plans without a model server serialize as before the route existed
        return data

    def to_json_dict(self) -> dict[str, Any]:
        """The `accelfit plan --json` document (design.md section 4 keys plus the full plan)."""
        return self.model_dump(mode="json")


OverflowPlan.model_rebuild()  # its `plan` is a Plan, defined after it
