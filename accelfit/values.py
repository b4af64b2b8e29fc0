"""One validator per kind of value a user writes that later reaches another format: an object-store location
(which becomes a container argument, a mount option and an IAM resource), a credential-shaped string (never
accepted, never printed), a kubeadm address or hash, and a Kubernetes name derived from a workload's name.

The spec and stack loaders call these where a value enters, so everything downstream receives data it can pass
on as data. The builders still escape what their formats need (components/kubernetes/serving/manifests.py,
components/aws/iam_documents.py): a check here is never the only thing between a user's text and a syntax.
Pure: no Pulumi, no I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# --- credentials ---------------------------------------------------------------------------------------------------
# Shapes of secrets people paste into a spec or a stack file. Each pattern has bounded repetition (no nested
# quantifiers), so a 100,000-character value is scanned in linear time. The masked form keeps only what tells a
# reader which value it is (the key's public prefix, the parameter or variable name), never the secret part.
MASK = "****"
_SECRET_WORD = r"(?:secret|token|password|passwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)"


@dataclass(frozen=True)
class _Shape:
    kind: str
    pattern: re.Pattern[str]
    keep: str  # the replacement: what of the match stays visible (regex template)


_SHAPES = (
    # user:password@ in a URI (first: the whole user part goes, whatever key shapes it holds), or a long user part
    # alone (a token used as the user name, as git hosts accept). A pasted AWS secret key may hold '/', but
    # host:PORT/ is a port, not a password (a pinned git URL `https://host:8443/repo.git@<commit>`).
    _Shape("credentials in a URI (user:password@host)",
           re.compile(r"\b([a-z][a-z0-9+.-]{0,20}://)(?:[^/\s@?#:]{0,256}:(?![0-9]{1,5}/)[^\s@?#]{0,512}|[^/\s@?#:]{20,512})@"),
           r"\1" + MASK + "@"),
    _Shape("a private key", re.compile(r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[A-Za-z0-9+/=\s\\]{0,16384}"),
           "<private key " + MASK + ">"),
    # AWS access key ids: AKIA (long-term) and ASIA (temporary) prefixes, 20 characters
    # (docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids).
    _Shape("an AWS access key id", re.compile(r"\b(A[KS]IA)[A-Z0-9]{16}\b"), r"\1" + MASK),
    _Shape("a Google API key", re.compile(r"\b(AIza)[0-9A-Za-z_-]{35}"), r"\1" + MASK),
    _Shape("a Google OAuth access token", re.compile(r"\b(ya29\.)[0-9A-Za-z_-]{20,}"), r"\1" + MASK),
    _Shape("a Hugging Face token", re.compile(r"\b(hf_)[A-Za-z0-9]{30,}"), r"\1" + MASK),
    _Shape("a GitHub token", re.compile(r"\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{22,}"), r"\1" + MASK),
    _Shape("a Slack token", re.compile(r"\b(xox[abposr]-)[A-Za-z0-9-]{10,}"), r"\1" + MASK),
    _Shape("a JSON web token", re.compile(r"\b(eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
           r"\1" + MASK),
    _Shape("a credential in a query string",
           re.compile(r"(?i)([?&;](?:access_token|id_token|token|auth|sig|signature|x-amz-signature|x-amz-credential|"
                      r"x-amz-security-token|x-goog-signature|x-goog-credential|key|api_key|apikey|password|secret|"
                      r"client_secret)=)[^&#\s]{1,4096}"), r"\1" + MASK),
    # NAME=value where NAME ends in a secret word (AWS_SECRET_ACCESS_KEY=..., --hf-token=...), and a flag of that
    # name followed by its value (--password hunter2). A reference to a variable ($NAME, "${NAME}", "$(cat ...)")
    # is how a secret should be passed, so it is fine, as are a placeholder (<token>), a config key (ns:key) and a bare
# --secret=NAME (a secret's name for gcloud and kubectl, not its value).
    _Shape("a secret assigned in the text",
           re.compile(r"(?i)(?<![A-Za-z0-9_-])(?!-{0,2}secret=)((?:--?)?[A-Za-z0-9_-]{0,60}" + _SECRET_WORD +
                      r"=)(?![\"']?[$<])[\"']?[^\s\"'&;|$]{4,4096}[\"']?"), r"\1" + MASK),
    _Shape("a secret given as a command-line flag",
           re.compile(r"(?i)(?<![A-Za-z0-9_-])(?!--secret\s)(--[A-Za-z0-9_-]{0,60}" + _SECRET_WORD +
                      r"\s{1,3})(?![\"']?[$<])[\"']?[^\s\"'&;|$:<]{1,4096}[\"']?(?=[\s\"'&;|]|\Z)"),
           r"\1" + MASK),
)


def find_credential(text: str) -> str | None:
    """What kind of credential `text` holds ("an AWS access key id", ...), or None."""
    for shape in _SHAPES:
        if shape.pattern.search(text):
            return shape.kind
    return None


def mask_credentials(text: str) -> str:
    """`text` with the secret part of every credential-shaped substring replaced by ****."""
    for shape in _SHAPES:
        text = shape.pattern.sub(shape.keep, text)
    return text


def credential_paths(value: Any, path: str = "", budget: int = 20_000) -> Iterator[tuple[str, str, str]]:
    """(field path, kind, masked form) for each string value in a YAML-shaped document that holds a credential.
    Bounded: at most `budget` nodes are visited (the loaders already cap a document's size and depth)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack and budget > 0:
        item, where = stack.pop()
        budget -= 1
        if isinstance(item, str):
            kind = find_credential(item)
            if kind:
                yield where, kind, masked(item)
        elif isinstance(item, dict):
            # Keys are not scanned: a model's keys are its own names, and an unknown key's message is masked.
            stack.extend((child, f"{where}.{key}" if where else str(key)) for key, child in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(item))


CREDENTIAL_FIX = ("remove it: a secret never goes in a spec or a plain stack value. Keep it in a secret stack key "
                  "(`pulumi config set --secret <key> ...`; for hf:// weights name that key in model.weights_token) "
                  "or let the workload's cloud identity read the data (gs:// and s3:// need no key)")


def masked(text: str, limit: int = 120) -> str:
    """A short, masked quotation of `text` for a message: enough to find the value, nothing of the secret."""
    shown = mask_credentials(text)
    return repr(shown if len(shown) <= limit else shown[:limit - 3] + "...")


def credential_message(path: str, kind: str, masked_form: str) -> str:
    """The "<path>: <what>; <fix>" text the spec loaders raise: the field, the kind and a masked form."""
    return f"{path}: holds what looks like {kind}, {masked_form} (masked); {CREDENTIAL_FIX}"


# --- object-store locations ----------------------------------------------------------------------------------------
# Bucket names: GCS 3-63 characters (lowercase, digits, '-', '_', '.'), cloud.google.com/storage/docs/buckets#naming;
# S3 3-63 lowercase letters, digits, '.', '-', docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html.
# Hugging Face repo ids: org/name of letters, digits, '-', '_', '.' (huggingface_hub validate_repo_id, 96 each).
_FORMS = {
    "gs": re.compile(r"gs://([a-z0-9][a-z0-9._-]{1,61}[a-z0-9])(?:/(.*))?\Z", re.S),
    "s3": re.compile(r"s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(.*))?\Z", re.S),
    "hf": re.compile(r"hf://([A-Za-z0-9][A-Za-z0-9._-]{0,95})/([A-Za-z0-9][A-Za-z0-9._-]{0,95})\Z"),
}
EXAMPLES = {"gs": "gs://my-models/llama-3.1-8b", "s3": "s3://my-models/llama-3.1-8b",
            "hf": "hf://meta-llama/Llama-3.1-8B-Instruct"}
# The characters a key (a folder of the model) may hold, per store: the keys a server here can load, and nothing
# a consumer would read as syntax.
#   S3 (docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html#object-key-guidelines, 2026-11-27): the
#   "safe" characters (letters, digits, ! - _ . * ' ( )) and '/', plus the "might require special handling" ones
#   every consumer here passes through as data: & $ @ = ; : + , (container arguments in exec form with Kubernetes'
#   $$ escape; IAM resources with ${*} ${?} ${$}). Refused: whitespace and control characters, '?' and '#' (a URI's
#   query and fragment, where tokens hide), and the guide's "characters to avoid" (\ { } ^ % ` [ ] " < > ~ |).
#   GCS (cloud.google.com/storage/docs/objects#naming, 2026-11-27): names are UTF-8 without CR/LF, not . or ..,
#   not under .well-known/acme-challenge/; Google recommends avoiding # [ ] * ? and control characters. The GCS
#   FUSE CSI driver splits the volume's mountOptions on ',' with no escape (GoogleCloudPlatform/gcs-fuse-csi-driver
#   pkg/csi_driver/utils.go parseVolumeAttributes @5fcdc04a), and the folder becomes `only-dir=<folder>` there, so
#   ',' is refused too.
_KEY_CHARACTERS = {"s3": re.compile(r"[A-Za-z0-9!_.*'()/&$@=;:+,-]*\Z"),
                   "gs": re.compile(r"[A-Za-z0-9!_.'()/&$@=;:+-]*\Z")}
_KEY_ALLOWED_TEXT = {"s3": "letters, digits, '/' and ! - _ . * ' ( ) & $ @ = ; : + ,",
                     "gs": "letters, digits, '/' and ! - _ . ' ( ) & $ @ = ; : +"}
MAX_KEY_BYTES = 1024  # both stores' object-name limit (UTF-8 bytes)


@dataclass(frozen=True)
class ObjectLocation:
    """A parsed gs://bucket/key, s3://bucket/key or hf://org/name."""

    scheme: str
    bucket: str  # the bucket, or the Hugging Face organisation
    key: str  # the folder without its leading or trailing '/' ("" = the whole bucket), or the model's name

    @property
    def uri(self) -> str:
        return f"{self.scheme}://{self.bucket}/{self.key}" if self.key else f"{self.scheme}://{self.bucket}"


def split_location(uri: str) -> ObjectLocation:
    """The parts of a location already checked where it entered (`object_location`), without checking them again:
    what a builder uses to place each part where its format wants it, escaping or refusing what that format needs."""
    scheme, _, rest = uri.partition("://")
    if scheme not in _FORMS:
        raise ValueError(f"{_quoted(uri)} is not a gs://, s3:// or hf:// location")
    bucket, _, key = rest.partition("/")
    return ObjectLocation(scheme, bucket, key.strip("/"))


def object_location(uri: str, field: str = "weights") -> ObjectLocation:
    """Parse and check a location; ValueError "<what>; <fix>" naming `field` otherwise. A credential-shaped value
    is refused before anything else, and no message quotes it."""
    kind = find_credential(uri)
    if kind:
        raise ValueError(credential_message(field, kind, masked(uri)).partition(": ")[2])
    scheme = uri.partition("://")[0] if "://" in uri else ""
    form = _FORMS.get(scheme)
    if form is None:
        raise ValueError(f"{_quoted(uri)} is not a location: give gs://bucket/path, s3://bucket/prefix or "
                         "hf://org/name; e.g. " + ", ".join(EXAMPLES.values()))
    match = form.match(uri)
    if match is None:
        raise ValueError(f"{_quoted(uri)} is not a valid {scheme}:// location; e.g. {EXAMPLES[scheme]}")
    bucket, key = match.group(1), match.group(2) or ""
    if scheme != "hf":
        _check_key(scheme, key)
    return ObjectLocation(scheme, bucket, key.strip("/"))


def _check_key(scheme: str, key: str) -> None:
    where = f"the {'folder' if scheme == 'gs' else 'prefix'} {_quoted(key)}"
    if len(key.encode()) > MAX_KEY_BYTES:
        raise ValueError(f"{where[:60]}... is longer than {MAX_KEY_BYTES} bytes, the store's limit for a name; "
                         "give the model's folder")
    if not _KEY_CHARACTERS[scheme].match(key):
        bad = sorted({char for char in key if not _KEY_CHARACTERS[scheme].match(char)})
        shown = " ".join(repr(char) for char in bad[:8])
        raise ValueError(f"{where} holds {shown}, which a server here cannot be given as data; copy the model to a "
                         f"{'folder' if scheme == 'gs' else 'prefix'} of {_KEY_ALLOWED_TEXT[scheme]}")
    parts = key.rstrip("/").split("/") if key.rstrip("/") else []
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{where} has an empty, '.' or '..' part, which no file system path (and no GCS object "
                         "name) can be; write the folder as a/b/c")
    if scheme == "gs" and key.startswith(".well-known/acme-challenge"):
        raise ValueError(f"{where} is under .well-known/acme-challenge/, where GCS allows no objects; use the "
                         "model's own folder")


def _quoted(text: str) -> str:
    return masked(text)  # bounded and masked, as accelfit.errors.short_repr would (which imports this module)


# --- addresses and hashes (kubeadm join) ---------------------------------------------------------------------------
# Anchored with \Z: `$` also matches before a final newline, and "10.20.0.5:6443\n" must not reach a kubeadm
# JoinConfiguration (Python re docs, "$ ... matches ... just before the newline at the end of the string").
JOIN_ENDPOINT = re.compile(r"[A-Za-z0-9.-]{1,253}:[0-9]{1,5}\Z")
CA_CERT_HASH = re.compile(r"sha256:[0-9a-f]{64}\Z")
KUBERNETES_MINOR = re.compile(r"1\.[0-9]{2}\Z")


def is_join_endpoint(value: object) -> bool:
    """host:port of the API server hosts join; the port 1-65535."""
    if not isinstance(value, str) or not JOIN_ENDPOINT.match(value):
        return False
    return 0 < int(value.rpartition(":")[2]) < 65536


def is_ca_cert_hash(value: object) -> bool:
    return isinstance(value, str) and bool(CA_CERT_HASH.match(value))


def is_kubernetes_minor(value: object) -> bool:
    return isinstance(value, str) and bool(KUBERNETES_MINOR.match(value))


# --- Kubernetes names derived from a workload's name ---------------------------------------------------------------
DNS_LABEL_MAX = 63
# A StatefulSet's pods carry `controller-revision-hash: <statefulset>-<hash>`, a label value (at most 63), where the
# hash is up to 10 characters (kubernetes pkg/controller/history ControllerRevisionName; kubernetes#64023). A
# LeaderWorkerSet's worker StatefulSets are named `<lws>-<group index>` (kubernetes-sigs/lws#410, and lws PR #991
# sizing its own webhook's budget the same way).
REVISION_HASH_CHARS = 10


def leader_worker_set_name_limit(groups_max: int) -> int:
    """The longest LeaderWorkerSet name whose worker pods can be created with up to `groups_max` groups."""
    index_digits = len(str(max(groups_max - 1, 0)))
    return DNS_LABEL_MAX - 1 - index_digits - 1 - REVISION_HASH_CHARS


def fitted_name(name: str, limit: int = DNS_LABEL_MAX, keep_suffix: str = "") -> str:
    """`name` when it fits `limit`; else its head cut short, an 8-character digest of the whole name (two long names
    stay distinct) and `keep_suffix` (what says which object it is). A name that fits never changes, so the
    resources of existing stacks keep theirs."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    room = limit - len(keep_suffix) - 9
    if not name.endswith(keep_suffix) or room < 1:
        room, keep_suffix = limit - 9, ""
    return f"{name[:min(room, len(name) - len(keep_suffix))].rstrip('-')}-{digest}{keep_suffix}"
