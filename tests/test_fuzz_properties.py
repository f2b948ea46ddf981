"""Property tests (hypothesis) over every importer, the spec loader and the trace loader.

Seeded from the real corpus. Truncations, byte flips, type swaps, huge values, deep nesting,
duplicate ids, NaN/Infinity: each input either loads/imports, or ends with one single-line
AbwInputError — never another exception. The CLI maps the error to exit code 2, no traceback.
The long coverage-guided runs live in fuzz/ (``make fuzz``).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from fuzzkit import Crash, Target, check_contract, mutate, targets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TARGETS = {t.name: t for t in targets()}
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _suffix(name: str, target: Target) -> str:
    return Path(name).suffix or target.suffix


def _contract(target: Target, seed_name: str, data: bytes) -> str:
    try:
        return check_contract(target, data, _suffix(seed_name, target))
    except Crash as exc:
        pytest.fail(f"{target.name} on mutated {seed_name}: {exc}")


def test_every_target_has_real_seeds():
    for name, target in TARGETS.items():
        assert target.seeds, name
        for seed_name, data in target.seeds:
            # every seed is itself valid input: the mutations start from real documents
            assert _contract(target, seed_name, data) in ("ok", "error")


@pytest.mark.parametrize("name", sorted(TARGETS))
@SETTINGS
@given(data=st.data())
def test_random_mutations_keep_the_contract(name, data):
    target = TARGETS[name]
    seed_name, seed = data.draw(st.sampled_from(target.seeds), label="seed")
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="rng"))
    mutated = seed
    for _ in range(data.draw(st.integers(1, 4), label="rounds")):
        mutated = mutate(mutated, rng)
    _contract(target, seed_name, mutated)


@pytest.mark.parametrize("name", sorted(TARGETS))
@SETTINGS
@given(data=st.data())
def test_truncation_at_any_byte(name, data):
    target = TARGETS[name]
    seed_name, seed = data.draw(st.sampled_from(target.seeds), label="seed")
    cut = data.draw(st.integers(0, max(0, len(seed) - 1)), label="cut")
    _contract(target, seed_name, seed[:cut])


@pytest.mark.parametrize("name", sorted(TARGETS))
@SETTINGS
@given(data=st.data())
def test_byte_flips(name, data):
    target = TARGETS[name]
    seed_name, seed = data.draw(st.sampled_from(target.seeds), label="seed")
    if not seed:
        return
    buf = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 6), label="flips")):
        at = data.draw(st.integers(0, len(buf) - 1))
        buf[at] = data.draw(st.integers(0, 255))
    _contract(target, seed_name, bytes(buf))


SPECIAL = [
    pytest.param(b"[" * 200_000 + b"]" * 200_000, id="deep-nesting"),
    pytest.param(b'{"a": NaN, "b": Infinity, "c": -Infinity}\n', id="nan-infinity"),
    pytest.param(b'{"n": 1' + b"0" * 5000 + b"}\n", id="huge-int"),
    pytest.param(b'{"n": 1e99999}\n', id="huge-float"),
    pytest.param(b"\xef\xbb\xbf{}\n", id="bom"),
    pytest.param(b"\xff\xfe\x00\x00garbage", id="not-utf8"),
    pytest.param(b"", id="empty"),
    pytest.param(b"\n\n\n", id="blank-lines"),
    pytest.param(b"null\n", id="null"),
    pytest.param(b'"just a string"\n', id="string"),
    pytest.param(b"[1, 2, 3]\n", id="array"),
]


@pytest.mark.parametrize("payload", SPECIAL)
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_special_inputs(name, payload):
    target = TARGETS[name]
    _contract(target, "special" + target.suffix, payload)


def _json_lines_with(seed: bytes, transform) -> bytes:
    out = []
    for line in seed.split(b"\n"):
        try:
            doc = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        out.append(json.dumps(transform(doc), allow_nan=True).encode())
    return b"\n".join(out)


def _nanify(value):
    if isinstance(value, dict):
        return {k: _nanify(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nanify(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float("nan")
    return value


def _stringify_numbers(value):
    if isinstance(value, dict):
        return {k: _stringify_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stringify_numbers(v) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


@pytest.mark.parametrize(
    "transform",
    [_nanify, _stringify_numbers, lambda d: [d], lambda d: {"wrapped": d}],
    ids=["nan-everywhere", "numbers-as-strings", "wrapped-in-list", "wrapped-in-object"],
)
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_whole_document_type_swaps(name, transform):
    target = TARGETS[name]
    for seed_name, seed in target.seeds[:3]:
        _contract(target, seed_name, _json_lines_with(seed, transform))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_duplicated_records(name):
    """Every line twice: duplicate ids, duplicate tool_use ids, repeated spans."""
    target = TARGETS[name]
    for seed_name, seed in target.seeds[:3]:
        lines = seed.split(b"\n")
        doubled = b"\n".join(line for line in lines for _ in (0, 1))
        _contract(target, seed_name, doubled)


def test_duplicate_span_ordinals_are_refused():
    from fuzzkit import minimal_trace_doc

    doc = minimal_trace_doc(3)
    doc["spans"][2]["ordinal"] = 1
    assert _contract(TARGETS["trace"], "dup.json", json.dumps(doc).encode()) == "error"


def test_cli_reports_bad_input_in_one_line_exit_2(tmp_path):
    """Through the real console script: exit 2, one line on stderr, no traceback."""
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"[" * 100_000)
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(b"schema_version: behavior-spec/v0\nid: x\n" + b"k: " + b"[" * 50_000)
    for args in (["validate", str(bad)], ["validate", str(spec)]):
        proc = subprocess.run(
            [_abw(), *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def _abw() -> str:
    return str(Path(sys.executable).with_name("abw"))
