"""`accelfit preflight` on bad credentials (issue 36, item 4). Every credential problem is exit 2 with the login
command, never a traceback: a directory, /dev/zero, a FIFO, a huge file, garbage or a symlink loop where a key or
config file should be (read bounded, regular files only: no MemoryError, no hang), a missing AWS_PROFILE, an
unparsable AWS config. Keys without network are "could not check" lines (exit 1), never a traceback; the network
failures are simulated with the SDKs' own exception types at the transport layer (no network here)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import requests

from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.preflight.aws import AwsReader
from accelfit.preflight.gcp import GcpReader

GCP_STACK, AWS_STACK = "example-gcp-fleet", "example-aws-h100-training"
GCP_FIX, AWS_FIX = "gcloud auth application-default login", "aws configure"


def _hostile(tmp_path: Path, kind: str) -> Path:
    """A path where a credentials file should be, of the given hostile kind."""
    path = tmp_path / f"hostile-{kind}"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with open(path, "wb") as stream:
            stream.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of NUL bytes without writing them
    elif kind == "garbage":
        path.write_bytes(b"\x00\xffnot a key {[" * 10)
    elif kind == "symlink-loop":
        other = tmp_path / f"hostile-{kind}-other"
        path.symlink_to(other)
        other.symlink_to(path)
    elif kind == "missing":
        pass
    return path


KINDS = ["directory", "fifo", "device", "huge", "garbage", "symlink-loop", "missing"]


def _refused(make) -> InputError:
    started = time.monotonic()
    with pytest.raises(InputError) as caught:
        make()
    assert time.monotonic() - started < 10  # never a hang, never reading gigabytes
    return caught.value


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                 "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE",
                 "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # google-auth: do not probe a metadata server
    return monkeypatch


# ------------------------------------------------------------------------------------------------ GCP


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_google_application_credentials_is_exit_2_naming_it(clean_env, tmp_path, kind):
    path = _hostile(tmp_path, kind)
    clean_env.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    error = _refused(lambda: GcpReader("p"))
    text = error.render()
    assert str(path) in text and "GOOGLE_APPLICATION_CREDENTIALS" in text and GCP_FIX in text


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_gclouds_own_credentials_file_gets_the_same_checks(clean_env, tmp_path, kind):
    config = tmp_path / "gcloud"
    config.mkdir()
    hostile = _hostile(tmp_path, kind)
    (config / "application_default_credentials.json").symlink_to(hostile)
    clean_env.setenv("CLOUDSDK_CONFIG", str(config))
    text = _refused(lambda: GcpReader("p")).render()
    assert "application_default_credentials.json" in text and GCP_FIX in text


@pytest.mark.parametrize("content", ["[1, 2]", '{"type": "service_account"}', '{"no": "type"}', '"text"'])
def test_json_that_is_not_a_credentials_file_is_exit_2(clean_env, tmp_path, content):
    path = tmp_path / "key.json"
    path.write_text(content)
    clean_env.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    text = _refused(lambda: GcpReader("p")).render()
    assert str(path) in text and GCP_FIX in text


def test_a_federation_config_whose_token_file_is_a_fifo_is_refused_before_any_call(clean_env, tmp_path):
    token = _hostile(tmp_path, "fifo")
    config = tmp_path / "wif.json"
    config.write_text(json.dumps({"type": "external_account", "audience": "//iam.googleapis.com/x",
                                  "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
                                  "token_url": "https://sts.googleapis.com/v1/token",
                                  "credential_source": {"file": str(token)}}))
    clean_env.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(config))
    text = _refused(lambda: GcpReader("p")).render()
    assert str(token) in text and "credential_source.file" in text


def _service_account_key(path: Path) -> None:
    rsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path.write_text(json.dumps({"type": "service_account", "project_id": "p", "private_key_id": "k",
                                "private_key": pem, "client_email": "sa@p.iam.gserviceaccount.com",
                                "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"}))


@pytest.fixture
def offline(monkeypatch):
    """No network: every HTTP request fails where requests would fail it (its adapter), with its own exception."""
    calls = []

    def refuse(adapter, request, *args, **kwargs):
        calls.append(request.url)
        raise requests.exceptions.ConnectionError(f"Failed to resolve '{request.url.split('/')[2]}'")

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", refuse)
    return calls


def _cli(capsys, stack):
    code = main(["preflight", "--stack", stack])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_valid_key_without_network_is_could_not_check_exit_1(clean_env, tmp_path, offline, capsys):
    key = tmp_path / "sa.json"
    _service_account_key(key)
    clean_env.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
    code, out, err = _cli(capsys, GCP_STACK)
    assert code == 1, out + err
    assert "Traceback" not in err and "could not check" in out
    assert "could not reach Google Cloud" in out and "check the network" in out
    assert len(offline) == 1  # the first failure stops the others: each would wait out the same failure


def test_a_connection_error_mid_run_is_could_not_check(google, monkeypatch, capsys):
    from tests.preflight.test_gcp_preflight import routes

    google(routes())
    from google.auth.exceptions import TransportError
    from google.auth.transport.requests import AuthorizedSession

    def unreachable(*args, **kwargs):
        raise TransportError("connection reset")

    monkeypatch.setattr(AuthorizedSession, "request", unreachable)
    code, out, err = _cli(capsys, GCP_STACK)
    assert code == 1 and "Traceback" not in err
    assert "could not reach Google Cloud (connection reset)" in out


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_the_cli_says_exit_2_and_how_to_log_in(clean_env, tmp_path, capsys, kind):
    clean_env.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(_hostile(tmp_path, kind)))
    code, _, err = _cli(capsys, GCP_STACK)
    assert code == 2 and GCP_FIX in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------------ AWS


@pytest.mark.parametrize("setting", ["AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"])
@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("missing", "garbage")])
def test_a_hostile_aws_file_is_exit_2_naming_it(clean_env, tmp_path, setting, kind):
    path = _hostile(tmp_path, kind)
    clean_env.setenv(setting, str(path))
    text = _refused(lambda: AwsReader()).render()
    assert str(path) in text and setting in text and AWS_FIX in text


@pytest.mark.parametrize("setting", ["AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"])
def test_a_garbage_aws_file_is_exit_2_naming_it(clean_env, tmp_path, setting):
    path = tmp_path / "garbage"
    path.write_text("this is [not an ini file\n= = =\n")
    clean_env.setenv(setting, str(path))
    clean_env.setenv("AWS_PROFILE", "default")
    text = _refused(lambda: AwsReader()).render()
    assert str(path) in text and "not an AWS config file" in text and "aws configure --profile default" in text


def test_a_missing_aws_profile_is_exit_2_with_the_profile_login(clean_env, capsys):
    clean_env.setenv("AWS_PROFILE", "team-ml")
    code, _, err = _cli(capsys, AWS_STACK)
    assert code == 2 and "Traceback" not in err
    assert "'team-ml' (AWS_PROFILE)" in err
    assert "aws sso login --profile team-ml" in err and "aws configure --profile team-ml" in err


def test_an_sso_profile_without_a_token_is_exit_2(clean_env, tmp_path, capsys):
    config = tmp_path / "config"
    config.write_text("[profile team-ml]\nsso_session = corp\nsso_account_id = 111122223333\n"
                      "sso_role_name = ML\nregion = us-east-1\n\n[sso-session corp]\n"
                      "sso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n")
    clean_env.setenv("AWS_CONFIG_FILE", str(config))
    clean_env.setenv("AWS_PROFILE", "team-ml")
    code, _, err = _cli(capsys, AWS_STACK)
    assert code == 2 and "Traceback" not in err and "aws sso login --profile team-ml" in err


def test_keys_without_network_are_could_not_check_exit_1(clean_env, monkeypatch, capsys):
    """Static keys load without a call; the first call fails in botocore's HTTP session with its own
    EndpointConnectionError, as it does with no network."""
    import botocore.exceptions
    import botocore.httpsession

    clean_env.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    clean_env.setenv("AWS_SECRET_ACCESS_KEY", "x")
    clean_env.setenv("AWS_MAX_ATTEMPTS", "1")
    calls = []

    def unreachable(session, request):
        calls.append(request.url)
        raise botocore.exceptions.EndpointConnectionError(endpoint_url=request.url, error="no network")

    monkeypatch.setattr(botocore.httpsession.URLLib3Session, "send", unreachable)
    code, out, err = _cli(capsys, AWS_STACK)
    assert code == 1, out + err
    assert "Traceback" not in err
    assert "could not reach AWS (Could not connect to the endpoint URL" in out and "check the network" in out
    assert len(calls) == 1



def test_any_other_botocore_error_is_could_not_check_not_a_traceback(clean_env, monkeypatch, capsys):
    import botocore.exceptions
    import botocore.httpsession

    clean_env.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    clean_env.setenv("AWS_SECRET_ACCESS_KEY", "x")

    def refused(session, request):
        raise botocore.exceptions.InvalidConfigError(error_msg="the endpoint configuration is invalid")

    monkeypatch.setattr(botocore.httpsession.URLLib3Session, "send", refused)
    code, out, err = _cli(capsys, AWS_STACK)
    assert code == 1 and "Traceback" not in err
    assert "the endpoint configuration is invalid" in out


def test_any_other_google_auth_error_in_a_check_is_could_not_check(google, monkeypatch, capsys):
    from google.auth.exceptions import MalformedError
    from google.auth.transport.requests import AuthorizedSession

    from tests.preflight.test_gcp_preflight import routes

    google(routes())

    def malformed(*args, **kwargs):
        raise MalformedError("the token response is malformed")

    monkeypatch.setattr(AuthorizedSession, "request", malformed)
    code, out, err = _cli(capsys, GCP_STACK)
    assert code == 1 and "Traceback" not in err
    assert "the token response is malformed" in out
