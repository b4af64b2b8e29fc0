"""The workload spec: what a team runs, and where it may run (design.md section 3; the names are user-facing).

Strict on purpose: unknown keys are errors (a misspelt `deadline_day` must not silently mean "no deadline"),
sizes accept suffixes (`70B`, `2T`), fixed choices are enums, and every field has a description that ends up in
the JSON Schema that `accelfit schema` prints for editors.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Any, TypeVar

from pydantic import (
    AllowInfNan, BaseModel, BeforeValidator, ConfigDict, Field, Strict, WithJsonSchema, field_validator,
    model_serializer, model_validator,
)

from accelfit.buying import buying_model
from accelfit.clouds import cloud_named, cloud_of_scheme
from accelfit.clouds.names import PlacementCloud as PlacementCloud  # the spec's vocabulary, re-exported
from accelfit.catalog.models import Precision as Precision  # re-exported as the spec's own names
from accelfit.catalog.models import PricingModel as Pricing
from accelfit.catalog.names import UnknownAcceleratorError, canonical_accelerator, shipped_instance_types
from accelfit.catalog.rows import region_of_zone
from accelfit.errors import did_you_mean, short_repr
from accelfit.sizes import SizeError, parse_bytes, parse_count
from accelfit.spec.job_source import job_cloud, parse_code, parse_image
from accelfit.engines.vllm_quantization import AUTO, vllm_methods
from accelfit.spec.regions import cloud_of_region, cloud_regions
from accelfit.values import credential_message, credential_paths, object_location


class StrictModel(BaseModel):
    """Frozen, and unknown keys rejected: a typo in a user's YAML is an error, never a silent default."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)


def _without_unset(data: Any, names: tuple[str, ...]) -> Any:
    """Optional fields added after specs were first recorded (serving, job sources, overflow), left unset, serialize
    as before they existed: plan and preview documents of every stack that does not use them stay byte for byte the
    same."""
    if isinstance(data, dict):
        for name in names:
            if data.get(name) is None:
                data.pop(name, None)
    return data


def _count(value: object) -> float:
    try:
        return parse_count(value)
    except SizeError as error:
        raise ValueError(str(error)) from None


def _terabytes(value: object) -> float:
    """A number is already TB; a string with a unit ('500Gi', '20TB') is converted to TB (10^12 bytes)."""
    try:
        return parse_bytes(value) / 1e12 if isinstance(value, str) else parse_bytes(value)
    except SizeError as error:
        raise ValueError(str(error)) from None


# What editors see for a size: a number, or a string with a suffix. The pattern mirrors accelfit.sizes.
_COUNT_SCHEMA = {"anyOf": [{"type": "number", "exclusiveMinimum": 0},
                           {"type": "string", "pattern": r"^\s*[0-9.]+([eE][-+]?[0-9]+)?\s*[kKmMbBgGtTpP]?\s*$"}]}
_BYTES_SCHEMA = {"anyOf": [{"type": "number", "minimum": 0},
                           {"type": "string",
                            "pattern": r"^\s*[0-9.]+([eE][-+]?[0-9]+)?\s*([kKmMgGtTpP][iI]?)?[bB]?\s*$"}]}

Count = Annotated[float, BeforeValidator(_count), WithJsonSchema(_COUNT_SCHEMA)]
Terabytes = Annotated[float, BeforeValidator(_terabytes), WithJsonSchema(_BYTES_SCHEMA)]
# Plain numbers are strict: YAML `true` is not 1, "30" is not 30, and infinity or NaN is never a quantity.
Number = Annotated[float, Strict(), AllowInfNan(False)]
WholeNumber = Annotated[int, Strict()]

DNS_LABEL = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
_NAME_CHARACTERS = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
HF_TOKEN_KEY = "accelfit:hfToken"  # declared in Pulumi.yaml; keys of other namespaces are the user's own
_CONFIG_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*:[A-Za-z][A-Za-z0-9_.-]*\Z")


_Value = TypeVar("_Value")


def _required(value: _Value | None, field: str, rule: str) -> _Value:
    """A field a validator requires (`rule` says where) read where that rule holds. None here means a caller read it
    on a spec the rule does not cover: a bug in the caller, said as such rather than carried on as None."""
    if value is None:
        raise AssertionError(f"{field}: read where it is not set; it is required {rule}")
    return value


def weights_scheme(weights: str) -> str:
    """gs, s3 or hf for a well-formed model.weights; ValueError naming the form otherwise (accelfit.values: the
    bucket, the key's characters, no credential)."""
    return object_location(weights).scheme


def weights_cloud(scheme: str) -> str | None:
    """The cloud whose identity reads a bucket scheme (its record's `storage_schemes`); None for hf://, read over
    the internet from any cloud."""
    found = cloud_of_scheme(scheme)
    return found.name if found is not None else None


class WorkloadKind(str, Enum):
    training = "training"
    fine_tuning = "fine-tuning"
    inference = "inference"


class Framework(str, Enum):
    pytorch = "pytorch"
    jax = "jax"
    tensorflow = "tensorflow"


class Maturity(str, Enum):
    experimental = "experimental"
    evolving = "evolving"
    stable = "stable"


class TrainingMethod(str, Enum):
    full = "full"
    lora = "lora"


class Traffic(str, Enum):
    variable = "variable"
    steady = "steady"


class Portability(str, Enum):
    none = "none"
    preferred = "preferred"
    required = "required"


class Deployment(str, Enum):
    cloud = "cloud"
    dedicated = "dedicated"
    any = "any"


class Orchestration(str, Enum):
    kubernetes = "kubernetes"
    vms = "vms"
    any = "any"  # whichever is cheaper for the job: a cluster, or (single-node training) one VM


class AutostopAction(str, Enum):
    stop = "stop"  # the VM stops: its boot disk stays (and bills), the next `pulumi up` or a start resumes it
    delete = "delete"  # the VM deletes itself: nothing bills after the run but the bucket


