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
    env: dict[str, str] = field(default_factory=dict, hash=False)  # environment; paths relative to the project
    setup: tuple[tuple[str, ...], ...] = ()  # accelfit commands run first (each must exit 0), e.g. an import
    secret: str | None = None  # text that must not appear in the output (a planted secret)
    followup: tuple[str, ...] | None = None  # a command that must exit 0 after the case succeeded (e.g. check)
    keep_always: str | None = None  # a file no outcome may change (the installed catalog when an import fails)
    oracle: bool = False  # a `preview --json` whose document injection_oracle checks when it exits 0 (issue 36)


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


# --- the surfaces of issue 29: catalog import and cache, calibration, locks, the lock setting, secrets -------------
UPSTREAM = ROOT / "tests" / "catalog" / "fixtures" / "skypilot_v8"
SECRET_MARK = "s3cr3tmark"  # planted in secret-named config; must never appear in any output


def _catalog_env(name: str) -> dict[str, str]:
    return {"ACCELFIT_CATALOG_DIR": f"catalogs/{name}"}


def catalog_import_cases() -> Iterator[Case]:
    """`catalog update --from DIR` with a damaged upstream file: exit 2, and the import installed before intact."""
    aws, gcp = (UPSTREAM / "aws" / "vms.csv").read_bytes(), (UPSTREAM / "gcp" / "vms.csv").read_bytes()
    edits: list[tuple[str, str, Any]] = [
        ("count-inf", "aws", lambda b: b.replace(b"g6.xlarge,L4,1.0", b"g6.xlarge,L4,inf", 1)),
        ("count-nan", "aws", lambda b: b.replace(b"g6.xlarge,L4,1.0", b"g6.xlarge,L4,nan", 1)),
        ("count-1e400", "gcp", lambda b: b + b",,,H100,1e400,,us-central1,us-central1-a,1.0,0.5\n"),
        ("short-row", "aws", lambda b: b + b"g6.xlarge,L4\n"),
        ("unterminated-quote", "aws", lambda b: b + b'g6.xlarge,L4,1.0,4.0,16.0,"{never\n'),
        ("huge-cell", "gcp", lambda b: b + b"a2-highgpu-1g," + b"x" * 200_000 + b"\n"),
        ("tiny-price", "aws", lambda b: b.replace(b",0.8048,", b",0.000004,", 1)),
        ("huge-price", "gcp", lambda b: b.replace(b",0.17790", b",1e308", 1)),
        ("inf-price", "aws", lambda b: b.replace(b",0.8048,", b",inf,", 1)),
        ("neg-inf-spot", "aws", lambda b: b.replace(b",0.401100,", b",-inf,", 1)),
        ("header-only", "aws", lambda b: b.split(b"\n", 1)[0] + b"\n"),
        ("empty", "gcp", lambda b: b""),
        ("no-header", "aws", lambda b: b.split(b"\n", 1)[1]),
        ("latin1", "aws", lambda b: b + "caf\xe9\n".encode("latin-1")),
        ("nul", "gcp", lambda b: b + b"\0\0\n"),
        ("binary", "aws", lambda b: bytes(range(256)) * 4),
        ("tpu-size-huge", "gcp", lambda b: b + b",,,tpu-v5p-99999999999,1,,us-central1,us-central1-a,5.0,\n"),
        ("tpu-size-zero", "gcp", lambda b: b + b",,,tpu-v5p-0,1,,us-central1,us-central1-a,5.0,\n"),
    ]
    # Rows that are skipped, not wrong: a GPU row with an unusable count, TPU types accelfit does not know.
    skipped = {"count-1e400", "tpu-size-huge", "tpu-size-zero"}
    for label, cloud, change in edits:
        name = f"ci-{label}"
        files = {f"cases/{name}/aws/vms.csv": aws, f"cases/{name}/gcp/vms.csv": gcp}
        files[f"cases/{name}/{cloud}/vms.csv"] = change(files[f"cases/{name}/{cloud}/vms.csv"])
        yield _import_case(name, f"cases/{name}", files, frozenset({0}) if label in skipped else INVALID)
    yield _import_case("ci-swapped", "cases/ci-swapped", {"cases/ci-swapped/aws/vms.csv": gcp,
                                                          "cases/ci-swapped/gcp/vms.csv": aws})
    yield _import_case("ci-cr-only", "cases/ci-cr-only", {
        "cases/ci-cr-only/aws/vms.csv": aws.replace(b"\n", b"\r"),
        "cases/ci-cr-only/gcp/vms.csv": gcp.replace(b"\n", b"\r")}, PLANNED)
    for kind in ("fifo", "dev-zero", "directory", "symlink-loop", "huge"):
        name = f"ci-special-{kind}"
        yield _import_case(name, f"cases/{name}", {f"cases/{name}/gcp/vms.csv": gcp},
                           specials=((kind, f"cases/{name}/aws/vms.csv"),))
    for label, source in [("nosuchuser", "~nosuchuser-accelfit/v8"), ("space-url", "https://a b/c"),
                          ("no-host", "https://"), ("http", "http://example.invalid/v8"), ("ftp", "ftp://x/y"),
                          ("empty", ""), ("missing", "cases/no-such-dir"), ("long", "a/" * 3000),
                          ("control-url", "https://x\ty/z")]:
        yield _import_case(f"ci-from-{label}", source, {})


