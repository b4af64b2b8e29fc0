"""How accelfit reaches owned servers and their cluster, read from stack config. Secrets stay Pulumi secrets.

    pulumi config set --secret accelfit:sshPrivateKey < ~/.ssh/accelfit_ed25519
    pulumi config set --secret accelfit:joinToken "$(kubeadm token generate)"  # accelfit keeps it valid
    pulumi config set accelfit:kubernetesVersion 1.35                  # optional: else read from the API server
    pulumi config set --secret accelfit:kubeconfig < admin.kubeconfig
    pulumi config set accelfit:joinEndpoint 10.20.0.5:6443          # the API server hosts join
    pulumi config set accelfit:joinCaCertHash sha256:<hex>          # kubeadm's discovery hash (public)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi

from accelfit.errors import InputError, Problem, problem
from accelfit.stackrules.host_access import host_access_problems
from components.stack_config import stack_value

SECRET_KEYS = {
    "sshPrivateKey": "pulumi config set --secret accelfit:sshPrivateKey < ~/.ssh/<key>",
    "joinToken": "pulumi config set --secret accelfit:joinToken \"$(kubeadm token generate)\"",
    "kubeconfig": "pulumi config set --secret accelfit:kubeconfig < <admin kubeconfig of the cluster>",
}


def _structured(full_key: str) -> bool:
    """Whether a config value was set as a mapping or a list (the CLI passes those to the program as JSON text).
    Read raw, without `Config.get`'s plaintext-secret warning; the value is never shown."""
    raw = pulumi.runtime.config.get_config(full_key)
    if not isinstance(raw, str) or not raw.lstrip().startswith(("{", "[")):
        return False
    try:
        return isinstance(json.loads(raw), (dict, list))
    except ValueError:
        return False  # "[secret]", the offline preview's placeholder, is text


@dataclass(frozen=True)
class HostAccess:
    ssh_private_key: pulumi.Output[str]
    join_token: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    join_endpoint: str
    ca_cert_hash: str
    kubernetes_minor: str = ""
    """The control plane's Kubernetes minor (e.g. 1.35); empty: the hosts read it from the API server."""


def read_host_access(source: str = "stack") -> HostAccess:
    """Every missing or malformed key is reported at once, before anything is created."""
    config = pulumi.Config()
    problems: list[Problem] = []
    secrets: dict[str, pulumi.Output[str]] = {}
    for key, fix in SECRET_KEYS.items():
        value = config.get_secret(key)  # get() on a secret would warn and expose it in plain text
        if value is None:
            problems.append(problem(source, f"accelfit:{key}", "required secret is not set", fix))
            continue
        if _structured(config.full_key(key)):
            problems.append(problem(source, f"accelfit:{key}", "a secret must be text, not a mapping or a list "
                                    "(the value is not shown)", fix))
        secrets[key] = value
    problems += host_access_problems(stack_value, source)
    endpoint, ca_hash = config.get("joinEndpoint"), config.get("joinCaCertHash")
    minor = config.get("kubernetesVersion") or ""
    if problems:
        raise InputError(problems)
    # host_access_problems (required) reports an unset joinEndpoint or joinCaCertHash: both are set here.
    assert endpoint is not None and ca_hash is not None
    return HostAccess(ssh_private_key=secrets["sshPrivateKey"], join_token=secrets["joinToken"],
                      kubeconfig=secrets["kubeconfig"], join_endpoint=endpoint, ca_cert_hash=ca_hash,
                      kubernetes_minor=minor)
