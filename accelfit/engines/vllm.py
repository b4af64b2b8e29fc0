"""vLLM, the first engine (moved here from components/kubernetes/serving/manifests.py; sources there and below).

- Entry point and flags: vLLM's OpenAI server (`python3 -m vllm.entrypoints.openai.api_server`), flag names from
  vllm/engine/arg_utils.py (EngineArgs) at the pinned release (components/kubernetes/data/serving_images.yaml);
  `--load-format runai_streamer` for s3:// weights (docs.vllm.ai models/extensions/runai_model_streamer).
- Port 8000 and /health: GKE Inference Gateway quickstart model server, GoogleCloudPlatform/kubernetes-engine-samples
  ai-ml/infw-gw/examples/getting-started/vllm-llama3-8b-instruct.yaml @334b9d14; vLLM serves /health and
  /metrics on its OpenAI port (vllm/entrypoints/openai/api_server.py at v0.11.0).
- Multi-node: LeaderWorkerSet vLLM example, kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml @v0.7.0
  (cd3a73a3): the leader starts Ray with multi-node-serving.sh then the server with --tensor-parallel-size (GPUs
  per node) and --pipeline-parallel-size (nodes); workers join $(LWS_LEADER_ADDRESS).
- Metrics: the three the endpoint picker scrapes by default (kubernetes-sigs/gateway-api-inference-extension
  pkg/epp/server/options.go at v1.3.1 @fea5e3db: vllm:num_requests_waiting, vllm:num_requests_running,
  vllm:kv_cache_usage_perc), so the picker needs no metric flags for vLLM (site-src/implementations/
  model-servers.md: "vLLM is configured as the default").
- Mixture-of-Experts over several nodes: data-parallel attention (one rank per node, tensor parallel inside it)
  with the experts expert parallel over every GPU (`--data-parallel-size`, `--enable-expert-parallel`), the ranks
  started over the LWS group's Ray cluster by `--data-parallel-backend=ray` (vllm-project/vllm
  docs/serving/data_parallel_deployment.md @01e4fce0: "By default, expert layers form a tensor parallel group of
  size DP × TP. To use expert parallelism instead, include the --enable-expert-parallel CLI arg"; "This DP mode can
  also be used with Ray by specifying --data-parallel-backend=ray"; --max-num-seqs applies per DP rank).
"""

from __future__ import annotations

from accelfit.engines.base import Engine, EngineMetrics, GroupCommand, ServerShape

PORT = 8000
MULTI_NODE_SCRIPT = "/vllm-workspace/examples/online_serving/multi-node-serving.sh"
# The LWS leader: the blueprint's Ray start (its $(LWS_GROUP_SIZE) is Kubernetes' own expansion of the variable LWS
# puts in every group pod), then the server. The server's argv is passed to the shell as positional parameters and
# run with `exec "$@"`: a value is never shell text, whatever a weights key holds (`r&d/llama`, `llama(v2)`, quotes),
# and vLLM becomes the container's main process, receiving the pod's SIGTERM as a single-node server does.
LEADER_SCRIPT = f'bash {MULTI_NODE_SCRIPT} leader --ray_cluster_size=$(LWS_GROUP_SIZE); exec "$@"'
LEADER_SHELL_NAME = "vllm-leader"  # $0 of the leader's shell (its name in `ps` and error messages)


def flags(shape: ServerShape) -> list[str]:
    """vLLM's OpenAI server flags, every value from the plan (EngineArgs names)."""
    extra = ["--load-format=runai_streamer"] if shape.weights_scheme == "s3" else []
    if shape.expert_parallel:
        # --max-num-seqs is per data-parallel rank: the replica's batch shared over its ranks.
        parallel = [f"--tensor-parallel-size={shape.tensor_parallel}", f"--data-parallel-size={shape.data_parallel}",
                    "--data-parallel-backend=ray", "--enable-expert-parallel"]
        running = max(1, -(-shape.max_running_requests // shape.data_parallel))
    else:
        parallel = [f"--tensor-parallel-size={shape.tensor_parallel}",
                    f"--pipeline-parallel-size={shape.pipeline_parallel}"]
        running = shape.max_running_requests
    out = [f"--model={shape.model}", f"--served-model-name={shape.workload}", "--host=0.0.0.0", f"--port={PORT}",
           *parallel, f"--max-num-seqs={running}", f"--max-model-len={shape.max_model_len}",
           f"--dtype={shape.dtype}", f"--gpu-memory-utilization={shape.memory_fraction:g}", *extra]
    if shape.quantization:
        out.append(f"--quantization={shape.quantization}")
    return out


def quantizations(kind: str) -> tuple[str, ...]:
    """--quantization values of the pinned release (accelfit/engines/data/vllm_quantization.yaml); TPU: its subset."""
    from accelfit.engines.vllm_quantization import vllm_methods, vllm_tpu_methods

    return vllm_tpu_methods() if kind == "tpu" else vllm_methods()


def leader(shape: ServerShape, serve: list[str]) -> GroupCommand:
    return GroupCommand(command=("sh", "-c", LEADER_SCRIPT, LEADER_SHELL_NAME), args=tuple(serve))


def worker(shape: ServerShape, serve: list[str]) -> GroupCommand:
    return GroupCommand(command=("sh", "-c", f"bash {MULTI_NODE_SCRIPT} worker --ray_address=$(LWS_LEADER_ADDRESS)"))


ENGINE = Engine(
    name="vllm", title="vLLM", port=PORT, health_path="/health", metrics_path="/metrics",
    metrics=EngineMetrics(queue="vllm:num_requests_waiting", running="vllm:num_requests_running",
                          kv_cache="vllm:kv_cache_usage_perc"),
    epp_flags=(), images={"gpu": "vllm-cuda", "tpu": "vllm-tpu"}, weights_schemes=("gs", "s3", "hf"),
    entrypoint=("python3", "-m", "vllm.entrypoints.openai.api_server"), flags=flags, quantizations=quantizations,
    leader=leader, worker=worker, worker_component="vllm-worker", experts_across_nodes=True,
    source="vllm-project/vllm v0.11.0 (CUDA) / vllm-tpu v0.12.0; see the module docstring")
