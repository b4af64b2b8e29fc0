"""The buying models accelfit ships, one record each (accelfit/buying/model.py says what each field means).

Sources: GCP Dynamic Workload Scheduler flex-start, https://cloud.google.com/kubernetes-engine/docs/concepts/dws
(its nodes come through ProvisioningRequests or the flex-start pool's own scale-up, each runs at most 7 days); AWS EC2
Capacity Blocks for ML, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html (a block is
bought for a fixed length and launched into by its reservation id); committed-use terms of 1 and 3 years
(pricing/figures.py)."""

from __future__ import annotations

from accelfit.buying.model import BuyingModel

ON_DEMAND = BuyingModel(name="on-demand", tier="on-demand", chain_order=3, catalog_order=0,
                        takes_open_reservations=True)
SPOT = BuyingModel(name="spot", tier="spot", chain_order=4, catalog_order=1, preemptible=True)
COMMITTED_1Y = BuyingModel(name="committed-1y", tier="reservation", chain_order=0, catalog_order=2,
                           bought_ahead=True, term_hours=8760.0, takes_open_reservations=True,
                           builds_as="on-demand")
COMMITTED_3Y = BuyingModel(name="committed-3y", tier="reservation", chain_order=0, catalog_order=3,
                           bought_ahead=True, term_hours=26280.0, takes_open_reservations=True,
                           builds_as="on-demand")
# Capacity the team already holds (a GCP reservation, an AWS On-Demand Capacity Reservation or a bought Capacity
# Block, listed in placement.reservations): never a price row, priced as already paid.
RESERVATION = BuyingModel(name="reservation", tier="reservation", chain_order=0, catalog_order=4, cost="sunk",
                          needs_reservation=True, price_source="held", bought_ahead=True, offers_by_rules=True)
# GCP Dynamic Workload Scheduler flex-start: capacity obtained when available, runs up to 7 days.
FLEX_START = BuyingModel(name="flex-start", tier="flex-start", chain_order=1, catalog_order=5,
                         autoscaler_moves_to=False, offers_by_rules=True, queued=True, sold_by=("gcp",))
# AWS EC2 Capacity Blocks for ML: a block of instances for 1-14 days (1-day steps) or up to 182 (7-day steps), paid up
# front; the price row is the effective hourly rate per instance; the node group targets the bought block's id.
CAPACITY_BLOCK = BuyingModel(name="capacity-block", tier="capacity-block", chain_order=2, catalog_order=6,
                             autoscaler_moves_to=False, needs_reservation=True, bought_ahead=True,
                             offers_by_rules=True, whole_block=True, sold_by=("aws",))

SHIPPED = (ON_DEMAND, SPOT, COMMITTED_1Y, COMMITTED_3Y, RESERVATION, FLEX_START, CAPACITY_BLOCK)
