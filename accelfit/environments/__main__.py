"""`python3 -m accelfit.environments` (run from the project root, with no set-up: stdlib only): the GitHub Actions
outputs deploy.yml reads, `targets` (the deploy matrix, accelfit.environments.deploy_targets), `stacks` (their
names, whose GitHub environments `<stack>` and `<stack>-preview` .github/scripts/check_environments.py checks) and
`reviewed` (its `--reviewed` arguments: the environments that need required reviewers), as `name=value` lines for
$GITHUB_OUTPUT."""

from __future__ import annotations

import json
from pathlib import Path

from accelfit.environments import deploy_targets


def outputs(project_dir: Path) -> list[str]:
    targets = deploy_targets(project_dir)
    reviewed = [f"--reviewed {row['stack']}" for row in targets if row["reviewed"]]
    return [f"targets={json.dumps(targets, separators=(',', ':'))}",
            f"stacks={' '.join(row['stack'] for row in targets)}", f"reviewed={' '.join(reviewed)}"]


if __name__ == "__main__":
    print("\n".join(outputs(Path.cwd())))
