"""Safe upgrades as a guarantee: moving a shipped stack from the previous release (CHANGELOG.md) to this tree
never replaces or deletes a stateful resource, unless the release's upgrade notes name it with its migration step.
Plus the guard's own cases (it catches what it must), and the rule that keeps earlier auto-named resources."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import upgrade_guard
from upgrade_guard import Finding, compare

ROOT = Path(__file__).parents[2]
STACKS = upgrade_guard.shipped_stacks(ROOT)


def _unreleased_notes() -> str:
    """The unreleased version's section of CHANGELOG.md (its Upgrade notes excuse a listed resource)."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return "".join(body for version, body in upgrade_guard.changelog_sections(text).items()
                   if f"## [{version}] - Unreleased" in text)


@pytest.mark.parametrize("stack", STACKS)
def test_upgrading_from_the_previous_release_keeps_every_stateful_resource(recorded, stack):
    before = recorded["before"].get(stack)
    if before is None:
        return  # a stack the release did not ship: nothing of it runs yet
    notes = _unreleased_notes()
    findings = [finding for finding in compare(stack, before, recorded["after"][stack])
                if not upgrade_guard.excused(finding, notes)]
    assert not findings, ("upgrading would replace or delete running infrastructure; keep the URN (aliases) and "
                          "the replace-triggering inputs, or list it under the unreleased version's Upgrade notes "
                          "in CHANGELOG.md with `Migration:`:\n" + "\n".join(map(str, findings)))


def test_the_release_is_the_one_the_changelog_names(release):
    assert release == ("0.1.0", "2fe0851")


# --- the guard catches what it must ---------------------------------------------------------------------------

def _after(recorded, stack: str) -> list[dict]:
    return copy.deepcopy(recorded["after"][stack])


def _one(rows: list[dict], type_token: str) -> dict:
    return next(row for row in rows if row["type"] == type_token)


CLUSTER = "gcp:container/cluster:Cluster"
STACK = "example-gcp-gke-h100-training"


def test_a_moved_cluster_is_a_replacement(recorded):
    before, after = _after(recorded, STACK), _after(recorded, STACK)
    _one(after, CLUSTER)["inputs"]["location"] = "europe-west4"
    [finding] = compare(STACK, before, after)
    assert (finding.kind, finding.type) == ("replaced", CLUSTER)
    assert "location" in finding.reasons[0]


def test_a_dropped_bucket_is_a_deletion_and_a_renamed_one_needs_an_alias(recorded):
    before = _after(recorded, STACK)
    bucket = _one(before, "gcp:storage/bucket:Bucket")
    dropped = [row for row in before if row is not bucket]
    assert [(item.kind, item.name) for item in compare(STACK, before, dropped)] == [("deleted", bucket["name"])]

    renamed = copy.deepcopy(before)
    moved = _one(renamed, "gcp:storage/bucket:Bucket")
    moved["urn"] = moved["urn"].replace(moved["name"], "renamed-bucket")
    assert [item.kind for item in compare(STACK, before, renamed)] == ["deleted"]
    moved["aliases"] = [bucket["urn"]]
    assert compare(STACK, before, renamed) == []


def test_a_renamed_component_carries_its_children_through_its_alias(recorded):
    before = _after(recorded, STACK)
    after = copy.deepcopy(before)
    cluster = _one(after, CLUSTER)
    component_urn = cluster["parent"]
    component = next(row for row in after if row["urn"] == component_urn)
    new_component_urn = component_urn.replace("accelfit:gcp:GkeCluster", "accelfit:gcp:SharedGkeCluster")
    for row in after:
        row["urn"] = row["urn"].replace("accelfit:gcp:GkeCluster", "accelfit:gcp:SharedGkeCluster")
        if row.get("parent") == component_urn:
            row["parent"] = new_component_urn
    component["type"] = "accelfit:gcp:SharedGkeCluster"
    assert any(item.name == cluster["name"] and item.kind == "deleted" for item in compare(STACK, before, after))
    component["aliases"] = [component_urn]
    assert compare(STACK, before, after) == []


