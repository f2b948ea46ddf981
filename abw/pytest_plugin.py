"""pytest-abw: gate the agent runs a test produces, and fail the test with the gate's reasons.

Registered through the ``pytest11`` entry point, so installing abw is enough::

    @pytest.mark.abw(baseline="traces/baseline", spec="behavior.yaml")
    def test_refund_agent(abw_gate):
        traces = [run_agent_and_import(ticket) for ticket in TICKETS]   # Trace objects
        abw_gate(traces)             # FAIL (or INCONCLUSIVE) -> the test fails, with evidence

``abw_gate(candidate, *, baseline=None, spec=None, fail_on=None, allow_inconclusive=None)``
takes Trace objects, TraceFiles, or a folder/file of trace JSON; ``baseline`` and ``spec``
default to the marker's arguments, then to ``--abw-baseline``/``--abw-spec`` (or the ini keys
``abw_baseline``/``abw_spec``). Relative paths are read from the test file's folder first, then
from the rootdir. It returns the :class:`~abw.models.report.GateReport` when the gate lets the
test pass. Verdicts map like the CLI: FAIL fails; INCONCLUSIVE fails unless allowed; WARN fails
only with ``fail_on="warn"``. ``abw_gate.report(...)`` runs the gate without failing.

This module imports only pytest at load time (abw is imported when the fixture is used), so it
can never slow down or break the start of a pytest run.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

_FAIL_ON = ("fail", "warn")


class AbwInputWarning(UserWarning):
    """An input to ``abw_gate`` that looks wrong (the report's ``input_warnings``: the
    candidate is the baseline itself, a mix of agent versions...): it never changes the
    verdict, and pytest lists it in its warnings summary."""


class _Refused(Exception):
    """Bad input to ``abw_gate`` that abw's loaders never see (a setting missing or of the
    wrong type): failed as one line, like an AbwInputError."""

    def one_line(self) -> str:
        return " ".join(str(self).split())


@contextlib.contextmanager
def _naming(role: str, *, reading: bool = True) -> Iterator[None]:
    """An OSError on ``role``'s paths (a name over 255 bytes, a file where a folder goes, a
    permission) as abw's one-line error naming the file and ``role``."""
    from abw.errors import os_input_error

    try:
        yield
    except OSError as exc:
        raise os_input_error(exc, reading=reading, field=role) from None


def _fail(problem: str) -> None:
    """Fail the test with ``problem`` as its one line, no traceback; a line safe for a CI log
    (:func:`abw.text.log_line`: it names files and spec keys, which are not to be trusted)."""
    from abw.text import log_line

    prefix = "" if problem.startswith("abw_gate") else "abw_gate: "
    pytest.fail(log_line(f"{prefix}{problem}"), pytrace=False)


