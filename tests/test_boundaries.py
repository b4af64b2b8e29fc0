"""The pure core never imports Pulumi or a provider SDK (design.md section 1)."""

import subprocess
import sys

import pytest

PURE_MODULES = ["accelfit.spec", "accelfit.ordering.check", "accelfit.chartvalues.check", "accelfit.catalog", "accelfit.planner", "accelfit.pricing", "accelfit.cli.main"]
FORBIDDEN = ("pulumi", "pulumi_aws", "pulumi_gcp", "pulumi_kubernetes", "pulumi_policy")


@pytest.mark.parametrize("module", PURE_MODULES)
def test_pure_module_does_not_import_pulumi(module):
    code = (f"import importlib, sys\nimportlib.import_module({module!r})\n"
            f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\nprint(','.join(bad))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if "No module named" in result.stderr and module.split(".")[-1] in result.stderr:
        pytest.skip(f"{module} does not exist yet")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"{module} imports {result.stdout.strip()}"
