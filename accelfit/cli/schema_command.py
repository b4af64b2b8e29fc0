"""`accelfit schema`: the workload spec (or inventory) as JSON Schema, for editors' YAML language servers."""

from __future__ import annotations

import json

import click


@click.command()
@click.option("--inventory", is_flag=True, help="Print the bare-metal inventory schema instead of the spec's.")
def schema(inventory: bool) -> None:
    """Print the JSON Schema of the workload spec."""
    from accelfit.spec import Inventory, WorkloadSpec

    model = Inventory if inventory else WorkloadSpec
    document = model.model_json_schema(mode="validation")
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "accelfit bare-metal inventory" if inventory else "accelfit workload spec"
    click.echo(json.dumps(document, indent=2, sort_keys=True))
