"""Host scripts rendered from templates/: preflight, apt repositories, kubeadm prerequisites, NVIDIA driver,
container toolkit, cluster join. Pure. Repository URLs, key fingerprints and package names come from
accelfit/cloudrules/baremetal/data/host_packages.yaml (host_software.py there), never from the templates.

Templates hold `{{ name }}` placeholders, each filled with a shell-quoted value (shlex.quote), and
`# @include <file>` lines for shared parts. Rendering fails on a placeholder without a value and on a value
without a placeholder, so a template and its values cannot drift apart silently. No secret is ever a value:
the join token reaches the join script on standard input.

A script depends on the host only through its class (GPU model, GPU count, fabric: HostClass); the node's name is
the script's first argument. So every host of a class runs the same text, held once in memory however many hosts
share it (issue 39: 10,000 servers, some 40 kB each, were 400 MB a copy).
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from accelfit.spec.inventory import Server
from accelfit.cloudrules.baremetal.host_software import (
    Fabric, driver_branch, fabric, host_packages, repositories, supported_os, words,
)

TEMPLATES = Path(__file__).parent / "templates"
SCRIPTS = ("preflight", "repositories", "kubernetes", "driver", "toolkit", "join")
_PLACEHOLDER = re.compile(r"\{\{ ([a-z_]+) \}\}")
_INCLUDE = re.compile(r"^# @include (\S+)$", re.MULTILINE)

# Room for the driver (~1 GiB), container images of GPU jobs (tens of GiB) and kubelet data.
MIN_FREE_GIB = 50


@dataclass(frozen=True)
class ClusterJoin:
    """Where hosts join: the API server and the hash of its CA (both public), the GPU taint to register, and the
    control plane's Kubernetes minor ("" = read from the API server's /version on the host)."""

    api_server: str
    ca_cert_hash: str
    taint: tuple[str, str, str]
    kubernetes_minor: str = ""


@dataclass(frozen=True)
class HostClass:
    """What the scripts read from a server: hosts alike in these share one text."""

    gpu_model: str
    gpu_count: int
    fabric: Fabric


def host_class(server: Server) -> HostClass:
    return HostClass(gpu_model=server.gpu_model, gpu_count=server.gpu_count, fabric=fabric(server))


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


def _repository_values(prefix: str, name: str) -> dict[str, str | int]:
    repository = repositories()[name]
    return {f"{prefix}_repo_url": repository.url, f"{prefix}_key_url": repository.key_url,
            f"{prefix}_fingerprint": repository.fingerprint, f"{prefix}_keyring": repository.keyring,
            f"{prefix}_list": repository.list}


def host_scripts(host: HostClass, driver_version: str, toolkit_version: str, join: ClusterJoin) -> dict[str, str]:
    """The six scripts for one class of servers, in the order they run; each takes the node's name as $1."""
    packages = host_packages()["packages"]
    branch = driver_branch(driver_version)
    key, value, effect = join.taint
    return {
        "preflight": render("preflight", {"gpu_count": host.gpu_count, "gpu_model": host.gpu_model,
                                          "min_free_gib": MIN_FREE_GIB, "supported_os": supported_os(),
                                          "fabric": host.fabric,
                                          "preflight_packages": words(packages["preflight"])}),
        "repositories": render("repositories", {
            "supported_os": supported_os(), "prerequisites": words(packages["prerequisites"]),
            **_repository_values("cuda", "cuda"), **_repository_values("toolkit", "container_toolkit")}),
        "kubernetes": render("kubernetes", {
            "api_server": join.api_server, "kubernetes_minor": join.kubernetes_minor,
            "supported_os": supported_os(), "kubernetes_packages": words(packages["kubernetes"]),
            "runtime_packages": words(packages["container_runtime"]), **_repository_values("kube", "kubernetes"),
            **_repository_values("runtime", "containerd")}),
        "driver": render("driver", {
            "driver_version": driver_version, "driver_branch": branch,
            "pinning_package": packages["driver_pinning"].format(branch=branch),
            "driver_packages": words(packages["driver"]),
            "fabric_manager_packages": words(packages["fabric_manager"]), "nscq_packages": words(packages["nscq"]),
            "nvlink_pinned_packages": words(packages["nvlink5_pinned"]),
            "nvlink_packages": words(packages["nvlink5_unpinned"])}),
        "toolkit": render("toolkit", {"toolkit_version": toolkit_version,
                                      "toolkit_packages": words(packages["container_toolkit"])}),
        "join": render("join", {"api_server": join.api_server, "ca_cert_hash": join.ca_cert_hash,
                                "taint_key": key, "taint_value": value, "taint_effect": effect}),
    }


# A here-document's start (`<<WORD`, `<<'WORD'`, `<<-WORD`), not a here-string (`<<<`).
_HEREDOC = re.compile(r"(?<!<)<<(-?)(?!<)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


# The shared parts (`# @include`), in the order the command passes them to every script: each part travels once
# per command, as the script's arguments 2, 3, ... (the node's name is the first), instead of once per script that
# includes it (_apt_pinned alone was five copies, 13 of every 39 kB a host carried: issue 39).
PARTS = ("_os.sh.part", "_apt_pinned.sh.part")


def shipped_part(part: str) -> str:
    """A shared part as the command passes it: its text without comment lines (heredocs kept)."""
    return _without_comments(_template(part).rstrip("\n").split("\n"))


def shipped(script: str) -> str:
    """The script as the host receives it: each shared part it includes replaced by `eval "$N"` (the part arrives as
    argument N, see PARTS), and without its comment lines, which are for the template's readers (11 of every 39 kB
    a host carried). Kept: the first two lines (interpreter, the template it came from), shellcheck directives, and
    here-documents whole."""
    for number, part in enumerate(PARTS, start=2):
        script = script.replace(_template(part).rstrip("\n"), f'eval "${{{number}}}"  # {part}')
    lines = script.split("\n")
    return "\n".join(lines[:2] + _without_comments(lines[2:]).split("\n"))


def _without_comments(lines: list[str]) -> str:
    kept: list[str] = []
    end = None
    for line in lines:
        if end is not None:
            kept.append(line)
            end = None if line.lstrip("\t") == end else end
            continue
        stripped = line.lstrip()
        if stripped.startswith("#") and not stripped.startswith("# shellcheck "):
            continue
        kept.append(line)
        heredoc = _HEREDOC.search(line)
        end = heredoc.group(3) if heredoc else None
    return "\n".join(kept)


def remote_command(script: str, step: str) -> str:
    """The command line run over SSH: the script as root through sudo (the SSH user needs passwordless sudo;
    -n makes a missing sudo right fail at once instead of waiting for a password)."""
    return f"sudo -n bash -c {shlex.quote(script)} accelfit-{step}"