class ModelServer(str, Enum):
    vllm = "vllm"
    sglang = "sglang"
    none = "none"


class Architecture(str, Enum):
    transformer = "transformer"
    other = "other"


class Attention(str, Enum):
    gqa = "gqa"
    mla = "mla"


class ModelSpec(StrictModel):
    parameters: Count | None = Field(
        default=None, gt=0, le=1e15,
        description="Total parameter count (for a Mixture-of-Experts model: all experts), e.g. 70B or 671B. Memory, "
                    "checkpoints and the serving group are sized from it. Required for transformers.")
    active_parameters: Count | None = Field(
        default=None, gt=0, le=1e15,
        description="Mixture-of-Experts only: parameters active per token (e.g. 37B for DeepSeek-V3's 671B); training "
                    "and prefill FLOPs are counted from it. Default: parameters (a dense model).")
    experts: WholeNumber | None = Field(default=None, ge=2, le=100_000,
                                        description="Mixture-of-Experts: routed experts per MoE layer (e.g. 8, 256).")
    experts_per_token: WholeNumber | None = Field(default=None, ge=1, le=100_000,
                                                  description="Mixture-of-Experts: routed experts each token uses.")
    precision: Precision = Field(default=Precision.bf16, description="Numeric precision of training or serving: "
                                 "fp32, tf32, bf16, fp16, fp8, fp4 or int8.")
    architecture: Architecture = Field(
        default=Architecture.transformer,
        description="transformer (sized from parameters), or other (any model, sized from gflops_per_sample and "
                    "memory_gib).")
    gflops_per_sample: Number | None = Field(
        default=None, gt=0, le=1e9,
        description="architecture other: forward-pass GFLOPs for one sample (one image, one ranking request); "
                    "training counts 3x (forward and backward).")
    memory_gib: Number | None = Field(
        default=None, gt=0, le=1e6,
        description="architecture other: accelerator memory one copy of the model needs, GiB (weights, and for "
                    "training its optimizer state and one batch's activations).")
    dynamic_shapes: bool = Field(default=False, description="Data-dependent shapes or control flow (favours GPUs).")
    custom_kernels: bool = Field(default=False, description="Hand-written CUDA/Triton kernels (needs GPUs).")
    layers: WholeNumber | None = Field(default=None, ge=1, le=1000,
                                       description="Transformer layers, for KV-cache sizing.")
    hidden_size: WholeNumber | None = Field(default=None, ge=1, le=1_000_000,
                                            description="Model width, for KV-cache sizing.")
    kv_heads: WholeNumber | None = Field(default=None, ge=1, le=1024,
                                         description="Key/value heads (GQA), for KV-cache sizing.")
    attention_heads: WholeNumber | None = Field(default=None, ge=1, le=1024,
                                                description="Query heads, to derive the head size.")
    context_tokens: WholeNumber | None = Field(default=None, ge=1, le=100_000_000,
                                               description="Longest context served, tokens.")
    attention: Attention = Field(
        default=Attention.gqa,
        description="gqa (grouped-query or multi-head attention: K and V per KV head) or mla (multi-head latent "
                    "attention, DeepSeek-V2/V3: one compressed latent per token); changes the KV cache.")
    kv_lora_rank: WholeNumber | None = Field(default=None, ge=1, le=100_000,
                                             description="attention mla: the latent's width (512 in DeepSeek-V3).")
    rope_head_dim: WholeNumber | None = Field(default=None, ge=0, le=100_000,
                                              description="attention mla: decoupled RoPE key width (64 in DeepSeek-V3).")
    weights: str | None = Field(
        default=None, min_length=6, max_length=1024,
        description="Where a model server loads the weights from: gs://bucket[/path] (GKE reads it through Cloud "
                    "Storage FUSE), s3://bucket[/prefix] (EKS streams it with vLLM's Run:ai model streamer under "
                    "the workload's Pod Identity role) or hf://org/name (downloaded from the Hugging Face Hub with "
                    "weights_token). Setting it makes inference.server default to vllm: the stack builds the model "
                    "server.")
    weights_token: str | None = Field(
        default=None, min_length=3, max_length=128,
        description="hf:// weights: the stack config key holding the Hugging Face token as a secret (e.g. "
                    "accelfit:hfToken, set with `pulumi config set --secret accelfit:hfToken hf_...`); the server "
                    "reads it from a Kubernetes Secret, never from the spec.")
    quantization: str = Field(
        default=AUTO, min_length=2, max_length=32,
        description="What the model server is told with vLLM's --quantization: auto (the default: no flag, vLLM reads "
                    "the checkpoint's own quantization_config, as the usual published FP8 checkpoints declare "
                    "compressed-tensors or modelopt; vLLM refuses a flag naming another method than the checkpoint "
                    "declares), or a method the pinned vLLM accepts, e.g. fp8 to quantize a bf16 checkpoint to FP8 "
                    "as it loads. TPU servers accept fp8, tpu_int8 or compressed-tensors. Values: auto, "
                    + ", ".join(vllm_methods()) + ".")

    @field_validator("quantization", mode="after")
    @classmethod
    def _quantization_method(cls, quantization: str) -> str:
        if quantization != AUTO and quantization not in vllm_methods():
            hint = did_you_mean(quantization, (AUTO, *vllm_methods()))
            raise ValueError(f"quantization: {short_repr(quantization)} is not a method vLLM accepts"
                             + (f" (did you mean {hint}?)" if hint else "")
                             + f"; use auto (no flag: the checkpoint's own config) or one of "
                             f"{', '.join(vllm_methods())}")
        return quantization

    @field_validator("weights", mode="after")
    @classmethod
    def _weights_uri(cls, weights: str | None) -> str | None:
        if weights is not None:
            object_location(weights)  # raises with the form each scheme takes and the characters a key may hold
        return weights

    @model_serializer(mode="wrap")
    def _serving_fields_when_set(self, handler: Any) -> Any:
        data = _without_unset(handler(self), ("weights", "weights_token"))
        if isinstance(data, dict) and data.get("quantization") == AUTO:
            data.pop("quantization")  # the default serializes as before the field existed
        return data

    @property
    def total_parameters(self) -> float:
        """parameters, which _size_rules requires of a transformer (architecture other has no count: it is sized
        from gflops_per_sample and memory_gib)."""
        return _required(self.parameters, "model.parameters", "for a transformer")

    @property
    def active(self) -> float:
        """Parameters a token passes through: the FLOPs count (the total for a dense model). A transformer's."""
        return self.active_parameters if self.active_parameters is not None else self.total_parameters

    @property
    def sample_gflops(self) -> float:
        """gflops_per_sample, which _architecture_rules requires of architecture other."""
        return _required(self.gflops_per_sample, "model.gflops_per_sample", "when architecture is other")

    @property
    def copy_memory_gib(self) -> float:
        """memory_gib, which _architecture_rules requires of architecture other."""
        return _required(self.memory_gib, "model.memory_gib", "when architecture is other")

    @property
    def is_moe(self) -> bool:
        return (self.active_parameters is not None and self.parameters is not None
                and self.active_parameters < self.parameters)

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        self._size_rules()
        self._architecture_rules()
        self._weights_rules()
        if self.attention is Attention.gqa and self.kv_lora_rank is not None:
            raise ValueError("kv_lora_rank: only used with attention: mla; set attention: mla or remove it")
        return self

    def _size_rules(self) -> None:
        """parameters for a transformer; active_parameters and experts_per_token within their totals."""
        if self.parameters is None and self.architecture is Architecture.transformer:
            raise ValueError("parameters: required for a transformer (the total parameter count, e.g. 70B); for "
                             "another kind of model set architecture: other with gflops_per_sample and memory_gib")
        if (self.active_parameters is not None and self.parameters is not None
                and self.active_parameters > self.parameters):
            raise ValueError("active_parameters: more than parameters; parameters is the TOTAL (all experts) and "
                             "active_parameters the share a token uses, e.g. parameters: 671B, active_parameters: 37B")
        if (self.experts_per_token is not None and self.experts is not None
                and self.experts_per_token > self.experts):
            raise ValueError("experts_per_token: more than experts; give the routed experts a token uses "
                             "(e.g. 2 of 8)")

    def _architecture_rules(self) -> None:
        """architecture other is sized from gflops_per_sample and memory_gib, which only it uses."""
        if self.architecture is Architecture.other:
            missing = [name for name in ("gflops_per_sample", "memory_gib") if getattr(self, name) is None]
            if missing:
                raise ValueError(f"{missing[0]}: required when architecture is other (the model is sized from its "
                                 "compute and memory per sample); add gflops_per_sample and memory_gib")
            if self.active_parameters is not None or self.experts is not None:
                raise ValueError("active_parameters: a Mixture-of-Experts transformer is architecture transformer; "
                                 "remove it or set architecture: transformer")
        else:
            for name in ("gflops_per_sample", "memory_gib"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name}: only used when architecture is other; set architecture: other or "
                                     f"remove {name}")

    def _weights_rules(self) -> None:
        """weights_token: required by hf:// weights, used by nothing else, and a config key accelfit may read."""
        scheme = weights_scheme(self.weights) if self.weights is not None else None
        if scheme == "hf" and self.weights_token is None:
            raise ValueError("weights_token: required for hf:// weights; name the stack config key that holds the "
                             "Hugging Face token as a secret, e.g. weights_token: accelfit:hfToken (then `pulumi "
                             "config set --secret accelfit:hfToken hf_...`)")
        if self.weights_token is None:
            return
        if scheme != "hf":
            raise ValueError("weights_token: only used with hf:// weights (gs:// and s3:// are read through the "
                             "workload's cloud identity); remove it")
        if not _CONFIG_KEY.match(self.weights_token):
            raise ValueError(f"weights_token: {short_repr(self.weights_token)} is not a stack config key; give it as "
                             "namespace:key, e.g. accelfit:hfToken")
        if self.weights_token.startswith("accelfit:") and self.weights_token != HF_TOKEN_KEY:
            raise ValueError(f"weights_token: {self.weights_token} is not a key accelfit reads; use "
                             f"{HF_TOKEN_KEY}, or a key in another namespace (e.g. hf:token)")


