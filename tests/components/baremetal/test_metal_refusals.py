"""Bad inventories, plans that do not match them and missing access config are refused before anything is
created, with messages that name the server (or config key) and the field."""

from __future__ import annotations

import shutil

import pytest

import metal_stack
from accelfit.spec.inventory import Inventory


def _project_with_inventory(tmp_path, servers: list[dict]):
    (tmp_path / "stacks" / "inventories").mkdir(parents=True)
    shutil.copy(metal_stack.ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(metal_stack.ROOT / "stacks" / f"Pulumi.{metal_stack.STACK}.yaml",
                tmp_path / "stacks" / f"Pulumi.{metal_stack.STACK}.yaml")
    import yaml
    (tmp_path / "stacks" / "inventories" / "lab-h100.yaml").write_text(
        yaml.safe_dump({"site": "lab-rack-a", "servers": servers}))
    return tmp_path


@pytest.mark.parametrize(("servers", "field", "words"), [
    ([metal_stack.server(1), metal_stack.server(1, address="10.20.9.9")], "servers[1].name", "already used"),
    ([metal_stack.server(1, gpu_model="h110")], "servers[0].gpu_model", "did you mean 'h100-80gb'"),
    ([metal_stack.server(1, gpu_count=12)], "servers[0].gpu_count", "at most 8 per server"),
])
def test_bad_inventory_file_refused_before_anything_is_created(tmp_path, servers, field, words):
    project = _project_with_inventory(tmp_path, servers)
    recording, error = metal_stack.record_stack(project_dir=project)
    assert error is not None and recording.resources == []
    found = {item.field: item.render() for item in error.problems}
    assert field in found, found
    assert words in found[field] and "lab-h100.yaml" in found[field]


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda rows: [*rows, dict(rows[0], address="10.99.0.1")], "servers[4].name", "already used"),
    (lambda rows: [dict(rows[0], gpu_model="h110"), *rows[1:]], "servers[0].gpu_model", "did you mean"),
    (lambda rows: [dict(rows[0], gpu_count=12), *rows[1:]], "servers[0].gpu_count", "at most 8"),
])
def test_component_refuses_an_unvalidated_bad_inventory(change, field, words):
    """Inventories built without validation (model_construct) are checked again by the components."""
    good = metal_stack.make_inventory(4)
    plan = metal_stack.plan_for(good)
    rows = [server.model_dump() for server in good.servers]
    bad = Inventory.model_construct(site=good.site, servers=tuple(
        type(good.servers[0]).model_construct(**row) for row in change(rows)))
    recording, error = metal_stack.record_build(plan, bad)
    assert error is not None and recording.resources == []
    found = {item.field: item.render() for item in error.problems}
    assert field in found, found
    assert words in found[field]


def test_plan_host_missing_from_inventory_is_named():
    inventory = metal_stack.make_inventory(4)
    plan = metal_stack.plan_for(inventory).model_copy(update={"baremetal_hosts": ("gpu-0000", "gpu-0099")})
    recording, error = metal_stack.record_build(plan, inventory)
    assert recording.resources == []
    [problem] = error.problems
    assert problem.field == "servers[name=gpu-0099]" and "lacks" in problem.message


def test_missing_secrets_and_access_config_are_all_reported():
    inventory = metal_stack.make_inventory(2)
    recording, error = metal_stack.record_build(metal_stack.plan_for(inventory), inventory, secrets={})
    assert recording.resources == []
    fields = {item.field for item in error.problems}
    assert {"accelfit:sshPrivateKey", "accelfit:joinToken", "accelfit:kubeconfig"} <= fields
    assert "pulumi config set --secret" in error.render()


def test_site_must_match_the_plan():
    inventory = metal_stack.make_inventory(2)
    plan = metal_stack.plan_for(inventory).model_copy(update={"region": "other-site"})
    recording, error = metal_stack.record_build(plan, inventory)
    assert recording.resources == [] and error.problems[0].field == "site"


def test_a_taint_the_join_would_not_register_is_refused():
    """Nodes get their taints only from the join (the node patch sets labels alone), so a pool taint beyond the
    GPU one would be silently lost."""
    from accelfit.planner.model import Taint

    inventory = metal_stack.make_inventory(2)
    plan = metal_stack.plan_for(inventory)
    pools = tuple(pool.model_copy(update={"taints": (*pool.taints, Taint(key="team", value="a",
                                                                          effect="NoSchedule"))})
                  if pool.role == "gpu" else pool for pool in plan.node_pools)
    recording, error = metal_stack.record_build(plan.model_copy(update={"node_pools": pools}), inventory)
    assert recording.resources == []
    assert error.problems[0].field == "node_pools.taints"


def test_a_trailing_newline_in_the_join_settings_is_refused_before_anything_is_created(monkeypatch):
    """Issue 36 item 6: `^...$` let "10.20.0.5:6443\n" through into the kubeadm JoinConfiguration."""
    inventory = metal_stack.make_inventory(2)
    bad = {"accelfit:joinEndpoint": "10.20.0.5:6443\n", "accelfit:joinCaCertHash": "sha256:" + "ab" * 32 + "\n",
           "accelfit:kubernetesVersion": "1.35\n"}
    monkeypatch.setattr(metal_stack, "ACCESS", bad)
    recording, error = metal_stack.record_build(metal_stack.plan_for(inventory), inventory)
    assert recording.resources == []
    assert {item.field for item in error.problems} == set(bad)
