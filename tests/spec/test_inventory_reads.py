"""An inventory file is parsed once per version in a process (a preview reads it from the stack file and again in
the Pulumi program), and read again as soon as it changes."""

from __future__ import annotations

import os

import pytest
import yaml

from accelfit.errors import InputError
from accelfit.spec.loader import load_inventory

ROW = {"name": "gpu-01", "address": "10.20.0.11", "ssh_user": "ops", "gpu_model": "h100-80gb", "gpu_count": 8,
       "cpu_cores": 112, "memory_gib": 2048, "nvme_tb": 30, "network_gbps": 3200}


def _write(path, servers):
    path.write_text(yaml.safe_dump({"site": "lab", "servers": servers}), encoding="utf-8")


def test_the_same_file_is_parsed_once_and_a_changed_one_again(tmp_path):
    path = tmp_path / "inventory.yaml"
    _write(path, [ROW])
    first = load_inventory(path)
    assert load_inventory(str(path)) is first
    _write(path, [ROW, {**ROW, "name": "gpu-02", "address": "10.20.0.12"}])
    os.utime(path, ns=(1, 1))  # even with a modification time from the past, the size differs
    assert [server.name for server in load_inventory(path).servers] == ["gpu-01", "gpu-02"]


def test_a_broken_file_is_refused_every_time_and_a_missing_one_named(tmp_path):
    path = tmp_path / "inventory.yaml"
    _write(path, [{**ROW, "gpu_count": 12}])
    for _ in range(2):
        with pytest.raises(InputError, match="gpu_count"):
            load_inventory(path)
    with pytest.raises(InputError) as missing:
        load_inventory(tmp_path / "absent.yaml")
    assert "absent.yaml" in str(missing.value.problems[0].file)
