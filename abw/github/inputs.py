"""Action inputs, read from ``INPUT_*`` variables exactly as the runner sets them.

The runner upper-cases an input's name and turns spaces into ``_`` but keeps hyphens, so the
``fail-on`` input arrives as ``INPUT_FAIL-ON``. Inputs a workflow leaves out already carry the
default from ``action.yml``; the defaults here only matter when the entrypoint is run by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from abw.errors import AbwInputError

FAIL_ON = ("fail", "inconclusive", "warn", "never")
COMMENT_MODES = ("always", "on-change", "off")
#: Conclusions a check run may be given (GitHub alone sets ``stale``).
CONCLUSIONS = (
    "success",
    "neutral",
    "failure",
    "action_required",
    "cancelled",
    "skipped",
    "timed_out",
)
DEFAULT_CONCLUSIONS = {
    "PASS": "success",
    "WARN": "neutral",
    "FAIL": "failure",
    "INCONCLUSIVE": "action_required",
}


def env_name(name: str) -> str:
    """The variable the runner sets for an input: ``fail-on`` -> ``INPUT_FAIL-ON``."""
    return "INPUT_" + name.replace(" ", "_").upper()


def get_input(
    env: Mapping[str, str], name: str, default: str = "", *, required: bool = False
) -> str:
    """An input's value, trimmed like ``@actions/core`` does; empty means "use the default"."""
    value = env.get(env_name(name), "").strip()
    if not value:
        if required:
            raise AbwInputError("input required and not supplied", field=name)
        return default
    return value


def _choice(env: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = get_input(env, name, default).lower()
    if value not in allowed:
        raise AbwInputError(f"{value!r} is not one of {', '.join(allowed)}", field=name)
    return value


def _boolean(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = get_input(env, name, "true" if default else "false").lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise AbwInputError(f"{value!r} is not true or false", field=name)


def _whole(text: str, name: str) -> None:
    """Refuse ``text`` unless it is ASCII digits (``str.isdigit`` takes ``²``, which
    ``int`` does not)."""
    if not (text.isascii() and text.isdigit()):
        raise AbwInputError(f"{text!r} is not a whole number", field=name)


@dataclass(frozen=True)
class ActionInputs:
    """Every input of ``action.yml``, validated."""

    baseline: str = ""
    candidate: str = ""
    spec: str = ""
    report: str = ""
    event_file: str = ""
    latent: str = ""
    output_dir: str = "abw-report"
    fail_on: str = "inconclusive"
    comment: str = "on-change"
    check_run: bool = True
    check_name: str = "abw gate"
    github_token: str = ""
    sarif_category: str = ""
    annotations: int = 10
    publish_timeout: float = 300.0
    conclusions: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CONCLUSIONS))
    scenarios: str = ""  # run `abw sample` into `candidate` first (abw/github/sample_mode.py)
    budget_runs: int | None = None
    max_runs: int = 50

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionInputs:
        """Read and check every input; a bad value raises :class:`AbwInputError`."""
        report = get_input(env, "report")
        gate_inputs = {name: get_input(env, name) for name in ("baseline", "candidate", "spec")}
        if not report:
            missing = [name for name, value in gate_inputs.items() if not value]
            if missing:
                raise AbwInputError(
                    "input required and not supplied (or give `report` to publish an existing "
                    "gate report)",
                    field=missing[0],
                )
        conclusions = {}
        for verdict, default in DEFAULT_CONCLUSIONS.items():
            conclusions[verdict] = _choice(
                env, f"conclusion-{verdict.lower()}", default, CONCLUSIONS
            )
        annotations_text = get_input(env, "max-annotations", "10")
        _whole(annotations_text, "max-annotations")
        timeout_text = get_input(env, "publish-timeout", "300")
        try:
            publish_timeout = float(timeout_text)
        except ValueError:
            publish_timeout = -1.0
        if not 0 < publish_timeout <= 3600:
            raise AbwInputError(
                f"{timeout_text!r} is not a number of seconds between 0 and 3600",
                field="publish-timeout",
            )
        check_name = get_input(env, "check-name", "abw gate")
        if len(check_name) > 100 or "-->" in check_name:
            raise AbwInputError(
                "must be at most 100 characters and not contain '-->'", field="check-name"
            )
        budget_text, max_text = get_input(env, "budget-runs"), get_input(env, "max-runs", "50")
        _whole(budget_text or "0", "budget-runs")
        _whole(max_text, "max-runs")
        if int(max_text) < 1:
            raise AbwInputError("must be at least 1", field="max-runs")
        return cls(
            scenarios=get_input(env, "scenarios"),
            budget_runs=int(budget_text) if budget_text else None,
            max_runs=int(max_text),
            baseline=gate_inputs["baseline"],
            candidate=gate_inputs["candidate"],
            spec=gate_inputs["spec"],
            report=report,
            event_file=get_input(env, "event-file"),
            latent=get_input(env, "latent"),
            output_dir=get_input(env, "output-dir", "abw-report"),
            fail_on=_choice(env, "fail-on", "inconclusive", FAIL_ON),
            comment=_choice(env, "comment", "on-change", COMMENT_MODES),
            check_run=_boolean(env, "check-run", True),
            check_name=check_name,
            github_token=get_input(env, "github-token"),
            sarif_category=get_input(env, "sarif-category"),
            annotations=int(annotations_text),
            publish_timeout=publish_timeout,
            conclusions=conclusions,
        )
