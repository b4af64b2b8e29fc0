"""What host preparation installs, from data/host_packages.yaml (components/baremetal builds the scripts from it):
apt repositories with their signing keys, package
names, supported driver branches, supported operating systems, and which GPU fabric a server has. Pure: no Pulumi.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from accelfit.errors import Problem, problem
from accelfit.spec.inventory import Server
from accelfit.yamlio import read_package_yaml

DATA = Path(__file__).parent / "data" / "host_packages.yaml"

# none: PCIe GPUs, no NVSwitch. nvswitch: NVLink 4 or older NVSwitches (A100/H100/H200 HGX): Fabric Manager.
# nvlink5: B200 HGX: Fabric Manager and the NVLink subnet manager. detect: the inventory does not say; preflight
# finds out on the host (NVIDIA PCI bridges of class 0680, or an InfiniBand port whose VPD says SW_MNG).
Fabric = Literal["none", "nvswitch", "nvlink5", "detect"]


@functools.cache
def host_packages() -> dict[str, Any]:
    return read_package_yaml(DATA)


def driver_branch(driver_version: str) -> str:
    """'580.178.04' -> '580'."""
    return driver_version.split(".", 1)[0]


def fabric(server: Server) -> Fabric:
    data = host_packages()
    if server.form_factor == "pcie" or server.gpu_model not in data["nvswitch_models"]:
        return "none"
    if server.form_factor == "sxm":
        return "nvlink5" if server.gpu_model in data["nvlink5_models"] else "nvswitch"
    return "detect"


def _date(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))


def driver_problems(driver_version: str, field: str = "node_pools.gpu.driver_version",
                    source: str = "plan") -> list[Problem]:
    """A pin on a branch NVIDIA does not list, or one past its end of life on the data's date."""
    data = host_packages()
    branch = driver_branch(driver_version)
    supported = [name for name, row in data["branches"].items()
                 if row["end_of_life"] is None or _date(row["end_of_life"]) > _date(data["as_of"])]
    row = data["branches"].get(branch)
    published = data["published"]["driver_builds"].get(branch, [])
    if row is not None and branch in supported and driver_version not in published:
        return [problem(source, field, f"driver {driver_version} is not a build NVIDIA published for R{branch} "
                        "(as recorded in accelfit/cloudrules/baremetal/data/host_packages.yaml), so apt cannot resolve it",
                        f"pin a published build (e.g. {published[-1] if published else 'a supported branch'}), or "
                        "record the new build there with its source", driver_version)]
    if row is None:
        return [problem(source, field, f"driver branch R{branch} is not on NVIDIA's data-center support matrix",
                        f"pin a driver of a supported branch ({', '.join('R' + b for b in supported)})",
                        driver_version)]
    if branch not in supported:
        return [problem(source, field, f"driver branch R{branch} ({row['designation']}) reached end of life on "
                        f"{row['end_of_life']}", f"pin a driver of a supported branch "
                        f"({', '.join('R' + b for b in supported)})", driver_version)]
    return []


def form_factor_problems(server: Server, index: int, source: str) -> list[Problem]:
    if server.form_factor == "sxm" and server.gpu_model not in host_packages()["nvswitch_models"]:
        return [problem(source, f"servers[{index}].form_factor", f"{server.gpu_model} is not made as an SXM module "
                        "on an NVSwitch baseboard", "set pcie, or leave it empty for preflight to detect",
                        server.form_factor)]
    return []


@dataclass(frozen=True)
class Repository:
    name: str
    url: str
    key_url: str
    fingerprint: str
    keyring: str
    list: str


def repositories() -> dict[str, Repository]:
    return {name: Repository(name=name, **{key: row[key] for key in ("url", "key_url", "fingerprint", "keyring",
                                                                    "list")})
            for name, row in host_packages()["repositories"].items()}


def words(values: list[str]) -> str:
    """A list as one space-separated word list for a script variable (names never contain spaces)."""
    return " ".join(values)


def supported_os() -> str:
    """'ubuntu-22.04=ubuntu2204 ...': each OS (ID-VERSION_ID of /etc/os-release) and its CUDA repository."""
    return words([f"{name}={row['cuda_repo']}" for name, row in host_packages()["operating_systems"].items()])


def toolkit_problems(toolkit_version: str, source: str = "planner software data") -> list[Problem]:
    published = host_packages()["published"]["container_toolkit"]
    if toolkit_version not in published:
        return [problem(source, "baremetal_gpu_driver.container_toolkit", f"NVIDIA Container Toolkit "
                        f"{toolkit_version} is not a recorded release", f"use one of {', '.join(published)}",
                        toolkit_version)]
    return []
