"""`plan --simulate` and `check --simulate`: the planned serving fleet replays a day of its spec's traffic as
`accelfit simulate` runs it, and a simulated p99 over its target (or a failed request) is exit 1; both commands run
the one check. --simulate where nothing serves is exit 2 before any planning."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from accelfit.cli.main import cli
from accelfit.cli.simulated_check import misses


def _invoke(*args):
    return CliRunner().invoke(cli, list(args))


def _day(ttft: float, failed: int = 0) -> dict:
    return {"workload": "chat-vllm", "day": {
        "requests": 1000, "queued": 0, "failed": failed, "refused_too_long": 0, "preempted": 0, "servers_max": 2,
        "nodes_max": 1, "cost_usd": 10.0, "ttft_ms": [50.0, ttft], "tpot_ms": [20.0, 30.0],
        "e2e_ms": [900.0, 1200.0], "targets_ms": {"ttft": 1000.0, "tpot": None, "e2e": 15000.0}}}


def test_a_simulated_day_misses_a_target_by_its_p99_or_a_failed_request():
    assert misses(_day(999.0)) == []
    assert misses(_day(1000.5)) == ["chat-vllm: simulated TTFT p99 1,000.5 ms is over its 1000 ms target"]
    assert misses(_day(10.0, failed=3)) == ["chat-vllm: 3 of 1,000 simulated requests failed"]


def test_plan_simulate_runs_the_planned_day_and_keeps_the_json_whole():
    result = _invoke("plan", "examples/vllm-serving-gcp.yaml", "--simulate", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["accelerator"]["name"]  # the plan's JSON, alone on stdout
    assert "Simulated chat-vllm (a day of its spec's traffic, seed 0): Day:" in result.stderr
    assert "(within 1000)" in result.stderr  # the day's TTFT p99 against the spec's target


@pytest.mark.parametrize("command", [["plan", "--stack", "example-gcp-vllm-serving"],
                                     ["check", "stacks/Pulumi.example-gcp-vllm-serving.yaml"]])
def test_a_simulated_miss_is_exit_1_for_plan_and_check_alike(monkeypatch, command):
    from accelfit.cli import simulated_days

    seen = []

    def over(jobs, chart):
        seen.append([job.fleet.spec.name for job in jobs])
        return [(_day(1500.0), "a day")]

    monkeypatch.setattr(simulated_days, "run_days", over)
    result = _invoke(*command, "--simulate")
    assert result.exit_code == 1 and (result.exception is None or isinstance(result.exception, SystemExit)), result
    assert seen == [["chat-vllm"]]  # the planned workload's own fleet was handed to the simulator
    assert "simulation: chat-vllm: simulated TTFT p99 1,500.0 ms is over its 1000 ms target" in result.stderr


@pytest.mark.parametrize("command", [["plan", "--stack", "example-aws-h100-training"],
                                     ["check", "stacks/Pulumi.example-aws-h100-training.yaml"],
                                     ["check", "examples/vllm-serving-gcp.yaml"]])
def test_simulate_where_nothing_is_simulated_is_exit_2_before_planning(command):
    result = _invoke(*command, "--simulate")
    assert result.exit_code == 2 and "--simulate" in result.stderr and "Fix:" in result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
