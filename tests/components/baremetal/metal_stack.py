"""Shared by the bare-metal tests and benchmark: the example on-prem stack recorded under mocks, mock secrets, and
generated inventories of any size. A uniquely named module (no conftest needed)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from accelfit.errors import InputError
from accelfit.planner.model import CostLine, Estimate, NodePool, Plan, PlanAccelerator, StoragePlan, Taint
from accelfit.preview.recorder import Recording, record
from accelfit.spec.inventory import Inventory
from components.common import Ownership

ROOT = Path(__file__).resolve().parents[3]
STACK = "example-onprem-h100"
# Mock secrets: distinctive strings a test can search every recorded input for.
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nMOCK-KEY-7f3a\n-----END OPENSSH PRIVATE KEY-----\n"
JOIN_TOKEN = "q7w3zt.m0cktok3n91c2abc"
KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []  # MOCK-KUBECONFIG-91c2\n"
SECRETS = {"accelfit:sshPrivateKey": SSH_KEY, "accelfit:joinToken": JOIN_TOKEN, "accelfit:kubeconfig": KUBECONFIG}
ACCESS = {"accelfit:joinEndpoint": "10.20.0.5:6443", "accelfit:joinCaCertHash": "sha256:" + "ab" * 32}


def record_stack(name: str = STACK, project_dir: Path = ROOT, secrets: dict[str, str] | None = None
                 ) -> tuple[Recording, InputError | None]:
    """Run the Pulumi program for a stack file under mocks; an InputError is caught inside the program so a test
    can check that nothing was registered before it. Stack config is read from the repository's stack file (a
    test project may hold a broken inventory, which the program must refuse itself)."""
    from accelfit.stackfile import load_stack
    from components.program import run

    stack = load_stack(name, ROOT)
    config = {**stack.pulumi_config(), **(SECRETS if secrets is None else secrets)}
    caught: list[InputError] = []

    def program() -> None:
        try:
            run(project_dir)
        except InputError as error:
            caught.append(error)

    recording = record(program, project=stack.project, stack=stack.name, config=config)
    return recording, (caught[0] if caught else None)


def server(index: int, **changes) -> dict:
    row = {"name": f"gpu-{index:04d}", "address": f"10.{20 + index // 65536}.{index // 256 % 256}.{index % 256}",
           "ssh_user": "ops", "gpu_model": "h100-80gb", "gpu_count": 8, "cpu_cores": 112, "memory_gib": 2048,
           "nvme_tb": 30, "network_gbps": 3200, "rack": f"r{index // 32}"}
    row.update(changes)
    return row


def make_inventory(servers: int) -> Inventory:
    return Inventory.model_validate({"site": "lab-rack-a", "servers": [server(i) for i in range(servers)]})


def plan_for(inventory: Inventory, workload: str = "lab-finetune") -> Plan:
    """A bare-metal plan using every server of `inventory` (what the planner makes when the deadline needs all)."""
    hosts = tuple(item.name for item in inventory.servers)
    first = inventory.servers[0]
    devices = first.gpu_count * len(hosts)
    pool = NodePool(name="gpu", role="gpu", machine_type=f"{first.gpu_model}x{first.gpu_count}",
                    accelerator=first.gpu_model, accelerators_per_node=first.gpu_count, min_nodes=len(hosts),
                    max_nodes=len(hosts), initial_nodes=len(hosts), zones=(inventory.site,),
                    taints=(Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule"),),
                    labels={"accelfit.io/role": "training", "accelfit.io/workload": workload,
                            "accelfit.io/accelerator": first.gpu_model},
                    compact_placement=True, driver_version="580.178.04")
    return Plan(
        workload=workload, kind="fine-tuning", framework="pytorch", environment="staging", option="example",
        platform="baremetal-gpu", cloud="onprem", region=inventory.site, zones=(inventory.site,), pricing="owned",
        orchestration="kubernetes",
        accelerator=PlanAccelerator(name=first.gpu_model, kind="gpu", count=devices,
                                    instance_type=pool.machine_type, nodes=len(hosts), per_node=first.gpu_count),
        node_pools=(pool,), baremetal_hosts=hosts, storage=StoragePlan(dataset_tb=2, checkpoint_tb=0.2),
        estimate=Estimate(hours=93, accelerator_hours=93.0 * devices, devices=devices, memory_per_device_gib=18,
                          monthly_usd=100, total_usd=100,
                          breakdown=(CostLine(item="compute", monthly_usd=100, total_usd=100),)),
        reasons=("hand-built",), catalog_as_of=dt.date(2026, 11, 21))


def ownership(plan: Plan) -> Ownership:
    return Ownership(team="research-llm", cost_center="cc-4410", environment=plan.environment,
                     workload=plan.workload)


def record_build(plan: Plan, inventory: Inventory | None, secrets: dict[str, str] | None = None
                 ) -> tuple[Recording, InputError | None]:
    """components.build for a bare-metal plan under mocks, access config included."""
    from components.build import build

    caught: list[InputError] = []

    def program() -> None:
        try:
            build(plan, ownership(plan), inventory=inventory)
        except InputError as error:
            caught.append(error)

    recording = record(program, config={**ACCESS, **(SECRETS if secrets is None else secrets)})
    return recording, (caught[0] if caught else None)
