"""Reads an AWS account's EC2 limits, zone offerings and capacity reservations with the default credential chain
(environment, SSO/profile, instance role), through boto3. Imported only for an AWS stack; boto3 only here.

Calls used (each read-only): Service Quotas GetServiceQuota (service code ec2; the limit in vCPUs and the usage
metric it names), CloudWatch GetMetricStatistics on that usage metric (AWS/Usage, the documented way to read a
quota's usage), EC2 DescribeInstanceTypeOfferings (location type availability-zone) and
DescribeCapacityReservations (AvailableInstanceCount). There is no per-service enablement to read on AWS.
Throttling is retried with backoff, then reported as not checked; a denied call is reported as not checked with the
IAM action it needs; missing, unreadable or rejected credentials (a profile that does not exist, a config file that
is not one, a directory or a FIFO where the file should be) stop the command (exit 2) with how to log in. The
config and credentials files are checked first by `credentials.check_aws_files` (bounded, regular files only). When
AWS's endpoints cannot be reached the check is "could not check" and the remaining ones are not attempted.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import time
from collections.abc import Callable
from typing import Any

from accelfit.preflight.credentials import check_aws_files
from accelfit.preflight.errors import UNREACHABLE_FIX, credentials_error, sdk_missing
from accelfit.preflight.model import (Needs, Observed, QuotaReading, ReservationNeed, ReservationReading, Unchecked, ZoneNeed,
                                      quota_key, reservation_key, zone_key)
from accelfit.preflight.retry import Throttled, call_with_retries, throttled_unchecked

THROTTLED = {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded",
             "ServiceUnavailable"}
BAD_CREDENTIALS = {"UnrecognizedClientException", "InvalidClientTokenId", "ExpiredToken", "ExpiredTokenException",
                   "AuthFailure", "InvalidSignatureException", "SignatureDoesNotMatch"}
DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException"}


class AwsReader:
    def __init__(self, client_factory: Callable[[str, str], Any] | None = None, *,
                 sleep: Callable[[float], None] = time.sleep, now: Callable[[], dt.datetime] | None = None):
        try:
            import boto3
            import botocore.exceptions
        except ImportError:
            raise sdk_missing("aws", "boto3") from None
        self.botocore = botocore.exceptions
        # Errors that mean AWS could not be reached at all (connection, DNS, proxy, TLS, a read timing out).
        self.network = (botocore.exceptions.ConnectionError, botocore.exceptions.HTTPClientError)
        self.unreachable = ""  # the first network failure: the checks after it are not attempted
        self.profile = os.environ.get("AWS_PROFILE") or os.environ.get("AWS_DEFAULT_PROFILE") or ""
        if client_factory is None:
            client_factory = self._default_clients(boto3)
        self.client = client_factory
        self.sleep = sleep
        self.now = now or (lambda: dt.datetime.now(dt.UTC))

    def _default_clients(self, boto3: Any) -> Callable[[str, str], Any]:
        """Clients on the default credential chain; every way it can fail to give credentials is exit 2."""
        profile = self.profile
        check_aws_files()
        errors = self.botocore
        try:
            session = boto3.session.Session()
            credentials = session.get_credentials()
        except errors.ProfileNotFound:
            raise credentials_error("aws", f"the profile {profile!r} (AWS_PROFILE) is in neither the AWS config nor "
                                    "the credentials file", profile=profile) from None
        except errors.ConfigParseError as error:
            raise credentials_error("aws", f"{error.kwargs.get('path', 'an AWS config file')} is not an AWS config "
                                    "file (INI sections and key = value lines)", profile=profile) from None
        except self.network as error:
            self.unreachable = f"could not reach AWS to load the credentials ({_first_line(error)})"
            return lambda service, region: None
        except errors.BotoCoreError as error:  # partial keys, a bad credential_process, SSO without a token, ...
            raise credentials_error("aws", _first_line(error), profile=profile) from None
        if credentials is None:
            raise credentials_error("aws", "no credentials in the default chain (environment, profile, SSO, "
                                    "instance role)", profile=profile)
        return lambda service, region: session.client(service, region_name=region)

    def _throttled(self, error: Exception) -> bool:
        return isinstance(error, self.botocore.ClientError) and _code(error) in THROTTLED

    def _call(self, fn: Callable[[], Any]) -> Any:
        try:
            return call_with_retries(fn, self._throttled, self.sleep)
        except self.botocore.ClientError as error:
            if _code(error) in BAD_CREDENTIALS:
                raise credentials_error("aws", f"the credentials were rejected ({_code(error)})",
                                        profile=self.profile) from None
            raise
        except (self.botocore.NoCredentialsError, self.botocore.PartialCredentialsError,
                self.botocore.CredentialRetrievalError, self.botocore.TokenRetrievalError,
                self.botocore.SSOError) as error:  # credentials are loaded lazily: SSO or assume-role at first call
            raise credentials_error("aws", _first_line(error), profile=self.profile) from None

    def _guard(self, observed: dict[str, Any], check: str, action: str, fn: Callable[[], None]) -> None:
        if self.unreachable:
            observed["unchecked"].append(Unchecked(check=check, reason=self.unreachable, fix=UNREACHABLE_FIX))
            return
        try:
            fn()
        except self.network as error:
            self.unreachable = f"could not reach AWS ({_first_line(error)})"
            observed["unchecked"].append(Unchecked(check=check, reason=self.unreachable, fix=UNREACHABLE_FIX))
        except Throttled:
            observed["unchecked"].append(throttled_unchecked(check))
        except self.botocore.ClientError as error:
            code = _code(error)
            if code in DENIED:
                observed["unchecked"].append(Unchecked(check=check, reason=f"permission denied ({code})",
                                                       fix=f"allow {action} for these credentials"))
            elif code == "NoSuchResourceException":
                observed["unchecked"].append(Unchecked(check=check, reason="Service Quotas has no such quota in "
                                                       "this region"))
            else:
                observed["unchecked"].append(Unchecked(check=check, reason=f"{code}: {error}"[:200]))
        except self.botocore.BotoCoreError as error:  # anything else botocore refuses: not verified, not a traceback
            observed["unchecked"].append(Unchecked(check=check, reason=_first_line(error)))

    def read(self, needs: Needs) -> Observed:
        observed: dict[str, Any] = {"quotas": {}, "zones": {}, "reservations": {}, "services": {}, "unchecked": []}
        for need in needs.quotas:
            self._guard(observed, f"quota {need.metric} in {need.region} (Service Quotas)",
                        "servicequotas:GetServiceQuota and cloudwatch:GetMetricStatistics",
                        functools.partial(self._quota, observed, need.region, need.metric))
        for region in sorted({n.region for n in needs.zones}):
            zones = [n for n in needs.zones if n.region == region]
            self._guard(observed, f"zone offerings in {region}", "ec2:DescribeInstanceTypeOfferings",
                        functools.partial(self._zones, observed, region, zones))
        for region in sorted({n.region for n in needs.reservations}):
            wanted = [n for n in needs.reservations if n.region == region]
            self._guard(observed, f"reservation {', '.join(n.name for n in wanted)}",
                        "ec2:DescribeCapacityReservations",
                        functools.partial(self._reservations, observed, region, wanted))
        observed["unchecked"] = tuple(observed["unchecked"])
        return Observed(**observed)

    def _quota(self, observed: dict[str, Any], region: str, code: str) -> None:
        quotas = self.client("service-quotas", region)
        quota = self._call(lambda: quotas.get_service_quota(ServiceCode="ec2", QuotaCode=code))["Quota"]
        usage = self._usage(region, quota.get("UsageMetric"))
        observed["quotas"][quota_key(region, code)] = QuotaReading(
            limit=float(quota["Value"]), usage=usage,
            source="Service Quotas" + (" and CloudWatch AWS/Usage" if usage is not None else ""))

    def _usage(self, region: str, metric: dict[str, Any] | None) -> float | None:
        """The quota's current usage from the CloudWatch metric Service Quotas names (None when it names none)."""
        if not metric or not metric.get("MetricName"):
            return None
        cloudwatch = self.client("cloudwatch", region)
        end = self.now()
        answer = self._call(lambda: cloudwatch.get_metric_statistics(
            Namespace=metric["MetricNamespace"], MetricName=metric["MetricName"],
            Dimensions=[{"Name": k, "Value": v} for k, v in sorted(metric.get("MetricDimensions", {}).items())],
            StartTime=end - dt.timedelta(minutes=15), EndTime=end, Period=300,
            Statistics=[metric.get("MetricStatisticRecommendation") or "Maximum"]))
        points = answer.get("Datapoints", [])
        if not points:
            return 0.0  # no running instances of the class reported in the window
        statistic = metric.get("MetricStatisticRecommendation") or "Maximum"
        return float(max(point.get(statistic, 0.0) for point in points))

    def _zones(self, observed: dict[str, Any], region: str, wanted: list[ZoneNeed]) -> None:
        ec2 = self.client("ec2", region)
        types = sorted({n.machine_type for n in wanted})
        offered: set[tuple[str, str]] = set()
        token: str | None = None
        while True:
            kwargs = dict(LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": types}])
            if token:
                kwargs["NextToken"] = token
            page = self._call(functools.partial(ec2.describe_instance_type_offerings, **kwargs))
            offered |= {(o["Location"], o["InstanceType"]) for o in page.get("InstanceTypeOfferings", [])}
            token = page.get("NextToken")
            if not token:
                break
        for need in wanted:
            observed["zones"][zone_key(need.zone, need.machine_type)] = (need.zone, need.machine_type) in offered

    def _reservations(self, observed: dict[str, Any], region: str, wanted: list[ReservationNeed]) -> None:
        ec2 = self.client("ec2", region)
        answer = self._call(lambda: ec2.describe_capacity_reservations(
            CapacityReservationIds=sorted({n.name for n in wanted})))
        for item in answer.get("CapacityReservations", []):
            total = int(item.get("TotalInstanceCount", 0))
            available = int(item.get("AvailableInstanceCount", 0))
            active = item.get("State", "active") in ("active", "scheduled")
            observed["reservations"][reservation_key("", item["CapacityReservationId"])] = ReservationReading(
                count=total if active else 0, in_use=total - available if active else 0)


def _code(error: Any) -> str:
    code: str = error.response.get("Error", {}).get("Code", "")  # botocore's ClientError is untyped here
    return code


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__
