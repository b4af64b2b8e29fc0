"""Serving: how fast a model server's replica runs, how many an offer needs, and the plan's serving section and route.

- replica.py: one tensor-parallel replica's engine step (ReplicaModel); load.py: under Poisson load, its p99s;
  queueing.py: the closed forms load.py uses; lengths.py: the request lengths a spec implies;
- sizing.py: replicas, group and batch per offer (`size_inference`); other_models.py: models that are not
  transformers (model.architecture: other);
- engine_figures.py, server_pods.py, weights_read.py, gke_crds.py: the sourced serving data (data/*.yaml);
- layout.py: the plan's serving section (its pools in route order); traffic.py: the route and autoscaling decided
  from it; route_plan.py: that route carried and priced in the plan;
- published_results.py, benchmark_run.py: published serving results, and the figure the model gives for each.

May import the planner's shared values (model, options, sizes, memory, preferences, team_efficiency at the package
top) and training/ (efficiency.py: the share of peak non-transformer models reach); never costing/, fleet/ or the
search (planner, evaluate, choose, build, lock). traffic.py imports no other planner module: the Plan (model.py)
carries its route type. Data files stay in accelfit/planner/data.
"""
