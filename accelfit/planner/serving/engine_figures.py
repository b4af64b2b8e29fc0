"""Serving-engine figures (data/serving.yaml): efficiency per accelerator and engine, tensor-parallel links, engine
limits. Loaded once; each row carries its source and date like the catalog's."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from accelfit.catalog.models import Accelerator
from accelfit.yamlio import read_package_yaml

SERVING_FILE = Path(__file__).parents[1] / "data" / "serving.yaml"
ANY = "*"


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    as_of: dt.date
    source: str = Field(min_length=3)
    verified: bool = True


class ServingEfficiency(_Row):
    accelerator: str = Field(description="Canonical accelerator name, or * for any.")
    engine: str = Field(description="Serving engine (vllm, sglang, tensorrt-llm, jetstream, ...), or * for any.")
    decode_bandwidth: float = Field(gt=0, le=1, description="Share of peak memory bandwidth reached in decode.")
    prefill_compute: float = Field(gt=0, le=1, description="Share of the dense peak reached on prefill math.")


class TensorParallelLink(_Row):
    interconnect: str = Field(description="Prefix of the catalog's interconnect name: NVLink, ICI, PCIe4, ...")
    gbps_per_direction: float = Field(ge=0, description="GB/s per direction; 0 = half the accelerator row's figure.")
    allreduce_latency_us: float = Field(gt=0, description="Fixed cost of one all-reduce, microseconds.")


class PipelineLink(_Row):
    efficiency: float = Field(gt=0, le=1, description="Share of the node's network a stage-to-stage send reaches.")
    latency_us: float = Field(gt=0, description="Fixed cost of one send between nodes, microseconds.")


class ExpertParallelLink(_Row):
    efficiency: float = Field(gt=0, le=1, description="Share of the node's network an all-to-all's bytes that leave "
                              "the node reach.")
    latency_us: float = Field(gt=0, description="Fixed cost of one all-to-all (dispatch or combine) across nodes, "
                              "microseconds.")


class EngineLimits(_Row):
    engine: str
    max_num_seqs: int = Field(ge=1, description="Most sequences the plan lets a replica keep in flight "
                              "(--max-num-seqs); the KV cache and the latency targets may hold it lower.")
    kv_block_tokens: int = Field(ge=1, description="Tokens per paged KV-cache block.")


class BatchedTokens(_Row):
    accelerator: str = Field(description="Canonical accelerator name, or * for any.")
    max_num_batched_tokens: int = Field(ge=1, description="The engine's token budget per step (its default).")


class ServingData(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int
    efficiency: tuple[ServingEfficiency, ...]
    tensor_parallel_links: tuple[TensorParallelLink, ...]
    pipeline_links: tuple[PipelineLink, ...]
    expert_parallel_links: tuple[ExpertParallelLink, ...]
    engines: tuple[EngineLimits, ...]
    batched_tokens: tuple[BatchedTokens, ...]


@functools.cache
def serving_data() -> ServingData:
    return ServingData.model_validate(read_package_yaml(SERVING_FILE))


def efficiency_for(accelerator: str, engine: str = ANY) -> ServingEfficiency:
    """The most specific row: (accelerator, engine), (accelerator, *), (*, engine), then (*, *)."""
    rows = {(row.accelerator, row.engine): row for row in serving_data().efficiency}
    for key in ((accelerator, engine), (accelerator, ANY), (ANY, engine), (ANY, ANY)):
        if key in rows:
            return rows[key]
    raise LookupError("data/serving.yaml has no default efficiency row (accelerator *, engine *)")


def pipeline_link() -> PipelineLink:
    return serving_data().pipeline_links[0]


def expert_parallel_link() -> ExpertParallelLink:
    return serving_data().expert_parallel_links[0]


def engine_limits(engine: str = ANY) -> EngineLimits:
    rows = {row.engine: row for row in serving_data().engines}
    return rows.get(engine) or rows[ANY]


def max_num_batched_tokens(accelerator: str) -> int:
    """The step's token budget the server runs with on this accelerator (vLLM's default; the plan does not set it)."""
    rows = {row.accelerator: row for row in serving_data().batched_tokens}
    return (rows.get(accelerator) or rows[ANY]).max_num_batched_tokens


@dataclass(frozen=True)
class Link:
    bytes_per_second: float
    latency_seconds: float
    over_pcie: bool


def tensor_parallel_link(accelerator: Accelerator) -> Link:
    """The link a tensor-parallel all-reduce crosses on this accelerator (longest matching interconnect prefix)."""
    rows = sorted(serving_data().tensor_parallel_links, key=lambda row: -len(row.interconnect))
    row = next((row for row in rows if accelerator.interconnect.startswith(row.interconnect)), None)
    if row is None:
        raise LookupError(f"data/serving.yaml has no tensor-parallel link for {accelerator.interconnect}")
    gbps = row.gbps_per_direction or accelerator.interconnect_gbps / 2.0
    return Link(gbps * 1e9, row.allreduce_latency_us * 1e-6, accelerator.interconnect.startswith("PCIe"))
