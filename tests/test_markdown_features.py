"""Markdown as models write it (the ``full`` preset) and code kept as written: fixture cases,
the exact inputs of the issue, and the neutrality property for both presets."""

from __future__ import annotations

import json
import os

import pytest
from bs4 import BeautifulSoup
from conftest import DATA, FIXTURES, expand
from hypothesis import assume, given
from hypothesis import strategies as st
from markdown_it.token import Token
from markdown_it.utils import read_fixture_file

from citerender import RenderOptions, render
from citerender.rendering.exports.json import to_json_data
from citerender.rendering.exports.markdown import to_markdown, to_stripped
from citerender.rendering.exports.parsed import parse_answer
from citerender.rendering.exports.text import to_text
from citerender.rendering.full_preset import roman
from citerender.rendering.mathml import math_html
from citerender.rendering.pipeline import make_markdown
from citerender.sources.model import registry_from_data
from citerender.syntax.residue import has_residue
from citerender.syntax.scanner import scan

UPDATE = bool(os.environ.get("CITERENDER_UPDATE_GOLDEN"))
FIXTURE = FIXTURES / "features.md"
CASES = read_fixture_file(FIXTURE)
REG = registry_from_data(
    [
        {"id": "turn0file0", "title": "Alpha", "url": "https://alpha.example/doc", "lines": ["one", "two"]},
        {"id": "turn0file1", "title": "Beta", "url": "https://beta.example/"},
    ]
)
SPEC = json.loads((DATA / "commonmark-spec.json").read_text(encoding="utf-8"))


def _options(title: str) -> dict[str, str]:
    """``key=value`` words before the title's colon are render options."""
    head = title.split(": ", 1)[0]
    return dict(word.split("=", 1) for word in head.split() if "=" in word)


@pytest.mark.parametrize(("line", "title", "text", "expected"), CASES, ids=[c[1] for c in CASES])
def test_feature_fixture(line: int, title: str, text: str, expected: str) -> None:
    kw = _options(title)
    if kw.get("repo"):
        kw["repo"] = str(FIXTURES / kw["repo"])
    html = render(expand(text), REG, **kw).html  # type: ignore[arg-type]
    if UPDATE:
        body = FIXTURE.read_text(encoding="utf-8")
        head = f"{title}\n.\n{text}.\n"
        at = body.index(head) + len(head)
        end = body.index("\n.\n", at) + 1 if expected.strip() else at
        FIXTURE.write_text(body[:at] + html.rstrip("\n") + "\n" + body[end:], encoding="utf-8")
        return
    assert html.rstrip("\n") == expected.rstrip("\n"), f"{title} (fixture line {line})"


# ---------------------------------------------------------------------- the exact inputs

CODE_KEPT = [
    '```python\nname = entity["name"]\n```\n',
    'Inline `entity["name"]` stays.\n',
    '```python\nSTART, STOP = "\\ue200", "\\ue201"\n```\n',
    'Quote `"\\ue200cite\\ue202turn0file0\\ue201"` as the guide does.\n',
    "```\n【cite|turn0file0】 citeturn0file0 &#xE200;\n```\n",
    '    indented `entity["people", "Ada"]` \\ue200\n',
    "> ```js\n> const m = '\\ue200cite\\ue202' + id + '\\ue201';\n> ```\n",
]


@pytest.mark.parametrize("text", CODE_KEPT)
def test_code_is_kept_exactly_in_every_output(text: str) -> None:
    """Inside code only the invisible characters go: HTML, Markdown, text, JSON, strip."""
    code = [t for t in make_markdown(RenderOptions(), citations=False).parse(text) if t.type in ("fence", "code_block")]
    r = render(text, REG)
    doc = BeautifulSoup(r.body, "html.parser")
    shown = [c.get_text() for c in doc.find_all("code")]
    if code:
        assert shown[-1] == code[-1].content
    else:
        assert any(s in text for s in shown if s)
    assert not [d for d in r.diagnostics if d.code in ("CR302", "CR109")]
    p = parse_answer(text, REG)
    assert to_stripped(p) == text  # nothing to remove: every character kept
    assert to_markdown(p) == text
    assert to_json_data(p)["text"] == text


def test_copy_residue_leaves_code_in_every_output_unless_kept() -> None:
    """ChatGPT's copy residue is never the author's code: it goes from code blocks and spans as from
    prose, reported (CR212), in HTML, Markdown, text and JSON; ``keep_code_residue`` keeps it for a
    page that documents it."""
    text = (
        "```js\n// allow key events :contentReference[oaicite:4]{index=4}\nlisten()\n```\n\n"
        "Run `make:contentReference[oaicite:1]{index=1}` now.\n"
    )
    clean = "```js\n// allow key events \nlisten()\n```\n\nRun `make` now.\n"
    r = render(text, REG)
    assert [c.get_text() for c in BeautifulSoup(r.body, "html.parser").find_all("code")] == [
        "// allow key events \nlisten()\n",
        "make",
    ]
    assert [(d.code, d.line) for d in r.diagnostics if d.code == "CR212"] == [("CR212", 2), ("CR212", 6)]
    p = parse_answer(text, REG)
    assert to_markdown(p) == clean and to_stripped(p) == clean and to_json_data(p)["text"] == clean
    kept = render(text, REG, keep_code_residue=True)
    assert "allow key events :contentReference[oaicite:4]{index=4}" in kept.body
    assert not [d for d in kept.diagnostics if d.code == "CR212"]
    assert to_markdown(parse_answer(text, REG, keep_code_residue=True)) == text
    # a code span holding nothing else: emptied, and its two backtick runs stay two (never one of four)
    only = "``:contentReference[oaicite:1]{index=1}`` stays.\n"
    assert to_markdown(parse_answer(only, REG)) == "``\u200b`` stays.\n"


