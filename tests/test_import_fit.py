"""Real-world fit: ``abw import --output-fields`` naming fields no run's final answer holds says
so at import (one warning line, the same serial and on workers, exit code unchanged), and every
error about a scenario of ``abw sample`` names it the same way (``scenarios.<index>.<key>``,
at the key's line)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from abw.errors import AbwInputError
from tests.conftest import REPO

TRANSCRIPTS = REPO / "examples" / "refund-policy" / "transcripts" / "baseline"
PINNED = ("--exported-at", "2026-01-01T00:00:00Z")
TYPO = (
    "abw: warning: --output-fields decsion, refund.amount: in no final answer of the {runs} "
    "imported; canonical_output leaves them out"
)


def _import(run_cli, source: Path, out: Path, fields: str, *more: str) -> tuple[int, list[str]]:
    """``abw import claude``: (exit code, its warning lines)."""
    args = ("--input", source, "--out", out, "--output-fields", fields, *PINNED, *more)
    code, _, err = run_cli("import", "claude", *args)
    return code, [line for line in err.splitlines() if "warning" in line]


def test_a_file_whose_answer_lacks_the_fields_warns_at_import(run_cli, tmp_path):
    source = sorted(TRANSCRIPTS.glob("*.jsonl"))[0]
    code, warnings = _import(run_cli, source, tmp_path / "run.json", "decsion,refund.amount")
    assert code == 0 and (tmp_path / "run.json").is_file()  # a warning, not an error
    assert warnings == [TYPO.format(runs="1 run")]


@pytest.mark.parametrize("more", [(), ("--workers", "2")], ids=["serial", "workers"])
def test_a_folder_whose_answers_lack_the_fields_warns_once(run_cli, tmp_path, more):
    code, warnings = _import(run_cli, TRANSCRIPTS, tmp_path / "out", "decsion,refund.amount", *more)
    assert code == 0 and len(list((tmp_path / "out").iterdir())) == 24
    assert warnings == [TYPO.format(runs="24 runs")]


def test_a_field_some_answer_holds_and_a_quiet_import_say_nothing(run_cli, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for path in sorted(TRANSCRIPTS.glob("*.jsonl"))[:2]:
        shutil.copy(path, folder / path.name)
    code, warnings = _import(run_cli, folder, tmp_path / "a", "decision")
    assert (code, warnings) == (0, [])
    code, warnings = _import(run_cli, folder, tmp_path / "b", "nothing_like_it", "-q")
    assert (code, warnings) == (0, [])
    code, warnings = _import(run_cli, folder, tmp_path / "c", "nothing_like_it")
    assert warnings == [
        "abw: warning: --output-fields nothing_like_it: in no final answer of the 2 runs "
        "imported; canonical_output leaves it out"
    ]


def test_what_crosses_from_a_worker_merges_to_the_serial_count():
    """Per-file counts (what a worker sends back) merge to what one count over every file
    says: a field found in any file is never warned about."""
    from abw.importers.base import OutputFieldsSeen

    fields = ("decsion", "amount")
    files = [[None], [{"amount": 1}], [{}, None]]
    serial, merged = OutputFieldsSeen(), OutputFieldsSeen()
    for outputs in files:
        serial.add(fields, outputs)
        one = OutputFieldsSeen()
        one.add(fields, outputs)
        merged.merge(one)
    assert serial.warning(fields) == merged.warning(fields)
    assert merged.warning(fields) == (
        "--output-fields decsion: in no final answer of the 4 runs imported; canonical_output "
        "leaves it out"
    )


def test_the_warning_names_no_key_of_a_raw_answer(run_cli, tmp_path):
    """Only the names the user gave: an answer's own keys are its raw content, which no
    output shows unless named (a close key is never suggested)."""
    source = sorted(TRANSCRIPTS.glob("*.jsonl"))[0]
    code, _, err = run_cli(
        "import", "claude", "--input", source, "--out", tmp_path / "r.json",
        "--output-fields", "decisio", *PINNED,
    )  # fmt: skip
    assert code == 0 and "decisio:" in err and "decision" not in err.replace("decisio:", "")


SCENARIO = "  - id: {id}\n    run: agent {{transcript}}\n    importer: {importer}\n"


@pytest.mark.parametrize(
    ("second", "needle"),
    [
        (SCENARIO.format(id="b", importer="claud"), "7: scenarios.1.importer: unknown importer"),
        (
            SCENARIO.format(id="b", importer="claude") + "    import_args: [--bash-tool-label]\n",
            "8: scenarios.1.import_args: No such option '--bash-tool-label'",
        ),
        (
            SCENARIO.format(id="a", importer="claude"),
            "5: scenarios.1.id: scenario id 'a' is given twice (first as scenarios.0.id, line 2)",
        ),
        (SCENARIO.format(id="b", importer="claude") + "    colour: 1\n", "8: scenarios.1.colour:"),
        (SCENARIO.format(id="b/c", importer="claude"), "5: scenarios.1.id:"),
    ],
    ids=["importer", "import_args", "duplicate-id", "unknown-key", "bad-id"],
)
def test_every_scenario_error_names_the_scenario_by_index_at_its_line(tmp_path, second, needle):
    from abw.sample.scenarios import load_scenarios

    path = tmp_path / "scenarios.yaml"
    path.write_text("scenarios:\n" + SCENARIO.format(id="a", importer="claude") + second)
    with pytest.raises(AbwInputError) as caught:
        load_scenarios(path)
    assert caught.value.one_line().startswith(f"{path}:{needle}"), caught.value.one_line()
