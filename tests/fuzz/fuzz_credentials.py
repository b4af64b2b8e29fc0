"""Fuzz family: hostile credential files for `accelfit preflight` (issue 36, item 4). Every case must end with exit
2 (a credentials error with the login command), no traceback, no hang, no memory blow-up.

The files are where each cloud's SDK looks for credentials: $GOOGLE_APPLICATION_CREDENTIALS, gcloud's
application_default_credentials.json under $CLOUDSDK_CONFIG, $AWS_CONFIG_FILE and $AWS_SHARED_CREDENTIALS_FILE;
each is a directory, a FIFO, /dev/zero, a 20 MiB file, a symlink loop, binary, latin-1, empty or 100,000-deep JSON,
or text of the wrong shape; plus an AWS_PROFILE no file defines. No case can reach a cloud: each fails on the file
before any call. HOME points into the scratch tree, so the user's own ~/.aws and gcloud files are never read.

    .venv/bin/python tests/fuzz/fuzz_credentials.py          # run the family out of process (run_fuzz's checks)

The in-suite run is tests/fuzz/test_fuzz_credentials.py (every case, in process).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_corpus import INVALID, Case

GCP_STACK, AWS_STACK = "example-gcp-fleet", "example-aws-h100-training"
PREFLIGHT_GCP = ("preflight", "--stack", GCP_STACK)
PREFLIGHT_AWS = ("preflight", "--stack", AWS_STACK)
PREFIX = "preflight-credentials-"
# Special files (run_fuzz.make_special) a credentials path is made into.
HOSTILE_KINDS = ("directory", "fifo", "dev-zero", "huge", "symlink-loop", "binary", "latin1", "empty", "deep-json")
# Environment every case runs in: no keys from the environment, no metadata servers, a scratch HOME.
ISOLATED = {"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
            "AWS_EC2_METADATA_DISABLED": "true", "NO_GCE_CHECK": "True", "GOOGLE_APPLICATION_CREDENTIALS": "",
            "CLOUDSDK_CONFIG": "cases/no-gcloud", "AWS_CONFIG_FILE": "cases/no-aws-config",
            "AWS_SHARED_CREDENTIALS_FILE": "cases/no-aws-credentials", "HOME": "cases/home"}

_WRONG_SHAPES = {
    "json-list": b"[1, 2, 3]",
    "json-string": b'"a key"',
    "json-no-type": b'{"client_email": "x@y"}',
    "json-unknown-type": b'{"type": "made_up"}',
    "service-account-bad-key": json.dumps({
        "type": "service_account", "project_id": "p", "private_key_id": "k", "client_email": "a@p.iam.gserviceaccount.com",
        "private_key": "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", "client_id": "1",
        "token_uri": "https://oauth2.googleapis.com/token"}).encode(),
    "authorized-user-partial": b'{"type": "authorized_user", "client_id": "x"}',
    "text": b"just some text\n",
}


def _case(case_id: str, argv: tuple[str, ...], env: dict[str, str], **kwargs) -> Case:
    return Case(PREFIX + case_id, argv, INVALID, env={**ISOLATED, **env}, **kwargs)


def gcp_cases() -> Iterator[Case]:
    for kind in HOSTILE_KINDS:
        path = f"cases/creds/gac-{kind}.json"
        yield _case(f"gac-{kind}", PREFLIGHT_GCP, {"GOOGLE_APPLICATION_CREDENTIALS": path}, specials=((kind, path),))
        config = f"cases/creds/gcloud-{kind}"
        yield _case(f"gcloud-adc-{kind}", PREFLIGHT_GCP, {"CLOUDSDK_CONFIG": config},
                    specials=((kind, f"{config}/application_default_credentials.json"),))
    yield _case("gac-missing", PREFLIGHT_GCP, {"GOOGLE_APPLICATION_CREDENTIALS": "cases/creds/absent.json"})
    for label, data in _WRONG_SHAPES.items():
        path = f"cases/creds/gac-{label}.json"
        yield _case(f"gac-{label}", PREFLIGHT_GCP, {"GOOGLE_APPLICATION_CREDENTIALS": path}, files={path: data})
    token = "cases/creds/wif-token"
    federation = json.dumps({"type": "external_account", "audience": "//iam.googleapis.com/x",
                             "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
                             "token_url": "https://sts.googleapis.com/v1/token",
                             "credential_source": {"file": token}}).encode()
    for kind in ("fifo", "dev-zero", "symlink-loop"):
        path = f"cases/creds/wif-{kind}.json"
        yield _case(f"gac-federation-token-{kind}", PREFLIGHT_GCP, {"GOOGLE_APPLICATION_CREDENTIALS": path},
                    files={path: federation.replace(token.encode(), f"{token}-{kind}".encode())},
                    specials=((kind, f"{token}-{kind}"),))


def aws_cases() -> Iterator[Case]:
    for setting in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        short = "config" if setting == "AWS_CONFIG_FILE" else "credentials"
        for kind in HOSTILE_KINDS:
            path = f"cases/creds/aws-{short}-{kind}"
            yield _case(f"aws-{short}-{kind}", PREFLIGHT_AWS, {setting: path}, specials=((kind, path),))
        path = f"cases/creds/aws-{short}-garbage"
        yield _case(f"aws-{short}-garbage", PREFLIGHT_AWS, {setting: path, "AWS_PROFILE": "default"},
                    files={path: b"[unclosed section\nkey without equals\n= value\n"})
    yield _case("aws-profile-missing", PREFLIGHT_AWS, {"AWS_PROFILE": "no-such-profile"})
    config = "cases/creds/aws-config-sso"
    yield _case("aws-profile-sso-no-token", PREFLIGHT_AWS, {"AWS_CONFIG_FILE": config, "AWS_PROFILE": "ml"},
                files={config: b"[profile ml]\nsso_session = corp\nsso_account_id = 111122223333\n"
                               b"sso_role_name = ML\nregion = us-east-1\n[sso-session corp]\n"
                               b"sso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n"})


def credential_cases() -> tuple[Case, ...]:
    return (*gcp_cases(), *aws_cases())


def main() -> int:
    """Run the family out of process with run_fuzz's runner and checks; print the counts."""
    import tempfile
    import time
    from concurrent.futures import ThreadPoolExecutor

    from run_fuzz import make_project, run_case

    cases = credential_cases()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="accelfit-fuzz-credentials-") as temporary:
        scratch = Path(temporary)
        shared = make_project(scratch / "project")
        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = list(pool.map(lambda case: run_case(case, shared, scratch), cases))
    failed = [outcome for outcome in outcomes if outcome.problem]
    for outcome in failed:
        print(f"FAIL {outcome.case.id}: {outcome.problem} :: {outcome.stderr_tail.strip()[-200:]}")
    tracebacks = sum(1 for outcome in failed if outcome.problem == "traceback")
    hangs = sum(1 for outcome in failed if outcome.problem.startswith("hang"))
    slowest = max(outcomes, key=lambda outcome: outcome.seconds)
    print(f"{len(cases)} hostile credential cases in {time.perf_counter() - started:.0f} s: "
          f"{len(cases) - len(failed)} passed, {len(failed)} failed ({tracebacks} tracebacks, {hangs} hangs); "
          f"slowest {slowest.case.id} {slowest.seconds:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
