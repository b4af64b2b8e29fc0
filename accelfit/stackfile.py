"""Stack files (`stacks/Pulumi.<env>.yaml`) read the way the Pulumi CLI reads them, without the CLI.

The SDK reads neither Pulumi.yaml nor stack files in-process (reference/pulumi.md 7.1), so this module finds the
project, applies Pulumi.yaml's `config:` defaults, then the stack file's `config:`, exactly as the CLI would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.environments import is_protected
from accelfit.errors import InputError, Problem, did_you_mean, problem, shorten
from accelfit.inputfile import is_regular_file
from accelfit.spec import LoadedWorkload, WorkloadSpec
from accelfit.spec.loader import with_inventory, workloads_from_document, workloads_key
from accelfit.stackkeys import ENVIRONMENTS
from accelfit.stackkeys import FLEET_NAME as _FLEET_NAME
from accelfit.stackkeys import GCP_PROJECT as _GCP_PROJECT
from accelfit.stackkeys import LABEL_VALUE as _LABEL_VALUE
from accelfit.stackkeys import PROJECT_KEYS
from accelfit.stackrules import loaded_problems
from accelfit.values import find_credential
from accelfit.yamlio import read_yaml

PROJECT_FILE = "Pulumi.yaml"
SECRET_PLACEHOLDER = "[secret]"
_STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}\Z")
_SECRET_NAME = re.compile(r"(?i)(token|password|passphrase|secret|private.?key|kubeconfig|credential|api.?key)")
def is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


@dataclass(frozen=True)
class StackFile:
    name: str
    path: Path
    project_dir: Path
    project: str
    config: dict[str, Any]  # fully qualified keys ("accelfit:team", "gcp:project"), project defaults applied
    workloads: tuple[LoadedWorkload, ...]  # one (`accelfit:workload`), or the fleet's (`accelfit:workloads`)
    warnings: tuple[str, ...] = ()  # things to tell the user that do not stop the command (plaintext secrets)
    fleet: str | None = None  # the fleet's name (`accelfit:fleet`, default the stack's name); None = single form

    @property
    def is_fleet(self) -> bool:
        return self.fleet is not None

    @property
    def workload(self) -> LoadedWorkload:
        """The single form's workload; a fleet stack has several (`workloads`), and a command that reads one says so."""
        if self.is_fleet:
            raise InputError([problem(str(self.path), f"config.{self.project}:workloads", "this stack holds a fleet "
                                      "and this command reads a single workload",
                                      "use `accelfit plan|lock|check|preview` on the fleet stack")])
        return self.workloads[0]

    @property
    def spec(self) -> WorkloadSpec:
        return self.workload.spec

    @property
    def specs(self) -> tuple[WorkloadSpec, ...]:
        return tuple(loaded.spec for loaded in self.workloads)

    def get(self, key: str, default: Any = None) -> Any:
        return self.config.get(key if ":" in key else f"{self.project}:{key}", default)

    @property
    def selection(self) -> Any:
        """The locked option (`accelfit:selection`, a planner Selection) or None; loading already refused a bad one.
        A fleet stack locks per workload (`selections`)."""
        if self.is_fleet:
            raise InputError([problem(str(self.path), f"config.{self.project}:selection", "a fleet stack locks "
                                      "each workload: the selection is a map by workload name",
                                      "use `accelfit lock --stack ENV` on the fleet stack")])
        raw = self.get("selection")
        return None if raw is None else read_selection(raw, str(self.path), f"config.{self.project}:selection")

    @property
    def selections(self) -> dict[str, Any]:
        """Locked options by workload name (both forms; a single stack's under its workload's name)."""
        if not self.is_fleet:
            selection = self.selection
            return {} if selection is None else {self.spec.name: selection}
        raw = self.get("selection")
        return {} if raw is None else read_selection_map(raw, str(self.path), f"config.{self.project}:selection",
                                                         [spec.name for spec in self.specs])

    @property
    def environment(self) -> str:
        return str(self.get("environment") or self.name)

    def pulumi_config(self) -> dict[str, str]:
        """Config as `pulumi.runtime.set_all_config` wants it: strings, objects as JSON (as the CLI sends them).

        Encrypted values (`{secure: ...}`, written by `pulumi config set --secret`) cannot be decrypted without the
        CLI; the offline preview sees a placeholder, marked secret, as `pulumi preview --json` shows "[secret]"."""
        return {key: SECRET_PLACEHOLDER if is_secure(value) else value if isinstance(value, str) else json.dumps(value)
                for key, value in self.config.items()}

    def secret_values(self) -> tuple[str, ...]:
        """Plain-text values of secret-named keys (longest first), to blind wherever a report would copy them."""
        values = {value for key, value in self.config.items() if secret_like(key, value) and isinstance(value, str)
                  and len(value) >= 4}
        return tuple(sorted(values, key=len, reverse=True))

    def secret_keys(self) -> list[str]:
        """Encrypted keys, and secret-named keys set in plain text: both are secrets to the program, so their
        values are blinded in every report."""
        return sorted(key for key, value in self.config.items() if is_secure(value) or secret_like(key, value))


