"""Which Cloud TPU VM software version fits a TPU generation and framework. Pure; no Pulumi import.

The planner chooses `TpuVmSlice.runtime_version` from its table (accelfit/planner/data/software.yaml, sourced from
the Cloud TPU "TPU software versions" page, https://cloud.google.com/tpu/docs/runtimes); the components read the
same table and only check that a version can boot on the slice's generation and carries the framework.
"""

from __future__ import annotations

from accelfit.planner.software import common_tpu_runtimes, tpu_runtime_version
from accelfit.spec import Framework


def runtime_version_for(accelerator: str, framework: str, multi_host: bool) -> str:
    """The TPU VM software version for a canonical TPU name (tpu-v5p ...) and framework (jax, pytorch,
    tensorflow): the planner's table (accelfit/planner/data/software.yaml), so a plan and the check that guards it
    name one TensorFlow version per runtime. Raises KeyError for a generation the table does not know."""
    return tpu_runtime_version(accelerator, Framework(framework), multi_host)


def _generation_only() -> dict[str, str]:
    """Base images that boot on one generation only (the v2-alpha-* images) -> that generation."""
    return {image: generation for generation, image in common_tpu_runtimes().items() if image.startswith("v2-alpha")}


def runtime_problem(runtime_version: str, accelerator: str, framework: str) -> str | None:
    """Why `runtime_version` cannot run `framework` on `accelerator`, or None when it can (or is unknown to us:
    new versions appear faster than this table, so only clear mismatches are refused)."""
    owner = _generation_only().get(runtime_version)
    if owner is not None and owner != accelerator:
        return f"{runtime_version} boots only on {owner}, not on {accelerator}"
    is_tensorflow_image = runtime_version.startswith("tpu-vm-tf-")
    if framework == "tensorflow" and not is_tensorflow_image:
        return f"{runtime_version} has no TensorFlow; TensorFlow needs a tpu-vm-tf-* version"
    if framework != "tensorflow" and is_tensorflow_image:
        return f"{runtime_version} is a TensorFlow image; {framework} runs on the base image"
    return None
