import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelfit.sizes import SizeError, format_count, parse_bytes, parse_count


@pytest.mark.parametrize(("text", "expected"), [
    ("70B", 70e9), ("2T", 2e12), ("1.5M", 1.5e6), ("6.74e9", 6.74e9), (" 12k ", 12e3), ("3", 3.0),
    (7, 7.0), (2.5, 2.5), ("1P", 1e15), ("8G", 8e9),
])
def test_parse_count(text, expected):
    assert parse_count(text) == pytest.approx(expected)


@pytest.mark.parametrize(("text", "expected"), [
    ("512Gi", 512 * 2**30), ("2Ti", 2 * 2**40), ("20TB", 20e12), ("500G", 500e9), ("1024", 1024.0),
    ("1.5Mi", 1.5 * 2**20), ("3kb", 3e3),
])
def test_parse_bytes(text, expected):
    assert parse_bytes(text) == pytest.approx(expected)


@pytest.mark.parametrize("bad", ["", "B", "70X", "1..2", "-3", "ten", "2Ti", True, None, [1], float("inf")])
def test_parse_count_rejects(bad):
    with pytest.raises(SizeError):
        parse_count(bad)


@pytest.mark.parametrize("bad", ["", "5Xi", "-1Gi", "1..2G", False, {}, float("nan")])
def test_parse_bytes_rejects(bad):
    with pytest.raises(SizeError):
        parse_bytes(bad)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False), st.sampled_from(["", "K", "M", "B", "T"]))
def test_count_round_trip(number, suffix):
    scale = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[suffix]
    assert math.isclose(parse_count(f"{number!r}{suffix}"), number * scale, rel_tol=1e-9)


@given(st.one_of(st.text(max_size=12), st.integers(), st.floats(), st.none(), st.booleans()))
def test_parse_count_only_raises_size_error(value):
    try:
        result = parse_count(value)
    except SizeError:
        return
    assert result >= 0 and math.isfinite(result)


def test_format_count():
    assert format_count(70e9) == "70B"
    assert format_count(2e12) == "2T"
