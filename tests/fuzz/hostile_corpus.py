"""Fuzz families of issue 36: user values that other formats would read as syntax, and secrets pasted into specs.

  uri-*     shell metacharacters (and Kubernetes' $(VAR)) in the key of every weights form (gs://, s3://, hf://)
  optsep-*  option separators in a gs:// folder (`,uid=0`, `,key-file=`, `,token-url=`...)
  iam-*     IAM wildcards and policy variables in an s3:// prefix
  cred-*    credential shapes in weights, weights_token, training.command, an inventory and plain stack values
  names-*   workload names of 36-40 characters on a multi-node server with a standby pool

What the spec accepts is previewed with --json and checked by injection_oracle (the runner's "injection" problem);
every planted secret is checked for in the output (the runner's "leak" problem). The expected exit codes restate
the documented key rules (accelfit/values.py cites the stores' naming pages), so a change of rule shows here.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from fuzz_corpus import INVALID, PLANNED, ROOT, Case, _slug, _yaml_file, dump_yaml, set_path

HOSTILE_PREFIXES = tuple(f"{command}-{family}-" for command in ("check", "plan", "lock", "preview")
                         for family in ("uri", "optsep", "iam", "cred", "names"))

# A key's characters each store accepts besides letters, digits, '/', '-', '_' and '.' (accelfit/values.py).
KEY_EXTRA_OK = {"s3": set("!*'()&$@=;:+,"), "gs": set("!'()&$@=;:+"), "hf": set()}
SHELL_KEYS: list[tuple[str, str]] = [
    ("semicolon", "a;b"), ("ampersand", "r&d/llama"), ("and-and", "a&&echo PWNED"), ("pipe", "a|echo PWNED"),
    ("command-sub", "$(echo PWNED)"), ("backtick", "a`echo PWNED`"), ("ifs", ";echo${IFS}PWNED;#"),
    ("single-quote", "it's"), ("double-quote", 'a"b'), ("quote-break", "x'\"; echo PWNED; '"),
    ("paren", "llama(v2)"), ("lt", "a<b"), ("gt", "a>pwned-file"), ("newline", "a\nb"), ("tab", "a\tb"),
    ("space", "a b"), ("hash", "a#b"), ("backslash", "a\\b"), ("star", "team-a*"), ("question", "a?b"),
    ("tilde", "~root"), ("bang", "a!b"), ("brace", "a{b}"), ("bracket", "a[0]"), ("percent", "a%2Fb"),
    ("caret", "a^b"), ("equals", "a=b"), ("comma", "a,b"), ("colon", "a:b"), ("at", "a@b"), ("plus", "a+b"),
    ("dollar", "x$y"), ("k8s-var", "$(AWS_REGION)"), ("k8s-token-var", "$(HUGGING_FACE_HUB_TOKEN)"),
    ("k8s-escaped", "$$(AWS_REGION)"), ("unicode", "modèle"), ("dot-dot", "../other"), ("empty-part", "a//b"),
    ("long", "k" * 1100), ("bell", "a\x07b"),
]
OPTION_SEPARATORS = [("uid", "x,uid=0,gid=0"), ("only-dir", "x,only-dir=/"), ("key-file", "x,key-file=/etc/key"),
                     ("token-url", "x,token-url=http://169.254.169.254/"), ("implicit", "x,implicit-dirs"),
                     ("escaped-comma", "x\\,uid=0"), ("encoded-comma", "x%2Cuid=0"), ("trailing", "x,")]
IAM_KEYS = [("star-suffix", "team-a*"), ("star-only", "*"), ("star-middle", "team-*-models"), ("question", "team-?"),
            ("variable", "${aws:username}"), ("escaped-star", "${*}"), ("dollar", "x$y"), ("dollar-brace", "$x{y")]

# Planted secrets (fake, each unique so a leak names its case).
AWS_KEY_ID = "AKIAZZZZFUZZLEAK0001"
AWS_SECRET = "fuzzLeakAwsSecret/K7MDENG/bPxRfiCY0002"
HF_TOKEN = "hf_fuzzLeakHuggingFaceToken0003abcdefgh"
OAUTH = "ya29.fuzzLeakGoogleOauthToken0004abcdefgh"
GITHUB = "ghp_fuzzLeakGithubToken0005abcdefghijklmn"
JWT = "eyJfuzzLeakJwt0006.eyJfuzzLeakJwt0006.fuzzLeakSig0006"
PASSWORD = "fuzzLeakPassword0007"
PRIVATE = "MIIfuzzLeakPrivateKey0008"


def _stack(name: str) -> dict[str, Any]:
    document = copy.deepcopy(_yaml_file(ROOT / "stacks" / f"Pulumi.{name}.yaml"))
    document["config"]["accelfit:environment"] = "staging"
    return document


def _key_ok(scheme: str, key: str) -> bool:
    extra = {char for char in key if not (char.isascii() and (char.isalnum() or char in "/-_."))}
    parts = key.strip("/").split("/")
    return (extra <= KEY_EXTRA_OK[scheme] and len(key.encode()) <= 1024 and not any(p in ("", ".", "..") for p in parts)
            and (scheme != "hf" or "/" not in key))


class _Stacks:
    """Writes each case's stack file under its own name; yields the cases of one stack document."""

    def __init__(self) -> None:
        self.count = 0

    def cases(self, label: str, document: dict[str, Any], expected: frozenset[int], commands: tuple[str, ...],
              secret: str | None = None) -> Iterator[Case]:
        self.count += 1
        name = f"hv{self.count}"
        path = f"stacks/Pulumi.{name}.yaml"
        files = {path: dump_yaml(document)}
        for command in commands:
            argv = {"check": ("check", path), "preview": ("preview", "--stack", name, "--json")}.get(
                command, (command, "--stack", name))
            heavy = command == "preview"
            yield Case(f"{command}-{label}", argv, expected, files=files, heavy=heavy, secret=secret,
                       keep_intact=path if command == "lock" and 0 not in expected else None,
                       oracle=heavy and 0 in expected)


