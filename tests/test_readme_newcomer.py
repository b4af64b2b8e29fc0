"""The README alone takes a new user from a clone to `pulumi up`: each step of the path is there."""

from __future__ import annotations

from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("needle", [
    ".venv/bin/accelfit", "source .venv/bin/activate",                       # running the CLI after ./dev setup
    "get.pulumi.com", "pulumi login", "pulumi login gs://", "pulumi login s3://",  # CLI and backends
    "pulumi stack select --create", "stackConfigDir", "--secrets-provider", "PULUMI_CONFIG_PASSPHRASE",
    "gcloud auth application-default login", "gke-gcloud-auth-plugin", "aws sso login", "aws eks get-token",
    "acme-ml-dev", "gcloud services enable", "NVIDIA_H100_GPUS", "L-417A185B", "TPU quota",
    "policies/requirements.txt", "pulumi up --policy-pack policies", "upsert",
])
def test_the_path_to_a_real_pulumi_up_is_documented(needle):
    assert needle in README
