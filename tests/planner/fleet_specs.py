"""Workload specs for the fleet tests: small, each pinned to a place so placement is what the test says."""

from __future__ import annotations

from accelfit.spec import WorkloadSpec


def spec(**document) -> WorkloadSpec:
    return WorkloadSpec.model_validate(document)


def jax_pretrain(name: str = "pretrain", **placement) -> WorkloadSpec:
    return spec(name=name, kind="training", framework="jax", model={"parameters": "1B"},
                training={"tokens": "20B", "deadline_days": 2}, data={"dataset_tb": 0.5},
                placement={"clouds": ["gcp"], "regions": ["us-central1"], **placement},
                budget={"max_monthly_usd": 30000, "pricing": ["spot", "on-demand"]})


def gpu_serving(name: str = "chat-serve", cloud: str = "gcp", region: str = "us-central1",
                accelerators: tuple[str, ...] = ("l4",), pricing: object = "on-demand") -> WorkloadSpec:
    return spec(name=name, kind="inference", framework="pytorch", model={"parameters": "8B"},
                inference={"requests_per_second": 20, "latency_p99_ms": 15000},
                placement={"clouds": [cloud], "regions": [region], "accelerators": list(accelerators)},
                budget={"max_monthly_usd": 40000, "pricing": pricing})


def kernels_finetune(name: str = "ft-kernels", cloud: str = "gcp", region: str = "us-central1") -> WorkloadSpec:
    """Hand-written CUDA kernels: GPUs only, whatever a TPU would cost."""
    return spec(name=name, kind="fine-tuning", framework="pytorch", model={"parameters": "8B", "custom_kernels": True},
                training={"tokens": "1B", "deadline_days": 3, "method": "lora"},
                placement={"clouds": [cloud], "regions": [region]}, budget={"pricing": ["spot", "on-demand"]})
