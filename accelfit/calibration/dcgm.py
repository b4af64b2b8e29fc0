"""A DCGM-exporter scrape or a Prometheus query result, as per-accelerator utilisation.

Accepted: the Prometheus text exposition format that dcgm-exporter serves (`curl host:9400/metrics > dcgm.prom`),
or the JSON of the Prometheus HTTP query API (`/api/v1/query` or `/api/v1/query_range`, vector or matrix). Used:
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE  share of cycles the tensor pipes are busy: an upper bound on MFU (it also counts
                                   recomputation and non-model matmuls), taken as the training MFU / prefill figure
  DCGM_FI_PROF_DRAM_ACTIVE         share of cycles the memory interface is busy: the decode bandwidth figure
  DCGM_FI_DEV_POWER_USAGE          board power draw, W: the energy term of owned servers (accelfit/pricing/onprem.py)
                                   instead of the catalog's board power; one of dcgm-exporter's default counters
(NVIDIA DCGM field identifiers, docs.nvidia.com/datacenter/dcgm, profiling metrics.) Each series needs the
exporter's `modelName` label (e.g. "NVIDIA H100 80GB HBM3") unless `--accelerator` names the GPU. Export a window
in which the GPUs were saturated: the figures are read as what the hardware reaches, not as an average load.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, Problem, problem
from accelfit.inputfile import read_bytes, read_text
from accelfit.jsonio import parse_json

TENSOR = "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"
DRAM = "DCGM_FI_PROF_DRAM_ACTIVE"
POWER = "DCGM_FI_DEV_POWER_USAGE"
METRICS = (TENSOR, DRAM, POWER)
# No accelerator board draws more (the largest in the catalog is about 1.2 kW): a bigger figure is not watts per GPU.
MAX_POWER_W = 2000.0
_LINE = re.compile(r'^(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)(\{(?P<labels>.*)\})?\s+(?P<value>\S+)(\s+\S+)?\s*\Z')
# A window of a few hours of 15 s samples on a few hundred GPUs is well under this; more is not a calibration export.
MAX_SAMPLES = 1_000_000
_LABEL = re.compile(r'(?P<key>[A-Za-z_][A-Za-z0-9_]*)="(?P<value>(?:[^"\\]|\\.)*)"')


@dataclass
class Utilisation:
    accelerator: str
    samples: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    gpus: set[str] = field(default_factory=set)

    def mean(self, metric: str) -> float | None:
        values = self.samples.get(metric) or []
        return sum(values) / len(values) if values else None


def looks_like_dcgm(path: Path) -> bool:
    if path.suffix.lower() in (".prom", ".txt", ".metrics"):
        return True
    if path.suffix.lower() == ".json":
        head = read_bytes(path)[:4096].decode("utf-8", "replace")  # regular files only, bounded
        return '"resultType"' in head or "DCGM_FI_" in head
    return False


def read_dcgm(path: Path, catalog: Catalog, accelerator: str | None = None) -> list[Utilisation]:
    file = str(path)
    text = read_text(path)  # regular files only, bounded in size, strict UTF-8
    series = _series_from_json(text, file) if text.lstrip().startswith("{") else _series_from_text(text, file)
    problems: list[Problem] = []
    found: dict[str, Utilisation] = {}
    for where, name, labels, value in series:
        if name not in METRICS:
            continue
        wrong = _impossible(name, value)
        if wrong:
            problems.append(problem(file, where, *wrong, value))
            continue
        model_name = accelerator or labels.get("modelName")
        if not model_name:
            problems.append(problem(file, f"{where}.modelName", "the series has no modelName label",
                                    "export with dcgm-exporter's default labels, or pass --accelerator NAME"))
            continue
        try:
            canonical = accelerator_from_model_name(model_name, catalog)
        except LookupError as error:
            problems.append(problem(file, f"{where}.modelName", str(error),
                                    "pass --accelerator NAME with a canonical accelerator name", model_name))
            continue
        entry = found.setdefault(canonical, Utilisation(canonical))
        entry.samples[name].append(value)
        entry.gpus.add(f"{labels.get('Hostname', labels.get('instance', ''))}/{labels.get('gpu', labels.get('UUID', ''))}")
    if problems:
        raise InputError(problems)
    if not found:
        raise InputError([problem(file, "", f"no {TENSOR}, {DRAM} or {POWER} samples in the export",
                                  "enable the DCGM profiling metrics in dcgm-exporter and export them")])
    return sorted(found.values(), key=lambda item: item.accelerator)


def _impossible(name: str, value: float) -> tuple[str, str] | None:
    """(what is wrong, the fix) for a sample no GPU can report; None for a possible one."""
    if name == POWER:
        if 0.0 < value <= MAX_POWER_W:
            return None
        return (f"{name} is one GPU's board power in W (0 to {MAX_POWER_W:g}); {value:g} is impossible",
                "export the per-GPU power draw in watts, not a sum or an energy counter")
    if 0.0 <= value <= 1.0:
        return None
    return (f"{name} is a ratio between 0 and 1; {value:g} is impossible",
            "export the raw DCGM ratio (not a percentage or a rate)")


def accelerator_from_model_name(model_name: str, catalog: Catalog) -> str:
    """'NVIDIA H100 80GB HBM3' -> h100-80gb: the accelerator whose name or alias the label contains (the longest
    match), and on a tie the one whose memory is closest to the label's GB figure."""
    try:
        return catalog.canonical(model_name)
    except ValueError:
        pass  # not a name or alias as it stands: look for one inside the label below
    squashed = re.sub(r"[^a-z0-9]", "", model_name.lower())
    memory = re.search(r"(\d+)\s*gb", model_name.lower())
    matches: list[tuple[int, float, str]] = []
    for item in catalog.accelerators:
        names = [item.name, item.name.split("-")[0], *item.aliases]  # a100-80gb also answers to 'a100'
        best = max((len(key) for key in (re.sub(r"[^a-z0-9]", "", name.lower()) for name in names)
                    if key and key in squashed), default=0)
        if best:
            distance = abs(item.memory_gib * 1.0737 - float(memory.group(1))) if memory else 0.0
            matches.append((-best, distance, item.name))
    if not matches:
        raise LookupError(f"no accelerator in the catalog matches the GPU model {model_name!r}")
    matches.sort()
    top = [match for match in matches if match[0] == matches[0][0]]
    return min(top, key=lambda match: match[1])[2]


