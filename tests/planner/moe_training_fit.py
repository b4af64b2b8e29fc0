"""Print the training estimator's figure for each published Mixture-of-Experts run and benchmark (the rows the MoE
factors in accelfit/planner/data/training_efficiency.yaml are fitted to), the ratio of published to modelled
throughput, and the geometric mean and spread per size class (the fit stated in that file):

    .venv/bin/python tests/planner/moe_training_fit.py

A ratio above 1 means the run went faster than the plan says (the plan is slow, safe); below 1, the plan is
optimistic. Full runs include their whole-run overheads (the plan's TRAINING_OVERHEAD_FRACTION); benchmarks do not.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from planner_specs import TRAINING, make_spec

from accelfit.catalog import load_catalog
from accelfit.planner import plan
from accelfit.planner import preferences as pref

RUNS_FILE = Path(__file__).parents[2] / "accelfit" / "planner" / "data" / "published_training_runs.yaml"
MOE_KEYS = ("active_parameters", "experts", "experts_per_token")


def _spec(row: dict, tokens: float, deadline_days: float):
    moe = {f"model__{key}": row[key] for key in MOE_KEYS if key in row}
    extra = {f"model__{key}": row[key] for key in ("attention", "kv_lora_rank", "rope_head_dim") if key in row}
    return make_spec(TRAINING, name="fit", framework="pytorch", model__parameters=row["parameters"],
                     model__precision=row.get("precision", "bf16"), model__layers=row["layers"],
                     model__hidden_size=row["hidden_size"], model__attention_heads=row["attention_heads"],
                     model__kv_heads=row["kv_heads"], model__context_tokens=row["context_tokens"],
                     training__tokens=tokens, training__deadline_days=deadline_days,
                     placement__accelerators=[row["accelerator"]], **moe, **extra)


def moe_rows() -> list[tuple[str, str, float, float]]:
    """(name, accelerator, active parameters, published / modelled throughput) for every MoE row."""
    data = yaml.safe_load(RUNS_FILE.read_text(encoding="utf-8"))
    catalog = load_catalog()
    out = []
    for run in data["runs"]:
        if "active_parameters" not in run:
            continue
        result = plan(_spec(run, run["tokens"], 120), catalog)
        out.append((run["name"], run["accelerator"], float(run["active_parameters"]),
                    result.estimate.accelerator_hours / run["accelerator_hours"]))
    for bench in data["benchmarks"]:
        if "active_parameters" not in bench:
            continue
        tokens = bench["tokens_per_second_per_gpu"] * bench["gpus"] * 86400 * 20
        result = plan(_spec(bench, tokens, 25), catalog)
        step_hours = result.estimate.hours / (1 + pref.TRAINING_OVERHEAD_FRACTION)
        per_gpu = tokens / (step_hours * 3600) / result.accelerator.count
        out.append((bench["name"], bench["accelerator"], float(bench["active_parameters"]),
                    bench["tokens_per_second_per_gpu"] / per_gpu))
    return out


def geo_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(value) for value in values) / len(values))


if __name__ == "__main__":
    rows = moe_rows()
    for name, accelerator, active, ratio in rows:
        print(f"{name:32s} {accelerator:10s} {active / 1e9:5.1f}B active  published/model x{ratio:.2f}")
    ratios = [ratio for *_, ratio in rows]
    print(f"{len(rows)} rows: geo-mean x{geo_mean(ratios):.2f}, range x{min(ratios):.2f}-x{max(ratios):.2f}, "
          f"{sum(1 / 1.25 <= ratio <= 1.25 for ratio in ratios)} within x1.25")
