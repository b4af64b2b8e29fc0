"""What the AWS provider needs from a stack before anything builds on AWS (accelfit.clouds.aws names this check)."""

from __future__ import annotations

import os
from typing import Any

from accelfit.errors import Problem, problem


def provider_problems(stack: Any) -> list[Problem]:
    """The provider's region: it refuses to configure without one from aws:region, AWS_REGION/AWS_DEFAULT_REGION or
    a profile (pulumi/pulumi-aws#2088, preConfigureCallback), even though accelfit's AWS resources name their
    region."""
    if stack.config.get("aws:region") or stack.config.get("aws:profile") or any(
            os.environ.get(name) for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE")):
        return []
    return [problem(str(stack.path), "config.aws:region", "the plan runs on AWS, whose provider needs a region",
                    "set aws:region (e.g. us-east-1), or AWS_REGION, or a profile with a region")]
