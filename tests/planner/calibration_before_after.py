"""Devices the planner's `size_inference` needs to serve each published load, over the published device count.

Runs against whichever accelfit is importable, so the same figures come from the code before issue 15 and after:

    .venv/bin/python tests/planner/calibration_before_after.py                      # this tree
    mkdir /tmp/old && git archive 2b41320 accelfit | tar -x -C /tmp/old
    (cd /tmp && PYTHONPATH=/tmp/old $OLDPWD/.venv/bin/python $OLDPWD/tests/planner/calibration_before_after.py)

The planner path caps batches at the engine default (256) and has no beam search: a GPT-J request (4 beams) is
counted as 4 requests, which over-counts its prefill; `calibration_report.py` is the test's own measure.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from accelfit.catalog import load_catalog
from accelfit.planner.options import Offer
from accelfit.planner.serving.sizing import size_inference
from accelfit.spec import WorkloadSpec

POINTS = Path(__file__).parents[2] / "accelfit" / "planner" / "data" / "calibration_inference.yaml"


def devices_needed() -> list[tuple[str, float]]:
    catalog = load_catalog()
    rows = []
    for point in yaml.safe_load(POINTS.read_text(encoding="utf-8"))["points"]:
        beams = point.get("sequences_per_request", 1)
        rps = point["output_tokens_per_second"] / point["output_tokens"] * beams
        spec = WorkloadSpec.model_validate({
            "name": "calibration", "kind": "inference", "framework": "pytorch", "model": point["model"],
            "inference": {"requests_per_second": rps, "input_tokens": point["input_tokens"],
                          "output_tokens": point["output_tokens"], "latency_p99_ms": 3_600_000, "traffic": "steady"}})
        offer = Offer(platform="eks-gpu", cloud="aws", region="published", zones=("published",),
                      accelerator=catalog.accelerator(point["accelerator"]), machine="published",
                      devices_per_unit=point["devices"], max_units=10**6)
        size = size_inference(spec, offer)
        # Requests one replica serves: the new code reports it; the old one implied it from batch and p99 / 1.25.
        per_replica = getattr(size, "requests_per_replica", 0) or size.batch / (size.latency_p99_ms / 1000 / 1.25)
        rows.append((point["name"], rps / per_replica * size.devices_per_replica / point["devices"]))
    return rows


if __name__ == "__main__":
    for name, ratio in devices_needed():
        print(f"{name:60s} needs x{ratio:5.2f} the published devices")
