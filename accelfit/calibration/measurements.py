"""Measured runs: the documented input of `accelfit calibrate`.

One run per row, as CSV (a header row, empty cells for fields that do not apply), or a JSON/YAML list of objects
(or an object with a `runs:` list). Fields:

    kind            training | serving
    accelerator     canonical name or alias (h100-80gb, H100, l4, tpu-v5e, ...)
    count           accelerators the run used
    model           parameters, e.g. 70B: the TOTAL for a Mixture-of-Experts model (layers, hidden_size, kv_heads,
                    attention_heads, context_tokens optional)
    active_parameters, experts, experts_per_token
                    Mixture-of-Experts runs: parameters active per token (FLOPs are counted from it), routed experts
                    and experts per token (optional)
    precision       bf16 (default) | fp16 | fp8 | fp4 | int8 | fp32 | tf32
    training, one of:  tokens_per_second | step_time_s with tokens_per_step | mfu   (method: full | lora)
    serving:        requests_per_second with input_tokens and output_tokens (mean lengths), and optionally
                    latency_p99_ms (the p99 the load test saw) and tensor_parallel (chips per replica)
    note            free text

Serving rows describe capacity: the requests/s a deployment sustained at that p99 (a load test at saturation).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from accelfit.errors import InputError, Problem, join_path, problem
from accelfit.spec import ModelSpec, Precision, TrainingMethod
from accelfit.spec.models import Count
from accelfit.validation import validate
from accelfit.yamlio import parse_yaml


class MeasuredRun(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["training", "serving"]
    accelerator: str = Field(min_length=1)
    count: int = Field(ge=1, le=1_000_000)
    model: Count = Field(gt=0, description="Parameter count, e.g. 70B (the total for a Mixture-of-Experts model).")
    active_parameters: Count | None = Field(default=None, gt=0, description="MoE: parameters active per token.")
    experts: int | None = Field(default=None, ge=2)
    experts_per_token: int | None = Field(default=None, ge=1)
    precision: Precision = Precision.bf16
    method: TrainingMethod = TrainingMethod.full
    layers: int | None = Field(default=None, ge=1)
    hidden_size: int | None = Field(default=None, ge=1)
    kv_heads: int | None = Field(default=None, ge=1)
    attention_heads: int | None = Field(default=None, ge=1)
    context_tokens: int | None = Field(default=None, ge=1)
    tokens_per_second: float | None = Field(default=None, gt=0)
    step_time_s: float | None = Field(default=None, gt=0)
    tokens_per_step: float | None = Field(default=None, gt=0)
    mfu: float | None = Field(default=None, gt=0)
    requests_per_second: float | None = Field(default=None, gt=0)
    input_tokens: int | None = Field(default=None, ge=1)
    output_tokens: int | None = Field(default=None, ge=1)
    latency_p99_ms: float | None = Field(default=None, gt=0)
    tensor_parallel: int | None = Field(default=None, ge=1)
    note: str = ""

    @model_validator(mode="after")
    def _has_what_its_kind_needs(self) -> MeasuredRun:
        if self.active_parameters is not None and self.active_parameters > self.model:
            raise ValueError("active_parameters: more than model; model is the TOTAL parameter count (all experts) "
                             "and active_parameters the share one token uses")
        if self.kind == "training":
            if self.tokens_per_second is None and self.mfu is None and self.step_time_s is None:
                raise ValueError("tokens_per_second: a training run needs tokens_per_second, step_time_s with "
                                 "tokens_per_step, or mfu; add one of them")
            if self.step_time_s is not None and self.tokens_per_step is None:
                raise ValueError("tokens_per_step: step_time_s needs tokens_per_step (tokens in one global batch); "
                                 "add it or give tokens_per_second")
        else:
            for name in ("requests_per_second", "input_tokens", "output_tokens"):
                if getattr(self, name) is None:
                    raise ValueError(f"{name}: a serving run needs requests_per_second, input_tokens and "
                                     f"output_tokens; add {name}")
            if self.tensor_parallel is not None and self.count % self.tensor_parallel:
                raise ValueError(f"tensor_parallel: {self.tensor_parallel} does not divide count {self.count}; "
                                 "give the chips per replica")
        return self

    def model_spec(self) -> ModelSpec:
        return ModelSpec(parameters=self.model, active_parameters=self.active_parameters, experts=self.experts,
                         experts_per_token=self.experts_per_token, precision=self.precision, layers=self.layers,
                         hidden_size=self.hidden_size, kv_heads=self.kv_heads, attention_heads=self.attention_heads,
                         context_tokens=self.context_tokens)


def read_runs(path: Path) -> list[tuple[str, MeasuredRun]]:
    """Every run in the file with its location (`rows[2]`); all problems reported together."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        rows: list[Any] = [{key.strip(): value.strip() for key, value in row.items() if key and value and value.strip()}
                           for row in csv.DictReader(io.StringIO(text))]
    elif path.suffix.lower() == ".json":
        try:
            rows = _listed(json.loads(text))
        except json.JSONDecodeError as error:
            raise InputError([problem(str(path), "", f"not valid JSON ({error.msg} at line {error.lineno})",
                                      "fix the JSON syntax")]) from None
    else:
        rows = _listed(parse_yaml(text, str(path)))
    if not rows:
        raise InputError([problem(str(path), "rows", "no measured runs in the file",
                                  "add one run per row (see `accelfit calibrate --help` for the fields)")])
    runs: list[tuple[str, MeasuredRun]] = []
    problems: list[Problem] = []
    for index, row in enumerate(rows):
        where = join_path("rows", index)
        try:
            runs.append((where, validate(MeasuredRun, row, str(path), where)))
        except InputError as error:
            problems.extend(error.problems)
    if problems:
        raise InputError(problems)
    return runs


def _listed(document: Any) -> list[Any]:
    if isinstance(document, dict) and "runs" in document:
        document = document["runs"]
    return document if isinstance(document, list) else [document]
