"""Bad input on abw's plugin surfaces is one clear line, never a traceback or "internal error":
a third-party importer (``abw.importers`` entry point) that raises or returns no list of traces
(``abw import``, the Dask worker side, the adapter kit), bad ``abw_gate`` settings and paths in
the pytest plugin, and MCP tool arguments that fail the SDK's validation or name a path the
operating system refuses."""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys

import pytest

from tests.conftest import REPO

pytest_plugins = ("pytester",)

REFUND = REPO / "examples" / "refund-policy"
LONG = "/" + "a" * 300 + "/x"  # a path component over 255 bytes: ENAMETOOLONG
PLUGIN_MODULE = "abw_test_broken_importers"
PLUGIN_SOURCE = """
from abw.importers.base import Importer


class _Base(Importer):
    platform = "example_agent"
    export_format = "steps-jsonl"
    help = "a broken test importer"
    suffixes = (".jsonl",)


class Raiser(_Base):
    name = "bp-raise"

    def import_file(self, path, options):
        raise KeyError("name")


class ReturnsNone(_Base):
    name = "bp-none"

    def import_file(self, path, options):
        return None


class ReturnsDicts(_Base):
    name = "bp-dicts"

    def import_file(self, path, options):
        return [{"schema_version": "agent-behavior-trace/v0"}]


class ReturnsStr(_Base):
    name = "bp-str"

    def import_file(self, path, options):
        return "trace"
"""
PLUGINS = {
    "bp-raise": ("Raiser", "failed: KeyError: 'name'"),
    "bp-none": ("ReturnsNone", "returned None, not a list of traces"),
    "bp-dicts": ("ReturnsDicts", "returned a list holding a dict at [0], not a Trace"),
    "bp-str": ("ReturnsStr", "returned a str, not a list of traces"),
}


def _one_error(err: str) -> str:
    assert err.count("\n") == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return err


@pytest.fixture
def broken_plugins(tmp_path, monkeypatch):
    """The broken importers installed for this test only, as tests/test_adapter_kit.py installs
    the example adapter: a module and its dist-info (``abw.importers`` entry points) on a
    temporary sys.path."""
    site = tmp_path / "site"
    dist = site / "abw_test_broken_importers-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: abw-test-broken-importers\nVersion: 0.1\n"
    )
    entries = "".join(f"{name} = {PLUGIN_MODULE}:{cls}\n" for name, (cls, _) in PLUGINS.items())
    (dist / "entry_points.txt").write_text(f"[abw.importers]\n{entries}")
    (site / f"{PLUGIN_MODULE}.py").write_text(PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, PLUGIN_MODULE, raising=False)
    sample = tmp_path / "sample.jsonl"
    sample.write_text('{"name": "lookup", "input": {"command": "ls"}}\n')
    yield sample
    sys.modules.pop(PLUGIN_MODULE, None)


# ----------------------------------------------------------------- 1. abw import with a plugin


@pytest.mark.parametrize("name", sorted(PLUGINS))
def test_a_failing_importer_plugin_is_one_line_naming_it_and_the_file(
    broken_plugins, run_cli, tmp_path, name
):
    cls, why = PLUGINS[name]
    code, _, err = run_cli("import", name, "--input", broken_plugins, "--out", tmp_path / "out")
    line = _one_error(err)
    assert code == 2
    assert f"{broken_plugins}: the importer {name!r} ({PLUGIN_MODULE}:{cls}) {why}" in line
    assert not (tmp_path / "out").exists()


