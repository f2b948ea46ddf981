"""The command blocks of a text-based answer (```` ```bash ````, ```` ```mswea_bash_command ````,
``<mswea_bash_command>``), found in linear time."""

from __future__ import annotations

import re

from abw.importers.common import fenced_blocks, fenced_spans

_BASH_OPEN = re.compile(r"```(?:mswea_bash_command|bash|sh)\s*\n")


#: The opener of each kind of fenced block (a message's blocks count by the kind of its first).
_FENCES = {
    f"```{kind}": re.compile(rf"```{kind}\s*\n") for kind in ("mswea_bash_command", "bash", "sh")
}


_BASH_CLOSE = re.compile(r"\n```")


_TAG_OPEN, _TAG_CLOSE = "<mswea_bash_command>", "</mswea_bash_command>"


def bash_command(text: str) -> str | None:
    """The command of the first ```bash / ```sh / ```mswea_bash_command block or
    ``<mswea_bash_command>`` element, whichever starts first; linear in ``len(text)``
    (abw.importers.common.fenced_spans; the lazy regex was quadratic)."""
    commands = bash_commands(text)
    return commands[0] if commands else None


def bash_commands(text: str) -> list[str]:
    """Every command block of the kind that starts first (```bash, ```sh,
    ```mswea_bash_command or ``<mswea_bash_command>``), in order; linear in ``len(text)``.
    mini-swe-agent's action regex finds all the blocks of its one kind and runs a command only
    when it finds exactly one (else its reply is a format error)."""
    fenced = next(fenced_spans(text, _BASH_OPEN, _BASH_CLOSE), None)
    tags: list[tuple[int, str]] = []
    start = text.find(_TAG_OPEN)
    while start >= 0:
        end = text.find(_TAG_CLOSE, start + len(_TAG_OPEN))
        if end < 0:
            break
        tags.append((start, text[start + len(_TAG_OPEN) : end]))
        start = text.find(_TAG_OPEN, end + len(_TAG_CLOSE))
    if fenced is None or (tags and tags[0][0] < fenced[0]):
        return [command for _, command in tags]
    fence = next(f for f in _FENCES if text.startswith(f, fenced[0]))
    return list(fenced_blocks(text, _FENCES[fence], _BASH_CLOSE))
