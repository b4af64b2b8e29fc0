"""Run a Pulumi program in-process under `pulumi.runtime` mocks and record every resource it registers.

Used by the tests and by `accelfit preview`. It records what the engine would receive (type token, name,
parent, camelCase inputs, protect) and catches what mocks let through silently: two resources with one URN
(reference/pulumi.md 5.2 C). It uses `preview=False` so values the mocks return are known and nothing an
assertion depends on is silently dropped (reference 5.4); the mocks return the computed outputs components read.

This module imports pulumi; nothing in the pure core (spec, catalog, planner, pricing) imports it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi.runtime
from pulumi.runtime.mocks import MockMonitor

from accelfit.shared_texts import with_shared_texts


@dataclass(frozen=True)
class RecordedResource:
    type: str
    name: str
    urn: str
    parent: str | None = field(metadata={"doc": "URN of the parent, None for children of the stack."})
    custom: bool
    inputs: dict[str, Any]
    protect: bool
    provider: str
    dependencies: tuple[str, ...] = field(default=(), metadata={
        "doc": "URNs the engine waits for: depends_on and every resource whose outputs flow into an input."})
    input_dependencies: dict[str, tuple[str, ...]] = field(default_factory=dict, metadata={
        "doc": "Input name -> URNs whose outputs flow into it (the SDK's property dependencies)."})
    aliases: tuple[str, ...] = field(default=(), metadata={"doc": "URNs the resource had before (its aliases)."})
    ignore_changes: tuple[str, ...] = field(
        default=(), metadata={"doc": "Input paths the engine keeps from the state on an update (ignoreChanges)."})
    delete_before_replace: bool = False

    @property
    def provider_urn(self) -> str | None:
        """The provider's URN (the SDK sends a reference, `URN::ID`); None when the request names none."""
        return engine_urn(self.provider.rsplit("::", 1)[0]) if self.provider else None

    @property
    def parent_name(self) -> str | None:
        return self.parent.rsplit("::", 1)[-1] if self.parent else None


@dataclass
class Recording:
    resources: list[RecordedResource] = field(default_factory=list)
    duplicate_urns: list[str] = field(default_factory=list)

    def of_type(self, type_token: str) -> list[RecordedResource]:
        return [resource for resource in self.resources if resource.type == type_token]

    def named(self, name: str) -> RecordedResource:
        matches = [resource for resource in self.resources if resource.name == name]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} resources named {name!r}")
        return matches[0]


# How the SDK wraps a secret on the wire: {SIG_KEY: SECRET_SIG, "value": ...} (pulumi.runtime.rpc).
_SIG_KEY = "4dabf18193072939515e22adb298388d"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
SECRET = "[secret]"


def plain(value: Any) -> Any:
    """Inputs as plain JSON data: whole floats back to ints (values travel as protobuf Struct), unknowns marked,
    secrets blinded as `[secret]` the way `pulumi preview --json` shows them (never in a report in plain text)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping) and value.get(_SIG_KEY) == _SECRET_SIG:
        return SECRET
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return f"<{type(value).__name__}>"


def _computed_outputs(type_token: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Provider-computed outputs the components read, so nothing built from them is dropped under mocks."""
    outputs: dict[str, Any] = {"name": inputs.get("name", name), "id": f"{name}-id"}
    if type_token.startswith("gcp:"):
        outputs["selfLink"] = f"https://www.googleapis.com/compute/v1/projects/mock/{name}"
        if type_token == "gcp:container/cluster:Cluster":
            outputs["endpoint"] = "203.0.113.10"
            outputs["masterAuth"] = {"clusterCaCertificate": "bW9jay1jYQ=="}
        if type_token == "gcp:serviceaccount/account:Account":
            outputs["email"] = f"{inputs.get('accountId', name)}@mock.iam.gserviceaccount.com"
    if type_token.startswith("aws:"):
        outputs["arn"] = f"arn:aws:mock:::{name}"
        outputs["bucket"] = inputs.get("bucket", name)
        if type_token == "aws:ec2/launchTemplate:LaunchTemplate":
            outputs["latestVersion"] = 1
        if type_token == "aws:eks/nodeGroup:NodeGroup":
            # EKS labels each node with its group's name; the Kubernetes layer's Kueue flavors select on it.
            outputs["nodeGroupName"] = inputs.get("nodeGroupName", name)
            # EKS makes one Auto Scaling group per managed node group; autoscaler tags are set on it.
            outputs["resources"] = [{"autoscalingGroups": [{"name": f"eks-{name}-asg"}]}]
        if type_token == "aws:eks/cluster:Cluster":
            outputs["endpoint"] = "https://mock.eks.amazonaws.com"
            outputs["certificateAuthority"] = {"data": "bW9jay1jYQ=="}
            # EKS creates the cluster security group; nodes with a custom launch template must be given it.
            outputs["vpcConfig"] = {"clusterSecurityGroupId": f"{name}-cluster-sg-id", **inputs.get("vpcConfig", {})}
    return outputs


