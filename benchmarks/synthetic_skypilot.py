"""A synthetic SkyPilot catalog v8 (`aws/vms.csv`, `gcp/vms.csv`) of the upstream size and layout, for benchmarks.

We have no full upstream copy here and commit none: this writes one to a directory at run time. What it matches
(read 2026-11-23 with the repository search tools):
- size: upstream `catalogs/v8/aws/vms.csv` is 4,272,490 characters (yottalabsai/skypilot-catalog @60441f0b) and
  `catalogs/v8/gcp/vms.csv` 2,203,095 characters (skypilot-org/skypilot-catalog @8427bbff); `--scale 1` writes
  files of those sizes (within one row), smaller scales shrink the CPU rows that fill them;
- layout: the upstream header and column order of each file, one row per instance type x zone; AWS AZ IDs
  (use1-az1) plus a few local zones (use1-atl2-az1); GpuInfo in the upstream form; GCP's split rows (a VM row
  per machine type and zone, a GPU row per accelerator, count and zone, TPU rows `tpu-<version>-<size>` pricing
  the whole slice, v5p in steps of 128 TensorCores up to 12288 as upstream), the "no price" placeholders (empty,
  0.0 and 700 on TPU rows);
- content: every GPU instance type and TPU generation the shipped accelfit catalog describes (so the importer
  keeps rows for them), with the upstream accelerator names and counts and prices near the shipped ones, plus
  GPU types accelfit does not describe and CPU-only types, which the importer skips as upstream.

Prices, regions and zones are made up (deterministic, seeded): the files exercise the importer and the planner
at full size; they are not a price source.

    .venv/bin/python benchmarks/synthetic_skypilot.py OUT_DIR [--scale 1.0]
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

UPSTREAM_AWS_CHARS = 4_272_490  # yottalabsai/skypilot-catalog @60441f0b catalogs/v8/aws/vms.csv
UPSTREAM_GCP_CHARS = 2_203_095  # skypilot-org/skypilot-catalog @8427bbff catalogs/v8/gcp/vms.csv

AWS_HEADER = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
              "AvailabilityZone,Arch,LocalDiskType,NVMeSupported,LocalDiskSize,LocalDiskCount")
GCP_HEADER = "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice"

# AWS regions with their AZ ID prefix and AZ numbers (real names; the set of AZs is illustrative).
AWS_REGIONS = {
    "us-east-1": ("use1", (1, 2, 3, 4, 5, 6)), "us-east-2": ("use2", (1, 2, 3)), "us-west-1": ("usw1", (1, 3)),
    "us-west-2": ("usw2", (1, 2, 3, 4)), "ca-central-1": ("cac1", (1, 2, 4)), "ca-west-1": ("caw1", (1, 2, 3)),
    "sa-east-1": ("sae1", (1, 2, 3)), "mx-central-1": ("mxc1", (1, 2, 3)), "eu-west-1": ("euw1", (1, 2, 3)),
    "eu-west-2": ("euw2", (1, 2, 3)), "eu-west-3": ("euw3", (1, 2, 3)), "eu-central-1": ("euc1", (1, 2, 3)),
    "eu-central-2": ("euc2", (1, 2, 3)), "eu-north-1": ("eun1", (1, 2, 3)), "eu-south-1": ("eus1", (1, 2, 3)),
    "eu-south-2": ("eus2", (1, 2, 3)), "il-central-1": ("ilc1", (1, 2, 3)), "me-south-1": ("mes1", (1, 2, 3)),
    "me-central-1": ("mec1", (1, 2, 3)), "af-south-1": ("afs1", (1, 2, 3)), "ap-east-1": ("ape1", (1, 2, 3)),
    "ap-south-1": ("aps1", (1, 2, 3)), "ap-south-2": ("aps2", (1, 2, 3)), "ap-northeast-1": ("apne1", (1, 2, 4)),
    "ap-northeast-2": ("apne2", (1, 2, 3, 4)), "ap-northeast-3": ("apne3", (1, 2, 3)),
    "ap-southeast-1": ("apse1", (1, 2, 3)), "ap-southeast-2": ("apse2", (1, 2, 3)),
    "ap-southeast-3": ("apse3", (1, 2, 3)), "ap-southeast-4": ("apse4", (1, 2, 3)),
}
# Local zones appear in the upstream file as extra AZ IDs of their parent region (the importer skips them).
AWS_LOCAL_ZONES = {"us-east-1": ("use1-atl2-az1", "use1-bos1-az1", "use1-mia2-az1"), "us-west-2": ("usw2-lax1-az1",)}
AWS_CPU_FAMILIES = ("m5", "m5a", "m5d", "m5n", "m6i", "m6a", "m6g", "m6id", "m7i", "m7a", "m7g", "m8g", "c5", "c5a",
                    "c5d", "c5n", "c6i", "c6a", "c6g", "c6gn", "c7i", "c7a", "c7g", "c8g", "r5", "r5a", "r5b", "r5d",
                    "r6i", "r6a", "r6g", "r7i", "r7a", "r7g", "r8g", "x2idn", "x2iedn", "i3", "i4i", "i4g", "im4gn",
                    "is4gen", "d3", "t3", "t3a", "t4g", "z1d", "hpc7g", "u-6tb1", "x8g")
AWS_SIZES = ((".large", 2), (".xlarge", 4), (".2xlarge", 8), (".4xlarge", 16), (".8xlarge", 32), (".12xlarge", 48),
             (".16xlarge", 64), (".24xlarge", 96), (".32xlarge", 128), (".48xlarge", 192), (".metal", 96))
# GPU types accelfit does not describe (the importer skips and reports them), upstream name and count.
AWS_OTHER_GPU_TYPES = (("g3.4xlarge", "M60", 1), ("g3.16xlarge", "M60", 4), ("g4ad.xlarge", "RadeonProV520", 1),
                       ("g5g.xlarge", "T4g", 1), ("g5.2xlarge", "A10G", 1), ("g6.2xlarge", "L4", 1),
                       ("g6f.large", "L4", 0.125), ("gr6.4xlarge", "L4", 1), ("p3.2xlarge", "V100", 1),
                       ("p3.16xlarge", "V100", 8), ("p3dn.24xlarge", "V100", 8), ("inf2.xlarge", "Inferentia2", 1),
                       ("trn1.32xlarge", "Trainium", 16), ("dl1.24xlarge", "Gaudi HL-205", 8))
# The name the upstream AWS file writes in AcceleratorName, per accelfit canonical accelerator.
AWS_UPSTREAM_NAME = {"t4": "T4", "l4": "L4", "a10g": "A10G", "l40s": "L40S", "a100-40gb": "A100",
                     "a100-80gb": "A100-80GB", "h100-80gb": "H100", "h200-141gb": "H200", "b200": "B200"}

GCP_REGIONS = {
    "us-central1": "abcf", "us-central2": "b", "us-east1": "bcd", "us-east4": "abc", "us-east5": "abc",
    "us-south1": "abc", "us-west1": "abc", "us-west2": "abc", "us-west3": "abc", "us-west4": "abc",
    "northamerica-northeast1": "abc", "northamerica-northeast2": "abc", "northamerica-south1": "abc",
    "southamerica-east1": "abc", "southamerica-west1": "abc", "europe-central2": "abc", "europe-north1": "abc",
    "europe-north2": "abc", "europe-southwest1": "abc", "europe-west1": "bcd", "europe-west2": "abc",
    "europe-west3": "abc", "europe-west4": "abc", "europe-west6": "abc", "europe-west8": "abc", "europe-west9": "abc",
    "europe-west10": "abc", "europe-west12": "abc", "me-central1": "abc", "me-central2": "abc", "me-west1": "abc",
    "africa-south1": "abc", "asia-east1": "abc", "asia-east2": "abc", "asia-northeast1": "abc",
    "asia-northeast2": "abc", "asia-northeast3": "abc", "asia-south1": "abc", "asia-south2": "abc",
    "asia-southeast1": "abc", "asia-southeast2": "abc", "australia-southeast1": "abc", "australia-southeast2": "abc",
}
GCP_CPU_SERIES = (("n1-standard", (1, 2, 4, 8, 16, 32, 64, 96), 3.75), ("n1-highmem", (2, 4, 8, 16, 32, 64, 96), 6.5),
                  ("n1-highcpu", (2, 4, 8, 16, 32, 64, 96), 0.9),
                  ("n2-standard", (2, 4, 8, 16, 32, 48, 64, 80, 96, 128), 4.0),
                  ("n2-highmem", (2, 4, 8, 16, 32, 48, 64, 80, 96, 128), 8.0),
                  ("n2-highcpu", (2, 4, 8, 16, 32, 48, 64, 80, 96), 1.0),
                  ("n2d-standard", (2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224), 4.0),
                  ("n2d-highmem", (2, 4, 8, 16, 32, 48, 64, 80, 96), 8.0),
                  ("e2-standard", (2, 4, 8, 16, 32), 4.0), ("e2-highmem", (2, 4, 8, 16), 8.0),
                  ("c2-standard", (4, 8, 16, 30, 60), 4.0), ("c2d-standard", (2, 4, 8, 16, 32, 56, 112), 4.0),
                  ("c3-standard", (4, 8, 22, 44, 88, 176), 4.0), ("c3-highmem", (4, 8, 22, 44, 88, 176), 8.0),
                  ("c3d-standard", (4, 8, 16, 30, 60, 90, 180, 360), 4.0), ("c4-standard", (2, 4, 8, 16, 32, 48, 96, 192), 3.75),
                  ("n4-standard", (2, 4, 8, 16, 32, 48, 64, 80), 4.0), ("t2d-standard", (1, 2, 4, 8, 16, 32, 48, 60), 4.0),
                  ("m1-megamem", (96,), 14.9), ("m3-ultramem", (32, 64, 128), 30.5), ("z3-highmem", (88, 176), 8.0))
# GPU rows for accelerators accelfit has no machine type of (the importer never reads them).
GCP_OTHER_GPUS = (("T4", (1, 2, 4)), ("P4", (1, 2, 4)), ("V100", (1, 2, 4, 8)), ("P100", (1, 2, 4)))
# Cloud TPU accelerator-type sizes per generation as the upstream file lists them (v5p: every 128 TensorCores).
TPU_SIZES = {
    "v2": (8, 32, 128, 256, 512), "v3": (8, 32, 64, 128, 256, 512, 1024, 2048),
    "v4": (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096),
    "v5litepod": (1, 4, 8, 16, 32, 64, 128, 256), "v5p": (8, 16, 32, 64, *range(128, 12289, 128)),
    "v6e": (1, 4, 8, 16, 32, 64, 128, 256),
}
TPU_UNITS_PER_CHIP = {"v2": 2, "v3": 2, "v4": 2, "v5p": 2, "v5litepod": 1, "v6e": 1}
TPU_CHIP_HOUR_USD = {"v2": 1.125, "v3": 2.0, "v4": 3.22, "v5litepod": 1.2, "v5p": 4.2, "v6e": 2.7}
TPU_GENERATION = {"v4": "tpu-v4", "v5litepod": "tpu-v5e", "v5p": "tpu-v5p", "v6e": "tpu-v6e"}


def _price(value: float) -> str:
    return f"{value:.5g}"


def _aws_gpu_info(name: str, count: float, memory_mib: int) -> str:
    gpus = max(1, int(count))
    return (f"\"{{'Gpus': [{{'Name': '{name}', 'Manufacturer': 'NVIDIA', 'Count': {gpus}, 'LogicalGpuCount': {gpus}, "
            f"'GpuPartitionSize': {min(1.0, count):.3g}, 'Workloads': ['ml-ai'], 'MemoryInfo': {{'SizeInMiB': "
            f"{memory_mib}}}}}], 'TotalGpuMemoryInMiB': {memory_mib * gpus}}}\"")


class _Budget:
    """Counts the characters written so the CPU rows can fill a file up to its upstream size."""

    def __init__(self, target: int):
        self.target, self.used = target, 0

    def take(self, line: str) -> str:
        self.used += len(line) + 1
        return line

    @property
    def left(self) -> int:
        return self.target - self.used


def _shipped_price(catalog, cloud: str, sku: str, fallback: float) -> float:
    rows = [row.hourly_usd for row in catalog.prices_for(cloud, sku) if row.pricing.value == "on-demand"]
    return min(rows) if rows else fallback


def aws_rows(catalog, target_chars: int, rng: random.Random) -> Iterator[str]:
    budget = _Budget(target_chars)
    yield budget.take(AWS_HEADER)
    regions = list(AWS_REGIONS)
    gpu_lines: list[str] = []
    for instance in catalog.instance_types_for("aws"):
        accelerator = catalog.accelerator(instance.accelerator)
        upstream = AWS_UPSTREAM_NAME.get(accelerator.name, accelerator.aliases[0] if accelerator.aliases else "")
        base = _shipped_price(catalog, "aws", instance.name, 1.2 * instance.accelerator_count)
        info = _aws_gpu_info(upstream, instance.accelerator_count, int(accelerator.memory_gib * 1024))
        offered = rng.sample(regions, rng.randint(len(regions) // 3, len(regions)))
        for region in sorted(offered):
            gpu_lines.extend(_aws_zone_rows(instance.name, upstream, instance.accelerator_count, instance.vcpus,
                                            instance.memory_gib, info, base, region, rng,
                                            priced=instance.family != "p5e"))
    for name, upstream, count in AWS_OTHER_GPU_TYPES:
        if catalog.instance_type("aws", name) is not None:
            continue  # the shipped catalog has come to describe it: its rows above already carry it
        info = _aws_gpu_info(upstream, count, 16384)
        for region in sorted(rng.sample(regions, rng.randint(5, len(regions)))):
            gpu_lines.extend(_aws_zone_rows(name, upstream, count, 8 * max(1, int(count)), 32.0 * max(1, count), info,
                                            0.9 * max(1.0, count), region, rng))
    for line in gpu_lines:
        budget.take(line)
    cpu_lines = []
    for family, suffix, vcpus in _cycle_names(AWS_CPU_FAMILIES, AWS_SIZES):
        if budget.left <= 0:
            break
        arch = "arm64" if re.search(r"[0-9]g", family) else "x86_64"  # Graviton families: m6g, c7gn, t4g
        base = 0.048 * vcpus * rng.uniform(0.8, 1.3)
        for region in sorted(rng.sample(regions, rng.randint(len(regions) // 2, len(regions)))):
            for line in _aws_zone_rows(family + suffix, "", 0, vcpus, vcpus * 4.0, "", base, region, rng, arch=arch):
                if budget.left > 0:
                    cpu_lines.append(budget.take(line))
    # Upstream sorts by instance type, then region and zone.
    yield from sorted(gpu_lines + cpu_lines, key=lambda line: line.split(",", 1)[0])


def _aws_zone_rows(name: str, accelerator: str, count: float, vcpus: float, memory_gib: float, info: str,
                   base_usd: float, region: str, rng: random.Random, *, priced: bool = True,
                   arch: str = "x86_64") -> Iterator[str]:
    prefix, numbers = AWS_REGIONS[region]
    zones = [f"{prefix}-az{number}" for number in numbers]
    zones += [zone for zone in AWS_LOCAL_ZONES.get(region, ()) if rng.random() < 0.3]
    regional = base_usd * (1.0 if region.startswith("us-") else rng.uniform(1.05, 1.3))
    for zone in zones:
        price = _price(regional) if priced else ""
        spot = f"{regional * rng.uniform(0.3, 0.7):.6f}" if priced and rng.random() > 0.05 else ""
        count_cell = f"{count:.1f}" if accelerator and count >= 1 else (str(count) if accelerator else "")
        disk = ",ssd,True,237.0,1.0" if rng.random() < 0.3 else ",,False,,"
        yield (f"{name},{accelerator},{count_cell},{float(vcpus):.1f},{float(memory_gib):.1f},{info},{price},{spot},"
               f"{region},{zone},{arch}{disk}")


def gcp_rows(catalog, target_chars: int, rng: random.Random) -> Iterator[str]:
    from accelfit.catalog.skypilot import gpu_row_name

    budget = _Budget(target_chars)
    yield budget.take(GCP_HEADER)
    regions = list(GCP_REGIONS)
    vm_lines: list[str] = []
    gpu_cells: dict[tuple[str, int, str], str] = {}  # (name, count, zone) -> region
    gpu_usd: dict[tuple[str, int], float] = {}  # the GPU part of a machine's price, the same for every machine type
    for instance in catalog.instance_types_for("gcp"):
        key = (gpu_row_name(instance.gke_accelerator or ""), instance.accelerator_count)
        total = _shipped_price(catalog, "gcp", instance.name, 1.5 * instance.accelerator_count)
        gpu_usd[key] = min(gpu_usd.get(key, total), 0.7 * total)
    for instance in catalog.instance_types_for("gcp"):
        key = (gpu_row_name(instance.gke_accelerator or ""), instance.accelerator_count)
        total = _shipped_price(catalog, "gcp", instance.name, 1.5 * instance.accelerator_count)
        vm_part = max(0.05 * instance.vcpus, total - gpu_usd[key])
        offered = rng.sample(regions, rng.randint(len(regions) // 4, len(regions) // 2 + 4))
        for region in sorted(offered):
            for zone in _gcp_zones(region, rng):
                price = vm_part if instance.family != "a4" else 0.0  # upstream's 0.0 placeholder on a4
                vm_lines.append(f"{instance.name},{float(instance.vcpus):.1f},{float(instance.memory_gib):.1f},,,,"
                                f"{region},{zone},{_price(price)},{_price(price * 0.3)}")
                gpu_cells[(*key, zone)] = region
    gpu_lines = [f",,,{name},{count},{{'Gpus': [{{'MemoryInfo': {{'SizeInMiB': 81920}}}}]}},{region},{zone},"
                 f"{_price(gpu_usd[(name, count)])},{_price(gpu_usd[(name, count)] * rng.uniform(0.3, 0.45))}"
                 for (name, count, zone), region in sorted(gpu_cells.items())]
    for name, counts in GCP_OTHER_GPUS:
        for region in sorted(rng.sample(regions, len(regions) // 2)):
            for zone in _gcp_zones(region, rng):
                for count in counts:
                    usd = 0.35 * count
                    gpu_lines.append(f",,,{name},{count},{{'Gpus': [{{'MemoryInfo': {{'SizeInMiB': 16384}}}}]}},"
                                     f"{region},{zone},{_price(usd)},{_price(usd * 0.4)}")
    tpu_lines = []
    for version, sizes in TPU_SIZES.items():
        places = [(region, zone) for region in sorted(rng.sample(regions, rng.randint(3, 14)))
                  for zone in _gcp_zones(region, rng)]
        for size in sizes:
            chips = max(1, size // TPU_UNITS_PER_CHIP[version])
            for region, zone in places:
                price = TPU_CHIP_HOUR_USD[version] * chips * (1.0 if region.startswith("us-") else 1.1)
                no_price = version == "v6e" and rng.random() < 0.1  # upstream's 700 placeholder
                on_demand, spot = (700.0, 700.0) if no_price else (price, price * rng.uniform(0.2, 0.45))
                tpu_lines.append(f",,,tpu-{version}-{size},1,tpu-{version}-{size},{region},{zone},{_price(on_demand)},"
                                 f"{_price(spot)}")
    for line in vm_lines + gpu_lines + tpu_lines:
        budget.take(line)
    cpu_lines = []
    for series, vcpus, gib_per_vcpu in _cycle_names(GCP_CPU_SERIES):
        if budget.left <= 0:
            break
        usd = 0.0475 * vcpus * gib_per_vcpu / 4.0
        for region in sorted(rng.sample(regions, rng.randint(len(regions) // 2, len(regions)))):
            for zone in _gcp_zones(region, rng):
                if budget.left <= 0:
                    break
                line = f"{series}-{vcpus},{float(vcpus):.1f},{vcpus * gib_per_vcpu:.1f},,,,{region},{zone},{_price(usd)},"
                cpu_lines.append(budget.take(line + _price(usd * 0.25)))
    # Upstream: VM rows sorted by machine type, then the GPU rows, then the TPU rows.
    yield from sorted(vm_lines + cpu_lines)
    yield from gpu_lines
    yield from tpu_lines


def _cycle_names(families, sizes=None) -> Iterator[tuple]:
    """CPU-only machine types without end: the listed ones, then the same again under made-up generation names
    ("m5" -> "m5x1"), so a file can be filled to any size with types no real catalog has."""
    for generation in itertools.count():
        tag = f"x{generation}" if generation else ""
        if sizes is None:  # GCP: (series, vCPU counts, GiB per vCPU)
            for series, counts, gib_per_vcpu in families:
                yield from ((series + tag, vcpus, gib_per_vcpu) for vcpus in counts)
        else:  # AWS: family names x size suffixes
            for family in families:
                yield from ((family + tag, suffix, vcpus) for suffix, vcpus in sizes)


def _gcp_zones(region: str, rng: random.Random) -> list[str]:
    letters = GCP_REGIONS[region]
    chosen = [letter for letter in letters if rng.random() < 0.75] or [letters[0]]
    return [f"{region}-{letter}" for letter in chosen]


def write_catalog(directory: Path, scale: float = 1.0, seed: int = 8) -> dict[str, int]:
    """Write `aws/vms.csv` and `gcp/vms.csv` under `directory`; return each file's size in characters."""
    from accelfit.catalog import DATA_DIR, load_catalog

    catalog = load_catalog(DATA_DIR)
    sizes = {}
    for name, rows, target in (("aws/vms.csv", aws_rows, UPSTREAM_AWS_CHARS),
                               ("gcp/vms.csv", gcp_rows, UPSTREAM_GCP_CHARS)):
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "\n".join(rows(catalog, int(target * scale), random.Random(f"{seed}-{name}"))) + "\n"
        path.write_text(text, encoding="utf-8")
        sizes[name] = len(text)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the upstream file sizes (default 1)")
    arguments = parser.parse_args()
    for name, chars in write_catalog(arguments.directory, arguments.scale).items():
        print(f"{arguments.directory / name}: {chars:,} characters")


if __name__ == "__main__":
    main()
