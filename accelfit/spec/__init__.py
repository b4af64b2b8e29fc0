"""The workload spec and bare-metal inventory: validated, frozen input models and their loaders. Pure."""

from accelfit.spec.inventory import Inventory, Server
from accelfit.spec.loader import LoadedWorkload, load_inventory, load_workload, workload_from_document
from accelfit.spec.models import (
    Architecture, Attention, AutostopAction, BudgetSpec, DataSpec, Deployment, Framework, InferenceSpec, Maturity, ModelServer,
    ModelSpec, Orchestration, PlacementCloud, weights_cloud, weights_scheme,
    PlacementSpec, Portability, Precision, Pricing, ReservationSpec, Traffic, TrainingMethod, TrainingSpec, WorkloadKind,
    WorkloadSpec,
)

__all__ = [
    "Architecture", "Attention", "BudgetSpec", "DataSpec", "Deployment", "Framework", "InferenceSpec", "Inventory",
    "LoadedWorkload", "Maturity",
    "AutostopAction", "ModelServer", "ModelSpec", "weights_cloud", "weights_scheme", "Orchestration", "PlacementCloud",
    "PlacementSpec",
    "Portability", "Precision", "Pricing", "ReservationSpec", "Server",
    "Traffic", "TrainingMethod", "TrainingSpec", "WorkloadKind", "WorkloadSpec", "load_inventory", "load_workload",
    "workload_from_document",
]
