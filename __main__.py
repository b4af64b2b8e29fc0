"""The Pulumi program (`pulumi preview/up`): stack config -> spec -> plan -> components."""

from pathlib import Path

from components.program import run

run(Path(__file__).parent)
