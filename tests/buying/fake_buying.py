"""An eighth buying model for tests only (issue 35), registered from this one module: capacity booked for a day
ahead, sold by GCP, standing in the fallback chain after capacity bought for the run and before on demand. Nothing
else in the project names it; every place that reads the buying-model table must take it."""

from __future__ import annotations

from accelfit.buying import BuyingModel

NAME = "day-ahead"
MODEL = BuyingModel(name=NAME, tier=NAME, chain_order=2, catalog_order=7, bought_ahead=False, sold_by=("gcp",))
HOURLY_USD = 7.5  # its one price row's rate, per machine-hour