def _kind(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("abw", "abw behavior gate")
    group.addoption("--abw-baseline", default=None, help="Baseline traces for abw_gate.")
    group.addoption("--abw-spec", default=None, help="behavior-spec/v0 file for abw_gate.")
    group.addoption(
        "--abw-report-dir",
        default=None,
        help="Write each abw_gate report (gate-report.json) under this folder.",
    )
    parser.addini("abw_baseline", "Baseline traces for abw_gate.", default="")
    parser.addini("abw_spec", "behavior-spec/v0 file for abw_gate.", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "abw(baseline=None, spec=None, fail_on='fail', allow_inconclusive=False): "
        "defaults for the abw_gate fixture in this test",
    )


class AbwGate:
    """The ``abw_gate`` fixture: call it with the candidate runs of this test."""

    def __init__(self, request: pytest.FixtureRequest, workdir: Path) -> None:
        self._request = request
        self._workdir = workdir
        self._calls = 0
        marker = request.node.get_closest_marker("abw")
        self._marker: dict[str, Any] = dict(marker.kwargs) if marker else {}
        if marker and marker.args:
            self._marker.setdefault("baseline", marker.args[0])
            if len(marker.args) > 1:
                self._marker.setdefault("spec", marker.args[1])

    # --------------------------------------------------------------- resolving inputs

    def _setting(self, name: str, given: Any) -> Any:
        if given is not None:
            return given
        if self._marker.get(name) is not None:
            return self._marker[name]
        config = self._request.config
        option = config.getoption(f"--abw-{name}", default=None)
        if option:
            return option
        value = config.getini(f"abw_{name}") if name in ("baseline", "spec") else ""
        return value or None

    def _path(self, value: str | os.PathLike, role: str) -> Path:
        from abw.pathtext import check_paths

        check_paths(**{role: value})  # (an empty one is the working folder)
        path = Path(value)
        if path.is_absolute():
            return path
        here = Path(str(self._request.node.path)).parent / path
        return here if here.exists() else Path(str(self._request.config.rootpath)) / path

    def _trace_files(self, value: Any, role: str) -> list[Any]:
        from abw.models.trace import Trace
        from abw.traceio import TraceFile, load_traces

        if value is None:
            raise _Refused(
                f"abw_gate needs {role} traces: pass {role}=..., use "
                f"@pytest.mark.abw({role}=...) or --abw-{role}"
            )
        wanted = "Trace objects, TraceFiles or paths of trace JSON (a folder or a file)"
        if isinstance(value, str | os.PathLike):
            with _naming(role):
                return load_traces(self._path(value, role))
        if isinstance(value, Mapping | bytes | bytearray) or not (
            isinstance(value, Trace | TraceFile) or hasattr(value, "__iter__")
        ):
            raise _Refused(f"{role}: {_kind(value)} given; abw_gate takes {wanted}")
        items = [value] if isinstance(value, Trace | TraceFile) else list(value)
        with _naming(role):
            return self._item_files(items, role, wanted)

    def _item_files(self, items: list[Any], role: str, wanted: str) -> list[Any]:
        from abw.models.trace import Trace
        from abw.traceio import TraceFile, load_traces, write_trace

        files: list[Any] = []
        folder = self._workdir / f"{role}-{self._calls}"
        for index, item in enumerate(items):
            if isinstance(item, TraceFile):
                files.append(item)
            elif isinstance(item, Trace):
                path = folder / f"{index:04d}-{_safe(item.run.trace_id)}.json"
                write_trace(item, path)
                files.extend(load_traces(path))
            elif isinstance(item, str | os.PathLike):
                files.extend(load_traces(self._path(item, f"{role}[{index}]")))
            else:
                raise _Refused(f"{role}[{index}]: {_kind(item)} given; abw_gate takes {wanted}")
        return files

    def _spec(self, value: Any) -> tuple[Any, str, str]:
        from abw.hashing import content_hash
        from abw.models.spec import Spec
        from abw.specio import load_spec

        if value is None:
            raise _Refused(
                "abw_gate needs a spec: pass spec=..., use @pytest.mark.abw(spec=...) or --abw-spec"
            )
        if isinstance(value, Spec):
            return value, "<in-memory spec>", content_hash(value.model_dump(mode="json"))
        if not isinstance(value, str | os.PathLike):
            raise _Refused(f"spec: {_kind(value)} given; abw_gate takes a Spec or a spec file")
        with _naming("spec"):
            path = self._path(value, "spec")
            spec, sha256 = load_spec(path)
        return spec, str(path), sha256

    # --------------------------------------------------------------- running

    def report(self, candidate: Any, *, baseline: Any = None, spec: Any = None) -> Any:
        """Run the gate and return its GateReport, whatever the verdict; bad input fails the
        test with abw's one-line message."""
        from abw.errors import AbwInputError

        self._calls += 1
        problem = None
        try:
            result = self._gate(candidate, baseline, spec)
            self._save(result)
        except (AbwInputError, _Refused) as exc:  # failed outside this block: no traceback
            problem = exc.one_line()
        if problem is not None:
            _fail(problem)
        return result

    def _gate(self, candidate: Any, baseline: Any, spec: Any) -> Any:
        from abw.gating import gate

        baseline_files = self._trace_files(self._setting("baseline", baseline), "baseline")
        candidate_files = self._trace_files(candidate, "candidate")
        loaded, spec_file, spec_sha256 = self._spec(self._setting("spec", spec))
        return gate(
            baseline_files, candidate_files, loaded, spec_file=spec_file, spec_sha256=spec_sha256
        )

    def __call__(
        self,
        candidate: Any,
        *,
        baseline: Any = None,
        spec: Any = None,
        fail_on: str | None = None,
        allow_inconclusive: bool | None = None,
    ) -> Any:
        """Gate the candidate runs; fail the test with the gate's explanation unless it passes."""
        from abw.verdicts import exit_code

        problem = None
        try:
            fail_on, allow = self._verdict_settings(fail_on, allow_inconclusive)
        except _Refused as exc:  # failed outside this block: no traceback
            problem = exc.one_line()
        if problem is not None:
            _fail(problem)
        result = self.report(candidate, baseline=baseline, spec=spec)
        for warning in result.input_warnings:  # (shown in pytest's warnings summary)
            from abw.text import log_line

            warnings.warn(AbwInputWarning(log_line(warning.message)), stacklevel=2)
        if exit_code(result.verdict, fail_on_warn=fail_on == "warn", allow_inconclusive=allow):
            pytest.fail(explain_report(result), pytrace=False)
        return result

    def _verdict_settings(self, fail_on: Any, allow_inconclusive: Any) -> tuple[str, bool]:
        """``fail_on`` and ``allow_inconclusive`` from the call, else the marker: refused
        unless ``'fail'``/``'warn'`` and a bool (``allow_inconclusive="no"`` is no yes)."""
        where = "the call's"
        if fail_on is None:
            fail_on, where = self._marker.get("fail_on"), "the abw marker's"
        if fail_on is None:
            fail_on = "fail"
        if fail_on not in _FAIL_ON:
            raise _Refused(f"{where} fail_on must be 'fail' or 'warn', not {fail_on!r}")
        where = "the call's"
        if allow_inconclusive is None:
            allow_inconclusive = self._marker.get("allow_inconclusive")
            where = "the abw marker's"
        if allow_inconclusive is None:
            allow_inconclusive = False
        if not isinstance(allow_inconclusive, bool):
            raise _Refused(
                f"{where} allow_inconclusive must be True or False, not {allow_inconclusive!r}"
            )
        return fail_on, allow_inconclusive

    def _save(self, result: Any) -> None:
        folder = self._request.config.getoption("--abw-report-dir", default=None)
        if not folder:
            return
        from abw.atomic import write_atomic
        from abw.gating import report_json

        name = _report_folder(self._request.node.nodeid)
        with _naming("--abw-report-dir", reading=False):
            write_atomic(
                Path(folder) / name / f"gate-report-{self._calls}.json", report_json(result)
            )


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:120]


