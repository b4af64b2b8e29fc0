"""The credential files preflight's readers use, read the way accelfit reads every user file: `inputfile.read_bytes`
(regular files only, opened non-blocking so a FIFO never hangs, bounded so /dev/zero or a huge file is refused
before it is read; a directory, a symlink loop or an unreadable file is named). The clouds' SDKs would read them
with a plain open(): a directory as GOOGLE_APPLICATION_CREDENTIALS was a traceback, /dev/zero a MemoryError at
6 GiB and a FIFO a hang. Every problem here is a credentials error (exit 2) naming the file, the setting and how to
log in. No SDK is imported here.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

from accelfit.errors import InputError
from accelfit.inputfile import decode_text, read_bytes
from accelfit.preflight.errors import credentials_error

# A service-account key is about 2.3 kB; an AWS config with a thousand SSO profiles a few hundred kB.
MAX_KEY_BYTES = 1024 * 1024
GCP_KEY_VAR = "GOOGLE_APPLICATION_CREDENTIALS"


def read_key_file(path: str, cloud: str, setting: str, *, profile: str = "") -> bytes:
    """The bytes of a credentials file, or a credentials error naming the file, the setting and the login fix."""
    try:
        return read_bytes(path, MAX_KEY_BYTES)
    except InputError as error:
        why = error.problems[0]
        raise credentials_error(cloud, f"{setting} {_shown(path)}: {why.message}", profile=profile) from None


def _shown(path: str) -> str:
    return path if len(path) <= 200 else f"{path[:120]}...({len(path)} characters)"


def _present(path: str) -> bool:
    """Something is at `path` (a dangling symlink, a symlink loop and an unsearchable folder count: they are
    errors to name, not a reason to skip the file)."""
    try:
        os.stat(path)
        return True
    except OSError as error:
        return error.errno != errno.ENOENT or os.path.lexists(path)
    except ValueError:  # a NUL byte
        return True


def gcloud_adc_path() -> str:
    """Where `gcloud auth application-default login` writes the credentials (google-auth's
    `_cloud_sdk.get_application_default_credentials_path`: $CLOUDSDK_CONFIG, else ~/.config/gcloud, or
    %APPDATA%\\gcloud on Windows)."""
    config = os.environ.get("CLOUDSDK_CONFIG")
    if not config:
        if os.name == "nt":
            # Windows spells it SystemDrive (its environment is case-insensitive).
            drive = os.environ.get("SystemDrive", "C:")  # noqa: SIM112
            config = os.path.join(os.environ.get("APPDATA", drive + "\\"), "gcloud")
        else:
            config = os.path.join(os.path.expanduser("~"), ".config", "gcloud")
    return os.path.join(config, "application_default_credentials.json")


def gcp_key_info() -> tuple[str, dict[str, Any]] | None:
    """(file, parsed JSON) of the Application Default Credentials file in the order google-auth looks for one
    ($GOOGLE_APPLICATION_CREDENTIALS, then gcloud's file); None when there is none (google.auth.default then tries
    the metadata server)."""
    explicit = os.environ.get(GCP_KEY_VAR)
    if explicit:
        path, setting = explicit, GCP_KEY_VAR
    elif _present(gcloud_adc_path()):
        path, setting = gcloud_adc_path(), "gcloud's application default credentials file"
    else:
        return None
    info = _json_object(read_key_file(path, "gcp", setting), path, setting)
    source = info.get("credential_source")
    if info.get("type") == "external_account" and isinstance(source, dict) and isinstance(source.get("file"), str):
        # Workload identity federation reads this token file at every refresh: the same checks, before any call.
        read_key_file(source["file"], "gcp", f"the credential_source.file of {_shown(path)}")
    return path, info


def _json_object(data: bytes, path: str, setting: str) -> dict[str, Any]:
    try:
        info = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nesting deeper than json can parse
        raise credentials_error("gcp", f"{setting} {_shown(path)} is not a JSON credentials file") from None
    if not isinstance(info, dict):
        raise credentials_error("gcp", f"{setting} {_shown(path)} is not a JSON credentials file (not an object)")
    return info


def check_aws_files() -> None:
    """The AWS config and shared credentials files botocore will read ($AWS_CONFIG_FILE, $AWS_SHARED_CREDENTIALS_FILE,
    else ~/.aws/config and ~/.aws/credentials), when present, pass the same checks first. botocore itself skips a
    path that is not a regular file without a word and reads a huge one whole."""
    home = Path(os.path.expanduser("~")) / ".aws"
    profile = os.environ.get("AWS_PROFILE") or os.environ.get("AWS_DEFAULT_PROFILE") or ""
    files = (("AWS_CONFIG_FILE", home / "config"), ("AWS_SHARED_CREDENTIALS_FILE", home / "credentials"))
    for setting, default in files:
        path = os.path.expanduser(os.environ.get(setting) or str(default))
        if not _present(path):
            continue
        named = setting if os.environ.get(setting) else f"the AWS file ({setting} unset)"
        data = read_key_file(path, "aws", named, profile=profile)
        try:  # botocore decodes it as UTF-8 text and raises a bare UnicodeDecodeError otherwise
            decode_text(data, path)
        except InputError as error:
            raise credentials_error("aws", f"{named} {_shown(path)}: {error.problems[0].message}",
                                    profile=profile) from None
