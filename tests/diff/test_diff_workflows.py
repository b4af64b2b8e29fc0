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
# An action pinned by full commit SHA, its release tag in a comment: `owner/repo@<40 hex> # v1.2.3`.
SHA_PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+(?P<action>[\w.-]+/[\w.-]+(?:/[\w./-]+)?)@(?P<sha>[0-9a-f]{40})"
                        r"\s+#\s+(?P<tag>v\d+\.\d+\.\d+)\s*$")


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


def _jobs_with(workflow: dict[str, Any], action: str):
    """(job name, job) for every job that has a step using `action`."""
    for name, job in workflow["jobs"].items():
        if any(step.get("uses", "").startswith(f"{action}@") for step in job.get("steps", [])):
            yield name, job


def _step(job: dict[str, Any], action: str) -> dict[str, Any]:
    [step] = [step for step in job["steps"] if step.get("uses", "").startswith(f"{action}@")]
    return step


def _index(job: dict[str, Any], action: str) -> int:
    return next(index for index, step in enumerate(job["steps"]) if step.get("uses", "").startswith(f"{action}@"))


@pytest.fixture(scope="module")
def test_workflow():
    return _load("test.yml")


@pytest.fixture(scope="module")
def preview():
    return _load("preview.yml")


@pytest.fixture(scope="module")
def deploy():
    return _load("deploy.yml")


@pytest.fixture(scope="module")
def pulumi_up():
    return _load("pulumi-up.yml")


def test_every_action_is_pinned_by_commit_sha_with_its_tag_beside_it():
    """A tag can be moved to other code; a commit cannot. Each pin was read from the action's repository
    (`git rev-parse <tag>^{commit}`), and the same action is at the same commit in every workflow."""
    pins: dict[str, set[tuple[str, str]]] = {}
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not re.match(r"^\s*(-\s+)?uses:", line) or "uses: ./" in line:
                continue
            pinned = SHA_PINNED.match(line)
            assert pinned, f"{path.name}: `{line.strip()}` is not pinned by commit SHA with its tag in a comment"
            pins.setdefault(pinned["action"], set()).add((pinned["sha"], pinned["tag"]))
    assert len(pins) >= 9  # checkout, setup-python, up/download-artifact, github-script, auth, gcloud, aws, pulumi
    assert {action: len(versions) for action, versions in pins.items() if len(versions) > 1} == {}
    # Every reference the YAML parser sees is one of those lines (no action hides in a flow mapping).
    for path in WORKFLOWS.glob("*.yml"):
        for job in _load(path.name)["jobs"].values():
            for ref in [job["uses"]] if "uses" in job else [step["uses"] for step in job["steps"] if "uses" in step]:
                assert ref.startswith("./") or re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", ref), ref


def test_preview_runs_on_pull_requests_and_may_comment(preview):
    assert "pull_request" in preview["on"]
    assert preview["permissions"] == {"contents": "read"}  # least privilege; the job asks for more
    assert preview["jobs"]["diff"]["permissions"]["pull-requests"] == "write"


def _targets() -> list[dict]:
    """The deploy matrix `python3 -m accelfit.environments` prints for this repository (deploy.yml, preview.yml)."""
    from accelfit.environments.__main__ import outputs

    found = dict(line.split("=", 1) for line in outputs(ROOT))
    return json.loads(found["targets"])


def test_preview_matrix_stacks_exist_with_policy_configs(preview):
    job = preview["jobs"]["pulumi-preview"]
    assert job["needs"] == "stacks"
    assert job["strategy"]["matrix"] == {"include": "${{ fromJSON(needs.stacks.outputs.targets) }}"}
    step = next(step for step in preview["jobs"]["stacks"]["steps"] if step.get("id") == "targets")
    assert step["run"] == 'python3 -m accelfit.environments >> "$GITHUB_OUTPUT"'
    assert step["working-directory"] == "environments"  # the target branch's, never the pull request's
    stacks = [row["stack"] for row in _targets()]
    assert stacks == ["dev", "staging", "prod"]
    assert set(stacks) <= _stacks()
    for stack in stacks:
        assert (ROOT / "policies" / "config" / f"{stack}.json").is_file()


