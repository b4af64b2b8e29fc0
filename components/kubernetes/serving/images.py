"""Model-server images (data/serving_images.yaml): pinned by digest where one is recorded. Pure: no Pulumi import."""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from accelfit.yamlio import read_package_yaml

IMAGES_FILE = Path(__file__).parents[1] / "data" / "serving_images.yaml"


class ServerImage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    tag: str = Field(pattern=r"^v[0-9][0-9A-Za-z.+-]*$")
    digest: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{64}$")
    digest_verified: bool = False
    as_of: dt.date
    source: str = Field(min_length=10)

    @property
    def reference(self) -> str:
        """repository:tag@digest when a digest is recorded (the digest decides what is pulled), else the tag."""
        return f"{self.repository}:{self.tag}@{self.digest}" if self.digest else f"{self.repository}:{self.tag}"


@functools.cache
def server_images() -> dict[str, ServerImage]:
    data = read_package_yaml(IMAGES_FILE)
    return {key: ServerImage.model_validate(value) for key, value in data["images"].items()}


def server_image(key: str) -> ServerImage:
    """The image recorded under `key` (an engine's image for one accelerator kind: accelfit.engines)."""
    return server_images()[key]