class TrainingSpec(StrictModel):
    tokens: Count | None = Field(default=None, gt=0, le=1e17,
                                 description="Training tokens, e.g. 2T (transformers).")
    samples: Count | None = Field(default=None, gt=0, le=1e18,
                                  description="architecture other: samples processed in the whole run (epochs x "
                                              "dataset samples), e.g. 120M for 90 epochs of ImageNet-1k.")
    deadline_days: Number = Field(gt=0, le=3650, description="Wall-clock days the run may take.")
    deadline_margin_pct: Number = Field(default=10, ge=0, lt=100,
                                        description="Plan the run to finish this share of the deadline early (room "
                                                    "for a slow start, a bad node, a rerun).")
    method: TrainingMethod = Field(default=TrainingMethod.full, description="full, or lora (fine-tuning only).")
    code: str | None = Field(
        default=None, min_length=8, max_length=1024,
        description="GPU VMs: the job's code, fetched into the job's working directory before training.command "
                    "runs (again after a restart only if it is missing): an archive gs://BUCKET/PATH.tar.gz or "
                    "s3://BUCKET/KEY.tar.gz (.tgz, .tar; the VM's identity reads the bucket), or a public git "
                    "repository pinned to a commit, https://HOST/PATH.git@<40-hex commit>.")
    image: str | None = Field(
        default=None, min_length=3, max_length=255,
        description="GPU VMs: a container image run with all the VM's GPUs (NVIDIA Container Toolkit) instead of "
                    "code: REGISTRY/PATH:TAG or REGISTRY/PATH@sha256:DIGEST (not :latest). The job directory is "
                    "mounted at /workspace; training.command, if set, replaces the image's entrypoint (run with "
                    "sh -c). Artifact Registry and ECR images are pulled with the VM's identity.")
    command: str | None = Field(
        default=None, min_length=1, max_length=4096,
        description="GPU VMs (placement.orchestration: vms or any): the shell command the job runs, as root, in the "
                    "job's working directory (with training.code: the unpacked code; with training.image: in the "
                    "container); one line. $ACCELFIT_BUCKET_URL names the stack's bucket (gs://... or s3://...) "
                    "for data and checkpoints. It runs at every boot until it succeeds once, so it must resume from "
                    "its last checkpoint. Without command and image the VM boots idle and autostop stops it.")

    @field_validator("command", mode="after")
    @classmethod
    def _one_line(cls, command: str | None) -> str | None:
        if command is not None and (not command.strip() or any(char in command for char in "\n\r\x00")):
            raise ValueError("command must be one non-empty line without NUL characters; put a longer job in a "
                             "script in the image or the bucket and call that")
        return command

    @field_validator("code", mode="after")
    @classmethod
    def _code_form(cls, code: str | None) -> str | None:
        if code is not None:
            parse_code(code)  # raises with the forms it takes
        return code

    @field_validator("image", mode="after")
    @classmethod
    def _image_form(cls, image: str | None) -> str | None:
        if image is not None:
            parse_image(image)  # raises with the form it takes
        return image

    @model_validator(mode="after")
    def _one_job_source(self) -> TrainingSpec:
        if self.code is not None and self.image is not None:
            raise ValueError("image: give training.code (run on the VM's own image) or training.image (a container "
                             "with the code in it), not both; bake the code into the image or drop image")
        if self.code is not None and self.command is None:
            raise ValueError("command: required with training.code (what to run in the unpacked code's directory), "
                             "e.g. command: torchrun --nproc-per-node=gpu train.py")
        return self

    @model_serializer(mode="wrap")
    def _job_fields_when_set(self, handler: Any) -> Any:
        return _without_unset(handler(self), ("code", "image"))

    @property
    def runs_job(self) -> bool:
        """The spec asks a GPU VM to run something (a command, code or an image)."""
        return any(value is not None for value in (self.command, self.code, self.image))


