"""Durations and money as people read them."""

from __future__ import annotations


def duration(hours: float) -> str:
    if hours * 60 < 0.5:
        return "under a minute"
    if hours < 1:
        return f"{hours * 60:.0f} min"
    if hours < 48:
        return f"{hours:.1f} h"
    return f"{hours / 24:.1f} days"


def usd(amount: float) -> str:
    return f"${amount:,.0f}" if abs(amount) >= 100 else f"${amount:,.2f}"