def find_project_dir(start: Path | None = None) -> Path:
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if is_regular_file(directory / PROJECT_FILE):
            return directory
    raise InputError([problem(str(here), PROJECT_FILE, "no Pulumi project found here or above",
                              "run accelfit from inside the project (the folder with Pulumi.yaml)")])


def check_stack_name(name: str) -> str:
    """Pulumi's own rule for stack names (pulumi/pulumi, validateStackName: `^[A-Za-z0-9_.-]{1,100}$`)."""
    if not _STACK_NAME.match(name or ""):
        raise InputError([problem(None, "--stack", "not a stack name: 1 to 100 letters, digits, '-', '_' or '.'",
                                  "pass the name of a stacks/Pulumi.<name>.yaml file, e.g. --stack dev", name)])
    return name


def read_project(project_dir: Path) -> dict[str, Any]:
    """Pulumi.yaml, with the types of the keys accelfit reads checked (name, stackConfigDir, config)."""
    source = str(project_dir / PROJECT_FILE)
    document = read_yaml(project_dir / PROJECT_FILE)
    if not isinstance(document, dict):
        raise InputError([problem(source, "", "the project file must be a mapping of keys",
                                  "start from the project's Pulumi.yaml (name, runtime, stackConfigDir, config)")])
    problems = []
    if not isinstance(document.get("name"), str) or not _STACK_NAME.match(document["name"]):
        problems.append(problem(source, "name", "the project needs a name of letters, digits, '-', '_' or '.'",
                                "add `name: accelfit`", document.get("name")))
    config_dir = document.get("stackConfigDir", ".")
    if not isinstance(config_dir, str) or not config_dir or Path(config_dir).is_absolute() or ".." in Path(
            config_dir).parts:
        problems.append(problem(source, "stackConfigDir", "must be a folder inside the project, as a relative path",
                                "use `stackConfigDir: stacks`", config_dir))
    config = document.get("config")
    if config is not None and not isinstance(config, dict):
        problems.append(problem(source, "config", "must be a mapping of config keys to declarations",
                                "e.g. `config: {team: {type: string}}`", config))
    if problems:
        raise InputError(problems)
    return document


def stack_path(name: str, project_dir: Path) -> Path:
    check_stack_name(name)
    config_dir: str = read_project(project_dir).get("stackConfigDir", ".")  # Pulumi.yaml's stackConfigDir
    return project_dir / config_dir / f"Pulumi.{name}.yaml"


def known_project_keys(project_doc: dict[str, Any]) -> tuple[str, ...]:
    """The keys accelfit reads in its own namespace (PROJECT_KEYS, the table in accelfit.stackkeys), plus any
    Pulumi.yaml declares. Any other `accelfit:*` key is a typo: `accelfit:enviroment` would otherwise be stored by
    the CLI and silently ignored."""
    declared = [key.split(":", 1)[-1] for key in (project_doc.get("config") or {}) if isinstance(key, str)]
    return tuple(dict.fromkeys((*PROJECT_KEYS, *declared)))


def unknown_key_problems(keys: Iterable[str], project: str, known: Iterable[str], source: str) -> list[Problem]:
    """`accelfit:enviroment` is a typo the Pulumi CLI stores without a word; say so, with the key meant."""
    known = tuple(known)
    problems = []
    for key in keys:
        namespace, _, bare = key.partition(":")
        if namespace != project or bare in known:
            continue
        close = did_you_mean(bare, known) if len(bare) <= 64 else None
        fix = f"did you mean {project}:{close}?" if close else f"remove it; {project} reads: {', '.join(known)}"
        problems.append(problem(source, f"config.{shorten(key, 80)}", f"unknown {project} config key", fix))
    return problems


def secret_named(key: str) -> bool:
    return bool(_SECRET_NAME.search(key.partition(":")[2] or key))


def secret_like(key: str, value: Any) -> bool:
    """A key named like a secret, or a plain text value shaped like a credential (an AWS key id, a token, a URI
    with a password: accelfit.values.find_credential) whatever its key is called."""
    return secret_named(key) or (isinstance(value, str) and find_credential(value) is not None)


