"""The planned pool's scaling sentence says what KEDA's AverageValue target does with the summed queue: the HPA asks
for ceil(waiting / threshold) servers in all, so the pool grows past its minimum only above threshold x minimum
waiting requests (the rule accelfit/simulate/scaler.py applies). It said "one more for every 5 waiting" before."""

from __future__ import annotations

import math
import re

from accelfit.planner.serving_traffic import RoutePool, pool_scaling


def test_the_planned_pool_sentence_matches_the_rule_the_autoscaler_applies():
    pool = RoutePool.model_validate({"pool": "gpu", "server": "chat-vllm-gpu", "server_kind": "Deployment", "accelerator": "l4",
                                     "replicas_min": 9, "replicas_max": 12})
    [planned] = pool_scaling("chat", [pool])
    [(name, _query, threshold)] = planned.triggers
    assert name == "queue"
    [waiting] = [int(value) for value in re.findall(r"more than (\d+) requests wait", planned.why)]
    desired = lambda queued: max(planned.min_replicas, math.ceil(queued / threshold))  # noqa: E731
    assert desired(waiting) == planned.min_replicas and desired(waiting + 1) == planned.min_replicas + 1
