"""A GCP-only program never imports pulumi_aws; the pure helpers import no Pulumi at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def _modules_after(code: str) -> set[str]:
    script = f"import sys\nsys.path.insert(0, {str(HERE)!r})\n{code}\nprint(','.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.strip().splitlines()[-1].split(","))


def test_building_a_gcp_plan_does_not_import_pulumi_aws():
    modules = _modules_after("import gcp_plans\nrecording, error = gcp_plans.record_plan(gcp_plans.gke_h100_training())\n"
                             "assert error is None and len(recording.resources) > 20")
    assert "pulumi_gcp" in modules
    assert not any(name.split(".")[0] == "pulumi_aws" for name in modules)


def test_pure_helpers_import_no_pulumi():
    modules = _modules_after("import accelfit.cloudrules.gcp.validation, accelfit.cloudrules.gcp.node_settings, "
                             "accelfit.cloudrules.gcp.tpu_runtime, components.gcp")
    assert not any(name.split(".")[0] in ("pulumi", "pulumi_gcp", "pulumi_aws") for name in modules)