def _weights_documents(scheme: str, key: str) -> dict[str, Any]:
    if scheme == "s3":
        return set_path(_stack("example-aws-vllm-serving"), "config.accelfit:workload.model.weights",
                        f"s3://acme-ml-models/llama/{key}")
    document = _stack("example-gcp-vllm-serving")
    if scheme == "gs":
        return set_path(document, "config.accelfit:workload.model.weights", f"gs://acme-ml-models/llama/{key}")
    document = set_path(document, "config.accelfit:workload.model.weights", f"hf://meta-llama/{key}")
    return set_path(document, "config.accelfit:workload.model.weights_token", "accelfit:hfToken")


def uri_cases(stacks: _Stacks) -> Iterator[Case]:
    for scheme in ("s3", "gs", "hf"):
        for label, key in SHELL_KEYS:
            ok = _key_ok(scheme, key)
            previewed = ok and scheme != "hf"  # hf:// without its token set stops the build, by design
            commands = ("check", "lock", "preview") if previewed else ("check", "lock") if label in (
                "ifs", "comma", "newline", "command-sub") else ("check",)
            yield from stacks.cases(f"uri-{scheme}-{label}", _weights_documents(scheme, key),
                                    PLANNED if ok else INVALID, commands)


def option_separator_cases(stacks: _Stacks) -> Iterator[Case]:
    for label, folder in OPTION_SEPARATORS:
        yield from stacks.cases(f"optsep-{label}", _weights_documents("gs", folder), INVALID, ("check", "lock"))


def iam_cases(stacks: _Stacks) -> Iterator[Case]:
    for label, key in IAM_KEYS:
        ok = _key_ok("s3", key)
        yield from stacks.cases(f"iam-{label}", _weights_documents("s3", key), PLANNED if ok else INVALID,
                                ("check", "preview") if ok else ("check", "lock"))


