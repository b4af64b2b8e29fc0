"""Stack files (`stacks/Pulumi.<env>.yaml`) read the way the Pulumi CLI reads them, without the CLI.

The SDK reads neither Pulumi.yaml nor stack files in-process (reference/pulumi.md 7.1), so this module finds the
project, applies Pulumi.yaml's `config:` defaults, then the stack file's `config:`, exactly as the CLI would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelfit.errors import InputError, problem
from accelfit.inputfile import is_regular_file
from accelfit.spec import LoadedWorkload, WorkloadSpec
from accelfit.spec.loader import with_inventory, workload_from_document
from accelfit.yamlio import read_yaml

PROJECT_FILE = "Pulumi.yaml"
ENVIRONMENTS = ("dev", "staging", "prod")
SECRET_PLACEHOLDER = "[secret]"


def is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


@dataclass(frozen=True)
class StackFile:
    name: str
    path: Path
    project_dir: Path
    project: str
    config: dict[str, Any]  # fully qualified keys ("accelfit:team", "gcp:project"), project defaults applied
    workload: LoadedWorkload

    @property
    def spec(self) -> WorkloadSpec:
        return self.workload.spec

    def get(self, key: str, default: Any = None) -> Any:
        return self.config.get(key if ":" in key else f"{self.project}:{key}", default)

    @property
    def environment(self) -> str:
        return str(self.get("environment") or self.name)

    def pulumi_config(self) -> dict[str, str]:
        """Config as `pulumi.runtime.set_all_config` wants it: strings, objects as JSON (as the CLI sends them).

        Encrypted values (`{secure: ...}`, written by `pulumi config set --secret`) cannot be decrypted without the
        CLI; the offline preview sees a placeholder, marked secret, as `pulumi preview --json` shows "[secret]"."""
        return {key: SECRET_PLACEHOLDER if is_secure(value) else value if isinstance(value, str) else json.dumps(value)
                for key, value in self.config.items()}

    def secret_keys(self) -> list[str]:
        return sorted(key for key, value in self.config.items() if is_secure(value))


def find_project_dir(start: Path | None = None) -> Path:
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if is_regular_file(directory / PROJECT_FILE):
            return directory
    raise InputError([problem(str(here), PROJECT_FILE, "no Pulumi project found here or above",
                              "run accelfit from inside the project (the folder with Pulumi.yaml)")])


def stack_path(name: str, project_dir: Path) -> Path:
    project = read_yaml(project_dir / PROJECT_FILE) or {}
    config_dir = project.get("stackConfigDir", ".") if isinstance(project, dict) else "."
    return project_dir / config_dir / f"Pulumi.{name}.yaml"


def load_stack(name: str, project_dir: Path | None = None) -> StackFile:
    project_dir = project_dir or find_project_dir()
    project_doc = read_yaml(project_dir / PROJECT_FILE)
    if not isinstance(project_doc, dict) or "name" not in project_doc:
        raise InputError([problem(str(project_dir / PROJECT_FILE), "name", "the project file has no name",
                                  "add `name: accelfit`")])
    project = str(project_doc["name"])
    path = stack_path(name, project_dir)
    if not is_regular_file(path):
        available = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in path.parent.glob("Pulumi.*.yaml"))
        raise InputError([problem(str(path), "", f"no stack file for stack {name!r}",
                                  f"use one of: {', '.join(available) or '(none)'}")])
    document = read_yaml(path)
    if not isinstance(document, dict) or not isinstance(document.get("config"), dict):
        raise InputError([problem(str(path), "config", "a stack file needs a `config:` mapping",
                                  "put the stack's settings under `config:`")])
    config = _project_defaults(project_doc, project)
    config.update(document["config"])
    spec, prefix = workload_from_document(document, str(path))
    environment = config.get(f"{project}:environment", name)
    problems = []
    if environment not in ENVIRONMENTS:
        problems.append(problem(str(path), f"config.{project}:environment", "unknown environment",
                                f"use one of: {', '.join(ENVIRONMENTS)}", environment))
    for key in ("team", "costCenter"):
        if not isinstance(config.get(f"{project}:{key}"), str) or not config.get(f"{project}:{key}"):
            problems.append(problem(str(path), f"config.{project}:{key}", "missing",
                                    f"set {project}:{key}; every resource is labelled with it"))
    if problems:
        raise InputError(problems)
    return StackFile(name=name, path=path, project_dir=project_dir, project=project, config=config,
                     workload=with_inventory(spec, path, prefix))


def _project_defaults(project_doc: dict[str, Any], project: str) -> dict[str, Any]:
    defaults: dict[str, Any] = {}
    for key, declaration in (project_doc.get("config") or {}).items():
        qualified = key if ":" in key else f"{project}:{key}"
        if isinstance(declaration, dict) and "default" in declaration:
            defaults[qualified] = declaration["default"]
        elif not isinstance(declaration, dict):
            defaults[qualified] = declaration  # a bare value, e.g. `gcp:project: my-proj`
    return defaults
