"""Host scripts rendered from templates/: preflight, NVIDIA driver, container toolkit, cluster join. Pure.

Templates hold `{{ name }}` placeholders, each filled with a shell-quoted value (shlex.quote), and
`# @include <file>` lines for shared parts. Rendering fails on a placeholder without a value and on a value
without a placeholder, so a template and its values cannot drift apart silently. No secret is ever a value:
the join token reaches the join script on standard input.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from accelfit.spec.inventory import Server

TEMPLATES = Path(__file__).parent / "templates"
SCRIPTS = ("preflight", "driver", "toolkit", "join")
_PLACEHOLDER = re.compile(r"\{\{ ([a-z_]+) \}\}")
_INCLUDE = re.compile(r"^# @include (\S+)$", re.MULTILINE)

# Room for the driver (~1 GiB), container images of GPU jobs (tens of GiB) and kubelet data.
MIN_FREE_GIB = 50
# 8-GPU HGX/DGX boards of these models connect their GPUs through NVSwitches, which need Fabric Manager.
# (B200 boards also need the NVLink subnet manager, which accelfit does not install yet.)
NVSWITCH_MODELS = frozenset({"a100-40gb", "a100-80gb", "h100-80gb", "h200-141gb", "b200"})


@dataclass(frozen=True)
class ClusterJoin:
    """Where hosts join: the API server and the hash of its CA (both public), and the GPU taint to register."""

    api_server: str
    ca_cert_hash: str
    taint: tuple[str, str, str]


@functools.cache
def _template(name: str) -> str:
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    return _INCLUDE.sub(lambda match: _template(match.group(1)).rstrip("\n"), text)


def render(script: str, values: dict[str, str | int]) -> str:
    template = _template(f"{script}.sh.tmpl")
    wanted = set(_PLACEHOLDER.findall(template))
    missing, unused = wanted - values.keys(), values.keys() - wanted
    if missing or unused:
        raise ValueError(f"{script}.sh.tmpl: placeholders without values {sorted(missing)}, "
                         f"values without placeholders {sorted(unused)}")
    return _PLACEHOLDER.sub(lambda match: shlex.quote(str(values[match.group(1)])), template)


def fabric_manager(server: Server) -> bool:
    return server.gpu_model in NVSWITCH_MODELS and server.gpu_count == 8


def host_scripts(server: Server, driver_version: str, toolkit_version: str, join: ClusterJoin) -> dict[str, str]:
    """The four scripts for one server, in the order they run."""
    node = {"node_name": server.name}
    key, value, effect = join.taint
    return {
        "preflight": render("preflight", {**node, "gpu_count": server.gpu_count, "gpu_model": server.gpu_model,
                                          "min_free_gib": MIN_FREE_GIB}),
        "driver": render("driver", {**node, "driver_version": driver_version,
                                    "driver_branch": driver_version.split(".")[0],
                                    "fabric_manager": "yes" if fabric_manager(server) else "no"}),
        "toolkit": render("toolkit", {**node, "toolkit_version": toolkit_version}),
        "join": render("join", {**node, "api_server": join.api_server, "ca_cert_hash": join.ca_cert_hash,
                                "taint_key": key, "taint_value": value, "taint_effect": effect}),
    }


def remote_command(script: str, step: str) -> str:
    """The command line run over SSH: the script as root through sudo (the SSH user needs passwordless sudo;
    -n makes a missing sudo right fail at once instead of waiting for a password)."""
    return f"sudo -n bash -c {shlex.quote(script)} accelfit-{step}"
