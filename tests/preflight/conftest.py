"""Recorded cloud answers for the preflight readers: Google's REST responses served to the real client libraries
(their HTTP session patched, as the libraries' own unit tests do), and AWS responses through botocore's Stubber."""

from __future__ import annotations

import json
import re
from unittest import mock

import pytest

pytest.importorskip("google.cloud.compute_v1", reason="the preflight extra is not installed")
pytest.importorskip("boto3", reason="the preflight extra is not installed")

import requests
from google.auth.credentials import AnonymousCredentials
from google.auth.transport.requests import AuthorizedSession

PROJECT = "acme-ml-staging"  # stacks/Pulumi.example-gcp-fleet.yaml


def region_quotas(region: str, quotas: dict[str, tuple[float, float]]) -> dict:
    """A compute regions.get answer as the API sends it (JSON, camelCase)."""
    return {"kind": "compute#region", "name": region, "status": "UP",
            "quotas": [{"metric": m, "limit": lim, "usage": use} for m, (lim, use) in quotas.items()]}


class GoogleRecording:
    """Serves recorded answers by URL pattern; a pattern's list is served in order (the last one repeats)."""

    def __init__(self, routes: dict[str, list[tuple[int, dict]]]):
        self.routes = {re.compile(pattern): list(answers) for pattern, answers in routes.items()}
        self.calls: list[str] = []

    def __call__(self, session, method, url, *args, **kwargs):
        self.calls.append(url)
        for pattern, answers in self.routes.items():
            if pattern.search(url):
                status, body = answers.pop(0) if len(answers) > 1 else answers[0]
                break
        else:
            status, body = 404, {"error": {"code": 404, "message": f"no recording for {url}", "status": "NOT_FOUND"}}
        response = requests.Response()
        response.status_code = status
        response._content = json.dumps(body).encode()
        response.headers["content-type"] = "application/json"
        response.request = requests.Request(method, url).prepare()
        response.url = url
        return response


def error(code: int, status: str, message: str) -> tuple[int, dict]:
    return code, {"error": {"code": code, "message": message, "status": status}}


@pytest.fixture
def google(monkeypatch):
    """Install recorded Google answers; the GCP reader is built with anonymous credentials and no real sleep."""
    from accelfit.preflight.gcp import GcpReader

    holder: dict = {}

    def install(routes):
        recording = GoogleRecording(routes)
        # A plain function, so the session binds as `self` like the method it replaces.
        patcher = mock.patch.object(AuthorizedSession, "request",
                                    lambda session, method, url, *a, **k: recording(session, method, url, *a, **k))
        patcher.start()
        holder.setdefault("patchers", []).append(patcher)
        return recording

    # The seam: the reader class GCP's record names builds its reader for the needs (accelfit/preflight/readers.py).
    monkeypatch.setattr(GcpReader, "for_needs", classmethod(
        lambda cls, needs: GcpReader(needs.project, AnonymousCredentials(), sleep=lambda seconds: None)))
    yield install
    for patcher in holder.get("patchers", []):
        patcher.stop()


def compute(path: str) -> str:
    return rf"compute\.googleapis\.com/compute/v1/projects/{PROJECT}/{path}"


def services_enabled(names: list[str], disabled: tuple[str, ...] = ()) -> dict:
    return {"services": [{"name": f"projects/123/services/{n}", "state": "DISABLED" if n in disabled else "ENABLED"}
                         for n in names]}