def test_an_earlier_auto_named_stack_keeps_its_names(recorded):
    """Releases before the fitted names sent no `name` (Pulumi auto-named); a name input now would replace the
    resource, unless ignore_changes keeps the state's."""
    after = _after(recorded, "example-gcp-l4-inference")
    auto_named = copy.deepcopy(after)
    for row in auto_named:
        row["inputs"].pop("name", None)
    assert compare("example-gcp-l4-inference", auto_named, after) == []
    for row in after:
        row["ignore_changes"] = [path for path in row.get("ignore_changes", []) if path != "name"]
    kinds = {(item.type, item.kind) for item in compare("example-gcp-l4-inference", auto_named, after)}
    assert {(CLUSTER, "replaced"), ("gcp:container/nodePool:NodePool", "replaced"),
            ("gcp:compute/network:Network", "replaced"), ("gcp:compute/subnetwork:Subnetwork", "replaced")} <= kinds


def test_a_listed_migration_excuses_only_its_resource():
    finding = Finding("prod", "urn:pulumi:prod::accelfit::gcp:storage/bucket:Bucket::llm-data-bucket",
                      "gcp:storage/bucket:Bucket", "deleted")
    assert upgrade_guard.excused(finding, "- `llm-data-bucket` moves to a new region. Migration: copy with gcloud.")
    assert not upgrade_guard.excused(finding, "- `llm-data-bucket` moves to a new region.")
    assert not upgrade_guard.excused(finding, "- `other-bucket` goes. Migration: none needed.")


# --- item 9: what earlier releases auto-named keeps its name -----------------------------------------------------

# GCP types that earlier releases created without a name (Pulumi auto-named them) and that now carry fitted names.
EARLIER_AUTO_NAMED = frozenset({
    CLUSTER, "gcp:container/nodePool:NodePool", "gcp:compute/network:Network", "gcp:compute/subnetwork:Subnetwork",
    "gcp:compute/router:Router", "gcp:compute/routerNat:RouterNat", "gcp:compute/firewall:Firewall",
    "gcp:filestore/instance:Instance"})


@pytest.mark.parametrize("stack", STACKS)
def test_every_explicitly_named_gcp_resource_keeps_the_name_its_stack_has(recorded, stack):
    missing = [row["name"] for row in recorded["after"][stack]
               if row["type"] in EARLIER_AUTO_NAMED and "name" in row["inputs"]
               and "name" not in row.get("ignore_changes", [])]
    assert not missing, f"{stack}: an earlier release's auto-name would be replaced: {missing}"


# --- the stored release recording (recorded_release.json) ---------------------------------------------------------

def test_the_stored_release_recording_is_used_only_while_its_key_holds(release, tmp_path):
    stored = upgrade_guard.RECORDED_RELEASE.read_text(encoding="utf-8")
    document = upgrade_guard.json.loads(stored)
    path = tmp_path / "recorded.json"

    def key_holds(**changes) -> bool:
        path.write_text(upgrade_guard.json.dumps({**document, **changes}), encoding="utf-8")
        return upgrade_guard.stored_release(release[1], path) is not None

    assert key_holds(), "recorded_release.json is stale: `.venv/bin/python tests/upgrade/upgrade_guard.py --record-release`"
    assert not key_holds(commit="0" * 40)  # another release
    assert not key_holds(python="2.7")
    assert not key_holds(stateful_types=document["stateful_types"][1:])  # a type added since: its rows are missing
    assert not key_holds(distributions={**document["distributions"], "pulumi": "0.0.1"})
    assert not key_holds(distributions={**document["distributions"], "no-such-distribution": "1"})
    path.write_text(stored[: len(stored) // 2], encoding="utf-8")
    assert upgrade_guard.stored_release(release[1], path) is None  # a damaged file: recorded afresh


def test_the_stored_release_holds_the_stateful_rows_of_every_stack_it_shipped(release, recorded):
    stored = upgrade_guard.stored_release(release[1])
    assert stored is not None and set(stored) >= set(recorded["before"])
    assert all(row["type"] in upgrade_guard.STATEFUL_TYPES for rows in stored.values() for row in rows)
    # Not vacuous: the GKE example's cluster, node pools, network and bucket are there to protect.
    assert {CLUSTER, "gcp:container/nodePool:NodePool", "gcp:compute/network:Network",
            "gcp:storage/bucket:Bucket"} <= {row["type"] for row in stored[STACK]}
