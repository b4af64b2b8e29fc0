"""The GitHub Actions workflows: parsed and checked for what they must do, then linted with real linters
(zizmor for workflow security and correctness, check-jsonschema with GitHub's workflow schema). actionlint is not
used: its PyPI package fetches its binary from the internet at build time, which this project's set-up cannot."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from accelfit.diff.render_markdown import marker

ROOT = Path(__file__).parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
ZIZMOR_CONFIG = Path(__file__).parent / "zizmor.yml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$")


def _load(name: str) -> dict[str, Any]:
    document = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean True.
    document["on"] = document.pop(True, document.get("on"))
    return document


def _steps(workflow: dict[str, Any]):
    for job in workflow["jobs"].values():
        yield from job.get("steps", [])


def _tool(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def _stacks() -> set[str]:
    return {path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in (ROOT / "stacks").glob("Pulumi.*.yaml")}


@pytest.fixture(scope="module")
def preview():
    return _load("preview.yml")


@pytest.fixture(scope="module")
def deploy():
    return _load("deploy.yml")


@pytest.fixture(scope="module")
def pulumi_up():
    return _load("pulumi-up.yml")


def test_every_action_reference_is_pinned():
    for path in WORKFLOWS.glob("*.yml"):
        workflow = _load(path.name)
        for job in workflow["jobs"].values():
            uses = [job["uses"]] if "uses" in job else [step["uses"] for step in job["steps"] if "uses" in step]
            for ref in uses:
                assert ref.startswith("./") or PINNED.match(ref), f"{path.name}: {ref} is not pinned to a version"


def test_preview_runs_on_pull_requests_and_may_comment(preview):
    assert "pull_request" in preview["on"]
    assert preview["permissions"] == {"contents": "read"}  # least privilege; the job asks for more
    assert preview["jobs"]["diff"]["permissions"]["pull-requests"] == "write"


def test_preview_matrix_stacks_exist_with_policy_configs(preview):
    stacks = preview["jobs"]["pulumi-preview"]["strategy"]["matrix"]["stack"]
    assert set(stacks) == {"dev", "staging", "prod"}
    assert set(stacks) <= _stacks()
    for stack in stacks:
        assert (ROOT / "policies" / "config" / f"{stack}.json").is_file()


def test_the_offline_diff_covers_every_stack_file(preview, tmp_path):
    """The diff's matrix is the list the `stacks` job prints, which is every stacks/Pulumi.*.yaml."""
    diff = preview["jobs"]["diff"]
    assert diff["needs"] == "stacks"
    assert diff["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    step = next(step for step in preview["jobs"]["stacks"]["steps"] if step.get("id") == "list")
    command = step["run"].splitlines()[0].removeprefix("stacks=$(").removesuffix(")")
    listed = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert set(json.loads(listed)) == _stacks() and len(_stacks()) > 3


def test_the_first_deployment_creates_its_stack(pulumi_up):
    step = next(step for step in pulumi_up["jobs"]["up"]["steps"] if step.get("uses", "").startswith("pulumi/actions@"))
    assert step["with"]["upsert"] is True


def test_preview_diffs_and_keeps_one_comment_per_stack(preview):
    runs = "\n".join(step.get("run", "") for step in _steps(preview))
    assert "accelfit preview --stack \"$STACK\" --json" in runs
    assert "accelfit diff" in runs and "--markdown" in runs
    script = next(step["with"]["script"] for step in _steps(preview)
                  if step.get("uses", "").startswith("actions/github-script@"))
    # The workflow finds its comment by the marker the markdown starts with.
    assert "`<!-- accelfit:${process.env.STACK} -->`" in script
    assert marker("dev") == "<!-- accelfit:dev -->"
    assert "updateComment" in script and "createComment" in script


def test_real_preview_uses_the_pulumi_action_with_the_policy_pack(preview):
    step = next(step for step in _steps(preview) if step.get("uses", "").startswith("pulumi/actions@"))
    assert step["with"]["command"] == "preview"
    assert step["with"]["policyPacks"] == "policies"
    assert step["with"]["policyPackConfigs"] == "policies/config/${{ matrix.stack }}.json"
    assert "steps.gate.outputs.enabled" in step["if"]  # only when a token and a cloud login are configured


def test_deploy_goes_dev_then_staging_then_prod_on_main(deploy, pulumi_up):
    assert deploy["on"]["push"]["branches"] == ["main"]
    jobs = deploy["jobs"]
    assert [jobs[name]["with"]["stack"] for name in ("dev", "staging", "prod")] == ["dev", "staging", "prod"]
    assert "needs" not in jobs["dev"] and jobs["staging"]["needs"] == "dev" and jobs["prod"]["needs"] == "staging"
    for job in jobs.values():
        assert job["uses"] == "./.github/workflows/pulumi-up.yml"
    up = pulumi_up["jobs"]["up"]
    # The environment is the stack's name: the `prod` environment (with required reviewers) gates production.
    assert up["environment"] == "${{ inputs.stack }}"
    assert up["concurrency"] == {"group": "deploy-${{ inputs.stack }}", "cancel-in-progress": False}
    step = next(step for step in up["steps"] if step.get("uses", "").startswith("pulumi/actions@"))
    assert step["with"]["command"] == "up" and step["with"]["policyPacks"] == "policies"


def test_ci_entry_point_is_untouched():
    assert (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().endswith("exec ./dev test")


def test_workflows_pass_zizmor():
    zizmor = _tool("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (it comes with the `test` extra: ./dev setup)")
    done = subprocess.run([zizmor, "--offline", "--no-progress", "--min-severity", "low", "--config",
                           str(ZIZMOR_CONFIG), str(WORKFLOWS)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflows_match_githubs_schema():
    checker = _tool("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed (it comes with the `test` extra: ./dev setup)")
    done = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS.glob("*.yml"))],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_deploy_installs_the_gke_auth_plugin_after_the_google_login(pulumi_up):
    """The GKE kubeconfig runs gke-gcloud-auth-plugin (components/kubernetes/access.py): the runner needs it."""
    steps = list(_steps(pulumi_up))
    uses = [step.get("uses", "") for step in steps]
    auth = next(index for index, ref in enumerate(uses) if ref.startswith("google-github-actions/auth@"))
    setup = next(index for index, ref in enumerate(uses) if ref.startswith("google-github-actions/setup-gcloud@"))
    assert auth < setup < next(index for index, ref in enumerate(uses) if ref.startswith("pulumi/actions@"))
    assert "gke-gcloud-auth-plugin" in steps[setup]["with"]["install_components"].split(",")
