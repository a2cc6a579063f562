"""The README is an introduction a newcomer can follow: at most 250 lines, every optional extra named,
nothing installed from an index, and three journeys whose commands run exactly as printed.

A journey is the README's set-up blocks (the shell blocks before the first journey) followed by the
shell blocks of its own section, each command run by bash in a copy of the working tree. In the suite
(``-m journeys`` selects them) the copy's ``.venv`` is the project's own venv, which ``make test``
filled with every extra: the install commands are checked (a venv, ``pip install -e`` of extras that
exist and are installed there) rather than run, and every other command runs as printed. With
``CITERENDER_FRESH_VENV=1`` the set-up runs for real too: a fresh venv, installs from PyPI included.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from conftest import ROOT

README = ROOT / "README.md"
FRESH = os.environ.get("CITERENDER_FRESH_VENV") == "1"
JOURNEYS = {1: "render", 2: "build", 3: "check-dataset"}
INSTALL = re.compile(r"^(python3 -m venv \.venv|\.venv/bin/pip install -e (\.|'\.\[([a-z,]+)\]'))$")


def _extras() -> dict[str, list[str]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras: dict[str, list[str]] = data["project"]["optional-dependencies"]
    return extras


def readme_sections() -> tuple[list[str], dict[int, list[str]]]:
    """The set-up blocks' commands, and each journey's (keyed by its number), as printed."""
    setup: list[str] = []
    journeys: dict[int, list[str]] = {}
    current: list[str] | None = setup
    for section in re.split(r"(?m)^## ", README.read_text(encoding="utf-8"))[1:]:
        title = section.split("\n", 1)[0]
        m = re.match(r"Journey (\d+)", title)
        if m:
            current = journeys.setdefault(int(m.group(1)), [])
        elif journeys:
            current = None  # after the journeys: not part of any
        if current is None:
            continue
        for block in re.findall(r"(?ms)^```(?:sh|bash|shell)\n(.*?)^```", section):
            current += [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return setup, journeys


def _copy_tree(dest: Path) -> None:
    """The working tree as git knows it (tracked and new files, not ignored ones): a fresh clone."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _check_install(command: str) -> None:
    """An install command the suite does not run: well formed, naming extras that exist, and
    satisfied by the venv the journeys reuse."""
    m = INSTALL.match(command)
    assert m, f"an install command of an unexpected form: {command}"
    extras = _extras()
    for extra in (m.group(3) or "").split(","):
        if not extra:
            continue
        assert extra in extras and extra != "test", f"{command}: no extra [{extra}] in pyproject.toml"
        for requirement in extras[extra]:
            name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
            metadata.version(name)  # raises PackageNotFoundError when the reused venv lacks it


def _outputs(command: str) -> list[str]:
    """What a journey's command writes: its ``-o``/``--report``/``--summary`` files, a build's folder."""
    words = shlex.split(command)
    found = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--output", "--report", "--summary")]
    if len(words) > 1 and words[1] == "build":
        found.append(next(w for w in words[3:] if not w.startswith("-")))
    return found


def run_journey(number: int, clone: Path) -> list[str]:
    """Run the set-up and journey ``number`` in ``clone``; the files it wrote."""
    setup, journeys = readme_sections()
    if not FRESH:
        (clone / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    written: list[str] = []
    for command in setup + journeys[number]:
        if not FRESH and INSTALL.match(command):
            _check_install(command)
            continue
        r = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
        said = r.stdout + r.stderr
        checking = re.search(r"citerender (check|check-dataset) ", command) is not None
        assert r.returncode in ((0, 1) if checking else (0,)), f"{command}\nexit {r.returncode}\n{said[-3000:]}"
        assert "Traceback" not in said, f"{command}\n{said[-3000:]}"
        written += _outputs(command)
    for out in written:
        path = clone / out
        assert path.exists() and (path.is_dir() or path.stat().st_size > 0), f"journey {number} did not write {out}"
    return written


@pytest.mark.journeys
@pytest.mark.parametrize("number", sorted(JOURNEYS))
def test_each_journey_runs_exactly_as_printed(number: int, tmp_path: Path) -> None:
    clone = tmp_path / "citerender"
    clone.mkdir()
    _copy_tree(clone)
    written = run_journey(number, clone)
    assert written, f"journey {number} writes nothing"
    if number == 1:
        page = (clone / "out" / "handbook.html").read_text(encoding="utf-8")
        assert "citerender-cite" in page and not re.search("[\ue200-\ue206]", page)
    if number == 2:
        assert (clone / "out" / "chat-site" / "index.html").is_file()
        assert len(list((clone / "out" / "chat-site").rglob("*.html"))) > 1
    if number == 3:
        assert (clone / "out" / "results.jsonl").read_text(encoding="utf-8").count("\n") == 6
        assert "<svg" in (clone / "out" / "report.html").read_text(encoding="utf-8")


def test_readme_offers_three_journeys_in_one_screen() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.count("\n") <= 250
    setup, journeys = readme_sections()
    assert setup and sorted(journeys) == sorted(JOURNEYS)
    for number, command in JOURNEYS.items():
        assert any(f"citerender {command} " in c for c in journeys[number]), (number, journeys[number])
        for c in journeys[number]:
            assert not re.search(r"\b[A-Z]{3,}\.(md|json|jsonl)\b", c), f"a placeholder in {c}"
    build = next(c for c in journeys[2] if "citerender build " in c)
    assert len([w for w in shlex.split(build)[2:] if not w.startswith("-")]) >= 2  # build <export> <out>


def test_readme_installs_from_the_clone_and_names_every_extra() -> None:
    text = README.read_text(encoding="utf-8")
    assert not re.search(r"pip install\s+['\"]?citerender", text), "citerender is not on an index: install the clone"
    for extra in _extras():
        assert f"`[{extra}]`" in text, f"the README does not name the [{extra}] extra"


#: the engines a check-dataset job may run on (docs/scale.md): one per job, none in [all]
ENGINES = ("dask", "ray", "spark")


def test_all_extra_holds_every_other_extra_but_the_tests() -> None:
    extras = _extras()
    everything = set(extras["all"])
    for name, requirements in extras.items():
        if name in ENGINES:  # each in [test], so the recipes run in CI
            assert set(requirements) <= set(extras["test"]) and not set(requirements) & everything, name
        elif name not in ("all", "test"):
            assert set(requirements) <= everything, f"[all] lacks [{name}]: {set(requirements) - everything}"
    test_only = set(extras["test"]) - {r for n, rs in extras.items() if n not in ("test", "all") for r in rs}
    assert not test_only & everything, f"test tooling in [all]: {test_only & everything}"
    assert any(r.startswith("mkdocs") for r in extras["docs"]) and any(r.startswith("mkdocs") for r in extras["test"])


def test_no_message_names_a_version_after_the_package() -> None:
    """Nothing says something was "removed in" a version later than the package's own."""
    version = tuple(int(p) for p in metadata.version("citerender").split(".")[:2])
    for path in [*(ROOT / "citerender").rglob("*.py"), README, *(ROOT / "docs").glob("*.md")]:
        for m in re.finditer(r"removed in (?:citerender )?v?(\d+)\.(\d+)", path.read_text(encoding="utf-8")):
            assert (int(m.group(1)), int(m.group(2))) <= version, f"{path.relative_to(ROOT)}: {m.group(0)}"