class InferenceSpec(StrictModel):
    requests_per_second: Number = Field(gt=0, le=10_000_000, description=(
        "Requests per second to serve in the busiest hour; bursts within it reach requests_per_second × "
        "peak_factor."))
    input_tokens: WholeNumber = Field(default=1024, ge=1, le=10_000_000,
                                      description="Prompt tokens per request (typical).")
    output_tokens: WholeNumber = Field(default=256, ge=1, le=10_000_000,
                                       description="Generated tokens per request (typical).")
    latency_p99_ms: Number = Field(gt=0, le=3_600_000, description="99th-percentile end-to-end latency target, ms.")
    ttft_p99_ms: Number | None = Field(
        default=None, gt=0, le=3_600_000,
        description="Optional 99th-percentile time to first token target, ms (the wait for a place in the batch, "
                    "queueing included, plus the prompt's prefill): binds the plan, which sizes so its modelled "
                    "TTFT stays headroom_pct under it and reports the margin.")
    tpot_p99_ms: Number | None = Field(
        default=None, gt=0, le=3_600_000,
        description="Optional 99th-percentile time per output token target, ms (engine steps at the planned "
                    "batch, with the new prompts prefilled among them): binds the plan, which sizes so its modelled "
                    "TPOT stays headroom_pct under it and reports the margin.")
    headroom_pct: Number = Field(default=20, ge=0, lt=100,
                                 description="Each modelled p99 (TTFT, TPOT, end to end) stays this share under its "
                                             "target.")
    peak_factor: Number | None = Field(
        default=None, ge=1, le=100,
        description="Optional: the burst peak over requests_per_second (bursty traffic); the replicas carry "
                    "requests_per_second × peak_factor within every p99 target. Default: 1.3 for variable traffic, "
                    "1.15 for steady.")
    traffic: Traffic = Field(default=Traffic.variable,
                             description="variable (bursty, mixed batch sizes) or steady (large, regular batches).")
    hours_per_day: Number = Field(default=24, gt=0, le=24, description="Hours a day the service must be up.")
    serving_start_utc: str | None = Field(
        default=None, pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
        description="With hours_per_day under 24: when (HH:MM, UTC) the daily serving window starts; the servers "
                    "(and, where the platform schedules or autoscales them, the nodes) go to zero the rest of the "
                    "day. Default 08:00.")
    server: ModelServer | None = Field(
        default=None,
        description="vllm: the stack builds the model server (vLLM, on GPUs and TPUs) from the plan; none: capacity "
                    "only (node pools, no server). Default: vllm when model.weights is set, none otherwise.")
    public_endpoint: bool | None = Field(
        default=None,
        description="true: the serving endpoint is an internet-facing load balancer (GKE regional external "
                    "Application Load Balancer, EKS internet-facing NLB); the policy pack flags it (advisory in "
                    "prod). Default: an internal load balancer, reachable from the VPC only.")

    @model_serializer(mode="wrap")
    def _serving_fields_when_set(self, handler: Any) -> Any:
        return _without_unset(handler(self), ("ttft_p99_ms", "tpot_p99_ms", "server", "public_endpoint",
                                                             "peak_factor", "serving_start_utc"))

    @model_validator(mode="after")
    def _targets_within_end_to_end(self) -> InferenceSpec:
        for name in ("ttft_p99_ms", "tpot_p99_ms"):
            value = getattr(self, name)
            if value is not None and value > self.latency_p99_ms:
                raise ValueError(f"{name}: {value:g} ms is more than latency_p99_ms ({self.latency_p99_ms:g} ms), "
                                 "which a request's first token and each later token are part of; lower it or "
                                 "raise latency_p99_ms")
        if self.serving_start_utc is not None and self.hours_per_day >= 24:
            raise ValueError(f"serving_start_utc: {self.serving_start_utc} starts a daily serving window, but "
                             "hours_per_day is 24 (the service runs all day); set hours_per_day under 24 or drop "
                             "serving_start_utc")
        return self


