"""What a buying model (a budget.pricing value, a catalog price row's pricing) is to accelfit, in one record
(issue 35): where it stands in a fallback chain, whether the cloud's autoscaler can move pending work onto a pool
bought this way, whether its cost is sunk or marginal, whether a pool consumes it by name, where its price comes
from, and which clouds sell it. Every field is read by a named caller; none is worked out again from a name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Cost = Literal["marginal", "sunk"]
# catalog: the catalog has price rows for it (accelfit/catalog/data/prices_*.yaml); held: capacity the team already
# holds, never a price row, priced at $0 with its on-demand rows as what it is worth (planner/candidates.py).
PriceSource = Literal["catalog", "held"]


@dataclass(frozen=True)
class BuyingModel:
    """One way to buy accelerator capacity. Pure data."""

    name: str  # the user-facing value: budget.pricing, catalog price rows, plan.pricing
    # The capacity tier a fallback chain files it under (planner/fleet/chain.py): a commitment is capacity held
    # for the workload, the reservation tier; every other model is its own tier.
    tier: str
    # Where its tier stands in a fallback chain, lowest first (held capacity, capacity bought for the run, on
    # demand, spot: README, issue 25). Only a model that is its own tier states it; the others follow their tier's.
    chain_order: int
    # The catalog's order of the models (the spec's listing, catalog lookups, reports): the order they were added.
    catalog_order: int
    # The cluster autoscaler moves pending pods onto a pool bought this way (planner/fleet/capacity_groups.py). Not
    # flex-start (its nodes come through ProvisioningRequests) nor a Capacity Block (launched into the block by id).
    autoscaler_moves_to: bool = True
    # sunk: paid whether it runs or not (a held reservation), so a plan adds $0 for its machines; marginal: a plan
    # that uses it pays for it.
    cost: Cost = "marginal"
    # A pool consumes it by name (a reservation, a Capacity Block's cr-... id): placement.reservations lists it.
    needs_reservation: bool = False
    price_source: PriceSource = "catalog"
    # Bought for what it holds (a commitment, a reservation, a block), not when used: a standby step of a fallback
    # chain never runs on it.
    bought_ahead: bool = False
    # A commitment: bills every hour of its term, used or not (planner/costing/option_costs.py, pricing/resources.py).
    term_hours: float | None = None
    # Paid up front for a block of fixed length that bills every hour of it (an AWS Capacity Block:
    # pricing/capacity_blocks.py), rather than for the hours the run uses.
    whole_block: bool = False
    # A pool on it takes any open reservation of its type the project holds unless told not to (GKE
    # ANY_RESERVATION, an EC2 launch template's `open` preference): on demand and commitments, not spot or flex-start,
    # nor capacity consumed by name (planner/fleet/chain.py standby_pools).
    takes_open_reservations: bool = False
    # A pool's nodes are created when the cloud's queue finds capacity, for pending pods (GKE flex-start: NodeConfig
    # flexStart, the pool starts empty): planner/build.py, planner/fleet/provisioning.py, components/gcp.
    queued: bool = False
    # The model a node pool bought this way is built as, where not its own: a commitment's pools take on-demand
    # nodes (the commitment bills the project; the pool names none). "" = itself.
    builds_as: str = ""
    # The cloud can take the capacity back at any time (spot): training pays for restarts, a plan says so.
    preemptible: bool = False
    # The planner's search makes its offers with rules of its own beyond a price row (planner/costing/buying.py: who
    # sells it, what it sells, the longest run): a held reservation, flex-start, a Capacity Block.
    offers_by_rules: bool = False
    # The clouds that sell it (cloud names, accelfit/clouds); () = every cloud that sells capacity by the hour.
    sold_by: tuple[str, ...] = ()

    def sold_on(self, cloud: str) -> bool:
        return not self.sold_by or str(getattr(cloud, "value", cloud)) in self.sold_by

    @property
    def pool_model(self) -> str:
        """The model a node pool on it carries (planner/model.py NodePool.buying)."""
        return self.builds_as or self.name

    @property
    def commitment(self) -> bool:
        return self.term_hours is not None

    @property
    def sunk(self) -> bool:
        return self.cost == "sunk"
