"""Entry point of the `accelfit` command: the command group and the exit-code contract.

Exit codes (design.md section 7): 0 fine; 1 a mandatory policy violation or no feasible plan; 2 invalid input,
reported as messages that name the file, the field and the fix, never as a traceback.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from accelfit.errors import EXIT_INVALID_INPUT, InputError


# Each command lives in the module named here, under a function of the command's name. A command is imported when
# it runs (or when help lists them all), so `accelfit plan` never pays for importing preview, diff or preflight.
_COMMAND_MODULES = {
    "calibrate": "accelfit.cli.calibrate_command",
    "catalog": "accelfit.cli.catalog_command",
    "check": "accelfit.cli.check_command",
    "cost": "accelfit.cli.cost_command",
    "diff": "accelfit.cli.diff_command",
    "env": "accelfit.cli.env_command",
    "ephemeral": "accelfit.cli.ephemeral_command",
    "lock": "accelfit.cli.lock_command",
    "plan": "accelfit.cli.plan_command",
    "preflight": "accelfit.cli.preflight_command",
    "preview": "accelfit.cli.preview_command",
    "schema": "accelfit.cli.schema_command",
    "simulate": "accelfit.cli.simulate_command",
    "tco": "accelfit.cli.tco_command",
}


class AccelfitGroup(click.Group):
    """Turns our input errors into exit code 2 with readable messages, for every command; imports each command only
    when it is used."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as error:
            for line in error.lines():
                click.echo(f"error: {line}", err=True)
            ctx.exit(EXIT_INVALID_INPUT)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            # An unknown name loads every command, so that click's error can suggest the closest one.
            for name in [cmd_name] if cmd_name in _COMMAND_MODULES else list(_COMMAND_MODULES):
                self._load(name)
        return self.commands.get(cmd_name)

    def _load(self, name: str) -> None:
        if name not in self.commands:
            import importlib

            self.add_command(getattr(importlib.import_module(_COMMAND_MODULES[name]), name))


@click.group(cls=AccelfitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="accelfit")
def cli() -> None:
    """Plan, price and provision GPU and TPU infrastructure on Pulumi."""


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point; returns the exit code instead of raising SystemExit."""
    try:
        # Outside standalone mode click returns the code given to ctx.exit() instead of raising it.
        code = cli.main(args=argv, prog_name="accelfit", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return EXIT_INVALID_INPUT
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    return code if isinstance(code, int) else 0


def run() -> None:
    """The `accelfit` console script: main() once, then exit.

    At exit the interpreter runs a full cyclic collection over every object still alive, which for a command that
    imported the planner's and the catalog's models (thousands of schema objects) costs a quarter of a plan's CPU
    time; nothing that collection would find needs finalizing (files are closed and written atomically where they
    are used), so the survivors are moved out of its view (`gc.freeze`) and are freed with the process. Tests and
    other callers use main(), which leaves the collector alone.

    While the command runs, a young collection waits for 200,000 new objects instead of 700, as mypy's build does
    (python/mypy, mypy/build.py: "otherwise we can spend a large fraction of cpu in gc"): importing the planner's,
    the spec's and the catalog's models makes some 100,000 objects that live as long as the process, and the ~100
    collections they triggered found nothing to free and cost a plan about 10 ms (benchmarks/bench_plan_cli.py).
    Cyclic garbage is still collected, in larger batches."""
    import gc

    gc.set_threshold(200_000, 30, 30)
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
