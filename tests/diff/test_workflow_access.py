"""No job that runs pull-request code can reach a deploy credential; deploy jobs get their Pulumi token only in their
GitHub environment, only from main, only in the steps that run Pulumi. The rules are in workflow_access.py; each
breach test below breaks one of them in a copy of a real workflow and shows the check catching it."""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.diff.workflow_access import PREVIEW_TOKEN_TYPE, PULUMI_AUTH, breaches, runs_pull_request_code

WORKFLOWS = Path(__file__).parents[2] / ".github" / "workflows"
# Steps allowed after the Pulumi token exchange: they run with the token in their environment (auth-actions exports
# it to every later step of the job), so none may be a shell step or other code.
AFTER_TOKEN = ("pulumi/actions@", "actions/upload-artifact@")


def _load(name: str) -> dict[str, Any]:
    document = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    document["on"] = document.pop(True, document.get("on"))
    return document


def _auth_index(job: dict[str, Any]) -> int:
    [index] = [i for i, step in enumerate(job["steps"]) if str(step.get("uses", "")).startswith(PULUMI_AUTH)]
    return index


def test_no_job_that_runs_pull_request_code_can_reach_a_deploy_credential():
    pull_request_jobs = []
    for path in sorted(WORKFLOWS.glob("*.yml")):
        workflow = _load(path.name)
        assert breaches(workflow) == [], path.name
        pull_request_jobs += [f"{path.name}/{name}" for name, job in workflow["jobs"].items()
                              if runs_pull_request_code(workflow, job)]
    # Not vacuous: the jobs that run the pull request's code (./dev setup, the program) are the ones checked.
    assert {"preview.yml/diff", "preview.yml/pulumi-preview", "test.yml/test", "ephemeral.yml/ephemeral"} <= \
        set(pull_request_jobs)
    assert not any(job.startswith(("deploy.yml", "pulumi-up.yml")) for job in pull_request_jobs)


def _break_secret_in_env(workflow):  # what preview.yml did before: the deploy token in the real-preview job
    workflow["jobs"]["pulumi-preview"]["env"]["PULUMI_ACCESS_TOKEN"] = "${{ secrets.PULUMI_ACCESS_TOKEN }}"


def _break_secret_in_step(workflow):
    workflow["jobs"]["diff"]["steps"][-1].setdefault("env", {})["TOKEN"] = "${{ secrets['PROD_TOKEN'] }}"


def _break_workflow_env(workflow):
    workflow["env"] = {"PULUMI_ACCESS_TOKEN": "${{ secrets.PULUMI_ACCESS_TOKEN }}"}


def _break_environment(workflow):  # the prod environment's secrets and its OIDC `sub`
    workflow["jobs"]["pulumi-preview"]["environment"] = "${{ matrix.stack }}"


def _break_token_type(workflow):  # an organization token can update every stack
    job = workflow["jobs"]["pulumi-preview"]
    job["steps"][_auth_index(job)]["with"]["requested-token-type"] = "urn:pulumi:token-type:access_token:organization"


def _break_reusable_inherit(workflow):
    workflow["jobs"]["deploy"] = {"uses": "./.github/workflows/pulumi-up.yml", "with": {"stack": "prod"},
                                  "secrets": "inherit"}


def _break_pull_request_target(workflow):  # the privileged trigger, checking out the pull request's head
    workflow["on"] = {"pull_request_target": {}}
    job = workflow["jobs"]["diff"]
    job["steps"][0]["with"]["ref"] = "${{ github.event.pull_request.head.sha }}"
    job.setdefault("env", {})["PULUMI_ACCESS_TOKEN"] = "${{ secrets.PULUMI_ACCESS_TOKEN }}"


@pytest.mark.parametrize("breach, expected", [
    (_break_secret_in_env, "pulumi-preview: reads secrets.PULUMI_ACCESS_TOKEN"),
    (_break_secret_in_step, "diff: reads secrets.PROD_TOKEN"),
    (_break_workflow_env, "stacks: reads secrets.PULUMI_ACCESS_TOKEN"),
    (_break_environment, "pulumi-preview: runs in GitHub environment"),
    (_break_token_type,
     "pulumi-preview: exchanges its OIDC token for a Pulumi 'urn:pulumi:token-type:access_token:organization'"),
    (_break_reusable_inherit, "deploy: passes secrets ('inherit')"),
    (_break_pull_request_target, "diff: reads secrets.PULUMI_ACCESS_TOKEN"),
])
def test_the_check_catches_a_pull_request_job_reaching_a_deploy_credential(breach, expected):
    workflow = copy.deepcopy(_load("preview.yml"))
    assert breaches(workflow) == []
    breach(workflow)
    found = breaches(workflow)
    assert any(line.startswith(expected) for line in found), found


