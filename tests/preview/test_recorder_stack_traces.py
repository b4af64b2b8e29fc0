"""The recorder skips the SDK's per-resource stack traces under mocks (nobody reads them there) and puts the SDK
back as it was, so a recording and everything after it are unchanged."""

from __future__ import annotations

import contextlib

import pulumi
from pulumi.runtime import resource as sdk_resource

from accelfit.preview.recorder import record


def _program() -> None:
    parent = pulumi.ComponentResource("accelfit:test:Parent", "parent")
    pulumi.CustomResource("accelfit:test:Child", "child", {"text": "x" * 10},
                          opts=pulumi.ResourceOptions(parent=parent))


def test_no_stack_trace_is_taken_while_recording_and_the_sdk_is_restored_after():
    original = sdk_resource._get_stack_trace
    seen: list[object] = []

    def program() -> None:
        seen.append(sdk_resource._get_stack_trace)
        _program()

    recording = record(program)
    assert seen and seen[0] is not original and len(seen[0]().frames) == 0
    assert sdk_resource._get_stack_trace is original
    assert [(item.type, item.name, item.parent_name, item.inputs) for item in recording.resources] == [
        ("accelfit:test:Parent", "parent", None, {}),
        ("accelfit:test:Child", "child", "parent", {"text": "x" * 10})]


def test_the_stack_trace_is_restored_when_the_program_fails():
    original = sdk_resource._get_stack_trace

    def program() -> None:
        raise ValueError("broken program")

    with contextlib.suppress(Exception):  # noqa: BLE001 (the SDK may wrap it; what matters is what is left behind)
        record(program)
    assert sdk_resource._get_stack_trace is original
