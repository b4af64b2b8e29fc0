"""The model server's Kubernetes objects as plain manifests (camelCase, as the API server reads them), built from the
plan's serving section only. Pure: no Pulumi import (node-pool names may be deploy-time values; they are carried
through untouched).

Sources, field by field (the conformance test compares the rendered objects with these blueprints' facts,
recorded in tests/components/kubernetes/serving_blueprints.py):
  - GKE Inference Gateway quickstart model server, GoogleCloudPlatform/kubernetes-engine-samples
    ai-ml/infw-gw/examples/getting-started/vllm-llama3-8b-instruct.yaml @334b9d14: container port `http` 8000, the
    OpenAI server entry point, /health for startup, readiness and liveness probes, a startup probe that gives the
    model its load time, a 30 s preStop sleep so gateways take the pod out of rotation, enableServiceLinks false
    (a Service named vllm would inject VLLM_PORT), /dev/shm as a memory emptyDir, the Hugging Face token from a
    Secret;
  - vLLM's production Helm chart, vllm-project/production-stack helm/values.yaml @a6c01db0: the probes' periods and
    failure thresholds (PROBES);
  - the plan: CPU and memory requests (ServingPool.cpu_millis_per_pod, accelfit/planner/data/server_pods.yaml);
  - GKE vLLM tutorial (same repository, ai-ml/llm-serving-gemma/vllm/vllm-3-27b-it.yaml @3c147d57): a ClusterIP
    Service on 8000, --tensor-parallel-size / --max-model-len / --max-num-seqs / --gpu-memory-utilization as args;
  - LeaderWorkerSet vLLM example, kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml @v0.7.0 (cd3a73a3): a
    group of `size` pods, restartPolicy RecreateGroupOnPodRestart, the leader starting Ray with
    multi-node-serving.sh then the server with --tensor-parallel-size (GPUs per node) and
    --pipeline-parallel-size (nodes), workers joining $(LWS_LEADER_ADDRESS), a Service on the leader;
  - GCS FUSE CSI ephemeral volume for model serving, kubernetes-engine-samples ai-ml/gcsfuse-shared-cache/
    vllm-a.yaml @d230dfb7: pod annotation gke-gcsfuse/volumes "true", driver gcsfuse.csi.storage.gke.io,
    readOnly, mount options implicit-dirs and file-cache parallel downloads (GKE docs: Cloud Storage FUSE CSI
    driver, "optimize for model serving");
  - the engine (accelfit.engines: vLLM, ...): its image, entry point, flags, port, health path and multi-node
    launcher, each sourced in its module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accelfit.engines import Engine, ServerShape, engine
from accelfit.engines.vllm import MULTI_NODE_SCRIPT, PORT  # noqa: F401  (names tests and the fuzz oracle read)
from accelfit.errors import InputError, problem
from accelfit.planner.model import ServingPlan, ServingPool, Taint
from accelfit.planner.serving.route_plan import server_name
from accelfit.values import ObjectLocation, split_location
from components.kubernetes.serving.images import server_image

PORT_NAME = "http"
# The labels the traffic side (InferencePool, HTTPRoute, autoscaling) selects serving pods by: stable names.
NAME_LABEL = "app.kubernetes.io/name"
WORKLOAD_LABEL = "accelfit.io/workload"
POOL_LABEL = "accelfit.io/serving-pool"
PRIORITY_CLASS = "accelfit-serving"
# Scheduling priority of serving pods: above every batch pod (priority 0 unless a class says otherwise), so on a
# pool a batch job borrowed through Kueue's cohort the scheduler preempts the batch pod for the server.
# https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/ (values up to 1e9 for users).
# The server is not queued through Kueue: Kueue 0.19's default configuration manages a Deployment or LeaderWorkerSet
# only when it carries the kueue.x-k8s.io/queue-name label (manageJobsWithoutQueueName off; chart defaults in
# accelfit/chartvalues/data/defaults/kueue.yaml), and a queued server would have Kueue choose its flavor (its pool)
# per pod, where the plan's route fixes each server to its pool. Kueue's WorkloadPriorityClass orders queued jobs
# only, so it is the scheduler's PriorityClass that keeps serving ahead of batch here (kueue.sigs.k8s.io
# docs/concepts/workload_priority_class).
PRIORITY_VALUE = 100_000
PRESTOP_SECONDS = 30  # the blueprint's preStop sleep: gateways take the pod out of rotation first
WEIGHTS_MOUNT = "/models"
# GCS FUSE mount options for reading large safetensors once: the GKE sample's options (file-cache parallel
# downloads for model loading, metadata caches), plus only-dir for the model's folder in the bucket.
GCSFUSE_OPTIONS = ("implicit-dirs", "file-cache:enable-parallel-downloads:true",
                   "file-cache:cache-file-for-range-read:false", "file-cache:download-chunk-size-mb:32",
                   "file-cache:max-size-mb:-1", "metadata-cache:stat-cache-max-size-mb:32",
                   "metadata-cache:ttl-secs:3600", "metadata-cache:type-cache-max-size-mb:4")
GCSFUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
# The sidecar injected for the volume, with its CPU, memory and ephemeral-storage limits unset ("0"): its default
# 5 GiB ephemeral-storage limit is far below a model's file cache (GKE's tuned vLLM-on-GCS-FUSE Deployment
# vllm-openai-gcs-tuned-llama33-70b-a100 and ai-on-gke's model-vllm-inference-server set the same three).
GCSFUSE_POD_ANNOTATIONS = {"gke-gcsfuse/volumes": "true", "gke-gcsfuse/cpu-limit": "0",
                           "gke-gcsfuse/memory-limit": "0", "gke-gcsfuse/ephemeral-storage-limit": "0"}
HF_TOKEN_ENV = "HUGGING_FACE_HUB_TOKEN"
HF_TOKEN_KEY = "token"
# The startup probe waits this many times the plan's estimated load + start: an estimate, not a promise.
STARTUP_SAFETY = 2.0
STARTUP_FLOOR_SECONDS = 300
# Probe periods and failure thresholds of vLLM's production Helm chart (vllm-project/production-stack helm/values.yaml
# @a6c01db05f65f556235413ba8dbcfb0c01132fff, servingEngineSpec: startupProbe periodSeconds 10; livenessProbe
# periodSeconds 10, failureThreshold 3; readinessProbe periodSeconds 5, failureThreshold 3; timeoutSeconds left at
# Kubernetes' default, 1 s). A server under full batch answers /health late now and then: one missed 1 s probe must
# not take it out of rotation (the GKE quickstart's readiness failureThreshold 1) nor restart it.
STARTUP_PERIOD_SECONDS = 10
PROBES = {"readiness": {"periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3, "timeoutSeconds": 1},
          "liveness": {"periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3, "timeoutSeconds": 1}}
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}  # `pulumi up` does not block on a model's load (minutes)


@dataclass(frozen=True)
class PoolTarget:
    """Where one serving pool's pods go: the node-pool label and the pools' names, their taints, the TPU labels."""

    pool: ServingPool
    pool_label: str
    pool_names: Sequence[Any]
    taints: tuple[Taint, ...] = ()
    tpu_labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ServerSettings:
    workload: str
    namespace: str
    service_account: str
    cloud: str
    region: str
    serving: ServingPlan
    labels: Mapping[str, str] = field(default_factory=dict)
    hf_secret: str | None = None

    @property
    def engine(self) -> Engine:
        """The plan's model server (serving.server), which decides image, flags, port, probes and launcher."""
        return engine(self.serving.server)


