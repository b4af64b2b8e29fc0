"""Kubeconfigs built from cluster outputs: exec plugins, never a stored credential (golden files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from components.kubernetes.access import eks_kubeconfig, gke_kubeconfig

GOLDEN = Path(__file__).parent / "golden"
RENDERED = {
    "kubeconfig-gke.yaml": gke_kubeconfig("llm-train-gke-cluster", "203.0.113.10", "bW9jay1jYQ=="),
    "kubeconfig-eks.yaml": eks_kubeconfig("llm-pretrain-eks", "https://mock.eks.amazonaws.com", "bW9jay1jYQ==",
                                          "us-east-1"),
}


@pytest.mark.parametrize("name", sorted(RENDERED))
def test_kubeconfig_matches_golden(name):
    path = GOLDEN / name
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(RENDERED[name])
    assert path.exists(), f"{path} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert RENDERED[name] == path.read_text()


def test_exec_plugins_and_no_tokens():
    gke = yaml.safe_load(RENDERED["kubeconfig-gke.yaml"])
    assert gke["clusters"][0]["cluster"]["server"] == "https://203.0.113.10"
    assert gke["users"][0]["user"]["exec"]["command"] == "gke-gcloud-auth-plugin"
    eks = yaml.safe_load(RENDERED["kubeconfig-eks.yaml"])["users"][0]["user"]
    assert eks["exec"]["args"][:2] == ["eks", "get-token"] and "us-east-1" in eks["exec"]["args"]
    assert "token" not in eks
