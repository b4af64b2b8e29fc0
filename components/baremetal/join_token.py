"""The bootstrap token hosts join with, kept valid by accelfit in the cluster itself.

A token made once with `kubeadm token create` expires after 24 hours, so a server added to the inventory later
could never join. Instead the stack's secret `accelfit:joinToken` (made with `kubeadm token generate`, which only
formats a random token) is written into the cluster as a bootstrap-token Secret on every `pulumi up`, with an
expiration a day ahead: hosts joining in that run always find it valid, and between runs it lapses, as kubeadm's
own tokens do. The Secret is what `kubeadm token create` would write
(https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/#bootstrap-token-secret-format); the group
is the one kubeadm binds node bootstrap permissions to.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pulumi
import pulumi_kubernetes as k8s

NAMESPACE = "kube-system"
SECRET_TYPE = "bootstrap.kubernetes.io/token"
JOIN_GROUP = "system:bootstrappers:kubeadm:default-node-token"
VALIDITY = dt.timedelta(hours=24)


def token_secret_data(token: str, now: dt.datetime) -> dict[str, str]:
    """A token is "<6 chars>.<16 chars>" (the join script refuses any other shape on the host; the offline preview
    sees a placeholder)."""
    token_id, _, token_secret = token.partition(".")
    return {"token-id": token_id, "token-secret": token_secret,
            "expiration": (now + VALIDITY).astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "usage-bootstrap-authentication": "true", "usage-bootstrap-signing": "true",
            "auth-extra-groups": JOIN_GROUP}


_TOKEN = re.compile(r"^[a-z0-9]{6}\.[a-z0-9]{16}\Z")  # kubeadm's token format: "<id>.<secret>"


def token_secret_name(token: str) -> str:
    """`bootstrap-token-<id>`: only the public id of a well-formed token ever reaches the name (and so the URN and
    state); anything else (the offline preview's placeholder, a malformed value) gets a fixed name, never the value."""
    return f"bootstrap-token-{token[:6]}" if isinstance(token, str) and _TOKEN.match(token) else \
        "bootstrap-token-unknown"


def join_token_secret(resource_name: str, token: pulumi.Input[str], provider: k8s.Provider,
                      parent: pulumi.Resource,
                      now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
                      ) -> k8s.core.v1.Secret:
    secret_token = pulumi.Output.secret(token)
    # The token id is public by design (it names the Secret); the token secret is not.
    name = pulumi.Output.unsecret(secret_token.apply(token_secret_name))
    return k8s.core.v1.Secret(
        resource_name, type=SECRET_TYPE,
        metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=NAMESPACE,
                                            labels={"app.kubernetes.io/managed-by": "accelfit"}),
        string_data=secret_token.apply(lambda value: token_secret_data(value, now())),
        opts=pulumi.ResourceOptions(parent=parent, provider=provider))