def test_invisible_characters_leave_code_and_are_reported() -> None:
    text = "Run `make\ue200cite\ue202turn0file0\ue201` now.\n\n```\nx\ue203 = 1\n```\n"
    r = render(text, REG)
    assert [c.get_text() for c in BeautifulSoup(r.body, "html.parser").find_all("code")] == [
        "makeciteturn0file0",
        "x = 1\n",
    ]
    assert [(d.code, d.line) for d in r.diagnostics if d.code == "CR302"] == [("CR302", 1), ("CR302", 4)]
    p = parse_answer(text, REG)
    assert to_stripped(p) == "Run `makeciteturn0file0` now.\n\n```\nx = 1\n```\n"


def test_prose_that_only_looks_like_an_entity_is_kept() -> None:
    text = 'Use config.entity["people"] and entity["name"] in prose.\n'
    assert BeautifulSoup(render(text, REG).body, "html.parser").get_text().strip() == text.strip()


def test_json_doubled_entity_keeps_its_name() -> None:
    text = 'Written by \\\\ue200entity\\\\ue202[\\\\"people\\\\", \\\\"Ada Lovelace\\\\", 0]\\\\ue201 wrote it.\n'
    r = render(text, REG)
    assert BeautifulSoup(r.body, "html.parser").get_text().strip() == "Written by Ada Lovelace wrote it."


def test_streams_keep_code_too() -> None:
    from citerender import StreamRenderer

    text = 'Say `"\\ue200"` now.\n\n```\nSTART = "\\ue200cite"\n```\n\nok\ue200cite\ue202turn0file0\ue201\n'
    for step in (1, 3, 7, len(text)):
        s = StreamRenderer(REG)
        out = "".join(s.feed(text[i : i + step]) for i in range(0, len(text), step)) + s.close()
        assert '`"\\ue200"`' in out and 'START = "\\ue200cite"' in out and "ok[^1]" in out, step


# ---------------------------------------------------------------------- features


def test_math_is_mathml_never_script() -> None:
    for tex in (r"\text{<script>alert(1)</script>}", r"\href{javascript:alert(1)}{x}", r"\style{color:red}{x}"):
        html = math_html(tex)
        assert "<script" not in html and "javascript:" not in html and "style=" not in html
    assert math_html(r"\frac{1}{").startswith('<code class="citerender-math-error"')
    assert math_html("x^2").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"')
    assert roman(14) == "xiv" and roman(1) == "i"


def test_notes_and_sources_are_distinct_series_in_the_markdown_export() -> None:
    text = "Remote work.[^1] Claim.\ue200cite\ue202turn0file0\ue201\n\n[^1]: The author's note.\n"
    md = to_markdown(parse_answer(text, REG))
    assert "[^1]: The author's note." in md and "[^s1]: Alpha" in md and "Claim.[^s1]" in md
    assert "[i]" not in to_text(parse_answer(text, REG))


# ---------------------------------------------------------------------- neutrality

_PROSE = st.lists(
    st.sampled_from([*"ab cd\n*_`[]()!<>#-$\\^:|1.xyz【】†", "entity", "cite", "turn0file0", "www.", "https://"]),
    max_size=40,
).map("".join)
_CODE = st.lists(
    st.sampled_from(
        [
            *"ab =\"'[]{}|\\:",
            "\\ue200",
            "&#xE200;",
            'entity["people", "Ada"]',
            "citeturn0file0",
            "【cite|turn0file0】",
            "%EE%88%80",
            "\\u{E201}",
        ]
    ),
    min_size=1,
    max_size=20,
).map("".join)


def _marks_outside_code(tokens: list[Token]) -> bool:
    """Does any text outside code spans and blocks hold a mark or residue?"""
    texts: list[str] = []
    for tok in tokens:
        if tok.type in ("fence", "code_block"):
            continue
        if tok.children:
            texts.extend(c.content for c in tok.children if c.type != "code_inline")
            texts.extend(str(v) for c in tok.children for v in (c.attrs or {}).values())
        else:
            texts.append(tok.content)
    joined = "\n".join(texts)
    return bool(scan(joined)) or has_residue(joined)


@given(st.lists(st.tuples(_PROSE, _CODE, st.booleans()), max_size=4), st.sampled_from(["full", "commonmark"]))
def test_no_marker_no_change(parts: list[tuple[str, str, bool]], preset: str) -> None:
    """For text without reserved characters and without a visible marker form outside code, the
    plugin changes nothing, and code comes out character for character."""
    pieces = []
    for prose, code, block in parts:
        assume(not scan(prose) and not has_residue(prose))
        code = code.replace("`", "")
        pieces.append(prose)
        pieces.append(f"\n\n```\n{code}\n```\n\n" if block else f" `` {code} `` ")
    text = "".join(pieces)
    opts = RenderOptions(markdown=preset)  # type: ignore[arg-type]
    plain = make_markdown(opts, citations=False)
    plugged = make_markdown(opts)
    assume(not _marks_outside_code(plain.parse(text)))  # as parsed: no marker form outside code
    assert plugged.render(text) == plain.render(text)


@pytest.mark.parametrize("preset", ["full", "commonmark"])
def test_every_spec_example_is_unchanged_in_both_presets(preset: str) -> None:
    opts = RenderOptions(markdown=preset)  # type: ignore[arg-type]
    plain, plugged = make_markdown(opts, citations=False), make_markdown(opts)
    differ = [ex["example"] for ex in SPEC if plugged.render(ex["markdown"]) != plain.render(ex["markdown"])]
    assert differ == []