def plaintext_secrets(config: dict[str, Any]) -> list[str]:
    """Keys named like secrets, or holding a credential-shaped value, whose value is written in plain text instead
    of `{secure: ...}`."""
    return sorted(key for key, value in config.items() if isinstance(key, str) and secret_like(key, value)
                  and value not in (None, "") and not is_secure(value))


def load_stack(name: str, project_dir: Path | None = None) -> StackFile:
    check_stack_name(name)
    project_dir = project_dir or find_project_dir()
    path = stack_path(name, project_dir)
    if not is_regular_file(path):
        folder = path.parent
        available = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml")
                           for p in folder.glob("Pulumi.*.yaml")) if folder.is_dir() else []
        raise InputError([problem(str(path), "", f"no stack file for stack {name!r}",
                                  f"use one of: {', '.join(available[:30]) or '(none)'}")])
    return load_stack_file(path, name, project_dir)


def stack_name_of(path: Path) -> str | None:
    """`Pulumi.dev.yaml` -> `dev`; None when the file is not named like a stack file."""
    match = re.match(r"^Pulumi\.(.+)\.ya?ml$", path.name)
    return match.group(1) if match else None


def load_stack_file(path: Path, name: str, project_dir: Path) -> StackFile:
    """A stack file read and checked as `plan --stack`, `lock` and `preview` need it."""
    project_doc = read_project(project_dir)
    project = project_doc["name"]
    document = read_yaml(path)
    if not isinstance(document, dict) or not isinstance(document.get("config"), dict):
        raise InputError([problem(str(path), "config", "a stack file needs a `config:` mapping",
                                  "put the stack's settings under `config:`")])
    config = _project_defaults(project_doc, project)
    config.update(document["config"])
    found = workloads_from_document(document, str(path), project)  # the project's namespace, as the program reads
    token_keys = tuple(spec.model.weights_token for spec, _ in found if spec.model.weights_token)
    from accelfit.environments import environment_names

    problems = config_problems(config, project_doc, name, str(path), token_keys, environment_names(project_dir))
    problems += weights_token_problems(config, found, str(path))
    problems += loaded_problems(config, found, str(path))  # the stack rules that need no plan (accelfit.stackrules)
    fleet = workloads_key(project) in document["config"]
    if fleet:
        problems += fleet_problems(config, project, name, str(path), [spec.name for spec, _ in found])
    elif f"{project}:fleet" in config:
        problems.append(problem(str(path), f"config.{project}:fleet", "names a fleet, but this stack holds one "
                                f"workload ({project}:workload)", f"remove it, or list the workloads under "
                                f"{project}:workloads"))
    if problems:
        raise InputError(problems)
    return StackFile(name=name, path=path, project_dir=project_dir, project=project, config=config,
                     workloads=tuple(with_inventory(spec, path, prefix) for spec, prefix in found),
                     warnings=tuple(f"{key} is set in plain text in {path}; encrypt it: pulumi config set --secret "
                                    f"{key} ... (then remove the plain value)" for key in plaintext_secrets(config)),
                     fleet=fleet_name(config, project, name) if fleet else None)


def weights_token_problems(config: dict[str, Any], found: Iterable[tuple[Any, str]], source: str) -> list[Problem]:
    """hf:// weights: the token the server downloads them with, when the stack sets it, must be encrypted (`pulumi
    config set --secret`). A token not set yet stops the build, not the plan (components/kubernetes/serving), as
    the other secrets a build needs do."""
    problems = []
    for spec, _ in found:
        key = spec.model.weights_token
        value = config.get(key) if key else None
        if key and value not in (None, "") and not is_secure(value):
            problems.append(problem(source, f"config.{shorten(key, 80)}", "the Hugging Face token is written in "
                                    "plain text (the value is not shown)", f"remove it and run `pulumi config set "
                                    f"--secret {key} hf_...`"))
    return problems


def fleet_name(config: dict[str, Any], project: str, stack_name: str) -> str:
    """`accelfit:fleet`, or the stack's name when it is not set."""
    value = config.get(f"{project}:fleet")
    return stack_name if value is None else value


