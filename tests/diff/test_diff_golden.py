"""Golden files for a realistic change to the dev stack (tests/diff/fixtures/regenerate.py says how the documents
were made): the TPU slice grows v6e-4 -> v6e-16, the inference pool goes from spot to on-demand, the data bucket
is made public. Regenerate the goldens with ACCELFIT_UPDATE_GOLDEN=1 after an intended change of the output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.diff.render_markdown import GITHUB_COMMENT_LIMIT_CHARS

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).parents[2]


def _check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{path} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8"), f"{name} differs; regenerate with ACCELFIT_UPDATE_GOLDEN=1"


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("flag, golden", [("--markdown", "dev-change.md"), ("--json", "dev-change.json"),
                                          (None, "dev-change.txt")])
def test_output_matches_golden(capsys, monkeypatch, base_path, head_path, flag, golden):
    # Relative paths, so the "base"/"head" the JSON names do not depend on where the repository is checked out.
    monkeypatch.chdir(ROOT)
    args = ["diff", str(base_path.relative_to(ROOT)), str(head_path.relative_to(ROOT))]
    code, out, _ = _run(capsys, *args, *([flag] if flag else []))
    assert code == 0
    _check_golden(golden, out)


def test_markdown_calls_out_the_budget_first_and_fits_a_comment(capsys, base_path, head_path):
    _, out, _ = _run(capsys, "diff", str(base_path), str(head_path), "--markdown")
    assert out.startswith("<!-- accelfit:dev -->\n")
    assert len(out) < GITHUB_COMMENT_LIMIT_CHARS
    lines = out.splitlines()
    caution = lines.index("> [!CAUTION]")
    assert lines[caution + 1].startswith("> **Over budget:** $5,915 a month as planned")
    assert caution < next(i for i, line in enumerate(lines) if line.startswith("- **Monthly cost:**"))
    # Details are folded: the summary ends before the first <details>.
    assert out.index("#### Cost movers") < out.index("<details>")


def test_json_names_the_three_changes(capsys, base_path, head_path):
    _, out, _ = _run(capsys, "diff", str(base_path), str(head_path), "--json")
    diff = json.loads(out)
    by_name = {r["name"]: r for r in diff["resources"]}
    tpu = by_name["llm-pretrain-tpu-0-pool"]
    assert tpu["action"] == "replace"
    assert {c["path"] for c in tpu["changes"] if c["replaces_because"]} == {"initialNodeCount", "placementPolicy"}
    # As planned the bigger slice bills only for its run: 293.56 more a month (at full scale it would be 4,767).
    assert tpu["delta_monthly_usd"] == pytest.approx(293.56)
    serve = by_name["chat-serve-gpu-pool"]
    assert serve["action"] == "replace"
    assert [(c["path"], c["old"], c["new"]) for c in serve["changes"]] == [("nodeConfig.spot", True, False)]
    bucket = by_name["llm-pretrain-data-bucket"]
    assert bucket["action"] == "change"
    assert [(c["path"], c["old"], c["new"]) for c in bucket["changes"]] == [
        ("publicAccessPrevention", "enforced", "inherited")]
    assert by_name["llm-pretrain-data-public-read"]["action"] == "add"
    new = {(v["policy"], v["resource"]) for v in diff["policies"]["violations"] if v["status"] == "new"}
    assert {("spot-outside-prod", "chat-serve-gpu-pool"), ("private-buckets", "llm-pretrain-data-bucket"),
            ("stack-monthly-budget", None)} <= new
    assert [m["name"] for m in diff["movers"]] == ["chat-serve-gpu-pool", "llm-pretrain-tpu-0-pool"]
    figures = {f["figure"]: f for f in diff["cost"]["figures"]}
    assert figures["full_scale_monthly_usd"]["delta_usd"] > figures["monthly_usd"]["delta_usd"] > 0
    assert [line["source"] for line in diff["cost"]["budget_lines"]] == [
        "spec budget.max_monthly_usd", "policy stack-monthly-budget (policies/config/dev.json)"]
    assert diff["cost"]["pushes_over_budget"] is True
    assert diff["selection"]["option_changed"] is True


def test_readme_shows_the_real_comment():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Reviewing changes in pull requests" in readme
    assert (GOLDEN / "dev-change.md").read_text(encoding="utf-8") in readme, \
        "README's example comment differs from tests/diff/golden/dev-change.md: paste the new golden output"
