"""Comments, docstrings and data-file headers that name a file of this project name one that exists (issue #35:
three named files that had been moved or merged away)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A project path: one of the project's top-level packages, then a path to a file. In Python files every such
# mention is ours; data files also cite upstream repositories (`benchmarks/...` in vLLM), so only the two package
# names no upstream shares are checked there.
_PY_REFERENCE = re.compile(
    r"(?<![\w./-])((?:accelfit|components|policies|tests|benchmarks)/[\w./-]+\.(?:py|yaml|json|tmpl|sh|md))")
_DATA_REFERENCE = re.compile(r"(?<![\w./-])((?:accelfit|components)/[\w./-]+\.(?:py|yaml|json|tmpl|sh))")
# Patterns and placeholders (`catalog-.../manifest.yaml`, `policies/config/ENV.json`) name no one file.
_PATTERN_CHARS = re.compile(r"[*{}<>]|\.\.\.|/[A-Z]+\.")
# Names that are not meant to exist.
_NOT_FILES = {
    "policies/config/test.json": "the made-up source a test's policy constraints are reported against",
    "policies/config/qa.json": "the environment tests/environments writes with `accelfit env new qa`",
}


def _missing(path: Path, pattern: re.Pattern[str], root: Path = ROOT) -> list[str]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in pattern.finditer(text):
        reference = match.group(1)
        if _PATTERN_CHARS.search(reference) or reference in _NOT_FILES or (root / reference).exists():
            continue
        line = text.count("\n", 0, match.start()) + 1
        found.append(f"{path.relative_to(root)}:{line}: names {reference}, which does not exist")
    return found


def _files(suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(path for top in ("accelfit", "components", "policies", "tests", "benchmarks")
                  for path in (ROOT / top).rglob("*")
                  if path.suffix in suffixes and "__pycache__" not in path.parts and path != Path(__file__).resolve())


def test_every_project_file_a_comment_names_exists():
    missing = [line for path in _files((".py",)) for line in _missing(path, _PY_REFERENCE)]
    missing += [line for path in _files((".yaml",)) for line in _missing(path, _DATA_REFERENCE)]
    assert not missing, "stale file references (point them at the file that has the code now):\n" + "\n".join(missing)


def test_a_moved_file_is_caught(tmp_path):
    # The reference components/fleet_groups.py carried before issue #35 (the code moved to fleet_costs.py, now
    # accelfit/planner/fleet/costs.py).
    stale = tmp_path / "example.py"
    stale.write_text('"""Costs are attributed in accelfit/preview/' + 'attribution.py."""\n', encoding="utf-8")
    assert _missing(stale, _PY_REFERENCE, tmp_path) == [
        "example.py:1: names accelfit/preview/attribution.py, which does not exist"]
