"""What a simulated day shows, per hour: requests, p50/p99 TTFT, TPOT and end to end, requests queued and failed,
servers and nodes, the hour's cost; the day's totals against the spec's targets. As a table, markdown, JSON and a
chart (the plan chart's format checks and matplotlib set-up: accelfit.reports.plan_chart)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from accelfit.planner.serving.traffic import serving_traffic_facts
from accelfit.reports.table import render_markdown_table, render_table
from accelfit.simulate.fleet import TICK_SECONDS, Run

HEADERS = ["hour (UTC)", "requests", "queued", "failed", "TTFT p50/p99 ms", "TPOT p50/p99 ms", "e2e p50/p99 ms",
           "servers mean/max", "nodes mean/max", "cost $"]


def _percentiles(values: np.ndarray) -> list[float | None]:
    if not len(values):
        return [None, None]
    return [round(float(value) * 1000.0, 1) for value in np.percentile(values, [50, 99])]


def latencies(run: Run) -> dict[str, np.ndarray]:
    """Per request (served in the simulator): TTFT, TPOT, end to end (s), waited, failed (incl. the gateway's
    timeout on the whole request)."""
    trace, requests = run.trace, run.requests
    timeout = float(serving_traffic_facts().gateway.request_timeout.rstrip("s"))
    e2e = trace.done - requests.arrival
    failed = trace.failed | ~(e2e <= timeout)
    ttft = trace.first_token - requests.arrival
    tokens = np.maximum(requests.answer - 1, 1)
    tpot = np.where(requests.answer > 1, (trace.done - trace.first_token) / tokens, np.nan)
    return {"ttft": ttft, "tpot": tpot, "e2e": e2e, "failed": failed,
            "queued": (trace.admitted - requests.arrival) > 1e-3}


def summary(run: Run, spike: str | None = None) -> dict[str, Any]:
    figures = latencies(run)
    requests, fleet = run.requests, run.fleet
    hours = max(1, math.ceil(len(run.trace.ticks) * TICK_SECONDS / 3600))
    hour_of = (requests.arrival // 3600).astype(np.int64)
    refused_hour = np.bincount((run.refused // 3600).astype(np.int64), minlength=hours)
    tick_hour = (run.trace.ticks // 3600).astype(np.int64)
    ready = run.trace.ready.sum(axis=1)
    cost_per_tick = (run.nodes * np.array(fleet.node_hourly_usd)).sum(axis=1) * TICK_SECONDS / 3600.0
    rows = []
    for hour in range(hours):
        mine = hour_of == hour
        ok = mine & ~figures["failed"]
        ticks = tick_hour == hour
        rows.append({
            "hour": hour, "requests": int(mine.sum() + refused_hour[hour]), "queued": int((mine & figures["queued"]).sum()),
            "failed": int((mine & figures["failed"]).sum() + refused_hour[hour]),
            "ttft_ms": _percentiles(figures["ttft"][ok]),
            "tpot_ms": _percentiles(figures["tpot"][ok & ~np.isnan(figures["tpot"])]),
            "e2e_ms": _percentiles(figures["e2e"][ok]),
            "servers": [round(float(ready[ticks].mean()), 1) if ticks.any() else 0.0,
                        int(ready[ticks].max()) if ticks.any() else 0],
            "nodes": [round(float(run.nodes[ticks].sum(axis=1).mean()), 1) if ticks.any() else 0.0,
                      int(run.nodes[ticks].sum(axis=1).max()) if ticks.any() else 0],
            "cost_usd": round(float(cost_per_tick[ticks].sum()), 2)})
    return {"workload": fleet.spec.name, "pools": [pool.node_pools[0] for pool in fleet.pools],
            "spike": spike, "hours": rows, "day": _day(run, figures), "notes": list(fleet.notes),
            "seconds": round(run.seconds, 2)}


def _day(run: Run, figures: dict[str, np.ndarray]) -> dict[str, Any]:
    inference = run.fleet.spec.inference
    ok = ~figures["failed"]
    day = {"requests": int(len(run.requests) + len(run.refused)), "queued": int(figures["queued"].sum()),
           "failed": int(figures["failed"].sum() + len(run.refused)), "refused_too_long": len(run.refused),
           "preempted": int((run.trace.preemptions > 0).sum()),
           "ttft_ms": _percentiles(figures["ttft"][ok]),
           "tpot_ms": _percentiles(figures["tpot"][ok & ~np.isnan(figures["tpot"])]),
           "e2e_ms": _percentiles(figures["e2e"][ok]),
           "servers_max": int(run.trace.ready.sum(axis=1).max()) if len(run.trace.ticks) else 0,
           "nodes_max": int(run.nodes.sum(axis=1).max()) if len(run.nodes) else 0,
           "cost_usd": round(float((run.nodes * np.array(run.fleet.node_hourly_usd)).sum() * TICK_SECONDS / 3600), 2)}
    assert inference is not None  # a serving run's spec (build_fleet refuses any other)
    day["targets_ms"] = {"ttft": inference.ttft_p99_ms, "tpot": inference.tpot_p99_ms, "e2e": inference.latency_p99_ms}
    return day


def _pair(values: list[float | None]) -> str:
    return "/".join("-" if value is None else f"{value:,.0f}" if value >= 100 else f"{value:,.1f}" for value in values)


def _rows(result: dict[str, Any]) -> list[list[object]]:
    return [[f"{row['hour'] % 24:02d}:00" + (f" (+{row['hour'] // 24}d)" if row["hour"] >= 24 else ""),
             row["requests"], row["queued"], row["failed"], _pair(row["ttft_ms"]), _pair(row["tpot_ms"]),
             _pair(row["e2e_ms"]), f"{row['servers'][0]:g}/{row['servers'][1]}", f"{row['nodes'][0]:g}/{row['nodes'][1]}",
             f"{row['cost_usd']:,.2f}"] for row in result["hours"] if row["requests"] or row["cost_usd"]]


def _against(name: str, value: float | None, target: float | None) -> str:
    if value is None:
        return f"{name} p99 -"
    if target is None:
        return f"{name} p99 {value:,.1f} ms"
    verdict = "within" if value <= target else "OVER"
    return f"{name} p99 {value:,.1f} ms ({verdict} {target:g})"


def day_lines(result: dict[str, Any]) -> list[str]:
    day = result["day"]
    targets = day["targets_ms"]
    return [f"Day: {day['requests']:,} requests, {day['queued']:,} queued, {day['failed']:,} failed "
            f"({day['refused_too_long']:,} longer than --max-model-len), {day['preempted']:,} preempted; "
            + "; ".join([_against("TTFT", day["ttft_ms"][1], targets["ttft"]),
                         _against("TPOT", day["tpot_ms"][1], targets["tpot"]),
                         _against("e2e", day["e2e_ms"][1], targets["e2e"])])
            + f"; up to {day['servers_max']} servers on {day['nodes_max']} nodes; ${day['cost_usd']:,.2f} for the "
              "day (accelerator nodes)."]


def render_text(result: dict[str, Any], source: str) -> str:
    out = [f"Simulated {result['workload']} ({source}" + (f", spike {result['spike']}" if result["spike"] else "")
           + f"; pools in route order: {', '.join(result['pools'])})", "",
           render_table(HEADERS, _rows(result)), "", *day_lines(result)]
    out += [f"note: {note}" for note in result["notes"]]
    return "\n".join(out)


def render_markdown(result: dict[str, Any], source: str) -> str:
    out = [f"### Simulated `{result['workload']}`", "", f"{source}" + (f", spike {result['spike']}" if result["spike"]
                                                                      else ""), "",
           render_markdown_table(HEADERS, _rows(result)), "", *(f"- {line}" for line in day_lines(result))]
    out += [f"- note: {note}" for note in result["notes"]]
    return "\n".join(out)


def write_chart(path: Path, run: Run, result: dict[str, Any]) -> None:
    """Over the day: arrivals and waiting requests, servers ready and asked for per pool, nodes."""
    from accelfit.reports.plan_chart import open_figure

    plt, figure, (load, fleet) = open_figure(path, rows=2)
    trace = run.trace
    minutes = len(trace.ticks) // 60
    per_minute = np.arange(minutes) / 60.0

    def minute_mean(values: np.ndarray) -> np.ndarray:
        means: np.ndarray = values[:minutes * 60].reshape(minutes, 60).mean(axis=1)  # numpy types mean() as Any
        return means

    arrivals = np.bincount((run.requests.arrival // 60).astype(np.int64), minlength=minutes)[:minutes] / 60.0
    load.plot(per_minute, arrivals, label="arrivals (req/s)", linewidth=0.8)
    load.plot(per_minute, minute_mean(trace.waiting.astype(float)), label="waiting requests", linewidth=0.8)
    load.set_ylabel("requests")
    load.legend(loc="upper left")
    for index, name in enumerate(result["pools"]):
        fleet.plot(per_minute, minute_mean(trace.ready[:, index].astype(float)), label=f"{name}: servers ready")
        fleet.plot(per_minute, minute_mean(run.asked[:, index]), linestyle=":", label=f"{name}: asked")
        fleet.plot(per_minute, minute_mean(run.nodes[:, index]), linestyle="--", label=f"{name}: nodes")
    fleet.set_xlabel("hour of the day (UTC)")
    fleet.set_ylabel("servers / nodes")
    fleet.legend(loc="upper left")
    load.set_title(f"{result['workload']}: a simulated day")
    for axes in (load, fleet):
        axes.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
