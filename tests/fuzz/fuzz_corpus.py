"""The fuzz corpus: bad and odd inputs for every command that reads a user's file, each with the exit codes it may
end with. Deterministic (no randomness): the same accelfit gives the same corpus, so a failure can be replayed.

Every case is one `accelfit` invocation in a scratch copy of the project. A case passes when the command ends with
one of its expected exit codes, prints no Python traceback and finishes before the runner's timeout. The inputs
are built from the project's own examples and stacks by replacing one field with a hostile value, by breaking the
document's structure, or by passing something that is not a text file at all.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
INVALID = frozenset({2})
ANY_OUTCOME = frozenset({0, 1, 2})  # a legal spec may or may not have a feasible plan
PLANNED = frozenset({0, 1})

# Files that are not YAML/JSON text; the runner creates them (a FIFO, a symlink loop, ...) in the scratch tree.
SPECIAL_FILES = ("fifo", "dev-zero", "directory", "symlink-loop", "long-path", "binary", "latin1", "empty",
                 "huge", "deep-json", "deep-yaml", "alias-bomb", "nul-in-name")


@dataclass(frozen=True)
class Raw:
    """A value written into YAML as-is (unquoted), e.g. `1:30` or `2026-11-23`, to test how the reader reads it."""

    text: str


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    expected: frozenset[int]
    files: dict[str, bytes] = field(default_factory=dict, hash=False)  # path relative to the project -> bytes
    specials: tuple[tuple[str, str], ...] = ()  # (special kind, path relative to the project)
    own_project: dict[str, bytes] | None = field(default=None, hash=False)  # files replacing the project's own
    heavy: bool = False  # runs the whole program (preview): slower, sampled in quick runs
    keep_intact: str | None = None  # a file the command must not change when it fails


# --- hostile values ----------------------------------------------------------------------------------------------
HUGE_TEXT = "x" * 100_000
NUMBER_BREAKERS: list[tuple[str, Any]] = [
    ("bool-true", True), ("bool-false", False), ("null", None), ("empty-string", ""), ("text", "lots"),
    ("string-1e400", "1e400"), ("int-10e400", 10**400), ("digits-5000", Raw("9" * 5000)), ("nan", float("nan")),
    ("inf", float("inf")), ("neg-inf", float("-inf")), ("negative", -2), ("list", [1, 2]), ("map", {"a": 1}),
    ("huge-text", HUGE_TEXT), ("sexagesimal", Raw("1:30")), ("date", Raw("2026-11-23")), ("e39", 1e39),
    ("yes", Raw("yes")),
]
ENUM_BREAKERS: list[tuple[str, Any]] = [
    ("bool", True), ("number", 7), ("null", None), ("empty", ""), ("huge-text", HUGE_TEXT), ("list", ["jax"]),
    ("map", {"a": 1}), ("date", Raw("2026-11-23")), ("typo", "trainng"), ("unicode", "trάining"),
]
BOOL_BREAKERS: list[tuple[str, Any]] = [("number", 2), ("list", []), ("map", {}), ("huge-text", HUGE_TEXT),
                                        ("null", None)]
NAME_BREAKERS: list[tuple[str, Any]] = [
    ("bool", True), ("number", 5), ("null", None), ("empty", ""), ("list", []), ("huge-text", HUGE_TEXT),
    ("spaces", "llm pretrain"), ("upper", "LLM"), ("newline", "llm\n"), ("date", Raw("2026-11-23")),
    ("unicode", "llm-prétrain"),
]
LIST_BREAKERS = {
    "placement.regions": [("typo-aws-style", ["us-central-1"]), ("accent", ["us-céntral1"]), ("string", "us-central1"),
                          ("bool", [True]), ("null-item", [None]), ("huge-item", [HUGE_TEXT]), ("nested", [[]]),
                          ("zone", ["us-central1-a"]), ("upper", ["US-CENTRAL1"]), ("many", ["us-central1"] * 5000)],
    "placement.accelerators": [("spaced", ["a100 80gb"]), ("typo", ["h1000"]), ("number", [5]), ("string", "h100"),
                               ("huge-item", [HUGE_TEXT]), ("map", [{"a": 1}])],
    "placement.clouds": [("azure", ["azure"]), ("string", "gcp"), ("bool", [True]), ("map", {"gcp": 1})],
}
INVENTORY_PATHS: list[tuple[str, Any]] = [
    ("empty", ""), ("spaces", "   "), ("number", 5), ("list", ["a.yaml"]), ("long", "a/" * 2500 + "x.yaml"),
    ("dev-zero", "/dev/zero"), ("root-dir", "/"), ("missing", "nope/inventory.yaml"), ("nul", "inv\0.yaml"),
]

SPEC_NUMBER_FIELDS = ("model.parameters", "model.layers", "model.hidden_size", "model.context_tokens",
                      "training.tokens", "training.deadline_days", "data.dataset_tb", "data.egress_tb_per_month",
                      "budget.max_monthly_usd", "budget.max_total_usd")
INFERENCE_NUMBER_FIELDS = ("inference.requests_per_second", "inference.input_tokens", "inference.output_tokens",
                           "inference.latency_p99_ms", "inference.hours_per_day")
SPEC_ENUM_FIELDS = ("kind", "framework", "maturity", "model.precision", "training.method", "placement.portability",
                    "placement.deployment", "placement.orchestration", "budget.pricing")
INVENTORY_NUMBER_FIELDS = ("gpu_count", "cpu_cores", "memory_gib", "nvme_tb", "network_gbps")
ADDRESSES = [("newline", "gpu-01\n"), ("bad-ipv4", "999.999.999.999"), ("zero-padded", "010.000.000.001"),
             ("short-ipv4", "10.0.1"), ("empty", ""), ("spaces", "gpu 01"), ("number", 10), ("huge", HUGE_TEXT),
             ("underscore", "gpu_01"), ("label-newline", None)]
DUPLICATE_ADDRESSES = [("ipv6-forms", "fd00::1", "fd00:0:0:0:0:0:0:1"), ("case", "GPU-01.lab", "gpu-01.lab"),
                       ("mapped", "10.20.0.11", "::ffff:10.20.0.11"), ("ipv6-case", "FD00::1", "fd00::1")]


# --- helpers ---------------------------------------------------------------------------------------------------
def dump_yaml(document: Any) -> bytes:
    """YAML text for `document`, with Raw values spliced in unquoted."""
    raws: dict[str, str] = {}

    def mark(value: Any) -> Any:
        if isinstance(value, Raw):
            key = f"RAW{len(raws)}MARK"
            raws[key] = value.text
            return key
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value

    text = yaml.dump(mark(document), Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                     allow_unicode=True, width=10**9)
    for key, raw in raws.items():
        text = text.replace(key, raw)
    return text.encode("utf-8")


def set_path(document: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of `document` with `dotted` set (intermediate mappings created); value DELETE removes the key."""
    result = copy.deepcopy(document)
    parts = dotted.split(".")
    current = result
    for part in parts[:-1]:
        current = current.setdefault(part, {})
    if value is DELETE:
        current.pop(parts[-1], None)
    else:
        current[parts[-1]] = value
    return result


