"""The stack config keys accelfit reads, one row each: its name, what it holds (a JSON Schema fragment) and what it
does. The one table behind the loader's list of known keys (`accelfit.stackfile.PROJECT_KEYS`: any other
`accelfit:*` key is refused as a typo) and behind the stack-file schema `accelfit schema --stack-file` prints
(accelfit.stackschema), so the two cannot drift.

The fragments say what a value's shape is; the checks that need more than a shape (a region the clouds publish,
an environment that exists, a namespace the stack may own) stay in the loader and the stack rules
(accelfit.stackrules), which the schema's patterns are taken from where they are regular expressions. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from accelfit.cloudrules.aws.zone_offerings import ZONE_ID
from accelfit.clouds import all_clouds, cloud_named, hook
from accelfit.stackrules.eks_access import IAM_PRINCIPAL
from accelfit.stackrules.namespaces import DNS_LABEL
from accelfit.values import CA_CERT_HASH, JOIN_ENDPOINT, KUBERNETES_MINOR

# The environments a stack may name (`accelfit:environment`; default: the stack's name).
ENVIRONMENTS = ("dev", "staging", "prod")
# GCP label values (the strictest of the clouds' tag rules): lowercase letters, digits, '-', '_', at most 63.
LABEL_VALUE = re.compile(r"^[a-z0-9]([-_a-z0-9]{0,61}[a-z0-9])?\Z")
# A fleet's name labels its shared resources and prefixes their names, as a workload's name does in a single stack:
# a label value that is also a DNS label (no '_'), short enough for a second cluster's `-2` suffix
# (accelfit.planner.fleet.clusters.MAX_FLEET_NAME_CHARS).
FLEET_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,35}[a-z0-9])?\Z")
# Google Cloud project ids: https://cloud.google.com/resource-manager/docs/creating-managing-projects (as of
# 2026-11-23): 6 to 30 characters, lowercase letters, digits and hyphens, starting with a letter.
GCP_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]\Z")
# `true`/`false` in any case: the Pulumi CLI passes a boolean to the program as text (accelfit.lock_setting).
BOOLEAN_TEXT = re.compile(r"^\s*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\s*\Z")


def json_pattern(regex: re.Pattern[str]) -> str:
    """A Python pattern as a JSON Schema `pattern` (ECMA-262, searched, not matched): anchored at both ends, with
    Python's end-of-text `\\Z` written as `$` (ECMA's `$` without the multiline flag is the end of the text) and
    named groups plain (Python spells them `(?P<name>`, ECMA `(?<name>`: validators in either language read `(`)."""
    text = re.sub(r"\(\?P<\w+>", "(", regex.pattern.removesuffix(r"\Z"))
    return ("" if text.startswith("^") else "^") + text + "$"


def _text(regex: re.Pattern[str] | None = None) -> dict[str, Any]:
    return {"type": "string"} if regex is None else {"type": "string", "pattern": json_pattern(regex)}


def _list_of(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "minItems": 1, "items": item}


def _regions(cloud: str) -> Callable[[], Iterable[str]]:
    """A cloud's published regions (accelfit/spec/data/regions.yaml, the list the loader checks against), read when
    the schema is built."""
    def values() -> Iterable[str]:
        from accelfit.spec.regions import cloud_regions

        return sorted(cloud_regions()[cloud])
    return values


@dataclass(frozen=True)
class StackKey:
    name: str  # bare for the project's namespace (`team`), qualified for a provider's (`gcp:project`)
    description: str
    shape: dict[str, Any]  # a JSON Schema fragment; "$ref": "#/$defs/..." names the models stackschema adds
    secret: bool = False  # may be (and, for credentials, should be) `{secure: ...}`, written by `pulumi config set --secret`
    values: Callable[[], Iterable[str]] | None = None  # an enum, read at schema time (shipped data, or the loader's)


def _project_environments() -> Iterable[str]:
    """The environments of the project the schema is printed in (accelfit.environments); the shipped ones outside
    a project."""
    from accelfit.environments import environment_names, nearest_project_dir

    return environment_names(nearest_project_dir())


def _cidrs() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "description": "a CIDR range, e.g. 203.0.113.0/24"}}



ACCELFIT_KEYS: tuple[StackKey, ...] = (
    StackKey("environment", "An environment of the project, one per policies/config/<name>.json (dev, staging, prod "
             "as shipped; `accelfit env new NAME --from ENV` adds one; default: the stack's name); selects policy "
             "enforcement and defaults such as deletion protection.", {"type": "string"},
             values=lambda: _project_environments()),
    StackKey("team", "Owning team; every resource is labelled with it (a label value).", _text(LABEL_VALUE),
             secret=True),
    StackKey("costCenter", "Cost center charged for the resources; every resource is labelled with it.",
             _text(LABEL_VALUE), secret=True),
    StackKey("workload", "The stack's one workload spec (`accelfit schema` describes it). A stack holds "
             "accelfit:workload or accelfit:workloads, never both.", {"$ref": "#/$defs/WorkloadSpec"}),
    StackKey("workloads", "A fleet: its workload specs, in order, names unique (accelfit check says so).",
             _list_of({"$ref": "#/$defs/WorkloadSpec"})),
    StackKey("fleet", "The fleet's name (labels and prefixes the shared resources); default: the stack's name. "
             "Fleet stacks only.", _text(FLEET_NAME)),
    StackKey("selection", "Written by `accelfit lock`: the locked option (single form) or each workload's, by "
             "workload name (fleet form).", {"type": "object"}),  # each form's shape: accelfit.stackschema
    StackKey("teamNamespaces", "The namespaces a single-form stack's pods run in (each gets a Namespace, a "
             "LocalQueue and its workload identity); not default, kube-* or an add-on's.", _list_of(_text(DNS_LABEL))),
    StackKey("sshPrivateKey", "Bare metal: the SSH key the program reaches the servers with.", _text(), secret=True),
    StackKey("joinToken", "Bare metal: the kubeadm bootstrap token the servers join with.", _text(), secret=True),
    StackKey("kubeconfig", "Bare metal: the kubeconfig of the cluster the servers join.", _text(), secret=True),
    StackKey("joinEndpoint", "Bare metal: the API server the servers join, host:port.", _text(JOIN_ENDPOINT)),
    StackKey("managerKubeconfig", "Hybrid (placement.overflow): the kubeconfig of the MultiKueue manager cluster "
             "that dispatches the workload's jobs, owned cluster first.", _text(), secret=True),
    StackKey("joinCaCertHash", "Bare metal: the cluster CA's public-key hash, sha256:<64 hex digits> (kubeadm "
             "token create --print-join-command).", _text(CA_CERT_HASH)),
    StackKey("kubernetesVersion", "Bare metal: the control plane's Kubernetes minor version, quoted (\"1.35\").",
             _text(KUBERNETES_MINOR)),
    StackKey("eksAdminPrincipals", "IAM role/user ARNs given cluster-admin access entries on the EKS cluster.",
             {"type": "array", "items": _text(IAM_PRINCIPAL)}),
    StackKey("eksEndpointAccess", "Who reaches the EKS API: public (restricted to eksPublicAccessCidrs) or private.",
             {"type": "string", "enum": ["public", "private"]}),
    StackKey("eksPrivateAccessCidrs", "Private EKS endpoint: the ranges admitted on TCP 443.", _cidrs()),
    StackKey("eksPublicAccessCidrs", "Public EKS endpoint: the ranges it is open to (required, non-empty, when "
             "the endpoint is public).", _cidrs()),
    StackKey("awsZoneIds", "AWS: zone name -> zone ID of this account "
             "(aws ec2 describe-availability-zones), to check each pool zone offers its instance type.",
             {"type": "object", "additionalProperties": _text(ZONE_ID)}),
    StackKey("controlPlane", "Who reaches a GKE control plane.",
             {"type": "object", "additionalProperties": False, "properties": {
                 "authorizedCidrs": _cidrs(), "dnsEndpoint": {"type": "boolean"}}}),
    StackKey("requireLock", "true: every build needs `accelfit lock` first (as ACCELFIT_LOCKED=1 does).",
             {"anyOf": [{"type": "boolean"}, _text(BOOLEAN_TEXT)]}),
    StackKey("expiresAt", "Ephemeral stacks (`accelfit ephemeral up`): when it expires, a UTC instant "
             "2026-11-29T20:00:00Z; every resource is labelled expires-at with it and `accelfit ephemeral sweep` "
             "destroys the stack after it.", _text(re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z"))),
    StackKey("hfToken", "The Hugging Face token hf:// weights download with (model.weights_token: accelfit:hfToken).",
             _text(), secret=True),
)

# The provider keys accelfit reads itself, per cloud (named by its record's `stack_keys`); a provider's other keys
# (credentials, profiles) are the provider's own.
GCP_KEYS: tuple[StackKey, ...] = (
    StackKey("gcp:project", "The Google Cloud project id (6-30 lowercase letters, digits or '-').",
             _text(GCP_PROJECT), secret=True),
    StackKey("gcp:region", "The Google Cloud region the stack builds in.", {"type": "string"}, values=_regions("gcp")),
    StackKey("gcp:zone", "The Google Cloud zone, <region>-<letter>.", _text(re.compile(cloud_named("gcp").zone_pattern))),
)
AWS_KEYS: tuple[StackKey, ...] = (
    StackKey("aws:region", "The AWS region the stack builds in (the AWS provider needs one).", {"type": "string"},
             values=_regions("aws")),
)


def provider_keys() -> tuple[StackKey, ...]:
    """Every registered cloud's provider keys (its record's `stack_keys` hook), in the registry's order."""
    return tuple(key for cloud in all_clouds() if cloud.stack_keys for key in hook(cloud.stack_keys))


def __getattr__(name: str) -> Any:
    # PROVIDER_KEYS follows the registry: a cloud registered after import adds its keys.
    if name == "PROVIDER_KEYS":
        return provider_keys()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

PROJECT_KEYS: tuple[str, ...] = tuple(key.name for key in ACCELFIT_KEYS)
