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

from citerender.errors import CiterenderError
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
    print(json.dumps(sorted(sys.modules)))
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
                    {
                        "id": "doc2",
                        "title": "Altitude",
                        "updated": "2024-02-29",
                        "text": "Lower pressure, lower boiling point.",
                    },
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
    if command[0] in ("render", "check"):  # no --from, no title: neither the formats' table nor the site's pass
        late = ("citerender.formats", "citerender.publish.shown", "citerender.cli.dataset")
        assert not [m for m in loaded if m.startswith(late)]
    if command[0] == "render":
        assert "citerender.rendering.html" in loaded and (tmp_path / "page.html").stat().st_size > 0


def test_importing_the_library_and_rendering_loads_the_core_only(answer: tuple[Path, Path]) -> None:
    a, s = answer
    done = subprocess.run([sys.executable, "-c", _LIBRARY, str(a), str(s)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    everything = json.loads(done.stdout)
    loaded = [m for m in everything if m.startswith("citerender")]
    packages = {".".join(m.split(".")[:2]) for m in loaded}
    assert packages <= _LIBRARY_PACKAGES, sorted(packages - _LIBRARY_PACKAGES)
    assert not [m for m in loaded if m.startswith("citerender.rendering.exports.")]
    # loaded when what they read is met: the formats' table (a dialect named), the source views (a
    # page with one), datetime (a date not written 2024-02-29), task lists (a paragraph opening
    # with "[": their module imports uuid and platform), ChatGPT's copied forms' readers
    assert not {m for m in loaded if m.startswith(("citerender.formats", "citerender.rendering.source_view"))}
    assert not {"citerender.syntax.copied", "citerender.syntax.copy_residue"} & set(loaded)  # no copied form
    assert not {"datetime", "uuid", "platform", "mdit_py_plugins.tasklists"} & set(everything)


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


def test_long_and_short_texts_are_told_cjk_alike() -> None:
    """A paragraph is looked at in Python, a long text with a compiled class: the same answers."""
    for tail in ("한", "中", "。", "\u3010", "\ue200", "😀", "–", "\u1100", "⺀", "\U00020000", ""):
        for head in ("x" * 10, "x" * 5000, "é" * 3000):
            short, long_ = head[:10] + tail, head + tail + head
            assert has_cjk(short) == has_cjk(long_) == any(map(is_cjk, tail)), (tail, len(head))


def test_a_calendar_day_is_checked_without_datetime_as_datetime_checks_it() -> None:
    from datetime import date

    from citerender.sources.fields import check_date

    for y in (1, 1900, 2000, 2023, 2024, 9999):
        for m in range(14):
            for d in range(33):
                text = f"{y:04d}-{m:02d}-{d:02d}"
                try:
                    date.fromisoformat(text)
                    ok = True
                except ValueError:
                    ok = False
                try:
                    assert check_date(f" {text} ", "s", None, None) == text
                    read = True
                except CiterenderError:
                    read = False
                assert read == ok, text
    assert check_date("2026-03-01T10:00:00+02:00", "s", None, None) == "2026-03-01T10:00:00+02:00"
    assert check_date(date(2026, 3, 1), "s", None, None) == "2026-03-01"
    for bad in ("0000-01-01", "2026-1-01", "２０２６-01-01", "yesterday"):
        with pytest.raises(CiterenderError):
            check_date(bad, "s", None, None)


def test_a_task_list_renders_its_checkboxes(tmp_path: Path) -> None:
    """Task lists' rule loads when a paragraph opens with "[": the list is GitHub's as before."""
    from bs4 import BeautifulSoup

    from citerender import render

    page = BeautifulSoup(render("- [ ] todo\n- [x] done\n- [link](https://example.org)\n").body, "html.parser")
    ul = page.select_one("ul")
    assert ul is not None and ul["class"] == ["contains-task-list"]
    items = ul.select("li")
    assert [li.get("class") for li in items] == [["task-list-item"], ["task-list-item"], None]
    boxes = [li.select_one("input[type=checkbox]") for li in items[:2]]
    assert [b is not None and b.has_attr("disabled") for b in boxes] == [True, True]
    assert [b.has_attr("checked") for b in boxes if b is not None] == [False, True]
    assert [li.get_text(strip=True) for li in items] == ["todo", "done", "link"]


def test_the_dialect_rules_openers_are_the_tables_first_characters() -> None:
    """The rule tried at every stop of the text knows where a dialect's form may start without
    loading the formats' table: its constant must be the table's ``first`` characters."""
    from citerender.formats import FORMATS
    from citerender.plugin.dialects import OPENERS

    assert set(OPENERS) == {c for f in FORMATS if f.kind == "dialect" for c in f.first}


@pytest.mark.parametrize("columns", ["60", "100", ""])
def test_the_cli_help_is_argparses_own_at_every_width(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each subcommand's parser alone, the terminal's width asked without shutil: the help is
    word for word what argparse's own formatter writes."""
    import argparse

    import citerender.cli.parser as cli_parser

    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)

    def helps() -> list[str]:
        out = []
        for command in ("render", "check", "build", "strip", None):
            top = cli_parser.build_parser(command)
            [sub] = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
            out += [top.format_help(), *(p.format_help() for p in sub.choices.values())]
        return out

    ours = helps()
    monkeypatch.setattr(cli_parser, "_Parser", argparse.ArgumentParser)
    assert ours == helps()
    assert "--from FORMAT" in ours[1] and "chatgpt-export" in ours[1]  # render's --from, from the table


def test_a_cli_render_imports_no_shutil_nor_the_formats_table(tmp_path: Path, answer: tuple[Path, Path]) -> None:
    a, s = answer
    probe = textwrap.dedent(
        """
        import json, sys
        from citerender.cli import main
        main(sys.argv[1:])
        print(json.dumps(sorted(sys.modules)))
        """
    )
    args = ["render", str(a), "--sources", str(s), "-o", str(tmp_path / "page.html")]
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert not {"shutil", "bz2", "lzma", "citerender.formats", "citerender.cli.dataset"} & loaded
    assert (tmp_path / "page.html").stat().st_size > 0


def test_the_command_leaves_its_objects_to_the_exit_and_a_caller_its_collector() -> None:
    """Run as the program (no ``argv``), the command moves what is left out of the collector's
    reach before the exit; called with ``argv`` (a test, a script), it leaves the collector as it was."""
    probe = (
        "import gc, sys\nfrom citerender.cli import main\n"
        "sys.argv = ['citerender', 'prompt']\nmain()\nas_program = gc.get_freeze_count()\ngc.unfreeze()\n"
        "main(['prompt'])\nprint(as_program, gc.get_freeze_count(), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    as_program, as_call = map(int, done.stderr.split())
    assert as_program > 10_000 and as_call == 0
    assert "citation" in done.stdout.lower()  # the prompt was written both times


def test_right_to_left_text_and_bidi_controls_are_found_as_their_classes_find_them() -> None:
    """Told with str methods (a paragraph) or the class compiled on first need (a long text): the
    classes, compiled here, are the reference for every code point."""
    from citerender.plugin.bidi_guard import _holds_control
    from citerender.plugin.direction import has_rtl

    rtl = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
    controls = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
    points = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    assert [c for c in points if (rtl.search(c) is not None) != has_rtl("é" + c)] == []
    assert [c for c in points[::97] if (rtl.search(c) is not None) != has_rtl("é" * 2100 + c)] == []
    assert [c for c in points if (controls.search(c) is not None) != _holds_control("x" + c)] == []
    assert not has_rtl("plain ascii") and not _holds_control("plain ascii")
