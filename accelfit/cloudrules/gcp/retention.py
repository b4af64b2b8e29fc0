"""How long a checkpoint's bytes live in the data bucket, as numbers the bucket's rules and the plan check
share. Pure; no Pulumi import.

Sources: https://cloud.google.com/storage/docs/soft-delete (default 7 days; 7-90 days, or 0 to disable),
https://cloud.google.com/storage/docs/lifecycle (a rule may take up to 24 hours to act).
"""

from __future__ import annotations

SOFT_DELETE_DAYS = 7
"""Soft delete keeps deleted objects (datasets too) this long: GCS's default, kept for the datasets' sake."""
NONCURRENT_CHECKPOINT_DAYS = 1
"""A replaced checkpoint version is kept one day (the smallest days_since_noncurrent_time that acts)."""
LIFECYCLE_LAG_DAYS = 1
"""Cloud Storage may take up to 24 hours to act on a lifecycle rule."""
BYTES_OUTLIVE_DELETION_DAYS = NONCURRENT_CHECKPOINT_DAYS + SOFT_DELETE_DAYS + 2 * LIFECYCLE_LAG_DAYS


def live_checkpoint_days(retention_days: int) -> int:
    """Age at which a live checkpoint is deleted so that its bytes are gone within `retention_days`."""
    return retention_days - BYTES_OUTLIVE_DELETION_DAYS


def retention_problem(retention_days: int) -> tuple[str, str] | None:
    """(what is wrong, the fix) when no live age can keep a checkpoint's bytes within `retention_days`."""
    shortest = BYTES_OUTLIVE_DELETION_DAYS + 1
    if retention_days >= shortest:
        return None
    return (f"a checkpoint's bytes outlive its deletion by up to {BYTES_OUTLIVE_DELETION_DAYS} days "
            f"({SOFT_DELETE_DAYS} days of soft delete, {NONCURRENT_CHECKPOINT_DAYS} of the replaced version, "
            "lifecycle lag)", f"keep checkpoints for {shortest} days or more")