def test_the_offline_diff_covers_every_stack_file_on_either_side(preview, tmp_path):
    """The diff's matrix is the list the `stacks` job prints: every stacks/Pulumi.*.yaml of the head (the pull
    request) or of the base (the target branch), so a stack the pull request deletes is diffed too."""
    diff = preview["jobs"]["diff"]
    assert diff["needs"] == "stacks"
    assert diff["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    checkouts = [step for step in preview["jobs"]["stacks"]["steps"] if step.get("uses", "").startswith("actions/checkout@")]
    assert sorted(step["with"]["path"] for step in checkouts) == ["base", "environments", "head"]
    assert [step["with"].get("ref") for step in checkouts if step["with"]["path"] != "head"] == \
        ["${{ github.event.pull_request.base.sha }}"] * 2
    step = next(step for step in preview["jobs"]["stacks"]["steps"] if step.get("id") == "list")
    command = step["run"].splitlines()[0].removeprefix("stacks=$(").removesuffix(")")
    for side, names in (("head", ["kept", "added"]), ("base", ["kept", "deleted"])):
        (tmp_path / side / "stacks").mkdir(parents=True)
        for name in names:
            (tmp_path / side / "stacks" / f"Pulumi.{name}.yaml").write_text("config: {}\n", encoding="utf-8")
    listed = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert json.loads(listed) == ["added", "deleted", "kept"]
    # This repository's own stacks, as the job lists them when the pull request changes none.
    (tmp_path / "repo").mkdir()
    for side in ("head", "base"):
        (tmp_path / "repo" / side).symlink_to(ROOT)
    listed = subprocess.run(["bash", "-c", command], cwd=tmp_path / "repo", capture_output=True, text=True,
                            check=True).stdout
    assert set(json.loads(listed)) == _stacks() and len(_stacks()) > 3


def test_the_first_deployment_creates_its_stack(pulumi_up):
    for job in ("plan", "up"):
        assert _step(pulumi_up["jobs"][job], "pulumi/actions")["with"]["upsert"] is True


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
    # The order is the repository's environments', less guarded first (accelfit.environments.deploy_targets).
    assert [row["stack"] for row in _targets()] == ["dev", "staging", "prod"]
    # The deploys wait only for the check that the deploy environments are protected (test_workflow_access.py),
    # then go one at a time; a failure cancels the rest.
    assert jobs["deploy"]["needs"] == "environments"
    assert jobs["deploy"]["strategy"]["max-parallel"] == 1 and jobs["deploy"]["strategy"]["fail-fast"] is True
    assert jobs["deploy"]["uses"] == "./.github/workflows/pulumi-up.yml"
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


def test_zizmor_finds_nothing_high_or_medium_even_as_an_auditor():
    """Without this project's config, with every audit zizmor has (the auditor persona): no high and no medium
    finding. The only ones left are the low `self-repository` hints the config turns off (see zizmor.yml)."""
    zizmor = _tool("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (it comes with the `test` extra: ./dev setup)")
    # The SHA-pin default is not relaxed by the project's config.
    assert set(yaml.safe_load(ZIZMOR_CONFIG.read_text(encoding="utf-8"))["rules"]) == {"self-repository"}
    done = subprocess.run([zizmor, "--offline", "--no-progress", "--persona", "auditor", "--format", "json",
                           str(WORKFLOWS)], capture_output=True, text=True, check=False)
    findings = json.loads(done.stdout)
    serious = [(f["ident"], f["determinations"]["severity"]) for f in findings
               if f["determinations"]["severity"] in ("High", "Medium")]
    assert serious == [], done.stdout[:4000]
    assert {f["ident"] for f in findings} <= {"self-repository"}
    # And with this project's config (the only audit it turns off is that hint): no finding at all, low included.
    done = subprocess.run([zizmor, "--offline", "--no-progress", "--persona", "auditor", "--format", "json", "--config",
                           str(ZIZMOR_CONFIG), str(WORKFLOWS)], capture_output=True, text=True, check=False)
    assert json.loads(done.stdout) == [], done.stdout[:4000]


def test_workflows_match_githubs_schema():
    checker = _tool("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed (it comes with the `test` extra: ./dev setup)")
    done = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS.glob("*.yml"))],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", ["preview.yml", "pulumi-up.yml"])