DELETE = object()


def _yaml_file(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text)


# --- the corpus ------------------------------------------------------------------------------------------------
def spec_cases() -> Iterator[Case]:
    training = _yaml_file(ROOT / "examples" / "llama2-7b-a100.yaml")
    inference = _yaml_file(ROOT / "examples" / "realtime-inference.yaml")

    def both(case_id: str, document: bytes, expected: frozenset[int]) -> Iterator[Case]:
        path = f"cases/{case_id}.yaml"
        yield Case(f"check-{case_id}", ("check", path), expected, files={path: document})
        yield Case(f"plan-{case_id}", ("plan", path), expected, files={path: document})

    for field_name in SPEC_NUMBER_FIELDS:
        for label, value in NUMBER_BREAKERS:
            allowed = ANY_OUTCOME if (label == "null" and field_name.startswith(("model.", "budget.", "data."))
                                      and field_name != "model.parameters") else INVALID
            yield from both(f"spec-{_slug(field_name)}-{label}", dump_yaml(set_path(training, field_name, value)),
                            allowed)
    for field_name in INFERENCE_NUMBER_FIELDS:
        for label, value in NUMBER_BREAKERS:
            allowed = ANY_OUTCOME if label == "null" and field_name.endswith(("_tokens", "hours_per_day")) else INVALID
            yield from both(f"spec-{_slug(field_name)}-{label}", dump_yaml(set_path(inference, field_name, value)),
                            allowed)
    for field_name in SPEC_ENUM_FIELDS:
        for label, value in ENUM_BREAKERS:
            base = inference if field_name == "training.method" else training
            if field_name == "training.method":
                base = set_path(training, "kind", "fine-tuning")
            yield from both(f"spec-{_slug(field_name)}-{label}", dump_yaml(set_path(base, field_name, value)), INVALID)
    for label, value in BOOL_BREAKERS:
        yield from both(f"spec-dynamic-shapes-{label}", dump_yaml(set_path(training, "model.dynamic_shapes", value)),
                        INVALID)
    for label, value in NAME_BREAKERS:
        yield from both(f"spec-name-{label}", dump_yaml(set_path(training, "name", value)), INVALID)
    for field_name, breakers in LIST_BREAKERS.items():
        for label, value in breakers:
            yield from both(f"spec-{_slug(field_name)}-{label}", dump_yaml(set_path(training, field_name, value)),
                            INVALID)
    for label, value in INVENTORY_PATHS:
        document = set_path(set_path(training, "placement.deployment", "any"), "placement.inventory", value)
        yield from both(f"spec-inventory-{label}", dump_yaml(document), INVALID)
    # Structure: missing required keys, unknown keys, wrong top-level types, duplicates, many keys, deep nesting.
    for key in ("name", "kind", "framework", "model", "training"):
        yield from both(f"spec-missing-{key}", dump_yaml(set_path(training, key, DELETE)), INVALID)
    yield from both("spec-unknown-key", dump_yaml(set_path(training, "training.deadline_day", 3)), INVALID)
    yield from both("spec-50000-keys", dump_yaml({**training, **{f"k{i}": i for i in range(50_000)}}), INVALID)
    yield from both("spec-100k-key", dump_yaml({**training, "k" * 100_000: 1}), INVALID)
    yield from both("spec-duplicate-key", dump_yaml(training) + b"name: again\n", INVALID)
    yield from both("spec-top-list", b"- a\n- b\n", INVALID)
    yield from both("spec-top-scalar", b"just text\n", INVALID)
    yield from both("spec-top-null", b"~\n", INVALID)
    yield from both("spec-syntax", b"name: [unclosed\n", INVALID)
    yield from both("spec-tab-indent", b"name: a\n\tkind: training\n", INVALID)
    yield from both("spec-complex-key", b"? [a, b]\n: 1\n", INVALID)
    yield from both("spec-bad-tag", b"name: !!python/object:os.system ls\n", INVALID)
    yield from both("spec-multi-doc", dump_yaml(training) + b"---\n" + dump_yaml(training), INVALID)
    bomb = _alias_bomb(9, "name")
    yield from both("spec-alias-bomb-echoed", bomb, INVALID)
    yield from both("spec-alias-bomb-8", _alias_bomb(8, "name"), INVALID)
    yield from both("spec-deadline-sexagesimal", dump_yaml(set_path(training, "training.deadline_days", Raw("1:30"))),
                    INVALID)


