"""The serving route answers (issue 33, "Serving that answers"), shown on the shipped serving stacks' previews:
GKE health-checks a path vLLM serves and gives requests the route's timeout; KEDA's operator is granted the metric
read as a principal GKE authorizes directly; NGINX Gateway Fabric gets the route timeout through the policy it
applies; the EKS server starts after its Pod Identity association; GKE's own InferencePool CRD is not re-applied."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import yaml

from accelfit.planner.serving.gke_crds import gke_managed_crds, gke_manages_inference_pool, gke_version
from accelfit.planner.serving.traffic import serving_traffic_facts
from accelfit.preview.recorder import PREVIEW_PROJECT_NUMBER
from accelfit.preview.run import preview_stack
from components.kubernetes.serving.traffic_addons import manifests_for
from test_preview_stack import with_secrets_set

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "checks"))
from k8s_schemas import Report, crds, custom_resource_problems  # noqa: E402

DATA = ROOT / "tests" / "components" / "kubernetes" / "data"
FACTS = yaml.safe_load((DATA / "health_check_facts.yaml").read_text())
CHART = yaml.safe_load((DATA / "gaie_inferencepool_chart_v1.3.1.yaml").read_text())
GKE_STACKS = ("example-gcp-vllm-serving", "example-gcp-vllm-mixed-fleet")
EKS_STACK = "example-aws-vllm-serving"


@pytest.fixture(scope="module")
def documents():
    return {stack: preview_stack(stack, with_secrets_set(stack)).document for stack in (*GKE_STACKS, EKS_STACK)}


def kind(document, name):
    return [row for row in document["resources"] if row["inputs"].get("kind") == name]


def servers(document):
    return [row for row in kind(document, "Deployment")
            if row["inputs"]["spec"]["template"]["metadata"]["labels"].get("app.kubernetes.io/name") == "vllm"]


def seconds(duration: str) -> int:
    assert duration.endswith("s"), duration
    return int(duration[:-1])


# --- 1. GKE: the health check asks for what a ready vLLM answers ---

@pytest.mark.parametrize("stack", GKE_STACKS)
def test_every_gke_inference_pool_is_health_checked_on_a_path_and_port_vllm_serves(documents, stack):
    document = documents[stack]
    pools = kind(document, "InferencePool")
    policies = {(row["inputs"]["metadata"]["namespace"], row["inputs"]["spec"]["targetRef"]["name"]): row["inputs"]
                for row in kind(document, "HealthCheckPolicy")}
    assert pools and len(policies) == len(pools)
    ports = {port["containerPort"] for row in servers(document)
             for port in row["inputs"]["spec"]["template"]["spec"]["containers"][0]["ports"]}
    for row in pools:
        pool = row["inputs"]
        policy = policies[(pool["metadata"]["namespace"], pool["metadata"]["name"])]
        assert policy["spec"]["targetRef"]["kind"] == "InferencePool"
        check = policy["spec"]["default"]["config"]["httpHealthCheck"]
        assert check["requestPath"] in FACTS["vllm_get_routes"], FACTS["vllm_health_source"]
        assert check["port"] == pool["spec"]["targetPorts"][0]["number"] and check["port"] in ports
        assert check["portSpecification"] == "USE_FIXED_PORT"
    # Without the policy GKE would ask for "/", which no vLLM route answers.
    assert FACTS["gke_default_request_path"] not in FACTS["vllm_get_routes"], FACTS["gke_default_source"]


@pytest.mark.parametrize("stack", GKE_STACKS)
def test_gke_requests_get_the_routes_timeout_from_the_backend_policy(documents, stack):
    document = documents[stack]
    policies = kind(document, "GCPBackendPolicy")
    assert len(policies) == len(kind(document, "InferencePool"))
    timeout = seconds(serving_traffic_facts().gateway.request_timeout)
    for row in policies:
        assert row["inputs"]["spec"]["default"]["timeoutSec"] == timeout == 300
        assert row["inputs"]["spec"]["targetRef"]["kind"] == "InferencePool"


def test_the_charts_own_port_only_health_check_is_refused_by_the_crd_gke_serves(documents):
    """Why portSpecification is set: the chart's rendering fails the HealthCheckPolicy CRD's CEL rule."""
    policy = kind(documents[GKE_STACKS[0]], "HealthCheckPolicy")[0]["inputs"]
    crd = crds()[("networking.gke.io/v1", "HealthCheckPolicy")]
    assert custom_resource_problems(policy, crd, Report()) == []
    charts = copy.deepcopy(policy)
    charts["spec"]["default"]["config"] = CHART["gke_objects"]["HealthCheckPolicy/chat"]["spec"]["default"]["config"]
    problems = custom_resource_problems(charts, crd, Report())
    assert any("port and portName must be unset" in problem for problem in problems), problems


def test_eks_has_no_gke_policies(documents):
    assert not kind(documents[EKS_STACK], "HealthCheckPolicy") and not kind(documents[EKS_STACK], "GCPBackendPolicy")


# --- 2. KEDA's identity on GKE ---

@pytest.mark.parametrize("stack", GKE_STACKS)
def test_keda_reads_managed_prometheus_as_a_workload_identity_principal(documents, stack):
    members = [row["inputs"] for row in documents[stack]["resources"]
               if row["type"] == "gcp:projects/iAMMember:IAMMember"
               and row["inputs"]["role"] == "roles/monitoring.viewer"]
    assert len(members) == 1
    project = members[0]["project"]
    assert members[0]["member"] == (
        f"principal://iam.googleapis.com/projects/{PREVIEW_PROJECT_NUMBER}/locations/global/workloadIdentityPools/"
        f"{project}.svc.id.goog/subject/ns/keda/sa/keda-operator")


def test_the_principal_names_the_project_number_the_look_up_returns():
    from pulumi_gcp import organizations, projects

    from accelfit.preview.recorder import record
    from components.kubernetes.serving.traffic_addons import metrics_reader_member

    def program() -> None:
        number = organizations.get_project_output(project_id="acme-ml").number
        projects.IAMMember("reader", project="acme-ml", role="roles/monitoring.viewer",
                           member=number.apply(lambda value: metrics_reader_member("acme-ml", value)))

    recording = record(program, call_results=lambda args: {"number": "123456789012"}
                       if args.token == "gcp:organizations/getProject:getProject" else {})
    assert recording.named("reader").inputs["member"] == (
        "principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/"
        "acme-ml.svc.id.goog/subject/ns/keda/sa/keda-operator")


# --- 4. NGINX Gateway Fabric: the route timeout through what it applies ---

def test_eks_route_timeout_is_a_proxy_settings_policy_on_the_route(documents):
    document = documents[EKS_STACK]
    routes = kind(document, "HTTPRoute")
    policies = kind(document, "ProxySettingsPolicy")
    assert routes and len(policies) == len(routes)
    for route, policy in zip(routes, policies, strict=True):
        assert "timeouts" not in route["inputs"]["spec"]["rules"][0]  # NGF 2.6.7 ignores it: not promised
        spec = policy["inputs"]["spec"]
        assert spec["targetRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute",
                                       "name": route["inputs"]["metadata"]["name"]}]
        assert seconds(spec["timeout"]["read"]) == 300 > 60  # above nginx's default proxy_read_timeout
        assert policy["inputs"]["metadata"]["namespace"] == route["inputs"]["metadata"]["namespace"]
        assert route["urn"] in policy["dependencies"]
    for stack in GKE_STACKS:  # GKE applies HTTPRoute timeouts: kept as the chart renders them
        assert all(row["inputs"]["spec"]["rules"][0]["timeouts"] == {"request": "300s"}
                   for row in kind(documents[stack], "HTTPRoute"))


def test_the_proxy_settings_crd_catches_a_breach(documents):
    policy = copy.deepcopy(kind(documents[EKS_STACK], "ProxySettingsPolicy")[0]["inputs"])
    crd = crds()[("gateway.nginx.org/v1alpha1", "ProxySettingsPolicy")]
    assert custom_resource_problems(policy, crd, Report()) == []
    policy["spec"]["timeout"]["read"] = "5 minutes"
    assert custom_resource_problems(policy, crd, Report())


# --- 5. The EKS server after its Pod Identity association ---

def test_the_eks_server_waits_for_its_pod_identity_association(documents):
    document = documents[EKS_STACK]
    associations = {row["inputs"]["serviceAccount"]: row["urn"] for row in document["resources"]
                    if row["type"] == "aws:eks/podIdentityAssociation:PodIdentityAssociation"}
    rows = servers(document)
    assert rows
    for row in rows:
        account = row["inputs"]["spec"]["template"]["spec"]["serviceAccountName"]
        assert associations[account] in row["dependencies"], row["name"]


# --- 6. GKE's own InferencePool CRD ---

@pytest.mark.parametrize("stack", GKE_STACKS)
def test_gke_stacks_do_not_apply_the_inference_pool_crd_gke_manages(documents, stack):
    files = [row["inputs"]["file"] for row in documents[stack]["resources"]
             if row["type"] == "kubernetes:yaml/v2:ConfigFile"]
    assert serving_traffic_facts().manifests["inference_crds"] not in files
    assert any(file.endswith("keda-2.18.3.yaml") for file in files)
    eks_files = [row["inputs"]["file"] for row in documents[EKS_STACK]["resources"]
                 if row["type"] == "kubernetes:yaml/v2:ConfigFile"]
    assert serving_traffic_facts().manifests["inference_crds"] in eks_files  # EKS installs no CRD itself


def test_the_rule_applies_the_crd_on_a_gke_version_that_does_not_manage_it():
    data = gke_managed_crds()
    assert all(gke_manages_inference_pool(channel) for channel in ("RAPID", "REGULAR", "STABLE"))
    older = data.model_copy(update={"channel_floor": {**data.channel_floor, "STABLE": "1.33.5-gke.2019000"}})
    assert not gke_manages_inference_pool("STABLE", older)
    assert gke_manages_inference_pool("REGULAR", older)
    assert gke_version("1.34.0-gke.1626000") < gke_version("1.34.1-gke.3971000") < gke_version("1.35.0-gke.1")
    assert [role for role, _ in manifests_for("gcp", inference_crds=True)] == ["inference-crds", "keda"]
    assert [role for role, _ in manifests_for("gcp", inference_crds=False)] == ["keda"]
    with pytest.raises(ValueError):
        gke_version("1.34")
