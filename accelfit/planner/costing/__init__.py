"""Costing: what a sized option costs and how its capacity is bought.

- option_costs.py: the total cost of ownership of a sized option, as parts of the one cost model
  (accelfit.pricing.figures): capacity, system pool, cluster fee, NAT, storage, file system, egress;
- buying.py: reservations, flex-start and Capacity Blocks: where each is sold, its run cap, the held blocks;
- data_transfer.py: moving the data from data.region to the plan's region;
- filestore_capacity.py: Filestore share sizes per tier (data/filestore_capacity.yaml).

May import the planner's shared values (model, options, sizes, memory, preferences, gpu_vms at the package top) and
serving/ (traffic.py: the route's priced facts); never training/, fleet/ or the search (planner, evaluate, choose,
build, lock): the cost model stays a leaf the sizing calls (tests/planner/test_cost_model_leaf.py).
"""