def _alias_bomb(levels: int, field_name: str) -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    lines.append(f"{field_name}: *a{levels - 1}")
    return ("\n".join(lines) + "\n").encode()


def inventory_cases() -> Iterator[Case]:
    inventory = _yaml_file(ROOT / "examples" / "inventories" / "lab-rack-a.yaml")
    first = inventory["servers"][0]

    def check(case_id: str, document: bytes, expected: frozenset[int] = INVALID) -> Case:
        path = f"cases/{case_id}.yaml"
        return Case(f"check-{case_id}", ("check", path), expected, files={path: document})

    for field_name in INVENTORY_NUMBER_FIELDS:
        for label, value in NUMBER_BREAKERS:
            server = {**first, field_name: value}
            allowed = ANY_OUTCOME if label == "null" and field_name == "nvme_tb" else INVALID
            yield check(f"inv-{field_name}-{label}", dump_yaml({**inventory, "servers": [server]}), allowed)
    for label, value in ADDRESSES:
        server = {**first, "address": value} if value is not None else {**first, "labels": {"rack": "r1\n"}}
        yield check(f"inv-address-{label}", dump_yaml({**inventory, "servers": [server]}))
    for label, one, other in DUPLICATE_ADDRESSES:
        servers = [{**first, "address": one}, {**first, "name": "gpu-99", "address": other}]
        yield check(f"inv-duplicate-{label}", dump_yaml({**inventory, "servers": servers}))
    duplicate_names = [{**first}, {**first, "name": first["name"].upper(), "address": "10.99.0.1"}]
    yield check("inv-duplicate-name-case", dump_yaml({**inventory, "servers": duplicate_names}))
    yield check("inv-no-servers", dump_yaml({"site": "lab"}))
    yield check("inv-servers-empty", dump_yaml({"site": "lab", "servers": []}))
    yield check("inv-servers-map", dump_yaml({"site": "lab", "servers": {"a": 1}}))
    yield check("inv-servers-strings", dump_yaml({"site": "lab", "servers": ["gpu-01"]}))
    yield check("inv-gpu-model-tpu", dump_yaml({**inventory, "servers": [{**first, "gpu_model": "v5p"}]}))
    yield check("inv-labels-list", dump_yaml({**inventory, "servers": [{**first, "labels": ["a"]}]}))
    yield check("inv-label-value-number", dump_yaml({**inventory, "servers": [{**first, "labels": {"a": 5}}]}))


