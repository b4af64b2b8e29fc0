"""`accelfit check` refuses everything `preview` refuses (issue 33; issue 36 item 7): one broken stack file per
refusal a stack's settings can cause, each refused with exit 2 by both, naming the file and the field. The stack
rules are one list (accelfit.stackrules) that check, plan, lock and the program run; the walk below fails when a
rule has no broken stack here, or when the components read a config key no rule or loader check covers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from accelfit.cli.main import main
from accelfit.stackfile import PROJECT_KEYS
from accelfit.stackrules import AFTER_PLAN, BEFORE_PLAN
from tests.stackrules.stack_copies import DELETE, ROOT, project, write_stack

DEV, AWS, AWS_SERVING, FLEET, ONPREM = ("dev", "example-aws-l4-inference", "example-aws-vllm-serving",
                                        "example-gcp-fleet", "example-onprem-h100")

# (id, the rule that refuses it, base stack, config changes, spec changes, words the message carries)
BROKEN = [
    # The loader's rules (load_stack_file: every command and the program read the stack through it).
    ("key-typo", "loader", DEV, {"accelfit:teamNamespace": ["research"]}, {}, "did you mean accelfit:teamNamespaces"),
    ("plaintext-secret-prod", "loader", ONPREM, {"accelfit:environment": "prod",
                                                  "accelfit:joinToken": "abcdef.0123456789abcdef"}, {},
     "which prod refuses"),
    ("region-typo", "stack-region", DEV, {"gcp:region": "us-central-1"}, {}, "config.gcp:region"),
    ("zone-outside-region", "stack-region", DEV, {"gcp:zone": "us-east5-a"}, {}, "config.gcp:zone"),
    ("regions-disagree", "stack-region", AWS, {"aws:region": "us-west-2"}, {}, "placement.regions"),
    # The rules that need the plan (plan_stack_fleet: check, plan, lock and the program).
    ("gcp-project-missing", "provider-config", DEV, {"gcp:project": DELETE}, {}, "config.gcp:project"),
    ("aws-region-missing", "provider-config", AWS, {"aws:region": DELETE}, {}, "config.aws:region"),
    ("eks-public-cidrs-missing", "eks-api-access", AWS, {"accelfit:eksPublicAccessCidrs": DELETE}, {},
     "config.accelfit:eksPublicAccessCidrs"),
    ("eks-cidr-everyone", "eks-api-access", AWS, {"accelfit:eksPublicAccessCidrs": ["0.0.0.0/0"]}, {},
     "config.accelfit:eksPublicAccessCidrs[0]"),
    ("eks-cidr-malformed", "eks-api-access", AWS, {"accelfit:eksPrivateAccessCidrs": ["10.0.0.0/33"]}, {},
     "config.accelfit:eksPrivateAccessCidrs[0]"),
    ("eks-private-with-public", "eks-api-access", AWS, {"accelfit:eksEndpointAccess": "private"}, {},
     "set, but the endpoint is private"),
    ("eks-endpoint-unknown", "eks-api-access", AWS, {"accelfit:eksEndpointAccess": "open"}, {},
     "must be public or private"),
    ("eks-admin-not-arn", "eks-api-access", AWS, {"accelfit:eksAdminPrincipals": ["bob"]}, {},
     "config.accelfit:eksAdminPrincipals[0]"),
    ("eks-cidrs-not-a-list", "eks-api-access", AWS, {"accelfit:eksPublicAccessCidrs": "203.0.113.0/24"}, {},
     "must be a list of strings"),
    ("zone-ids-malformed", "aws-zone-ids", AWS, {"accelfit:awsZoneIds": {"us-east-1a": "az-one"}}, {},
     "config.accelfit:awsZoneIds"),
    ("zone-ids-not-offered", "aws-zone-ids", AWS, {"accelfit:awsZoneIds": {"us-east-1a": "use1-az3",
                                                                          "us-east-1b": "use1-az5"}}, {},
     "g6.12xlarge is not offered in us-east-1a"),
    ("control-plane-not-a-mapping", "gke-control-plane", DEV, {"accelfit:controlPlane": "private"}, {},
     "config.accelfit:controlPlane"),
    ("control-plane-cidr", "gke-control-plane", DEV, {"accelfit:controlPlane": {"authorizedCidrs": ["office"]}},
     {}, "config.accelfit:controlPlane.authorizedCidrs"),
    ("control-plane-dns", "gke-control-plane", DEV, {"accelfit:controlPlane": {"dnsEndpoint": "yes"}}, {},
     "config.accelfit:controlPlane.dnsEndpoint"),
    ("namespace-kube-system", "team-namespaces", DEV, {"accelfit:teamNamespaces": ["kube-system"]}, {},
     "config.accelfit:teamNamespaces[0]"),
    ("namespace-kube-prefix", "team-namespaces", DEV, {"accelfit:teamNamespaces": ["research", "kube-team"]}, {},
     "config.accelfit:teamNamespaces[1]"),
    ("namespace-default", "team-namespaces", DEV, {"accelfit:teamNamespaces": ["default"]}, {},
     "a namespace Kubernetes creates and owns"),
    ("namespace-addon", "team-namespaces", DEV, {"accelfit:teamNamespaces": ["kueue-system"]}, {},
     "one of accelfit's add-ons"),
    ("namespace-not-a-label", "team-namespaces", DEV, {"accelfit:teamNamespaces": ["Team_A"]}, {},
     "not a Kubernetes namespace name"),
    ("namespace-trailing-newline", "team-namespaces", DEV, {"accelfit:teamNamespaces": ["research\n"]}, {},
     "not a Kubernetes namespace name"),
    ("namespaces-empty", "team-namespaces", DEV, {"accelfit:teamNamespaces": []}, {}, "non-empty list"),
    ("namespaces-in-a-fleet", "team-namespaces", FLEET, {"accelfit:teamNamespaces": ["research"]}, {},
     "a fleet gives each workload its own namespace"),
    ("namespace-of-an-eks-server", "team-namespaces", AWS_SERVING, {"accelfit:teamNamespaces": ["research"]}, {},
     "the model server on EKS runs in namespace chat-vllm"),
    ("join-endpoint-missing", "host-access", ONPREM, {"accelfit:joinEndpoint": DELETE}, {},
     "config.accelfit:joinEndpoint"),
    ("join-endpoint-newline", "host-access", ONPREM, {"accelfit:joinEndpoint": "10.20.0.5:6443\n"}, {},
     "config.accelfit:joinEndpoint"),
    ("join-hash-malformed", "host-access", ONPREM, {"accelfit:joinCaCertHash": "sha256:abc"}, {},
     "config.accelfit:joinCaCertHash"),
    ("kubernetes-version-malformed", "host-access", ONPREM, {"accelfit:kubernetesVersion": "v1.35"}, {},
     "config.accelfit:kubernetesVersion"),
    ("sxm-on-a-pcie-gpu", "baremetal-plan", ONPREM, {}, {"placement.inventory": "inventories/lab-l40s.yaml",
                                                         "training.deadline_days": 60},
     "l40s is not made as an SXM module"),
]


def run(capsys, monkeypatch, root: Path, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


# The file a problem names when it is not the stack file: an inventory's own field.
NAMED_FILE = {"sxm-on-a-pcie-gpu": "inventories/lab-l40s.yaml"}


def _sxm_l40s_inventory(root: Path) -> None:
    """The lab inventory with L40S servers still marked sxm (L40S is a PCIe card: host_packages.yaml)."""
    text = (ROOT / "stacks" / "inventories" / "lab-h100.yaml").read_text(encoding="utf-8")
    (root / "stacks" / "inventories" / "lab-l40s.yaml").write_text(text.replace("h100-80gb", "l40s"),
                                                                   encoding="utf-8")


@pytest.fixture
def no_aws_env(monkeypatch):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("case", "rule", "base", "config", "spec", "words"), BROKEN, ids=[row[0] for row in BROKEN])
def test_check_refuses_what_preview_refuses(tmp_path, capsys, monkeypatch, no_aws_env, case, rule, base, config,
                                            spec, words):
    root = project(tmp_path)
    _sxm_l40s_inventory(root)
    name = write_stack(root, base, "broken", config, spec)
    named = NAMED_FILE.get(case, "Pulumi.broken.yaml")
    code, output = run(capsys, monkeypatch, root, "preview", "--stack", name)
    assert code == 2, output
    assert words in output and named in output and "Traceback" not in output, output
    code, output = run(capsys, monkeypatch, root, "check", f"stacks/Pulumi.{name}.yaml")
    assert code == 2, output
    assert words in output and named in output and "Traceback" not in output, output


# One broken stack per rule is enough to show plan and lock run the same list (they share the code path).
ONE_PER_RULE = list({row[1]: row for row in BROKEN}.values())


@pytest.mark.parametrize(("case", "rule", "base", "config", "spec", "words"), ONE_PER_RULE,
                         ids=[row[1] for row in ONE_PER_RULE])
def test_plan_and_lock_refuse_it_too(tmp_path, capsys, monkeypatch, no_aws_env, case, rule, base, config, spec,
                                     words):
    root = project(tmp_path)
    _sxm_l40s_inventory(root)
    name = write_stack(root, base, "broken", config, spec)
    before = (root / "stacks" / "Pulumi.broken.yaml").read_bytes()
    for command in (("plan", "--stack", name), ("lock", "--stack", name)):
        code, output = run(capsys, monkeypatch, root, *command)
        assert code == 2 and words in output, (command, output)
    assert (root / "stacks" / "Pulumi.broken.yaml").read_bytes() == before


def test_every_shipped_stack_passes_every_rule(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        code, output = run(capsys, monkeypatch, root, "check", f"stacks/{path.name}")
        assert code == 0, output


def test_every_rule_has_a_broken_stack():
    """A rule added to the list without a broken stack here would be unshown; cloud-rules are shown by
    tests/cloudrules/test_stack_checks.py (a plan cannot be broken from a stack file without the planner's fault)."""
    rules = {check.name for check in (*BEFORE_PLAN, *AFTER_PLAN)} - {"cloud-rules"}
    assert rules - {row[1] for row in BROKEN} == set()


# Keys the loader itself checks (load_stack_file: type, value, secrets), and the secrets the program reads, which
# the offline preview stands in for when unset (`pulumi up` requires them).
LOADER_KEYS = {"environment", "team", "costCenter", "workload", "workloads", "fleet", "selection", "requireLock",
               "gcp:project", "expiresAt"}
SECRET_KEYS = {"sshPrivateKey", "joinToken", "kubeconfig", "hfToken"}


def _component_config_reads() -> set[str]:
    """Every config key components/ reads: `pulumi.Config(...)`'s getters and `stack_value(...)`, by their
    literal key (the `gcp` namespace qualified)."""
    keys = set()
    for path in (ROOT / "components").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.Constant) \
                    or not isinstance(node.args[0].value, str):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "stack_value" or (name in ("get", "get_object", "require", "get_secret", "get_bool",
                                                  "require_object", "get_int") and _on_config(func)):
                namespace = _namespace(func)
                keys.add(f"{namespace}:{node.args[0].value}" if namespace else node.args[0].value)
    return keys


