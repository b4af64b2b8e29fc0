"""The `--quantization` values the pinned vLLM accepts (data/vllm_quantization.yaml, read from the release), to check
`model.quantization` where the spec enters."""

from __future__ import annotations

import functools
from pathlib import Path

from accelfit.yamlio import read_package_yaml

_DATA = Path(__file__).parent / "data" / "vllm_quantization.yaml"
AUTO = "auto"
"""No flag: vLLM reads the checkpoint's own quantization_config."""


@functools.cache
def _methods() -> tuple[tuple[str, ...], tuple[str, ...]]:
    document = read_package_yaml(_DATA)
    return tuple(document["methods"]), tuple(document["tpu_methods"])


def vllm_methods() -> tuple[str, ...]:
    """Every value vLLM's --quantization accepts at the pinned release."""
    return _methods()[0]


def vllm_tpu_methods() -> tuple[str, ...]:
    """The methods vLLM's TPU platform accepts."""
    return _methods()[1]
