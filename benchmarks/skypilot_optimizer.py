"""SkyPilot's optimizer choosing the cheapest resources for a training task, timed: run by bench_plan_cli.py
`--skypilot PYTHON` with an interpreter that has SkyPilot installed (not a dependency of accelfit; e.g.
`python3 -m venv SKYVENV && SKYVENV/bin/pip install skypilot`, a folder outside the project). It imports nothing of accelfit.

    SKY_RUNTIME_DIR=DIR PYTHON benchmarks/skypilot_optimizer.py ACCELERATORS

DIR holds `.sky/catalogs/v8/{aws,gcp}/vms.csv` (the synthetic full-size catalog accelfit imports too) and the two
small index files SkyPilot reads with them (`common/accelerators.csv`, `common/metadata.csv`), so SkyPilot reads
local files only: a catalog file without a `.meta` checksum counts as edited by hand and is never fetched again
(sky/catalog/common.py read_catalog, skypilot 0.14.1). ACCELERATORS: comma-separated SkyPilot accelerator
requests (`H100:8`, `tpu-v6e-256`), one task with any of them on any enabled cloud, minimising cost.

This machine has no cloud credentials: SkyPilot's check of which clouds are enabled is answered "AWS and GCP", as it
would be for a user logged in to both; everything after that (reading the catalogs, filtering, pricing, choosing)
is SkyPilot's own. Prints one JSON line: CPU seconds of the import and of Optimizer.optimize, and the choice.
"""

import json
import sys
import time

started = time.process_time()
import sky  # noqa: E402
import sky.check  # noqa: E402
from sky import optimizer  # noqa: E402
from sky.utils import common, registry  # noqa: E402

imported = time.process_time()
CLOUDS = [registry.CLOUD_REGISTRY.from_str("aws"), registry.CLOUD_REGISTRY.from_str("gcp")]
sky.check.get_cached_enabled_clouds_or_refresh = lambda *args, **kwargs: list(CLOUDS)

task = sky.Task(name="jax-pretrain", run="true")
task.set_resources({sky.Resources(accelerators=accelerator) for accelerator in sys.argv[1].split(",")})
dag = sky.Dag()
dag.add(task)
before = time.process_time()
optimizer.Optimizer.optimize(dag, minimize=common.OptimizeTarget.COST, quiet=True)
print(json.dumps({"import_cpu_s": imported - started, "optimize_cpu_s": time.process_time() - before,
                  "chosen": str(task.best_resources)}))