class DataSpec(StrictModel):
    dataset_tb: Terabytes = Field(default=0, ge=0, le=1_000_000,
                                  description="Dataset size, TB (or a size such as 500Gi).")
    egress_tb_per_month: Terabytes = Field(default=0, ge=0, le=1_000_000,
                                           description="Data leaving the cloud each month, TB.")
    region: str | None = Field(default=None, min_length=1, max_length=64,
                               description="Where the dataset (and, for serving, the weights) lives, e.g. us-east1 "
                                           "or us-east-1: moving it to another region or cloud is priced, so nearby "
                                           "regions win unless another is cheaper by more than the move costs.")

    @field_validator("region", mode="after")
    @classmethod
    def _known_region(cls, region: str | None) -> str | None:
        if region is not None and cloud_of_region(region) is None:
            known = sorted(set().union(*cloud_regions().values()))
            close = did_you_mean(region, known)
            hint = f"did you mean {close!r}?" if close else "use a region such as us-central1 (GCP) or us-east-1 (AWS)"
            raise ValueError(f"region {short_repr(region)} is not a region of any cloud accelfit supports; {hint}")
        return region


class ReservationSpec(StrictModel):
    """Capacity the team already holds: a GCP reservation, an AWS On-Demand Capacity Reservation or a bought AWS
    Capacity Block. The cloud follows from the zone. Plans on it (budget.pricing reservation) price it as already
    paid."""

    name: str = Field(min_length=1, max_length=64,
                      description="GCP: the reservation's name. AWS: the Capacity Reservation's id (cr-...), also "
                                  "for a Capacity Block (a block is delivered as a targeted Capacity Reservation).")
    zone: str = Field(min_length=3, max_length=64,
                      description="Zone the reservation holds capacity in, e.g. us-central1-a or us-east-1a.")
    instance_type: str = Field(min_length=1, max_length=64,
                               description="Machine type (GCP) or instance type (AWS) reserved, e.g. a3-highgpu-8g "
                                           "or p5.48xlarge.")
    count: WholeNumber = Field(ge=1, le=100_000, description="Machines the reservation holds.")
    capacity_block: bool = Field(default=False,
                                 description="AWS: the reservation is an EC2 Capacity Block for ML (launched with "
                                             "market type capacity-block), not an On-Demand Capacity Reservation.")

    @property
    def cloud(self) -> str:
        return cloud_of_region(region_of_zone(self.zone)) or ""

    @property
    def region(self) -> str:
        return region_of_zone(self.zone)

    @model_validator(mode="after")
    def _known_place_and_type(self) -> ReservationSpec:
        cloud = self.cloud
        # The zone's cloud's own rules (accelfit/clouds: zone_suffix, reservation_name_pattern and _rule).
        record = cloud_named(cloud) if cloud else None
        if record is not None and not record.reservation_name_pattern:
            raise ValueError(f"zone: {short_repr(self.zone)} is in {record.title}, which takes no reservations; "
                             "remove the reservation or give one in a cloud that sells them")
        if record is None or not re.search(record.zone_suffix, self.zone):
            raise ValueError(f"zone: {short_repr(self.zone)} is not a zone of a region accelfit knows; give the "
                             "zone the reservation is in, e.g. us-central1-a (GCP) or us-east-1a (AWS)")
        known = shipped_instance_types(cloud)
        if self.instance_type not in known:
            close = did_you_mean(self.instance_type, known)
            hint = f"did you mean {close!r}?" if close else f"the catalog's {cloud} types are {', '.join(known)}"
            raise ValueError(f"instance_type: {short_repr(self.instance_type)} is not a {cloud} GPU type in the "
                             f"catalog; {hint}")
        if not re.match(record.reservation_name_pattern, self.name):
            raise ValueError(f"name: {short_repr(self.name)} is not {record.reservation_name_rule}")
        if self.capacity_block and not buying_model("capacity-block").sold_on(cloud):
            raise ValueError("capacity_block: Capacity Blocks are AWS's; a GCP reservation is a plain reservation, "
                             "remove capacity_block")
        return self


class OverflowSpec(StrictModel):
    """Where a dedicated workload's jobs go when its owned servers are full: a cluster in one cloud region, reached
    through Kueue MultiKueue (the owned cluster is tried first)."""

    cloud: PlacementCloud = Field(description="The cloud whose Kubernetes cluster takes the overflow.")
    region: str = Field(min_length=1, max_length=64, description="The overflow cluster's region.")
    hours_per_month: Number = Field(
        gt=0, le=730,
        description="Hours a month the overflow pool is expected to run at its full size (the owned servers full): "
                    "an assumption the plan states and prices the overflow at.")

    @field_validator("region", mode="after")
    @classmethod
    def _known_region(cls, region: str) -> str:
        if cloud_of_region(region) is None:
            raise ValueError(f"region {short_repr(region)} is not a region of any cloud accelfit supports; use a "
                             "region such as us-central1 (GCP) or us-east-1 (AWS)")
        return region

    @model_validator(mode="after")
    def _region_in_cloud(self) -> OverflowSpec:
        if cloud_of_region(self.region) != self.cloud.value:
            raise ValueError(f"region: {self.region} is not a {self.cloud.value} region; give a region of "
                             f"{self.cloud.value} or change cloud")
        return self