def _import_case(name: str, source: str, files: dict[str, bytes], expected: frozenset[int] = INVALID,
                 specials: tuple[tuple[str, str], ...] = ()) -> Case:
    fixtures = str(UPSTREAM)
    return Case(f"catalog-update-{name}", ("catalog", "update", "--from", source), expected, files=files,
                specials=specials, env=_catalog_env(name), setup=(("catalog", "update", "--from", fixtures),),
                keep_always=f"catalogs/{name}/imported/manifest.yaml" if expected == INVALID else None,
                followup=("catalog", "--coverage", "--json"))


def catalog_folder_cases() -> Iterator[Case]:
    """Unusable catalog folders: update is exit 2 naming the folder; reading falls back or is exit 2, never a crash."""
    for label, folder, expected_read in [("file", "cases/cf-file", PLANNED), ("devnull", "/dev/null", PLANNED),
                                         ("too-long", "cases/" + "d" * 300, INVALID),
                                         ("nul-free-long", "x/" * 2100, ANY_OUTCOME)]:
        files = {"cases/cf-file": b"not a folder"} if label == "file" else {}
        env = {"ACCELFIT_CATALOG_DIR": folder}
        yield Case(f"catalog-folder-{label}-update", ("catalog", "update", "--from", str(UPSTREAM)), INVALID,
                   files=files, env=env)
        yield Case(f"catalog-folder-{label}-read", ("catalog", "--coverage", "--json"), expected_read | PLANNED
                   if label == "nul-free-long" else expected_read, files=files, env=env)
        yield Case(f"catalog-folder-{label}-plan", ("plan", "examples/llama2-7b-a100.yaml"), ANY_OUTCOME,
                   files=files, env=env)


