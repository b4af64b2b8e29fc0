"""Plain aligned text tables and GitHub-flavoured markdown tables, with no dependency beyond the standard library.

Cells are converted with `str()`, `None` shows as "-". A column is right-aligned when every non-empty cell in
it is a number (int/float, or a string that parses as one, "1,234.5" and a trailing footnote mark "*" allowed),
so prices and counts line up on their digits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Align = str  # "l" or "r"


def render_table(headers: Sequence[str], rows: Iterable[Sequence[object]],
                 align: Sequence[Align] | None = None, gap: int = 2) -> str:
    """Columns padded to their widest cell, a dashed rule under the headers; no trailing spaces."""
    cells = _cells(headers, rows)
    aligns = align or _auto_align(cells, len(headers))
    widths = [max(len(row[i]) for row in [list(headers), *cells]) for i in range(len(headers))]
    lines = [_line(headers, widths, ["l"] * len(headers), gap),
             (" " * gap).join("-" * width for width in widths)]
    lines += [_line(row, widths, aligns, gap) for row in cells]
    return "\n".join(lines)


def render_markdown_table(headers: Sequence[str], rows: Iterable[Sequence[object]],
                          align: Sequence[Align] | None = None) -> str:
    """A markdown table; '|' inside cells is escaped so a cell can never split a row."""
    cells = _cells(headers, rows)
    aligns = align or _auto_align(cells, len(headers))
    rule = ["---:" if a == "r" else "---" for a in aligns]
    out = [_md_row(headers), _md_row(rule)]
    out += [_md_row(row) for row in cells]
    return "\n".join(out)


def _cells(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> list[list[str]]:
    cells = [["-" if cell is None else str(cell) for cell in row] for row in rows]
    for index, row in enumerate(cells):
        if len(row) != len(headers):
            raise ValueError(f"row {index} has {len(row)} cells for {len(headers)} headers")
    return cells


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("*†"))  # a trailing footnote mark keeps a number a number
    except ValueError:
        return False
    return True


def _auto_align(cells: list[list[str]], width: int) -> list[Align]:
    if not cells:
        return ["l"] * width
    columns = zip(*cells, strict=False)  # rows may be ragged
    return ["r" if all(_is_number(c) for c in column if c not in ("", "-")) and any(c not in ("", "-") for c in column)
            else "l" for column in columns]


def _line(row: Sequence[str], widths: Sequence[int], aligns: Sequence[Align], gap: int) -> str:
    parts = [cell.rjust(width) if a == "r" else cell.ljust(width)
             for cell, width, a in zip(row, widths, aligns, strict=False)]
    return (" " * gap).join(parts).rstrip()


def _md_row(row: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