def stack_cases() -> Iterator[Case]:
    dev = _yaml_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    onprem = _yaml_file(ROOT / "stacks" / "Pulumi.example-onprem-h100.yaml")
    counter = iter(range(10**6))

    def stack(label: str, document: Any | bytes, expected: frozenset[int], commands=("check", "plan", "lock"),
              preview: bool = False) -> Iterator[Case]:
        name = f"fz{next(counter)}"
        path = f"stacks/Pulumi.{name}.yaml"
        text = document if isinstance(document, bytes) else dump_yaml(document)
        for command in commands:
            argv = ("check", path) if command == "check" else (command, "--stack", name)
            outcome = expected
            if command == "lock" and expected == PLANNED:
                outcome = PLANNED
            yield Case(f"{command}-stack-{label}", argv, outcome, files={path: text},
                       keep_intact=path if command == "lock" and 2 in expected and 0 not in expected else None)
        if preview:
            yield Case(f"preview-stack-{label}", ("preview", "--stack", name), expected, files={path: text},
                       heavy=True)

    config = dev["config"]
    yield from stack("no-config", {"encryptionsalt": "x"}, INVALID)
    yield from stack("config-list", {"config": ["a"]}, INVALID)
    yield from stack("config-null", b"config:\n", INVALID)
    yield from stack("config-string", {"config": "text"}, INVALID)
    yield from stack("empty-file", b"", INVALID)
    for key in ("accelfit:team", "accelfit:costCenter", "accelfit:workload"):
        yield from stack(f"missing-{_slug(key)}", {"config": {k: v for k, v in config.items() if k != key}},
                         INVALID)
    for typo in ("accelfit:enviroment", "accelfit:teem", "accelfit:costcenter", "accelfit:workloads-x"):
        yield from stack(f"typo-{_slug(typo)}", {"config": {**config, typo: "x"}}, INVALID, preview=typo.endswith("teem"))
    for label, value in [("number", 5), ("bool", True), ("empty", ""), ("list", ["a"]), ("huge", HUGE_TEXT),
                         ("upper", "Research"), ("spaces", "research llm")]:
        yield from stack(f"team-{label}", {"config": {**config, "accelfit:team": value}}, INVALID)
    # An unquoted date is text to Pulumi's YAML reader, and a valid label value: it must not crash anything.
    yield from stack("team-date", {"config": {**config, "accelfit:team": Raw("2026-11-23")}}, PLANNED,
                     commands=("check", "plan"), preview=True)
    yield from stack("team-secure", {"config": {**config, "accelfit:team": {"secure": "AAABAMk="}}}, PLANNED,
                     commands=("check", "plan"))
    for label, value in [("qa", "qa"), ("number", 3), ("list", ["dev"]), ("upper", "DEV")]:
        yield from stack(f"environment-{label}", {"config": {**config, "accelfit:environment": value}}, INVALID)
    for label, value in [("string", "gke-gpu/l4"), ("list", ["a"]), ("number", 1), ("empty-map", {}),
                         ("bad-option", {"option": 5, "platform": "gke-gpu"}),
                         ("bad-fields", {"option": "x", "monthly_usd": "lots", "locked_on": "yesterday"}),
                         ("unknown-key", {"optoin": "x"}), ("date", Raw("2026-11-23"))]:
        yield from stack(f"selection-{label}", {"config": {**config, "accelfit:selection": value}}, INVALID)
    yield from stack("date-in-other-namespace", {"config": {**config, "gcp:labelsDate": Raw("2026-11-23")}}, PLANNED,
                     commands=("check", "plan"), preview=True)
    bomb_config = dump_yaml({"config": config}) + b"  gcp:bomb: *a8\n"
    yield from stack("alias-bomb-config", _alias_bomb(9, "bombs").replace(b"bombs: *a8\n", b"") + bomb_config,
                     INVALID, preview=True)
    for field_name, label, value in [("training.deadline_days", "bool", True), ("model.parameters", "e400", "1e400"),
                                     ("model.layers", "e39", 1e39), ("training.deadline_days", "sexagesimal",
                                                                     Raw("1:30")),
                                     ("placement.regions", "typo", ["us-central-1"])]:
        workload = set_path(config["accelfit:workload"], field_name, value)
        yield from stack(f"workload-{_slug(field_name)}-{label}", {"config": {**config, "accelfit:workload": workload}},
                         INVALID, preview=label == "bool")
    # Every hostile value in every workload field, through the stack file: check, plan and lock (which must leave
    # the file byte-for-byte intact when it refuses).
    workload = config["accelfit:workload"]
    for field_name in SPEC_NUMBER_FIELDS:
        for label, value in NUMBER_BREAKERS:
            optional = label == "null" and field_name.startswith(("model.", "budget.")) and field_name != \
                "model.parameters"
            yield from stack(f"stack-{_slug(field_name)}-{label}",
                             {"config": {**config, "accelfit:workload": set_path(workload, field_name, value)}},
                             PLANNED | INVALID if optional else INVALID)
    for field_name in SPEC_ENUM_FIELDS:
        for label, value in ENUM_BREAKERS:
            yield from stack(f"stack-{_slug(field_name)}-{label}",
                             {"config": {**config, "accelfit:workload": set_path(workload, field_name, value)}},
                             INVALID)
    yield from stack("gcp-project-missing", {"config": {k: v for k, v in config.items() if k != "gcp:project"}},
                     INVALID, commands=("check",))
    yield from stack("gcp-project-number", {"config": {**config, "gcp:project": 12}}, INVALID, commands=("check",))
    onprem_config = onprem["config"]
    onprem_workload = set_path(onprem_config["accelfit:workload"], "placement.inventory",
                               str((ROOT / "stacks" / "inventories" / "lab-h100.yaml").resolve()))
    plaintext = {**onprem_config, "accelfit:workload": onprem_workload, "accelfit:joinToken": "abcdef.0123456789abcdef"}
    yield from stack("plaintext-secret-staging", {"config": plaintext}, PLANNED, commands=("check",), preview=True)
    yield from stack("plaintext-secret-prod", {"config": {**plaintext, "accelfit:environment": "prod"}}, INVALID,
                     commands=("check",), preview=True)
    for label, name in [("empty", ""), ("long", "s" * 300), ("slash", "../etc"), ("space", "my stack"),
                        ("nul", "a\0b"), ("dots", ".."), ("missing", "nope")]:
        for command in ("plan", "lock", "preview", "cost"):
            argv = (command, "--stack", name)
            if command == "cost":
                argv = (command, "--stack", name, "--pulumi-preview", "cases/preview.json")
            yield Case(f"{command}-stack-name-{label}", argv, INVALID,
                       files={"cases/preview.json": (ROOT / "tests/fixtures/pulumi-preview-dev.json").read_bytes()},
                       heavy=command == "preview")


