"""The package and repository steps of the rendered host scripts against what NVIDIA and Kubernetes publish, as
recorded with sources in accelfit/cloudrules/baremetal/data/host_packages.yaml; and the rules that refuse a pin apt could
not resolve (a driver branch past end of life, an unpublished build, an SXM claim for a PCIe-only GPU)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from accelfit.planner.software import baremetal_gpu_driver
from accelfit.spec import load_inventory
from accelfit.cloudrules.baremetal.host_software import (
    driver_branch, driver_problems, form_factor_problems, host_packages, repositories, toolkit_problems,
)
from components.baremetal.join_token import JOIN_GROUP, token_secret_data
from components.baremetal.scripts import ClusterJoin, host_class, host_scripts

ROOT = Path(__file__).resolve().parents[3]
INVENTORY = load_inventory(ROOT / "stacks" / "inventories" / "lab-h100.yaml")
JOIN = ClusterJoin(api_server="10.20.0.5:6443", ca_cert_hash="sha256:" + "ab" * 32,
                   taint=("nvidia.com/gpu", "present", "NoSchedule"))
PINNED = baremetal_gpu_driver()
SCRIPTS = host_scripts(host_class(INVENTORY.servers[0]), PINNED["version"], PINNED["container_toolkit"], JOIN)
DATA = host_packages()


def assigned(script: str, variable: str) -> str:
    """The value a rendered script assigns to VARIABLE (values are shell-quoted by the renderer)."""
    match = re.search(rf"^{variable}=(.*)$", SCRIPTS[script], re.MULTILINE)
    assert match, f"{variable} not set in {script}"
    return " ".join(shlex.split(match.group(1)))


class TestRecordedFacts:
    @pytest.mark.parametrize("name", ["cuda", "container_toolkit", "containerd", "kubernetes"])
    def test_every_repository_has_a_key_fingerprint_and_a_source(self, name):
        row = DATA["repositories"][name]
        assert re.fullmatch(r"[0-9A-F]{40}", row["fingerprint"])
        assert row["url"].startswith("https://") and row["key_url"].startswith("https://")
        assert row["source"] and ("@" in row["source"] or "https://" in row["source"])

    def test_the_planner_pins_a_published_build_of_a_supported_branch(self):
        assert PINNED["version"] in DATA["published"]["driver_builds"][driver_branch(PINNED["version"])]
        assert driver_problems(PINNED["version"]) == []
        assert PINNED["container_toolkit"] in DATA["published"]["container_toolkit"]

    def test_the_gpu_operator_default_driver_of_the_pinned_chart_is_a_published_build(self):
        # gpu-operator v26.3.3 defaults to 580.126.20 (deployments/gpu-operator/values.yaml @b0a49c0e).
        assert "580.126.20" in DATA["published"]["driver_builds"]["580"]


class TestRenderedScriptsUseThePublishedNames:
    def test_cuda_repository_and_key(self):
        cuda = repositories()["cuda"]
        assert assigned("repositories", "CUDA_REPO_URL") == cuda.url
        assert assigned("repositories", "CUDA_FINGERPRINT") == "EB693B3035CD5710E231E123A4B469963BF863CC"
        assert cuda.url.format(os="ubuntu2204", arch="x86_64") == \
            "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/"
        assert cuda.key_url.endswith("/3bf863cc.pub")  # key id = the fingerprint's last 8 digits
        assert cuda.fingerprint.lower().endswith("3bf863cc")

    def test_container_toolkit_repository_and_key(self):
        assert assigned("repositories", "TOOLKIT_REPO_URL") == \
            "https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH)"
        assert assigned("repositories", "TOOLKIT_FINGERPRINT") == "C95B321B61E88C1809C4F759DDCAE044F796ECB0"
        assert 'add_repository "NVIDIA container toolkit"' in SCRIPTS["repositories"]

    def test_kubernetes_repository_and_key(self):
        assert assigned("kubernetes", "K8S_REPO_URL") == "https://pkgs.k8s.io/core:/stable:/v{minor}/deb/"
        assert assigned("kubernetes", "K8S_FINGERPRINT") == "DE15B14486CD377B9E876E1A234654DA9A296436"
        assert assigned("kubernetes", "KUBERNETES_PACKAGES") == "kubelet kubeadm kubectl"

    def test_containerd_from_dockers_repository_on_ubuntu_and_debian(self):
        assert assigned("kubernetes", "RUNTIME_REPO_URL") == "https://download.docker.com/linux/{distro}"
        assert assigned("kubernetes", "RUNTIME_FINGERPRINT") == "9DC858229FC7DD38854AE2D88D81803C0EBFCD88"
        assert assigned("kubernetes", "RUNTIME_PACKAGES") == "containerd.io"
        assert "${VERSION_CODENAME:?} stable" in SCRIPTS["kubernetes"]
        # containerd.io disables the CRI plugin for Docker; the step regenerates the config with it on.
        assert 'disabled_plugins' in SCRIPTS["kubernetes"] and "containerd config default" in SCRIPTS["kubernetes"]

    def test_keys_are_trusted_only_by_fingerprint_and_each_repository_signed_by_its_own_key(self):
        for script in ("repositories", "kubernetes"):
            text = SCRIPTS[script]
            assert "gpg --batch --with-colons --show-keys" in text and "refusing to trust it" in text
            assert "[signed-by=" in text and "apt-key add" not in text

    def test_driver_packages_follow_the_published_naming_for_the_branch(self):
        branch = int(driver_branch(PINNED["version"]))
        assert branch >= DATA["published"]["unsuffixed_from_branch"]
        assert assigned("driver", "PINNING_PACKAGE") == f"nvidia-driver-pinning-{branch}"
        assert assigned("driver", "DRIVER_PACKAGES") == "nvidia-open"
        assert assigned("driver", "FABRIC_MANAGER_PACKAGES") == "nvidia-fabricmanager"
        assert assigned("driver", "NSCQ_PACKAGES") == "libnvidia-nscq"
        assert assigned("driver", "NVLINK5_PINNED_PACKAGES") == "libnvsdm"
        assert assigned("driver", "NVLINK5_PACKAGES") == "nvlsm infiniband-diags"
        # Pinned to the exact build: driver, Fabric Manager, NSCQ and NVSDM all at DRIVER_VERSION-<revision>.
        assert SCRIPTS["driver"].count('install_pinned "${DRIVER_VERSION}-"') == 3

    def test_toolkit_packages_at_one_release(self):
        assert assigned("toolkit", "TOOLKIT_PACKAGES") == (
            "nvidia-container-toolkit-base libnvidia-container1 libnvidia-container-tools nvidia-container-toolkit")
        assert 'install_pinned "${TOOLKIT_VERSION}-"' in SCRIPTS["toolkit"]

    def test_the_same_names_on_debian_and_ubuntu(self):
        assert set(DATA["operating_systems"]) == {"ubuntu-22.04", "ubuntu-24.04", "debian-12"}
        assert "ubuntu-22.04=ubuntu2204" in assigned("preflight", "SUPPORTED_OS")
        assert "debian-12=debian12" in assigned("repositories", "SUPPORTED_OS")
        assert "server-open" not in SCRIPTS["driver"]  # Ubuntu-archive-only names are gone

    def test_an_unresolvable_pin_fails_with_the_published_versions(self):
        assert "pin a version the repository publishes" in SCRIPTS["driver"]
        assert "apt-cache madison" in SCRIPTS["driver"]


class TestRules:
    def test_a_branch_past_end_of_life_is_refused(self):
        [problem] = driver_problems("570.172.08")
        assert "R570" in problem.message and "end of life" in problem.message and "R580" in problem.fix

    def test_a_branch_not_on_the_matrix_is_refused(self):
        [problem] = driver_problems("999.1.2")
        assert "not on NVIDIA's data-center support matrix" in problem.message

    def test_an_unpublished_build_is_refused(self):
        [problem] = driver_problems("580.1.1")
        assert "not a build NVIDIA published" in problem.message

    def test_an_unrecorded_toolkit_is_refused(self):
        assert toolkit_problems("1.17.8")

    def test_sxm_claim_for_a_pcie_only_gpu_is_refused(self):
        server = INVENTORY.servers[0].model_copy(update={"gpu_model": "l40s", "gpu_count": 4, "form_factor": "sxm"})
        [problem] = form_factor_problems(server, 0, "inventory")
        assert problem.field == "servers[0].form_factor"


def test_bootstrap_token_secret_format():
    import datetime as dt

    data = token_secret_data("abcdef.0123456789abcdef", dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC))
    assert data == {"token-id": "abcdef", "token-secret": "0123456789abcdef", "expiration": "2026-11-24T12:00:00Z",
                    "usage-bootstrap-authentication": "true", "usage-bootstrap-signing": "true",
                    "auth-extra-groups": JOIN_GROUP}
