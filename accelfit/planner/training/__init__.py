"""Training: how many accelerators a training run needs and how long it then runs.

- sizing.py: the count an offer needs (the deadline holds and the training state fits), the run's hours and MFU;
- efficiency.py: training efficiency by precision, architecture and size class (data/training_efficiency.yaml).

May import the planner's shared values (options, sizes, memory, preferences at the package top); never serving/,
costing/, fleet/ or the search (planner, evaluate, choose, build, lock). Data files stay in accelfit/planner/data.
"""
