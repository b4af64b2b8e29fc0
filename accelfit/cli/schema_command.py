"""`accelfit schema`: the workload spec (or inventory, or a fleet stack's keys) as JSON Schema, for editors' YAML
language servers."""

from __future__ import annotations

import json
from typing import Any

import click

JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"


@click.command()
@click.option("--inventory", is_flag=True, help="Print the bare-metal inventory schema instead of the spec's.")
@click.option("--fleet", is_flag=True, help="Print the schema of a fleet stack's keys (accelfit:workloads, "
                                            "accelfit:fleet, the accelfit:selection map) instead of the spec's.")
def schema(inventory: bool, fleet: bool) -> None:
    """Print the JSON Schema of the workload spec (a stack's accelfit:workload, or each item of accelfit:workloads)."""
    from accelfit.spec import Inventory, WorkloadSpec

    if inventory and fleet:
        from accelfit.errors import InputError, problem

        raise InputError([problem(None, "--fleet", "--inventory and --fleet print different schemas",
                                  "pass one of them")])
    if fleet:
        document = fleet_schema()
    else:
        model = Inventory if inventory else WorkloadSpec
        document = model.model_json_schema(mode="validation")
        document["$schema"] = JSON_SCHEMA
        document["title"] = "accelfit bare-metal inventory" if inventory else "accelfit workload spec"
    click.echo(json.dumps(document, indent=2, sort_keys=True))


def fleet_schema() -> dict[str, Any]:
    """The `config:` keys of a fleet stack file. Names are unique and selection keys name workloads: JSON Schema
    cannot say either, so `accelfit check` does (exit 2, naming the field)."""
    from accelfit.planner.lock import Selection
    from accelfit.spec import WorkloadSpec

    spec = WorkloadSpec.model_json_schema(mode="validation", ref_template="#/$defs/WorkloadSpec/$defs/{model}")
    selection = Selection.model_json_schema(mode="validation")
    return {
        "$schema": JSON_SCHEMA,
        "title": "accelfit fleet stack config",
        "description": "A stack holds accelfit:workload (one spec) or accelfit:workloads (a fleet), never both. "
                       "Workload names must be unique; workloads planned on Kubernetes in the same cloud and region "
                       "share one cluster.",
        "type": "object",
        "properties": {
            "accelfit:workloads": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/WorkloadSpec"},
                                   "description": "The fleet's workload specs, in order; names unique."},
            "accelfit:fleet": {"type": "string", "pattern": "^[a-z]([-a-z0-9]{0,35}[a-z0-9])?$",
                               "description": "The fleet's name (labels and prefixes the shared resources); "
                                              "default: the stack's name."},
            "accelfit:selection": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Selection"},
                                   "description": "Written by `accelfit lock`: each workload's locked option, by "
                                                  "workload name."},
        },
        "required": ["accelfit:workloads"],
        "not": {"required": ["accelfit:workload"]},
        "$defs": {"WorkloadSpec": spec, "Selection": selection},
    }
