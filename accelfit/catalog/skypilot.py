"""Read SkyPilot's published catalog (schema v8: `aws/vms.csv`, `gcp/vms.csv`) into accelfit price and availability
rows for the GPU types and TPU generations the shipped catalog describes. Pure: CSV text in, rows out.

Upstream layout, confirmed in skypilot-org/skypilot `sky/catalog/data_fetchers/fetch_aws.py` and `fetch_gcp.py`
(read 2026-11-23) and in skypilot-catalog `catalogs/v8` (aws @00148f2a, gcp @006059e0):
- aws/vms.csv: InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region,
  AvailabilityZone, Arch. One row per instance type x availability zone. AvailabilityZone is the AZ *ID*
  (use1-az1, the same for every account); the rows come from EC2 DescribeInstanceTypeOfferings joined with the
  Price List API (on-demand, Linux, shared tenancy; empty when the type has no on-demand price) and the current
  spot price of that AZ (empty when none).
- gcp/vms.csv: InstanceType, vCPUs, MemoryGiB, AcceleratorName, AcceleratorCount, GpuInfo, Region,
  AvailabilityZone, Price, SpotPrice. Prices are split: a VM row (InstanceType set, no accelerator) prices the
  machine's vCPU and memory, a GPU row (InstanceType empty, AcceleratorName e.g. H100, AcceleratorCount 8) prices
  the GPUs, so an A2/A3/A4/G2 machine costs VM row + GPU row of the same zone. VM rows come from the Compute API's
  per-zone machine-type list, GPU rows from its per-zone accelerator-type list. TPU rows have AcceleratorName
  `tpu-<version>-<size>` and price the whole slice (v4/v5p sizes count TensorCores, 2 per chip; v5litepod/v6e
  sizes count chips); their zones come from the Cloud TPU API.
- "No price" placeholders: an empty or NaN cell, 0.0 (a4-highgpu-8g), and 700 on TPU rows (fetch_gcp.py sets
  TPU_V6E_MAX_PRICE = 700 for a v6e slice whose SKU it could not find).

What is imported: availability (zones per region) and on-demand and spot prices per region, for instance types
accelfit already describes (their NVMe, network, EFA and GPUDirect facts are not in the upstream file) and for
TPU generations in regions where the catalog has TPU slice shapes. Everything else is counted as skipped and
reported, never guessed. Regional price: the on-demand list price (the same in every zone); spot: the highest
zone's price, so a budget built on it holds in any zone, ignoring AWS local zones and figures above on-demand.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from accelfit.catalog.models import Availability, Catalog, Cloud, InstanceType, Price, PricingModel
from accelfit.errors import Problem, problem

AWS_FILE = "aws/vms.csv"
GCP_FILE = "gcp/vms.csv"
AWS_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region",
               "AvailabilityZone")
GCP_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Region", "AvailabilityZone", "Price",
               "SpotPrice")

# A GCP GPU row whose spot figure is this close to (or above) its on-demand figure mixes SKUs (the upstream
# fetcher takes the first SKU whose description matches, which can be a DWS/flex-start SKU): Google prices GPU
# Spot VMs well below on demand, so neither figure of such a row is imported.
_GPU_SPOT_TOO_CLOSE = 0.8
# fetch_gcp.py: "Maximum price for TPU V6e is $691.2/hour. Here we set a higher price" for a missing price.
_TPU_NO_PRICE_USD = 700.0
# Bounds of a believable hourly figure (USD per instance, per chip, or per whole TPU slice upstream): the largest
# TPU slices list about 40,000 USD/h (v5p, 8,960 chips x 4.20 USD, cloud.google.com/tpu/pricing as of 2026-11-23),
# the smallest instances cost a few tenths of a cent. Outside these, the file is damaged.
MAX_HOURLY_USD = 100_000.0
MIN_HOURLY_USD = 1e-4
# The longest cell of the upstream files is a GpuInfo JSON of a few hundred characters.
MAX_CELL_CHARS = 131_072  # the csv module's own default field_size_limit, left as it is
LINE = "\0line"  # the row's line number, stored in the row dict under a name no header can have
# Standard AWS AZ IDs (use1-az1); local and Wavelength zones (use1-atl2-az1) are not where EKS node groups go.
_AWS_STANDARD_AZ = re.compile(r"^[a-z]+[0-9]+-az[0-9]+\Z")
# TPU generation and how many units of the slice-size suffix make one chip (Cloud TPU naming).
_TPU_GENERATIONS = {"v4": ("tpu-v4", 2), "v5p": ("tpu-v5p", 2), "v5litepod": ("tpu-v5e", 1), "v6e": ("tpu-v6e", 1)}


@dataclass
class ImportResult:
    """Rows read from one upstream file and what was left out, with the reason."""

    prices: list[Price] = field(default_factory=list)
    availability: list[Availability] = field(default_factory=list)
    skipped: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # reason -> names
    rows_read: int = 0

    def skip(self, reason: str, name: str) -> None:
        self.skipped[reason].add(name)


@dataclass(frozen=True)
class Provenance:
    """Date and source stamped on every imported row."""

    as_of: dt.date
    source: str  # e.g. "skypilot-catalog v8 aws/vms.csv from https://... (sha256 0123abcd...)"


def read_rows(text: str, file: str, required: Iterable[str]) -> tuple[list[dict[str, str]], list[Problem]]:
    """The CSV's rows as dicts (with their line number under LINE), or the problems that stop reading it: a header
    without a required column, a row with fewer cells than the header (a short row, or an unterminated quote that
    swallowed the rest of the file), a cell longer than any catalog cell, or text the csv module cannot split."""
    required = tuple(required)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
    except csv.Error as error:
        return [], [_csv_problem(file, 1, error)]
    missing = [column for column in required if column not in header]
    if missing:
        return [], [problem(file, "header", f"not a SkyPilot catalog v8 file: no column {', '.join(missing)}",
                            "point --from at the catalogs/v8 directory (it holds aws/vms.csv and gcp/vms.csv)")]
    rows: list[dict[str, str]] = []
    problems: list[Problem] = []
    try:
        for row in reader:
            line = reader.line_num
            short = [column for column in required if row.get(column) is None]
            if short:
                problems.append(problem(file, f"line {line}", f"the row has fewer cells than the header (no "
                                        f"{short[0]}): a short row or an unterminated quote",
                                        "re-download the file; every row has one cell per header column"))
                if len(problems) >= 20:
                    break
                continue
            row[LINE] = str(line)
            rows.append(row)
    except csv.Error as error:
        problems.append(_csv_problem(file, reader.line_num, error))
    return rows, problems


def _csv_problem(file: str, line: int, error: csv.Error) -> Problem:
    return problem(file, f"line {line}", f"not readable as CSV ({error})",
                   "re-download the file: SkyPilot's catalog is comma-separated with LF or CRLF line endings and "
                   f"cells of at most {MAX_CELL_CHARS:,} characters")


def price_cell(text: str | None) -> float | None:
    """A price, or None for the upstream "no price" forms: empty, NaN, not a number, 0 or less. A price no cloud
    charges (infinite either way, above MAX_HOURLY_USD, or positive but under MIN_HOURLY_USD) raises ValueError: such a file
    is damaged, and importing it would make every plan cost Infinity or nothing."""
    try:
        value = float(text) if text else math.nan  # None and "" are the upstream "no price"
    except ValueError:
        return None
    if math.isnan(value) or 0 >= value > -math.inf:  # upstream's "no price": NaN, 0 (or a negative figure)
        return None
    if not math.isfinite(value) or value > MAX_HOURLY_USD or value < MIN_HOURLY_USD:
        raise ValueError(f"price {text!r} is not a price any cloud charges per hour (expected "
                         f"{MIN_HOURLY_USD:g} to {MAX_HOURLY_USD:,.0f} USD)")
    return value


def _prices(row: dict[str, str], file: str, problems: list[Problem]) -> tuple[float | None, float | None]:
    """(Price, SpotPrice) of a row; an absurd figure becomes a problem naming the line and column."""
    out: list[float | None] = []
    for column in ("Price", "SpotPrice"):
        try:
            out.append(price_cell(row[column]))
        except ValueError as error:
            problems.append(problem(file, f"line {row[LINE]}.{column}", str(error),
                                    "re-download the file; the import is refused and the installed catalog is "
                                    "unchanged"))
            out.append(None)
    return out[0], out[1]


def import_aws(text: str, catalog: Catalog, provenance: Provenance) -> tuple[ImportResult, list[Problem]]:
    rows, problems = read_rows(text, AWS_FILE, AWS_COLUMNS)
    result = ImportResult(rows_read=len(rows))
    zones: dict[tuple[str, str], set[str]] = defaultdict(set)
    on_demand: dict[tuple[str, str], set[float]] = defaultdict(set)
    spot: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        number = int(row[LINE])
        name, accelerator = row["InstanceType"], row["AcceleratorName"]
        instance = catalog.instance_type(Cloud.aws, name)
        if instance is None:
            if accelerator and _is_gpu(catalog, accelerator):
                result.skip("GPU instance type accelfit has no hardware description for (NVMe, network, EFA)", name)
            continue
        problems.extend(_same_accelerator(catalog, instance, accelerator, row["AcceleratorCount"], AWS_FILE, number))
        zone, region = row["AvailabilityZone"], row["Region"]
        if not _AWS_STANDARD_AZ.match(zone):
            result.skip("AWS local or Wavelength zone (not used for EKS node groups)", f"{name} {zone}")
            continue
        zones[(name, region)].add(zone)
        price, spot_price = _prices(row, AWS_FILE, problems)
        if price is not None:
            on_demand[(name, region)].add(price)
        if spot_price is not None:
            spot[(name, region)].append(spot_price)
    for (name, region), listed in sorted(zones.items()):
        result.availability.append(_availability(Cloud.aws, name, region, listed, provenance,
                                                 "zones are AZ IDs from EC2 DescribeInstanceTypeOfferings"))
        _add_prices(result, Cloud.aws, name, region, "instance-hour", on_demand.get((name, region), set()),
                    spot.get((name, region), []), provenance)
    _drop_not_sold(catalog, result)
    return result, problems


def import_gcp(text: str, catalog: Catalog, provenance: Provenance) -> tuple[ImportResult, list[Problem]]:
    rows, problems = read_rows(text, GCP_FILE, GCP_COLUMNS)
    result = ImportResult(rows_read=len(rows))
    vm_rows: dict[str, dict[str, tuple[str, float | None, float | None]]] = defaultdict(dict)  # type -> zone -> ...
    gpu_rows: dict[tuple[str, int, str], tuple[float | None, float | None]] = {}
    tpu_rows: list[tuple[str, int, str, str, float | None, float | None]] = []
    for row in rows:
        name, accelerator, zone = row["InstanceType"], row["AcceleratorName"], row["AvailabilityZone"]
        prices = _prices(row, GCP_FILE, problems)
        if name:
            if catalog.instance_type(Cloud.gcp, name) is not None:
                vm_rows[name][zone] = (row["Region"], *prices)
            elif name.split("-")[0] in ("a2", "a3", "a4", "g2"):
                result.skip("GPU machine type accelfit has no hardware description for", name)
        elif accelerator.startswith("tpu-"):
            parsed = _tpu_slice(accelerator)
            if parsed is None:
                result.skip("TPU type accelfit does not know", accelerator)
                continue
            generation, chips = parsed
            tpu_rows.append((generation, chips, row["Region"], zone, *_tpu_prices(prices)))
        elif accelerator:
            gpu_rows[(accelerator.upper(), _count(row["AcceleratorCount"]), zone)] = prices
    _gcp_machines(catalog, vm_rows, gpu_rows, result, provenance)
    _gcp_tpus(catalog, tpu_rows, result, provenance)
    _drop_not_sold(catalog, result)
    return result, problems


def gpu_row_name(gke_accelerator: str) -> str:
    """The AcceleratorName fetch_gcp.py writes for a Compute accelerator type (its `_get_gpus_for_zone` rules):
    nvidia-tesla-a100 -> A100, nvidia-a100-80gb -> A100-80GB, nvidia-h100-80gb -> H100, nvidia-h100-mega-80gb ->
    H100-MEGA, nvidia-h200-141gb -> H200, nvidia-b200 -> B200, nvidia-l4 -> L4."""
    name = gke_accelerator.replace("nvidia-", "").replace("tesla-", "").upper()
    for family in ("H100-MEGA", "H200", "B200"):
        if family in name:
            return family
    return "H100" if "H100-80GB" in name else name


def _gcp_machines(catalog: Catalog, vm_rows: dict[str, dict[str, tuple[str, float | None, float | None]]],
                 gpu_rows: dict[tuple[str, int, str], tuple[float | None, float | None]], result: ImportResult,
                  provenance: Provenance) -> None:
    """A machine is offered in the zones its VM row lists; its price is VM part + GPU part of the same zone."""
    for name, by_zone in sorted(vm_rows.items()):
        instance = catalog.instance_type(Cloud.gcp, name)
        assert instance is not None and instance.gke_accelerator is not None
        gpu_key = (gpu_row_name(instance.gke_accelerator), instance.accelerator_count)
        regions: dict[str, set[str]] = defaultdict(set)
        on_demand: dict[str, set[float]] = defaultdict(set)
        spot: dict[str, list[float]] = defaultdict(list)
        for zone, (region, vm_price, vm_spot) in by_zone.items():
            regions[region].add(zone)
            gpu_price, gpu_spot = gpu_rows.get((*gpu_key, zone), (None, None))
            if gpu_price is not None and gpu_spot is not None and gpu_spot >= _GPU_SPOT_TOO_CLOSE * gpu_price:
                result.skip("GCP GPU row with spot at 80% or more of on-demand (mixed-up upstream SKUs)",
                            f"{gpu_key[0]} x{gpu_key[1]} {region}")
                continue
            if gpu_price is None and gpu_spot is None:
                result.skip("GCP machine zone without a priced GPU row (upstream placeholder or missing SKU)",
                            f"{name} {zone}")
            if vm_price is not None and gpu_price is not None:
                on_demand[region].add(round(vm_price + gpu_price, 5))
            if vm_spot is not None and gpu_spot is not None:
                spot[region].append(round(vm_spot + gpu_spot, 5))
        for region, zones in sorted(regions.items()):
            result.availability.append(_availability(
                Cloud.gcp, name, region, zones, provenance, "zones from the Compute API machine-type list per zone"))
            _add_prices(result, Cloud.gcp, name, region, "instance-hour", on_demand.get(region, set()),
                        spot.get(region, []), provenance)


def _gcp_tpus(catalog: Catalog, tpu_rows: list[tuple[str, int, str, str, float | None, float | None]],
              result: ImportResult, provenance: Provenance) -> None:
    """Chip-hour prices from the smallest priced slice per region; zones per generation and region."""
    zones: dict[tuple[str, str], set[str]] = defaultdict(set)
    cheapest: dict[tuple[str, str], tuple[int, float | None, float | None]] = {}
    for generation, chips, region, zone, price, spot_price in tpu_rows:
        zones[(generation, region)].add(zone)
        per_chip = (None if price is None else price / chips, None if spot_price is None else spot_price / chips)
        known = cheapest.get((generation, region))
        if per_chip != (None, None) and (known is None or chips < known[0]):
            cheapest[(generation, region)] = (chips, *per_chip)
    # Slice shapes are per generation, not per zone (where a generation runs is availability data), so any
    # region of a generation accelfit has shapes for is one it can plan.
    shaped = {row.accelerator for row in catalog.tpu_slices}
    offered = {(generation, region) for generation, region in zones if generation in shaped}
    for (generation, region), listed in sorted(zones.items()):
        result.availability.append(_availability(Cloud.gcp, generation, region, listed, provenance,
                                                 "zones from the Cloud TPU API accelerator-type list per zone"))
        if (generation, region) not in offered:
            result.skip("TPU region where accelfit has no slice shapes (prices not imported)",
                        f"{generation} {region}")
            continue
        _, price, spot_price = cheapest.get((generation, region), (0, None, None))
        _add_prices(result, Cloud.gcp, generation, region, "chip-hour",
                    {round(price, 6)} if price else set(), [round(spot_price, 6)] if spot_price else [], provenance)


def _tpu_slice(accelerator: str) -> tuple[str, int] | None:
    """'tpu-v5p-8' -> ('tpu-v5p', 4 chips); None for generations accelfit does not know."""
    parts = accelerator.split("-")
    if len(parts) != 3 or parts[1] not in _TPU_GENERATIONS or not parts[2].isascii() or not parts[2].isdigit() \
            or len(parts[2]) > 6 or int(parts[2]) == 0:
        return None
    generation, units_per_chip = _TPU_GENERATIONS[parts[1]]
    return generation, max(1, int(parts[2]) // units_per_chip)


def _tpu_prices(prices: tuple[float | None, float | None]) -> tuple[float | None, float | None]:
    price, spot_price = prices
    return (None if price == _TPU_NO_PRICE_USD else price,
            None if spot_price == _TPU_NO_PRICE_USD else spot_price)


def _drop_not_sold(catalog: Catalog, result: ImportResult) -> None:
    """Upstream figures for a way the cloud does not sell a SKU (the catalog's sourced not-sold rows, e.g. an
    on-demand figure for a3-highgpu-1g, which GCP sells only as Spot or flex-start) are placeholders or another
    SKU's price: the cloud's documentation wins, so they are left out and reported."""
    kept = []
    for price in result.prices:
        if catalog.not_sold_rule(price.cloud, price.sku, price.region, price.pricing) is None:
            kept.append(price)
        else:
            result.skip("price for a way the cloud does not sell the SKU (catalog not-sold rule)",
                        f"{price.sku} {price.region} {price.pricing.value}")
    result.prices = kept


def _add_prices(result: ImportResult, cloud: Cloud, sku: str, region: str, unit: str, on_demand: set[float],
                spot: list[float], provenance: Provenance) -> None:
    on_demand = {value for value in on_demand if value > 0}  # a figure rounded to nothing is no price
    spot = [value for value in spot if value > 0]
    top_on_demand = max(on_demand) if on_demand else None
    if top_on_demand is not None:
        result.prices.append(_price(cloud, sku, region, unit, PricingModel.on_demand, top_on_demand, provenance,
                                    "on-demand list price" + (" (zones differ; highest kept)"
                                                              if len(on_demand) > 1 else "")))
    below = [value for value in spot if top_on_demand is None or value < top_on_demand]
    if len(below) < len(spot):
        result.skip("spot figure at or above the on-demand price (upstream inconsistency)", f"{sku} {region}")
    if below:
        result.prices.append(_price(cloud, sku, region, unit, PricingModel.spot, max(below), provenance,
                                    f"spot, highest of {len(below)} zone figure(s) {min(below):g}-{max(below):g}"))


def _price(cloud: Cloud, sku: str, region: str, unit: str, pricing: PricingModel, hourly_usd: float,
           provenance: Provenance, what: str) -> Price:
    return Price(cloud=cloud, sku=sku, unit=unit, region=region, pricing=pricing, hourly_usd=hourly_usd,
                 as_of=provenance.as_of, source=f"{provenance.source}: {what}")


def _availability(cloud: Cloud, sku: str, region: str, zones: Iterable[str], provenance: Provenance,
                  what: str) -> Availability:
    return Availability(cloud=cloud, sku=sku, region=region, zones=tuple(sorted(zones)), as_of=provenance.as_of,
                        source=f"{provenance.source}: {what}")


def _is_gpu(catalog: Catalog, name: str) -> bool:
    try:
        return catalog.accelerator(name).kind == "gpu"
    except ValueError:
        return bool(name)


def _count(text: str | None) -> int:
    """An accelerator count; 0 for anything that is not a finite whole count (empty, NaN, inf, 1e400)."""
    try:
        value = float(text or "")
    except ValueError:
        return 0
    return int(value) if math.isfinite(value) and 0 <= value <= 1_000_000 else 0


def _same_accelerator(catalog: Catalog, instance: InstanceType, name: str, count: str, file: str, line: int) -> list[Problem]:
    """An upstream row that disagrees with accelfit about a type's GPUs is a problem, not a silent overwrite."""
    try:
        upstream = catalog.canonical(name) if name else None
    except ValueError:
        upstream = None
    if upstream is not None and (upstream != instance.accelerator or _count(count) != instance.accelerator_count):
        return [problem(file, f"line {line}", f"{instance.name} carries {count} x {name} upstream but "
                        f"{instance.accelerator_count} x {instance.accelerator} in accelfit's catalog",
                        "check which is right and fix instances_aws.yaml, or the upstream file")]
    return []

