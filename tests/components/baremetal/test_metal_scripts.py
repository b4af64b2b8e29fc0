"""Host scripts: golden files for every rendered script, shellcheck on each, and the rendering contract."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from accelfit.spec import load_inventory
from components.baremetal import scripts
from components.baremetal.scripts import ClusterJoin, HostClass, host_class, host_scripts, render, shipped

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
INVENTORY = load_inventory(ROOT / "stacks" / "inventories" / "lab-h100.yaml")
JOIN = ClusterJoin(api_server="10.20.0.5:6443", ca_cert_hash="sha256:" + "ab" * 32,
                   taint=("nvidia.com/gpu", "present", "NoSchedule"))
DRIVER, TOOLKIT = "580.178.04", "1.20.0"
RENDERED = host_scripts(host_class(INVENTORY.servers[0]), DRIVER, TOOLKIT, JOIN)


@pytest.mark.parametrize("script", scripts.SCRIPTS)
def test_rendered_script_matches_golden(script):
    path = GOLDEN / f"{script}.sh"
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        path.write_text(RENDERED[script])
    assert path.exists(), f"{path} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert RENDERED[script] == path.read_text(), f"{script} differs from {path.name}; regenerate if intended"


@pytest.mark.skipif(shutil.which("shellcheck") is None,
                    reason="shellcheck is not installed (./dev setup installs it from the Debian packages when run "
                           "as root; otherwise `apt-get install shellcheck`)")
@pytest.mark.parametrize("script", scripts.SCRIPTS)
def test_rendered_script_passes_shellcheck(script, tmp_path):
    path = tmp_path / f"{script}.sh"
    path.write_text(RENDERED[script])
    result = subprocess.run(["shellcheck", "--shell=bash", "--severity=style", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("script", scripts.SCRIPTS)
def test_the_shipped_script_with_its_parts_is_the_script_less_its_comment_lines(script):
    """What runs on the host is the shellchecked script: put each shared part back where its `eval "$N"` stands
    and it is every line of the rendered script but the comments (here-documents kept whole)."""
    text, sent = RENDERED[script], shipped(RENDERED[script])
    for number, part in enumerate(scripts.PARTS, start=2):
        sent = sent.replace(f'eval "${{{number}}}"  # {part}', scripts.shipped_part(part))
    code = [line for line in text.split("\n")[2:] if not line.lstrip().startswith("#")]
    assert [line for line in sent.split("\n")[2:] if not line.lstrip().startswith("# shellcheck ")] == code
    assert sent.split("\n")[:2] == text.split("\n")[:2]


def test_each_shared_part_is_shipped_once_per_command_not_once_per_script():
    """Issue 39: the parts went five times into every host's command; now as arguments, once."""
    from components.baremetal.host_preparation import prepare_command

    command = prepare_command(RENDERED)
    for part in scripts.PARTS:
        body = scripts.shipped_part(part)
        line = max((line for line in body.split("\n") if "'" not in line), key=len)  # unchanged by quoting
        assert body.count("\n") > 5 and command.count(line) == 1, line
    assert len(command) < 0.55 * sum(len(text) for text in RENDERED.values())


def test_comment_lines_in_a_here_document_are_shipped():
    text = "#!/usr/bin/env bash\n# header\n# gone\ncat >f <<'CONF'\n# kept\nCONF\n  # gone too\nread -r a <<<\"${b}\"\n# gone"
    assert shipped(text) == "#!/usr/bin/env bash\n# header\ncat >f <<'CONF'\n# kept\nCONF\nread -r a <<<\"${b}\""


@pytest.mark.parametrize("script", scripts.SCRIPTS)
def test_scripts_are_strict_and_fail_loudly(script):
    text = RENDERED[script]
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "\nset -euo pipefail\n" in text
    assert 'echo "accelfit' in text and ">&2" in text and "exit 1" in text


def test_pinned_versions_and_host_facts_are_in_the_scripts():
    assert "EXPECTED_GPUS=8\n" in RENDERED["preflight"] and "GPU_MODEL=h100-80gb\n" in RENDERED["preflight"]
    assert "DRIVER_VERSION=580.178.04\n" in RENDERED["driver"] and "DRIVER_BRANCH=580\n" in RENDERED["driver"]
    assert "TOOLKIT_VERSION=1.20.0\n" in RENDERED["toolkit"]
    assert "API_SERVER=10.20.0.5:6443\n" in RENDERED["join"]


def test_join_token_is_read_from_stdin_never_templated():
    assert "token" not in set(scripts._PLACEHOLDER.findall(scripts._template("join.sh.tmpl")))
    assert "read -r join_token" in RENDERED["join"]


@pytest.mark.parametrize(("changes", "fabric"), [
    ({"form_factor": None}, "detect"),  # the inventory does not say: preflight finds NVSwitches (or not) on the host
    ({"form_factor": "sxm"}, "nvswitch"),
    ({"form_factor": "pcie"}, "none"),  # PCIe H100: no NVSwitch, no Fabric Manager (it would exit and fail the step)
    ({"gpu_model": "b200", "form_factor": "sxm"}, "nvlink5"),  # B200 HGX: Fabric Manager and NVLSM
    ({"gpu_model": "l40s", "gpu_count": 4}, "none"),  # never made as SXM
])
def test_fabric_follows_the_inventory_form_factor(changes, fabric):
    server = INVENTORY.servers[0].model_copy(update=changes)
    assert f"FABRIC={fabric}\n" in host_scripts(host_class(server), DRIVER, TOOLKIT, JOIN)["preflight"]


def test_join_uses_kubeadm_v1beta4():
    assert "apiVersion: kubeadm.k8s.io/v1beta4\n" in RENDERED["join"]
    assert "apiVersion: kubeadm.k8s.io/v1beta3" not in RENDERED["join"]


def test_kubernetes_minor_from_config_or_the_api_server():
    assert "KUBERNETES_MINOR=''\n" in RENDERED["kubernetes"] and '/version"' in RENDERED["kubernetes"]
    pinned = host_scripts(host_class(INVENTORY.servers[0]), DRIVER, TOOLKIT,
                          JOIN.__class__(**{**JOIN.__dict__, "kubernetes_minor": "1.35"}))
    assert "KUBERNETES_MINOR=1.35\n" in pinned["kubernetes"]


def test_values_are_shell_quoted():
    odd = HostClass(gpu_model="h100; rm -rf /", gpu_count=8, fabric="none")
    assert "GPU_MODEL='h100; rm -rf /'\n" in host_scripts(odd, DRIVER, TOOLKIT, JOIN)["preflight"]


@pytest.mark.parametrize("script", scripts.SCRIPTS)
def test_the_node_name_is_the_first_argument_never_templated(script):
    """One text per class of hosts (issue 39): the node's name comes at run time, so no script names a node."""
    assert "node_name" not in set(scripts._PLACEHOLDER.findall(scripts._template(f"{script}.sh.tmpl")))
    assert "\nNODE_NAME=${1:?the node name is the first argument}\n" in RENDERED[script]
    assert "gpu-01" not in RENDERED[script]


def test_template_and_values_must_match():
    with pytest.raises(ValueError, match=r"placeholders without values \['gpu_count'"):
        render("preflight", {"gpu_model": "h100-80gb", "min_free_gib": 50, "supported_os": "",
                             "fabric": "none"})
    with pytest.raises(ValueError, match=r"values without placeholders \['extra'\]"):
        render("toolkit", {"toolkit_version": "1", "toolkit_packages": "p", "extra": "y"})
