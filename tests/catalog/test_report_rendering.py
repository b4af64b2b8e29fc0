"""The generic table renderers used by `accelfit catalog` (and other reports)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelfit.reports.table import render_markdown_table, render_table


def test_numbers_right_aligned_text_left_aligned():
    text = render_table(["name", "usd"], [["p5.48xlarge", "55.04"], ["g6.xlarge", "0.80*"]])
    lines = text.splitlines()
    assert lines[0] == "name         usd"
    assert lines[1] == "-----------  -----"
    assert lines[2] == "p5.48xlarge  55.04"
    assert lines[3] == "g6.xlarge    0.80*"


def test_none_renders_as_dash_and_rows_must_match_headers():
    assert render_table(["a"], [[None]]).splitlines()[-1] == "-"
    with pytest.raises(ValueError):
        render_table(["a", "b"], [[1]])


def test_markdown_escapes_pipes_and_marks_numeric_columns():
    text = render_markdown_table(["name", "n"], [["a|b", 3]])
    assert text.splitlines() == ["| name | n |", "| --- | ---: |", "| a\\|b | 3 |"]


def test_empty_tables_still_have_a_header():
    assert render_markdown_table(["a", "b"], []).splitlines()[1] == "| --- | --- |"
    assert render_table(["a"], []).splitlines() == ["a", "-"]


cells = st.one_of(st.none(), st.integers(-10**6, 10**6), st.text(alphabet="abcxyz-. ", max_size=8))


@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.text(alphabet="abc", min_size=1, max_size=6), min_size=n, max_size=n),
    st.lists(st.lists(cells, min_size=n, max_size=n), max_size=6))))
def test_every_column_starts_at_the_same_offset(table):
    headers, rows = table
    lines = render_table(headers, rows).split("\n")
    assert len(lines) == len(rows) + 2
    rule = lines[1]
    # The dashed rule marks each column's span; no line runs past it.
    assert all(len(line) <= len(rule) for line in lines)