def credential_cases(stacks: _Stacks) -> Iterator[Case]:
    weights = [("s3-userinfo", f"s3://{AWS_KEY_ID}:{AWS_SECRET}@acme-ml-models/x", AWS_SECRET),
               ("s3-presigned", f"s3://acme-ml-models/x?X-Amz-Signature={PASSWORD}", PASSWORD),
               ("gs-access-token", f"gs://acme-ml-models/x?access_token={OAUTH}", OAUTH),
               ("hf-userinfo", f"hf://user:{HF_TOKEN}@meta-llama/x", HF_TOKEN),
               ("https-userinfo", f"https://user:{PASSWORD}@example.com/x", PASSWORD)]
    for label, value, secret in weights:
        document = _stack("example-gcp-vllm-serving")
        document = set_path(document, "config.accelfit:workload.model.weights", value)
        yield from stacks.cases(f"cred-weights-{label}", document, INVALID, ("check", "plan", "lock"), secret)
    pasted = set_path(_weights_documents("hf", "Llama-3.1-8B"), "config.accelfit:workload.model.weights_token",
                      HF_TOKEN)
    yield from stacks.cases("cred-weights-token-pasted", pasted, INVALID, ("check", "plan", "lock"), HF_TOKEN)
    commands = [("aws-secret", f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET} && torchrun train.py", AWS_SECRET),
                ("hf-flag", f"python train.py --hf-token={HF_TOKEN}", HF_TOKEN),
                ("password-flag", f"python train.py --password {PASSWORD}", PASSWORD),
                ("git-userinfo", f"git clone https://x-access-token:{GITHUB}@github.com/o/r && ./run", GITHUB),
                ("jwt", f"curl -H 'Authorization: Bearer {JWT}' http://x", JWT),
                ("aws-key-id", f"aws configure set aws_access_key_id {AWS_KEY_ID}", AWS_KEY_ID[4:]),
                ("private-key", f"echo -----BEGIN RSA PRIVATE KEY-----{PRIVATE} > k", PRIVATE)]
    training = _stack("dev")
    for label, command, secret in commands:
        document = set_path(training, "config.accelfit:workload.training.command", command)
        yield from stacks.cases(f"cred-command-{label}", document, INVALID, ("check", "plan", "lock"), secret)
    plain = set_path(_stack("dev"), "config.gcp:accessTokenHint", OAUTH)
    yield from stacks.cases("cred-stack-value", plain, PLANNED, ("check", "plan", "preview"), OAUTH)
    yield from stacks.cases("cred-stack-value-prod", set_path(plain, "config.accelfit:environment", "prod"), INVALID,
                            ("check", "plan", "lock"), OAUTH)
    inventory = _yaml_file(ROOT / "examples" / "inventories" / "lab-rack-a.yaml")
    for label, field, value, secret in [("ssh-user", "ssh_user", f"ops:{PASSWORD}", PASSWORD),
                                        ("label", "labels", {"note": f"password={PASSWORD}"}, PASSWORD),
                                        ("address", "address", f"ops:{PASSWORD}@10.0.0.1", PASSWORD)]:
        servers = [{**inventory["servers"][0], field: value}]
        path = f"cases/hv-inventory-{label}.yaml"
        yield Case(f"check-cred-inventory-{label}", ("check", path), INVALID,
                   files={path: dump_yaml({**inventory, "servers": servers})}, secret=secret)


def name_cases(stacks: _Stacks) -> Iterator[Case]:
    """A multi-node server (405B on H100 nodes) with a spot standby pool, under workload names of 36-41 characters."""
    document = _stack("example-aws-vllm-serving")
    workload = document["config"]["accelfit:workload"]
    workload["model"]["parameters"] = "405B"
    workload["placement"]["accelerators"] = ["h100-80gb"]
    workload["inference"].update({"requests_per_second": 2, "latency_p99_ms": 60000})
    workload["inference"].pop("ttft_p99_ms", None)
    workload["budget"].update({"max_monthly_usd": 2_000_000, "pricing": ["on-demand", "spot"]})
    for length in (36, 38, 39, 40, 41):
        name = ("w" + "-long-workload-name" * 3)[:length - 1] + "z"
        named = set_path(document, "config.accelfit:workload.name", _slug(name))
        yield from stacks.cases(f"names-{length}", named, INVALID if length > 40 else PLANNED,
                                ("check",) if length > 40 else ("check", "preview"))


def hostile_cases() -> Iterator[Case]:
    stacks = _Stacks()
    yield from uri_cases(stacks)
    yield from option_separator_cases(stacks)
    yield from iam_cases(stacks)
    yield from credential_cases(stacks)
    yield from name_cases(stacks)