def _series_from_text(text: str, file: str) -> list[tuple[str, str, dict[str, str], float]]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            raise InputError([problem(file, f"line {number}", "not a Prometheus exposition line",
                                      "export the dcgm-exporter /metrics text or a Prometheus query as JSON", line)])
        labels = {item.group("key"): item.group("value") for item in _LABEL.finditer(match.group("labels") or "")}
        try:
            value = float(match.group("value"))
        except ValueError:
            raise InputError([problem(file, f"line {number}", "the sample value is not a number",
                                      "export numeric samples", match.group("value"))]) from None
        out.append((f"line {number}", match.group("name"), labels, value))
        if len(out) > MAX_SAMPLES:
            raise InputError([problem(file, f"line {number}", f"more than {MAX_SAMPLES:,} samples",
                                      "export a shorter window")])
    return out


def _series_from_json(text: str, file: str) -> list[tuple[str, str, dict[str, str], float]]:
    document = parse_json(text, file, "save the JSON of /api/v1/query or /api/v1/query_range unchanged")
    try:
        result = document["data"]["result"]
    except (KeyError, TypeError):
        raise InputError([problem(file, "data.result", "not a Prometheus query-API response",
                                  "save the JSON of /api/v1/query or /api/v1/query_range")]) from None
    if not isinstance(result, list):
        raise InputError([problem(file, "data.result", "expected the list of series a vector or matrix query "
                                  "returns", "query DCGM metrics as an instant vector or a range (matrix)",
                                  result)])
    out = []
    for index, item in enumerate(result):
        where = f"data.result[{index}]"
        metric = item.get("metric") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(metric or {}, dict):
            raise InputError([problem(file, where, "expected a series: {metric: {labels}, values: [...]}",
                                      "export the query result unchanged", item)])
        labels = {str(key): str(value) for key, value in (metric or {}).items()}
        name = labels.get("__name__", "")
        points = item.get("values") or ([item["value"]] if "value" in item else [])
        if not isinstance(points, list):
            raise InputError([problem(file, f"{where}.values", "expected a list of [timestamp, value] pairs",
                                      "export the query result unchanged", points)])
        for point_index, point in enumerate(points):
            try:
                if not isinstance(point, list) or isinstance(point[1], bool):
                    raise TypeError
                value = float(point[1])
            except (TypeError, ValueError, IndexError, OverflowError):
                raise InputError([problem(file, f"{where}.values[{point_index}]",
                                          "the sample is not a [timestamp, value] pair with a numeric value",
                                          "export the query result unchanged", point)]) from None
            out.append((where, name, labels, value))
        if len(out) > MAX_SAMPLES:
            raise InputError([problem(file, "data.result", f"more than {MAX_SAMPLES:,} samples",
                                      "export a shorter window or a coarser step (a few hours at 15-60 s)")])
    return out
