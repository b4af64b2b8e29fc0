"""A utilization curve for `accelfit tco --utilization`: a constant fraction, comma-separated monthly fractions, or
a CSV file with one figure per month (the last column; a header row is skipped). Each figure is the share of the
month the accelerators are busy, 0 to 1."""

from __future__ import annotations

import csv
from pathlib import Path

from accelfit.errors import InputError, problem

FLAG = "--utilization"
FIX = ("give a fraction of the month from 0 to 1 (60% is 0.6), comma-separated monthly fractions (0.2,0.5,0.9), "
       "or a .csv file with one fraction per month")


def _fraction(text: str, where: str | None) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise InputError([problem(where, FLAG, f"{text.strip()!r} is not a number", FIX)]) from None
    if not 0.0 <= value <= 1.0:
        raise InputError([problem(where, FLAG, f"{value:g} is outside 0 to 1", FIX)])
    return value


def _from_csv(path: Path) -> list[str]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    except (OSError, UnicodeDecodeError) as error:
        raise InputError([problem(str(path), FLAG, f"could not read the curve ({error})", FIX)]) from None
    cells = [row[-1] for row in rows]
    if cells and not cells[0].strip().replace(".", "", 1).isdigit():
        cells = cells[1:]  # a header row
    return cells


def parse_curve(text: str, months: int | None) -> tuple[float, ...]:
    """The monthly utilization over the horizon: a constant lasts `months` (36 when not given); a list or a CSV
    sets the horizon itself, and `months`, when given, must match it."""
    path = Path(text)
    where = str(path) if text.lower().endswith(".csv") else None
    cells = _from_csv(path) if where else text.split(",")
    if not cells or not any(cell.strip() for cell in cells):
        raise InputError([problem(where, FLAG, "no figures", FIX)])
    figures = [_fraction(cell, where) for cell in cells]
    if len(figures) == 1 and where is None:
        return tuple(figures * (months or 36))
    if months is not None and months != len(figures):
        raise InputError([problem(where, "--months", f"{months} months, but the curve has {len(figures)} figures",
                                  "drop --months (the curve sets the horizon) or give one figure per month")])
    return tuple(figures)
