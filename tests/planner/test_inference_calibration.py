"""The inference model lands within x1.5 of each published serving result (data/calibration_inference.yaml)."""

import pytest
from pydantic import ValidationError

from accelfit.planner.published_serving import PublishedServing, modelled_throughput, published_points

POINTS = published_points()


@pytest.mark.parametrize("point", POINTS, ids=[point.name for point in POINTS])
def test_model_lands_within_one_and_a_half_of_the_published_result(catalog, point):
    assert point.source and point.as_of
    modelled = modelled_throughput(point, catalog)
    ratio = modelled / point.output_tokens_per_second
    assert 1 / 1.5 <= ratio <= 1.5, f"{point.name}: model {modelled:,.0f} vs published " \
                                    f"{point.output_tokens_per_second:,.0f} tok/s (x{ratio:.2f})"


def test_points_cover_mlperf_open_source_engines_and_tpus():
    names = {point.name for point in POINTS}
    assert any(name.startswith("mlperf-v4.0") for name in names)
    assert any(name.startswith("mlperf-v5.0") for name in names)
    assert any(point.engine == "sglang" for point in POINTS)
    assert sum(point.engine == "vllm" for point in POINTS) >= 4
    assert {point.accelerator for point in POINTS} >= {"h100-80gb", "h200-141gb", "l40s", "tpu-v5e", "tpu-v6e",
                                                       "a100-80gb"}
    assert any(point.name.startswith("trtllm-perf-overview") for point in POINTS)


def test_finite_runs_name_their_shape_and_the_benchmarks_length_filter():
    runs = [point for point in POINTS if point.requests]
    assert len(runs) >= 6
    assert all(point.shape_source and point.tensor_parallel and point.max_in_flight for point in runs)
    sharegpt = [point for point in runs if "sharegpt" in point.name]
    assert sharegpt and all(point.model.context_tokens == 2048 for point in sharegpt)


def test_a_point_cannot_be_kept_as_a_known_miss():
    row = POINTS[0].model_dump() | {"known_miss": "the model is off for a reason"}
    with pytest.raises(ValidationError):
        PublishedServing.model_validate(row)


def test_a_finite_run_without_its_shape_is_rejected():
    row = POINTS[0].model_dump() | {"requests": 200}
    with pytest.raises(ValidationError, match="max_in_flight, tensor_parallel and shape_source"):
        PublishedServing.model_validate(row)