def project_cases() -> Iterator[Case]:
    project = _yaml_file(ROOT / "Pulumi.yaml")
    variants: list[tuple[str, Any]] = [
        ("stack-config-dir-number", {**project, "stackConfigDir": 5}),
        ("stack-config-dir-list", {**project, "stackConfigDir": ["stacks"]}),
        ("stack-config-dir-missing-dir", {**project, "stackConfigDir": "nowhere"}),
        ("stack-config-dir-escape", {**project, "stackConfigDir": "/"}),
        ("config-string", {**project, "config": "text"}),
        ("config-list", {**project, "config": ["a"]}),
        ("config-default-wrong", {**project, "config": {"costCenter": {"type": "string", "default": ["a"]}}}),
        ("name-missing", {k: v for k, v in project.items() if k != "name"}),
        ("name-number", {**project, "name": 5}),
        ("name-list", {**project, "name": ["accelfit"]}),
        ("top-list", ["a"]),
        ("empty", None),
    ]
    # The stack leaves costCenter to the project's default, so a wrong default is what the stack gets.
    dev = _yaml_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    dev["config"].pop("accelfit:costCenter")
    without_cost_center = dump_yaml(dev)
    for label, document in variants:
        text = b"" if document is None else dump_yaml(document)
        for command in ("plan", "lock"):
            yield Case(f"{command}-project-{label}", (command, "--stack", "dev"), INVALID,
                       own_project={"Pulumi.yaml": text, "stacks/Pulumi.dev.yaml": without_cost_center},
                       keep_intact="stacks/Pulumi.dev.yaml")
    yield Case("plan-project-is-directory", ("plan", "--stack", "dev"), INVALID,
               own_project={}, specials=(("directory", "Pulumi.yaml"),))


