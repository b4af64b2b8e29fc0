"""Cross-row and cross-file rules of the catalog data, each broken rule a `Problem` naming file and field path.

Row-level rules (types, ranges, topology x chips) are in the models; these are the rules that need more than
one row: references between files resolve, keys are unique, and related strings agree with each other.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from accelfit.catalog.models import (
    Accelerator,
    Availability,
    EfficiencyFigure,
    InstanceType,
    NotSold,
    Price,
    TpuSlice,
)
from accelfit.catalog.names import fold
from accelfit.clouds import all_clouds, cloud_named, hook
from accelfit.errors import Problem, did_you_mean, problem


_Row = TypeVar("_Row", bound=BaseModel)


@dataclass(frozen=True)
class Located:
    """A validated row and where it came from, so a rule can point at the exact file and field."""

    row: BaseModel
    file: str
    path: str  # e.g. "prices[12]"

    def at(self, field: str, message: str, fix: str, *value: object) -> Problem:
        return problem(self.file, f"{self.path}.{field}" if field else self.path, message, fix, *value)

    def row_as(self, kind: type[_Row]) -> _Row:
        """The row as the model its file is validated with (the loader reads each file with one row model)."""
        if not isinstance(self.row, kind):
            raise AssertionError(f"{self.file}: {self.path} is a {type(self.row).__name__}, not a {kind.__name__}")
        return self.row


def check_integrity(rows: dict[str, list[Located]], rejected: dict[str, set[str]] | None = None) -> list[Problem]:
    """Problems with references and keys between rows. `rejected` holds names claimed by rows that failed
    validation: references to them are not reported again (the row's own problem already is)."""
    rejected = rejected or {}
    bad_chips = rejected.get("accelerators", set())
    bad_skus = bad_chips | rejected.get("instance_types", set()) | rejected.get("tpu_slices", set())
    accelerators = {row.name: row for row in (item.row_as(Accelerator) for item in rows["accelerators"])}
    aliases = _alias_table(rows["accelerators"])
    problems: list[Problem] = []
    problems += _accelerator_rules(rows["accelerators"])
    problems += _instance_rules(_keep(rows["instance_types"], bad_chips, "accelerator"), accelerators, aliases)
    problems += _slice_rules(_keep(rows["tpu_slices"], bad_chips, "accelerator"), accelerators, aliases)
    problems += _price_rules(_keep(rows["prices"], bad_skus, "sku"), rows["instance_types"], accelerators)
    problems += _unique(rows["service_prices"], lambda r: (r.cloud, r.service, r.region), "service",
                        "keep one row per (cloud, service, region)")
    problems += _availability_rules(_keep(rows["availability"], bad_skus, "sku"), rows["instance_types"],
                                    accelerators)
    problems += _not_sold_rules(rows.get("not_sold", []), rows["prices"])
    problems += _efficiency_rules(_keep(rows["efficiency"], bad_chips, "accelerator"), accelerators,
                                  complete=not rejected.get("efficiency"))
    return problems


def _keep(items: list[Located], skip: set[str], field: str) -> list[Located]:
    return [item for item in items if getattr(item.row, field) not in skip] if skip else items


def _alias_table(items: list[Located]) -> dict[str, str]:
    table: dict[str, str] = {}
    for item in items:
        row = item.row_as(Accelerator)
        for alias in (row.name, *row.aliases):
            table.setdefault(fold(alias), row.name)
    return table


def _unique(items: Iterable[Located], key: Callable[[Any], object], field: str, fix: str) -> list[Problem]:
    seen: dict[object, Located] = {}
    problems = []
    for item in items:
        k = key(item.row)
        if k in seen:
            first = seen[k]
            problems.append(item.at(field, f"duplicate row (same key as {first.file}: {first.path})", fix,
                                    getattr(item.row, field)))
        else:
            seen[k] = item
    return problems


def _unknown_accelerator(item: Located, field: str, name: str, accelerators: dict[str, Accelerator]) -> Problem:
    close = did_you_mean(name, accelerators)
    hint = f"did you mean {close!r}? " if close else ""
    return item.at(field, "unknown accelerator", f"{hint}use a canonical name from accelerators.yaml "
                   f"({', '.join(accelerators)})", name)


def _accelerator_rules(items: list[Located]) -> list[Problem]:
    problems = _unique(items, lambda r: r.name, "name", "keep one row per accelerator")
    owner: dict[str, str] = {}
    for item in items:
        row = item.row_as(Accelerator)
        if fold(row.name) != row.name:
            problems.append(item.at("name", "canonical names are lower-case with '-' separators",
                                    f"rename it to {fold(row.name)!r}", row.name))
        if row.kind == "tpu" and row.tensorcores_per_chip is None:
            problems.append(item.at("tensorcores_per_chip", "TPU rows need TensorCores per chip",
                                    "add tensorcores_per_chip (v4/v5p: 2, v5e/v6e: 1)"))
        for index, alias in enumerate(row.aliases):
            previous = owner.setdefault(fold(alias), row.name)
            if previous != row.name:
                problems.append(item.at(f"aliases[{index}]", f"alias already names {previous!r}",
                                        "an alias must name exactly one accelerator; remove it from one row", alias))
        owner.setdefault(fold(row.name), row.name)
    return problems


def _instance_rules(items: list[Located], accelerators: dict[str, Accelerator],
                    aliases: dict[str, str]) -> list[Problem]:
    problems = _unique(items, lambda r: (r.cloud, r.name), "name", "keep one row per (cloud, instance type)")
    for item in items:
        row = item.row_as(InstanceType)
        chip = accelerators.get(row.accelerator)
        if chip is None:
            problems.append(_unknown_accelerator(item, "accelerator", row.accelerator, accelerators))
            continue
        if chip.kind != "gpu":
            problems.append(item.at("accelerator", "instance types carry GPUs; TPUs are tpu_slices",
                                    "move the row to tpu_slices or name a GPU", row.accelerator))
        if row.accelerator_count > chip.max_per_server:
            problems.append(item.at("accelerator_count", f"more than {chip.name}'s max_per_server "
                                    f"({chip.max_per_server})", "fix the count or raise max_per_server in "
                                    "accelerators.yaml", row.accelerator_count))
        if row.efa_interfaces > row.network_cards:
            problems.append(item.at("efa_interfaces", f"more EFA interfaces than network cards ({row.network_cards})",
                                    "EFA interfaces go one per network card; fix either count", row.efa_interfaces))
        problems += _accelerator_field_rules(item, row, aliases)
    return problems


def _accelerator_field_rules(item: Located, row: InstanceType, aliases: dict[str, str]) -> list[Problem]:
    """Rows of a cloud whose machine types carry the GKE accelerator string (GCP) name it, and it names the row's
    accelerator; every other cloud's rows leave it, GPUDirect and extra networks out
    (Cloud.instance_accelerator_fields)."""
    cloud = cloud_named(row.cloud)
    if cloud.instance_accelerator_fields:
        if row.gke_accelerator is None:
            return [item.at("gke_accelerator", f"{cloud.title} machine types need their accelerator string",
                            "add the GCE/GKE string, e.g. nvidia-h100-80gb")]
        if aliases.get(fold(row.gke_accelerator)) != row.accelerator:
            return [item.at("gke_accelerator", f"does not name {row.accelerator} in accelerators.yaml",
                            f"add it to {row.accelerator}'s aliases or fix the string", row.gke_accelerator)]
    elif row.gke_accelerator is not None or row.gpudirect != "none" or row.extra_networks:
        owners = "/".join(c.title for c in all_clouds() if c.instance_accelerator_fields)
        return [item.at("gke_accelerator", f"gke_accelerator, gpudirect and extra_networks are {owners}-only",
                        f"remove them from {cloud.title} rows")]
    return []


def _sells_tpus(cloud: str) -> bool:
    return bool(cloud_named(cloud).tpu_platforms)


def _slice_rules(items: list[Located], accelerators: dict[str, Accelerator],
                 aliases: dict[str, str]) -> list[Problem]:
    problems = _unique(items, lambda r: r.name, "name", "keep one row per Cloud TPU accelerator type")
    first_of_generation: dict[str, TpuSlice] = {}
    for item in items:
        row = item.row_as(TpuSlice)
        chip = accelerators.get(row.accelerator)
        if chip is None:
            problems.append(_unknown_accelerator(item, "accelerator", row.accelerator, accelerators))
            continue
        if chip.kind != "tpu":
            problems.append(item.at("accelerator", "TPU slices need a TPU generation",
                                    "name a tpu-* accelerator", row.accelerator))
            continue
        if row.chips_per_host > chip.max_per_server:
            problems.append(item.at("chips_per_host", f"more than {chip.name}'s max_per_server ({chip.max_per_server})",
                                    "fix chips_per_host or max_per_server", row.chips_per_host))
        # Cloud TPU names count TensorCores (v4, v5p: 2 per chip) or chips (v5e, v6e: 1 per chip).
        expected_suffix = row.chips * (chip.tensorcores_per_chip or 1)
        if not row.name.endswith(f"-{expected_suffix}"):
            problems.append(item.at("name", f"should end in -{expected_suffix} ({row.chips} chips x "
                                    f"{chip.tensorcores_per_chip} TensorCores)", "fix the name or the chip count",
                                    row.name))
        if aliases.get(fold(row.gke_accelerator)) != row.accelerator:
            problems.append(item.at("gke_accelerator", f"does not name {row.accelerator} in accelerators.yaml",
                                    f"add it to {row.accelerator}'s aliases or fix the label", row.gke_accelerator))
        first = first_of_generation.setdefault(row.accelerator, row)
        if row.accelerator_config_type != first.accelerator_config_type:
            problems.append(item.at("accelerator_config_type", f"differs from {first.name} "
                                    f"({first.accelerator_config_type})", "one generation has one config type",
                                    row.accelerator_config_type))
        if _machine_family(row.gke_machine_type) != _machine_family(first.gke_machine_type):
            problems.append(item.at("gke_machine_type", f"not in the machine family of {first.name} "
                                    f"({first.gke_machine_type})", "use the generation's machine family",
                                    row.gke_machine_type))
    return problems


def _machine_family(machine_type: str) -> str:
    """'ct5lp-hightpu-4t' -> 'ct5lp-hightpu': the part that names the TPU generation."""
    return machine_type.rsplit("-", 1)[0]


def _price_rules(items: list[Located], instance_items: list[Located],
                 accelerators: dict[str, Accelerator]) -> list[Problem]:
    problems = _unique(items, lambda r: (r.cloud, r.sku, r.region, r.pricing), "pricing",
                       "keep one row per (cloud, sku, region, pricing)")
    instance_regions = {(row.cloud, row.name): set(row.regions)
                        for row in (item.row_as(InstanceType) for item in instance_items)}
    for item in items:
        row = item.row_as(Price)
        if row.unit == "instance-hour":
            regions = instance_regions.get((row.cloud, row.sku))
            if regions is None:
                known = [name for cloud, name in instance_regions if cloud == row.cloud]
                close = did_you_mean(row.sku, known)
                problems.append(item.at("sku", f"no {row.cloud.value} instance type of that name",
                                        (f"did you mean {close!r}? " if close else "") +
                                        "add the instance type or fix the name", row.sku))
                continue
        else:
            chip = accelerators.get(row.sku)
            if chip is None or chip.kind != "tpu" or not _sells_tpus(row.cloud):
                tpu_clouds = " or ".join(cloud.name for cloud in all_clouds() if cloud.tpu_platforms)
                problems.append(item.at("sku", f"chip-hour prices name a TPU generation on {tpu_clouds}",
                                        f"use a tpu-* name from accelerators.yaml with cloud {tpu_clouds}", row.sku))
            # A TPU price for a region says nothing about its zones: where a generation can be created is
            # availability's job (tpu_availability.yaml), so a price may cover a region none lists.
            continue
        if row.region not in regions:
            problems.append(item.at("region", f"the availability data does not list {row.sku} there, so this price "
                                    "is not an offer", f"add the region to the availability data (with its source) "
                                    f"or use one of: {', '.join(sorted(regions))}",
                                    row.region))
    return problems


def _availability_rules(items: list[Located], instance_items: list[Located],
                        accelerators: dict[str, Accelerator]) -> list[Problem]:
    """Availability rows name a known SKU, GCP zones lie in their region, and every GPU type is offered somewhere."""
    problems = _unique(items, lambda r: (r.cloud, r.sku, r.region), "region",
                       "keep one row per (cloud, sku, region) and list its zones in it")
    instances = {(row.cloud, row.name) for row in (item.row_as(InstanceType) for item in instance_items)}
    covered: set[tuple[object, str]] = set()
    for item in items:
        row = item.row_as(Availability)
        chip = accelerators.get(row.sku)
        if (row.cloud, row.sku) in instances:
            covered.add((row.cloud, row.sku))
        elif not (chip is not None and chip.kind == "tpu" and _sells_tpus(row.cloud)):
            known = [name for cloud, name in instances if cloud == row.cloud]
            close = did_you_mean(row.sku, known)
            problems.append(item.at("sku", f"no {row.cloud.value} instance type or TPU generation of that name",
                                    (f"did you mean {close!r}? " if close else "") +
                                    "add the instance type or fix the name", row.sku))
        problems += _cloud_availability_rules(item, row)
    for item in instance_items:
        instance = item.row_as(InstanceType)
        if (instance.cloud, instance.name) not in covered:
            problems.append(item.at("name", "no availability row lists this instance type anywhere",
                                    "add its regions (and zones) to gpu_availability.yaml with a source",
                                    instance.name))
    return problems


def _cloud_availability_rules(item: Located, row: Availability) -> list[Problem]:
    """The row's cloud's own rules: listed zone names lie in their region (Cloud.listed_zones_are_names: GCP's
    <region>-<letter>), and the cloud's row check (Cloud.availability_row_check: AWS's source rule,
    accelfit/catalog/aws_rows.py)."""
    cloud = cloud_named(row.cloud)
    problems = [item.at(f"zones[{index}]", f"not a zone of {row.region}",
                        f"{cloud.title} zones are <region>-<letter>, e.g. {row.region}-a", zone)
                for index, zone in enumerate(row.zones)
                if cloud.listed_zones_are_names and zone.rsplit("-", 1)[0] != row.region]
    if cloud.availability_row_check:
        problems += hook(cloud.availability_row_check)(item)
    return problems


def _efficiency_rules(items: list[Located], accelerators: dict[str, Accelerator], complete: bool) -> list[Problem]:
    problems = _unique(items, lambda r: r.accelerator, "accelerator", "keep one MFU row per accelerator")
    for item in items:
        row = item.row_as(EfficiencyFigure)
        if row.accelerator not in accelerators:
            problems.append(_unknown_accelerator(item, "accelerator", row.accelerator, accelerators))
    covered = Counter(item.row_as(EfficiencyFigure).accelerator for item in items)
    for name in accelerators:
        if not covered[name] and items and complete:
            problems.append(problem(items[0].file, "efficiency", f"no MFU figure for {name!r}",
                                    f"add an efficiency row for {name} (the planner sizes training with it)"))
    return problems



# A "not sold this way" fact must say where it was read: a page (URL) or a repository file at a commit.
_CITES_DOCUMENT = re.compile(r"https?://|[\w.-]+/[\w.-]+ \S+ @[0-9a-f]{7,40}")


def _not_sold_rules(items: list[Located], prices: list[Located]) -> list[Problem]:
    """A not-sold row cites its document, and no price row contradicts it (a price for a way the cloud does not
    sell is a placeholder or a mixed-up SKU upstream; keep the one the cloud's own documentation supports)."""
    priced_regions: dict[tuple[object, str, object], set[str]] = {}
    for price in (item.row_as(Price) for item in prices):
        priced_regions.setdefault((price.cloud, price.sku, price.pricing), set()).add(price.region)
    problems: list[Problem] = []
    for item in items:
        rule = item.row_as(NotSold)
        way = f"{rule.sku} {rule.pricing.value}"
        if not _CITES_DOCUMENT.search(rule.source):
            problems.append(item.at("source", f"not-sold rule for {way} names no document: {rule.source!r}",
                                    "cite the cloud's page (https://...) or a repository file at a commit "
                                    "(owner/repo path @commit) that says how the SKU is sold"))
        clash = sorted(region for region in priced_regions.get((rule.cloud, rule.sku, rule.pricing), ())
                       if rule.covers(region))
        if clash:
            problems.append(item.at("pricing", f"{rule.sku} is recorded as not sold {rule.pricing.value}, but a "
                                    f"price row has a {rule.pricing.value} price for it in {', '.join(clash)}",
                                    "remove the price rows (an upstream placeholder) or narrow this rule's regions"))
    return problems
