"""A reader's refusal to start: no credentials, or credentials the cloud rejects (exit 2, with how to log in)."""

from __future__ import annotations

from accelfit.errors import InputError, problem

GCP_LOGIN = "run `gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS to a key file)"
AWS_LOGIN = "run `aws sso login --profile NAME` (then AWS_PROFILE=NAME) or `aws configure`"
SDK_MISSING = "pip install 'accelfit[preflight]'"


def credentials_error(cloud: str, why: str) -> InputError:
    return InputError([problem(None, f"{cloud} credentials", why, GCP_LOGIN if cloud == "gcp" else AWS_LOGIN)])


def sdk_missing(cloud: str, module: str) -> InputError:
    return InputError([problem(None, "preflight", f"reading {cloud} needs {module}, which is not installed",
                               SDK_MISSING)])
