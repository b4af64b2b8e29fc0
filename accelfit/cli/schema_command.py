"""`accelfit schema`: the workload spec (or inventory, or a whole stack file) as JSON Schema, for editors' YAML
language servers and check-jsonschema."""

from __future__ import annotations

import json

import click

JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"


@click.command()
@click.option("--inventory", is_flag=True, help="Print the bare-metal inventory schema instead of the spec's.")
@click.option("--stack-file", "stack_file", is_flag=True,
              help="Print the schema of a whole stack file (stacks/Pulumi.<name>.yaml, single or fleet form: every "
                   "accelfit:* key, the provider keys accelfit reads, {secure: ...} values) instead of the spec's.")
@click.option("--fleet", is_flag=True, help="Print the schema of a whole fleet stack file (accelfit:workloads, "
                                            "accelfit:fleet, the accelfit:selection map) instead of the spec's.")
def schema(inventory: bool, stack_file: bool, fleet: bool) -> None:
    """Print the JSON Schema of the workload spec (a stack's accelfit:workload, or each item of accelfit:workloads)."""
    from accelfit.spec import Inventory, WorkloadSpec

    if inventory + stack_file + fleet > 1:
        from accelfit.errors import InputError, problem

        raise InputError([problem(None, "--stack-file", "--inventory, --stack-file and --fleet print different "
                                  "schemas", "pass one of them")])
    if stack_file or fleet:
        from accelfit.stackschema import stack_file_schema

        document = stack_file_schema("fleet" if fleet else "any")
    else:
        model = Inventory if inventory else WorkloadSpec
        document = model.model_json_schema(mode="validation")
        document["$schema"] = JSON_SCHEMA
        document["title"] = "accelfit bare-metal inventory" if inventory else "accelfit workload spec"
    click.echo(json.dumps(document, indent=2, sort_keys=True))
