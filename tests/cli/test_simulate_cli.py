"""`accelfit simulate`: each shipped serving stack's day at its planned rate stays within its targets; the table,
markdown, JSON and chart forms; a trace replayed; bad input refused with exit 2 before anything runs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from accelfit.cli.main import cli

SERVING_STACKS = ("example-gcp-vllm-serving", "example-aws-vllm-serving", "example-gcp-vllm-mixed-fleet")


def _invoke(*args):
    return CliRunner().invoke(cli, ["simulate", *args])


@pytest.mark.parametrize("stack", SERVING_STACKS)
def test_a_day_of_each_shipped_serving_stack_stays_within_its_targets(stack):
    result = _invoke("--stack", stack, "--json")
    assert result.exit_code == 0, result.output
    documents = json.loads(result.output)
    for document in documents if isinstance(documents, list) else [documents]:
        day = document["day"]
        assert len(document["hours"]) >= 24 and day["requests"] > 0 and day["failed"] == 0
        for name, figures in (("ttft", day["ttft_ms"]), ("tpot", day["tpot_ms"]), ("e2e", day["e2e_ms"])):
            target = day["targets_ms"][name]
            assert target is None or figures[1] <= target, (stack, document["workload"], name, figures, target)
        assert day["cost_usd"] > 0 and sum(hour["requests"] for hour in document["hours"]) == day["requests"]


@pytest.fixture()
def trace(tmp_path):
    path = tmp_path / "trace.csv"
    rows = [f"{second / 20:.3f},1024,256" for second in range(20 * 120)]
    path.write_text("arrival_s,input_tokens,output_tokens\n" + "\n".join(rows) + "\n")
    return path


def test_a_trace_replays_as_table_markdown_json_and_chart(trace, tmp_path):
    table = _invoke("examples/vllm-serving-gcp.yaml", "--trace", str(trace))
    assert table.exit_code == 0, table.output
    assert "TTFT p50/p99 ms" in table.output and f"trace {trace}" in table.output and "Day: 2,400 requests" in table.output
    markdown = _invoke("examples/vllm-serving-gcp.yaml", "--trace", str(trace), "--markdown")
    assert markdown.output.startswith("### Simulated `chat-vllm`") and "| hour (UTC)" in markdown.output
    chart = tmp_path / "day.svg"
    document = _invoke("examples/vllm-serving-gcp.yaml", "--trace", str(trace), "--json", "--chart", str(chart))
    assert json.loads(document.output)["day"]["requests"] == 2400
    assert chart.read_text().lstrip().startswith("<?xml") and "servers ready" in chart.read_text()


def test_a_bad_trace_is_exit_2_with_file_line_field_and_fix(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("0,100,20\n1.5,100,-3\n")
    result = _invoke("examples/vllm-serving-gcp.yaml", "--trace", str(path))
    assert result.exit_code == 2
    assert f"{path}: output_tokens (line 2)" in result.output and "Fix:" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args, field", [
    (("examples/vllm-serving-gcp.yaml", "--spike", "lots"), "--spike"),
    (("examples/vllm-serving-gcp.yaml", "--chart", "day.pdf"), "--chart"),
    (("examples/jax-pretrain.yaml",), "kind"),
    ((), "arguments"),
])
def test_bad_arguments_are_exit_2(args, field):
    result = _invoke(*args)
    assert result.exit_code == 2 and field in result.output, result.output


def test_a_trace_and_a_spike_together_are_refused(trace):
    result = _invoke("examples/vllm-serving-gcp.yaml", "--trace", str(trace), "--spike", "2x")
    assert result.exit_code == 2 and "--spike" in result.output


def test_a_fleets_workloads_run_side_by_side_each_as_it_runs_alone(tmp_path):
    """The workloads of a fleet are simulated in forked processes; each result, in order, is the one the workload
    gets when simulated alone in this process, and the chart is the first workload's."""
    from accelfit.catalog import load_catalog
    from accelfit.cli import simulated_days as command
    from accelfit.planner import Environment, plan
    from accelfit.simulate.traffic import read_trace
    from accelfit.spec import load_workload

    loaded = load_workload("examples/vllm-serving-gcp.yaml")
    planned = plan(loaded.spec, load_catalog(), Environment(name="dev", inventory=loaded.inventory))
    jobs = []
    for rate in (10, 25):
        path = tmp_path / f"trace-{rate}.csv"
        path.write_text("arrival_s,input_tokens,output_tokens\n"
                        + "\n".join(f"{n / rate:.3f},1024,256" for n in range(rate * 60)) + "\n")
        jobs.append(command.prepare_day(loaded.spec, planned, None, read_trace(path), path, 0, None))
    chart = tmp_path / "day.svg"

    def figures(results):  # all but how long the run took
        return [({key: value for key, value in result.items() if key != "seconds"}, source)
                for result, source in results]

    side_by_side = command.run_days(jobs, chart)
    alone = [command.finish_day(job, None) for job in jobs]
    assert figures(side_by_side) == figures(alone) and [result["day"]["requests"] for result, _ in alone] == [600, 1500]
    assert "servers ready" in chart.read_text()


def test_a_spec_file_is_simulated_as_the_fleet_of_one_plan_spec_shows():
    """One way (issue 35): `simulate SPEC` replays the fleet `plan SPEC` shows, its standby serving step included
    (vllm-serving-aws falls back to a second accelerator with a standby pool), as `plan SPEC --simulate` does."""
    planned = CliRunner().invoke(cli, ["plan", "examples/vllm-serving-aws.yaml", "--json"])
    assert planned.exit_code == 0, planned.output
    serving_pools = json.loads(planned.output)["serving"]["pools"]
    assert [pool["fallback_rank"] for pool in serving_pools] == [0, 2]  # the planned pool and a standby step
    result = _invoke("examples/vllm-serving-aws.yaml", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["pools"]) == len(serving_pools) == 2
