"""accelfit: plan and provision GPU and TPU infrastructure on Pulumi.

The core (spec, catalog, planner, pricing, reports, CLI) imports neither Pulumi nor a provider SDK.
"""

__version__ = "0.1.0"