class PlacementSpec(StrictModel):
    clouds: tuple[PlacementCloud, ...] = Field(default=(PlacementCloud.gcp, PlacementCloud.aws),
                                               description="Clouds allowed.")
    regions: tuple[Annotated[str, Field(max_length=64)], ...] = Field(
        default=(), max_length=100, description="Region allow-list; empty = any offering region.")
    portability: Portability = Field(default=Portability.none,
                                     description="required: must also run off Google Cloud, which rules out TPUs.")
    deployment: Deployment = Field(default=Deployment.cloud,
                                   description="cloud, dedicated (own bare-metal inventory only) or any.")
    inventory: str | None = Field(default=None, min_length=1, max_length=1024,
                                  description="Path to a bare-metal inventory, relative to the file naming it.")
    overflow: OverflowSpec | None = Field(
        default=None,
        description="Dedicated only: a cloud cluster that takes the jobs the owned servers have no room for "
                    "(Kueue MultiKueue: owned cluster first, then this one), {cloud, region, hours_per_month}.")
    orchestration: Orchestration = Field(default=Orchestration.kubernetes,
                                         description="kubernetes; vms (TPU VMs, or one GPU VM for a single-node "
                                                     "training job, no cluster); or any (whichever is cheaper).")
    autostop_idle_minutes: WholeNumber = Field(
        default=30, ge=5, le=10080,
        description="GPU VMs: stop (or delete, autostop_action) the VM after its GPUs have been idle this many "
                    "minutes (an on-host check of nvidia-smi every minute); the plan prices this idle tail.")
    autostop_action: AutostopAction = Field(
        default=AutostopAction.stop,
        description="GPU VMs: stop (keep the boot disk, restart later) or delete (nothing left running) on idle.")
    accelerators: tuple[Annotated[str, Field(max_length=64)], ...] = Field(
        default=(), max_length=100, description="Accelerator allow-list (canonical names or aliases); empty = any.")
    reservations: tuple[ReservationSpec, ...] = Field(
        default=(), max_length=100,
        description="Reservations the team holds, each {name, zone, instance_type, count}: budget.pricing "
                    "reservation plans on them (already paid, so $0 marginal).")

    @model_serializer(mode="wrap")
    def _without_an_unset_overflow(self, handler: Any) -> Any:
        """A placement without overflow serializes as before overflow existed: specs in plans, previews and their
        goldens stay byte for byte the same."""
        return _without_unset(handler(self), ("overflow",))

    @field_validator("accelerators", mode="after")
    @classmethod
    def _canonical_accelerators(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        canonical = []
        for name in names:
            try:
                if not _NAME_CHARACTERS.match(name):
                    # "a100 80gb" is not how the accelerator is written anywhere a user will copy it to.
                    close = canonical_accelerator(re.sub(r"[^A-Za-z0-9.-]+", "-", name.strip()))
                    raise ValueError(f"accelerator {short_repr(name)} has spaces or other characters accelerator names "
                                     f"do not use; did you mean {close!r}?")
                canonical.append(canonical_accelerator(name))
            except UnknownAcceleratorError as error:
                hint = f"did you mean {error.suggestion!r}? " if error.suggestion else ""
                raise ValueError(f"unknown accelerator {short_repr(name)}; {hint}known: {', '.join(error.known)}") from None
        return tuple(dict.fromkeys(canonical))

    @field_validator("regions", mode="after")
    @classmethod
    def _known_regions(cls, regions: tuple[str, ...]) -> tuple[str, ...]:
        for region in regions:
            if cloud_of_region(region) is None:
                known = sorted(set().union(*cloud_regions().values()))
                close = did_you_mean(region, known) if len(region) <= 64 else None
                hint = (f"did you mean {close!r}?" if close
                        else "use a region such as us-central1 (GCP) or us-east-1 (AWS)")
                raise ValueError(f"region {short_repr(region)} is not a region of any cloud accelfit supports; {hint}")
        return regions

    @model_validator(mode="after")
    def _regions_in_allowed_clouds(self) -> PlacementSpec:
        allowed = {cloud.value for cloud in self.clouds}
        for region in self.regions:
            cloud = cloud_of_region(region)
            if cloud is not None and cloud not in allowed and self.deployment is not Deployment.dedicated:
                raise ValueError(f"regions: {region} is a {cloud} region but clouds is [{', '.join(sorted(allowed))}]; "
                                 f"add {cloud} to clouds or remove {region}")
        for index, reservation in enumerate(self.reservations):
            cloud = reservation.cloud
            if cloud not in allowed and self.deployment is not Deployment.dedicated:
                raise ValueError(f"reservations.{index}.zone: {reservation.zone} is a {cloud} zone but clouds is "
                                 f"[{', '.join(sorted(allowed))}]; add {cloud} to clouds or remove the reservation")
        names = [reservation.name for reservation in self.reservations]
        if len(set(names)) != len(names):
            raise ValueError("reservations: each reservation at most once (by name)")
        return self


class BudgetSpec(StrictModel):
    max_monthly_usd: Number | None = Field(default=None, gt=0, le=1e9,
                                           description="Most the workload may cost a month, USD.")
    max_total_usd: Number | None = Field(default=None, gt=0, le=1e10,
                                         description="Most a training run may cost in total, USD.")
    pricing: Pricing | tuple[Pricing, ...] = Field(
        default=Pricing.on_demand,
        description="on-demand, spot, committed-1y, committed-3y, reservation (capacity in placement.reservations, "
                    "already paid), flex-start (GCP Dynamic Workload Scheduler) or capacity-block (AWS Capacity "
                    "Blocks for ML); or a preference list such as [reservation, spot, on-demand]: the cheapest of "
                    "these that meets the deadline or latency; the fallback chain steps through the others.")

    @field_validator("pricing")
    @classmethod
    def _one_pricing_or_a_list(cls, value: Pricing | tuple[Pricing, ...]) -> Pricing | tuple[Pricing, ...]:
        if isinstance(value, tuple):
            if not value:
                raise ValueError("give at least one pricing model, e.g. [spot, on-demand]")
            if len(set(value)) != len(value):
                raise ValueError("each pricing model at most once")
            return value[0] if len(value) == 1 else value
        return value

    @property
    def pricing_options(self) -> tuple[Pricing, ...]:
        """The pricing models the planner may choose from, in the spec's order of preference."""
        return self.pricing if isinstance(self.pricing, tuple) else (self.pricing,)


class WorkloadSpec(StrictModel):
    """A workload: what runs, how big, how fast it must be, where it may run and what it may cost."""

    name: str = Field(pattern=DNS_LABEL, min_length=1, max_length=40,
                      description="DNS label used in resource names (lowercase letters, digits, '-'; at most 40 "
                                  "characters so derived cloud names stay under their 63-character limits).")
    kind: WorkloadKind = Field(description="training, fine-tuning or inference.")
    framework: Framework = Field(description="pytorch, jax or tensorflow.")
    maturity: Maturity = Field(default=Maturity.stable, description="experimental, evolving or stable code.")
    model: ModelSpec = Field(description="The model: size and numerics.")
    training: TrainingSpec | None = Field(default=None, description="Required for training and fine-tuning.")
    inference: InferenceSpec | None = Field(default=None, description="Required for inference.")
    data: DataSpec = Field(default_factory=DataSpec, description="Data volumes, for storage and egress cost.")
    placement: PlacementSpec = Field(default_factory=PlacementSpec, description="Where the workload may run.")
    budget: BudgetSpec = Field(default_factory=BudgetSpec, description="Limits on cost and the pricing model.")

    @model_validator(mode="before")
    @classmethod
    def _no_credentials(cls, data: Any) -> Any:
        """A secret pasted into any field (training.command, model.weights, ...) is refused before anything reads
        it, and no message quotes it: a spec is copied into plans, previews and VM metadata."""
        for path, kind, masked_form in credential_paths(data):
            raise ValueError(credential_message(path, kind, masked_form))
        return data

    @model_validator(mode="after")
    def _cross_field_rules(self) -> WorkloadSpec:
        # Each rule raises with the field path first, so the loader can point at the right key.
        self._kind_rules()
        self._training_rules()
        self._placement_rules()
        self._serving_rules()
        self._job_rules()
        return self

    def _kind_rules(self) -> None:
        """The training block for training and fine-tuning, the inference block for inference, never the other."""
        trains = self.kind in (WorkloadKind.training, WorkloadKind.fine_tuning)
        if trains and self.training is None:
            raise ValueError(f"training: required when kind is {self.kind.value}; add a training block "
                             "with tokens and deadline_days")
        if trains and self.inference is not None:
            raise ValueError(f"inference: not used when kind is {self.kind.value}; remove the inference block")
        if self.kind is WorkloadKind.inference and self.inference is None:
            raise ValueError("inference: required when kind is inference; add an inference block with "
                             "requests_per_second and latency_p99_ms")
        if self.kind is WorkloadKind.inference and self.training is not None:
            raise ValueError("training: not used when kind is inference; remove the training block")

    def _training_rules(self) -> None:
        """Tokens for a transformer, samples for architecture other; lora for a transformer's fine-tuning only."""
        if self.training is None:
            return
        other = self.model.architecture is Architecture.other
        if other and self.training.samples is None:
            raise ValueError("training.samples: required when model.architecture is other (training compute is "
                             "samples x 3 x gflops_per_sample); add samples, e.g. 120M")
        if not other and self.training.tokens is None:
            raise ValueError("training.tokens: required for a transformer; add tokens, e.g. 2T")
        if not other and self.training.samples is not None:
            raise ValueError("training.samples: only used when model.architecture is other; give tokens instead")
        if other and self.training.method is TrainingMethod.lora:
            raise ValueError("training.method: lora applies to transformers; use method: full with "
                             "architecture: other")
        if self.training.method is TrainingMethod.lora and self.kind is not WorkloadKind.fine_tuning:
            raise ValueError("training.method: lora is for kind fine-tuning; set kind: fine-tuning or method: full")

    def _placement_rules(self) -> None:
        """An inventory exactly where bare metal may be used, a cloud where clouds may be, and the reservations
        reservation pricing plans on."""
        placement = self.placement
        if placement.deployment is Deployment.dedicated and not placement.inventory:
            raise ValueError("placement.inventory: required when deployment is dedicated; give the path of a "
                             "bare-metal inventory file")
        if placement.deployment is Deployment.cloud and placement.inventory:
            raise ValueError("placement.inventory: only used when deployment is dedicated or any; set "
                             "deployment: any (or dedicated) or remove the inventory")
        if placement.deployment is not Deployment.dedicated and not placement.clouds:
            raise ValueError("placement.clouds: empty, so nothing can run in a cloud; list at least one of gcp, "
                             "aws, or set deployment: dedicated")
        if placement.overflow is not None and placement.deployment is not Deployment.dedicated:
            raise ValueError("placement.overflow: jobs overflow from owned servers, so it needs deployment: "
                             "dedicated and an inventory (the owned cluster is the first step); set deployment: "
                             "dedicated or remove overflow")
        if placement.overflow is not None and self.training is None:
            raise ValueError("placement.overflow: MultiKueue dispatches batch jobs, and an inference workload's "
                             "servers are not jobs; remove overflow")
        if placement.deployment is Deployment.dedicated and placement.orchestration is Orchestration.vms:
            raise ValueError("placement.orchestration: bare-metal servers join a Kubernetes cluster; set "
                             "orchestration: kubernetes")
        held = [model.value for model in self.budget.pricing_options if buying_model(model).price_source == "held"]
        if held and not placement.reservations:
            raise ValueError(f"budget.pricing: {held[0]} plans on capacity the team holds, and "
                             "placement.reservations lists none; add each reservation as {name, zone, instance_type, "
                             f"count}} or remove {held[0]} from budget.pricing")

    def _job_rules(self) -> None:
        """training.command, code and image are run by a GPU VM's startup script, and read with its cloud's
        identity: refused where nothing would run or read them."""
        training = self.training
        if training is None or not training.runs_job:
            return
        field = next(name for name in ("code", "image", "command") if getattr(training, name) is not None)
        if self.placement.orchestration is Orchestration.kubernetes:
            raise ValueError(f"training.{field}: only a GPU VM runs it (its startup script), and "
                             "placement.orchestration is kubernetes, where you submit the job yourself; set "
                             f"orchestration: vms (or any), or remove training.{field}")
        source = job_cloud(training.code, training.image)
        clouds = {allowed.value for allowed in self.placement.clouds}
        if source is not None and source[1] not in clouds:
            name, cloud = source
            raise ValueError(f"training.{name}: {getattr(training, name)} is read with the VM's {cloud} identity, "
                             f"and placement.clouds is [{', '.join(sorted(clouds))}]; add {cloud} to "
                             "placement.clouds, or copy it where the job runs")

    @property
    def training_block(self) -> TrainingSpec:
        """The training block, which _kind_rules requires for training and fine-tuning."""
        return _required(self.training, "training", "for training and fine-tuning")

    @property
    def inference_block(self) -> InferenceSpec:
        """The inference block, which _kind_rules requires for inference."""
        return _required(self.inference, "inference", "for inference")

    @property
    def training_amount(self) -> float:
        """What the run processes: training.tokens (a transformer) or training.samples (architecture other), one of
        which _training_rules requires."""
        training = self.training_block
        return _required(training.tokens or training.samples, "training.tokens",
                         "(or training.samples for architecture other) for training")

    @property
    def model_server(self) -> ModelServer | None:
        """The server the stack builds for an inference workload (inference.server, else vllm when model.weights
        is set and none otherwise); None for training."""
        if self.inference is None:
            return None
        if self.inference.server is not None:
            return self.inference.server
        return ModelServer.vllm if self.model.weights is not None else ModelServer.none

    @property
    def inference_server(self) -> ModelServer:
        """model_server for an inference workload (which always has one: vllm, sglang or none)."""
        return _required(self.model_server, "inference.server", "for inference (model_server is None for training)")

    def _serving_rules(self) -> None:
        server = self.model_server
        builds = server is not None and server is not ModelServer.none
        if self.model.quantization != AUTO and not builds:
            raise ValueError(f"model.quantization: {self.model.quantization} is what the vllm server is told, and "
                             "this spec builds no server (an inference spec with model.weights does); remove it")
        if self.inference is None:
            if self.model.weights is not None:
                raise ValueError("model.weights: only used for inference (the model server loads them); remove it")
            return
        if self.inference.server is not None and builds and self.model.weights is None:
            raise ValueError(f"model.weights: required when inference.server is {self.inference.server.value} (where "
                             "the server loads the weights from); add e.g. weights: gs://my-models/llama-3.1-8b, or "
                             "set server: none")
        if server is None or not builds:  # server is None only without an inference block, returned above
            if self.inference.public_endpoint is not None:
                raise ValueError("inference.public_endpoint: only used when the stack builds the model server (it "
                                 "sets the serving route's load balancer); set model.weights, or remove it")
            return
        self._engine_rules(server.value)

    def _engine_rules(self, name: str) -> None:
        """What the named engine serves, where it runs and what it reads (accelfit.engines)."""
        from accelfit.engines import engine  # the registry reads the spec's quantization data: imported on use

        if self.model.architecture is Architecture.other:
            raise ValueError(f"inference.server: {name} serves transformer language models, and model.architecture is "
                             "other; set server: none (capacity only) or architecture: transformer")
        if self.placement.orchestration is Orchestration.vms:
            raise ValueError(f"inference.server: the {name} server runs on Kubernetes (GKE or EKS), and "
                             "placement.orchestration is vms; set orchestration: kubernetes, or server: none")
        if self.placement.deployment is Deployment.dedicated:
            raise ValueError(f"inference.server: the {name} server is built on GKE or EKS, and placement.deployment "
                             "is dedicated (bare metal); set deployment: cloud, or server: none")
        server = engine(name)
        # A built server has weights: set by the spec, or the server defaults to none (_serving_rules).
        weights = _required(self.model.weights, "model.weights", "when the stack builds a model server")
        scheme = weights_scheme(weights)
        if scheme is not None and scheme not in server.weights_schemes:
            raise ValueError(f"model.weights: {self.model.weights}: {server.title} here loads weights from "
                             f"{', '.join(f'{item}://' for item in server.weights_schemes)} only; copy them to one of "
                             "those, or set inference.server: vllm")
        accepted = {method for kind in server.accelerator_kinds for method in server.quantizations(kind)}
        if self.model.quantization != AUTO and self.model.quantization not in accepted:
            raise ValueError(f"model.quantization: {self.model.quantization} is not a method {server.title} accepts "
                             f"(--quantization); use auto or one of {', '.join(sorted(accepted))}")
        cloud = weights_cloud(scheme)
        if cloud is not None and cloud not in {allowed.value for allowed in self.placement.clouds}:
            raise ValueError(f"model.weights: {self.model.weights} is read through the workload's {cloud} identity, "
                             f"and placement.clouds is [{', '.join(c.value for c in self.placement.clouds)}]; add "
                             f"{cloud} to placement.clouds, or copy the weights to the cloud you serve from")
