"""A known-bad prod stack: public GPU nodes, a public TPU VM, LATEST driver, missing labels, SSH open to the
world, an unpinned Helm chart, a public serving endpoint (advisory in prod), a model server image by tag, and a
cost (from a stand-in pricing function) over the prod budget."""

from __future__ import annotations

from types import SimpleNamespace

from policy_resources import edit, gke_gpu_pool, iap_firewall, tpu_vm


def bad_resources() -> list[dict]:
    pool = edit(gke_gpu_pool(), lambda p: (
        p.update(networkConfig={"enablePrivateNodes": False}),
        p["nodeConfig"]["guestAccelerators"][0]["gpuDriverInstallationConfig"].update(gpuDriverVersion="LATEST"),
        p["nodeConfig"]["resourceLabels"].update(environment="prod"),
        p["nodeConfig"]["resourceLabels"].pop("team")))
    vm = edit(tpu_vm(), lambda p: (p["networkConfig"].update(enableExternalIps=True),
                                   p["labels"].update(environment="prod")))
    firewall = edit(iap_firewall(), lambda p: p.update(sourceRanges=["0.0.0.0/0"]))
    chart = {"type": "kubernetes:helm.sh/v3:Release", "name": "gpu-operator",
             "urn": "urn:pulumi:prod::accelfit::kubernetes:helm.sh/v3:Release::gpu-operator",
             "props": {"chart": "gpu-operator", "namespace": "gpu-operator"}, "protect": False, "parent": None}
    from test_policy_serving import gateway, server

    return [pool, vm, firewall, chart, gateway("gke-l7-regional-external-managed"), server("vllm/vllm-openai:v0.13.0")]


def over_budget(resources, catalog):
    return SimpleNamespace(monthly_usd=999_999.0, resources=tuple(
        SimpleNamespace(name=r["name"], monthly_usd=999_999.0 / len(resources)) for r in resources))


EXPECTED = {  # (policy, resource name) the pack must report on the bad stack
    ("no-public-ips-on-accelerators", "llm-train-gpu-pool"),
    ("no-public-ips-on-accelerators", "jax-pretrain-slice-0-vm"),
    ("gke-gpu-driver-pinned", "llm-train-gpu-pool"),
    ("required-ownership-labels", "llm-train-gpu-pool"),
    ("no-ssh-from-world", "llm-train-net-allow-iap-ssh"),
    ("helm-chart-version-pinned", "gpu-operator"),
    ("stack-monthly-budget", ""),
    ("serving-images-pinned-by-digest", "chat-serve-server-gpu"),
}
ADVISORY_IN_PROD = {("private-serving-endpoint", "chat-serve-k8s-chat-serve-route-gateway")}
