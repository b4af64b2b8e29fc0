"""Measured runs -> the team's efficiency: MFU per accelerator for training, decode-bandwidth and prefill-compute
shares per accelerator for serving, each averaged over the runs that measured it.

Training: MFU = (6·N, or 4·N for LoRA; N the active parameters of a Mixture-of-Experts model) × tokens/s ÷
(chips × dense BF16 peak), the planner's definition; the factors the planner applies to a dense BF16 figure for
the run's architecture and precision (MoE, FP8/FP4 speed-up) are divided out, so a plan of the same run reproduces
the measurement. Serving: the catalog's efficiency is scaled until the planner's
own serving model (planner/serving/sizing.py: the replica under load, vLLM's scheduler limits, queueing included)
sustains the measured requests/s at the measured p99 (or at its full batch when no p99 is given); the scale that matches
is the team's figure, so a plan of the same deployment at that p99 carries the measured rate. A measurement the chips
cannot physically reach (MFU above 1, or more requests/s than their bandwidth and compute allow at full
efficiency) is rejected, naming the field.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from accelfit.calibration.dcgm import DRAM, POWER, TENSOR, Utilisation
from accelfit.calibration.measurements import MeasuredRun
from accelfit.catalog.models import Accelerator, Catalog
from accelfit.errors import InputError, Problem, join_path, problem
from accelfit.planner import preferences as pref
from accelfit.planner.serving.lengths import Lengths
from accelfit.planner.serving.replica import Efficiency, ReplicaModel
from accelfit.planner.serving.engine_figures import efficiency_for, engine_limits, max_num_batched_tokens
from accelfit.planner.serving.load import Budgets, ReplicaLoad, largest_slots
from accelfit.planner.serving.sizing import usable_batch
from accelfit.planner.training.sizing import peak_flops
from accelfit.planner.team_efficiency import TeamEfficiency, TeamPowerFigure, TeamServingFigure, TeamTrainingFigure
from accelfit.spec import TrainingMethod


# Below this share of the peak, a "measurement" is a unit slip (tokens per second per GPU, not per job) or idle
# hardware: no training run or serving engine that is doing work reaches less than 1% of the chips' peak.
MIN_EFFICIENCY = 0.01


@dataclass(frozen=True)
class Measured:
    accelerator: str
    kind: str
    where: str
    mfu: float = 0.0
    decode_bandwidth: float = 0.0
    prefill_compute: float = 0.0
    power_w: float = 0.0  # kind "power": mean board power per GPU, W
    gpus: int = 0


def measure_runs(runs: list[tuple[str, MeasuredRun]], catalog: Catalog, file: str) -> list[Measured]:
    """Each run's efficiency; every impossible or unusable run is reported together (exit 2)."""
    out: list[Measured] = []
    problems: list[Problem] = []
    for where, run in runs:
        try:
            accelerator = catalog.accelerator(run.accelerator)
        except ValueError as error:
            problems.append(problem(file, join_path(where, "accelerator"), str(error),
                                    "use a canonical accelerator name (see `accelfit catalog`)", run.accelerator))
            continue
        if not accelerator.supports(run.precision):
            problems.append(problem(file, join_path(where, "precision"), f"{accelerator.name} has no "
                                    f"{run.precision.value} support in the catalog",
                                    "give the precision the run used", run.precision.value))
            continue
        try:
            if run.kind == "training":
                out.append(Measured(accelerator.name, "training", where, mfu=_training_mfu(run, catalog, file, where)))
            else:
                decode, prefill = _serving_efficiency(run, catalog, file, where)
                out.append(Measured(accelerator.name, "serving", where, decode_bandwidth=decode,
                                    prefill_compute=prefill))
        except InputError as error:
            problems.extend(error.problems)
    if problems:
        raise InputError(problems)
    return out


def _training_mfu(run: MeasuredRun, catalog: Catalog, file: str, where: str) -> float:
    accelerator = catalog.accelerator(run.accelerator)
    if run.mfu is not None:
        field, mfu = "mfu", run.mfu
    else:
        tokens_per_second = run.tokens_per_second or run.tokens_per_step / run.step_time_s  # type: ignore[operator]
        field = "tokens_per_second" if run.tokens_per_second is not None else "step_time_s"
        # FLOPs from the active parameters: a Mixture-of-Experts token passes only through its experts.
        per_token = (pref.LORA_FLOPS_PER_PARAM_TOKEN if run.method is TrainingMethod.lora
                     else pref.FULL_FLOPS_PER_PARAM_TOKEN) * run.model_spec().active
        mfu = per_token * tokens_per_second / (run.count * peak_flops(accelerator, run.precision))
    if not mfu >= MIN_EFFICIENCY:
        raise InputError([problem(file, join_path(where, field), f"implies MFU {mfu:.4%}: below "
                                  f"{MIN_EFFICIENCY:.0%} of the {run.count} × {accelerator.name} dense peak, which no "
                                  "working training run shows", "check the units (tokens per second for the whole "
                                  "job) and the parameter count, or leave the run out", getattr(run, field))])
    if mfu > _physical_limit(run, accelerator):
        raise InputError([problem(file, join_path(where, field), f"implies MFU {mfu:.0%}: more than the "
                                  f"{run.count} × {accelerator.name} dense peak allows",
                                  "check the units (tokens per second for the whole job, not per GPU times GPUs), "
                                  "the accelerator count and the parameter count", getattr(run, field))])
    # The team figure replaces the dense BF16 MFU, which the planner then adjusts for MoE and FP8/FP4 as it does the
    # catalog's: divide those factors out so that a plan of this very run reproduces the measurement.
    return min(1.0, mfu / _planned_factor(run, accelerator))


