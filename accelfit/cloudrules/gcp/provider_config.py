"""What the Google Cloud provider needs from a stack before anything builds on GCP (accelfit.clouds.gcp names this
check)."""

from __future__ import annotations

from typing import Any

from accelfit.errors import Problem, problem


def provider_problems(stack: Any) -> list[Problem]:
    """The project: a gcp:project that is set but not a project id is refused when the stack file is read."""
    if stack.config.get("gcp:project") is not None:
        return []
    return [problem(str(stack.path), "config.gcp:project", "the plan runs on Google Cloud, which needs the project id "
                    "(6-30 lowercase letters, digits or '-')", "set gcp:project: <your-project-id>")]
