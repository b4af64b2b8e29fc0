"""The plan's serving section as text and markdown: the server and why, then each serving pool in route order with
the layout the server is built with and the modelled latency against each target."""

from __future__ import annotations

from accelfit.planner.model import Plan, ServingPool
from accelfit.reports.table import render_markdown_table, render_table

SERVING_HEADERS = ["route", "pools", "accelerator", "TP x PP", "replicas min..max", "batch", "context", "dtype",
                   "load s", "TTFT p99 ms", "TPOT p99 ms", "e2e p99 ms"]


def _against(value: float, target: float | None, margin: float | None) -> str:
    if target is None or margin is None:
        return f"{value:,.1f}"
    return f"{value:,.1f} ({margin:.0%} under {target:g})" if margin >= 0 else \
        f"{value:,.1f} ({-margin:.0%} OVER {target:g})"


def serving_rows(plan: Plan) -> list[list[object]]:
    serving = plan.serving
    rows: list[list[object]] = []
    if serving is None:
        return rows
    for pool in serving.pools:
        rows.append([f"{pool.rank} ({pool.pricing})", ", ".join(pool.node_pools),
                     f"{pool.chips_per_replica} x {pool.accelerator}",
                     f"{pool.tensor_parallel} x {pool.pipeline_parallel}"
                     + (f" ({pool.nodes_per_replica} nodes)" if pool.nodes_per_replica > 1 else ""),
                     f"{pool.replicas_min}..{pool.replicas_max}", pool.max_num_seqs, pool.max_model_len,
                     pool.dtype + (f" + {pool.quantization}" if pool.quantization else ""), _load(pool),
                     _against(pool.ttft_p99_ms, serving.ttft_target_ms, pool.ttft_margin),
                     _against(pool.tpot_p99_ms, serving.tpot_target_ms, pool.tpot_margin),
                     _against(pool.e2e_p99_ms, serving.e2e_target_ms, pool.e2e_margin)])
    return rows


def _load(pool: ServingPool) -> str:
    if pool.weights_load_seconds is None:
        return "-"
    return f"{pool.weights_load_seconds:,.0f} + {pool.startup_seconds:,.0f}"


def serving_text(plan: Plan) -> list[str]:
    serving = plan.serving
    if serving is None:
        return []
    out = ["", f"Serving: {serving.server} ({serving.why})."]
    if serving.weights:
        out.append(f"  weights {serving.weights} read by {serving.weights_reader}")
    out.append(f"  route: {serving.route}")
    if serving.pools:
        out.append(render_table(SERVING_HEADERS, serving_rows(plan)))
    out += [f"  note: {note}" for note in serving.notes]
    out += [f"  {statement}" for statement in route_statements(plan)]
    return out


def route_statements(plan: Plan) -> list[str]:
    """What the serving route does (Plan.route): the endpoint, then each pool's autoscaling in route order."""
    route = plan.route
    if route is None:
        return []
    *pools, nodes = route.statements[1:] if len(route.statements) > 2 else (*route.statements[1:], None)
    return [route.statements[0], *(f"Autoscaling {statement}" for statement in pools), *([nodes] if nodes else [])]


def serving_markdown(plan: Plan) -> list[str]:
    serving = plan.serving
    if serving is None:
        return []
    out = ["", "**Serving**", "", f"- server: `{serving.server}` ({serving.why})"]
    if serving.weights:
        out.append(f"- weights: `{serving.weights}` read by {serving.weights_reader}")
    out.append(f"- route: {serving.route}")
    if serving.pools:
        out += ["", render_markdown_table(SERVING_HEADERS, serving_rows(plan))]
    out += [f"- note: {note}" for note in serving.notes]
    out += [f"- {statement}" for statement in route_statements(plan)]
    return out
