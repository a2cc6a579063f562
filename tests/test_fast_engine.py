"""``engine="fast"`` (comrak) against the default engine: the same citations, numbering,
bibliography and diagnostics on every fixture, HTML equal there too; on the fuzz corpus the same
references and validity diagnostics, and the same safety (docs/fast-engine.md lists what differs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import test_render
from bs4 import BeautifulSoup
from conftest import FIXTURES, assert_no_marker, expand
from hypothesis import HealthCheck, given, settings
from markdown_it.utils import read_fixture_file
from test_fuzz import answers, assert_no_live_script_url, assert_well_formed, registries

from citerender import RenderOptions, load_sources, render
from citerender.errors import CiterenderError
from citerender.sources.model import Registry

REG = load_sources(FIXTURES / "diagnostics.sources.json")
CASES = [
    (name, line, title, text)
    for name in ("diagnostics.md", "render.md", "dialects.md")
    for line, title, text, _ in read_fixture_file(FIXTURES / name)
]


def _both(text: str, registry: Registry | None, **kw: object) -> tuple[object, object]:
    opts = RenderOptions.build(None, markdown="commonmark", **kw)  # type: ignore[arg-type]
    return render(text, registry, opts), render(text, registry, opts, engine="fast")


def _refs(r: object) -> list[tuple[int, str, bool, list[str]]]:
    return [(x.number, x.source.id, x.known, [p.anchor for p in x.places]) for x in r.bibliography]  # type: ignore[attr-defined]


def _diags(r: object) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.line, d.column, d.message) for d in r.diagnostics]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "line", "title", "text"), CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_every_fixture_renders_the_same(name: str, line: int, title: str, text: str) -> None:
    registry = None if "[no sources]" in title else (test_render.REG if name == "render.md" else REG)
    style = title.split(":", 1)[0] if name == "render.md" else "footnotes"
    repo = str(FIXTURES / "repo") if "[repo]" in title else None
    default, fast = _both(expand(text), registry, style=style, unknown="keep", repo=repo)
    assert _diags(fast) == _diags(default)
    assert _refs(fast) == _refs(default)
    assert fast.html == default.html  # type: ignore[attr-defined]


@pytest.mark.parametrize("style", ["footnotes", "superscript", "hovercard", "pills"])
def test_the_bundled_example_renders_the_same(style: str) -> None:
    root = Path(__file__).resolve().parent.parent / "examples" / "handbook"
    text = (root / "answer.md").read_text(encoding="utf-8")
    default, fast = _both(text, load_sources(root / "answer.sources.json"), style=style, standalone=True)
    assert fast.html == default.html  # type: ignore[attr-defined]
    assert _diags(fast) == _diags(default)


def _cites(html: str) -> list[tuple[str, str]]:
    soup = BeautifulSoup(html, "html.parser")
    return [(el["id"], el.get_text()) for el in soup.select(".citerender-cite")]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(answers, registries())
def test_fuzz_corpus_same_citations_and_safety(text: str, reg: Registry) -> None:
    try:
        default, fast = _both(text, reg, unknown="keep", style="hovercard")
    except CiterenderError:
        return
    assert _refs(fast) == _refs(default)
    assert _cites(fast.html) == _cites(default.html)  # type: ignore[attr-defined]
    if "](" not in text:  # markers in a would-be link destination may differ (docs/fast-engine.md)
        validity = re.compile(r"CR[12]")  # what a marker says of itself; placement may differ
        assert [d for d in _diags(fast) if validity.match(d[0])] == [d for d in _diags(default) if validity.match(d[0])]
    assert_no_marker(fast.html)  # type: ignore[attr-defined]
    assert_well_formed(fast.html)  # type: ignore[attr-defined]
    assert_no_live_script_url(fast.html)  # type: ignore[attr-defined]


def test_placement_checks_read_from_where_the_placeholder_lands() -> None:
    text = "In *bold\ue200cite\ue202turn0file0\ue201* and [a link\ue200cite\ue202turn0file1\ue201](https://x.example)."
    default, fast = _both(text, REG)
    codes = [d[0] for d in _diags(default)]
    assert [d[0] for d in _diags(fast)] == codes
    assert {"CR301", "CR309"} <= set(codes)
    assert fast.html == default.html  # type: ignore[attr-defined]


def test_code_keeps_the_authors_text() -> None:
    text = 'Use `"\\ue200" + entity["people","Ada"]` and\n\n```py\nx = "\ue200cite\ue202a\ue201"\n```\n'
    default, fast = _both(text, REG)
    assert fast.html == default.html  # type: ignore[attr-defined]
    assert _diags(fast) == _diags(default)


def test_the_fast_engine_implies_its_preset_and_refuses_another() -> None:
    assert RenderOptions.build(None, engine="fast").markdown == "commonmark"
    with pytest.raises(ValueError, match="markdown='commonmark'"):
        RenderOptions(engine="fast", markdown="full")


def test_an_answer_holding_placeholder_characters_uses_the_default_engine() -> None:
    text = "Odd \ue0f0\ue0e0\ue0f1 text.\ue200cite\ue202turn0file0\ue201"
    default, fast = _both(text, REG)
    assert fast.html == default.html  # type: ignore[attr-defined]


def test_command_line_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citerender.cli import main

    root = Path(__file__).resolve().parent.parent / "examples" / "handbook"
    args = ["render", str(root / "answer.md"), "--sources", str(root / "answer.sources.json")]
    assert main([*args, "--engine", "fast", "-o", str(tmp_path / "fast.html")]) == 0
    assert main([*args, "--markdown", "commonmark", "-o", str(tmp_path / "default.html")]) == 0
    assert (tmp_path / "fast.html").read_text(encoding="utf-8") == (tmp_path / "default.html").read_text(
        encoding="utf-8"
    )
    assert main([*args, "--engine", "fast", "--to", "markdown"]) == 2  # no HTML engine in an export
    assert "--engine has no effect with --to markdown" in capsys.readouterr().err


def _far_apart(cases: list[tuple[str, int, str, str]]) -> str:
    """The fixtures' answers as one page, each after a few paragraphs without citations, so the
    splice pass copies long stretches at rest between them."""
    filler = "Plain text with *emphasis*, `code`, ~~struck~~ and a [link](https://x.example).\n\n| a | b |\n|---|---|\n| 1 |   |\n"
    parts = [expand(text) for name, _, title, text in cases if name != "render.md" and "](" not in text]
    return "\n\n".join(f"{filler}\n\n- item\n- item\n\n{p}" for p in parts)


def test_stretches_between_citations_are_copied_as_read() -> None:
    page = _far_apart(CASES)
    for images in ("text", "keep"):
        default, fast = _both(page, REG, unknown="keep", images=images)
        assert _diags(fast) == _diags(default)
        assert fast.html == default.html  # type: ignore[attr-defined]


def test_what_a_copied_stretch_holds_is_still_checked() -> None:
    text = (
        "Intro with turn0file1 written out.\n\nA refused [link](javascript:alert(1)) and ![pic](https://x.example/a.png).\n\n"
        "Plain.\n\nLast.\ue200cite\ue202turn0file0\ue201 Also.\ue200cite\ue202turn0file1\ue201\n"
    )
    default, fast = _both(text, REG, images="text")
    assert "CR307" in [d[0] for d in _diags(fast)]
    assert _diags(fast) == _diags(default)
    assert fast.html == default.html  # type: ignore[attr-defined]


def test_grouped_at_the_end_counts_the_paragraphs_copied_whole() -> None:
    text = "First.\n\nSecond.\n\nThird.\n\nAll of it.\ue200cite\ue202turn0file0\ue201\ue200cite\ue202turn0file1\ue201\n"
    default, fast = _both(text, REG)
    assert "CR305" in [d[0] for d in _diags(default)]
    assert _diags(fast) == _diags(default)


def test_placeholder_lookalikes_written_by_the_author() -> None:
    marker = "\ue200cite\ue202turn0file0\ue201"
    odd_ones = (
        "a \ue0e3 b",
        "[x](https://e.example/%ee%83%b0%EE%83%A0%EE%83%B1)",
        "a \ue0f1 b",
        "&#xE0F0;&#xE0E0;&#xE0F1; and &#57584;&#57568;&#57585;",
        "[x](https://e.example/&#xe0f0;&#xe0e0;&#xe0f1;)",
    )
    for odd in odd_ones:
        default, fast = _both(f"{odd} text.{marker}", REG)
        assert fast.html == default.html, odd  # type: ignore[attr-defined]
        assert _diags(fast) == _diags(default)


def test_code_before_a_copy_paste_form_is_text_and_not_its_place() -> None:
    for text in ("`citeturn0file0`citeturn0file0", "`code`\ue200cite\ue202turn0file0\ue201"):
        default, fast = _both(text, REG)
        assert _diags(fast) == _diags(default), text
        assert "CR306" not in [d[0] for d in _diags(fast)]
    default, _ = _both("`citeturn0file0`citeturn0file0", REG)
    marks = [d for d in _diags(default) if d[0] in ("CR101", "CR202")]
    assert marks and {d[2] for d in marks} == {17}  # the form outside the code, not the one in it
