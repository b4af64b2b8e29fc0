"""Which Cloud TPU VM software version fits a TPU generation and framework. Pure; no Pulumi import.

The planner chooses `TpuVmSlice.runtime_version` (it may call `runtime_version_for`); the components only check
that the version can boot on the slice's generation and carries the framework. Versions from the Cloud TPU
"TPU software versions" page: https://cloud.google.com/tpu/docs/runtimes
"""

from __future__ import annotations

# JAX and PyTorch/XLA install their own packages on the generation's base image.
_BASE_IMAGE = {
    "tpu-v4": "tpu-ubuntu2204-base",
    "tpu-v5e": "v2-alpha-tpuv5-lite",
    "tpu-v5p": "v2-alpha-tpuv5",
    "tpu-v6e": "v2-alpha-tpuv6e",
}
# TensorFlow ships in the image; multi-host slices need the "pod" build. Newest TF release per generation
# that the runtimes page lists.
_TENSORFLOW = {
    "tpu-v4": "2.16.1",
    "tpu-v5e": "2.18.0",
    "tpu-v5p": "2.18.0",
    "tpu-v6e": "2.18.0",
}
# Base images that boot only on one generation.
_GENERATION_ONLY = {image: generation for generation, image in _BASE_IMAGE.items() if image.startswith("v2-alpha")}


def runtime_version_for(accelerator: str, framework: str, multi_host: bool) -> str:
    """The TPU VM software version for a canonical TPU name (tpu-v5p ...) and framework (jax, pytorch,
    tensorflow). Raises KeyError for a generation this table does not know."""
    if framework == "tensorflow":
        return f"tpu-vm-tf-{_TENSORFLOW[accelerator]}-{'pod-' if multi_host else ''}pjrt"
    return _BASE_IMAGE[accelerator]


def runtime_problem(runtime_version: str, accelerator: str, framework: str) -> str | None:
    """Why `runtime_version` cannot run `framework` on `accelerator`, or None when it can (or is unknown to us:
    new versions appear faster than this table, so only clear mismatches are refused)."""
    owner = _GENERATION_ONLY.get(runtime_version)
    if owner is not None and owner != accelerator:
        return f"{runtime_version} boots only on {owner}, not on {accelerator}"
    is_tensorflow_image = runtime_version.startswith("tpu-vm-tf-")
    if framework == "tensorflow" and not is_tensorflow_image:
        return f"{runtime_version} has no TensorFlow; TensorFlow needs a tpu-vm-tf-* version"
    if framework != "tensorflow" and is_tensorflow_image:
        return f"{runtime_version} is a TensorFlow image; {framework} runs on the base image"
    return None