def object_name(settings: ServerSettings, pool: ServingPool) -> str:
    """`<workload>-<engine>-<node pool>`, fitted to what its kind allows (accelfit.planner.serving.route_plan)."""
    return server_name(settings.workload, pool, settings.engine.name)


def argument(value: str) -> str:
    """A container command or argument that reaches the process unchanged: Kubernetes expands `$(NAME)` in both
    from the container's environment and reads `$$` as one `$` (Container.args, core/v1 API reference;
    kubernetes third_party/forked/golang/expansion/expand.go), so every `$` of a value is doubled."""
    return value.replace("$", "$$")


def selector_labels(settings: ServerSettings, pool: ServingPool) -> dict[str, str]:
    return {NAME_LABEL: settings.engine.name, WORKLOAD_LABEL: settings.workload, POOL_LABEL: pool.node_pools[0]}


def model_source(settings: ServerSettings) -> tuple[str, str]:
    """(what the server loads, the weights' scheme): the GCS FUSE mount, the s3:// URL, or the repo id."""
    weights = settings.serving.weights or ""
    scheme = split_location(weights).scheme  # checked where the spec was read; parts only here
    if scheme == "gs":
        return WEIGHTS_MOUNT, scheme
    if scheme == "s3":
        return weights, scheme
    return weights.removeprefix("hf://"), "hf"


