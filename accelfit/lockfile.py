"""Write `accelfit:selection` into a stack file without disturbing the rest of it (comments, order, layout).

PyYAML would drop comments on a round trip, so the selection block is edited as text: any existing block under
`config:` is replaced, else a new one is appended at the end of `config:`. The result is parsed back to check it.
"""

from __future__ import annotations

from pathlib import Path

from accelfit.planner.lock import Selection
from accelfit.yamlio import parse_yaml


def _render(key: str, selection: Selection) -> list[str]:
    data = selection.model_dump(mode="json")
    lines = [f"  # Written by `accelfit lock` on {selection.locked_on}: the program builds this option while it",
             "  # still meets the spec, so a price change never replaces running capacity by itself.",
             f"  {key}:"]
    lines += [f"    {field}: {value}" if not isinstance(value, str) else f"    {field}: \"{value}\""
              for field, value in data.items()]
    return lines


def write_selection(path: Path, project: str, selection: Selection) -> None:
    key = f"{project}:selection"
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    skipping = False
    for line in lines:
        stripped = line.strip()
        if skipping:
            if line.startswith("    ") or not stripped:
                continue
            skipping = False
        if stripped.startswith("# Written by `accelfit lock`") or stripped.startswith(
                "# still meets the spec, so a price change"):
            continue
        if line.startswith(f"  {key}:"):
            skipping = True
            continue
        out.append(line)
    # Append at the end of the `config:` block: after its last indented line.
    config_start = next(index for index, line in enumerate(out) if line.startswith("config:"))
    end = config_start + 1
    while end < len(out) and (out[end].startswith(" ") or not out[end].strip()):
        end += 1
    while end > config_start + 1 and not out[end - 1].strip():
        end -= 1
    text = "\n".join(out[:end] + _render(key, selection) + out[end:]) + "\n"
    document = parse_yaml(text, str(path))
    assert Selection.model_validate(document["config"][key]) == selection  # the edit must round-trip
    path.write_text(text, encoding="utf-8")