def test_pull_request_target_fetching_the_head_in_a_command_is_pull_request_code():
    workflow = copy.deepcopy(_load("preview.yml"))
    workflow["on"] = {"pull_request_target": {}}
    job = workflow["jobs"]["stacks"]
    job["steps"].insert(0, {"run": "git fetch origin ${{ github.event.pull_request.head.sha }} && git checkout FETCH_HEAD"})
    job["steps"].append({"run": "./dev setup", "env": {"TOKEN": "${{ secrets.DEPLOY_TOKEN }}"}})
    assert breaches(workflow) == ["stacks: reads secrets.DEPLOY_TOKEN"]


def test_pull_request_target_on_the_base_code_only_is_not_pull_request_code():
    """pull_request_target runs the target branch's workflow and code: a secret there is not reachable from the pull
    request unless a job checks out its head (the breach case above)."""
    workflow = copy.deepcopy(_load("preview.yml"))
    workflow["on"] = {"pull_request_target": {}}
    workflow["jobs"]["diff"].setdefault("env", {})["TOKEN"] = "${{ secrets.SOME_TOKEN }}"
    assert breaches(workflow) == []


def test_deploys_run_only_from_main_in_the_stacks_environment_without_stored_tokens():
    deploy, pulumi_up = _load("deploy.yml"), _load("pulumi-up.yml")
    assert set(deploy["on"]) == {"push", "workflow_dispatch"} and deploy["on"]["push"] == {"branches": ["main"]}
    assert set(pulumi_up["on"]) == {"workflow_call"} and "secrets" not in pulumi_up["on"]["workflow_call"]
    for name, job in deploy["jobs"].items():
        assert "secrets" not in job, name  # nothing stored is passed: each job exchanges its own OIDC token
    jobs = pulumi_up["jobs"]
    assert {name: job["environment"] for name, job in jobs.items()} == \
        {"plan": "${{ inputs.stack }}-preview", "up": "${{ inputs.stack }}"}
    for path in WORKFLOWS.glob("*.yml"):
        assert "secrets.PULUMI_ACCESS_TOKEN" not in path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("name, job_name", [("pulumi-up.yml", "plan"), ("pulumi-up.yml", "up"),
                                            ("preview.yml", "pulumi-preview")])
def test_the_pulumi_token_is_only_in_the_steps_that_run_pulumi(name, job_name):
    """The token is exchanged right before the Pulumi step; ./dev setup, the offline preview and preflight run
    before it and hold no Pulumi token. Every job that exchanges one asks for id-token itself (never the workflow)."""
    workflow = _load(name)
    job = workflow["jobs"][job_name]
    assert "PULUMI_ACCESS_TOKEN" not in job.get("env", {})
    assert workflow["permissions"] == {"contents": "read"} and job["permissions"]["id-token"] == "write"
    auth = _auth_index(job)
    after = [str(step.get("uses", "run")) for step in job["steps"][auth + 1:]]
    assert after and after[0].startswith("pulumi/actions@"), after
    assert all(uses.startswith(AFTER_TOKEN) for uses in after), after
    assert job["steps"][auth]["with"]["organization"] == "${{ vars.PULUMI_ORG }}"


