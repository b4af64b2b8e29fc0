"""Reads a GCP project's quotas, zone offerings, reservations and enabled services with the user's Application
Default Credentials, through Google's client libraries (google-cloud-compute, -quotas, -service-usage; REST
transport). Imported only for a GCP stack; the libraries are imported only here.

Calls used (each read-only): compute regions.get (regional quotas: limit and usage), acceleratorTypes.list and
machineTypes.get per zone (what the zone offers), reservations.get (count, inUseCount); Cloud Quotas
quotaInfos.list for compute.googleapis.com (GPU families regions.get leaves out) and tpu.googleapis.com (TPU VM
quotas; limits only); Service Usage services.batchGet. Throttling (429, 503) is retried with backoff, then reported
as not checked; a denied call is reported as not checked with the role that grants it; missing, unreadable or
rejected credentials stop the command (exit 2) with how to log in. The credentials file is read by
`credentials.gcp_key_info` (bounded, regular files only), never by google-auth's plain open(). When Google's
endpoints cannot be reached (no network, DNS, proxy) the check is "could not check" and the remaining ones are not
attempted (each would wait out the same failure).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from accelfit.preflight.credentials import gcp_key_info
from accelfit.preflight.errors import UNREACHABLE_FIX, credentials_error, sdk_missing
from accelfit.preflight.model import (Needs, Observed, QuotaNeed, QuotaReading, ReservationReading, Unchecked, ZoneNeed,
                                      cloud_quotas_key, quota_key, reservation_key, zone_key)
from accelfit.preflight.retry import Throttled, call_with_retries, throttled_unchecked

# Read-only roles that grant each call (IAM basic/predefined roles reference).
ROLE = {"compute": "roles/compute.viewer", "quotas": "roles/cloudquotas.viewer",
        "services": "roles/serviceusage.serviceUsageViewer"}


class GcpReader:
    def __init__(self, project: str, credentials: Any = None, *, sleep: Callable[[float], None] = time.sleep):
        try:
            from google.api_core import exceptions
            from google.cloud import cloudquotas_v1, compute_v1, service_usage_v1
        except ImportError as error:
            raise sdk_missing("gcp", error.name or "google-cloud-compute") from None
        import requests
        from google.auth.exceptions import GoogleAuthError, TransportError

        self.exceptions = exceptions
        # Errors that mean Google could not be reached at all (REST transport: requests'; token fetches: google-auth's).
        self.network = (requests.exceptions.RequestException, TransportError, exceptions.RetryError)
        self.unreachable = ""  # the first network failure: the checks after it are not attempted
        self.auth_error = GoogleAuthError  # RefreshError (rejected credentials) is exit 2 in _call, before this
        if credentials is None:
            credentials = _default_credentials()
        self.project = project
        self.sleep = sleep
        options = dict(credentials=credentials, transport="rest")
        self.regions = compute_v1.RegionsClient(**options)
        self.accelerator_types = compute_v1.AcceleratorTypesClient(**options)
        self.machine_types = compute_v1.MachineTypesClient(**options)
        self.reservations = compute_v1.ReservationsClient(**options)
        self.quotas = cloudquotas_v1.CloudQuotasClient(**options)
        self.services = service_usage_v1.ServiceUsageClient(**options)
        self.enabled_state = service_usage_v1.State.ENABLED

    def _call(self, fn: Callable[[], Any]) -> Any:
        """fn() with retries on throttling; credentials errors become exit 2."""
        from google.auth.exceptions import RefreshError

        ex = self.exceptions
        throttled = (ex.TooManyRequests, ex.ServiceUnavailable, ex.ResourceExhausted)
        try:
            return call_with_retries(fn, lambda error: isinstance(error, throttled), self.sleep)
        except (ex.Unauthorized, RefreshError) as error:
            raise credentials_error("gcp", f"the credentials were rejected ({_first_line(error)})") from None

    def _guard(self, observed: dict[str, Any], check: str, api: str, fn: Callable[[], None]) -> None:
        if self.unreachable:
            observed["unchecked"].append(Unchecked(check=check, reason=self.unreachable, fix=UNREACHABLE_FIX))
            return
        try:
            fn()
        except self.network as error:
            self.unreachable = f"could not reach Google Cloud ({_first_line(error)})"
            observed["unchecked"].append(Unchecked(check=check, reason=self.unreachable, fix=UNREACHABLE_FIX))
        except Throttled:
            observed["unchecked"].append(throttled_unchecked(check))
        except self.exceptions.Forbidden as error:
            observed["unchecked"].append(Unchecked(check=check, reason=f"permission denied ({_first_line(error)})",
                                                   fix=f"grant {ROLE[api]} on project {self.project}"))
        except (self.exceptions.GoogleAPICallError, self.auth_error) as error:  # not verified, never a traceback
            observed["unchecked"].append(Unchecked(check=check, reason=_first_line(error)))

    def read(self, needs: Needs) -> Observed:
        observed: dict[str, Any] = {"quotas": {}, "zones": {}, "reservations": {}, "services": {}, "unchecked": []}
        self._read_quotas(observed, needs)
        self._read_places(observed, needs)
        observed["unchecked"] = tuple(observed["unchecked"])
        return Observed(**observed)

    def _read_quotas(self, observed: dict[str, Any], needs: Needs) -> None:
        """Regional quotas (compute regions.get), then what it leaves out and zonal TPU quotas (Cloud Quotas)."""
        for region in sorted({n.region for n in needs.quotas if not n.zone}):
            self._guard(observed, f"quota of region {region} (compute regions.get)", "compute",
                        functools.partial(self._region, observed, region))
        # A metric regions.get leaves out (newer GPU families; only for regions it answered) and the quotas it has no
        # metric for (GKE TPU v5p/v6e) are read from Cloud Quotas.
        answered = {key.split("/")[0] for key in observed["quotas"]}
        missing = [n for n in needs.quotas if not n.zone and n.quota_id and (n.region in answered or
                   n.cloud_quotas_only) and quota_key(n.region, n.metric) not in observed["quotas"]]
        if missing:
            self._guard(observed, "quota of GPU and TPU families (Cloud Quotas, compute.googleapis.com)", "quotas",
                        lambda: self._quota_infos(observed, "compute.googleapis.com", missing, by_zone=False))
        zonal = [n for n in needs.quotas if n.zone]
        if zonal:
            self._guard(observed, "quota of TPU VMs (Cloud Quotas, tpu.googleapis.com)", "quotas",
                        lambda: self._quota_infos(observed, "tpu.googleapis.com", zonal, by_zone=True))

    def _read_places(self, observed: dict[str, Any], needs: Needs) -> None:
        """Zone offerings, held reservations and enabled APIs."""
        for zone in sorted({n.zone for n in needs.zones}):
            wanted = [n for n in needs.zones if n.zone == zone]
            self._guard(observed, f"zone {zone} offerings", "compute",
                        functools.partial(self._zone, observed, zone, wanted))
        for res in needs.reservations:
            self._guard(observed, f"reservation {res.name} ({res.zone})", "compute",
                        functools.partial(self._reservation, observed, res))
        if needs.services:
            self._guard(observed, "service enabled APIs (Service Usage)", "services",
                        lambda: self._services(observed, [s.name for s in needs.services]))

    def _region(self, observed: dict[str, Any], region: str) -> None:
        answer = self._call(lambda: self.regions.get(project=self.project, region=region))
        for quota in answer.quotas:
            observed["quotas"][quota_key(region, quota.metric)] = QuotaReading(
                limit=quota.limit, usage=quota.usage, source="compute regions.get")

    def _quota_infos(self, observed: dict[str, Any], service: str, needs: list[QuotaNeed], *, by_zone: bool) -> None:
        parent = f"projects/{self.project}/locations/global/services/{service}"
        wanted = {n.quota_id if not by_zone else n.metric for n in needs}
        # A spot need read from Cloud Quotas may fall back to its on-demand quota: read that one too.
        wanted |= {n.standard_metric for n in needs if n.cloud_quotas_only and n.standard_metric}
        infos = self._call(lambda: list(self.quotas.list_quota_infos(parent=parent)))
        for info in infos:
            if info.quota_id not in wanted:
                continue
            source = f"Cloud Quotas {service} {info.quota_id}"
            if by_zone:
                self._zonal_infos(observed, info, source)
            else:
                _regional_infos(observed, info, source)

    @staticmethod
    def _zonal_infos(observed: dict[str, Any], info: Any, source: str) -> None:
        for dims in info.dimensions_infos:
            zone = dict(dims.dimensions).get("zone", "")
            if zone:
                observed["quotas"][quota_key(zone.rsplit("-", 1)[0], info.quota_id, zone)] = QuotaReading(
                    limit=float(dims.details.value), usage=None, source=source)

    def _zone(self, observed: dict[str, Any], zone: str, wanted: list[ZoneNeed]) -> None:
        accelerators = None
        if any(n.accelerator_type for n in wanted):
            accelerators = {a.name for a in self._call(lambda: list(self.accelerator_types.list(
                project=self.project, zone=zone)))}
        for need in wanted:
            offered = True
            try:
                self._call(functools.partial(self.machine_types.get, project=self.project, zone=zone,
                                             machine_type=need.machine_type))
            except self.exceptions.NotFound:
                offered = False
            if need.accelerator_type and accelerators is not None and need.accelerator_type not in accelerators:
                offered = False
            observed["zones"][zone_key(zone, need.machine_type)] = offered

    def _reservation(self, observed: dict[str, Any], res: Any) -> None:
        try:
            answer = self._call(lambda: self.reservations.get(project=self.project, zone=res.zone,
                                                              reservation=res.name))
        except self.exceptions.NotFound:
            observed["reservations"][reservation_key(res.zone, res.name)] = ReservationReading(count=0, in_use=0)
            return
        specific = answer.specific_reservation
        observed["reservations"][reservation_key(res.zone, res.name)] = ReservationReading(
            count=int(specific.count), in_use=int(specific.in_use_count))

    def _services(self, observed: dict[str, Any], names: list[str]) -> None:
        answer = self._call(lambda: self.services.batch_get_services(request={
            "parent": f"projects/{self.project}", "names": [f"projects/{self.project}/services/{n}" for n in names]}))
        for service in answer.services:
            observed["services"][service.name.rsplit("/", 1)[-1]] = service.state == self.enabled_state


def _regional_infos(observed: dict[str, Any], info: Any, source: str) -> None:
    """Each (region, other dimensions) value of a regional quota, kept under cloud_quotas_key. A value set for a
    region wins; an entry without a region is the default for the regions in its applicable_locations."""
    defaults: list[tuple[str, str, QuotaReading]] = []
    for dims in info.dimensions_infos:
        dimensions = dict(dims.dimensions)
        region = dimensions.pop("region", "")
        key = ",".join(f"{k}={v}" for k, v in sorted(dimensions.items()))
        reading = QuotaReading(limit=float(dims.details.value), usage=None, source=source)
        if region:
            observed["quotas"][cloud_quotas_key(region, info.quota_id, key)] = reading
        else:
            defaults.extend((location, key, reading) for location in dims.applicable_locations if location != "global")
    for location, key, reading in defaults:
        observed["quotas"].setdefault(cloud_quotas_key(location, info.quota_id, key), reading)


def _default_credentials() -> Any:
    """The user's Application Default Credentials: from the key file (read by accelfit, see credentials.py), else
    whatever google.auth.default finds (the metadata server of a Google Cloud VM). Any problem: exit 2 with the fix."""
    import google.auth
    from google.auth.exceptions import GoogleAuthError

    scopes = ["https://www.googleapis.com/auth/cloud-platform"]
    found = gcp_key_info()
    try:
        if found is None:
            credentials, _ = google.auth.default(scopes=scopes)
        else:
            credentials, _ = google.auth.load_credentials_from_dict(found[1], scopes=scopes)
    except (GoogleAuthError, ValueError, KeyError, TypeError) as error:
        where = f" in {found[0]}" if found else ""
        raise credentials_error("gcp", f"no usable Application Default Credentials{where} ({_first_line(error)})") \
            from None
    return credentials


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__
