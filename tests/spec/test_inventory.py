"""Bare-metal inventory: good and bad cases, each bad case naming the server and field."""

from pathlib import Path

import pytest

from accelfit.errors import InputError
from accelfit.spec import load_inventory
from accelfit.validation import validate
from accelfit.spec.inventory import Inventory

FIXTURE = Path(__file__).parent.parent / "fixtures" / "inventory-lab.yaml"
SERVER = {"name": "gpu-01", "address": "10.20.0.11", "ssh_user": "ops", "gpu_model": "h100-80gb", "gpu_count": 8,
          "cpu_cores": 112, "memory_gib": 2048, "nvme_tb": 30, "network_gbps": 3200, "rack": "r1"}


def inventory(*servers):
    return {"site": "lab", "servers": [dict(SERVER, **server) for server in servers]}


def fields_of(document):
    with pytest.raises(InputError) as caught:
        validate(Inventory, document, "inv.yaml")
    return {item.field: item.render() for item in caught.value.problems}


def test_fixture_loads_and_normalises_models():
    loaded = load_inventory(FIXTURE)
    assert [server.gpu_model for server in loaded.servers] == ["h100-80gb"] * 4
    assert loaded.servers[3].labels == {"pool": "research"}


@pytest.mark.parametrize(("servers", "field", "words"), [
    ([{}, {"address": "10.20.0.12"}], "servers[1].name", "already used by servers[0]"),
    ([{}, {"name": "gpu-02"}], "servers[1].address", "already used"),
    ([{"gpu_model": "h110"}], "servers[0].gpu_model", "did you mean 'h100-80gb'"),
    ([{"gpu_model": "v5p"}], "servers[0].gpu_model", "TPU"),
    ([{"gpu_count": 12}], "servers[0].gpu_count", "at most 8 per server"),
    ([{"gpu_count": 0}], "servers[0].gpu_count", "allowed is at least 1 and at most 16"),
    ([{"memory_gib": -5}], "servers[0].memory_gib", "allowed is more than 0"),
    ([{"address": "not an address!"}], "servers[0].address", "neither an IP address"),
    ([{"labels": {"bad key!": "x"}}], "servers[0].labels", "label key"),
    ([{"gpu_cout": 8}], "servers[0].gpu_cout", "did you mean 'gpu_count'"),
    ([{"name": "GPU_01"}], "servers[0].name", "pattern"),
])
def test_bad_inventories(servers, field, words):
    found = fields_of(inventory(*servers))
    assert field in found, found
    assert words in found[field]


def test_empty_inventory():
    found = fields_of({"site": "lab", "servers": []})
    assert "servers" in found