UNECHOED_TEXT_MIN_CHARS = 4096


def unechoed_text(text: str) -> str:
    """What a long input text's output holds under mocks: its size, not a copy."""
    return f"<{len(text)} chars, not echoed under mocks>"

# What the project-number look-up answers offline (a real preview asks Resource Manager): the placeholder the GKE docs
# write in principal:// members, so a preview document shows where the number goes.
PREVIEW_PROJECT_NUMBER = "PROJECT_NUMBER"


def _computed_call(args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
    """Invoke results the components read, where a test gives none."""
    if args.token == "gcp:organizations/getProject:getProject":
        return {"number": PREVIEW_PROJECT_NUMBER, "projectId": args.args.get("projectId")}
    return {}


class _Mocks(pulumi.runtime.Mocks):
    def __init__(self, call_results: Callable[[pulumi.runtime.MockCallArgs], dict[str, Any]] | None):
        self._call_results = call_results
        # The inputs the monitor just deserialized, per executor thread, so the recorder need not decode them again.
        self.last_inputs = threading.local()
        self._texts: dict[str, str] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        # The monitor keeps the state it is given for the whole run: one copy of each long text, not one per input.
        inputs = with_shared_texts(args.inputs, self._texts)
        self.last_inputs.value = inputs
        # Echo the inputs as outputs (what the engine's state holds), except long texts such as a host's 40 kB
        # script: the SDK would keep a copy of each in the resource's outputs for the whole run (10,000 hosts:
        # 650 MB), and no component reads one back (it would then build from the mark, which the goldens show).
        # Left out, the SDK would fill the output from the input instead (the SDK's rpc.resolve_outputs:
        # "input prop the engine didn't give us a final value for"), a copy of its own (10,000 hosts: 390 MB,
        # issue 39); a short mark in its place keeps it out.
        state: dict[str, Any] = {
            key: unechoed_text(value) if isinstance(value, str) and len(value) >= UNECHOED_TEXT_MIN_CHARS else value
            for key, value in inputs.items()}
        for key, value in _computed_outputs(args.typ, args.name, inputs).items():
            if isinstance(value, dict) and isinstance(state.get(key), Mapping):
                state[key] = {**value, **state[key]}  # computed fields nested in an input block (EKS vpcConfig)
            else:
                state.setdefault(key, value)
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[Any]]:
        # Mocks must return (dict, []) — (dict, None) crashes the SDK (reference 5.1).
        return ((self._call_results(args) if self._call_results else {}) or _computed_call(args)), []


def engine_urn(urn: str) -> str:
    """Mocks put `pulumi:pulumi:Stack$` in the URN of the stack's direct children; the real engine does not."""
    return urn.replace("::pulumi:pulumi:Stack$", "::")


