"""Set-up and packaging: the licence in its current (PEP 639) form, a set-up that is skipped
when done, and a torch that is the CPU build on any machine."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SETUP = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")


def test_licence_is_an_spdx_string_with_its_files():
    """A ``{text = ...}`` table makes setuptools print a deprecation banner at every install."""
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] and all((REPO / f).is_file() for f in project["license-files"])
    assert "Apache License" in (REPO / "LICENSE").read_text(encoding="utf-8")[:200]
    # the string form needs setuptools >= 77
    (setuptools,) = [r for r in PYPROJECT["build-system"]["requires"] if "setuptools" in r]
    assert tuple(int(x) for x in re.findall(r">=\s*([\d.]+)", setuptools)[0].split(".")) >= (77,)
    # the image builds the package too: its context must hold the licence file
    assert "LICENSE" in (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert "!LICENSE" in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()


def test_make_setup_is_skipped_when_done():
    """``setup`` builds a stamp that depends on what the set-up reads, so a second ``make
    setup`` (and every ``make test``) does not reinstall the editable package."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^setup: \$\(STAMP\)\s*$", makefile, re.MULTILINE)
    rule = re.search(r"^\$\(STAMP\): (.*)$", makefile, re.MULTILINE)
    assert rule and {"pyproject.toml", "scripts/setup.sh"} <= set(rule.group(1).split())
    recipe = makefile[rule.end() :].split("\n\n")[0]
    assert "scripts/setup.sh" in recipe and "touch $@" in recipe


def test_torch_is_the_cpu_build_on_any_machine():
    """The default index serves the CUDA build on Linux: the CPU index comes first, the default
    index only when what it would install has no GPU packages, and the result is checked."""
    cpu_install = SETUP.index('--index-url "$cpu_index"')
    default_install = SETUP.index('"$bin/pip" install "${quiet[@]}" "$torch_pin"')
    assert 'cpu_index="${ABW_TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}"' in SETUP
    assert "--timeout 10 --retries 0" in SETUP  # an unreachable index costs seconds, not minutes
    guard = SETUP.index("if ! default_index_is_cpu; then")
    assert cpu_install < guard < default_install
    assert "torch.version.cuda" in SETUP and "nvidia-" in SETUP
    # every torch install goes through the pin: no literal `pip install torch==...` elsewhere
    assert not re.search(r"install[^\n]*\btorch==", SETUP)
    assert SETUP.count('"$torch_pin"') == 3  # the dry run, the CPU index, the guarded default