def _physical_limit(run: MeasuredRun, accelerator: Accelerator) -> float:
    """The most MFU (against the BF16 peak, as the planner counts FP8/FP4) the chips can reach: their own peak for
    this precision over the BF16 one (2 for FP8 on H100), else 1."""
    from accelfit.catalog.models import Precision

    own = accelerator.dense_tflops.get(run.precision)
    bf16 = accelerator.dense_tflops.get(Precision.bf16)
    return max(1.0, own / bf16) if own and bf16 and run.precision in (Precision.fp8, Precision.fp4) else 1.0


def _planned_factor(run: MeasuredRun, accelerator: Accelerator) -> float:
    """What the planner multiplies a dense BF16 MFU by for this run's architecture and precision."""
    from accelfit.planner.training.sizing import training_efficiency
    from accelfit.spec import WorkloadSpec

    # Unvalidated on purpose: training_efficiency reads the spec's model only, which run.model_spec() validated.
    spec = WorkloadSpec.model_construct(model=run.model_spec())  # type: ignore[call-arg]
    return training_efficiency(spec, accelerator, 1.0).mfu


def _serving_efficiency(run: MeasuredRun, catalog: Catalog, file: str, where: str) -> tuple[float, float]:
    accelerator = catalog.accelerator(run.accelerator)
    base = efficiency_for(accelerator.name)
    lengths = Lengths(run.input_tokens, run.output_tokens, run.input_tokens, run.output_tokens,  # type: ignore[arg-type]
                      run.input_tokens, run.output_tokens, varying=False)  # type: ignore[arg-type]
    model = ReplicaModel(accelerator, run.model_spec(), lengths, Efficiency(base.decode_bandwidth,
                                                                            base.prefill_compute))
    latency = run.latency_p99_ms or float("inf")

    def total_capacity(size: int) -> float:
        return run.count // size * replica_rate(model, size, latency)

    # Without tensor_parallel, the deployment is taken to use the group size that serves the most (as the planner
    # would choose it); the efficiency is then what makes that layout sustain the measured load.
    candidates = [size for size in (1, 2, 4, 8, 16) if size <= run.count and run.count % size == 0]
    group = run.tensor_parallel or max(candidates, key=lambda size: (total_capacity(size), -size), default=None)
    if group is None or usable_batch(model, group) < 1:
        raise InputError([problem(file, join_path(where, "tensor_parallel"), f"the model does not fit on "
                                  f"{group or run.count} × {accelerator.name} by the planner's memory model",
                                  "give tensor_parallel (chips per replica) and the model's precision", group)])
    per_replica = run.requests_per_second / (run.count // group)  # type: ignore[operator]
    most = max(base.decode_bandwidth, base.prefill_compute)

    def capacity(scale: float) -> float:
        scaled = Efficiency(min(1.0, base.decode_bandwidth * scale), min(1.0, base.prefill_compute * scale))
        return replica_rate(ReplicaModel(accelerator, model.model, lengths, scaled), group, latency)

    ceiling = 1.0 / min(base.decode_bandwidth, base.prefill_compute)
    if capacity(ceiling) < per_replica:
        raise InputError([problem(file, join_path(where, "requests_per_second"),
                                  f"{run.requests_per_second:g} req/s is more than {run.count} × {accelerator.name} "
                                  "can serve at these lengths even at full memory bandwidth and peak compute",
                                  "check requests_per_second, the lengths, count and precision (speculative "
                                  "decoding or prefix caching make runs faster than the model; leave such runs "
                                  "out)", run.requests_per_second)])
    low, high = 0.01 / most, ceiling
    for _ in range(40):
        middle = (low + high) / 2.0
        if capacity(middle) < per_replica:
            low = middle
        else:
            high = middle
    return min(1.0, base.decode_bandwidth * high), min(1.0, base.prefill_compute * high)


def replica_rate(model: ReplicaModel, group: int, latency_ms: float) -> float:
    """Requests/s one replica of `group` chips carries, by the planner's own serving model (serving/sizing.py): its
    batch (--max-num-seqs) the largest the KV cache, the engine limit and the p99 allow, the step's token budget
    the engine's default on this accelerator, and the most requests/s with the modelled end-to-end p99 (queueing
    included) within `latency_ms`; without a p99, the replica's saturated throughput (its batch full)."""
    memory = usable_batch(model, group)
    if memory < 1:
        return 0.0
    token_budget = max_num_batched_tokens(model.accelerator.name)
    most = min(engine_limits().max_num_seqs, memory)
    budgets = Budgets(latency_ms)
    slots = most if latency_ms == float("inf") else largest_slots(model, group, most, token_budget, budgets)
    if not slots:
        return 0.0
    load = ReplicaLoad(model, group, slots, token_budget)
    if latency_ms == float("inf"):
        return load.rate_at(float(min(slots, token_budget - 1)))
    point = load.capacity(budgets)
    return point.rate if point is not None else 0.0


def measure_dcgm(utilisation: list[Utilisation], kind: str, file: str) -> list[Measured]:
    """Each accelerator's efficiency for `kind`, and its mean power draw where the export has it. An export of power
    alone (dcgm-exporter's default counters, no profiling metrics) gives the power figure only."""
    out = []
    for item in utilisation:
        power = item.mean(POWER)
        if power is not None:
            out.append(Measured(item.accelerator, "power", f"{len(item.gpus)} GPUs", power_w=power,
                                gpus=len(item.gpus)))
        out += _efficiency(item, kind, file, power_only=power is not None)
    return out


def _efficiency(item: Utilisation, kind: str, file: str, power_only: bool) -> list[Measured]:
    """The `kind` figure of one accelerator's utilisation; none when the export holds power alone."""
    tensor, dram = item.mean(TENSOR), item.mean(DRAM)
    if power_only and tensor is None and dram is None:
        return []
    for metric, value in ((TENSOR, tensor), (DRAM, dram if kind == "serving" else None)):
        if value is not None and value < MIN_EFFICIENCY:
            raise InputError([problem(file, metric, f"{item.accelerator} averaged {value:.2%}: the GPUs were "
                                      "idle in this window", "export a window in which the GPUs were busy "
                                      "(training at full speed, or serving at saturation)", value)])
    if kind == "training":
        if tensor is None:
            raise InputError([problem(file, TENSOR, f"no samples for {item.accelerator}; training MFU comes "
                                      "from the tensor-pipe activity", "export DCGM_FI_PROF_PIPE_TENSOR_ACTIVE")])
        return [Measured(item.accelerator, "training", f"{len(item.gpus)} GPUs", mfu=tensor)]
    if dram is None or tensor is None:
        missing = DRAM if dram is None else TENSOR
        raise InputError([problem(file, missing, f"no samples for {item.accelerator}; serving needs both "
                                  "DRAM and tensor-pipe activity", f"export {missing}")])
    return [Measured(item.accelerator, "serving", f"{len(item.gpus)} GPUs", decode_bandwidth=dram,
                     prefill_compute=tensor)]


def team_file(measured: list[Measured], source: str, existing: TeamEfficiency | None,
              today: dt.date) -> TeamEfficiency:
    """Average per accelerator and kind; figures from this calibration replace the same accelerator's old ones."""
    groups: dict[tuple[str, str], list[Measured]] = defaultdict(list)
    for item in measured:
        groups[(item.kind, item.accelerator)].append(item)
    training = {figure.accelerator: figure for figure in (existing.training if existing else ())}
    serving = {figure.accelerator: figure for figure in (existing.serving if existing else ())}
    power = {figure.accelerator: figure for figure in (existing.power if existing else ())}
    for (kind, accelerator), items in sorted(groups.items()):
        where = f"{source} ({', '.join(item.where for item in items)})"
        if kind == "power":  # the mean over every GPU sampled, each export weighted by its GPUs
            gpus = sum(item.gpus for item in items)
            power[accelerator] = TeamPowerFigure.model_construct(
                accelerator=accelerator, power_w=round(sum(item.power_w * item.gpus for item in items) / gpus, 1),
                gpus=gpus, source=where)
        elif kind == "training":
            training[accelerator] = TeamTrainingFigure.model_construct(
                accelerator=accelerator, mfu=round(sum(item.mfu for item in items) / len(items), 4),
                runs=len(items), source=where)
        else:
            serving[accelerator] = TeamServingFigure.model_construct(
                accelerator=accelerator,
                decode_bandwidth=round(sum(item.decode_bandwidth for item in items) / len(items), 4),
                prefill_compute=round(sum(item.prefill_compute for item in items) / len(items), 4),
                runs=len(items), source=where)
    from accelfit.validation import validate

    # Validated, not constructed: a figure out of range is an InputError naming the source, never a traceback.
    return validate(TeamEfficiency, {"written": today,
                                     "training": [training[key].model_dump() for key in sorted(training)],
                                     "serving": [serving[key].model_dump() for key in sorted(serving)],
                                     "power": [power[key].model_dump() for key in sorted(power)]}, source)


__all__ = ["Measured", "measure_dcgm", "measure_runs", "team_file"]
