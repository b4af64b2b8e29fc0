"""Pure renderers for reports: data in, text out (tables, markdown, JSON documents). No printing here."""

from accelfit.reports.table import render_markdown_table, render_table

__all__ = ["render_markdown_table", "render_table"]