def test_every_real_preview_or_up_installs_the_gke_auth_plugin_after_the_google_login(name):
    """The GKE kubeconfig runs gke-gcloud-auth-plugin (components/kubernetes/access.py): every job that runs the
    Pulumi CLI against the clouds (a preview refreshes the cluster's Kubernetes provider too) needs it."""
    jobs = dict(_jobs_with(_load(name), "pulumi/actions"))
    assert jobs and set(jobs) == ({"pulumi-preview"} if name == "preview.yml" else {"plan", "up"})
    for job_name, job in jobs.items():
        auth, setup = _index(job, "google-github-actions/auth"), _index(job, "google-github-actions/setup-gcloud")
        assert auth < setup < _index(job, "pulumi/actions"), job_name
        plugin = job["steps"][setup]
        assert "gke-gcloud-auth-plugin" in plugin["with"]["install_components"].split(","), job_name
        # Installed whenever the Google login runs (same condition), so a GKE preview never lacks it.
        assert plugin.get("if") == job["steps"][auth].get("if"), job_name


def test_test_workflow_runs_the_suite_on_pull_requests(test_workflow):
    assert "pull_request" in test_workflow["on"]
    assert test_workflow["permissions"] == {"contents": "read"}
    jobs = test_workflow["jobs"]
    assert all(job["permissions"] == {"contents": "read"} for job in jobs.values())
    assert [step["run"] for step in jobs["test"]["steps"] if "run" in step] == ["./dev setup", "./dev test"]
    # The hostile-input tests at the lowest PyYAML pyproject.toml allows, too (the lock has the highest).
    assert [step["run"] for step in jobs["test-lowest"]["steps"] if "run" in step] == ["./dev test-lowest"]
    assert "requirements-lowest.lock" in (ROOT / "dev").read_text(encoding="utf-8")


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


# The `./dev` commands that install, and the lock files each installs (`./dev test-lowest` sets up .venv too).
INSTALLS = {"./dev setup": ["requirements.lock"], "./dev test-lowest": ["requirements.lock", "requirements-lowest.lock"]}


def test_python_packages_come_from_the_lock_once_per_job_with_a_cache_keyed_on_it():
    """Every job that sets up Python installs once, through `./dev` (which installs the lock with --require-hashes
    and --no-deps); jobs that cache keep pip's download cache under a key that is the hash of the locks they install
    (setup-python's `cache: pip` hashes `cache-dependency-path`). Deployments do not use a cache."""
    dev = (ROOT / "dev").read_text(encoding="utf-8")
    assert '--require-hashes --no-deps -r "$lockfile"' in dev and "LOCK=requirements.lock" in dev
    cached = []
    for path in WORKFLOWS.glob("*.yml"):
        for name, job in _jobs_with(_load(path.name), "actions/setup-python"):
            runs = _runs(job)
            installs = [step for step in job["steps"] if step.get("run") in INSTALLS]
            assert len(installs) == 1 and sum(runs.count(command) for command in INSTALLS) == 1, \
                f"{path.name}/{name} must install exactly once"
            assert "pip install" not in runs and "pip3 install" not in runs, f"{path.name}/{name}"
            setup = _step(job, "actions/setup-python")["with"]
            if path.name == "pulumi-up.yml":
                assert "cache" not in setup, "a deployment restores no cache"
                continue
            assert setup["cache"] == "pip", f"{path.name}/{name}"
            folder = installs[0].get("working-directory", ".")
            keyed = [Path(line) for line in setup["cache-dependency-path"].split()]
            assert keyed == [Path(folder, lock) for lock in INSTALLS[installs[0]["run"]]], f"{path.name}/{name}"
            cached.append(f"{path.name}/{name}")
    assert sorted(cached) == ["ephemeral-sweep.yml/sweep", "ephemeral.yml/ephemeral", "preview.yml/diff",
                              "preview.yml/pulumi-preview", "test.yml/test", "test.yml/test-lowest"]


