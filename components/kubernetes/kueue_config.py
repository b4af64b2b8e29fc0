"""The Kueue controller's Configuration (the chart's managerConfig.controllerManagerConfigYaml): the pinned chart's
own default configuration with waitForPodsReady added, its numbers from accelfit.planner.fleet.fallback_triggers, the
same ones each plan's fallback chain prints.

waitForPodsReady (kubernetes-sigs/kueue v0.19.2 site/content/en/docs/tasks/manage/setup_wait_for_pods_ready.md):
a job admitted to a flavor whose pods are not all ready within `timeout` (no capacity for its nodes) is evicted and
requeued with an exponential backoff, instead of holding that flavor's quota while its pods stay Pending;
`recoveryTimeout` does the same for a running job that loses a pod (a reclaimed Spot VM). The chart ships the block
commented out (charts/kueue/values.yaml), so the whole configuration is given: Helm replaces a string value, it does
not merge inside it.
"""

from __future__ import annotations

from typing import Any

import yaml

from accelfit.chartvalues.check import chart_defaults
from accelfit.planner.fleet.fallback_triggers import (
    PODS_READY_TIMEOUT_MINUTES,
    PODS_RECOVERY_TIMEOUT_MINUTES,
    REQUEUE_BACKOFF_BASE_SECONDS,
    REQUEUE_BACKOFF_MAX_SECONDS,
)
from components.kubernetes.charts import ChartPin


def wait_for_pods_ready() -> dict[str, Any]:
    return {
        "timeout": f"{PODS_READY_TIMEOUT_MINUTES}m",
        "recoveryTimeout": f"{PODS_RECOVERY_TIMEOUT_MINUTES}m",
        # Admit jobs side by side: blockAdmission would hold every other job while one waits for capacity.
        "blockAdmission": False,
        # backoffLimitCount unset: requeued without end (never deactivated for waiting on capacity).
        "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": REQUEUE_BACKOFF_BASE_SECONDS,
                              "backoffMaxSeconds": REQUEUE_BACKOFF_MAX_SECONDS},
    }


def manager_configuration(chart: ChartPin) -> dict[str, Any]:
    """The chart's default Configuration (its pinned values, accelfit/chartvalues/data/defaults) plus
    waitForPodsReady."""
    defaults = chart_defaults()[(chart.chart, chart.version)].values
    config = yaml.safe_load(defaults["managerConfig"]["controllerManagerConfigYaml"])
    return {**config, "waitForPodsReady": wait_for_pods_ready()}


def kueue_values(chart: ChartPin) -> dict[str, Any]:
    return {"managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(manager_configuration(chart),
                                                                             sort_keys=False)}}
