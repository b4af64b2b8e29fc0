"""The decision matrix, made exact: hard rules reject an accelerator for a workload with an actionable reason;
soft rules add documented penalties (see preferences.py)."""

from __future__ import annotations

from accelfit.engines import builds_server, engine
from accelfit.catalog.models import Accelerator
from accelfit.clouds import cloud_of_platform
from accelfit.planner import preferences as pref
from accelfit.planner.gpu_vms import job_rejection
from accelfit.spec import (
    Framework, Maturity, Portability, Traffic, WorkloadKind, WorkloadSpec, weights_cloud, weights_scheme,
)

# TPU generations built for serving; v4 and v5p are training parts (reference section 3).
SERVING_TPUS = ("tpu-v5e", "tpu-v6e")


def hard_rejection(spec: WorkloadSpec, accelerator: Accelerator, platform: str) -> tuple[str, str] | None:
    """(rule, reason) when the accelerator cannot run the workload on this platform, else None."""
    is_tpu = accelerator.kind == "tpu"
    allowed = spec.placement.accelerators
    if allowed and accelerator.name not in allowed:
        return ("allow-list", f"{accelerator.name} is not in placement.accelerators ({', '.join(allowed)}); "
                              "add it there to consider it")
    if is_tpu and spec.placement.portability is Portability.required:
        return ("portability", "placement.portability is required and TPUs run only on Google Cloud; set "
                               "portability: preferred to allow TPUs with a penalty")
    if is_tpu and spec.model.custom_kernels:
        return ("custom-kernels", "model.custom_kernels: hand-written CUDA/Triton kernels run only on NVIDIA GPUs")
    precision = spec.model.precision
    if not accelerator.supports(precision):
        supported = ", ".join(p.value for p in accelerator.dense_tflops)
        return ("precision", f"{accelerator.name} does not support {precision.value} (it supports {supported}); "
                             "change model.precision or allow a newer accelerator")
    if is_tpu and spec.kind is WorkloadKind.inference and accelerator.name not in SERVING_TPUS:
        return ("tpu-serving", f"{accelerator.name} is a training TPU; serving on TPU uses {' or '.join(SERVING_TPUS)}")
    pricing = spec.budget.pricing
    return server_rejection(spec, platform) or job_rejection(spec, platform, getattr(pricing, "value", ""))


# Where the stack builds a model server: a Kubernetes cluster accelfit creates (GKE or EKS), whose workload identity
# (GKE Workload Identity Federation, EKS Pod Identity) reads the weights bucket: each cloud's `server_platforms`
# (accelfit/clouds).


def server_rejection(spec: WorkloadSpec, platform: str) -> tuple[str, str] | None:
    """inference.server <engine>: only platforms the stack builds a server on, with an accelerator kind the engine
    runs on, in the cloud whose identity reads the weights bucket (hf:// weights download from either cloud)."""
    server = spec.model_server
    if server is None or not builds_server(server.value):
        return None
    cloud_of = cloud_of_platform(platform)
    if platform not in cloud_of.server_platforms:
        return ("model-server", f"inference.server {server.value} is built on GKE or EKS, not on {platform}; set "
                                "inference.server: none for capacity only there")
    kind = "tpu" if platform == "gke-tpu" else "gpu"
    runs_on = engine(server.value).accelerator_kinds
    if kind not in runs_on:
        return ("model-server", f"inference.server {server.value} runs on {' and '.join(runs_on).upper()}s only (no "
                                f"{kind.upper()} image), not on {platform}; set inference.server: vllm to serve from "
                                f"{kind.upper()}s")
    weights = spec.model.weights
    assert weights is not None  # a spec whose stack builds a server names its weights (WorkloadSpec._serving_rules)
    cloud = weights_cloud(weights_scheme(weights))
    if cloud is not None and cloud_of.name != cloud:
        return ("weights", f"model.weights {spec.model.weights} is read through the workload's {cloud} identity; "
                           f"{platform} runs in {cloud_of.name}. Copy the weights there (or use hf://) to "
                           "serve from it")
    return None


def penalties(spec: WorkloadSpec, accelerator: Accelerator) -> tuple[pref.Penalty, ...]:
    """Soft preferences that apply to running this workload on this accelerator."""
    if accelerator.kind != "tpu":
        return ()
    found: list[pref.Penalty] = []
    if spec.framework is Framework.pytorch:
        found.append(pref.PYTORCH_ON_TPU)
    if spec.model.dynamic_shapes:
        found.append(pref.DYNAMIC_SHAPES_ON_TPU)
    if spec.maturity is Maturity.experimental:
        found.append(pref.EXPERIMENTAL_ON_TPU)
    elif spec.maturity is Maturity.evolving:
        found.append(pref.EVOLVING_ON_TPU)
    if spec.inference is not None and spec.inference.traffic is Traffic.variable:
        found.append(pref.VARIABLE_INFERENCE_ON_TPU)
    if spec.placement.portability is Portability.preferred:
        found.append(pref.PORTABILITY_PREFERRED_ON_TPU)
    return tuple(found)