def test_pull_requests_preview_as_the_read_only_team_and_deploys_per_environment():
    pr = _load("preview.yml")["jobs"]["pulumi-preview"]
    step = pr["steps"][_auth_index(pr)]
    assert step["with"]["requested-token-type"] == PREVIEW_TOKEN_TYPE
    assert step["with"]["scope"] == "team:${{ vars.PULUMI_PREVIEW_TEAM }}"
    assert step["if"] == "steps.gate.outputs.enabled == 'true'"
    gate = next(s for s in pr["steps"] if s.get("id") == "gate")["run"]
    assert '[ -n "$PULUMI_PREVIEW_TEAM" ]' in gate and '[ "$SAME_REPO" = true ]' in gate
    for job in _load("pulumi-up.yml")["jobs"].values():
        exchange = job["steps"][_auth_index(job)]["with"]
        # A team of the environment's own (Enterprise) when the environment names one, else an organization token;
        # either is granted only to this environment's `sub` by the Pulumi OIDC policy (README "Deploy access").
        assert exchange["requested-token-type"] == ("${{ vars.PULUMI_DEPLOY_TEAM && "
                                                    "'urn:pulumi:token-type:access_token:team' || "
                                                    "'urn:pulumi:token-type:access_token:organization' }}")
        assert exchange["scope"] == "${{ vars.PULUMI_DEPLOY_TEAM && format('team:{0}', vars.PULUMI_DEPLOY_TEAM) || '' }}"


def test_the_pulumi_auth_action_is_pinned_to_its_release():
    # git rev-parse v2.1.0^{commit} in github.com/pulumi/auth-actions: 141415910c3beb54e03b48e9057c204c97b956f2.
    for name in ("preview.yml", "pulumi-up.yml"):
        text = (WORKFLOWS / name).read_text(encoding="utf-8")
        assert "uses: pulumi/auth-actions@141415910c3beb54e03b48e9057c204c97b956f2 # v2.1.0" in text


def _guard():
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_environments", WORKFLOWS.parent / "scripts" / "check_environments.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _protected(name: str) -> dict[str, Any]:
    """The GitHub REST "Get an environment" document of an environment set up as the README says."""
    rules = [{"id": 1, "type": "branch_policy"}]
    if name == "prod":
        rules.append({"id": 2, "type": "required_reviewers", "reviewers": [{"type": "Team", "reviewer": {"id": 7}}]})
    return {"name": name, "protection_rules": rules,
            "deployment_branch_policy": {"protected_branches": True, "custom_branch_policies": False}}


def _fake_github(environments: dict[str, Any], branch_policies: dict[str, list[str]] | None = None):
    def fetch(path: str):
        parts = path.split("?")[0].split("/")
        if len(parts) == 3:
            return {"branch_policies": [{"name": b} for b in (branch_policies or {}).get(parts[1], [])]}
        return environments.get(parts[1])
    return fetch


ENVIRONMENTS = [env for stack in ("dev", "staging", "prod") for env in (stack, f"{stack}-preview")]


def test_deploy_checks_the_environments_before_anything_deploys():
    deploy = _load("deploy.yml")
    job = deploy["jobs"]["environments"]
    steps = {step.get("name"): step for step in job["steps"]}
    command = steps["Check the environments' branch policies and reviewers"]["run"]
    org = steps["Is the Pulumi organization set? (every Pulumi token exchange names it)"]
    assert org["env"] == {"PULUMI_ORG": "${{ vars.PULUMI_ORG }}"}
    for value, code in (("", 1), ("acme", 0)):
        done = subprocess.run(["bash", "-e", "-c", org["run"]], env={"PATH": "/usr/bin:/bin", "PULUMI_ORG": value},
                              capture_output=True, text=True, check=False)
        assert done.returncode == code and ("PULUMI_ORG" in done.stdout) == (code == 1)
    assert command == "python3 .github/scripts/check_environments.py $STACKS $REVIEWED"
    # The stacks and reviewers are the repository's environments (accelfit.environments), not a list in the file.
    assert steps["The environments to deploy, in order (accelfit env list; stdlib only, before any set-up)"]["run"] \
        == 'python3 -m accelfit.environments >> "$GITHUB_OUTPUT"'
    from accelfit.environments.__main__ import outputs

    found = dict(line.split("=", 1) for line in outputs(Path(__file__).parents[2]))
    assert found["stacks"] == "dev staging prod" and found["reviewed"] == "--reviewed prod"
    deploy_job = deploy["jobs"]["deploy"]
    assert deploy_job["needs"] == "environments" and deploy_job["strategy"]["max-parallel"] == 1
    assert deploy_job["strategy"]["matrix"] == {"include": "${{ fromJSON(needs.environments.outputs.targets) }}"}
    assert deploy_job["with"] == {"stack": "${{ matrix.stack }}", "locked": "${{ matrix.locked }}"}
    assert job["if"] == "github.ref == 'refs/heads/main'"  # a workflow_dispatch of another branch deploys nothing
    assert job["permissions"] == {"contents": "read", "actions": "read"} and "environment" not in job
    guard = _guard()
    fetch = _fake_github({name: _protected(name) for name in ENVIRONMENTS})
    argv = f"{found['stacks']} {found['reviewed']}".split()
    assert guard.main(argv, fetch) == 0


