"""The model server's container commands, executed as a reviewer would (issue 36 item 1): each rendered container's
command and args go through Kubernetes' `$(VAR)` expansion (emulated below from kubernetes
third_party/forked/golang/expansion/expand.go) and then run for real, with stub `bash`, `python3`, `ray` and `vllm`
on PATH that record their argv. Every user value must arrive unchanged, and nothing else may run.

Hostile weights keys come in two groups: ones the spec accepts (an S3 key may hold & ( ) ' ; $ and more: these must
work), and ones it refuses (rendered here directly, to show the command is safe even without the spec's check).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog
from accelfit.errors import InputError
from accelfit.planner import plan_fleet
from accelfit.planner.planner import Environment
from accelfit.spec import WorkloadSpec
from accelfit.validation import validate
from components.kubernetes.build import servings
from components.kubernetes.serving import manifests
from components.kubernetes.serving.manifests import PoolTarget, ServerSettings

STUBS = ("bash", "python3", "ray", "vllm")
# Keys the spec accepts: each is an ordinary S3 key (object-keys.html: safe characters and ones needing "special
# handling"), and each breaks a command that pastes it into shell text or leaves `$(...)` to the kubelet.
ACCEPTED = ("r&d/llama", "llama(v2)", "it's/model", "a;b", "x$y", "$(AWS_REGION)/llama", "$(LWS_GROUP_SIZE)",
            "a=b:c+d,e@f!g*h", "team-a*", "a&&b")
# Keys the spec refuses; rendered anyway, bypassing it.
REFUSED = (";echo${IFS}PWNED;#", 'a"b', "a`echo PWNED`b", "a\\b", "a|echo PWNED", "a>pwned-file", "x'\"; echo PWNED; '",
           "$(echo PWNED)", "${IFS}PWNED", "a\nb", "a b")


def expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' expansion of a container's command and args: `$(NAME)` becomes NAME's value when the container
    defines it (kept as written otherwise), `$$` becomes `$`, any other `$` stays."""
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char != "$" or index + 1 == len(text):
            out.append(char)
            index += 1
            continue
        following = text[index + 1]
        if following == "$":
            out.append("$")
            index += 2
        elif following == "(" and ")" in text[index + 2:]:
            end = text.index(")", index + 2)
            name = text[index + 2:end]
            out.append(env.get(name, f"$({name})"))
            index = end + 1
        else:
            out.append("$" + following)
            index += 2
    return "".join(out)


def test_the_expansion_emulator_follows_the_documented_rules():
    env = {"A": "1"}
    assert expand("$(A)", env) == "1"
    assert expand("$$(A)", env) == "$(A)"  # "escaped references will never be expanded"
    assert expand("$(B)", env) == "$(B)"  # unresolved: unchanged
    assert expand("${A}$x$", env) == "${A}$x$"
    assert expand("$$$$", env) == "$$"


@pytest.fixture(scope="module")
def multi_node():
    workload = WorkloadSpec.model_validate({
        "name": "big", "kind": "inference", "framework": "pytorch",
        "model": {"parameters": "405B", "precision": "bf16", "weights": "s3://acme-models/llama-405b"},
        "inference": {"requests_per_second": 2, "latency_p99_ms": 60000},
        "placement": {"clouds": ["aws"], "regions": ["us-east-1"], "accelerators": ["h100-80gb"]}})
    fleet, _ = plan_fleet([workload], load_catalog(), Environment(name="staging"), None, fleet_name=None)
    plan = fleet.workloads[0].plan
    build = servings([(plan, "", (plan.workload,))])[0]
    settings = ServerSettings(workload=build.workload, namespace=build.namespace,
                              service_account=build.service_account, cloud=build.cloud, region=build.region,
                              serving=build.serving, hf_secret=build.hf_secret)
    placement = build.pools[0]
    target = PoolTarget(pool=placement.pool, pool_label="eks.amazonaws.com/nodegroup", pool_names=["big-gpu"],
                        taints=placement.taints)
    assert target.pool.nodes_per_replica == 2
    return settings, target


def with_weights(settings: ServerSettings, weights: str) -> ServerSettings:
    serving = settings.serving.model_copy(update={"weights": weights})
    return ServerSettings(**{**settings.__dict__, "serving": serving})


def stub_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in STUBS:
        stub = folder / name
        # Records its argv, NUL-separated, one file per call; prints nothing, so any "PWNED" came from elsewhere.
        stub.write_text(f'#!/bin/sh\nn=$(ls "$STUB_LOG" | wc -l)\nprintf "%s\\0" "{name}" "$@" > "$STUB_LOG/$n"\n')
        stub.chmod(0o755)
    return folder


def run_container(container: dict, tmp_path: Path, group_env: dict[str, str]) -> tuple[list[list[str]], str]:
    """Expand and execute a container's command and args; (the stub calls in order, everything printed)."""
    env = {item["name"]: item.get("value", "<from a Secret>") for item in container.get("env", [])}
    env.update(group_env)
    argv = [expand(part, env) for part in (*container["command"], *container.get("args", ()))]
    log = tmp_path / "calls"
    log.mkdir()
    done = subprocess.run(argv, env={**env, "PATH": f"{stub_dir(tmp_path)}{os.pathsep}/usr/bin{os.pathsep}/bin",
                                     "STUB_LOG": str(log)},
                          cwd=tmp_path, capture_output=True, text=True, timeout=20, check=False)
    calls = [(log / name).read_bytes().decode().split("\0")[:-1] for name in sorted(os.listdir(log), key=int)]
    return calls, done.stdout + done.stderr


