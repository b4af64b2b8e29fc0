"""A reader's refusal to start: no credentials, or credentials the cloud rejects (exit 2, with how to log in)."""

from __future__ import annotations

from accelfit.errors import InputError, problem

GCP_LOGIN = "run `gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS to a key file)"
AWS_LOGIN = "run `aws sso login --profile NAME` (then AWS_PROFILE=NAME) or `aws configure`"
SDK_MISSING = "pip install 'accelfit[preflight]'"


def aws_login(profile: str = "") -> str:
    if not profile:
        return AWS_LOGIN
    return (f"run `aws sso login --profile {profile}` (an SSO profile) or `aws configure --profile {profile}` (access "
            f"keys), or unset AWS_PROFILE to use the default profile")


def _gcp_login(profile: str = "") -> str:
    return GCP_LOGIN


# How to log in to each cloud preflight reads, by cloud name (AWS: for the profile in use).
_LOGIN = {"gcp": _gcp_login, "aws": aws_login}


def credentials_error(cloud: str, why: str, *, profile: str = "") -> InputError:
    return InputError([problem(None, f"{cloud} credentials", why, _LOGIN[cloud](profile))])


# What a "could not check" line says when the cloud's endpoints cannot be reached (no network, DNS, proxy, TLS).
UNREACHABLE_FIX = "check the network (proxy: HTTPS_PROXY), then run preflight again"


def sdk_missing(cloud: str, module: str) -> InputError:
    return InputError([problem(None, "preflight", f"reading {cloud} needs {module}, which is not installed",
                               SDK_MISSING)])
