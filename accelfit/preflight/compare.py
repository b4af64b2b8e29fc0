"""Needs against what the cloud answered: one finding per quota, zone offering, reservation and service, and for
each plan step whether it fits. Pure.

Rules: a quota fits when needed <= limit - in use (in use 0 when the source reports none, said in the finding); a
spot pool on GCE may use the standard quota when the project has no preemptible quota at all (limit 0), as Compute
Engine does (compute/resource-usage, "Preemptible quotas"). A check the cloud would not answer is "unchecked": it
is reported with the reason and never counted as fitting.
"""

from __future__ import annotations

from urllib.parse import quote

from accelfit.preflight.model import (Finding, Needs, Observed, QuotaNeed, QuotaReading, Report, ReservationNeed,
                                      cloud_quotas_key, quota_key, reservation_key, zone_key)


def compare(needs: Needs, observed: Observed, cloud: str) -> Report:
    findings: list[Finding] = []
    # Standard-quota amounts by (region, zone, metric): a spot need that falls back to the standard quota shares it.
    standard = {(n.region, n.zone, n.metric, n.quota_dimension): n.amount for n in needs.quotas}
    for need in needs.quotas:
        findings.append(_quota(need, observed, needs.project, standard))
    for zone_need in needs.zones:
        offered = observed.zones.get(zone_key(zone_need.zone, zone_need.machine_type))
        subject = zone_need.machine_type + (f" with {zone_need.accelerator_type}" if zone_need.accelerator_type else "")
        if offered is None:
            findings.append(Finding(kind="zone", status="unchecked", subject=subject, region=zone_need.zone,
                                    detail="no answer for this zone", steps=zone_need.pools))
        elif not offered:
            findings.append(Finding(kind="zone", status="short", subject=subject, region=zone_need.zone,
                                    detail=f"{zone_need.zone} does not offer {zone_need.machine_type}"
                                           + (f" with {zone_need.accelerator_type}" if zone_need.accelerator_type
                                              else ""),
                                    request="re-plan without that zone (placement.regions, or `accelfit catalog "
                                            "update` then `accelfit lock --fresh --stack " + needs.stack + "`)",
                                    steps=zone_need.pools))
        else:
            findings.append(Finding(kind="zone", status="ok", subject=subject, region=zone_need.zone,
                                    steps=zone_need.pools))
    for res in needs.reservations:
        reading = observed.reservations.get(reservation_key(res.zone, res.name))
        subject = f"reservation {res.name}" + (f" ({res.zone})" if res.zone else "")
        if reading is None:
            findings.append(Finding(kind="reservation", status="unchecked", subject=subject, region=res.region,
                                    needed=res.instances, detail="not read", steps=res.pools))
            continue
        free = reading.count - reading.in_use
        short = res.instances > free
        request = ""
        if short:
            wanted = reading.in_use + res.instances
            request = _RESERVATION_REQUEST[cloud](res, wanted, needs.project)
        findings.append(Finding(kind="reservation", status="short" if short else "ok", subject=subject,
                                region=res.region, needed=res.instances, limit=reading.count, in_use=reading.in_use,
                                detail=f"{free} of {reading.count} instances free", request=request,
                                steps=res.pools))
    for service in needs.services:
        enabled = observed.services.get(service.name)
        status = "unchecked" if enabled is None else "ok" if enabled else "short"
        findings.append(Finding(kind="service", status=status, subject=service.name, detail=service.why if enabled
                                is not False else f"not enabled; needed by {service.why}",
                                request=f"gcloud services enable {service.name} --project={needs.project}"
                                if status == "short" else ""))
    for item in observed.unchecked:
        findings.append(Finding(kind=_kind_of(item.check), status="unchecked", subject=item.check,
                                detail=item.reason, request=item.fix))
    return Report(stack=needs.stack, cloud=cloud, findings=tuple(findings), steps=_steps(needs, findings),
                  notes=needs.notes)


def _kind_of(check: str) -> str:
    for kind in ("quota", "zone", "reservation", "service"):
        if check.startswith(kind):
            return kind
    return "quota"


def _reading(need: QuotaNeed, observed: Observed) -> QuotaReading | None:
    reading = observed.quotas.get(quota_key(need.region, need.metric, need.zone))
    if reading is None and need.quota_id:
        reading = observed.quotas.get(cloud_quotas_key(need.region, need.quota_id, need.quota_dimension, need.zone))
    return reading


def _standard_reading(need: QuotaNeed, observed: Observed) -> QuotaReading | None:
    if need.cloud_quotas_only:
        return observed.quotas.get(cloud_quotas_key(need.region, need.standard_metric, need.standard_dimension,
                                                    need.zone))
    return observed.quotas.get(quota_key(need.region, need.standard_metric, need.zone))