def test_the_base_side_previews_with_the_heads_install(preview):
    """One install per diff job: the base previews its own code (`python -m` from its folder) with head's packages."""
    job = preview["jobs"]["diff"]
    base = next(step for step in job["steps"] if step.get("name") == "Preview base")
    assert base["working-directory"] == "base"
    assert '"$GITHUB_WORKSPACE/head/.venv/bin/python" -m accelfit.cli.main preview --stack "$STACK" --json' \
        in base["run"]
    assert "./dev setup" not in base["run"]


def _run_step(script: str, cwd: Path, stack: str, temp: Path) -> None:
    subprocess.run(["bash", "-e", "-c", script], cwd=cwd, check=True, capture_output=True, text=True,
                   env={"PATH": "/usr/bin:/bin", "STACK": stack, "RUNNER_TEMP": str(temp)})


def test_a_stack_the_pull_request_deletes_is_reported_removed(preview, tmp_path, capsys):
    """The workflow's own steps, run: head has no stack file, so its document is the removed-stack stand-in, and
    the comment says the stack is removed with its monthly cost going to zero."""
    from accelfit.cli.main import main
    from accelfit.diff import parse_document
    from accelfit.diff.document import removed_stack_document

    steps = {step.get("name"): step for step in preview["jobs"]["diff"]["steps"]}
    (tmp_path / "head").mkdir()
    _run_step(steps["Preview head"]["run"], tmp_path / "head", "dev", tmp_path)
    written = parse_document(json.loads((tmp_path / "head.json").read_text(encoding="utf-8")), "head.json")
    assert written == parse_document(removed_stack_document("dev"), "head.json")
    base = Path(__file__).parent / "fixtures" / "base.json"  # a real preview of dev
    assert main(["diff", str(base), str(tmp_path / "head.json"), "--markdown", "--fail-over-budget"]) == 0
    comment = capsys.readouterr().out
    assert comment.startswith("<!-- accelfit:dev -->") and "_Removed stack: stack dev does not exist on the head side" \
        in comment
    assert "→ $0.00 a month as planned (-$" in comment and "-100.0%" in comment
    # And the mirror image: a stack the pull request adds is diffed against an empty base.
    (tmp_path / "base").mkdir()
    _run_step(steps["Preview base"]["run"], tmp_path / "base", "qa", tmp_path)
    assert parse_document(json.loads((tmp_path / "base.json").read_text(encoding="utf-8")), "b").new_stack


