"""The ``abw`` command line: a thin layer that parses, calls the library and maps exit codes.

Subcommands live in their own modules and are imported only when run, so ``abw --help`` loads
neither pydantic schemas nor numpy, jinja2, PyGithub or torch.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from abw import __version__

# name -> (module, attribute, one-line help shown by ``abw --help``)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "import": ("abw.cli.import_cmd", "import_group", "Import raw agent exports into traces."),
    "validate": ("abw.cli.validate_cmd", "validate", "Check files against the five schemas."),
    "spec": ("abw.cli.spec_cmd", "spec", "Create a behavior spec from baseline traces."),
    "diff": ("abw.cli.diff_cmd", "diff_command", "Compare candidate paths with the baseline."),
    "gate": (
        "abw.cli.gate_cmd",
        "gate_command",
        "Gate a candidate set: PASS/WARN/FAIL/INCONCLUSIVE.",
    ),
    "sample": (
        "abw.cli.sample_cmd",
        "sample_command",
        "Run the agent until each scenario's verdict is decided.",
    ),
    "explain": ("abw.cli.explain_cmd", "explain", "Explain one check of a gate report."),
    "report": (
        "abw.cli.report_cmd",
        "report",
        "Render a gate report as HTML/Markdown/SARIF/JUnit.",
    ),
    "demo": ("abw.cli.demo_cmd", "demo", "Run the refund-policy example end to end."),
    "contract": ("abw.cli.contract_cmd", "contract", "Compile formal behavior contracts."),
    "fingerprint": ("abw.cli.fingerprint_cmd", "fingerprint", "Stable hash of a trace's behavior."),
    "verify-report": ("abw.cli.verify_cmd", "verify_report", "Check a report against its inputs."),
    "serve": ("abw.cli.serve_cmd", "serve", "Serve abw as an MCP server over stdio."),
    "latent": (
        "abw.cli.latent_cmd",
        "latent",
        "Hidden-state trajectories (needs the latent extra).",
    ),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module, attribute, _ = entry
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="abw")
def cli() -> None:
    """abw — gate AI agents on their behavior, not only their output.

    Exit codes: 0 PASS or WARN, 1 FAIL, 3 INCONCLUSIVE, 2 invalid input or usage.
    """


def run(command: click.Command, args: list[str] | None = None, prog_name: str = "abw") -> int:
    """Run a click command; bad input becomes one line on stderr and exit code 2."""
    from abw.errors import AbwInputError

    try:
        result: Any = command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except AbwInputError as exc:
        from abw.text import log_line

        click.echo(log_line(f"{prog_name}: error: {exc.one_line()}"), err=True)
        return 2
    except click.exceptions.Abort:
        click.echo(f"{prog_name}: aborted", err=True)
        return 2
    except click.ClickException as exc:
        exc.show()
        return 2 if exc.exit_code == 1 else exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (BrokenPipeError, KeyboardInterrupt):
        return 2
    except Exception as exc:  # never a traceback for a user; ABW_DEBUG=1 shows it
        if os.environ.get("ABW_DEBUG"):
            raise
        from abw.text import log_line

        reason = " ".join(str(exc).split()) or type(exc).__name__
        click.echo(
            log_line(f"{prog_name}: internal error: {reason} (set ABW_DEBUG=1 for details)"),
            err=True,
        )
        return 2
    return result if isinstance(result, int) else 0


def main() -> None:
    sys.exit(run(cli))


def latent_main() -> None:
    """``abw-latent``: the same as ``abw latent``."""
    module, attribute, _ = COMMANDS["latent"]
    sys.exit(run(getattr(importlib.import_module(module), attribute), prog_name="abw-latent"))