def fleet_problems(config: dict[str, Any], project: str, stack_name: str, source: str,
                   names: list[str]) -> list[Problem]:
    """The fleet form's own config: its name (given, or the stack's) and the selection map's keys."""
    problems = []
    value = config.get(f"{project}:fleet")
    named = stack_name if value is None else value
    if not isinstance(named, str) or not _FLEET_NAME.match(named):
        rule = ("a fleet name is a label and a name prefix: 1 to 37 lowercase letters, digits or '-', starting "
                "with a letter and not ending in '-'")
        if value is None:
            problems.append(problem(source, f"config.{project}:fleet", f"not set, and the stack's name {stack_name!r} "
                                    f"cannot name the fleet ({rule})", f"set {project}:fleet, e.g. "
                                    f"{project}:fleet: ml-platform"))
        else:
            problems.append(problem(source, f"config.{project}:fleet", rule, f"e.g. {project}:fleet: ml-platform",
                                    value))
    raw = config.get(f"{project}:selection")
    if raw is not None:
        try:
            read_selection_map(raw, source, f"config.{project}:selection", names)
        except InputError as error:
            problems += error.problems
    return problems


def _expiry_problems(value: Any, source: str) -> list[Problem]:
    """An ephemeral stack's accelfit:expiresAt (accelfit.expiry), checked before the program labels it."""
    from accelfit.expiry import expiry_label

    try:
        expiry_label(value, source)
    except InputError as error:
        return list(error.problems)
    return []


def config_problems(config: dict[str, Any], project_doc: dict[str, Any], name: str, source: str,
                    token_keys: tuple[str, ...] = (), environments: tuple[str, ...] = ENVIRONMENTS) -> list[Problem]:
    """Everything about a stack's own config that `plan`, `lock`, `preview` and `pulumi up` rely on. `token_keys`:
    the keys workloads name as model.weights_token (read by the program, so not unknown)."""
    project = project_doc["name"]
    problems = _key_problems(config, project_doc, source, token_keys)
    environment = config.get(f"{project}:environment", name)
    if not isinstance(environment, str) or environment not in environments:
        problems.append(problem(source, f"config.{project}:environment", "unknown environment",
                                f"use one of: {', '.join(environments)}, or add one with `accelfit env new "
                                "NAME --from staging`", environment))
    problems += _expiry_problems(config.get(f"{project}:expiresAt"), source)
    problems += _label_problems(config, project, source)
    problems += _require_lock_problems(config, project, source)
    problems += _gcp_project_problems(config.get("gcp:project"), source)
    problems += _selection_problems(config, project, source)
    problems += _secret_problems(config, environment, source)
    return problems


def _key_problems(config: dict[str, Any], project_doc: dict[str, Any], source: str,
                  token_keys: tuple[str, ...]) -> list[Problem]:
    """Keys that are not text, and keys neither the project nor a workload's weights token names."""
    problems = []
    keys = [key for key in config if isinstance(key, str)]
    if len(keys) != len(config):
        problems.append(problem(source, "config", "config keys must be text", "quote the key"))
    problems += unknown_key_problems([key for key in keys if key not in token_keys], project_doc["name"],
                                     known_project_keys(project_doc), source)
    return problems


def _label_problems(config: dict[str, Any], project: str, source: str) -> list[Problem]:
    """`team` and `costCenter`: set (or encrypted), and each a label value, since every resource is labelled."""
    problems = []
    for key in ("team", "costCenter"):
        value = config.get(f"{project}:{key}")
        if is_secure(value):
            continue  # encrypted by `pulumi config set --secret`: set, just not readable here
        if value is None or value == "":
            problems.append(problem(source, f"config.{project}:{key}", "missing",
                                    f"set {project}:{key}; every resource is labelled with it"))
        elif not isinstance(value, str) or not _LABEL_VALUE.match(value):
            problems.append(problem(source, f"config.{project}:{key}", "must be a label value: at most 63 "
                                    "lowercase letters, digits, '-' or '_'",
                                    f"e.g. {project}:{key}: research-llm", value))
    return problems


def _require_lock_problems(config: dict[str, Any], project: str, source: str) -> list[Problem]:
    from accelfit.lock_setting import lock_required

    try:  # the same reading as `preview --locked` and the program: a value that is not a boolean stops every command
        lock_required(config.get(f"{project}:requireLock"), source, f"config.{project}:requireLock")
    except InputError as error:
        return list(error.problems)
    return []


def _gcp_project_problems(gcp_project: Any, source: str) -> list[Problem]:
    if gcp_project is None or is_secure(gcp_project) or (
            isinstance(gcp_project, str) and _GCP_PROJECT.match(gcp_project)):
        return []
    # Set but not a project id (`gcp:project: true`, a number, a list): refused by every stack command, not
    # only by check's provider-config rule, so plan and lock never accept a file check refuses.
    return [problem(source, "config.gcp:project", "Google Cloud needs the project id (6-30 "
                    "lowercase letters, digits or '-', starting with a letter), and this is not one",
                    "set gcp:project: <your-project-id> (quote it if YAML would read it as something "
                    "else), or remove it", gcp_project)]


