"""Start-up (issue 50): a command imports only what it needs. Each command runs as a user runs it
— the console entry point, in a fresh process — and the ``citerender`` modules it loaded are read
from ``sys.modules`` when it returns; a stray import of a provider adapter, site publishing,
dataset evaluation or the streaming code into the path of ``render`` fails here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citerender.rendering.full_preset import has_cjk, is_cjk

_PROBE = textwrap.dedent(
    """
    import atexit, json, runpy, sys
    from pathlib import Path
    out = sys.argv[1]
    atexit.register(lambda: Path(out).write_text(json.dumps(sorted(m for m in sys.modules if m.startswith("citerender")))))
    script = str(Path(sys.executable).parent / "citerender")
    sys.argv = [script, *sys.argv[2:]]
    runpy.run_path(script, run_name="__main__")
    """
)
_LIBRARY = textwrap.dedent(
    """
    import json, sys, citerender
    reg = citerender.load_sources(sys.argv[2])
    citerender.render(open(sys.argv[1], encoding="utf-8").read(), reg)
    print(json.dumps(sorted(m for m in sys.modules if m.startswith("citerender"))))
    """
)
#: never loaded by these commands on a Markdown answer: adapters, site/host/conversation
#: publishing, dataset evaluation, streams, the exports' writers
_NEVER = re.compile(
    r"citerender\.(providers\.(?!inputs$)|publish\.(?!answers$|shown$)|evaluate|stream|jobs\.pool"
    r"|rendering\.exports\.(?!__init__)|cli\.(transcripts|scorer))"
)
#: the library call may load the plugin, the pipeline, the HTML renderer, the sources reader and
#: what they stand on, nothing else
_LIBRARY_PACKAGES = {
    "citerender",
    "citerender.codes",
    "citerender.diagnostics",
    "citerender.errors",
    "citerender.evidence",  # the sentence boundaries claims are cut at (a constant)
    "citerender.formats",  # the dialects' forms
    "citerender.lazy_re",  # patterns compiled on first use
    "citerender.options",
    "citerender.plugin",
    "citerender.records",  # dataclasses compiled in one method
    "citerender.rendering",
    "citerender.sources",
    "citerender.syntax",
}


@pytest.fixture(scope="module")
def answer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("startup")
    a, s = d / "answer.md", d / "answer.sources.json"
    a.write_text(
        "# Boiling\n\nWater boils at 100 °C at sea level.\ue200cite\ue202doc1\ue202L1-L2\ue201 "
        "It boils lower on a mountain.\ue200cite\ue202doc2\ue201\n",
        encoding="utf-8",
    )
    s.write_text(
        json.dumps(
            {
                "sources": [
                    {
                        "id": "doc1",
                        "title": "Water",
                        "url": "https://example.org/w",
                        "lines": ["Water boils", "at 100 °C."],
                    },
                    {"id": "doc2", "title": "Altitude", "text": "Lower pressure, lower boiling point."},
                ]
            }
        ),
        encoding="utf-8",
    )
    return a, s


def _loaded(tmp: Path, *args: str) -> list[str]:
    out = tmp / "modules.json"
    done = subprocess.run([sys.executable, "-c", _PROBE, str(out), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize(
    "command",
    [
        ["render", "{a}", "--sources", "{s}", "-o", "{out}"],
        ["render", "{a}", "--sources", "{s}", "--standalone", "-o", "{out}"],
        ["check", "{a}", "--sources", "{s}"],
        ["strip", "{a}"],
        ["prompt"],
        ["units", "{s}"],
    ],
    ids=["render", "render-standalone", "check", "strip", "prompt", "units"],
)
def test_a_command_on_a_markdown_answer_loads_only_what_it_needs(
    command: list[str], answer: tuple[Path, Path], tmp_path: Path
) -> None:
    a, s = answer
    args = [c.format(a=a, s=s, out=tmp_path / "page.html") for c in command]
    loaded = _loaded(tmp_path, *args)
    # strip writes the answer back as Markdown: the source-preserving writer is its work
    needs = {"parsed", "markdown", "nesting", "bare_links"} if command[0] == "strip" else set()
    stray = [m for m in loaded if _NEVER.match(m) and m.rsplit(".", 1)[-1] not in needs]
    assert not stray, f"{command[0]} loaded {stray}"
    assert "citerender.cli" in loaded  # it did run through the console entry point
    if command[0] == "render":
        assert "citerender.rendering.html" in loaded and (tmp_path / "page.html").stat().st_size > 0


def test_importing_the_library_and_rendering_loads_the_core_only(answer: tuple[Path, Path]) -> None:
    a, s = answer
    done = subprocess.run([sys.executable, "-c", _LIBRARY, str(a), str(s)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    packages = {".".join(m.split(".")[:2]) for m in loaded}
    assert packages <= _LIBRARY_PACKAGES, sorted(packages - _LIBRARY_PACKAGES)
    assert not [m for m in loaded if m.startswith("citerender.rendering.exports.")]


def test_cjk_is_told_by_bisection_exactly_as_the_drafts_character_class() -> None:
    """The CJK ranges are looked up without compiling their character class at start-up; the
    class, compiled here, is the reference for every code point."""
    cls = re.compile(
        "[\u1100-\u11ff\u2e80-\u2fdf\u2ff0-\u303f\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff"
        "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef"
        "\U0001b000-\U0001b16f\U00020000-\U0003134f]"
    )
    wrong = [c for c in range(0x110000) if (cls.match(chr(c)) is not None) != is_cjk(chr(c))]
    assert wrong == []
    assert has_cjk("ASCII – “quotes” 😀 and 한국어") and not has_cjk("ASCII – “quotes” 😀 Ελληνικά")
