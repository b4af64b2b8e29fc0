"""The serving route's two priced parts, computed once for the plan and the preview (plan = preview):

- `gateway`: the load balancer the Gateway gets (GKE: a regional Application Load Balancer's forwarding rule; EKS:
  a Network Load Balancer) all month, plus the request and response bytes it processes at the spec's rate for the
  hours a day the service runs;
- `metrics`: on GKE, the server metrics Managed Service for Prometheus ingests (charged per sample): the series
  each server pod keeps, scraped every interval, for the servers that run (the autoscaler's minimum as planned, its
  maximum at full scale). EKS scrapes into the cluster's own Prometheus: no per-sample charge.
Rates are catalog service rows (serving-lb-hour, serving-lb-data, managed-prometheus-samples), with their sources.
"""

from __future__ import annotations

from accelfit.pricing.figures import DAYS_PER_MONTH, HOURS_PER_MONTH, Part, RunWindow

SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600.0


def route_gb_per_month(requests_per_second: float, tokens_per_request: float, bytes_per_token: float,
                       hours_per_day: float) -> float:
    """Bytes through the load balancer: every request's prompt in and its completion out."""
    return requests_per_second * tokens_per_request * bytes_per_token * 3600.0 * hours_per_day * DAYS_PER_MONTH / 1e9


def samples_per_month(series_per_pod: int, pods: int, scrape_interval_seconds: float) -> float:
    return series_per_pod * pods * SECONDS_PER_MONTH / scrape_interval_seconds


def gateway_part(lb_hourly_usd: float, gb_per_month: float, usd_per_gb: float, run: RunWindow | None) -> Part:
    monthly = lb_hourly_usd * HOURS_PER_MONTH + gb_per_month * usd_per_gb
    return Part("gateway", monthly, monthly, monthly * run.wall_hours / HOURS_PER_MONTH if run else None,
                f"load balancer ${lb_hourly_usd:g}/h all month + {gb_per_month:,.1f} GB/month of requests and "
                f"responses at ${usd_per_gb:g}/GB")


def metrics_part(series_per_pod: int, pods_min: int, pods_max: int, scrape_interval_seconds: float,
                 usd_per_million: float, run: RunWindow | None) -> Part:
    planned = samples_per_month(series_per_pod, pods_min, scrape_interval_seconds)
    full = samples_per_month(series_per_pod, pods_max, scrape_interval_seconds)
    monthly = planned / 1e6 * usd_per_million
    return Part("metrics", monthly, full / 1e6 * usd_per_million,
                monthly * run.wall_hours / HOURS_PER_MONTH if run else None,
                f"{series_per_pod} server series per pod every {scrape_interval_seconds:g} s, {pods_min} pods as "
                f"planned ({pods_max} at full scale), at ${usd_per_million:g} per million samples")
