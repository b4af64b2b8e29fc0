"""requirements.lock is the one source of installed packages: it covers pyproject.toml, pins every package to one
release, and carries hashes for each, so `./dev setup` (pip --require-hashes) gives every machine the same set.

A dependency added to pyproject.toml without `./dev lock` fails here, not on someone's fresh clone.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ["requirements.lock", "requirements-lowest.lock"]
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ \\]+)")


def _pins(lock: str) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) for every package line of a pip-compile lock."""
    pins: dict[str, tuple[str, int]] = {}
    current = None
    for line in (ROOT / lock).read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line)
        if match:
            current = canonicalize_name(match.group(1))
            assert current not in pins, f"{lock}: {current} pinned twice"
            pins[current] = (match.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
    return pins


def _declared() -> list[Requirement]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    texts = list(pyproject["project"]["dependencies"]) + list(pyproject["build-system"]["requires"])
    for extra in pyproject["project"]["optional-dependencies"].values():
        texts.extend(extra)
    return [Requirement(text) for text in texts]


@pytest.mark.parametrize("lock", LOCKS)
def test_every_declared_dependency_is_locked_within_its_range(lock):
    pins = _pins(lock)
    problems = []
    for requirement in _declared():
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{requirement} is not in {lock}")
        elif not requirement.specifier.contains(pins[name][0], prereleases=True):
            problems.append(f"{lock} pins {name}=={pins[name][0]}, outside {requirement}")
    assert problems == [], "run ./dev lock: " + "; ".join(problems)


@pytest.mark.parametrize("lock", LOCKS)
def test_every_locked_package_has_a_hash_and_no_index_or_local_path(lock):
    pins = _pins(lock)
    assert len(pins) > 50
    assert [name for name, (_, hashes) in pins.items() if hashes == 0] == []
    text = (ROOT / lock).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host)\b", text, re.M)
    assert "/work/" not in text and "/tmp/" not in text and "file://" not in text


def test_the_lowest_lock_differs_from_the_lock_only_in_pyyaml_at_its_lower_bound():
    lock, lowest = _pins("requirements.lock"), _pins("requirements-lowest.lock")
    declared = {canonicalize_name(r.name): r for r in _declared()}
    lower_bound = next(s.version for s in declared["pyyaml"].specifier if s.operator == ">=")
    assert lowest["pyyaml"][0] == lower_bound
    assert {name for name in lock if lock[name][0] != lowest.get(name, ("", 0))[0]} == {"pyyaml"}


def test_setup_installs_only_from_the_lock_with_hashes():
    dev = (ROOT / "dev").read_text(encoding="utf-8")
    install_lines = [line.strip() for line in dev.splitlines() if "pip install" in line and "PIP_TOOLS" not in line]
    assert install_lines, "./dev installs nothing?"
    for line in install_lines:
        assert "--require-hashes" in line or ("--no-deps" in line and "--no-build-isolation" in line and "-e ." in line), line
    assert 'STAMP="$VENV/.accelfit-setup-$(cat "$LOCK" pyproject.toml | sha256sum' in dev


def test_the_installer_is_the_release_dev_names_with_the_hash_of_every_file():
    """`./dev setup` installs uv from requirements-uv.lock (pip --require-hashes) before it installs anything with
    it: the pin is the one `dev` names, and each of its files (a wheel per platform) has its hash."""
    pinned = re.search(r"^UV=uv==(\S+)$", (ROOT / "dev").read_text(encoding="utf-8"), re.M)
    assert pinned, "dev names no UV=uv==<version>"
    pins = _pins("requirements-uv.lock")
    assert set(pins) == {"uv"} and pins["uv"][0] == pinned.group(1), "run ./dev lock"
    assert pins["uv"][1] >= 10  # manylinux, musllinux, macOS and Windows wheels for several architectures, and the sdist
    text = (ROOT / "requirements-uv.lock").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host)\b", text, re.M)
