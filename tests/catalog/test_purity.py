"""The catalog, its report and its command stay pure: importing them never loads Pulumi or a provider SDK."""

from __future__ import annotations

import subprocess
import sys

import pytest

FORBIDDEN = ("pulumi", "pulumi_aws", "pulumi_gcp", "pulumi_kubernetes", "pulumi_policy")


@pytest.mark.parametrize("module", ["accelfit.catalog", "accelfit.catalog.loader", "accelfit.reports.catalog_report",
                                    "accelfit.cli.catalog_command"])
def test_import_and_load_do_not_pull_in_pulumi(module):
    code = (f"import importlib, sys\nimportlib.import_module({module!r})\n"
            "from accelfit.catalog import load_catalog\nload_catalog()\n"
            f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
