"""`accelfit catalog`: list accelerators, GPU instance types and TPU slices with dated prices; `--coverage` shows
what is priced; `accelfit catalog update` imports SkyPilot's catalog."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from accelfit.errors import InputError, did_you_mean, problem

if TYPE_CHECKING:
    from accelfit.catalog import Catalog


class _CloudWithCatalog(click.Choice[str]):
    """The registered clouds with catalog rows (`Cloud.has_catalog`), read from the registry whenever the option is
    shown or checked, so a cloud registered after this module loads (a plug-in, a test's) is a choice too."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from accelfit.clouds import all_clouds

        return tuple(cloud.name for cloud in all_clouds() if cloud.has_catalog)

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        # click.Choice.__init__ assigns the empty tuple given above; the registry answers from then on, so any other
        # assignment is refused rather than silently lost.
        if tuple(value):
            raise AttributeError("the catalog's clouds come from the registry (Cloud.has_catalog)")


@click.group(invoke_without_command=True)
@click.option("--cloud", type=_CloudWithCatalog(), help="Only offerings on this cloud.")
@click.option("--accelerator", "accelerator", metavar="NAME", help="Only this accelerator (aliases such as H100 or v5p ok).")
@click.option("--region", metavar="REGION", help="Only offerings (and prices) in this region, e.g. us-central1.")
@click.option("--kind", type=click.Choice(["gpu", "tpu"]), help="Only GPUs or only TPUs.")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON document instead of tables.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print markdown tables.")
@click.option("--coverage", "show_coverage", is_flag=True,
              help="Show what is priced and what is not, per cloud and pricing model.")
@click.pass_context
def catalog(ctx: click.Context, cloud: str | None, accelerator: str | None, region: str | None, kind: str | None,
            as_json: bool, as_markdown: bool, show_coverage: bool) -> None:
    """List the catalog: accelerators, instance types and TPU slices, each price with its date and source.

    The catalog is the shipped snapshot, or the one `accelfit catalog update` imported when present; the first
    line says which."""
    if ctx.invoked_subcommand is not None:
        return
    # Imported here so `accelfit --help` and other commands do not pay for loading the catalog.
    from accelfit.catalog import Cloud, load_catalog
    from accelfit.reports.catalog_report import (
        CatalogFilter,
        catalog_document,
        render_catalog_markdown,
        render_catalog_text,
    )

    if as_json and as_markdown:
        raise click.UsageError("--json and --markdown are exclusive; pick one")
    data = load_catalog()
    if show_coverage:
        from accelfit.reports.coverage_report import coverage_document, render_coverage

        if as_json:
            click.echo(json.dumps(coverage_document(data), indent=2))
        else:
            click.echo(render_coverage(data, markdown=as_markdown))
        return
    filters = CatalogFilter(
        cloud=Cloud(cloud) if cloud else None,
        accelerator=_resolve_accelerator(data, accelerator),
        region=_check_region(data, region),
        kind=kind,
    )
    label = data.label
    if as_json:
        document = catalog_document(data, filters)
        document["catalog"] = data.origin.model_dump(mode="json") if data.origin else None
        click.echo(json.dumps(document, indent=2))
    elif as_markdown:
        click.echo(f"**Catalog:** {label}\n\n" + render_catalog_markdown(data, filters))
    else:
        click.echo(f"Catalog: {label}\n\n" + render_catalog_text(data, filters))


def _resolve_accelerator(data: Catalog, name: str | None) -> str | None:
    """Canonical name for --accelerator; an unknown name is invalid input (exit 2) with a suggestion."""
    if name is None:
        return None
    from accelfit.catalog import UnknownAcceleratorError

    try:
        return data.canonical(name)
    except UnknownAcceleratorError as error:
        hint = f"did you mean {error.suggestion!r}? " if error.suggestion else ""
        raise InputError([problem(None, "--accelerator", "unknown accelerator",
                                  f"{hint}use one of: {', '.join(error.known)}", name)]) from None


def _check_region(data: Catalog, region: str | None) -> str | None:
    """--region must be a region some offering lists; a typo would otherwise print an empty catalog."""
    if region is None:
        return None
    known = ({r for row in data.instance_types for r in row.regions}
             | {row.region for row in data.availability})
    if region not in known:
        close = did_you_mean(region, known)
        hint = f"did you mean {close!r}? " if close else ""
        raise InputError([problem(None, "--region", "no catalog offering in that region",
                                  f"{hint}use a region such as us-central1 or us-east-1 (zones are not regions)",
                                  region)])
    return region


@catalog.command("update")
@click.option("--from", "source", metavar="DIR|URL", default=None,
              help="A catalogs/v8 directory or https URL holding aws/vms.csv and gcp/vms.csv "
                   "(default: SkyPilot's published catalog).")
@click.option("--json", "as_json", is_flag=True, help="Print the import summary as JSON.")
def update(source: str | None, as_json: bool) -> None:
    """Import prices and availability from SkyPilot's catalog (layout v8) into $ACCELFIT_CATALOG_DIR.

    Plans and previews use the imported catalog from then on; a failed import leaves the previous one in place."""
    from accelfit.catalog.update import DEFAULT_SOURCE, update_catalog
    from accelfit.reports.update_report import render_update, update_document

    summary = update_catalog(source or DEFAULT_SOURCE)
    click.echo(json.dumps(update_document(summary), indent=2) if as_json else render_update(summary))
