"""`accelfit calibrate`: measured runs in, a per-team efficiency file out, which the planner uses over the catalog.

    measurements.py  the documented CSV/JSON/YAML format of measured runs, validated (exit 2 naming the field)
    dcgm.py          a DCGM-exporter / Prometheus export (text exposition or query-API JSON) as measurements
    compute.py       measured runs -> MFU (training) and serving efficiency per accelerator
    store.py         where the team efficiency file lives, reading and writing it
"""