def test_a_failing_importer_plugin_in_a_folder_names_the_file(broken_plugins, run_cli, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    broken_plugins.rename(folder / "run-7.jsonl")
    code, _, err = run_cli("import", "bp-none", "--input", folder, "--out", tmp_path / "out")
    assert code == 2 and f"{folder / 'run-7.jsonl'}: the importer 'bp-none'" in _one_error(err)


@pytest.mark.parametrize("name", ["bp-raise", "bp-dicts"])
def test_a_failing_importer_plugin_on_a_worker_is_its_error(broken_plugins, tmp_path, name):
    """The worker side of ``--workers``/``--scheduler`` (abw.import_shard.import_batch, run
    in-process here) returns the same error as the serial import; it raised before."""
    from abw.errors import AbwInputError
    from abw.import_shard import import_batch
    from abw.importers.base import ImportOptions
    from abw.shard import code_digest

    staging = tmp_path / "staging"
    staging.mkdir()
    done, error = import_batch(
        name, [str(broken_plugins)], ImportOptions(), str(staging), str(tmp_path), code_digest()
    )
    assert done == [] and isinstance(error, AbwInputError)
    assert error.file == str(broken_plugins) and f"the importer {name!r}" in error.one_line()
    assert PLUGINS[name][1] in error.one_line()


def test_a_bug_in_abw_own_importer_still_surfaces(run_cli, tmp_path, monkeypatch):
    """Only third-party importers are wrapped (their class lives outside the ``abw`` package):
    a failure of a built-in importer is abw's bug, an "internal error" line as before."""
    from abw.importers.claude import ClaudeImporter

    def broken(self, path, options):
        raise KeyError("a bug of abw's")

    monkeypatch.setattr(ClaudeImporter, "import_file", broken)
    source = sorted((REFUND / "transcripts").rglob("*.jsonl"))[0]
    code, _, err = run_cli("import", "claude", "--input", source, "--out", tmp_path / "o.json")
    assert code == 2 and "internal error" in err and "the importer" not in err


def test_third_party_is_told_by_the_importer_class_module():
    from abw.import_shard import third_party
    from abw.importers.claude import ClaudeImporter

    assert not third_party(ClaudeImporter())
    assert third_party(_BROKEN.ReturnsNone())


# ----------------------------------------------------------------- 2. the adapter kit


def _plugin_module():
    """The broken importers as a module of their own, from the source the entry points
    install, for the adapter kit to be handed instances of."""
    import types

    module = types.ModuleType(PLUGIN_MODULE)
    exec(PLUGIN_SOURCE, module.__dict__)
    return module


_BROKEN = _plugin_module()


@pytest.mark.parametrize(
    ("importer", "why"),
    [
        (_BROKEN.ReturnsNone(), "returned None, not a list of traces"),
        (_BROKEN.ReturnsDicts(), "returned a list holding a dict at [0], not a Trace"),
        (_BROKEN.ReturnsStr(), "returned a str, not a list of traces"),
    ],
    ids=["none", "dicts", "str"],
)
def test_the_adapter_kit_reports_an_importer_returning_no_traces(tmp_path, importer, why):
    from abw.adapter_kit import check_determinism, run_adapter_kit

    sample = tmp_path / "sample.jsonl"
    sample.write_text('{"name": "lookup"}\n')
    report = run_adapter_kit(importer, [sample])
    assert not report.ok and report.problems == [f"sample.jsonl: import_file {why}"]
    with pytest.raises(AssertionError, match="import_file returned"):
        report.raise_if_failed()
    assert check_determinism(importer, sample) == [f"sample.jsonl: import_file {why}"]


def test_the_adapter_kit_reports_a_registered_plugin_returning_none(broken_plugins):
    from abw.adapter_kit import run_adapter_kit

    report = run_adapter_kit("bp-none", [broken_plugins])
    assert report.problems == ["sample.jsonl: import_file returned None, not a list of traces"]
    raised = run_adapter_kit("bp-raise", [broken_plugins])  # as the kit already reported it
    assert raised.problems == ["sample.jsonl: import failed: KeyError: 'name'"]


# ----------------------------------------------------------------- 3. the pytest plugin


@pytest.fixture(scope="module")
def _warm_gate():
    """Load the gate's C extensions outside pytester (see tests/test_pytest_plugin.py)."""
    from abw.gating import run_gate

    run_gate(REFUND / "traces" / "baseline", REFUND / "traces" / "small", REFUND / "behavior.yaml")


def _gated(pytester, body: str, *args: str) -> str:
    """Run one ``abw_gate`` test file under pytester; assert its one test failed with the
    plugin's own one-line message (no traceback, no code); the output."""
    pytester.makepyfile(
        test_gated=f"""
import pytest
from pathlib import Path
REFUND = Path({str(REFUND)!r})
GATE = dict(baseline=REFUND / "traces" / "baseline", spec=REFUND / "behavior.yaml")
{body}
"""
    )
    names = {e.name for e in importlib.metadata.entry_points(group="pytest11")}
    plugin = [] if "abw" in names else ["-p", "abw.pytest_plugin"]
    result = pytester.runpytest_inprocess(*plugin, "-p", "no:cacheprovider", "-q", *args)
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    failure = text.split("short test summary info")[0]
    for crash in ("Traceback", "Error:", "UsageError", "raise ", "abw/pytest_plugin.py"):
        assert crash not in failure, text
    (message,) = [line for line in failure.splitlines() if line.startswith("abw_gate")]
    return message


def test_pytest_report_dir_that_is_a_file(pytester, tmp_path, _warm_gate):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    message = _gated(
        pytester,
        """
@pytest.mark.abw(**GATE)
def test_good(abw_gate):
    abw_gate(REFUND / "traces" / "good")
""",
        f"--abw-report-dir={afile}",
    )
    assert "--abw-report-dir: cannot write: a part of the path is a file, not a folder" in message
    assert message.startswith(f"abw_gate: {afile}/")


def test_pytest_candidate_path_component_over_255_characters(pytester, _warm_gate):
    message = _gated(
        pytester,
        f"""
@pytest.mark.abw(**GATE)
def test_long(abw_gate):
    abw_gate({LONG!r})
""",
    )
    assert message == f"abw_gate: {LONG}: candidate: cannot read: file name too long"


# (a test body, the failure's one line: whole, or how it begins) — ``allow_inconclusive="no"``
# was true (a non-empty string): an INCONCLUSIVE run passed
_BAD_SETTINGS = [
    (
        """
def test_no_spec(abw_gate):
    abw_gate(REFUND / "traces" / "good", baseline=REFUND / "traces" / "baseline")
""",
        "abw_gate needs a spec: pass spec=...",
        False,
    ),
    (
        """
@pytest.mark.abw(**GATE, fail_on="WARN")
def test_bad_fail_on(abw_gate):
    abw_gate(REFUND / "traces" / "good")
""",
        "abw_gate: the abw marker's fail_on must be 'fail' or 'warn', not 'WARN'",
        True,
    ),
    (
        """
@pytest.mark.abw(**GATE, allow_inconclusive="no")
def test_small(abw_gate):
    abw_gate(REFUND / "traces" / "small")
""",
        "abw_gate: the abw marker's allow_inconclusive must be True or False, not 'no'",
        True,
    ),
    (
        """
@pytest.mark.abw(**GATE)
def test_dict(abw_gate):
    abw_gate({"a": 1})
""",
        "abw_gate: candidate: a dict given; abw_gate takes Trace objects",
        False,
    ),
]


@pytest.mark.parametrize(
    ("body", "expected", "whole"),
    _BAD_SETTINGS,
    ids=["missing-spec", "fail-on", "allow-inconclusive", "candidate-type"],
)
def test_pytest_a_bad_setting_is_one_line(pytester, _warm_gate, body, expected, whole):
    message = _gated(pytester, body)
    assert (message == expected) if whole else message.startswith(expected)
    assert "no such folder" not in message


# ----------------------------------------------------------------- 4. MCP


def _tool_error(name: str, arguments: dict) -> str:
    """The ToolError text of calling ``name`` (asserted to be abw's one line: no pydantic
    text, no link, no bare "Error executing tool")."""
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

    from abw.mcp_server import build_server

    with pytest.raises(ToolError) as raised:
        asyncio.run(build_server().call_tool(name, arguments))
    assert not isinstance(raised.value, UnexpectedToolError), repr(raised.value)
    text = str(raised.value)
    assert "\n" not in text and "pydantic" not in text and "validation error" not in text, text
    return text.removeprefix(f"Error executing tool {name}: ")


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("abw_validate", {"paths": "notalist"}, "paths: input should be a valid list (got a "),
        ("abw_validate", {}, "paths: missing (a required argument of abw_validate)"),
        ("abw_validate", {"paths": [1]}, "paths[0]: input should be a valid string (got an "),
        ("abw_gate", {"baseline": "b"}, "candidate: missing (a required argument of abw_gate)"),
        (
            "abw_gate",
            {"baseline": 5, "candidate": "c", "spec": "s"},
            "baseline: input should be a valid string (got an integer)",
        ),
        ("abw_explain", {"check_id": 123}, "check_id: input should be a valid string"),
        (
            "abw_fingerprint",
            {"trace": "t.json", "with_content": "maybe"},
            "with_content: input should be a valid boolean",
        ),
        ("abw_render", {"format": None}, "format: input should be a valid string (got null)"),
    ],
)
def test_mcp_argument_type_errors_are_one_line_naming_the_argument(name, arguments, expected):
    assert _tool_error(name, arguments).startswith(expected)


@pytest.mark.parametrize("role", ["baseline", "candidate", "spec"])
def test_mcp_gate_path_over_255_characters_names_the_argument(role):
    arguments = {
        "baseline": str(REFUND / "traces" / "baseline"),
        "candidate": str(REFUND / "traces" / "good"),
        "spec": str(REFUND / "behavior.yaml"),
    }
    arguments[role] = LONG
    text = _tool_error("abw_gate", arguments)
    assert text.endswith("cannot read: file name too long") and LONG in text
    if role != "spec":  # the spec loader names the file itself
        assert f"{LONG}: {role}: cannot read" in text
    assert _tool_error("abw_explain", {**arguments, "check_id": "x"}) == text
