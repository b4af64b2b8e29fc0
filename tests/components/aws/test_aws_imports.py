"""An AWS-only program never imports pulumi_gcp (checked in a fresh process, where imports are real)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]

PROGRAM = f"""
import sys
sys.path.insert(0, {str(HERE)!r})
from accelfit.preview.recorder import record
import components.aws as aws_components
from aws_plans import ACCESS, EXAMPLES
make, owner = EXAMPLES["example-aws-h100-training"]
plan = make()
recording = record(lambda: aws_components.build(plan, owner(plan), access=ACCESS))
assert len(recording.resources) > 50
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] == "pulumi_gcp")))
"""


def test_aws_program_does_not_import_gcp():
    result = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", PROGRAM], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
