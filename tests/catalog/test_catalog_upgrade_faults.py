"""Upgrading an older accelfit's catalog layout (a real `imported/` directory) to the pointer layout, with a kill or
an I/O error injected at every filesystem step of `catalog update` (issue 36, item 9). After each fault an import is
still in use (the old one or the new one, never the shipped prices), and the next update finishes the upgrade and
leaves the plain layout: `imported` a pointer, no `imported.next`, no temporary links.

The faults are injected as `test_catalog_hostile.test_install_is_one_atomic_swap_of_a_pointer` does (the os
function replaced for the call), generalised to the N-th call of every function that changes the folder."""

from __future__ import annotations

import datetime as dt
import errno
import os
import shutil
from pathlib import Path

import pytest

from accelfit.catalog import load_catalog, loader, store
from accelfit.catalog.update import update_catalog
from accelfit.errors import InputError

ROOT = Path(__file__).parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "skypilot_v8"
TODAY = dt.date(2026, 11, 23)
MUTATORS = ("rename", "replace", "symlink", "unlink", "rmdir", "mkdir")


class Faults:
    """Counts the calls that change the filesystem; the call numbered `at` raises `error` instead of running."""

    def __init__(self, at: int | None = None, error: BaseException | None = None):
        self.at, self.error, self.calls = at, error, []

    def __enter__(self) -> Faults:
        self.real = {name: getattr(os, name) for name in MUTATORS}
        for name, real in self.real.items():
            setattr(os, name, self._wrap(name, real))
        return self

    def __exit__(self, *exc) -> None:
        for name, real in self.real.items():
            setattr(os, name, real)

    def _wrap(self, name, real):
        def call(*args, **kwargs):
            self.calls.append(f"{name} {' '.join(Path(str(a)).name for a in args if isinstance(a, (str, Path)))}")
            if len(self.calls) - 1 == self.at:
                raise self.error
            return real(*args, **kwargs)
        return call


def _fresh():
    loader.forget_active()
    return load_catalog()


def _older_layout(base: Path) -> None:
    """The layout an older accelfit left: the import as a real directory named `imported`."""
    update_catalog(str(FIXTURES), base=base, today=TODAY)
    target = os.readlink(base / store.IMPORTED)
    (base / store.IMPORTED).unlink()
    shutil.move(base / target, base / store.IMPORTED)
    shutil.rmtree(base / store.IMPORTS)
    assert (base / store.IMPORTED).is_dir() and not (base / store.IMPORTED).is_symlink()


@pytest.fixture()
def catalog_home(tmp_path, monkeypatch):
    """A fresh copy of the older layout in a new catalog folder, set as the active one, at each call."""
    monkeypatch.chdir(ROOT)
    template = tmp_path / "older-layout"
    _older_layout(template)
    homes = iter(range(10_000))

    def new() -> Path:
        base = tmp_path / f"catalog-{next(homes)}"
        shutil.copytree(template, base, symlinks=True)
        monkeypatch.setenv(store.ENV_VAR, str(base))
        return base

    yield new
    loader.forget_active()


def _steps(catalog_home) -> list[str]:
    base = catalog_home()
    with Faults() as counting:
        update_catalog(str(FIXTURES), base=base, today=TODAY + dt.timedelta(1))
    return counting.calls


def test_the_older_layout_is_read_and_the_upgrade_moves_it_only_after_the_new_import_is_readable(catalog_home):
    base = catalog_home()
    assert _fresh().origin.as_of == TODAY and store.imported_dir(base) == base / store.IMPORTED
    steps = _steps(catalog_home)
    moved = next(i for i, step in enumerate(steps) if step.startswith("rename imported "))
    readable = next(i for i, step in enumerate(steps) if step.startswith("replace ") and step.endswith(store.UPGRADING))
    assert readable < moved, steps


@pytest.mark.parametrize("fault", ["kill", "io-error"])
def test_a_fault_at_any_step_of_the_upgrade_keeps_an_import_in_use(catalog_home, fault):
    steps = _steps(catalog_home)
    # The upgrade's steps: from the staged import's rename to the removal of `imported.next`. Before them a fault
    # leaves the old directory untouched (test_catalog_hostile covers staging); after them pruning is best effort.
    first = next(i for i, step in enumerate(steps) if step.startswith("rename .import-"))
    last = next(i for i, step in enumerate(steps) if step == f"unlink {store.UPGRADING}")
    assert last - first >= 6, steps
    for at, step in list(enumerate(steps))[first:last + 1]:
        base = catalog_home()
        error = KeyboardInterrupt() if fault == "kill" else OSError(errno.EIO, "Input/output error")
        try:
            with Faults(at, error):
                update_catalog(str(FIXTURES), base=base, today=TODAY + dt.timedelta(1))
        except (KeyboardInterrupt, InputError):
            pass  # a kill, or the folder error naming the catalog folder; best-effort steps (pruning) go on
        after = _fresh().origin
        assert after.kind == "imported", f"{fault} at step {at} ({step}): plans fell back to the shipped prices"
        assert after.as_of in (TODAY, TODAY + dt.timedelta(1)), step
        update_catalog(str(FIXTURES), base=base, today=TODAY + dt.timedelta(2))
        assert _fresh().origin.as_of == TODAY + dt.timedelta(2), step
        assert (base / store.IMPORTED).is_symlink(), step
        assert not os.path.lexists(base / store.UPGRADING), step
        assert not [path.name for path in base.iterdir() if path.name.endswith(".tmp")], step


def test_a_stopped_upgrade_is_read_through_its_pointer(catalog_home):
    """The state a kill between moving the old directory aside and swapping the pointer in leaves."""
    steps = _steps(catalog_home)
    moved = next(i for i, step in enumerate(steps) if step.startswith("rename imported "))
    base = catalog_home()
    with pytest.raises(KeyboardInterrupt), Faults(moved + 1, KeyboardInterrupt()):
        update_catalog(str(FIXTURES), base=base, today=TODAY + dt.timedelta(1))
    assert not os.path.lexists(base / store.IMPORTED) and (base / store.UPGRADING).is_symlink()
    assert _fresh().origin.as_of == TODAY + dt.timedelta(1)
    assert store.imported_dir(base) == base / store.UPGRADING


def test_a_kill_at_the_pointer_rename_of_the_upgrade_keeps_an_import(catalog_home, monkeypatch):
    """The reproduction of issue 36 item 9: the older layout, a kill at the rename that puts `imported` in place."""
    base = catalog_home()
    real = os.replace

    def killed(source, target, *args, **kwargs):
        if Path(target).name == store.IMPORTED:
            raise KeyboardInterrupt
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        update_catalog(str(FIXTURES), base=base, today=TODAY + dt.timedelta(1))
    monkeypatch.setattr(os, "replace", real)
    assert _fresh().origin.kind == "imported"