def chart_cases() -> Iterator[Case]:
    yield Case("plan-chart-missing-dir", ("plan", "--stack", "dev", "--chart", "no/such/dir/chart.svg"), INVALID)
    yield Case("plan-chart-bad-suffix", ("plan", "--stack", "dev", "--chart", "cases/chart.txt"), INVALID)
    yield Case("plan-chart-is-dir", ("plan", "--stack", "dev", "--chart", "stacks"), INVALID)


def diff_cases() -> Iterator[Case]:
    base = json.loads((ROOT / "tests/diff/fixtures/base.json").read_text(encoding="utf-8"))
    head = json.loads((ROOT / "tests/diff/fixtures/head.json").read_text(encoding="utf-8"))
    head_bytes = json.dumps(head).encode()

    def diff(label: str, text: bytes, expected: frozenset[int] = INVALID, *flags: str) -> Iterator[Case]:
        files = {"cases/d-head.json": head_bytes, f"cases/d-{label}.json": text}
        yield Case(f"diff-{label}", ("diff", f"cases/d-{label}.json", "cases/d-head.json", *flags), expected, files)
        yield Case(f"diff-head-{label}", ("diff", "cases/d-head.json", f"cases/d-{label}.json", *flags), expected,
                   files)

    def mutate(path: str, value: Any) -> bytes:
        document = copy.deepcopy(base)
        current: Any = document
        parts = path.split(".")
        for part in parts[:-1]:
            current = current[int(part)] if isinstance(current, list) else current[part]
        if isinstance(current, list):
            current[int(parts[-1])] = value
        else:
            current[parts[-1]] = value
        return json.dumps(document).encode()

    yield from diff("nan-monthly", mutate("cost.monthly_usd", "NANMARK").replace(b'"NANMARK"', b"NaN"))
    yield from diff("inf-monthly", mutate("cost.monthly_usd", "X").replace(b'"X"', b"Infinity"))
    yield from diff("e400-monthly", mutate("cost.monthly_usd", "X").replace(b'"X"', b"1e400"))
    yield from diff("bool-version", mutate("schema_version", True))
    yield from diff("string-version", mutate("schema_version", "1"))
    yield from diff("version-2", mutate("schema_version", 2))
    yield from diff("bool-monthly", mutate("cost.monthly_usd", True))
    yield from diff("string-monthly", mutate("cost.monthly_usd", "100"))
    yield from diff("resources-map", mutate("resources", {}))
    yield from diff("resource-inputs-list", mutate("resources.0.inputs", []))
    yield from diff("resource-string", mutate("resources.0", "x"))
    yield from diff("budget-nan", mutate("budget.max_monthly_usd", "X").replace(b'"X"', b"NaN"))
    yield from diff("budget-bool", mutate("budget.max_monthly_usd", True))
    yield from diff("policies-list", mutate("policies", []))
    yield from diff("violations-map", mutate("policies.violations", {}))
    yield from diff("stack-number", mutate("stack", 5))
    yield from diff("huge-int", mutate("cost.monthly_usd", "X").replace(b'"X"', b"9" * 5000))
    yield from diff("top-list", b"[]")
    yield from diff("truncated", json.dumps(base).encode()[:500])
    yield from diff("other-stack", mutate("stack", "prod"))
    yield from diff("deep-inputs", mutate("resources.0.inputs", "X").replace(b'"X"', b'{"a":' * 5000 + b"1" +
                                                                          b"}" * 5000))
    yield from diff("same-as-head", head_bytes, PLANNED)
    yield Case("diff-other-stack-allowed", ("diff", "cases/d-other.json", "cases/d-head.json", "--different-stacks"),
               PLANNED, {"cases/d-head.json": head_bytes, "cases/d-other.json": mutate("stack", "prod")})
    yield Case("diff-base-ref-bad", ("diff", "--base-ref", "no-such-ref-xyz", "--stack", "dev"), INVALID)
    yield Case("diff-base-ref-no-stack", ("diff", "--base-ref", "HEAD"), INVALID)