def server_shape(settings: ServerSettings, pool: ServingPool) -> ServerShape:
    """The pool's server as the plan sizes it: what the engine renders its flags from."""
    model, scheme = model_source(settings)
    return ServerShape(workload=settings.workload, model=model, weights_scheme=scheme,
                       tensor_parallel=pool.tensor_parallel, pipeline_parallel=pool.pipeline_parallel,
                       nodes=pool.nodes_per_replica, max_running_requests=pool.max_num_seqs,
                       max_model_len=pool.max_model_len, dtype=pool.dtype,
                       memory_fraction=pool.gpu_memory_utilization, quantization=pool.quantization,
                       data_parallel=pool.data_parallel, expert_parallel=pool.expert_parallel)


def server_flags(settings: ServerSettings, pool: ServingPool) -> list[str]:
    """The engine's server flags, every value from the plan."""
    return settings.engine.flags(server_shape(settings, pool))


def startup_failure_threshold(pool: ServingPool) -> int:
    """Probed every STARTUP_PERIOD_SECONDS: the plan's load + start estimate times the safety factor, never under
    5 minutes."""
    estimate = (pool.weights_load_seconds or 0.0) + pool.startup_seconds
    return math.ceil(max(STARTUP_FLOOR_SECONDS, estimate * STARTUP_SAFETY) / STARTUP_PERIOD_SECONDS)


def probes(pool: ServingPool, health_path: str = "/health") -> dict[str, Any]:
    """The engine's health probes with the periods and failure thresholds of vLLM's production Helm chart (PROBES):
    a busy server that misses one probe is neither taken out of rotation nor restarted; three in a row are."""
    http = {"path": health_path, "port": PORT_NAME, "scheme": "HTTP"}
    return {
        "startupProbe": {"httpGet": http, "periodSeconds": STARTUP_PERIOD_SECONDS,
                         "failureThreshold": startup_failure_threshold(pool)},
        "readinessProbe": {"httpGet": http, **PROBES["readiness"]},
        "livenessProbe": {"httpGet": http, **PROBES["liveness"]},
    }


def termination_grace_seconds(settings: ServerSettings) -> int:
    """The preStop sleep, then the longest request the latency target allows, then a minute to stop."""
    return PRESTOP_SECONDS + math.ceil(settings.serving.e2e_target_ms / 1000.0) + 60


def accelerator_resources(target: PoolTarget) -> dict[str, Any]:
    """One pod's accelerators (the whole replica on one node, or one node of a multi-node group) and the CPU and
    memory the plan gives it (ServingPool.cpu_millis_per_pod / memory_mib_per_pod): requested, not limited, so the
    pod is Burstable rather than BestEffort (evicted first under node pressure) and may use idle CPU."""
    pool = target.pool
    per_pod = pool.chips_per_replica if pool.nodes_per_replica == 1 else pool.accelerators_per_node
    name = "google.com/tpu" if pool.kind == "tpu" else "nvidia.com/gpu"
    requests = {name: str(per_pod)}
    if pool.cpu_millis_per_pod and pool.memory_mib_per_pod:
        requests.update({"cpu": f"{pool.cpu_millis_per_pod}m", "memory": f"{pool.memory_mib_per_pod}Mi"})
    return {"limits": {name: str(per_pod)}, "requests": requests}


