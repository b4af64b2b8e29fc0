"""Would upgrading replace or delete running infrastructure? Each shipped stack recorded at two revisions, compared
the way the engine decides (shared by the upgrade tests; a uniquely named module, imported from conftest.py).

- Recording: a subprocess per revision runs every stack's Pulumi program under the recorder, with that revision's
  own `accelfit` and `components` first on the path (PYTHONPATH), and prints each resource's type, name, URN,
  inputs, aliases and ignore_changes. One process per revision, all stacks in it: imports are paid once.
- Matching: the engine carries a resource over when its URN is the same or one of its aliases (inherited through
  the parents' aliases) names the old URN; otherwise the old resource is deleted.
- Replacing: an input change replaces the resource when the provider's schema forces it
  (accelfit.diff.replacement.REPLACEMENT_RULES), unless the new resource ignores that input: ignoreChanges keeps
  the state's value, so it "cannot trigger replacements" (pulumi/pulumi PR 2657).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.diff.inputs import changed_paths
from accelfit.diff.replacement import replacement_reason

# Cluster, node pool, network, subnet, bucket, Filestore, FSx, TPU slice: what holds data or running work.
STATEFUL_TYPES = frozenset({
    "gcp:container/cluster:Cluster", "gcp:container/nodePool:NodePool", "gcp:compute/network:Network",
    "gcp:compute/subnetwork:Subnetwork", "gcp:storage/bucket:Bucket", "gcp:filestore/instance:Instance",
    "gcp:tpu/v2Vm:V2Vm", "gcp:tpu/v2QueuedResource:V2QueuedResource",
    "aws:eks/cluster:Cluster", "aws:eks/nodeGroup:NodeGroup", "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet",
    "aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2", "aws:fsx/lustreFileSystem:LustreFileSystem",
})

# Runs inside the revision's tree (cwd and PYTHONPATH): only APIs that release already had. Besides the rows it
# names the installed distributions the process imported, with their versions: with the revision's tree they are
# everything its recording depends on (the key of a stored recording, below).
_RECORD_SCRIPT = """
import importlib.metadata, json, sys
from pathlib import Path
from accelfit.preview.recorder import record
from accelfit.preview.run import with_unset_secrets
from accelfit.stackfile import load_stack
from components.program import run

root, out = Path(sys.argv[1]), {}
for name in sys.argv[2:]:
    stack = load_stack(name, root)
    config, unset = with_unset_secrets(stack)
    recording = record(lambda: run(stack.project_dir), project=stack.project, stack=stack.name, config=config,
                       secret_keys=[*stack.secret_keys(), *unset])
    out[name] = [{"type": r.type, "name": r.name, "urn": r.urn, "parent": r.parent, "inputs": r.inputs,
                  "aliases": list(getattr(r, "aliases", ())),
                  "ignore_changes": list(getattr(r, "ignore_changes", ()))} for r in recording.resources]
