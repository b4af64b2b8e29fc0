"""Peaks per precision are catalog data with their own sources: FP8 on Hopper/Ada/Blackwell and INT8 on TPUs are
not the BF16 peak, and serving sizes with them."""

import pytest

from accelfit.catalog.models import Accelerator, Precision
from accelfit.errors import InputError
from accelfit.validation import validate


@pytest.mark.parametrize(("name", "precision"), [
    ("h100-80gb", "fp8"), ("h200-141gb", "fp8"), ("l40s", "fp8"), ("b200", "fp8"), ("l4", "fp8"),
    ("tpu-v5e", "int8"), ("tpu-v6e", "int8"), ("tpu-v5p", "int8"),
])
def test_low_precision_peak_is_its_own_sourced_figure(catalog, name, precision):
    accelerator = catalog.accelerator(name)
    key = Precision(precision)
    assert accelerator.dense_tflops[key] >= 1.9 * accelerator.dense_tflops[Precision.bf16]
    assert len(accelerator.peak_sources[key]) > 20


def test_a_source_for_a_peak_the_row_does_not_have_is_rejected(catalog):
    row = catalog.accelerator("a100-80gb").model_dump(mode="json")
    row["peak_sources"] = {"fp8": "a datasheet"}
    with pytest.raises(InputError, match="peak_sources: fp8 has a source but no peak"):
        validate(Accelerator, row, "accelerators.yaml", "accelerators[5]")