def _environment(settings: ServerSettings) -> list[dict[str, Any]]:
    env: list[dict[str, Any]] = []
    if settings.hf_secret:
        env.append({"name": HF_TOKEN_ENV, "valueFrom": {"secretKeyRef": {"name": settings.hf_secret,
                                                                          "key": HF_TOKEN_KEY}}})
    if settings.serving.weights and split_location(settings.serving.weights).scheme == "s3":
        env.append({"name": "AWS_REGION", "value": settings.region})  # the streamer's S3 client region
    return env


def _volumes(settings: ServerSettings) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """(volumes, mounts, pod annotations)."""
    volumes: list[dict[str, Any]] = [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
    mounts: list[dict[str, Any]] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    annotations: dict[str, str] = {}
    weights = settings.serving.weights
    if weights and split_location(weights).scheme == "gs":
        location = split_location(weights)
        volumes.append({"name": "weights", "csi": {"driver": GCSFUSE_DRIVER, "readOnly": True,
                                                   "volumeAttributes": {"bucketName": location.bucket,
                                                                        "mountOptions": mount_options(location)}}})
        mounts.append({"name": "weights", "mountPath": WEIGHTS_MOUNT, "readOnly": True})
        annotations.update(GCSFUSE_POD_ANNOTATIONS)
    return volumes, mounts, annotations


def mount_options(location: ObjectLocation) -> str:
    """The GCS FUSE volume's mountOptions: the fixed options, then `only-dir=<folder>` for the model's folder. The
    CSI driver splits this text on ',' with no escape and each option on its first '=' (gcs-fuse-csi-driver
    pkg/csi_driver/utils.go parseVolumeAttributes, pkg/sidecar_mounter/sidecar_mounter_config.go prepareMountArgs
    @5fcdc04a), so a folder holding ',' would add options of its own (uid=0, key-file=...): refused here as well as
    where the spec is read (accelfit.values)."""
    if "," in location.key or any(ord(char) < 32 for char in location.key):
        raise InputError([problem("spec", "model.weights", f"the folder of gs://{location.bucket} holds ',' or a "
                                  "control character, which the GCS FUSE mount options cannot carry",
                                  "copy the model to a folder without them")])
    return ",".join((*GCSFUSE_OPTIONS, *((f"only-dir={location.key}",) if location.key else ())))


def _placement(target: PoolTarget) -> dict[str, Any]:
    terms = [{"key": target.pool_label, "operator": "In", "values": list(target.pool_names)}]
    placement: dict[str, Any] = {
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": terms}]}}},
        "tolerations": [{"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
                        for taint in target.taints]}
    if target.tpu_labels:
        placement["nodeSelector"] = dict(target.tpu_labels)
    return placement


def pod_template(settings: ServerSettings, target: PoolTarget, role: str = "server") -> dict[str, Any]:
    """A server pod (role server), an LWS leader (leader) or an LWS worker (worker)."""
    pool = target.pool
    volumes, mounts, annotations = _volumes(settings)
    labels = {**settings.labels, **selector_labels(settings, pool)}
    image = server_image_ref(settings, pool)
    server = settings.engine
    container: dict[str, Any] = {"name": server.name, "image": image, "imagePullPolicy": "IfNotPresent",
                                 "resources": accelerator_resources(target), "volumeMounts": mounts}
    shape = server_shape(settings, pool)
    serve = [argument(part) for part in server.argv(shape)]
    launch = server.worker(shape, serve) if role == "worker" else server.leader(shape, serve) \
        if role == "leader" else None
    env = [*_environment(settings), *(dict(item) for item in (launch.env if launch else ()))]
    if env:
        container["env"] = env
    if role == "worker":
        labels = {**settings.labels, WORKLOAD_LABEL: settings.workload, POOL_LABEL: pool.node_pools[0],
                  "app.kubernetes.io/component": server.worker_component}
        assert launch is not None
        container["command"] = list(launch.command)
        if launch.args:
            container["args"] = list(launch.args)
    else:
        if launch is not None:
            labels["role"] = "leader"
            container["command"], container["args"] = list(launch.command), list(launch.args)
        else:
            entry = len(server.entrypoint)
            container["command"], container["args"] = serve[:entry], serve[entry:]
        container["ports"] = [{"name": PORT_NAME, "containerPort": server.port, "protocol": "TCP"}]
        container.update(probes(pool, server.health_path))
        container["lifecycle"] = {"preStop": {"sleep": {"seconds": PRESTOP_SECONDS}}}
    spec: dict[str, Any] = {"serviceAccountName": settings.service_account, "priorityClassName": PRIORITY_CLASS,
                            "enableServiceLinks": False,
                            "terminationGracePeriodSeconds": termination_grace_seconds(settings),
                            "containers": [container], "volumes": volumes, **_placement(target)}
    metadata: dict[str, Any] = {"labels": labels}
    if annotations:
        metadata["annotations"] = annotations
    return {"metadata": metadata, "spec": spec}


def server_image_ref(settings: ServerSettings, pool: ServingPool) -> str:
    return server_image(settings.engine.image_key(pool.kind)).reference


def deployment(settings: ServerSettings, target: PoolTarget) -> dict[str, Any]:
    """Single-node replicas. Rolling one replica at a time without a surge: a new replica needs a free accelerator
    node, which the pool may not have."""
    pool = target.pool
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": _metadata(settings, pool, SKIP_AWAIT),
            "spec": {"replicas": pool.replicas_min,
                     "selector": {"matchLabels": selector_labels(settings, pool)},
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
                     "template": pod_template(settings, target)}}


def leader_worker_set(settings: ServerSettings, target: PoolTarget) -> dict[str, Any]:
    """Multi-node replicas: one group of nodes_per_replica pods, leader serving, workers joining its Ray cluster."""
    pool = target.pool
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": _metadata(settings, pool, SKIP_AWAIT),
            "spec": {"replicas": pool.replicas_min,
                     "leaderWorkerTemplate": {"size": pool.nodes_per_replica,
                                              "restartPolicy": "RecreateGroupOnPodRestart",
                                              "leaderTemplate": pod_template(settings, target, "leader"),
                                              "workerTemplate": pod_template(settings, target, "worker")}}}


