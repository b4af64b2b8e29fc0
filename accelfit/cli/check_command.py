"""`accelfit check FILE`: validate a workload spec, a stack file or a bare-metal inventory."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
def check(file: Path) -> None:
    """Validate a spec, stack file or inventory; exit 2 with every problem found."""
    from accelfit.spec import load_inventory
    from accelfit.spec.loader import is_stack_document, with_inventory, workload_from_document
    from accelfit.yamlio import read_yaml

    document = read_yaml(file)
    if isinstance(document, dict) and "servers" in document and "kind" not in document:
        inventory = load_inventory(file)
        gpus = sum(server.gpu_count for server in inventory.servers)
        click.echo(f"ok: inventory {inventory.site}: {len(inventory.servers)} servers, {gpus} GPUs")
        return
    spec, prefix = workload_from_document(document, str(file))
    loaded = with_inventory(spec, file, prefix)
    what = "stack file" if is_stack_document(document) else "workload spec"
    line = f"ok: {what} {file}: {spec.name} ({spec.kind.value}, {spec.framework.value}, {spec.model.precision.value})"
    if loaded.inventory is not None:
        line += f"; inventory {loaded.inventory.site} with {len(loaded.inventory.servers)} servers"
    click.echo(line)
