"""The pricers of a serving route's Kubernetes objects, whichever cloud builds them (accelfit.pricing.serving_objects):
the Gateway (its load balancer, by the cloud its gateway class names) and the PodMonitoring that keeps its metrics
series (Google Cloud Managed Service for Prometheus), with the plan's formulas (accelfit.pricing.serving_route).
A Gateway or PodMonitoring that is not a serving route's (the GPU telemetry's) costs nothing itself."""

from __future__ import annotations

from accelfit.catalog.models import Cloud
from accelfit.pricing.figures import HOURS_PER_MONTH
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import NeutralResource, Priced, RateBook
from accelfit.pricing.serving_objects import GATEWAY_TYPE, GCP_CLASS_PREFIX, POD_MONITORING_TYPE, kept_series, route_of
from accelfit.pricing.serving_route import gateway_part, metrics_part


@prices(GATEWAY_TYPE)
def gateway(resource: NeutralResource, book: RateBook) -> Priced | None:
    props = resource.props
    route = route_of(props)
    if route is None:
        return None
    gcp = str((props.get("spec") or {}).get("gatewayClassName", "")).startswith(GCP_CLASS_PREFIX)
    cloud = Cloud.gcp if gcp else Cloud.aws
    region = book.context.region(cloud)
    part = gateway_part(book.service(cloud, "serving-lb-hour", region),
                        book.context.serving_gb_per_month.get(route, 0.0),
                        book.service(cloud, "serving-lb-data", region), None)
    return Priced("per-month", monthly=part.monthly_usd, basis=part.note)


@prices(POD_MONITORING_TYPE)
def metrics(resource: NeutralResource, book: RateBook) -> Priced | None:
    route = route_of(resource.props)
    if route is None:
        return None
    series, interval = kept_series(resource.props)
    low, high = book.servers.get(route, (0, 0))
    part = metrics_part(series, low, high, interval,
                        book.service(Cloud.gcp, "managed-prometheus-samples", book.context.region(Cloud.gcp)), None)
    return Priced("always-on", part.full_scale_monthly_usd / HOURS_PER_MONTH, part.monthly_usd / HOURS_PER_MONTH,
                  basis=part.note)