def service(settings: ServerSettings, pool: ServingPool) -> dict[str, Any]:
    """One ClusterIP Service per serving pool (private: no load balancer; the route is the traffic side's)."""
    selector = selector_labels(settings, pool)
    if pool.nodes_per_replica > 1:
        selector["role"] = "leader"
    return {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(settings, pool),
            "spec": {"type": "ClusterIP", "selector": selector,
                     "ports": [{"name": PORT_NAME, "port": settings.engine.port, "targetPort": PORT_NAME, "protocol": "TCP"}]}}


def disruption_budget(settings: ServerSettings, pool: ServingPool) -> dict[str, Any]:
    """At most one replica (one LWS group: its leader) down at a time for voluntary disruptions (node upgrades,
    autoscaler scale-down)."""
    selector = selector_labels(settings, pool)
    if pool.nodes_per_replica > 1:
        selector["role"] = "leader"
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": _metadata(settings, pool),
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": selector}}}


def priority_class(labels: Mapping[str, str]) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": PRIORITY_CLASS, "labels": dict(labels)}, "value": PRIORITY_VALUE,
            "globalDefault": False, "preemptionPolicy": "PreemptLowerPriority",
            "description": "accelfit model servers: ahead of batch and training pods on shared accelerator pools."}


def _metadata(settings: ServerSettings, pool: ServingPool, annotations: Mapping[str, str] | None = None
              ) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": object_name(settings, pool), "namespace": settings.namespace,
                                "labels": {**settings.labels, **selector_labels(settings, pool)}}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return metadata