def cost_cases() -> Iterator[Case]:
    preview = json.loads((ROOT / "tests/fixtures/pulumi-preview-dev.json").read_text(encoding="utf-8"))
    steps = preview["steps"]
    by_type = {step["newState"]["type"]: index for index, step in enumerate(steps) if step.get("newState")}

    def cost(label: str, text: bytes, expected: frozenset[int] = INVALID) -> Case:
        path = f"cases/c-{label}.json"
        return Case(f"cost-{label}", ("cost", "--pulumi-preview", path, "--stack", "dev"), expected, {path: text})

    def mutate(resource_type: str, dotted: str, value: Any) -> bytes:
        document = copy.deepcopy(preview)
        inputs = document["steps"][by_type[resource_type]]["newState"].setdefault("inputs", {})
        current = inputs
        parts = dotted.split(".")
        for part in parts[:-1]:
            current = current.setdefault(part, {}) if isinstance(current, dict) else current
        if isinstance(current, dict):
            current[parts[-1]] = value
        return json.dumps(document).encode()

    pool = "gcp:container/nodePool:NodePool"
    for label, dotted, value in [("node-count-string", "nodeCount", "3"), ("node-count-bool", "nodeCount", True),
                                 ("node-count-negative", "nodeCount", -1), ("node-config-list", "nodeConfig", []),
                                 ("machine-type-number", "nodeConfig.machineType", 5),
                                 ("autoscaling-list", "autoscaling", [1]),
                                 ("max-nodes-string", "autoscaling.totalMaxNodeCount", "ten"),
                                 ("locations-string", "nodeLocations", "us-central1-a"),
                                 ("location-short", "location", "a"), ("location-number", "location", 7),
                                 ("spot-string", "nodeConfig.spot", "yes")]:
        if pool in by_type:
            yield cost(f"pool-{label}", mutate(pool, dotted, value))
    for resource_type, index in by_type.items():
        if resource_type == "pulumi:pulumi:Stack":
            continue
        # Components (custom: false) only group resources and are not priced: their inputs are not read.
        expected = INVALID if steps[index]["newState"].get("custom", True) else PLANNED
        short = _slug(resource_type.split(":")[-1]).lower()
        yield cost(f"{short}-inputs-list", mutate_inputs(preview, index, []), expected)
        yield cost(f"{short}-inputs-string", mutate_inputs(preview, index, "x"), expected)
    yield cost("inf-size", mutate(pool, "nodeCount", "X").replace(b'"X"', b"1e400"))
    yield cost("nan-size", mutate(pool, "nodeCount", "X").replace(b'"X"', b"NaN"))
    yield cost("steps-map", json.dumps({"steps": {}}).encode())
    yield cost("step-string", json.dumps({"steps": ["x"]}).encode())
    yield cost("new-state-list", json.dumps({"steps": [{"op": "create", "newState": []}]}).encode())
    yield cost("urn-number", json.dumps({"steps": [{"op": "create", "newState": {"urn": 5, "type": pool}}]}).encode())
    yield cost("unchanged", json.dumps(preview).encode(), PLANNED)