GROUP_ENV = {"LWS_GROUP_SIZE": "2", "LWS_LEADER_ADDRESS": "big-vllm-gpu-0.big-vllm-gpu.serving"}


@pytest.mark.skipif(sys.platform == "win32", reason="runs a POSIX shell")
@pytest.mark.parametrize("key", ACCEPTED + REFUSED)
def test_the_leader_passes_every_value_through_unchanged(multi_node, key, tmp_path):
    settings = with_weights(multi_node[0], f"s3://acme-models/{key}")
    target = multi_node[1]
    leader = manifests.leader_worker_set(settings, target)["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    calls, printed = run_container(leader["spec"]["containers"][0], tmp_path, GROUP_ENV)
    expected = ["python3", "-m", "vllm.entrypoints.openai.api_server", *manifests.server_flags(settings, target.pool)]
    assert f"--model=s3://acme-models/{key}" in expected
    assert calls == [["bash", manifests.MULTI_NODE_SCRIPT, "leader", "--ray_cluster_size=2"], expected], printed
    assert "PWNED" not in printed and not (tmp_path / "pwned-file").exists()


@pytest.mark.parametrize("key", ACCEPTED + REFUSED)
def test_a_single_node_server_passes_every_value_through_unchanged(multi_node, key, tmp_path):
    settings = with_weights(multi_node[0], f"s3://acme-models/{key}")
    single = PoolTarget(pool=multi_node[1].pool.model_copy(update={"nodes_per_replica": 1}),
                        pool_label="eks.amazonaws.com/nodegroup", pool_names=["big-gpu"])
    container = manifests.deployment(settings, single)["spec"]["template"]["spec"]["containers"][0]
    calls, printed = run_container(container, tmp_path, {})
    assert calls == [["python3", "-m", "vllm.entrypoints.openai.api_server",
                      *manifests.server_flags(settings, single.pool)]], printed
    assert "PWNED" not in printed


def test_the_worker_joins_the_leader_named_by_lws(multi_node, tmp_path):
    settings, target = multi_node
    worker = manifests.leader_worker_set(settings, target)["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    calls, printed = run_container(worker["spec"]["containers"][0], tmp_path, GROUP_ENV)
    assert calls == [["bash", manifests.MULTI_NODE_SCRIPT, "worker",
                      f"--ray_address={GROUP_ENV['LWS_LEADER_ADDRESS']}"]], printed


def test_the_spec_accepts_the_ordinary_keys_and_refuses_the_rest():
    base = {"name": "big", "kind": "inference", "framework": "pytorch",
            "model": {"parameters": "8B", "precision": "bf16"},
            "inference": {"requests_per_second": 2, "latency_p99_ms": 60000}, "placement": {"clouds": ["aws"]}}
    for key in ACCEPTED:
        validate(WorkloadSpec, {**base, "model": {**base["model"], "weights": f"s3://acme-models/{key}"}}, "w.yaml")
    for key in REFUSED:
        with pytest.raises(InputError) as caught:
            validate(WorkloadSpec, {**base, "model": {**base["model"], "weights": f"s3://acme-models/{key}"}},
                     "w.yaml")
        assert "model.weights" in caught.value.problems[0].field, key


# --- the GCS FUSE mount options (issue 36 item 2) ------------------------------------------------------------------
def csi_driver_flags(mount_options: str) -> dict[str, str]:
    """The flags the GCS FUSE CSI driver reads from a volume's mountOptions: split on ',' (no escape), each option
    on its first '=' (gcs-fuse-csi-driver pkg/csi_driver/utils.go, pkg/sidecar_mounter/sidecar_mounter_config.go
    @5fcdc04a); options without '=' are config-file settings, kept whole."""
    return dict(option.split("=", 1) if "=" in option else (option, "") for option in mount_options.split(","))


@pytest.mark.parametrize("folder", ["llama", "r&d/llama(v2)", "a=b:c/d", "it's", "x$y"])
def test_the_folder_is_one_option_whatever_it_holds(multi_node, folder):
    settings = with_weights(multi_node[0], f"gs://acme-models/{folder}")
    volume = next(item for item in manifests.deployment(settings, multi_node[1])["spec"]["template"]["spec"]["volumes"]
                  if item["name"] == "weights")
    flags = csi_driver_flags(volume["csi"]["volumeAttributes"]["mountOptions"])
    assert flags.pop("only-dir") == folder
    assert set(flags) == set(manifests.GCSFUSE_OPTIONS)  # nothing added: no uid, gid, key-file, token-url


@pytest.mark.parametrize("folder", ["x,uid=0,gid=0", "x,key-file=/etc/key", "x,token-url=http://evil", "a\nb"])
def test_a_folder_that_would_add_options_is_refused_by_the_builder_too(multi_node, folder):
    settings = with_weights(multi_node[0], f"gs://acme-models/{folder}")
    with pytest.raises(InputError, match="mount options"):
        manifests.deployment(settings, multi_node[1])