owners = importlib.metadata.packages_distributions()
imported = {owner for module in list(sys.modules) for owner in owners.get(module.partition(".")[0], ())}
versions = {name: importlib.metadata.version(name) for name in sorted(imported - {"accelfit"})}
print(json.dumps({"stacks": out, "distributions": versions}))
"""
RECORD_TIMEOUT_S = 900
# The previous release's stateful rows as recorded once (`python tests/upgrade/upgrade_guard.py --record-release`),
# so the suite does not rebuild the release's stacks on every run. Used only while its key still holds: the same
# release commit, Python minor version, stateful types, and every distribution its recording imported at the
# version installed now; otherwise the release is recorded afresh, as before, and a warning says to refresh it.
RECORDED_RELEASE = Path(__file__).parent / "recorded_release.json"


def shipped_stacks(tree: Path) -> list[str]:
    return sorted(path.name[len("Pulumi."):-len(".yaml")] for path in (tree / "stacks").glob("Pulumi.*.yaml"))


def start_recording(tree: Path, stacks: list[str]) -> subprocess.Popen:
    """Record `stacks` of the project at `tree` in a subprocess (collect with `finish_recording`)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.Popen([sys.executable, "-c", _RECORD_SCRIPT, str(tree), *stacks], cwd=tree, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_recording(process: subprocess.Popen, label: str) -> dict[str, list[dict[str, Any]]]:
    return finish_recording_with_versions(process, label)["stacks"]


def finish_recording_with_versions(process: subprocess.Popen, label: str) -> dict[str, Any]:
    """{"stacks": {stack: rows}, "distributions": {name: version}} of a recording started by start_recording."""
    out, err = process.communicate(timeout=RECORD_TIMEOUT_S)
    if process.returncode != 0:
        raise AssertionError(f"recording the stacks at {label} failed:\n{err[-4000:]}")
    return json.loads(out)


def _python() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def stored_release(commit: str, path: Path = RECORDED_RELEASE) -> dict[str, list[dict[str, Any]]] | None:
    """The release's stateful rows per stack from `path`, or None when the file is missing or its key no longer
    holds (another release, Python, set of stateful types, or a distribution it imported at another version)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (not commit or not stored.get("commit", "").startswith(commit) or stored.get("python") != _python()
            or stored.get("stateful_types") != sorted(STATEFUL_TYPES)):
        return None
    for name, version in stored.get("distributions", {}).items():
        try:
            if importlib.metadata.version(name) != version:
                return None
        except importlib.metadata.PackageNotFoundError:
            return None
    return stored["stacks"]


def record_release(root: Path, into: Path, path: Path = RECORDED_RELEASE) -> Path:
    """Record the previous release's shipped stacks (git history at `root`, extracted under `into`) and store their
    stateful rows, the only rows `compare` reads of the old side, with the key `stored_release` checks."""
    version, commit = previous_release((root / "CHANGELOG.md").read_text(encoding="utf-8"))
    full = subprocess.run(["git", "rev-parse", f"{commit}^{{commit}}"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()
    tree = extract_revision(root, full, into)
    recording = finish_recording_with_versions(start_recording(tree, shipped_stacks(tree)), f"{version} ({commit})")
    # Sorted by URN: the order resources register in varies between runs, and `compare` does not read it.
    stacks = {stack: sorted((row for row in rows if row["type"] in STATEFUL_TYPES), key=lambda row: row["urn"])
              for stack, rows in recording["stacks"].items()}
    document = {"release": version, "commit": full, "python": _python(), "stateful_types": sorted(STATEFUL_TYPES),
                "distributions": recording["distributions"], "stacks": stacks}
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def extract_revision(repo: Path, commit: str, into: Path) -> Path:
    """The tree of `commit` (git archive), without touching the working tree or the repository's worktrees."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=repo, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


@dataclass(frozen=True)
class Finding:
    stack: str
    urn: str
    type: str
    kind: str  # "deleted" or "replaced"
    reasons: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.urn.rsplit("::", 1)[-1]

    def __str__(self) -> str:
        because = f": {'; '.join(self.reasons)}" if self.reasons else ""
        return f"{self.stack}: {self.type} `{self.name}` would be {self.kind}{because}"


def _qualified_type(urn: str) -> str:
    return urn.split("::")[2]


def _with_parent(urn: str, parent_urn: str) -> str:
    """`urn` re-parented under `parent_urn`: the parent's type chain, then this resource's own type."""
    head, _, name = urn.rpartition("::")
    prefix = head.rsplit("::", 1)[0]
    own_type = _qualified_type(urn).rsplit("$", 1)[-1]
    return f"{prefix}::{_qualified_type(parent_urn)}${own_type}::{name}"


def known_urns(resources: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Every URN each resource answers to: its own, its aliases, and the same under each URN its parents answer to
    (the engine derives a child's aliases from its parent's)."""
    by_urn = {resource["urn"]: resource for resource in resources}
    memo: dict[str, set[str]] = {}

    def urns(urn: str) -> set[str]:
        if urn in memo:
            return memo[urn]
        resource = by_urn[urn]
        found = {urn, *resource.get("aliases", ())}
        parent = resource.get("parent")
        if parent and parent in by_urn:
            for parent_urn in urns(parent) - {parent}:
                found.add(_with_parent(urn, parent_urn))
        memo[urn] = found
        return found

    return {urn: urns(urn) for urn in by_urn}


def _ignored(path: str, ignore_changes: list[str]) -> bool:
    return any(path == ignored or path.startswith((f"{ignored}.", f"{ignored}[")) for ignored in ignore_changes)


def compare(stack: str, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[Finding]:
    """Stateful resources of `before` that `after` would delete or replace."""
    answering: dict[str, dict[str, Any]] = {}
    after_by_urn = {resource["urn"]: resource for resource in after}
    for urn, urns in known_urns(after).items():
        for known in urns:
            answering.setdefault(known, after_by_urn[urn])
    findings = []
    for old in before:
        if old["type"] not in STATEFUL_TYPES:
            continue
        new = answering.get(old["urn"])
        if new is None:
            findings.append(Finding(stack, old["urn"], old["type"], "deleted"))
            continue
        reasons = []
        for path, was, now in changed_paths(old["inputs"], new["inputs"]):
            reason = replacement_reason(new["type"], path)
            if reason and not _ignored(path, new.get("ignore_changes", [])):
                reasons.append(f"{path}: {was!r} -> {now!r} ({reason})")
        if reasons:
            findings.append(Finding(stack, old["urn"], old["type"], "replaced", tuple(reasons)))
    return findings


_RELEASE_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\]", re.MULTILINE)


def changelog_sections(text: str) -> dict[str, str]:
    """Version -> its section of a Keep a Changelog file."""
    heads = list(_RELEASE_HEADING.finditer(text))
    return {head["version"]: text[head.end():heads[index + 1].start() if index + 1 < len(heads) else len(text)]
            for index, head in enumerate(heads)}


def previous_release(text: str) -> tuple[str, str]:
    """(version, commit) of the newest released version: the first section after the unreleased one that names
    its commit in backticks."""
    for version, body in changelog_sections(text).items():
        if "Unreleased" in text[text.index(f"## [{version}]"):].splitlines()[0]:
            continue
        commit = re.search(r"commit `([0-9a-f]{7,40})`", body)
        if commit:
            return version, commit.group(1)
    raise AssertionError("CHANGELOG.md names no released version with its commit (`commit `<sha>`)")


def excused(finding: Finding, notes: str) -> bool:
    """The unreleased section's upgrade notes name the resource and give its migration step."""
    return any(f"`{finding.name}`" in entry and "Migration:" in entry
               for entry in re.split(r"\n(?=- )", notes))


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--record-release"]:
        raise SystemExit("usage: python tests/upgrade/upgrade_guard.py --record-release")
    with tempfile.TemporaryDirectory(prefix="accelfit-release-") as scratch:
        print(record_release(Path(__file__).resolve().parents[2], Path(scratch) / "tree"))
