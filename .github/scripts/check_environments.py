"""Refuse to deploy unless the GitHub environments that hold the deploy identity are protected.

Run by deploy.yml before any deployment: `python3 .github/scripts/check_environments.py dev staging prod --reviewed
prod`. For each stack, its environment (the `up` job's) and `<stack>-preview` (the `plan` job's) must exist and
admit only main: a deployment branch policy of "protected branches", or custom branch policies that name only
`main`. A job of any other branch (a pull request's) that names the environment then fails before it starts, so it
never gets the environment's OIDC `sub` that Pulumi Cloud's deploy policy matches. `--reviewed` environments must
also have required reviewers. Exit 1 names each gap and where to fix it; stdlib only (it runs before any set-up).

GitHub REST (docs.github.com/en/rest/deployments/environments, "Get an environment", and
/rest/deployments/branch-policies, "List deployment branch policies"; read 2026-11-28): `protection_rules[].type`
is `required_reviewers`, `wait_timer` or `branch_policy`; `deployment_branch_policy` is null when every branch may
deploy, else `{protected_branches, custom_branch_policies}`. Both need the token's `actions: read`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

FIX = "Settings > Environments > {name}"
Fetch = Callable[[str], Any]


def problems(name: str, environment: dict[str, Any] | None, branch_policies: list[str], *,
             reviewed: bool) -> list[str]:
    """What leaves environment `name` reachable by a branch other than main, or unreviewed where it must be."""
    where = FIX.format(name=name)
    if environment is None:
        return [f"environment {name} does not exist: create it ({where}) as the README's 'Deploy access' says"]
    found = []
    policy = environment.get("deployment_branch_policy")
    if policy is None:
        found.append(f"environment {name} lets every branch deploy: set 'Deployment branches and tags' to "
                     f"'Protected branches only' or to the branch main ({where})")
    elif policy.get("custom_branch_policies") and set(branch_policies) != {"main"}:
        found.append(f"environment {name} admits branches {sorted(branch_policies)}: only main may deploy ({where})")
    rules = {rule.get("type") for rule in environment.get("protection_rules", [])}
    if reviewed and "required_reviewers" not in rules:
        found.append(f"environment {name} has no required reviewers: add them ({where})")
    return found


def github_fetch(path: str) -> Any:
    """GET {GITHUB_API_URL}/repos/{GITHUB_REPOSITORY}/{path} with GH_TOKEN; None for 404."""
    url = f"{os.environ.get('GITHUB_API_URL', 'https://api.github.com')}/repos/{os.environ['GITHUB_REPOSITORY']}/{path}"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {os.environ['GH_TOKEN']}",
                                                   "Accept": "application/vnd.github+json",
                                                   "X-GitHub-Api-Version": "2022-11-28"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (the GitHub API only)
            return json.load(response)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def check(stacks: list[str], reviewed: set[str], fetch: Fetch) -> list[str]:
    found = []
    for name in [env for stack in stacks for env in (stack, f"{stack}-preview")]:
        environment = fetch(f"environments/{name}")
        branches: list[str] = []
        if environment and (environment.get("deployment_branch_policy") or {}).get("custom_branch_policies"):
            listed = fetch(f"environments/{name}/deployment-branch-policies?per_page=100") or {}
            branches = [policy["name"] for policy in listed.get("branch_policies", [])]
        found += problems(name, environment, branches, reviewed=name in reviewed)
    return found


def main(argv: list[str] | None = None, fetch: Fetch = github_fetch) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks", nargs="+")
    parser.add_argument("--reviewed", action="append", default=[], help="an environment that needs reviewers")
    args = parser.parse_args(argv)
    found = check(args.stacks, set(args.reviewed), fetch)
    for line in found:
        print(f"::error::{line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
