"""A plan says when a missing price shaped it, and which command fills the prices; never silently."""

from __future__ import annotations

from planner_specs import TRAINING, make_spec

from accelfit.planner.planner import plan


def _notes(result):
    return [warning for warning in result.warnings if warning.startswith("A missing price shaped this plan")]


def test_unpriced_offers_are_named_with_the_command_that_fills_them(catalog):
    spec = make_spec(TRAINING, placement={"clouds": ["aws"]}, budget={"pricing": "spot"})
    (note,) = _notes(plan(spec, catalog))
    assert "no spot price" in note and "`accelfit catalog update`" in note
    assert "p5.4xlarge" in note or "+" in note


def test_no_note_when_every_offered_option_is_priced(catalog):
    # H100 in us-east-1 on demand: both p5 sizes are priced there.
    spec = make_spec(TRAINING, placement={"clouds": ["aws"], "regions": ["us-east-1"],
                                          "accelerators": ["h100-80gb"]})
    result = plan(spec, catalog)
    assert not [r for r in result.rejected if r.rule == "no-price"]
    assert _notes(result) == []


def test_a_pair_the_cloud_does_not_sell_is_rejected_as_not_sold_and_never_asks_for_prices(catalog):
    # GCP sells a4-highgpu-8g (B200) by reservation, flex-start or Spot, not on demand (not_sold_gcp.yaml).
    spec = make_spec(TRAINING, placement={"clouds": ["gcp"], "accelerators": ["b200", "h100-80gb"]})
    result = plan(spec, catalog)
    not_sold = [r for r in result.rejected if r.rule == "not-sold"]
    assert not_sold and all("a4-highgpu-8g" in r.option or "a4-highgpu-8g" in r.reason for r in not_sold)
    assert any("sold as reservation, flex-start, spot" in r.reason for r in not_sold)
    assert not [r for r in result.rejected if r.rule == "no-price" and "a4-highgpu-8g" in r.option]
    assert all("a4-highgpu-8g" not in note for note in _notes(result))
