"""A team's own measured efficiency (written by `accelfit calibrate`), which the planner uses over the catalog's.

The file lives at `$ACCELFIT_EFFICIENCY_FILE`, else `${XDG_DATA_HOME:-~/.local/share}/accelfit/efficiency.yaml`
(`accelfit.calibration.store`); the CLI and the Pulumi program load it and pass it in `Environment.efficiency`,
so the planner itself stays pure. Every figure says how many runs it rests on and where they came from.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TeamTrainingFigure(_Frozen):
    accelerator: str = Field(description="Canonical accelerator name.")
    mfu: float = Field(gt=0, le=1, description="Measured model FLOPs utilisation against the dense BF16 peak.")
    runs: int = Field(ge=1, description="Measured runs the figure averages.")
    source: str = Field(description="The measurement file(s) and rows it comes from.")


class TeamServingFigure(_Frozen):
    accelerator: str
    decode_bandwidth: float = Field(gt=0, le=1, description="Share of peak memory bandwidth reached in decode.")
    prefill_compute: float = Field(gt=0, le=1, description="Share of the dense peak reached on prefill math.")
    runs: int = Field(ge=1)
    source: str


class TeamPowerFigure(_Frozen):
    accelerator: str
    power_w: float = Field(gt=0, le=2000, description="Mean board power per accelerator while the GPUs worked, W "
                                                      "(DCGM_FI_DEV_POWER_USAGE): the energy term of owned servers.")
    gpus: int = Field(ge=1, description="Accelerators the mean is over.")
    source: str


class TeamEfficiency(_Frozen):
    schema_version: int = 1
    written: dt.date = Field(description="Date `accelfit calibrate` last wrote the file.")
    training: tuple[TeamTrainingFigure, ...] = ()
    serving: tuple[TeamServingFigure, ...] = ()
    power: tuple[TeamPowerFigure, ...] = ()
    path: str = Field(default="", exclude=True, description="Where the file was read from (not stored).")

    def training_for(self, accelerator: str) -> TeamTrainingFigure | None:
        return next((figure for figure in self.training if figure.accelerator == accelerator), None)

    def serving_for(self, accelerator: str) -> TeamServingFigure | None:
        return next((figure for figure in self.serving if figure.accelerator == accelerator), None)

    def power_for(self, accelerator: str) -> TeamPowerFigure | None:
        return next((figure for figure in self.power if figure.accelerator == accelerator), None)
