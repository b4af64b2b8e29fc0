"""Render an `accelfit preview` document: plan summary, resources grouped by component with their monthly cost,
the total against the budget, the lock status and the policy results."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from accelfit.preview.budgets import budget_text
from accelfit.reports.cost_figures import figures_line, gpu_vm_monthly_note, monthly_above_run_note
from accelfit.durations import duration, usd
from accelfit.reports.table import render_markdown_table, render_table


def short_type(token: str) -> str:
    """'gcp:container/nodePool:NodePool' -> 'gcp:NodePool'."""
    provider, _, rest = token.partition(":")
    return f"{provider}:{rest.rsplit(':', 1)[-1]}"


def group_by_component(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Custom resources under the top-level component that holds them ('(stack)' for none)."""
    by_name = {resource["name"]: resource for resource in document["resources"]}
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for resource in document["resources"]:
        if not resource["custom"]:
            continue
        root, parent = "(stack)", resource["parent"]
        while parent:
            root = parent
            parent = by_name.get(parent, {}).get("parent")
        groups[root].append(resource)
    return dict(sorted(groups.items()))


def is_fleet(document: dict[str, Any]) -> bool:
    return document.get("form") == "fleet"


def group_resources(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A fleet's custom resources by the workload they belong to (`<cluster>-shared` for a shared cluster's items);
    a single stack's by top-level component."""
    if not is_fleet(document):
        return group_by_component(document)
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for resource in document["resources"]:
        if resource["custom"]:
            groups[resource.get("workload") or "(stack)"].append(resource)
    return dict(sorted(groups.items()))


def _shape(plan: dict[str, Any]) -> str:
    acc = plan["accelerator"]
    return (f"{acc['count']} × {acc['name']} ({acc['slices']} × {acc['slice']}, {acc['topology']})"
            if acc["kind"] == "tpu" else f"{acc['count']} × {acc['name']} on {acc['nodes']} × {acc['instance_type']}")


def _fleet_summary(document: dict[str, Any]) -> list[str]:
    fleet, cost = document["plan"], document["cost"]
    out = [f"Fleet: {fleet['name']} · {len(fleet['workloads'])} workloads · "
           + (", ".join(f"cluster {name} shared by {', '.join(item['workloads'])}"
                        for name, item in cost.get("shared", {}).items()) or "no shared cluster"),
           f"Cost (fleet, shared items once): {figures_line(cost)}"]
    locks = document.get("lock", {}).get("workloads", {})
    for member in fleet["workloads"]:
        plan = member["plan"]
        where = f"cluster {member['cluster']}" if member["cluster"] else "alone"
        out.append(f"Workload {member['name']}: {plan['platform']} {plan['cloud']} {plan['region']} · "
                   f"{_shape(plan)} · {plan['pricing']} · {where} · "
                   f"{figures_line(cost['workloads'][member['name']])}")
        if member["name"] in locks:
            out.append(f"Lock {member['name']}: {locks[member['name']]['message']}")
    out += [f"Budget: {budget_text(line)}" for line in document["budget"].get("lines", [])]
    return out + _notes(document)


def _summary(document: dict[str, Any]) -> list[str]:
    if is_fleet(document):
        return _fleet_summary(document)
    plan = document["plan"]
    shape = _shape(plan)
    cost = document["cost"]
    out = [f"Plan: {plan['platform']} {plan['cloud']} {plan['region']} · {shape} · {plan['pricing']}",
           f"Cost: {figures_line(cost)}"]
    why = (f"TPU VMs bill every hour they exist while the run needs {duration(plan['estimate']['hours'])}"
           if plan["platform"] == "tpu-vm" else
           gpu_vm_monthly_note(duration(plan["estimate"]["hours"]), plan["gpu_vm"]["autostop_action"])
           if plan.get("gpu_vm") else
           "the always-on parts (control plane, NAT, system pool, storage) bill all month while the stack exists "
           f"and the run lasts {duration(plan['estimate']['hours'])}")
    note = monthly_above_run_note(cost, why)
    if note:
        out.append(f"Note: {note}")
    out += [f"Budget: {budget_text(line)}" for line in document["budget"].get("lines", [])]
    out += [f"Lock: {document['lock']['message']}",
            f"Catalog: {plan.get('catalog') or 'shipped snapshot'}; the chosen price is as of {plan['catalog_as_of']}"]
    return out + _notes(document)


def _notes(document: dict[str, Any]) -> list[str]:
    """Unset secrets (the offline preview used placeholders) and warnings such as plain-text secrets."""
    notes = [f"Secret {item['key']} is not set (previewed with a placeholder); before `pulumi up`: {item['set_with']}"
             for item in document.get("unset_secrets", [])]
    return notes + [f"Warning: {warning}" for warning in document.get("warnings", [])]


def _violation_rows(document: dict[str, Any]) -> list[list[object]]:
    return [[v["level"], v["policy"], v["resource"], v["message"]] for v in document["policies"]["violations"]]


def render_text(document: dict[str, Any]) -> str:
    title = f"accelfit preview: stack {document['stack']} ({document['environment']})"
    out = [title, "=" * len(title), *_summary(document), ""]
    for component, members in group_resources(document).items():
        total = sum(member["monthly_usd"] for member in members)
        out.append(f"{component}  ({len(members)} resources, {usd(total)}/month)")
        rows = [[short_type(m["type"]), m["name"], usd(m["monthly_usd"]) if m["monthly_usd"] else "-",
                 "yes" if m["protect"] else "no"] for m in members]
        out += ["  " + line for line in render_table(["type", "name", "monthly", "protected"], rows).splitlines()]
        out.append("")
    for item in document["cost"].get("usage", []):
        whose = f" of {item['workload']}" if item.get("workload") else ""
        out.append(f"{item['item']}{whose} (from the spec): {usd(item['monthly_usd'])}/month, {item['basis']}")
    custom = sum(1 for resource in document["resources"] if resource["custom"])
    out.append(f"{custom} resources; {figures_line(document['cost'])}.")
    out += ["", "Cost assumptions:"] + [f"  - {line}" for line in document["cost"]["assumptions"]]
    policies = document["policies"]
    violations = policies["violations"]
    out += ["", f"Policies ({policies['pack']}, {len(policies['rules'])} rules): "
                f"{sum(v['level'] == 'mandatory' for v in violations)} mandatory, "
                f"{sum(v['level'] == 'advisory' for v in violations)} advisory violations"]
    if violations:
        out.append(render_table(["level", "policy", "resource", "message"], _violation_rows(document)))
    return "\n".join(out)


def render_markdown(document: dict[str, Any]) -> str:
    out = [f"### accelfit preview: `{document['stack']}` ({document['environment']})", ""]
    out += [f"- {line}" for line in _summary(document)] + [""]
    violations = document["policies"]["violations"]
    mandatory = sum(v["level"] == "mandatory" for v in violations)
    out.append(f"**Policies:** {mandatory} mandatory, {len(violations) - mandatory} other violations of "
               f"{len(document['policies']['rules'])} rules")
    if violations:
        out += ["", render_markdown_table(["level", "policy", "resource", "message"], _violation_rows(document))]
    out += ["", "<details><summary>Resources and monthly cost</summary>", ""]
    rows = [[component, short_type(m["type"]), m["name"], usd(m["monthly_usd"]) if m["monthly_usd"] else "-"]
            for component, members in group_resources(document).items() for m in members]
    heading = "workload" if is_fleet(document) else "component"
    out += [render_markdown_table([heading, "type", "name", "monthly"], rows), "", "</details>"]
    return "\n".join(out)