def catalog_cache_cases() -> Iterator[Case]:
    """What is found where the compiled cache lives never runs and never hangs: a pickle with the right header,
    key and digest (it would exit 7 if unpickled), FIFOs, devices, directories, garbage."""
    import hashlib
    import pickle
    import sys as _sys

    from accelfit.catalog import DATA_DIR, compiled

    key = compiled.cache_key(sorted(DATA_DIR.glob("*.yaml")))
    payload = pickle.dumps(_Exit7())
    digest = hashlib.sha256(payload).hexdigest().encode()
    planted = compiled.FORMAT + key.encode() + digest + b"\n" + payload
    legacy = b"accelfit-compiled-catalog 1\n" + key.encode() + digest + b"\n" + payload
    del _sys
    contents = {"pickle-right-key": (compiled.CACHE_FILE, planted), "legacy-pickle": (compiled.LEGACY_PICKLE, legacy),
                "garbage": (compiled.CACHE_FILE, b"\x80\x05junk" * 1000),
                "json-wrong-shape": (compiled.CACHE_FILE, compiled.FORMAT + key.encode() + hashlib.sha256(
                    b'{"prices": 5}').hexdigest().encode() + b"\n" + b'{"prices": 5}'),
                "empty": (compiled.CACHE_FILE, b"")}
    for label, (file_name, data) in contents.items():
        name = f"cc-{label}"
        for argv in (("catalog", "--coverage", "--json"), ("plan", "examples/llama2-7b-a100.yaml")):
            yield Case(f"catalog-cache-{label}-{argv[0]}", argv, PLANNED if argv[0] == "plan" else frozenset({0}),
                       files={f"catalogs/{name}/{file_name}": data}, env=_catalog_env(name))
    for kind in ("fifo", "dev-zero", "directory", "symlink-loop"):
        name = f"cc-{kind}"
        yield Case(f"catalog-cache-{kind}", ("catalog", "--coverage", "--json"), frozenset({0}), env=_catalog_env(name),
                   specials=((kind, f"catalogs/{name}/{compiled.CACHE_FILE}"),))


class _Exit7:
    """Unpickling this exits the process with 7: a wrong exit code the runner reports."""

    def __reduce__(self):
        import os

        return (os._exit, (7,))


CALIBRATION_HEADER = "kind,accelerator,count,model,precision,tokens_per_second,mfu\n"
EFFICIENCY = (b"schema_version: 1\nwritten: 2026-11-20\ntraining:\n- accelerator: h100-80gb\n  mfu: 0.4\n  runs: 1\n"
              b"  source: earlier.csv\n")


