"""The marginal cost of owned (bare-metal) servers: their power. Owned servers are a sunk cost; what running them
adds is electricity, at the stated price and PUE. Stated in every bare-metal plan, and the same figure the preview
prices an owned server with. Pure."""

from __future__ import annotations

ONPREM_USD_PER_KWH = 0.12
ONPREM_PUE = 1.4
ONPREM_HOST_POWER_FACTOR = 1.5  # CPUs, memory, NICs and fans on top of the GPUs' board power
DEFAULT_BOARD_POWER_W = 700.0  # an accelerator row without a board power: an H100 SXM's


def onprem_unit_hourly_usd(offer_gpu_power_w: float | None, gpus_per_server: int) -> float:
    """Marginal hourly cost of an owned server: its power, at the stated electricity price and PUE."""
    board_w = offer_gpu_power_w or DEFAULT_BOARD_POWER_W
    kilowatts = board_w * gpus_per_server * ONPREM_HOST_POWER_FACTOR / 1000.0
    return kilowatts * ONPREM_PUE * ONPREM_USD_PER_KWH
