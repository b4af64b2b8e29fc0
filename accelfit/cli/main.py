"""Entry point of the `accelfit` command: the command group and the exit-code contract.

Exit codes (design.md section 7): 0 fine; 1 a mandatory policy violation or no feasible plan; 2 invalid input,
reported as messages that name the file, the field and the fix, never as a traceback.
"""

from __future__ import annotations

import sys

import click

from accelfit.errors import EXIT_INVALID_INPUT, InputError


class AccelfitGroup(click.Group):
    """Turns our input errors into exit code 2 with readable messages, for every command."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except InputError as error:
            for line in error.lines():
                click.echo(f"error: {line}", err=True)
            ctx.exit(EXIT_INVALID_INPUT)


@click.group(cls=AccelfitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="accelfit")
def cli() -> None:
    """Plan, price and provision GPU and TPU infrastructure on Pulumi."""


def _register() -> None:
    from accelfit.cli.calibrate_command import calibrate
    from accelfit.cli.catalog_command import catalog
    from accelfit.cli.check_command import check
    from accelfit.cli.cost_command import cost
    from accelfit.cli.diff_command import diff
    from accelfit.cli.lock_command import lock
    from accelfit.cli.plan_command import plan
    from accelfit.cli.preflight_command import preflight
    from accelfit.cli.preview_command import preview
    from accelfit.cli.schema_command import schema
    from accelfit.cli.simulate_command import simulate

    for command in (calibrate, catalog, check, cost, diff, lock, plan, preflight, preview, schema, simulate):
        cli.add_command(command)


_register()


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
    other callers use main(), which leaves the collector alone."""
    import gc

    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