def calibration_cases() -> Iterator[Case]:
    """`calibrate` on implausible, idle, wrong-shape, binary and unbounded measurements: exit 2, the team's
    efficiency file intact."""
    prom = {"status": "success", "data": {"resultType": "matrix", "result": None}}

    def result(value: Any) -> str:
        return json.dumps({**prom, "data": {**prom["data"], "result": value}})

    tensor = {"__name__": "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "modelName": "NVIDIA H100 80GB HBM3"}
    inputs: list[tuple[str, str, bytes, tuple[str, ...]]] = [
        ("tiny-mfu", "csv", (CALIBRATION_HEADER + "training,H100,64,8B,bf16,,0.00001\n").encode(), ()),
        ("one-token", "csv", (CALIBRATION_HEADER + "training,H100,64,8B,bf16,1,\n").encode(), ()),
        ("mfu-2", "csv", (CALIBRATION_HEADER + "training,H100,64,8B,bf16,,2\n").encode(), ()),
        ("count-true", "yaml", b"- {kind: training, accelerator: H100, count: true, model: 8B, mfu: 0.4}\n", ()),
        ("mfu-inf", "yaml", b"- {kind: training, accelerator: H100, count: 8, model: 8B, mfu: .inf}\n", ()),
        ("mfu-nan", "yaml", b"- {kind: training, accelerator: H100, count: 8, model: 8B, mfu: .nan}\n", ()),
        ("count-huge", "yaml", b"- {kind: training, accelerator: H100, count: 1e400, model: 8B, mfu: 0.4}\n", ()),
        ("extra-cells", "csv", (CALIBRATION_HEADER + "training,H100,64,8B,bf16,659333,,x,y\n").encode(), ()),
        ("short-row", "csv", (CALIBRATION_HEADER + "training,H100\n").encode(), ()),
        ("huge-cell", "csv", (CALIBRATION_HEADER + "training,H100,64,8B,bf16," + "9" * 200_000 + ",\n").encode(), ()),
        ("bom-empty", "csv", b"\xef\xbb\xbf", ()),
        ("json-map", "json", b'{"runs": {"a": 1}}', ()),
        ("json-string", "json", b'"runs"', ()),
        ("json-deep", "json", b"[" * 50_000 + b"]" * 50_000, ()),
        ("idle", "prom", b'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",modelName="NVIDIA H100 80GB HBM3"} 0.0\n',
         ("--kind", "training")),
        ("nan-sample", "prom", b'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",modelName="NVIDIA H100 80GB HBM3"} NaN\n',
         ("--kind", "training")),
        ("result-map", "json", result({"a": 1}).encode(), ("--kind", "training")),
        ("result-string", "json", result("DCGM").encode(), ("--kind", "training")),
        ("result-int", "json", result(3).encode(), ("--kind", "training")),
        ("item-string", "json", result(["x"]).encode(), ("--kind", "training")),
        ("metric-list", "json", result([{"metric": [1], "values": [[0, "0.5"]]}]).encode(), ("--kind", "training")),
        ("values-map", "json", result([{"metric": tensor, "values": {"a": 1}}]).encode(), ("--kind", "training")),
        ("value-bool", "json", result([{"metric": tensor, "values": [[0, True]]}]).encode(), ("--kind", "training")),
        ("value-short", "json", result([{"metric": tensor, "values": [[0]]}]).encode(), ("--kind", "training")),
        ("points-2m", "json", ('{"data":{"resultType":"matrix","result":[{"metric":' + json.dumps(tensor)
                               + ',"values":[' + ",".join(["[0,\"0.5\"]"] * 2_000_000) + "]}]}}").encode(),
         ("--kind", "training")),
        ("latin1", "csv", CALIBRATION_HEADER.encode() + "training,H100,64,8B,bf16,659333,caf\xe9\n".encode("latin-1"), ()),
        ("binary", "prom", bytes(range(256)) * 8, ("--kind", "training")),
    ]
    for label, suffix, data, options in inputs:
        path = f"cases/cal-{label}.{suffix}"
        output = f"cases/cal-{label}-efficiency.yaml"
        yield Case(f"calibrate-{label}", ("calibrate", path, "--output", output, *options), INVALID,
                   files={path: data, output: EFFICIENCY}, keep_always=output)
    for kind in ("fifo", "dev-zero", "directory", "symlink-loop", "huge", "binary", "latin1", "empty"):
        path = f"cases/cal-odd-{kind}.json"
        output = f"cases/cal-odd-{kind}-efficiency.yaml"
        yield Case(f"calibrate-odd-{kind}", ("calibrate", path, "--output", output, "--kind", "training"), INVALID,
                   files={output: EFFICIENCY}, specials=((kind, path),), keep_always=output)
    good = (CALIBRATION_HEADER + "training,H100,64,8B,bf16,659333,\n").encode()
    yield Case("calibrate-excel-bom", ("calibrate", "cases/cal-excel.csv", "--output", "cases/cal-excel-out.yaml"),
               frozenset({0}), files={"cases/cal-excel.csv": b"\xef\xbb\xbf" + good.replace(b"\n", b"\r\n")})
    yield Case("calibrate-planted-tmp-symlink", ("calibrate", "cases/cal-good.csv", "--output",
                                                  "cases/cal-planted.yaml"), frozenset({0}),
               files={"cases/cal-good.csv": good, "cases/victim.txt": b"keep me"},
               specials=(("symlink-to-victim", "cases/cal-planted.yaml.tmp"),), keep_always="cases/victim.txt")


def lock_setting_and_secret_cases() -> Iterator[Case]:
    """requireLock, ACCELFIT_LOCKED, gcp:project and secret-named config with values that are not what they must
    be: every stack command exit 2 naming the key, the stack file intact, the secret never printed."""
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    counter = iter(range(10**6))

    def stack(label: str, text: str, expected: frozenset[int], commands=("check", "plan", "lock"),
              env: dict[str, str] | None = None, secret: str | None = None, preview: bool = False) -> Iterator[Case]:
        name = f"fs{next(counter)}"
        path = f"stacks/Pulumi.{name}.yaml"
        for command in (*commands, *(("preview",) if preview else ())):
            argv = ("check", path) if command == "check" else (command, "--stack", name)
            yield Case(f"{command}-setting-{label}", argv, expected, files={path: text.encode("utf-8")},
                       keep_always=path if 0 not in expected else None, env=env or {}, secret=secret,
                       heavy=command == "preview")

    def with_config(line: str, text: str = dev) -> str:
        return text.replace("config:\n", f"config:\n  {line}\n", 1)

    for label, value in [("maybe", "maybe"), ("one", "1"), ("list", "[true]"), ("map", "{a: 1}"), ("null-text", "'null'"),
                         ("huge", "x" * 10_000)]:
        yield from stack(f"require-lock-{label}", with_config(f"accelfit:requireLock: {value}"), INVALID,
                         preview=label == "maybe")
    for label, raw in [("maybe", "maybe"), ("two", "2"), ("yes-please", "yes please")]:
        yield from stack(f"locked-env-{label}", dev, INVALID, env={"ACCELFIT_LOCKED": raw}, preview=label == "maybe")
    for label, raw in [("on", "on"), ("y", "y"), ("space-1", " 1")]:
        # dev has no lock: a required lock makes preview exit 1, whichever spelling asked for it
        yield Case(f"preview-locked-env-{label}", ("preview", "--stack", "dev"), frozenset({1}),
                   env={"ACCELFIT_LOCKED": raw}, heavy=True)
    for label, value in [("true", "true"), ("number", "123"), ("list", "[a]"), ("upper", "Not_A_Project"),
                         ("map", "{a: 1}"), ("huge", "p" * 5000)]:
        text = "\n".join(f"  gcp:project: {value}" if line.startswith("  gcp:project:") else line
                         for line in dev.splitlines()) + "\n"
        yield from stack(f"gcp-project-{label}", text, INVALID)
    for key in ("joinToken", "sshPrivateKey", "kubeconfig", "apiKey"):
        for label, value in [("map", f"{{value: {SECRET_MARK}}}"), ("list", f"[{SECRET_MARK}]"),
                             ("nested", f"{{a: [{{b: {SECRET_MARK}}}]}}")]:
            yield from stack(f"secret-{key}-{label}", with_config(f"accelfit:{key}: {value}"), INVALID,
                             secret=SECRET_MARK, preview=key == "joinToken" and label == "map")
    yield from stack("secret-number", with_config("accelfit:joinToken: 123456"), INVALID)
    yield from stack("bom", "\ufeff" + dev, PLANNED, commands=("check", "plan", "lock"))


def fleet_lock_name_cases() -> Iterator[Case]:
    """Fleet workloads named like YAML booleans and nulls lock, and the locked file checks."""
    fleet = (ROOT / "stacks" / "Pulumi.example-gcp-fleet.yaml").read_text(encoding="utf-8")
    for index, name in enumerate(("on", "off", "yes", "no", "true", "false", "null", "y")):
        text = fleet.replace("name: chat-serve", f"name: '{name}'", 1)
        stack = f"fn{index}"
        path = f"stacks/Pulumi.{stack}.yaml"
        yield Case(f"lock-fleet-name-{name}", ("lock", "--stack", stack), frozenset({0}),
                   files={path: text.encode("utf-8")}, followup=("check", path), heavy=True)


def lock_write_cases() -> Iterator[Case]:
    """Layouts lock must keep: a comment inside the selection block, a BOM, CRLF with no final newline."""
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    selection = ("  accelfit:selection:\n    # pinned after review TICKET-12\n"
                 "    option: gke-tpu/gcp/us-central1/tpu-v6e/v6e-4/x1/spot\n    locked_on: '2026-11-23'\n"
                 "    catalog_as_of: '2026-11-21'\n    monthly_usd: 57.98\n    total_usd: 48.21\n")
    variants = {"comment-in-selection": dev.replace("config:\n", "config:\n" + selection, 1),
                "bom-crlf-no-newline": "\ufeff" + dev.rstrip("\n").replace("\n", "\r\n")}
    for index, (label, text) in enumerate(variants.items()):
        stack = f"lw{index}"
        path = f"stacks/Pulumi.{stack}.yaml"
        yield Case(f"lock-keeps-{label}", ("lock", "--stack", stack, "--fresh"), frozenset({0}),
                   files={path: text.encode("utf-8")}, followup=("check", path))


def cost_cycle_cases() -> Iterator[Case]:
    """A `pulumi preview --json` whose resources' parents form a cycle: exit 2, no RecursionError."""
    document = json.loads((ROOT / "tests/fixtures/pulumi-preview-example-gcp-fleet.json").read_text(encoding="utf-8"))
    states = [step["newState"] for step in document["steps"] if step.get("newState")
              and step["newState"]["type"] != "pulumi:pulumi:Stack"
              and not step["newState"]["type"].startswith("accelfit:fleet:")
              and "labels" not in json.dumps(step["newState"].get("inputs", {}))]
    for length in (1, 2, 5):
        mutated = copy.deepcopy(document)
        members = [state for step in mutated["steps"] if (state := step.get("newState"))
                   and state["urn"] in {item["urn"] for item in states[:length]}]
        for index, state in enumerate(members):
            state["parent"] = members[(index + 1) % len(members)]["urn"]
        path = f"cases/cycle-{length}.json"
        yield Case(f"cost-parent-cycle-{length}", ("cost", "--pulumi-preview", path, "--stack",
                                                   "example-gcp-fleet"), INVALID,
                   files={path: json.dumps(mutated).encode()})


def cost_secret_cases() -> Iterator[Case]:
    """A rejected input of `cost` that holds a Pulumi secret envelope: exit 2, and the plaintext never printed."""
    preview = json.loads((ROOT / "tests/fixtures/pulumi-preview-dev.json").read_text(encoding="utf-8"))
    envelope = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "plaintext": SECRET_MARK}
    pool = next(index for index, step in enumerate(preview["steps"])
                if step.get("newState", {}).get("type") == "gcp:container/nodePool:NodePool")
    for label, value in [("node-count", envelope), ("node-count-list", [envelope]),
                         ("node-count-text", json.dumps(envelope))]:
        document = copy.deepcopy(preview)
        document["steps"][pool]["newState"]["inputs"]["nodeCount"] = value
        path = f"cases/cost-secret-{label}.json"
        yield Case(f"cost-secret-envelope-{label}", ("cost", "--pulumi-preview", path, "--stack", "dev"), INVALID,
                   files={path: json.dumps(document).encode()}, secret=SECRET_MARK)


SURFACE_PREFIXES = ("cost-secret-envelope-", "catalog-", "calibrate-", "check-setting-", "plan-setting-", "lock-setting-",
                    "preview-setting-",
                    "preview-locked-env-", "lock-fleet-name-", "lock-keeps-", "cost-parent-cycle-")


def surface_cases() -> Iterator[Case]:
    yield from catalog_import_cases()
    yield from catalog_folder_cases()
    yield from catalog_cache_cases()
    yield from calibration_cases()
    yield from lock_setting_and_secret_cases()
    yield from fleet_lock_name_cases()
    yield from lock_write_cases()
    yield from cost_cycle_cases()
    yield from cost_secret_cases()


@functools.cache
def all_cases() -> tuple[Case, ...]:
    from hostile_corpus import hostile_cases

    cases = [*spec_cases(), *inventory_cases(), *stack_cases(), *project_cases(), *chart_cases(), *diff_cases(),
             *cost_cases(), *odd_file_cases(), *lock_cases(), *surface_cases(), *hostile_cases()]
    seen: set[str] = set()
    unique = []
    for case in cases:
        if case.id in seen:
            continue
        seen.add(case.id)
        unique.append(case)
    return tuple(unique)
