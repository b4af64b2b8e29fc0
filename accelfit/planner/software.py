"""Software versions written into plans (TPU runtimes, GPU drivers), read from `data/software.yaml`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from accelfit.spec import Framework
from accelfit.yamlio import read_package_yaml

SOFTWARE_FILE = Path(__file__).parent / "data" / "software.yaml"


@functools.cache
def _software() -> dict[str, Any]:
    return read_package_yaml(SOFTWARE_FILE)


def tpu_runtime_version(generation: str, framework: Framework, multi_host: bool) -> str:
    runtimes = _software()["tpu_runtimes"]
    version: str = (runtimes["tensorflow"][generation]["multi_host" if multi_host else "single_host"]
                    if framework is Framework.tensorflow else runtimes["common"][generation])
    return version


def common_tpu_runtimes() -> dict[str, str]:
    """Generation -> the TPU software version JAX and PyTorch/XLA run on."""
    return dict(_software()["tpu_runtimes"]["common"])


def gke_gpu_driver_version() -> str:
    version: str = _software()["gke_gpu_driver"]["version"]
    return version


def baremetal_gpu_driver() -> dict[str, Any]:
    return dict(_software()["baremetal_gpu_driver"])
