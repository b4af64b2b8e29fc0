"""vLLM serves a Mixture-of-Experts replica over several nodes as the planner models it: one data-parallel attention
rank per node (tensor parallel inside), the experts expert parallel over every GPU, the ranks started over the
LeaderWorkerSet's Ray cluster (vllm-project/vllm docs/serving/data_parallel_deployment.md @01e4fce0)."""

from __future__ import annotations

from accelfit.engines import engine
from accelfit.engines.base import ServerShape


def _shape(**changes) -> ServerShape:
    fields = dict(workload="moe", model="/models", weights_scheme="gs", tensor_parallel=8, pipeline_parallel=2,
                  nodes=2, max_running_requests=96, max_model_len=32768, dtype="bfloat16", memory_fraction=0.9)
    return ServerShape(**{**fields, **changes})


def test_an_expert_parallel_replica_gets_data_parallel_ranks_and_expert_parallel():
    flags = engine("vllm").flags(_shape(pipeline_parallel=1, data_parallel=2, expert_parallel=True))
    assert "--tensor-parallel-size=8" in flags and "--data-parallel-size=2" in flags
    assert "--enable-expert-parallel" in flags and "--data-parallel-backend=ray" in flags
    assert not any(flag.startswith("--pipeline-parallel-size") for flag in flags)
    assert "--max-num-seqs=48" in flags  # per data-parallel rank: the replica's 96 over its 2 ranks


def test_a_pipeline_replica_keeps_its_flags():
    flags = engine("vllm").flags(_shape())
    assert "--pipeline-parallel-size=2" in flags and "--max-num-seqs=96" in flags
    assert not any("data-parallel" in flag or "expert" in flag for flag in flags)


def test_the_engines_say_which_runs_experts_across_nodes():
    assert engine("vllm").experts_across_nodes and not engine("sglang").experts_across_nodes