def _quota(need: QuotaNeed, observed: Observed, project: str, standard_needs: dict[tuple[str, str, str, str], int]) -> Finding:
    subject = f"{need.metric} ({need.label})"
    where = need.zone or need.region
    steps = tuple(step for step, _ in need.by_step)
    reading = _reading(need, observed)
    if reading is None:
        looked_for = (f"; Cloud Quotas lists no {need.quota_id}" + (f" [{need.quota_dimension}]" if
                      need.quota_dimension else "") + f" for {need.region}") if need.cloud_quotas_only else ""
        return Finding(kind="quota", status="unchecked", subject=subject, region=where, needed=need.amount,
                       detail="no answer" + looked_for, steps=steps)
    if reading.limit < 0:  # Cloud Quotas' -1: no limit
        return Finding(kind="quota", status="ok", subject=subject, region=where, needed=need.amount,
                       detail=f"unlimited (read from {reading.source})", steps=steps)
    used = reading.usage or 0.0
    wanted = int(used + need.amount)
    fits = need.amount <= reading.limit - used
    detail = f"read from {reading.source}" + ("" if reading.usage is not None else "; usage not reported (0 assumed)")
    if not fits and need.standard_metric and reading.limit == 0:
        # No preemptible quota at all: Compute Engine charges the spot VMs to the standard quota, which the stack's
        # on-demand pools of the same kind draw on too.
        standard = _standard_reading(need, observed)
        if standard is not None:
            shared = standard_needs.get((need.region, need.zone, need.standard_metric, need.standard_dimension), 0)
            fits = standard.limit < 0 or need.amount + shared <= standard.limit - (standard.usage or 0.0)
            detail = (f"no preemptible quota, so spot VMs use {need.standard_metric}: {standard.limit:g} limit, "
                      f"{standard.usage or 0:g} in use, {shared} of it needed by on-demand pools")
    if fits:
        return Finding(kind="quota", status="ok", subject=subject, region=where, needed=need.amount,
                       limit=reading.limit, in_use=reading.usage, detail=detail, steps=steps)
    return Finding(kind="quota", status="short", subject=subject, region=where, needed=need.amount,
                   limit=reading.limit, in_use=reading.usage, detail=detail, request=_request(need, project, wanted),
                   steps=steps)


def _request(need: QuotaNeed, project: str, wanted: int) -> str:
    return _QUOTA_REQUEST[need.cloud](need, project, wanted)


def _gcp_quota_request(need: QuotaNeed, project: str, wanted: int) -> str:
    where = need.zone or need.region
    return (f"ask for {wanted} {need.unit} of {need.metric} in {where}: "
            f"https://console.cloud.google.com/iam-admin/quotas?project={quote(project)} (filter: {need.metric})")


def _aws_quota_request(need: QuotaNeed, project: str, wanted: int) -> str:
    return (f"aws service-quotas request-service-quota-increase --service-code ec2 --quota-code {need.metric} "
            f"--desired-value {wanted} --region {need.region}")


def _gcp_reservation_request(res: ReservationNeed, wanted: int, project: str) -> str:
    return (f"gcloud compute reservations update {res.name} --zone={res.zone} --vm-count={wanted} "
            f"--project={project}")


def _aws_reservation_request(res: ReservationNeed, wanted: int, project: str) -> str:
    return (f"aws ec2 modify-capacity-reservation --capacity-reservation-id {res.name} --instance-count {wanted} "
            f"--region {res.region}")


# How to ask each cloud that preflight reads for more: its own command or console page, by cloud name.
_QUOTA_REQUEST = {"gcp": _gcp_quota_request, "aws": _aws_quota_request}
_RESERVATION_REQUEST = {"gcp": _gcp_reservation_request, "aws": _aws_reservation_request}


def _steps(needs: Needs, findings: list[Finding]) -> tuple[tuple[str, str], ...]:
    result = []
    for step in needs.steps:
        # A pool is named in its quota findings by its step label, in zone/reservation findings as member/pool.
        short = [f.subject for f in findings if f.status == "short" and any(_same_step(step, s) for s in f.steps)]
        unknown = [f.subject for f in findings if f.status == "unchecked" and any(_same_step(step, s) for s in f.steps)]
        verdict = ("short of " + "; ".join(short)) if short else ("not fully checked: " + "; ".join(unknown)) \
            if unknown else "fits"
        result.append((step, verdict))
    return tuple(result)


def _same_step(step: str, named: str) -> bool:
    if step == named:
        return True
    member, _, pool = named.partition("/")
    return (bool(pool) and step.startswith(member + " ") and step.endswith(f"({pool})")) or \
        (bool(pool) and step == f"{member} {pool} pool (every step)")
