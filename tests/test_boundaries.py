"""The pure core never imports Pulumi or a provider SDK (design.md section 1), and never reaches up into
`components/` or `policies/` except where the preview runs the program and the policy pack."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PURE_MODULES = ["accelfit.spec", "accelfit.catalog", "accelfit.cloudrules", "accelfit.cloudrules.gcp.validation",
                "accelfit.cloudrules.aws.plan_checks", "accelfit.cloudrules.shared_cluster", "accelfit.planner",
                "accelfit.pricing", "accelfit.cli.main"]
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


CORE = Path(__file__).resolve().parents[1] / "accelfit"
UPPER = ("components", "policies")
# The preview runs the Pulumi program (components.program, under mocks; its secret config keys) and the policy
# pack exactly as the engine would: these two files are the core's only doors upward.
DOORS = {"preview/run.py": {"components.program", "components.baremetal.access"},
         "preview/policy_bridge.py": {"policies.accelfit_policies", "policies.runner"}}


def upward_imports(source: str) -> set[str]:
    """Modules of components/ or policies/ that `source` imports, anywhere in it (functions included)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        found |= {name for name in names if name.split(".")[0] in UPPER}
    return found


def test_the_upward_import_finder_sees_late_imports():
    assert upward_imports("def f():\n    from components.gcp.rules import x\n") == {"components.gcp.rules"}
    assert upward_imports("import policies.runner\nimport accelfit.errors\n") == {"policies.runner"}


def test_pricing_never_reaches_into_the_planner():
    """The planner's cost model calls pricing (figures, disks, power); pricing prices recorded resources alone."""
    found = {path.name: sorted(name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                               if isinstance(node, ast.ImportFrom) and not node.level
                               for name in [node.module or ""] if name.startswith("accelfit.planner"))
             for path in sorted((CORE / "pricing").glob("*.py"))}
    assert {name: modules for name, modules in found.items() if modules} == {}


def test_the_core_imports_nothing_from_components_or_policies():
    breaches = {}
    for path in sorted(CORE.rglob("*.py")):
        relative = path.relative_to(CORE).as_posix()
        found = upward_imports(path.read_text(encoding="utf-8")) - DOORS.get(relative, set())
        if found:
            breaches[relative] = sorted(found)
    assert breaches == {}, f"accelfit/ must not import components/ or policies/: {breaches}"
