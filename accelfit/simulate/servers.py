"""One server of a serving pool as the simulator runs it: the planner's own replica model (the same step time, KV
cache and scheduler limits the plan was sized with), so a simulation and a plan disagree only where queueing,
bursts and the autoscaler make them."""

from __future__ import annotations

import dataclasses

from accelfit.catalog.models import Catalog
from accelfit.planner.memory import kv_cache_bytes_per_token
from accelfit.planner.model import ServingPool
from accelfit.planner.serving.replica import Efficiency, ReplicaModel
from accelfit.planner.serving.engine_figures import max_num_batched_tokens
from accelfit.planner.serving.sizing import kv_room_bytes, replica_model
from accelfit.simulate.engine import ServerShape
from accelfit.spec import WorkloadSpec


class StepTime:
    """ReplicaModel.step_with for one group, remembered on rounded arguments (a day asks it a few hundred thousand
    times with the same few thousand values): sequences to the unit, KV tokens to 1/500 of the cache, prompt tokens
    per step to 8."""

    def __init__(self, model: ReplicaModel, group: int, kv_capacity: float):
        self.model = model
        self.group = group
        self.kv_quantum = max(1.0, kv_capacity / 500.0)
        self.context = model.lengths.mean_input / 2.0
        self.memo: dict[tuple[int, int, int], float] = {}

    def __call__(self, sequences: float, kv_tokens: float, prompt_tokens: float) -> float:
        key = (round(sequences), round(kv_tokens / self.kv_quantum), round(prompt_tokens / 8.0))
        found = self.memo.get(key)
        if found is None:
            found = self.model.step_with(self.group, float(key[0]), key[1] * self.kv_quantum, key[2] * 8.0,
                                         self.context).seconds
            self.memo[key] = found
        return found


def replica_shape(model: ReplicaModel, group: int, slots: int, token_budget: int) -> ServerShape:
    kv_tokens = max(0.0, kv_room_bytes(model, group)) / kv_cache_bytes_per_token(model.model)
    return ServerShape(StepTime(model, group, kv_tokens), slots, token_budget, kv_tokens)


def pool_shape(spec: WorkloadSpec, pool: ServingPool, catalog: Catalog, cloud: str,
               efficiency: Efficiency | None = None) -> ServerShape:
    """The server a serving pool of the plan runs: its accelerator, group, --max-num-seqs and KV cache."""
    accelerator = catalog.accelerator(pool.accelerator)
    model = replica_model(spec, accelerator, efficiency)
    if pool.kind == "gpu":
        instance = catalog.instance_type(cloud, pool.machine_type)
        network = instance.network_gbps if instance is not None else 0.0
        model = dataclasses.replace(model, chips_per_node=pool.accelerators_per_node, node_network_gbps=network)
    return replica_shape(model, pool.chips_per_replica, pool.max_num_seqs, max_num_batched_tokens(accelerator.name))
