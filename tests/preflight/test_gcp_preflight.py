"""`accelfit preflight` on the GCP fleet example (stacks/Pulumi.example-gcp-fleet.yaml: an on-demand TPU v6e run with a
v5e fallback pool, an on-demand L4 service, one shared GKE cluster; `spot_fleet` lists spot too), against recorded answers
of Compute Engine, Cloud Quotas and Service Usage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from accelfit.cli.main import main
from tests.preflight.conftest import compute, error, region_quotas, services_enabled

STACK = "example-gcp-fleet"
ENOUGH = {"E2_CPUS": (24, 0), "TPU_LITE_PODSLICE_V5": (16, 0), "NVIDIA_L4_GPUS": (32, 0),
          "PREEMPTIBLE_NVIDIA_L4_GPUS": (32, 0), "CPUS": (500, 10), "PREEMPTIBLE_TPU_LITE_PODSLICE_V5": (16, 0)}
# TPU v6e limits come from Cloud Quotas (regions.get has no metric for them): quota id -> (dimensions, value).
TPU_FAMILY, TPU_SPOT = "TPUS-PER-TPU-FAMILY-per-project-region", "PREEMPTIBLE-TPU-V6E-per-project-region"
V6E_ENOUGH = {TPU_FAMILY: ({"region": "us-central1", "tpu_family": "CT6E"}, 8),
              TPU_SPOT: ({"region": "us-central1"}, 8)}
QUOTA_INFOS = (r"cloudquotas\.googleapis\.com/v1/projects/acme-ml-staging/locations/global/services/"
               r"compute\.googleapis\.com/quotaInfos")


def quota_infos(limits: dict | None = None, extra: tuple = ()) -> tuple[int, dict]:
    """A Cloud Quotas quotaInfos.list answer: one QuotaInfo per id, with the given dimensions and value."""
    infos = [{"quotaId": quota_id, "service": "compute.googleapis.com",
              "dimensionsInfos": [{"dimensions": dims, "details": {"value": str(value)}}]}
             for quota_id, (dims, value) in (V6E_ENOUGH if limits is None else limits).items()]
    return 200, {"quotaInfos": infos + list(extra)}
ZONES = ["us-central1-a", "us-central1-b", "us-central1-c"]
SERVICES = ["compute.googleapis.com", "storage.googleapis.com", "container.googleapis.com"]


def routes(quotas=None, **overrides):
    answers = {
        compute("regions/us-central1$"): [(200, region_quotas("us-central1", quotas or ENOUGH))],
        compute(r"zones/[^/]+/acceleratorTypes"): [(200, {"items": [{"name": "nvidia-l4"}, {"name": "nvidia-tesla-t4"}]})],
        compute(r"zones/[^/]+/machineTypes/"): [(200, {"name": "m"})],
        r"serviceusage\.googleapis\.com/v1/projects/acme-ml-staging/services:batchGet": [(200, services_enabled(SERVICES))],
        QUOTA_INFOS: [quota_infos()],
    }
    # Overrides first: the first pattern that matches a URL answers it.
    return {**overrides, **{k: v for k, v in answers.items() if k not in overrides}}


@pytest.fixture
def spot_fleet(tmp_path, monkeypatch):
    """The fleet example with each workload listing [spot, on-demand]: each plans spot and falls back to on demand
    (the chain steps only through the pricing models budget.pricing lists), so the spot quota paths are exercised."""
    root = Path(__file__).parents[2]
    (tmp_path / "stacks").mkdir()
    shutil.copy(root / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(root / "policies" / "config", tmp_path / "policies" / "config")
    text = (root / "stacks" / f"Pulumi.{STACK}.yaml").read_text()
    assert text.count("pricing: on-demand") == 2
    (tmp_path / "stacks" / f"Pulumi.{STACK}.yaml").write_text(
        text.replace("pricing: on-demand", "pricing: [spot, on-demand]"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *args):
    code = main(["preflight", "--stack", STACK, *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_everything_fits(google, capsys):
    recording = google(routes())
    code, out, _ = run(capsys)
    assert code == 0, out
    assert "everything the plan needs at full scale fits" in out
    assert "jax-pretrain step 2 (tpu-0-fb2): fits" in out
    # Read from the clouds' own endpoints, nothing else.
    assert any("regions/us-central1" in url for url in recording.calls)
    assert any("services:batchGet" in url for url in recording.calls)


def test_gpu_quota_shortfall_names_quota_region_needed_limit_in_use_and_request(google, capsys):
    google(routes({**ENOUGH, "NVIDIA_L4_GPUS": (16, 4)}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "quota NVIDIA_L4_GPUS (nvidia-l4 GPUs) in us-central1: needed 24, limit 16, in use 4" in out
    assert "ask for 28 gpus of NVIDIA_L4_GPUS in us-central1" in out
    assert "console.cloud.google.com/iam-admin/quotas?project=acme-ml-staging" in out
    assert "chat-serve step 1 (gpu): short of NVIDIA_L4_GPUS" in out


def test_spot_step_short_of_preemptible_quota(google, capsys, spot_fleet):
    google(routes(**{QUOTA_INFOS: [quota_infos({**V6E_ENOUGH, TPU_SPOT: ({"region": "us-central1"}, 2)})]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert (f"quota {TPU_SPOT} (tpu-v6e-slice chips (spot)) in us-central1: needed 4, limit 2 (read from Cloud Quotas "
            f"compute.googleapis.com {TPU_SPOT}; usage not reported (0 assumed))") in out
    assert f"jax-pretrain step 1 (tpu-0): short of {TPU_SPOT}" in out
    assert "jax-pretrain step 2 (tpu-0-fb2): fits" in out


def test_no_preemptible_quota_means_spot_uses_the_standard_quota(google, capsys, spot_fleet):
    google(routes({**ENOUGH, "PREEMPTIBLE_NVIDIA_L4_GPUS": (0, 0), "NVIDIA_L4_GPUS": (64, 0)}))
    code, out, _ = run(capsys)
    assert code == 0, out
    assert "no preemptible quota, so spot VMs use NVIDIA_L4_GPUS" in out


def test_spot_on_the_standard_quota_shares_it_with_the_on_demand_pools(google, capsys, spot_fleet):
    # 24 on-demand L4 + 24 spot L4 (no preemptible quota) = 48 from NVIDIA_L4_GPUS: 40 is not enough.
    google(routes({**ENOUGH, "PREEMPTIBLE_NVIDIA_L4_GPUS": (0, 0), "NVIDIA_L4_GPUS": (40, 0)}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "chat-serve step 1 (gpu): short of PREEMPTIBLE_NVIDIA_L4_GPUS" in out
    assert "chat-serve step 2 (gpu-fb2): fits" in out


def test_zone_that_does_not_offer_the_machine_is_a_shortfall(google, capsys):
    google(routes(**{compute(r"zones/us-central1-a/machineTypes/ct5lp-hightpu-8t"):
                     [error(404, "NOT_FOUND", "The resource was not found")]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "zone ct5lp-hightpu-8t in us-central1-a (us-central1-a does not offer ct5lp-hightpu-8t)" in out


def test_disabled_api_names_the_command_that_enables_it(google, capsys):
    google(routes(**{r"services:batchGet": [(200, services_enabled(SERVICES, disabled=("container.googleapis.com",)))]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "gcloud services enable container.googleapis.com --project=acme-ml-staging" in out


def test_throttling_is_retried_then_answers(google, capsys):
    recording = google(routes(**{compute("regions/us-central1$"): [
        error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests'"),
        error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests'"),
        (200, region_quotas("us-central1", ENOUGH))]}))
    code, out, _ = run(capsys)
    assert code == 0, out
    assert sum("regions/us-central1" in url for url in recording.calls) == 3


def test_throttling_past_the_retries_is_reported_not_passed(google, capsys):
    google(routes(**{compute("regions/us-central1$"): [error(429, "RESOURCE_EXHAUSTED", "Too many requests")]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "could not check:" in out
    assert "throttled: still refused after 4 tries" in out


def test_permission_denied_is_a_named_could_not_check_line(google, capsys):
    google(routes(**{compute("regions/us-central1$"): [
        error(403, "PERMISSION_DENIED", "Required 'compute.regions.get' permission for 'projects/acme-ml-staging'")]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "permission denied" in out
    assert "grant roles/compute.viewer on project acme-ml-staging" in out


def test_partial_answer_missing_metric_is_unchecked_never_fits(google, capsys):
    partial = {k: v for k, v in ENOUGH.items() if k != "TPU_LITE_PODSLICE_V5"}
    google(routes(partial))
    code, out, _ = run(capsys)
    assert code == 1
    assert "quota TPU_LITE_PODSLICE_V5 (tpu-v5-lite-podslice chips) in us-central1: needed 8 (no answer)" in out
    assert "jax-pretrain step 2 (tpu-0-fb2): not fully checked" in out


def test_tpu_v6e_quota_is_read_from_cloud_quotas_by_its_family_dimension(google, capsys):
    """Issue 33: the v6e quota is the family quota's CT6E value for the region, not another family's or region's."""
    other = {TPU_FAMILY: ({"region": "us-central1", "tpu_family": "CT5LP"}, 512)}
    elsewhere = {TPU_FAMILY: ({"region": "europe-west4", "tpu_family": "CT6E"}, 512)}
    answer = quota_infos({TPU_FAMILY: ({"region": "us-central1", "tpu_family": "CT6E"}, 2)},
                         extra=tuple(quota_infos(x)[1]["quotaInfos"][0] for x in (other, elsewhere)))
    recording = google(routes(**{QUOTA_INFOS: [answer]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert (f"quota {TPU_FAMILY} (tpu-v6e-slice chips, tpu_family=CT6E) in us-central1: needed 4, limit 2") in out
    assert f"ask for 4 chips of {TPU_FAMILY} in us-central1" in out
    assert "jax-pretrain step 1 (tpu-0): short of " + TPU_FAMILY in out
    assert any("quotaInfos" in url for url in recording.calls)


def test_a_region_default_applies_where_no_value_is_set_for_the_region(google, capsys):
    default = {"quotaId": TPU_FAMILY, "service": "compute.googleapis.com", "dimensionsInfos": [
        {"dimensions": {"tpu_family": "CT6E"}, "details": {"value": "64"},
         "applicableLocations": ["us-central1", "us-east5"]},
        {"dimensions": {"region": "us-east5", "tpu_family": "CT6E"}, "details": {"value": "0"}}]}
    google(routes(**{QUOTA_INFOS: [quota_infos({TPU_SPOT: V6E_ENOUGH[TPU_SPOT]}, extra=(default,))]}))
    code, out, _ = run(capsys)
    assert code == 0, out
    assert f"quota {TPU_FAMILY} (tpu-v6e-slice chips, tpu_family=CT6E) in us-central1: needed 4, limit 64" in out


def test_a_tpu_quota_cloud_quotas_does_not_list_is_unchecked_naming_the_id(google, capsys):
    google(routes(**{QUOTA_INFOS: [quota_infos({})]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert (f"quota {TPU_FAMILY} (tpu-v6e-slice chips, tpu_family=CT6E) in us-central1: needed 4 (no answer; Cloud "
            f"Quotas lists no {TPU_FAMILY} [tpu_family=CT6E] for us-central1)") in out


def test_spot_tpu_without_preemptible_quota_uses_the_family_quota(google, capsys, spot_fleet):
    google(routes(**{QUOTA_INFOS: [quota_infos({TPU_SPOT: ({"region": "us-central1"}, 0),
                                                TPU_FAMILY: ({"region": "us-central1", "tpu_family": "CT6E"}, 8)})]}))
    _code, out, _ = run(capsys)
    assert f"no preemptible quota, so spot VMs use {TPU_FAMILY}: 8 limit, 0 in use, 4 of it needed" in out
    assert "jax-pretrain step 1 (tpu-0): fits" in out, out


def test_cloud_quotas_denied_is_a_could_not_check_line_with_the_role(google, capsys):
    google(routes(**{QUOTA_INFOS: [error(403, "PERMISSION_DENIED", "Permission 'cloudquotas.quotas.get' denied")]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "grant roles/cloudquotas.viewer on project acme-ml-staging" in out


def test_gpu_family_missing_from_regions_get_is_read_from_cloud_quotas(google, capsys):
    partial = {k: v for k, v in ENOUGH.items() if k != "NVIDIA_L4_GPUS"}
    info = {"quotaInfos": [{"quotaId": "GPUS-PER-GPU-FAMILY-per-project-region", "service": "compute.googleapis.com",
                            "dimensionsInfos": [
                                {"dimensions": {"region": "us-central1", "gpu_family": "NVIDIA_L4"},
                                 "details": {"value": "8"}},
                                {"dimensions": {"region": "europe-west4", "gpu_family": "NVIDIA_L4"},
                                 "details": {"value": "64"}}]}]}
    info["quotaInfos"] += quota_infos()[1]["quotaInfos"]
    google(routes(partial, **{QUOTA_INFOS: [(200, info)]}))
    code, out, _ = run(capsys)
    assert code == 1
    assert "quota NVIDIA_L4_GPUS (nvidia-l4 GPUs) in us-central1: needed 24, limit 8" in out
    assert "usage not reported" in out


def test_json_and_markdown(google, capsys):
    google(routes({**ENOUGH, "NVIDIA_L4_GPUS": (16, 4)}))
    code, out, _ = run(capsys, "--json")
    document = json.loads(out)
    assert code == 1 and document["fits"] is False
    short = [f for f in document["reports"][0]["findings"] if f["status"] == "short"]
    assert [(f["subject"], f["region"], f["needed"], f["limit"], f["in_use"]) for f in short] == [
        ("NVIDIA_L4_GPUS (nvidia-l4 GPUs)", "us-central1", 24, 16, 4)]
    code, out, _ = run(capsys, "--markdown")
    assert code == 1 and out.startswith("### ❌ Preflight `example-gcp-fleet` (gcp): 1 shortfall(s)")


def test_rejected_credentials_exit_2_with_how_to_log_in(google, capsys):
    google(routes(**{compute("regions/us-central1$"): [error(401, "UNAUTHENTICATED", "Request had invalid "
                                                            "authentication credentials.")]}))
    code, _, err = run(capsys)
    assert code == 2
    assert "gcloud auth application-default login" in err
    assert "Traceback" not in err


def test_missing_credentials_exit_2_with_how_to_log_in(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "absent.json"))
    code, _, err = run(capsys)
    assert code == 2
    assert "GOOGLE_APPLICATION_CREDENTIALS" in err and "absent.json: file not found" in err
    assert "gcloud auth application-default login" in err


def test_unknown_stack_is_bad_input(capsys):
    code = main(["preflight", "--stack", "no-such-stack"])
    assert code == 2


def test_the_readme_example_is_what_the_command_prints(google, capsys):
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ .venv/bin/accelfit preflight --stack example-gcp-fleet\n", 1)[1].split("```", 1)[0]
    google(routes({**ENOUGH, "NVIDIA_L4_GPUS": (16, 4), "PREEMPTIBLE_NVIDIA_L4_GPUS": (0, 0)}))
    code, out, _ = run(capsys)
    assert code == 1
    printed = out.splitlines()
    assert [line for line in block.splitlines() if line.strip() != "..."] == [
        line for line in printed if line in block.splitlines()]


def test_an_unlimited_cloud_quotas_value_fits(google, capsys):
    google(routes(**{QUOTA_INFOS: [quota_infos({**V6E_ENOUGH, TPU_FAMILY: ({"region": "us-central1",
                                                                            "tpu_family": "CT6E"}, -1)})]}))
    code, out, _ = run(capsys)
    assert code == 0, out
    assert f"quota {TPU_FAMILY} (tpu-v6e-slice chips, tpu_family=CT6E) in us-central1: needed 4 (unlimited" in out


def test_a_gcp_stack_without_a_project_is_exit_2_before_anything_is_read(tmp_path, monkeypatch, capsys):
    """The stack's own checks refuse it first (a GCP stack names its project); preflight's own refusal, keyed by the
    cloud's record (accelfit.clouds: preflight_project_key), is the second guard."""
    root = Path(__file__).parents[2]
    (tmp_path / "stacks").mkdir()
    shutil.copy(root / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(root / "policies" / "config", tmp_path / "policies" / "config")
    text = (root / "stacks" / f"Pulumi.{STACK}.yaml").read_text()
    lines = [line for line in text.splitlines() if not line.strip().startswith("gcp:project:")]
    assert len(lines) < len(text.splitlines())
    (tmp_path / "stacks" / f"Pulumi.{STACK}.yaml").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys)
    assert code == 2
    assert "config.gcp:project" in err and "gcp:project" in err.split("Fix:", 1)[1] and "Traceback" not in err
