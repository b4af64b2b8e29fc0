"""A change of hundreds of resources still makes one readable comment under GitHub's 65,536-character limit."""

from __future__ import annotations

from accelfit.diff import diff_documents, parse_document, render_markdown
from accelfit.diff.render_markdown import GITHUB_COMMENT_LIMIT_CHARS, MOVERS_SHOWN


def _big_change(make_document, make_resource, count: int):
    def pools(size: int):
        return [make_resource(f"team-{i:03d}-gpu-pool", parent=f"team-{i // 10:02d}",
                              inputs={"autoscaling": {"totalMaxNodeCount": size}, "nodeConfig": {
                                  "labels": {f"label-{j}": f"value-{size}-{j}" for j in range(30)}}},
                              monthly_usd=100.0 * size + i) for i in range(count)]
    base = parse_document(make_document(pools(2)), "base.json")
    head = parse_document(make_document(pools(3)), "head.json")
    return diff_documents(base, head)


def test_a_huge_change_is_cut_to_fit_with_a_note(make_document, make_resource):
    diff = _big_change(make_document, make_resource, 400)
    text = render_markdown(diff)
    assert len(text) < GITHUB_COMMENT_LIMIT_CHARS
    assert "more resource change(s) not shown" in text and "accelfit diff --json" in text
    # The summary is whole: counts, and the biggest movers first.
    assert "- **Resources:** 0 to add, 400 to change" in text
    assert text.count("| +$100 |") == MOVERS_SHOWN
    assert text.rstrip().endswith("</details>")  # folded details are closed even when cut


def test_inputs_per_resource_are_capped(make_document, make_resource):
    diff = _big_change(make_document, make_resource, 1)
    text = render_markdown(diff)
    assert "more changed input(s) in the JSON output" in text


def test_a_small_change_is_not_cut(make_document, make_resource):
    diff = _big_change(make_document, make_resource, 3)
    assert "not shown" not in render_markdown(diff)


def test_a_smaller_limit_is_honoured(make_document, make_resource):
    diff = _big_change(make_document, make_resource, 50)
    assert len(render_markdown(diff, max_chars=10_000)) <= 10_000
