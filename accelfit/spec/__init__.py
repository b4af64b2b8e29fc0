"""The workload spec and bare-metal inventory: validated, frozen input models and their loaders. Pure."""

from typing import Any

from accelfit.catalog.models import PricingModel as Pricing  # budget.pricing's values: the catalog's buying models
from accelfit.spec.loader import LoadedWorkload, load_inventory, load_workload, workload_from_document
from accelfit.spec.models import (
    Architecture, Attention, AutostopAction, BudgetSpec, DataSpec, Deployment, Framework, InferenceSpec, Maturity, ModelServer,
    ModelSpec, Orchestration, PlacementCloud, weights_cloud, weights_scheme,
    PlacementSpec, Portability, Precision, ReservationSpec, Traffic, TrainingMethod, TrainingSpec, WorkloadKind,
    WorkloadSpec,
)

# The inventory's models are imported on first use, so a spec that names no inventory (`accelfit plan` of a
# training spec) does not pay for building them (issue 39).
_INVENTORY = {"Inventory", "Server"}


def __getattr__(name: str) -> Any:
    if name in _INVENTORY:
        from accelfit.spec import inventory
        return getattr(inventory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Architecture", "Attention", "BudgetSpec", "DataSpec", "Deployment", "Framework", "InferenceSpec", "Inventory",
    "LoadedWorkload", "Maturity",
    "AutostopAction", "ModelServer", "ModelSpec", "weights_cloud", "weights_scheme", "Orchestration", "PlacementCloud",
    "PlacementSpec",
    "Portability", "Precision", "Pricing", "ReservationSpec", "Server",
    "Traffic", "TrainingMethod", "TrainingSpec", "WorkloadKind", "WorkloadSpec", "load_inventory", "load_workload",
    "workload_from_document",
]