def mutate_inputs(preview: dict[str, Any], index: int, value: Any) -> bytes:
    document = copy.deepcopy(preview)
    document["steps"][index]["newState"]["inputs"] = value
    return json.dumps(document).encode()


def odd_file_cases() -> Iterator[Case]:
    for kind in SPECIAL_FILES:
        path = f"odd/{kind}"
        for argv in (("check", path), ("plan", path), ("diff", path, "cases/o-head.json"),
                     ("diff", "cases/o-head.json", path), ("cost", "--pulumi-preview", path, "--stack", "dev")):
            yield Case(f"{argv[0]}-odd-{kind}-{argv.index(path)}", argv, INVALID,
                       files={"cases/o-head.json": (ROOT / "tests/diff/fixtures/head.json").read_bytes()},
                       specials=((kind, path),))
    # A spec whose inventory is one of them.
    for kind in ("fifo", "dev-zero", "directory", "symlink-loop", "binary", "deep-yaml", "alias-bomb"):
        spec = _yaml_file(ROOT / "examples" / "onprem-training.yaml")
        spec["placement"]["inventory"] = f"../odd/inv-{kind}"
        path = f"cases/spec-inventory-odd-{kind}.yaml"
        yield Case(f"check-spec-inventory-odd-{kind}", ("check", path), INVALID, files={path: dump_yaml(spec)},
                   specials=((kind, f"odd/inv-{kind}"),))


def lock_cases() -> Iterator[Case]:
    """`lock` on stack files whose layout is unusual: the file must stay intact when it fails, and keep every line
    that is not the selection block when it succeeds (the runner checks that part separately)."""
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_bytes()
    variants = {
        "no-trailing-newline": dev.rstrip(b"\n"),
        "crlf": dev.replace(b"\n", b"\r\n"),
        "quoted-config": dev.replace(b"config:", b'"config":', 1),
        "spaced-config": dev.replace(b"config:", b"config :", 1),
        "block-scalar-lookalike": dev + b"description: |\n  accelfit:selection: not a block\n    indented: 1\n",
        "flow-config": None,
    }
    for index, (label, text) in enumerate(variants.items()):
        if text is None:
            continue
        name = f"lk{index}"
        path = f"stacks/Pulumi.{name}.yaml"
        yield Case(f"lock-layout-{label}", ("lock", "--stack", name), PLANNED, files={path: text})


@functools.cache
def all_cases() -> tuple[Case, ...]:
    cases = [*spec_cases(), *inventory_cases(), *stack_cases(), *project_cases(), *chart_cases(), *diff_cases(),
             *cost_cases(), *odd_file_cases(), *lock_cases()]
    seen: set[str] = set()
    unique = []
    for case in cases:
        if case.id in seen:
            continue
        seen.add(case.id)
        unique.append(case)
    return tuple(unique)
