"""Drive the real pack (`python policies/__main__.py`) over the analyzer gRPC interface, as the engine does.

For tests that prove the in-process runner and the pack the CLI loads agree (reference/pulumi.md 6.3): spawn
the pack, read its port from stdout, GetAnalyzerInfo, reconcile the config file against the reported policies
(the engine's job), Configure, ConfigureStack, Analyze each resource, AnalyzeStack once. Costs about 0.5 s per
spawn, so callers should reuse one `PackProcess`.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from policies.runner import Violation, reconcile_config

MAIN = Path(__file__).with_name("__main__.py")
_LEVEL_NAMES = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory",
                analyzer_pb2.DISABLED: "disabled", analyzer_pb2.REMEDIATE: "remediate"}
_LEVEL_VALUES = {name: value for value, name in _LEVEL_NAMES.items()}


class PackProcess:
    """The pack's analyzer server in a child process; use as a context manager."""

    def __init__(self, python: str = sys.executable, timeout: float = 30.0):
        self._command = [python, "-u", str(MAIN)]
        self._timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.channel: grpc.Channel | None = None
        self.stub: analyzer_pb2_grpc.AnalyzerStub | None = None

    def __enter__(self) -> PackProcess:
        self.process = subprocess.Popen(self._command, cwd=MAIN.parent, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode().strip()
        if not line.isdigit():
            self.process.kill()
            error = self.process.stderr.read().decode() if self.process.stderr else ""
            raise RuntimeError(f"policy pack did not print a port (got {line!r}): {error}")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{line}")
        grpc.channel_ready_future(self.channel).result(timeout=self._timeout)
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.channel is not None:
            self.channel.close()
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=self._timeout)

    def info(self) -> analyzer_pb2.AnalyzerInfo:
        assert self.stub is not None
        info: analyzer_pb2.AnalyzerInfo = self.stub.GetAnalyzerInfo(empty_pb2.Empty())
        return info

    def analyze(self, resources: Iterable[Mapping[str, Any]], config: Mapping[str, Any] | None = None,
                stack_tags: Mapping[str, str] | None = None) -> list[Violation]:
        assert self.stub is not None
        info = self.info()
        policy_info = {policy.name: (_LEVEL_NAMES[policy.enforcementLevel],
                                     json_format.MessageToDict(policy.configSchema.properties))
                       for policy in info.policies}
        entries = reconcile_config(policy_info, config)
        self.stub.Configure(analyzer_pb2.ConfigureAnalyzerRequest(policyConfig={
            name: analyzer_pb2.PolicyConfig(enforcementLevel=_LEVEL_VALUES[entry.level],
                                            properties=_struct(entry.properties))
            for name, entry in entries.items()}))
        self.stub.ConfigureStack(analyzer_pb2.AnalyzerStackConfigureRequest(tags=dict(stack_tags or {})))
        resources = list(resources)
        names = {str(resource.get("urn", "")): str(resource.get("name", "")) for resource in resources}
        found: list[Violation] = []
        for resource in resources:
            response = self.stub.Analyze(analyzer_pb2.AnalyzeRequest(
                type=resource["type"], properties=_struct(_props(resource)), urn=str(resource.get("urn", "")),
                name=str(resource.get("name", "")), options=_options(resource)))
            found += [_violation(d, str(resource.get("urn", "")), str(resource.get("name", "")), names)
                      for d in response.diagnostics]
        response = self.stub.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=[
            analyzer_pb2.AnalyzerResource(type=resource["type"], properties=_struct(_props(resource)),
                                          urn=str(resource.get("urn", "")), name=str(resource.get("name", "")),
                                          options=_options(resource), parent=str(resource.get("parent") or ""))
            for resource in resources]))
        found += [_violation(d, "", "", names) for d in response.diagnostics]
        return found


def _props(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    return resource.get("props", resource.get("inputs")) or {}


def _struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(dict(values))
    return struct


def _options(resource: Mapping[str, Any]) -> analyzer_pb2.AnalyzerResourceOptions:
    return analyzer_pb2.AnalyzerResourceOptions(protect=bool(resource.get("protect", False)),
                                                parent=str(resource.get("parent") or ""))


def _violation(diagnostic: Any, urn: str, name: str, names: Mapping[str, str]) -> Violation:
    # The server sends "description\nmessage" (reference 6.3); the runner keeps the message alone.
    message = diagnostic.message
    prefix = diagnostic.description + "\n"
    if diagnostic.description and message.startswith(prefix):
        message = message[len(prefix):]
    target = diagnostic.urn or urn
    return Violation(diagnostic.policyName, _LEVEL_NAMES[diagnostic.enforcementLevel], target,
                     names.get(target, name if target == urn else ""), message)


def analyze_over_grpc(resources: Iterable[Mapping[str, Any]], config: Mapping[str, Any] | None = None,
                      stack_tags: Mapping[str, str] | None = None) -> list[Violation]:
    """One spawn, one analysis."""
    with PackProcess() as pack:
        return pack.analyze(resources, config, stack_tags)
