"""The quota table (accelfit/preflight/data/quotas.yaml) covers what the planner can choose, and the pure parts of
preflight import no cloud SDK."""

from __future__ import annotations

import subprocess
import sys

import pytest

from accelfit.catalog import load_catalog
from accelfit.preflight import rules


def test_every_gcp_gpu_machine_in_the_catalog_has_a_gpu_quota_metric():
    missing = sorted({shape.gke_accelerator for shape in load_catalog().instance_types_for("gcp")
                      if rules.gcp_gpu_metric(shape.gke_accelerator or "", False) is None})
    assert missing == []


def test_every_gke_tpu_and_tpu_vm_shape_has_a_quota():
    catalog = load_catalog()
    assert sorted({t.gke_accelerator for t in catalog.tpu_slices
                   if rules.gcp_gke_tpu_quota(t.gke_accelerator, False) is None}) == []
    assert sorted({t.accelerator_config_type for t in catalog.tpu_slices
                   if rules.gcp_tpu_vm_quota_id(t.accelerator_config_type, True) is None}) == []


def test_every_aws_gpu_instance_in_the_catalog_maps_to_an_ec2_vcpu_quota():
    missing = sorted({shape.name for shape in load_catalog().instance_types_for("aws")
                      if rules.aws_quota(shape.name, False) is None or rules.aws_quota(shape.name, True) is None})
    assert missing == []


@pytest.mark.parametrize(("instance", "spot", "code"), [
    ("p5.48xlarge", False, "L-417A185B"), ("p4d.24xlarge", True, "L-7212CCBC"), ("g6.xlarge", False, "L-DB2E81BA"),
    ("g6e.12xlarge", True, "L-3819A6DF"), ("m6i.xlarge", False, "L-1216C47A"), ("m6i.xlarge", True, "L-34B43A08")])
def test_aws_family_to_quota_code(instance, spot, code):
    assert rules.aws_quota(instance, spot)[0] == code


def test_an_unknown_family_is_caught_not_guessed():
    assert rules.aws_quota("trn1.32xlarge", False) is None  # Trainium has its own quota, not in the table
    assert rules.gcp_gpu_metric("nvidia-made-up", False) is None


def test_spot_gcp_metric_names_its_standard_fallback():
    assert rules.gcp_gpu_metric("nvidia-h100-80gb", True) == ("PREEMPTIBLE_NVIDIA_H100_GPUS", "NVIDIA_H100_GPUS")
    assert rules.gcp_gpu_family_quota("PREEMPTIBLE_NVIDIA_H100_GPUS") == (
        "PREEMPTIBLE-GPUS-PER-GPU-FAMILY-per-project-region", "gpu_family=NVIDIA_H100")


@pytest.mark.parametrize("module", ["accelfit.cli.main", "accelfit.preflight.needs", "accelfit.preflight.compare",
                                    "accelfit.preflight.render", "accelfit.preflight.run",
                                    "accelfit.cli.preflight_command"])
def test_pure_parts_import_no_cloud_sdk(module):
    code = (f"import importlib, sys\nimportlib.import_module({module!r})\n"
            "print(','.join(sorted(m for m in sys.modules if m.startswith(('google.cloud', 'boto3', 'botocore')))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


@pytest.mark.parametrize(("accelerator", "spot", "ref"), [
    ("tpu-v5p-slice", False, ("TPU-V5P-per-project-region", "", "TPU-V5P-per-project-region", "", "")),
    ("tpu-v5p-slice", True, ("PREEMPTIBLE-TPU-V5P-per-project-region", "TPU-V5P-per-project-region",
                             "PREEMPTIBLE-TPU-V5P-per-project-region", "", "")),
    ("tpu-v6e-slice", False, ("TPUS-PER-TPU-FAMILY-per-project-region", "", "TPUS-PER-TPU-FAMILY-per-project-region",
                              "tpu_family=CT6E", "")),
    ("tpu-v6e-slice", True, ("PREEMPTIBLE-TPU-V6E-per-project-region", "TPUS-PER-TPU-FAMILY-per-project-region",
                             "PREEMPTIBLE-TPU-V6E-per-project-region", "", "tpu_family=CT6E")),
    ("tpu-v5-lite-podslice", True, ("PREEMPTIBLE_TPU_LITE_PODSLICE_V5", "TPU_LITE_PODSLICE_V5", "", "", "")),
])
def test_gke_tpu_quota_names_are_the_sourced_ones(accelerator, spot, ref):
    """Issue 33: v5p and v6e are read from Cloud Quotas by id and dimension (quotas.yaml says where each comes from);
    the names guessed before (TPU_V5P_PODSLICE, TPU_V6E) are gone."""
    assert tuple(rules.gcp_gke_tpu_quota(accelerator, spot)) == ref
    assert "TPU_V6E" not in str(rules.table()["gcp"]) and "TPU_V5P_PODSLICE" not in str(rules.table()["gcp"])
