"""The JSON Schema of whole stack files (`stacks/Pulumi.<name>.yaml`), single and fleet form, for editors' YAML
language servers and check-jsonschema: `accelfit schema --stack-file` (both forms) and `--fleet` (the fleet form).

Built from the same sources the loader reads with: the key table (accelfit.stackkeys) and the workload spec's and
the lock's pydantic models, so a key or field added there is in the schema. The top level is what Pulumi keeps in a
stack file (pulumi/pulumi sdk/python/lib/pulumi/automation/_stack_settings.py, StackSettings: secretsprovider,
encryptedkey, encryptionsalt, config; plus the ESC `environment` imports). What JSON Schema cannot say (workload
names unique, selection keys naming workloads, a region the clouds publish for the planned accelerator) is
`accelfit check`'s (exit 2, naming the field). Pure.
"""

from __future__ import annotations

from typing import Any, Literal

from accelfit.stackkeys import ACCELFIT_KEYS, StackKey, provider_keys

JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema"
PROJECT = "accelfit"  # the project's namespace (Pulumi.yaml `name`)
Form = Literal["any", "single", "fleet"]
# `pulumi config set --secret` writes the encrypted value as {secure: <ciphertext>}.
SECURE = {"type": "object", "required": ["secure"], "additionalProperties": False,
          "properties": {"secure": {"type": "string", "minLength": 1}},
          "description": "An encrypted value, written by `pulumi config set --secret KEY VALUE`."}
SINGLE = f"{PROJECT}:workload"
FLEET = f"{PROJECT}:workloads"
SELECTION = f"{PROJECT}:selection"
# Pulumi's own keys at the top of a stack file (the config is under `config:`).
TOP_LEVEL = {
    "secretsprovider": {"type": "string", "description": "The secrets provider (`pulumi stack init "
                                                         "--secrets-provider`)."},
    "encryptedkey": {"type": "string", "description": "The stack's data key, encrypted by the secrets provider."},
    "encryptionsalt": {"type": "string", "description": "The passphrase provider's salt."},
    "environment": {"type": ["array", "object"], "description": "Pulumi ESC environments this stack imports."},
}


def key_schema(key: StackKey) -> dict[str, Any]:
    """One key's schema: its shape, its known values, `{secure: ...}` where the key may be encrypted."""
    shape = {**key.shape, "description": key.description}
    if key.values is not None:
        shape["enum"] = list(key.values())
    return {"anyOf": [shape, {"$ref": "#/$defs/Secure"}], "description": key.description} if key.secret else shape


def stack_file_schema(form: Form = "any") -> dict[str, Any]:
    """The whole stack file: `form` "single" (accelfit:workload), "fleet" (accelfit:workloads) or "any" (either)."""
    title = {"any": "accelfit stack file", "single": "accelfit stack file (one workload)",
             "fleet": "accelfit fleet stack file"}[form]
    return {
        "$schema": JSON_SCHEMA,
        "title": title,
        "description": "A Pulumi stack file of the accelfit project (stacks/Pulumi.<name>.yaml). The stack's "
                       "settings are under config:, each key namespaced (accelfit:team, gcp:project).",
        "type": "object",
        "required": ["config"],
        "additionalProperties": False,
        "properties": {**TOP_LEVEL, "config": {"$ref": "#/$defs/Config"}},
        "$defs": {"Config": config_schema(form), "Secure": SECURE, **model_defs()},
    }


def config_schema(form: Form) -> dict[str, Any]:
    known = [f"{PROJECT}:{key.name}" for key in ACCELFIT_KEYS]
    properties = {f"{PROJECT}:{key.name}": key_schema(key) for key in ACCELFIT_KEYS}
    properties.update({key.name: key_schema(key) for key in provider_keys()})
    forms = {"single": _single_form(), "fleet": _fleet_form()}
    document: dict[str, Any] = {
        "type": "object",
        "description": "The stack's config: the accelfit:* keys accelfit reads (any other accelfit:* key is a "
                       "typo, which accelfit refuses), the provider keys it reads, and any other provider's keys.",
        "properties": properties,
        # An accelfit:* key must be one of the table's; other namespaces (providers, a weights_token's) are open.
        "propertyNames": {"anyOf": [{"enum": known}, {"not": {"pattern": f"^{PROJECT}:"}}]},
        "required": [f"{PROJECT}:team", f"{PROJECT}:costCenter"],
    }
    if form == "any":
        document["oneOf"] = [forms["single"], forms["fleet"]]
    else:
        document.update(allOf=[forms[form]])
    return document


def _single_form() -> dict[str, Any]:
    return {"title": "one workload", "required": [SINGLE],
            "not": {"anyOf": [{"required": [FLEET]}, {"required": [f"{PROJECT}:fleet"]}]},
            "properties": {SELECTION: {"$ref": "#/$defs/Selection"}}}


def _fleet_form() -> dict[str, Any]:
    return {"title": "a fleet", "required": [FLEET], "not": {"required": [SINGLE]},
            "properties": {SELECTION: {"type": "object", "additionalProperties": {"$ref": "#/$defs/Selection"},
                                       "description": "Each workload's locked option, by workload name."}}}


def model_defs() -> dict[str, Any]:
    """The workload spec and the lock's Selection, their nested models side by side under $defs."""
    from accelfit.planner.lock import Selection
    from accelfit.spec import WorkloadSpec

    defs: dict[str, Any] = {}
    for name, model in (("WorkloadSpec", WorkloadSpec), ("Selection", Selection)):
        document = model.model_json_schema(mode="validation", ref_template="#/$defs/{model}")
        for nested, schema in document.pop("$defs", {}).items():
            if defs.get(nested, schema) != schema:
                raise ValueError(f"two models named {nested} in the stack-file schema")
            defs[nested] = schema
        defs[name] = document
    return defs