def _selection_problems(config: dict[str, Any], project: str, source: str) -> list[Problem]:
    """A single workload's `selection` must read back as `accelfit lock` wrote it (a fleet's map: fleet_problems)."""
    raw = config.get(f"{project}:selection")
    if raw is None or f"{project}:workloads" in config:
        return []
    try:
        read_selection(raw, source, f"config.{project}:selection")
    except InputError as error:
        return list(error.problems)
    return []


def _secret_problems(config: dict[str, Any], environment: Any, source: str) -> list[Problem]:
    """Secrets that are not text, and (in a protected environment) secrets written in plain text; the value itself
    is never echoed."""
    problems = []
    for key, value in config.items():
        if isinstance(key, str) and secret_named(key) and value is not None and not isinstance(value, str) \
                and not is_secure(value):
            # A map or a list would reach the program as JSON text and land whole in resource names, URNs and state
            # (`bootstrap-token-{"value": "..."}`); the value itself is never echoed.
            kind = "mapping" if isinstance(value, dict) else "list" if isinstance(value, list) else type(value).__name__
            problems.append(problem(source, f"config.{shorten(key, 80)}", f"a secret must be text, not a {kind} "
                                    "(the value is not shown)", f"set it as one string: pulumi config set --secret "
                                    f"{shorten(key, 80)} ..."))
    for key in plaintext_secrets(config):
        if is_protected(environment):
            problems.append(problem(source, f"config.{shorten(key, 80)}", "a secret is written in plain text, "
                                    f"which {environment} refuses (a protected environment)",
                                    f"remove it and run `pulumi config set --secret {key} ...`"))
    return problems


def read_selection(raw: Any, source: str, field: str) -> Any:
    """`accelfit:selection` as written by `accelfit lock`, or an InputError naming the field."""
    from accelfit.planner.lock import Selection
    from accelfit.validation import validate

    if not isinstance(raw, dict):
        raise InputError([problem(source, field, "must be the mapping `accelfit lock` writes",
                                  "delete it and run `accelfit lock --stack ENV`", raw)])
    numbers = [key for key in ("monthly_usd", "total_usd") if isinstance(raw.get(key), bool)]
    if numbers:
        raise InputError([problem(source, f"{field}.{numbers[0]}", "expected a number, not a boolean",
                                  "delete the selection and run `accelfit lock --stack ENV`")])
    from accelfit.planner.lock import option_parts

    selection = validate(Selection, raw, source, field)
    for name, option in (("option", selection.option), ("overflow", selection.overflow)):
        try:
            if option is not None:
                option_parts(option)  # parsing the option id is the check
        except ValueError:
            raise InputError([problem(source, f"{field}.{name}", "not an option id "
                                      "(platform/cloud/region/accelerator/machine/xCOUNT/pricing)",
                                      "delete the selection and run `accelfit lock --stack ENV`", option)]) from None
    return selection


def read_selection_map(raw: Any, source: str, field: str, names: list[str]) -> dict[str, Any]:
    """A fleet's `accelfit:selection`: {workload name: the selection `accelfit lock` writes}, keys naming workloads."""
    if not isinstance(raw, dict) or ("option" in raw and "option" not in names):
        raise InputError([problem(source, field, "in a fleet stack, a map of workload name to selection (each "
                                  "workload is locked on its own)", "delete it and run `accelfit lock --stack ENV`",
                                  raw)])
    problems = []
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in names:
            close = did_you_mean(str(key), names) if len(str(key)) <= 64 else None
            problems.append(problem(source, f"{field}.{shorten(str(key), 80)}", "names no workload of this fleet",
                                    f"did you mean {close}?" if close else
                                    f"use one of: {', '.join(names)}; or delete it and run `accelfit lock`"))
            continue
        try:
            out[key] = read_selection(value, source, f"{field}.{key}")
        except InputError as error:
            problems += error.problems
    if problems:
        raise InputError(problems)
    return out


def _project_defaults(project_doc: dict[str, Any], project: str) -> dict[str, Any]:
    defaults: dict[str, Any] = {}
    for key, declaration in (project_doc.get("config") or {}).items():
        if not isinstance(key, str):
            continue
        qualified = key if ":" in key else f"{project}:{key}"
        if isinstance(declaration, dict) and "default" in declaration:
            defaults[qualified] = declaration["default"]
        elif not isinstance(declaration, dict):
            defaults[qualified] = declaration  # a bare value, e.g. `gcp:project: my-proj`
    return defaults