def test_deployments_build_only_the_committed_lock(deploy, pulumi_up, capsys):
    """staging and prod deploy with ACCELFIT_LOCKED=1; prod's stack file carries its lock and previews with it."""
    from accelfit.cli.main import main

    inputs = pulumi_up["on"]["workflow_call"]["inputs"]
    assert inputs["locked"] == {"description": inputs["locked"]["description"], "required": False, "default": True,
                                "type": "boolean"}
    for name in ("plan", "up"):
        assert pulumi_up["jobs"][name]["env"]["ACCELFIT_LOCKED"] == "${{ inputs.locked && '1' || '0' }}"
    assert deploy["jobs"]["deploy"]["with"]["locked"] == "${{ matrix.locked }}"
    assert {row["stack"]: row["locked"] for row in _targets()} == {"dev": False, "staging": True, "prod": True}
    for stack in ("staging", "prod"):
        assert "accelfit:selection:" in (ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8")
    assert main(["preview", "--stack", "prod", "--locked", "--json"]) == 0
    lock = json.loads(capsys.readouterr().out)["lock"]
    assert lock["state"] == "used" and lock["locked_option"].endswith("/v6e-64/x1/on-demand")
    # The pull-request preview of staging and prod uses the same setting, so a stale lock fails at review.
    preview_env = _load("preview.yml")["jobs"]["pulumi-preview"]["env"]
    assert preview_env["ACCELFIT_LOCKED"] == "${{ matrix.locked && '1' || '0' }}"


def test_prod_is_applied_from_the_plan_its_reviewers_approved(deploy, pulumi_up):
    """plan job: `pulumi preview --save-plan FILE`, FILE kept as an artifact; up job: needs it, runs in the stack's
    environment (the `prod` reviewers approve there, after the preview), fetches that artifact and runs
    `pulumi up --plan` on the same file, with PULUMI_EXPERIMENTAL (update plans are experimental in the pinned CLI)."""
    plan_job, up_job = pulumi_up["jobs"]["plan"], pulumi_up["jobs"]["up"]
    preview_step, up_step = _step(plan_job, "pulumi/actions"), _step(up_job, "pulumi/actions")
    assert preview_step["with"]["command"] == "preview" and up_step["with"]["command"] == "up"
    saved = preview_step["with"]["plan"]
    upload = _step(plan_job, "actions/upload-artifact")
    assert upload["with"]["path"] == saved and _index(plan_job, "pulumi/actions") < _index(plan_job, "actions/upload-artifact")
    assert upload["with"]["if-no-files-found"] == "error"
    download = _step(up_job, "actions/download-artifact")
    assert download["with"]["name"] == upload["with"]["name"] == "pulumi-plan-${{ inputs.stack }}"
    assert up_step["with"]["plan"] == f"{download['with']['path']}/{Path(saved).name}"
    assert _index(up_job, "actions/download-artifact") < _index(up_job, "pulumi/actions")
    assert up_step["env"] == {"PULUMI_EXPERIMENTAL": "true"}
    # The approval sits between them: only the up job is in the stack's (reviewed) environment.
    assert up_job["needs"] == "plan" and up_job["environment"] == "${{ inputs.stack }}"
    assert plan_job["environment"] == "${{ inputs.stack }}-preview"
    for step in (preview_step, up_step):
        assert step["with"]["policyPacks"] == "policies"
        assert step["with"]["pulumi-version-file"] == ".pulumi-version"
    assert preview_step["with"]["comment-on-summary"] is True  # the preview is on the run's page for the approver
    assert deploy["concurrency"] == {"group": "deploy", "cancel-in-progress": False}


def test_the_pulumi_cli_is_pinned_to_the_sdks_release():
    """pulumi/actions installs the CLI named in .pulumi-version; it is the release of the Python SDK pyproject pins
    (the CLI and the SDK are released together), so the update-plan behaviour is that release's."""
    import tomllib

    version = (ROOT / ".pulumi-version").read_text(encoding="utf-8").strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert f"pulumi=={version}" in dependencies
    for path in WORKFLOWS.glob("*.yml"):
        for step in _steps(_load(path.name)):
            if step.get("uses", "").startswith("pulumi/actions@"):
                assert step["with"].get("pulumi-version-file") == ".pulumi-version", path.name
                assert "pulumi-version" not in step["with"], path.name


def test_the_real_pull_request_preview_posts_and_keeps_its_plan(preview):
    job = preview["jobs"]["pulumi-preview"]
    step = _step(job, "pulumi/actions")
    assert step["with"]["comment-on-pr"] is True and step["with"]["edit-pr-comment"] is True
    assert job["permissions"]["pull-requests"] == "write"
    assert _step(job, "actions/upload-artifact")["with"]["path"] == step["with"]["plan"]


def test_the_test_job_fetches_the_history_the_upgrade_test_reads():
    # tests/upgrade records every stack at the previous release, read from git history: a depth-1 checkout lacks it.
    steps = _load("test.yml")["jobs"]["test"]["steps"]
    checkout = next(step for step in steps if str(step.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0


def _index_named(job: dict[str, Any], start: str) -> int:
    return next(index for index, step in enumerate(job["steps"]) if step.get("name", "").startswith(start))


def test_deploy_runs_preflight_before_pulumi_up_and_before_the_approval(pulumi_up):
    """`pulumi up` starts only after `accelfit preflight` passed with the job's own login, in the same job; the plan
    job shows it before the approval."""
    up = pulumi_up["jobs"]["up"]
    preflight = _index_named(up, "accelfit preflight")
    assert _index(up, "aws-actions/configure-aws-credentials") < preflight < _index(up, "pulumi/actions")
    assert _index(up, "google-github-actions/auth") < preflight
    step = up["steps"][preflight]
    assert step["run"].strip() == '.venv/bin/accelfit preflight --stack "$STACK"'  # its exit 1 fails the job
    assert "if" not in step and "continue-on-error" not in step
    plan = pulumi_up["jobs"]["plan"]
    assert _index_named(plan, "accelfit preflight") < _index(plan, "pulumi/actions")


def test_pull_request_preview_posts_preflight_when_credentials_exist(preview):
    job = preview["jobs"]["pulumi-preview"]
    preflight = _index_named(job, "accelfit preflight")
    step = job["steps"][preflight]
    assert step["if"] == "steps.gate.outputs.enabled == 'true'"  # only with a Pulumi token and a cloud login
    assert "--markdown" in step["run"] and "<!-- accelfit-preflight:%s -->" in step["run"]
    assert _index(job, "google-github-actions/auth") < preflight < _index(job, "pulumi/actions")
    post = job["steps"][preflight + 1]
    assert post["uses"].startswith("actions/github-script@")
    assert "accelfit-preflight:" in post["with"]["script"] and "updateComment" in post["with"]["script"]
    # A broken login (exit 2) fails the check; a shortfall (exit 1) is a warning in the comment.
    guard = job["steps"][preflight + 2]
    assert guard["if"] == "steps.preflight.outputs.exit-code == '2'" and "exit 1" in guard["run"]


def test_the_preflight_sdks_are_in_the_lock_ci_installs():
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    for package in ("google-cloud-compute", "google-cloud-quotas", "google-cloud-service-usage", "boto3"):
        assert re.search(rf"^{package}==", lock, re.MULTILINE), package


def test_the_auditor_lint_catches_a_pull_request_title_in_a_shell_step(tmp_path):
    """Breach for the zizmor check above: a copy of preview.yml that puts the pull request's title into a shell
    command (template injection) is reported above low."""
    zizmor = _tool("zizmor")
    if zizmor is None:
        pytest.skip("zizmor is not installed (it comes with the `test` extra: ./dev setup)")
    text = (WORKFLOWS / "preview.yml").read_text(encoding="utf-8")
    anchor = "      - name: List stack files\n"
    assert anchor in text
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "preview.yml").write_text(text.replace(
        anchor, "      - name: Title\n        run: echo \"${{ github.event.pull_request.title }}\"\n" + anchor), encoding="utf-8")
    done = subprocess.run([zizmor, "--offline", "--no-progress", "--persona", "auditor", "--format", "json", "--config",
                           str(ZIZMOR_CONFIG), str(tmp_path / ".github" / "workflows")], capture_output=True, text=True,
                          check=False)
    serious = {f["ident"] for f in json.loads(done.stdout) if f["determinations"]["severity"] in ("High", "Medium")}
    assert "template-injection" in serious, done.stdout[:2000]
