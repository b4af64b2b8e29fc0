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