def _on_config(func: ast.AST) -> bool:
    target = func.value if isinstance(func, ast.Attribute) else None
    return (isinstance(target, ast.Call) and getattr(target.func, "attr", "") == "Config") or (
        isinstance(target, ast.Name) and target.id == "config")


def _namespace(func: ast.AST) -> str | None:
    target = func.value if isinstance(func, ast.Attribute) else None
    if isinstance(target, ast.Call) and target.args and isinstance(target.args[0], ast.Constant):
        return target.args[0].value
    return None


def test_every_config_key_the_components_read_is_checked_before_the_build():
    """Walk the error paths: a config value a component refuses must be refused by a rule `check` runs first."""
    read = _component_config_reads()
    assert {"teamNamespaces", "awsZoneIds", "controlPlane", "joinEndpoint", "gcp:project"} <= read
    checked = {key for check in (*BEFORE_PLAN, *AFTER_PLAN) for key in check.keys} | LOADER_KEYS | SECRET_KEYS
    assert read - checked == set()
    assert {key for key in checked if ":" not in key} <= set(PROJECT_KEYS)


def test_the_addon_namespaces_are_the_charts():
    """The namespaces the Kubernetes layer installs into, from its chart data and the serving add-ons' constants."""
    import yaml

    from accelfit.stackrules.namespaces import ADDON_NAMESPACES, RESERVED_PREFIX
    from components.kubernetes.serving.traffic_addons import KEDA_NAMESPACE

    charts = yaml.safe_load((ROOT / "components" / "kubernetes" / "data" / "charts.yaml").read_text())["charts"]
    used = {chart["namespace"] for chart in charts.values()} | {KEDA_NAMESPACE}
    assert {name for name in used if not name.startswith(RESERVED_PREFIX)} == set(ADDON_NAMESPACES)


def test_no_stack_rule_lives_only_in_a_component():
    """The components that read these settings call the stack rules' validators (no second copy of a pattern)."""
    for relative in ("kubernetes/namespaces.py", "aws/cluster_access.py", "baremetal/access.py", "gcp/stack.py",
                     "aws/zone_offerings.py"):
        text = (ROOT / "components" / relative).read_text(encoding="utf-8")
        assert not re.search(r"re\.compile\(|ipaddress\.", text), relative