def _report_folder(nodeid: str) -> str:
    """A folder name of its own per test: the readable test id, and a digest of the whole id,
    which tells apart ids that differ only where :func:`_safe` replaces or cuts (``[a/b]`` and
    ``[a_b]``; long parametrized ids)."""
    import hashlib

    digest = hashlib.sha256(nodeid.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{_safe(nodeid)[:100]}-{digest}"


def explain_report(report: Any, max_violations: int = 10) -> str:
    """The gate's reasons as plain text: the verdict, each check that did not pass, and the
    violating runs and spans (trace id, file, line, ordinal)."""
    from abw.render.common import fold_numbers
    from abw.text import plural

    lines = [f"abw gate verdict: {report.verdict}", f"  {report.summary}"]
    lines += [f"  input warning: {warning.message}" for warning in report.input_warnings]
    for check in report.checks:
        if check.verdict == "PASS":
            continue
        lines.append(f"[{check.verdict}] {check.id}: {check.message}")
        for violation in check.violations[:max_violations]:
            spans = (
                f"ordinals {fold_numbers(violation.span_ordinals)}"
                + (f" (lines {fold_numbers(violation.span_lines)})" if violation.span_lines else "")
                if violation.span_ordinals
                else ""
            )
            where = f"{violation.trace_file}" + (f": {spans}" if spans else "")
            lines.append(f"    - {violation.trace_id}: {violation.message} [{where}]")
        hidden = len(check.violations) - max_violations
        if hidden > 0:
            lines.append(f"    ... {plural(hidden, 'more violation')}")
    from abw.text import log_line

    return "\n".join(log_line(line) for line in lines)


@pytest.fixture
def abw_gate(request: pytest.FixtureRequest, tmp_path: Path) -> AbwGate:
    """Gate candidate traces produced in this test against a baseline under a behavior spec."""
    return AbwGate(request, tmp_path / "abw")