class _RecordingMonitor(MockMonitor):
    def __init__(self, mocks: _Mocks, recording: Recording):
        super().__init__(mocks)
        self._mocks = mocks
        self._recording = recording
        self._seen: set[str] = set()
        self._lock = threading.Lock()  # RegisterResource runs on executor threads

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 (gRPC method name; the SDK's message types)
        self._mocks.last_inputs.value = {}
        # Named, not super(): mypy's untyped_calls_exclude (pyproject) knows the SDK's method by its full name.
        response = MockMonitor.RegisterResource(self, request)
        if request.type == "pulumi:pulumi:Stack":
            return response
        urn = self.make_urn(request.parent, request.type, request.name)
        inputs = plain(self._mocks.last_inputs.value)
        with self._lock:
            if urn in self._seen:
                self._recording.duplicate_urns.append(urn)
            self._seen.add(urn)
            parent = request.parent if request.parent and "::pulumi:pulumi:Stack::" not in request.parent else None
            self._recording.resources.append(RecordedResource(
                type=request.type, name=request.name, urn=engine_urn(urn),
                parent=engine_urn(parent) if parent else None, custom=bool(request.custom),
                inputs=inputs, protect=bool(request.protect), provider=request.provider,
                dependencies=tuple(engine_urn(dependency) for dependency in request.dependencies),
                input_dependencies={key: tuple(engine_urn(urn) for urn in deps.urns)
                                    for key, deps in request.propertyDependencies.items() if deps.urns},
                aliases=self._alias_urns(request), ignore_changes=tuple(request.ignoreChanges),
                delete_before_replace=bool(request.deleteBeforeReplace)))
        return response

    def _alias_urns(self, request: Any) -> tuple[str, ...]:
        """Each alias as the URN it names: a spec's missing name, type or parent are the resource's own (the
        engine's rule; pulumi/runtime/resource.py create_alias_spec)."""
        urns = [engine_urn(urn) for urn in request.aliasURNs]
        for alias in request.aliases:
            if alias.WhichOneof("alias") == "urn":
                urns.append(engine_urn(alias.urn))
                continue
            spec = alias.spec
            which = spec.WhichOneof("parent")
            parent = "" if which == "noParent" and spec.noParent else (
                spec.parentUrn if which == "parentUrn" else request.parent)
            urns.append(engine_urn(self.make_urn(parent, spec.type or request.type, spec.name or request.name)))
        return tuple(urns)


@contextlib.contextmanager
def _no_stack_traces() -> Iterator[None]:
    """The SDK walks and converts the Python stack of every resource it registers (source positions for the
    engine's messages: pulumi/runtime/resource.py `_get_stack_trace`). The mock monitor never reads them; at
    1,000 servers that was 0.9 s and 35 MB. Skipped while recording, restored after; a real `pulumi up` is not
    affected (it never runs through here)."""
    from pulumi.runtime import resource as sdk_resource
    from pulumi.runtime.proto import source_pb2

    original = getattr(sdk_resource, "_get_stack_trace", None)
    if original is None:  # another SDK version: leave it alone
        yield
        return
    sdk_resource._get_stack_trace = source_pb2.StackTrace
    try:
        yield
    finally:
        sdk_resource._get_stack_trace = original


def record(program: Callable[[], Any], *, project: str = "accelfit", stack: str = "test",
           config: Mapping[str, str] | None = None, secret_keys: list[str] | None = None,
           call_results: Callable[[pulumi.runtime.MockCallArgs], dict[str, Any]] | None = None) -> Recording:
    """Run `program` under mocks with the given stack config; return every resource it registered."""
    recording = Recording()
    pulumi.runtime.set_all_config(dict(config or {}), secret_keys=list(secret_keys or []))
    mocks = _Mocks(call_results)
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=False,
                             monitor=_RecordingMonitor(mocks, recording))

    def run() -> None:
        program()

    with _no_stack_traces():
        pulumi.runtime.test(run)()
    return recording
