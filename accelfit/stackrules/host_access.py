"""How owned servers join their cluster (`accelfit:joinEndpoint`, `joinCaCertHash`, `kubernetesVersion`): the one
check of the settings, run by `accelfit check`/`plan`/`lock` (the stack rules) for a bare-metal plan and by
components/baremetal/access.py before anything is created. Pure.

kubeadm's join discovery takes the API server as host:port and the CA's public-key hash as `sha256:<hex>`
(https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-join/, "--discovery-token-ca-cert-hash"). The
patterns end in \\Z: `$` also matches before a final newline, and "10.20.0.5:6443\\n" must not reach the
JoinConfiguration (issue 36).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accelfit.errors import Problem, problem, short_repr
# One predicate per kind of value, shared with the hostile-input validators (issue 36).
from accelfit.values import is_ca_cert_hash, is_join_endpoint, is_kubernetes_minor

KEYS = ("joinEndpoint", "joinCaCertHash", "kubernetesVersion")


def _shown(value: Any) -> Any:
    return value if isinstance(value, str) and len(value) <= 80 else short_repr(value)


def host_access_problems(get: Callable[[str], Any], source: str = "stack", prefix: str = "accelfit:", *,
                         required: bool = True) -> list[Problem]:
    """The join settings as `get(key)` gives them; every problem at once. `required` False (no bare-metal plan):
    only values that are set and malformed. The secrets (SSH key, join token, kubeconfig) are the program's to
    read: unset, the offline preview stands in for them."""
    problems = []
    endpoint = get("joinEndpoint")
    if (required or endpoint is not None) and not is_join_endpoint(endpoint):
        problems.append(problem(source, f"{prefix}joinEndpoint", "the API server hosts join is missing or not "
                                "host:port", "pulumi config set accelfit:joinEndpoint 10.20.0.5:6443",
                                _shown(endpoint)))
    ca_hash = get("joinCaCertHash")
    if (required or ca_hash is not None) and not is_ca_cert_hash(ca_hash):
        problems.append(problem(source, f"{prefix}joinCaCertHash", "missing or not sha256:<64 hex digits>",
                                "take it from `kubeadm token create --print-join-command` on a control-plane node",
                                _shown(ca_hash)))
    minor = get("kubernetesVersion")
    if minor not in (None, "") and not is_kubernetes_minor(minor):
        problems.append(problem(source, f"{prefix}kubernetesVersion", "not a Kubernetes minor version (quote it: "
                                "YAML reads 1.30 as the number 1.3)", "pulumi config set accelfit:kubernetesVersion "
                                "1.35 (the control plane's)", _shown(minor)))
    return problems
