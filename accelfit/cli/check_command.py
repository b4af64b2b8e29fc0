"""`accelfit check FILE`: validate a workload spec, a stack file or a bare-metal inventory.

A stack file gets every check `plan --stack`, `lock` and `preview` make before they build anything: the same
loader (config keys, team, cost center, environment, the locked selection, the workloads, the stack's region) and the
same planning with the same stack rules after it (accelfit.stackrules: provider config, cloud rules, EKS and GKE
API access, team namespaces, bare-metal join settings), so `check` never says ok to a stack one of them refuses.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from accelfit.errors import EXIT_POLICY_OR_INFEASIBLE, InputError, problem

if TYPE_CHECKING:
    from accelfit.stackfile import StackFile


def _looks_like_inventory(document: Any) -> bool:
    return isinstance(document, dict) and ("servers" in document or "site" in document) and not (
        {"kind", "model", "name"} & set(document))


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--simulate", is_flag=True, help="A stack file: also replay a day of each serving workload's traffic, "
              "as `plan --simulate` does; exit 1 when a simulated p99 misses its target.")
@click.pass_context
def check(ctx: click.Context, file: Path, simulate: bool) -> None:
    """Validate a spec, stack file or inventory; exit 2 with every problem found (1 when a stack has no plan)."""
    from accelfit.spec.inventory import Inventory
    from accelfit.spec.loader import with_inventory, workload_from_document
    from accelfit.stackfile import stack_name_of
    from accelfit.validation import validate
    from accelfit.yamlio import read_yaml

    document = read_yaml(file)
    name = stack_name_of(file)
    if name is not None or (isinstance(document, dict) and "config" in document):
        _check_stack(ctx, file, name, simulate)
        return
    if simulate:
        raise InputError([problem(str(file), "--simulate", "only a stack file is simulated here",
                                  "run `accelfit plan SPEC --simulate` for a spec file, or drop --simulate")])
    if _looks_like_inventory(document):
        # What load_inventory does, on the document already read: a 10,000-server file is not parsed twice.
        inventory = validate(Inventory, document, str(file))
        gpus = sum(server.gpu_count for server in inventory.servers)
        click.echo(f"ok: inventory {inventory.site}: {len(inventory.servers)} servers, {gpus} GPUs")
        return
    spec, prefix = workload_from_document(document, str(file))
    loaded = with_inventory(spec, file, prefix)
    line = f"ok: workload spec {file}: {spec.name} ({spec.kind.value}, {spec.framework.value}, " \
           f"{spec.model.precision.value})"
    if loaded.inventory is not None:
        line += f"; inventory {loaded.inventory.site} with {len(loaded.inventory.servers)} servers"
    click.echo(line)


def _check_stack(ctx: click.Context, file: Path, name: str | None, simulate: bool = False) -> None:
    from accelfit.catalog import load_catalog
    from accelfit.stack_plan import plan_stack_fleet, single_view
    from accelfit.planner import NoFeasiblePlan
    from accelfit.stackfile import find_project_dir, load_stack_file

    if name is None:
        raise InputError([problem(str(file), "", "a stack file is named Pulumi.<stack>.yaml",
                                  "rename it, e.g. stacks/Pulumi.dev.yaml")])
    stack = load_stack_file(file, name, find_project_dir(file.parent))
    if simulate:
        from accelfit.cli.simulated_check import require_serving

        require_serving(list(stack.specs), str(file))
    for warning in stack.warnings:
        click.echo(f"warning: {warning}", err=True)
    if stack.is_fleet:
        _check_fleet(ctx, file, stack, simulate)
        return
    catalog = load_catalog()
    try:
        fleet, locks = plan_stack_fleet(stack, catalog)
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan for {file}: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    plan, lock = single_view(fleet, locks)
    spec = stack.spec
    click.echo(f"ok: stack file {file}: {spec.name} ({spec.kind.value}, {spec.framework.value}, "
               f"{spec.model.precision.value}) in {stack.environment}; plans {plan.option} ({lock_words(lock.state)})")
    if simulate:
        from accelfit.cli.simulated_check import simulate_planned

        simulate_planned(ctx, [(spec, fleet.workloads[0].plan, None)], str(file), as_json=False)


# What each lock state means for the plan just shown, in words (the states are `none`, `used`, `stale`).
LOCK_WORDS = {"none": "not locked: a fresh plan; `accelfit lock` pins it",
              "used": "the locked selection",
              "stale": "the locked selection no longer fits: a fresh plan instead"}


def lock_words(state: str) -> str:
    return LOCK_WORDS.get(state, f"lock {state}")


def _check_fleet(ctx: click.Context, file: Path, stack: StackFile, simulate: bool = False) -> None:
    """A fleet stack: every workload plans (with its lock) and the fleet meets every stack rule."""
    from accelfit.catalog import load_catalog
    from accelfit.stack_plan import plan_stack_fleet
    from accelfit.planner import NoFeasiblePlan

    catalog = load_catalog()
    try:
        fleet, locks = plan_stack_fleet(stack, catalog)
    except NoFeasiblePlan as failure:
        click.echo(f"no feasible plan for {file}: {failure.message}", err=True)
        ctx.exit(EXIT_POLICY_OR_INFEASIBLE)
        return
    click.echo(f"ok: fleet stack {file}: fleet {fleet.name} in {stack.environment}, {len(fleet.workloads)} "
               f"workloads in {len(fleet.clusters)} shared cluster{'s' if len(fleet.clusters) != 1 else ''}")
    for member in fleet.workloads:
        spec = member.plan
        click.echo(f"  {member.name} ({spec.kind}, {spec.framework}): plans {spec.option} "
                   f"({lock_words(locks[member.name].state)}); {member.placement}")
    if simulate:
        from accelfit.cli.simulated_check import simulate_planned

        specs = {spec.name: spec for spec in stack.specs}
        simulate_planned(ctx, [(specs[member.name], member.plan, None) for member in fleet.workloads], str(file),
                         as_json=False)
