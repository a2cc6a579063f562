"""Shared test set-up: hypothesis profiles, placeholder expansion, paths."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
FIXTURES = TESTS / "fixtures"
DATA = TESTS / "data"
EXAMPLES = ROOT / "examples"
if str(ROOT) not in sys.path:  # the bench package holds the guide's helper, restated
    sys.path.insert(0, str(ROOT))

settings.register_profile("dev", max_examples=150, deadline=None)
settings.register_profile(
    "ci", max_examples=300, deadline=None, print_blob=True, derandomize=True
)  # reproducible CI; the release and deep profiles explore
settings.register_profile(
    "deep",
    max_examples=100_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(  # the release check: half the deep run, every example counted
    "release",
    max_examples=50_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Fixture files write marker characters in the guide's own notation, short or long.
_PLACEHOLDERS = {
    "{CITATION_START}": "\ue200",
    "{CITATION_DELIMITER}": "\ue202",
    "{CITATION_STOP}": "\ue201",
    "{S}": "\ue200",
    "{D}": "\ue202",
    "{E}": "\ue201",
    "{HS}": "\ue203",
    "{HE}": "\ue204",
    "{U205}": "\ue205",
    "{U206}": "\ue206",
}
_PH_RE = re.compile("|".join(re.escape(k) for k in _PLACEHOLDERS))


def expand(text: str) -> str:
    """Replace ``{S}``/``{D}``/``{E}``-style placeholders by the real characters."""
    return _PH_RE.sub(lambda m: _PLACEHOLDERS[m.group(0)], text)


RESERVED_OR_ESCAPE = re.compile(
    r"[\ue200-\ue206]|\\{1,2}[uU](?:0000)?\{?[eE]20[0-6]|%EE%88%8[0-6]"
    r"|&#[xX]0*[eE]20[0-6](?![0-9a-fA-F])|&#0*(?:5785[6-9]|5786[0-2])(?!\d)",
    re.I,
)


_HTML_CODE = re.compile(r"<code\b[^>]*>.*?</code>", re.S | re.I)


def outside_code(output: str, *, markdown: bool = False) -> str:
    """``output`` (HTML, or Markdown read by markdown-it) with its code left out: in code, visible
    marker forms are the author's text (DESIGN rule 3)."""
    if markdown:
        from markdown_it import MarkdownIt

        output = MarkdownIt("commonmark", {"html": True}).render(output)
    return _HTML_CODE.sub("", output)


def assert_no_marker(output: str, what: str = "output", *, markdown: bool = False) -> None:
    """No reserved character anywhere, and no literal escape or other residue outside code, may
    reach an output (``markdown``: the output is Markdown; its code is found by parsing it)."""
    raw = re.search("[\ue200-\ue206]", output)
    m = raw or RESERVED_OR_ESCAPE.search(outside_code(output, markdown=markdown))
    where = output if raw else outside_code(output, markdown=markdown)
    assert m is None, (
        f"raw marker {m.group(0)!r} leaked into {what} at {m.start()}: {where[max(0, m.start() - 60) : m.start() + 60]!r}"
    )


@dataclass
class CliResult:
    """What a run of the command line gave: as ``subprocess.CompletedProcess`` names it."""

    returncode: int
    stdout: str
    stderr: str


def best_cpu(f: Any, repeat: int = 3) -> float:
    """The least CPU time ``f()`` took in ``repeat`` runs, in this process (another process busy on
    the machine does not count), garbage collection paused: its pauses grow with the whole heap, not
    with the code measured, and would blur the ratios the growth tests compare."""
    import gc
    import time

    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            f()
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def write_folder(path: Path, files: dict[str, str]) -> Path:
    """A new folder ``path`` holding ``files`` (name: text)."""
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    return path


def write_zip(path: Path, files: dict[str, str]) -> Path:
    """A zip at ``path`` holding ``files`` (name: text), deflated."""
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def run_cli(*args: object, stdin: str | bytes | None = None, path: str | None = None) -> CliResult:
    """``citerender ARGS`` in this process (``main(argv)`` with its streams captured): what a
    contributor's test run pays for, instead of a fresh interpreter per call. ``path`` goes on
    ``sys.path`` for the run (a scorer module), as ``PYTHONPATH`` would."""
    import io

    from citerender.cli import main

    def stream(data: bytes = b"") -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="")

    out, err = stream(), stream()
    raw = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    saved = sys.stdin, sys.stdout, sys.stderr, list(sys.path)
    sys.stdin, sys.stdout, sys.stderr = stream(raw), out, err
    if path is not None:
        sys.path.insert(0, path)
    try:
        code = main([str(a) for a in args])
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        sys.path[:] = saved[3]
    out.flush()
    err.flush()
    text = [s.buffer.getvalue().decode("utf-8", "replace") for s in (out, err)]  # type: ignore[attr-defined]
    return CliResult(code, text[0], text[1])


def example_pairs() -> list[tuple[Path, Path]]:
    """Every bundled example answer with its sources file."""
    out = []
    for md in sorted(EXAMPLES.rglob("*.md")):
        if md.name.endswith(".sources.md") or md.name.lower() == "readme.md":
            continue
        for suffix in (".sources.json", ".sources.yaml", ".sources.toml", ".sources.txt"):
            cand = md.with_name(md.stem + suffix)
            if cand.is_file():
                out.append((md, cand))
                break
    return out


def load_example_module(path: Path, name: str):  # type: ignore[no-untyped-def]
    """Import an example script under its own module name (several examples are called app.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Debian's chromium, driven by Playwright with executable_path; no browser is ever downloaded.
CHROMIUM = os.environ.get("CITERENDER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium per test module (tests open their own contexts). Not per session:
    Playwright's sync API holds an event loop while it runs, and asyncio tests need none."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "install Debian's chromium (make test does) or set CITERENDER_CHROMIUM"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def chat_conversation(title: str, turns: list[tuple[str, str]], cid: str, start: float = 1_767_000_000.0) -> dict:
    """One ChatGPT-export conversation in the export's own shape: ``turns`` (role, text) in order, a
    message each ten seconds from ``start``, each the child of the one before."""
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent, t = "root", start
    for k, (role, text) in enumerate(turns, 1):
        mid = f"{role[0]}{k}"
        message = {
            "id": mid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t,
            "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
            "end_turn": role == "assistant" or None, "weight": 1.0, "metadata": {}, "recipient": "all",
            "channel": None,
        }  # fmt: skip
        mapping[mid] = {"id": mid, "message": message, "parent": parent, "children": []}
        mapping[parent]["children"].append(mid)
        parent, t = mid, t + 10
    return {"title": title, "create_time": start, "update_time": t - 10, "mapping": mapping,
            "current_node": parent, "id": cid, "conversation_id": cid, "default_model_slug": "gpt-4o"}  # fmt: skip
