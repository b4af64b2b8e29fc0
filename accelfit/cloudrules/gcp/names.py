"""Physical names of GCP resources, derived to fit each resource type's limit. Pure: no Pulumi import.

Pulumi's auto-naming appends 8 characters ("-" and 7 random ones) to a logical name, so a GKE cluster named
after a 40-character workload would be 57 characters long where GKE accepts 40. accelfit therefore sets explicit
names on the resources whose limit a long workload name can reach: the logical name when it fits, otherwise a
shortened name with a stable hash of the full one, so two long names never collide and a name never changes
between runs. The limits are data (data/gke_rules.yaml); `check_name` is the rule that guards them.
"""

from __future__ import annotations

import hashlib
import re

from accelfit.errors import Problem, problem
from accelfit.cloudrules.gcp.rules import NameKind, gcp_rules

# Earlier releases (before the fitted names above) let Pulumi auto-name these resources ("<logical>-<7 random>"),
# and a changed `name` replaces a GCP resource: on a stack those releases created, the next `pulumi up` would
# delete and rebuild the cluster, its pools, network and Filestore (and fail on prod, where the cluster's deletion
# protection refuses). Aliases do not help, they map URNs, not inputs. `ignore_changes` on the name keeps the
# name the state holds while every new stack gets the fitted name: "Ignored properties will still be used from
# the program when there is no previous value in the state, most importantly when creating the resource"
# (https://www.pulumi.com/docs/iac/concepts/options/ignorechanges/), and an ignored input "cannot trigger
# replacements" (pulumi/pulumi PR 2657, which added the option). CHANGELOG.md 0.2.0 says so for users.
KEEP_EXISTING_NAME = ("name",)

# RFC 1035 label: a lowercase letter first, then lowercase letters, digits and hyphens, no hyphen last.
_RFC1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?\Z")
HASH_LENGTH = 6


def fitted_name(kind: NameKind, logical: str) -> str:
    """`logical` when it is a valid name within the limit of `kind`; else its head plus a 6-character hash."""
    limit = gcp_rules().name_limit(kind)
    cleaned = re.sub(r"[^a-z0-9-]", "-", logical.lower())
    if not cleaned[:1].isalpha():
        cleaned = "n-" + cleaned
    cleaned = cleaned.rstrip("-")
    if len(cleaned) <= limit and cleaned == logical:
        return cleaned
    digest = hashlib.sha256(logical.encode()).hexdigest()[:HASH_LENGTH]
    head = cleaned[: limit - HASH_LENGTH - 1].rstrip("-")
    return f"{head}-{digest}"


def check_name(where: str, field: str, kind: NameKind, name: str) -> list[Problem]:
    """The name rule: fits the limit of `kind` and is an RFC 1035 label."""
    limit = gcp_rules().name_limit(kind)
    if len(name) > limit:
        return [problem(where, field, f"{kind} names are at most {limit} characters, this one has {len(name)}",
                        "use a shorter name (accelfit derives names with names.fitted_name)", name)]
    if not _RFC1035.match(name):
        return [problem(where, field, f"{kind} names are lowercase letters, digits and '-', a letter first",
                        "use names.fitted_name to derive a valid name", name)]
    return []
