"""Which GitHub Actions jobs run pull-request code, and whether any of them can reach a deploy credential.

A job runs pull-request code when its workflow is triggered by `pull_request` (the workflow file, the checkout and
every command come from the pull request) or by `pull_request_target` and it checks out the pull request's head
(`github.event.pull_request.head.*`, `github.head_ref`, `refs/pull/...`). Such a job must not:
- read a secret other than GITHUB_TOKEN (`secrets.X` anywhere in the job or the workflow's `env`, or
  `secrets: inherit` / `secrets:` passed to a reusable workflow);
- run in a GitHub environment (its secrets, variables and the OIDC `sub` claim `environment:NAME` that Pulumi
  Cloud's and the clouds' deploy policies match are the deploy identity);
- exchange its OIDC token for a Pulumi token other than a team token (organization and personal tokens can change
  any stack the organization or the user can).

The rules GitHub documents: pull_request workflows get no secrets from forks but do from same-repository branches,
and a job's OIDC `sub` is `repo:OWNER/REPO:environment:NAME` inside an environment, `repo:OWNER/REPO:pull_request`
for a pull_request job outside one (https://docs.github.com/en/actions/reference/security/oidc, subject claims,
read 2026-11-28).
"""

from __future__ import annotations

import re
from typing import Any

PR_TRIGGERS = ("pull_request", "pull_request_target")
SECRET = re.compile(r"secrets\.(?P<name>[A-Za-z_][A-Za-z0-9_-]*)|secrets\[\s*'(?P<quoted>[^']+)'\s*\]")
HEAD_REF = re.compile(r"github\.event\.pull_request\.head\.|github\.head_ref|refs/pull/")
PULUMI_AUTH = "pulumi/auth-actions@"
PREVIEW_TOKEN_TYPE = "urn:pulumi:token-type:access_token:team"


def triggers(workflow: dict[str, Any]) -> set[str]:
    on = workflow.get("on", workflow.get(True))
    if isinstance(on, str):
        return {on}
    return set(on or ())


def _checks_out_head(job: dict[str, Any]) -> bool:
    """A checkout of the head ref, or a command that fetches it (`git fetch origin refs/pull/N/head`, ...)."""
    return any(HEAD_REF.search(str(step.get("with", {}).get("ref", "")) + str(step.get("run", "")))
               for step in job.get("steps", []))


def runs_pull_request_code(workflow: dict[str, Any], job: dict[str, Any]) -> bool:
    on = triggers(workflow)
    return "pull_request" in on or ("pull_request_target" in on and _checks_out_head(job))


def _secrets_named(text: str) -> set[str]:
    return {match["name"] or match["quoted"] for match in SECRET.finditer(text)} - {"GITHUB_TOKEN"}


def _permission(workflow: dict[str, Any], job: dict[str, Any], scope: str) -> str | None:
    permissions = job.get("permissions", workflow.get("permissions"))
    if permissions == "write-all":
        return "write"
    return permissions.get(scope) if isinstance(permissions, dict) else None


def job_breaches(workflow: dict[str, Any], job_name: str) -> list[str]:
    """What lets this job, if it runs pull-request code, reach a deploy credential (empty: nothing)."""
    job = workflow["jobs"][job_name]
    if not runs_pull_request_code(workflow, job):
        return []
    found: list[str] = []
    # The workflow's own `env` reaches every job.
    for name in sorted(_secrets_named(repr(job)) | _secrets_named(repr(workflow.get("env", {})))):
        found.append(f"{job_name}: reads secrets.{name}")
    if job.get("secrets") is not None:
        found.append(f"{job_name}: passes secrets ({job['secrets']!r}) to {job.get('uses')}")
    if "environment" in job:
        found.append(f"{job_name}: runs in GitHub environment {job['environment']!r} (its secrets and OIDC identity)")
    if _permission(workflow, job, "id-token") == "write":
        for step in job.get("steps", []):
            if str(step.get("uses", "")).startswith(PULUMI_AUTH):
                token_type = step.get("with", {}).get("requested-token-type")
                if token_type != PREVIEW_TOKEN_TYPE:
                    found.append(f"{job_name}: exchanges its OIDC token for a Pulumi {token_type!r} token "
                                 "(a deploy identity; a preview uses a team token with stack read only)")
    return found


def breaches(workflow: dict[str, Any]) -> list[str]:
    return [breach for name in workflow.get("jobs", {}) for breach in job_breaches(workflow, name)]
