"""The ``abw`` command line: a thin layer that parses, calls the library and maps exit codes.

Subcommands live in their own modules and are imported only when run, so ``abw --help`` loads
neither pydantic schemas nor numpy, jinja2, PyGithub or torch.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

import click

from abw import __version__

if TYPE_CHECKING:
    from abw.errors import AbwInputError

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


class RootGroup(click.Group):
    """The group a run starts from (``abw``, ``abw-latent``): an OSError from a command
    escapes click's own handler (which turns a closed pipe into exit 1), naming the output
    option it happened on (:func:`abw.cli.options.output_error`)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as exc:
            from abw.cli.options import output_error

            raise _Escaped(str(exc)) from output_error(exc, ctx)


class LazyGroup(RootGroup):
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
    """Run a click command; every failure is one line on stderr (abw.faults): exit code 2, or
    the verdict's exit code when the command had reached one."""
    from abw import faults, progress

    faults.reset()
    try:
        result: Any = command.main(args=args, prog_name=prog_name, standalone_mode=False)
    except click.exceptions.Abort:
        progress.erase()
        click.echo(f"{prog_name}: aborted", err=True)
        return faults.exit_code(KeyboardInterrupt())
    except _NO_ARGS_IS_HELP as exc:  # a bare group (``abw spec``): its help, as click has it
        exc.show()
        return 2
    except click.ClickException as exc:  # a usage error: one line, as any bad input
        where = exc.ctx.command_path if isinstance(exc, click.UsageError) and exc.ctx else None
        where = where or _command_path(command, sys.argv[1:] if args is None else args, prog_name)
        return faults.report(usage_error(exc), where)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except faults.Terminated:  # after a verdict, its exit code stands (abw.faults)
        progress.erase()
        click.echo(f"{prog_name}: terminated", err=True)
        reached = faults.reached()
        return 143 if reached is None else reached
    except _Escaped as escaped:
        return faults.report(escaped.__cause__ or escaped, prog_name)
    except SystemExit as exc:  # click's own handling of a closed pipe exits 1
        code = exc.code if isinstance(exc.code, int) else 2
        return faults.exit_code(exc) if code == 1 else code
    except KeyboardInterrupt:
        return faults.exit_code(KeyboardInterrupt())
    except Exception as exc:  # never a traceback for a user; ABW_DEBUG=1 shows it
        if os.environ.get("ABW_DEBUG") and not isinstance(exc, OSError):
            raise
        return faults.report(exc, prog_name)
    return result if isinstance(result, int) else 0


class _Escaped(Exception):
    """Carries an OSError past click's own handler (which turns a closed pipe into exit 1)."""


_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2


def _command_path(command: click.Command, args: list[str], prog_name: str) -> str:
    """``abw import claude``: the command the leading words of ``args`` name (for the errors
    click's parser raises without its context, e.g. ``--out`` given no value)."""
    words = [prog_name]
    ctx = click.Context(command, info_name=prog_name)
    for word in args:
        try:
            sub = command.get_command(ctx, word) if isinstance(command, click.Group) else None
        except Exception:  # a broken importer plugin: name the command as far as it goes
            sub = None
        if sub is None:
            break
        words.append(word)
        command, ctx = sub, click.Context(sub, parent=ctx, info_name=word)
    return " ".join(words)


def usage_error(exc: click.ClickException) -> AbwInputError:
    """A click error as an :class:`~abw.errors.AbwInputError`: the option or argument it
    names as the field (``--workers``), what is wrong as the message (``0 is not in the range
    x>=1``), without click's ``Usage:``/``Try`` lines."""
    from abw.cli.options import option_name
    from abw.errors import AbwInputError

    field: str | None = None
    message = exc.message if isinstance(exc, click.BadParameter) else exc.format_message()
    if isinstance(exc, click.BadParameter):
        if exc.param_hint is not None:
            hint = exc.param_hint
            field = hint if isinstance(hint, str) else " / ".join(hint)
        elif exc.param is not None:
            field = option_name(exc.param)
        if isinstance(exc, click.MissingParameter):
            kind = exc.param_type or (exc.param.param_type_name if exc.param else "parameter")
            message = f"missing {kind}" + (f" ({exc.message})" if exc.message else "")
    elif isinstance(exc, click.NoSuchOption):
        field, message = exc.option_name, "no such option"
        if exc.possibilities:
            message += f" (did you mean {', '.join(sorted(exc.possibilities))}?)"
    elif isinstance(exc, click.BadOptionUsage):
        field = exc.option_name
        message = exc.message.removeprefix(f"Option {exc.option_name!r} ")
    message = message.strip().removesuffix(".")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    return AbwInputError(message or "invalid usage", field=field)


def _terminate(signum: int, frame: Any) -> None:
    from abw.faults import Terminated

    raise Terminated


def _exit(code: int, prog_name: str) -> None:
    """End the process with ``code`` (or a late stdout failure's), the command's work done.

    When no other thread is left, the exit handlers run and the process ends without the
    interpreter's teardown, which would first free every object one by one (50-70 ms after a
    gate over 2,200 runs; docs/performance.md). Files are written and closed by then (abw
    never leaves one to be closed at exit). With a thread still running, the ordinary exit
    waits for it."""
    import atexit
    import contextlib
    import threading

    from abw.faults import flush_stdout

    alone = threading.active_count() == 1
    if alone:
        atexit._run_exitfuncs()  # what the interpreter would run at exit, in its order
    late = flush_stdout(prog_name)
    code = code if late is None or code != 0 else late
    if not alone:
        sys.exit(code)
    with contextlib.suppress(OSError, ValueError):  # (nowhere left to say so)
        sys.stderr.flush()
    os._exit(code)


def main() -> None:
    from abw.faults import open_standard_streams

    open_standard_streams()
    signal.signal(signal.SIGTERM, _terminate)
    _exit(run(cli), "abw")


def latent_main() -> None:
    """``abw-latent``: the same as ``abw latent``."""
    from abw.faults import open_standard_streams

    open_standard_streams()
    module, attribute, _ = COMMANDS["latent"]
    signal.signal(signal.SIGTERM, _terminate)
    command = getattr(importlib.import_module(module), attribute)
    _exit(run(command, prog_name="abw-latent"), "abw-latent")
