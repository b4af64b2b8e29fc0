"""`evaluate` sizes each machine type or slice shape once and re-uses it in every region that offers it; the
result must be exactly what sizing each offer on its own gives, rejections and their reasons included."""

from __future__ import annotations

import pytest

from accelfit.planner.candidates import offers_for
from accelfit.planner.evaluate import evaluate, size_offer, sizing_key
from accelfit.planner.sizes import Unfit
from planner_specs import INFERENCE, TRAINING, make_spec

SPECS = {
    "training": make_spec(TRAINING),
    "training-spot-and-on-demand": make_spec(TRAINING, budget__pricing=["spot", "on-demand"]),
    "training-70b-tight-deadline": make_spec(TRAINING, model__parameters="70B", training__deadline_days=3),
    "inference": make_spec(INFERENCE),
    "inference-tight-latency": make_spec(INFERENCE, inference__latency_p99_ms=300),
}


def _alone(spec, catalog, offer):
    try:
        return size_offer(spec, catalog, offer)
    except Unfit as unfit:
        return ("unfit", unfit.rule, unfit.reason, unfit.best)


@pytest.mark.parametrize("label", sorted(SPECS))
def test_shared_sizing_gives_what_each_offer_gives_alone(catalog, label):
    spec = SPECS[label]
    offers = offers_for(spec, catalog, None).offers
    # The sharing is real: several offers (regions) per sizing key.
    assert len({sizing_key(offer) for offer in offers}) < len(offers) / 2
    shared: dict = {}
    for offer in offers:
        try:
            together = size_offer(spec, catalog, offer, shared=shared)
        except Unfit as unfit:
            together = ("unfit", unfit.rule, unfit.reason, unfit.best)
        assert together == _alone(spec, catalog, offer), offer.label


def test_evaluate_keeps_every_feasible_option_and_rejection(catalog):
    spec = SPECS["training-spot-and-on-demand"]
    offers = offers_for(spec, catalog, None).offers
    result = evaluate(spec, catalog, offers)
    alone = [_alone(spec, catalog, offer) for offer in offers]
    unfit = [entry for entry in alone if isinstance(entry, tuple)]
    assert len(result.rejected) == len(unfit) > 0
    assert [(row.rule, row.reason) for row in result.rejected] == [(entry[1], entry[2]) for entry in unfit]
    assert {sized.option_id for sized in result.feasible} <= {sized.option_id for sized in alone
                                                              if not isinstance(sized, tuple)}
