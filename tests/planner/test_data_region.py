"""data.region: moving the dataset and checkpoints out of where they live is priced (sourced transfer rates), so a
nearby region wins unless another is cheaper by more than the move; without it the plan says it chose on price."""

import pytest

from planner_specs import INFERENCE, TRAINING, make_spec

from accelfit.planner import plan
from accelfit.planner.costing.data_transfer import continent, transfer_rate


def transfer(result):
    return sum(line.total_usd for line in result.estimate.breakdown if line.item == "transfer")


def region_reason(result):
    return next(reason for reason in result.reasons if reason.startswith("Region:"))


def test_without_data_region_the_plan_says_it_chose_on_price_alone(catalog):
    result = plan(make_spec(TRAINING), catalog)
    assert "chosen on price alone" in region_reason(result)


def test_placement_regions_is_the_users_choice(catalog):
    result = plan(make_spec(TRAINING, placement__regions=["us-central1", "us-east-1"]), catalog)
    assert not any(reason.startswith("Region:") for reason in result.reasons)


def test_data_in_the_chosen_region_moves_nothing(catalog):
    cheapest = plan(make_spec(TRAINING, data__dataset_tb=50), catalog)
    result = plan(make_spec(TRAINING, data__dataset_tb=50, data__region=cheapest.region), catalog)
    assert result.region == cheapest.region and transfer(result) == 0
    assert "nothing to move" in region_reason(result)


def test_a_large_dataset_pulls_the_plan_to_its_region(catalog):
    """500 TB in europe-west4: moving it to the cheapest US region costs about $37,000, more than the difference."""
    far = plan(make_spec(TRAINING, data__dataset_tb=500), catalog)
    assert continent(far.region) != "europe"
    near = plan(make_spec(TRAINING, data__dataset_tb=500, data__region="europe-west4"), catalog)
    assert continent(near.region) == "europe"
    # Planned elsewhere, the move is priced into the option's total.
    moved = plan(make_spec(TRAINING, data__dataset_tb=500, data__region="europe-west4",
                           placement__regions=[far.region]), catalog)
    assert transfer(moved) == pytest.approx(500e3 * transfer_rate(catalog, "europe-west4", "gcp", far.region)[0],
                                            rel=0.01)
    assert moved.estimate.total_usd > near.estimate.total_usd


@pytest.mark.parametrize(("source", "cloud", "region", "kind"), [
    ("us-east1", "gcp", "us-central1", "between regions of one continent"),
    ("us-east1", "gcp", "europe-west4", "between continents"),
    ("us-east-1", "gcp", "us-central1", "out of aws to gcp"),
    ("us-east-1", "aws", "us-west-2", "between regions of one continent"),
])
def test_transfer_rates_by_kind_of_move(catalog, source, cloud, region, kind):
    rate, found = transfer_rate(catalog, source, cloud, region)
    assert found == kind and rate > 0


def test_serving_moves_its_weights_once(catalog):
    result = plan(make_spec(INFERENCE, data__region="asia-northeast1", placement__regions=["us-central1"],
                            placement__clouds=["gcp"]), catalog)
    line = next(line for line in result.estimate.breakdown if line.item == "transfer")
    assert "weights" in line.note and line.monthly_usd > 0


def test_an_unknown_data_region_is_refused():
    with pytest.raises(Exception) as error:
        make_spec(TRAINING, data__region="us-centrall1")
    assert "did you mean 'us-central1'" in str(error.value)