@pytest.mark.parametrize("change, expected", [
    (lambda envs, policies: envs["prod"].update(protection_rules=[]), "environment prod has no required reviewers"),
    (lambda envs, policies: envs["prod-preview"].update(deployment_branch_policy=None),
     "environment prod-preview lets every branch deploy"),
    (lambda envs, policies: (envs["staging"].update(deployment_branch_policy={"protected_branches": False,
                                                                             "custom_branch_policies": True}),
                             policies.update(staging=["main", "*"])),
     "environment staging admits branches ['*', 'main']"),
    (lambda envs, policies: envs.pop("dev"), "environment dev does not exist"),
])
def test_the_environment_check_refuses_an_unprotected_deploy_environment(change, expected, capsys):
    environments = {name: _protected(name) for name in ENVIRONMENTS}
    policies: dict[str, list[str]] = {}
    change(environments, policies)
    assert _guard().main(["dev", "staging", "prod", "--reviewed", "prod"], _fake_github(environments, policies)) == 1
    errors = capsys.readouterr().out.splitlines()
    assert len(errors) == 1 and errors[0].startswith(f"::error::{expected}"), errors


def test_custom_branch_policies_naming_only_main_pass():
    environments = {name: _protected(name) for name in ENVIRONMENTS}
    environments["dev"]["deployment_branch_policy"] = {"protected_branches": False, "custom_branch_policies": True}
    assert _guard().check(["dev", "staging", "prod"], {"prod"}, _fake_github(environments, {"dev": ["main"]})) == []


def _assert_ephemeral_identity(job: dict[str, Any]) -> None:
    """A team token of PULUMI_EPHEMERAL_TEAM (the pr-* stacks only) and only the sandbox's cloud logins."""
    exchange = job["steps"][_auth_index(job)]["with"]
    assert exchange == {"organization": "${{ vars.PULUMI_ORG }}", "requested-token-type": PREVIEW_TOKEN_TYPE,
                        "scope": "team:${{ vars.PULUMI_EPHEMERAL_TEAM }}"}
    logins = [step["with"] for step in job["steps"] if "role-to-assume" in step.get("with", {}) or
              "workload_identity_provider" in step.get("with", {})]
    assert logins and all("EPHEMERAL_" in value for login in logins for value in login.values() if "vars." in value)


def test_the_ephemeral_job_runs_pull_request_code_as_the_ephemeral_team_only():
    """ephemeral.yml deploys the pull request's copy: it runs PR code, so no environment, no secret, a team token of
    PULUMI_EPHEMERAL_TEAM (the pr-* stacks only), and the sandbox's cloud logins, never the deploy roles."""
    workflow = _load("ephemeral.yml")
    job = workflow["jobs"]["ephemeral"]
    assert runs_pull_request_code(workflow, job) and breaches(workflow) == []
    _assert_ephemeral_identity(job)
    assert "head.repo.full_name == github.repository" in job["if"]  # forks get nothing
    broken = copy.deepcopy(workflow)
    broken["jobs"]["ephemeral"]["steps"][_auth_index(job)]["with"]["requested-token-type"] = \
        "urn:pulumi:token-type:access_token:organization"
    assert breaches(broken)


def test_the_scheduled_sweep_runs_main_code_as_the_ephemeral_team_and_lists_the_backend():
    """ephemeral-sweep.yml: hourly on main's code (no pull-request trigger), the ephemeral team's token and the
    sandbox's logins, and the sweep that lists the backend's tagged stacks (the stack files are never committed)."""
    workflow = _load("ephemeral-sweep.yml")
    job = workflow["jobs"]["sweep"]
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"} and not runs_pull_request_code(workflow, job)
    assert breaches(workflow) == [] and "environment" not in job
    _assert_ephemeral_identity(job)
    assert job["steps"][-1]["run"] == ".venv/bin/accelfit ephemeral sweep --backend"
