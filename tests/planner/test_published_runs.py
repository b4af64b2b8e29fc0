"""The estimator reproduces published training runs given their hardware (within 25% of GPU-hours).

Source for all rows: Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models",
arXiv:2307.09288, Table 2 (CO2 emissions during pretraining: time in A100-80GB GPU-hours); all Llama 2 models
were trained on 2.0T tokens. Parameter counts from the same paper's model cards (6.74B, 13.0B, 69.0B).
"""

import pytest

from planner_specs import TRAINING, make_spec

from accelfit.planner import plan

PUBLISHED = [
    # (name, parameters, tokens, accelerator, published accelerator-hours)
    ("llama-2-7b", "6.74B", "2.0T", "a100-80gb", 184_320),
    ("llama-2-13b", "13.0B", "2.0T", "a100-80gb", 368_640),
    ("llama-2-70b", "69.0B", "2.0T", "a100-80gb", 1_720_320),
]


@pytest.mark.parametrize(("name", "parameters", "tokens", "accelerator", "published_hours"), PUBLISHED)
def test_estimate_matches_published_run(catalog, name, parameters, tokens, accelerator, published_hours):
    spec = make_spec(TRAINING, name=name, framework="pytorch", model__parameters=parameters,
                     training__tokens=tokens, training__deadline_days=60, placement__accelerators=[accelerator])
    result = plan(spec, catalog)
    assert result.accelerator.name == accelerator
    ratio = result.estimate.accelerator_hours / published_hours
    assert 0.75 <= ratio <= 1.25, f"{name}: {result.estimate.accelerator_hours:,.0f} vs {published_hours:,} ({ratio:.2f})"


def test_llama2_7b_example_file(catalog):
    from pathlib import Path

    from accelfit.spec import load_workload

    example = Path(__file__).parents[2] / "examples" / "llama2-7b-a100.yaml"
    result = plan(load_workload(example).spec, catalog)
    assert abs(result.estimate.accelerator_hours / 184_320 - 1) <= 0.25
