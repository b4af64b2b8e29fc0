"""One preparation text per class of identical hosts (issue 39): the node's name reaches each host's command on
standard input, before the join token, and each script gets it as its first argument; each host is still its own
command (its own SSH connection and status)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pulumi

from accelfit.preview.recorder import record
from accelfit.spec.inventory import Inventory
from components.baremetal.host_preparation import PREPARE_STEPS, HostPreparation, HostPreparationArgs, prepare_command
from components.baremetal.scripts import ClusterJoin

import metal_stack

JOIN = ClusterJoin(api_server="10.20.0.5:6443", ca_cert_hash="sha256:" + "ab" * 32,
                   taint=("nvidia.com/gpu", "present", "NoSchedule"))
TOKEN = "abcdef.0123456789abcdef"


def _commands(servers: list[dict], secret: bool = False) -> dict[str, dict]:
    inventory = Inventory.model_validate({"site": "lab", "servers": servers})

    def program() -> None:
        # A plain token unless asked, so the recording shows standard input.
        HostPreparation("hosts", HostPreparationArgs(
            servers=tuple(inventory.servers), driver_version="580.178.04", toolkit_version="1.20.0", join=JOIN,
            ssh_private_key="key", join_token=pulumi.Output.secret(TOKEN) if secret else TOKEN))

    recording = record(program)
    return {item.name.removeprefix("hosts-").removesuffix("-prepare"): item.inputs
            for item in recording.of_type("command:remote:Command")}


def test_hosts_of_one_class_share_the_text_and_get_their_name_on_standard_input():
    commands = _commands([metal_stack.server(index, form_factor="sxm") for index in range(3)]
                         + [metal_stack.server(3, form_factor="pcie")])
    names = sorted(commands)
    assert len(names) == 4  # still one command per host
    sxm, pcie = [commands[name]["create"] for name in names[:3]], commands[names[3]]["create"]
    assert sxm[0] == sxm[1] == sxm[2] and "FABRIC=nvswitch" in sxm[0]
    assert pcie != sxm[0] and "FABRIC=none" in pcie  # another class, another text
    for name, inputs in commands.items():
        assert name not in inputs["create"]
        assert inputs["stdin"] == f"{name}\n{TOKEN}"
        assert inputs["triggers"] == [name]  # the node it joins, in plain text (the ordering check reads it)


def test_the_command_hands_the_name_to_every_step_and_the_token_to_the_join_alone(tmp_path: Path):
    """The real command line, run by sh with stand-in scripts and a sudo that drops -n: what each step receives."""
    steps = {step: f'echo "{step} $1 [$(cat)]"' for step in PREPARE_STEPS}
    steps["join"] = 'IFS= read -r token; echo "join $1 [${token}]"'
    (tmp_path / "sudo").write_text('#!/bin/sh\nshift\nexec "$@"\n')
    (tmp_path / "sudo").chmod(0o755)
    result = subprocess.run(["sh", "-c", prepare_command(steps)], input=f"gpu-07\n{TOKEN}", text=True,
                            capture_output=True, env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"},
                            check=True)
    assert result.stdout.splitlines() == [*(f"{step} gpu-07 []" for step in PREPARE_STEPS), f"join gpu-07 [{TOKEN}]"]


def test_a_shared_part_arrives_as_an_argument_and_runs_where_it_was_included(tmp_path: Path):
    """A script that includes _apt_pinned.sh.part gets it by `eval "$3"`, in place: its functions are defined."""
    from components.baremetal import scripts

    part = scripts._template("_apt_pinned.sh.part").rstrip("\n")
    step = (f'#!/usr/bin/env bash\n# a step\nset -euo pipefail\nfail() {{ exit 1; }}\n{part}\n'
            'declare -F install_pinned >/dev/null && echo "$1 has install_pinned"')
    steps = dict.fromkeys(PREPARE_STEPS, 'echo "$1"')
    steps["driver"] = step
    (tmp_path / "sudo").write_text('#!/bin/sh\nshift\nexec "$@"\n')
    (tmp_path / "sudo").chmod(0o755)
    command = prepare_command({**steps, "join": 'echo "$1"'})
    result = subprocess.run(["sh", "-c", command], input=f"gpu-07\n{TOKEN}", text=True, capture_output=True,
                            env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}, check=True)
    assert "gpu-07 has install_pinned" in result.stdout.splitlines()


def test_the_stdin_is_a_secret_when_the_token_is():
    [inputs] = _commands([metal_stack.server(0)], secret=True).values()
    assert inputs["stdin"] == "[secret]"
