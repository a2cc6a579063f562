"""Emphasis beside CJK text is bold as ChatGPT shows it (issue 45 §4): bold that closes after ``)``,
``」``, ``）`` or ``”`` right before Hangul, kana or Han, and bold that opens right after Han and
before ``「``; in ``render`` and on export pages; English emphasis and CommonMark unchanged; a
citation marker right after CJK bold keeps both rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import DATA, chat_conversation, run_cli
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from citerender import render
from citerender.plugin import citation_plugin
from citerender.providers.exports import read_conversations
from citerender.publish.conversations import conversation_page
from citerender.rendering.full_preset import add_cjk_emphasis
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
REG = registry_from_data(
    [
        {"id": "turn0search0", "title": "시세", "url": "https://finance.example/kr"},
        {"id": "turn0search1", "title": "辞書", "url": "https://dict.example/ja"},
    ]
)

#: (answer, the bold text it must show)
CASES = [
    ("**삼성전자(005930)**는 어제 올랐습니다.", "삼성전자(005930)"),  # Korean: ``)`` then Hangul
    ("오늘 **「회의」**가 있습니다.", "「회의」"),  # Korean: ``」`` then Hangul
    ("**東京（とうきょう）**は日本の首都です。", "東京（とうきょう）"),  # Japanese: ``）`` then kana
    ("これは**「重要」**です。", "「重要」"),  # Japanese: ``」`` then kana
    ("**大阪（おおさか）**市", "大阪（おおさか）"),  # Japanese: ``）`` then Han
    ("他说**“好的”**了。", "“好的”"),  # Chinese: opens after Han before ``“``, closes after ``”`` before Han
    ("这是中文**「引用」**文字。", "「引用」"),  # Chinese: opens after Han, before ``「``
    ("**北京（Beijing）**是首都。", "北京（Beijing）"),  # Chinese: ``）`` then Han
]


def _strong(html: str) -> tuple[list[str], str]:
    soup = BeautifulSoup(html, "html.parser")
    return [s.get_text() for s in soup.find_all("strong")], soup.get_text()


@pytest.mark.parametrize(("answer", "bold"), CASES)
def test_cjk_bold_beside_punctuation_renders_bold(answer: str, bold: str) -> None:
    strong, text = _strong(render(answer).body)
    assert strong == [bold]
    assert "**" not in text


@pytest.mark.parametrize(
    "answer",
    [
        "An **English** *word*, **bold.**Next, a**b**c, foo*bar*, **(paren)**word, *a*b_c_d",
        "__under__score and _em_, snake_case_name, 2*3*4, ** not **, **「bracket」**x",
    ],
)
def test_english_emphasis_is_unchanged(answer: str) -> None:
    assert render(answer).body == render(answer, markdown="commonmark").body


def test_commonmark_examples_are_unchanged_by_the_cjk_rule() -> None:
    spec = json.loads((DATA / "commonmark-spec.json").read_text(encoding="utf-8"))
    plain = MarkdownIt("commonmark")
    cjk = MarkdownIt("commonmark")
    add_cjk_emphasis(cjk, frozenset())
    assert [ex["example"] for ex in spec if cjk.render(ex["markdown"]) != plain.render(ex["markdown"])] == []
    plugged = MarkdownIt("commonmark").use(citation_plugin, registry=REG)
    both = MarkdownIt("commonmark").use(citation_plugin, registry=REG)
    add_cjk_emphasis(both, frozenset("\ue200\ue201\ue202"))
    assert [ex["example"] for ex in spec if both.render(ex["markdown"]) != plugged.render(ex["markdown"])] == []


def test_the_strict_preset_stays_strict() -> None:
    strong, text = _strong(render("**삼성전자(005930)**는", markdown="commonmark").body)
    assert strong == [] and "**" in text


@pytest.mark.parametrize(
    ("answer", "bold", "before"),
    [
        (f"**삼성전자(005930)**{S}cite{D}turn0search0{E}는 올랐다.", "삼성전자(005930)", "는"),
        (f"これは**「重要」**{S}cite{D}turn0search1{E}です。", "「重要」", "です"),
        (f"这是中文{S}cite{D}turn0search1{E}**「引用」**文字。", "「引用」", "文字"),
        (f"他说**“好”**{S}cite{D}turn0search0{E}{S}cite{D}turn0search1{E}了。", "“好”", "了"),
    ],
)
def test_a_marker_right_after_cjk_bold(answer: str, bold: str, before: str) -> None:
    r = render(answer, REG, style="hovercard")
    soup = BeautifulSoup(r.body, "html.parser")
    assert [s.get_text() for s in soup.find_all("strong")] == [bold]
    paragraph = soup.find("p")
    assert paragraph is not None
    text = paragraph.get_text()
    assert "**" not in text and S not in r.body and "cite" not in text.replace("citerender", "")
    assert soup.select(".citerender-cite a[href]")  # the citation is a link
    assert text.index(bold) + len(bold) <= text.index(before)  # the words after the bold stay after it
    assert not [d for d in r.diagnostics if d.code.startswith("CR1") and d.severity.value == "error"]


def test_cjk_code_stays_as_written() -> None:
    soup = BeautifulSoup(render("`**「重要」**です`\n\n```\n**삼성(1)**는\n```\n").body, "html.parser")
    assert soup.find("strong") is None
    assert [c.get_text() for c in soup.find_all("code")] == ["**「重要」**です", "**삼성(1)**는\n"]


def test_export_pages_show_cjk_bold(tmp_path: Path) -> None:
    answer = "\n\n".join(a for a, _ in CASES)
    conv = chat_conversation(
        "태그 テスト 测试",
        [("user", "한국어, 日本語, 中文で**「太字」**を"), ("assistant", answer)],
        "conv-cjk",
        1_767_100_000.0,
    )
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([conv], ensure_ascii=False), encoding="utf-8")
    (c,) = read_conversations(export)
    page, _ = conversation_page(c)
    strong, text = _strong(page)
    assert strong == ["「太字」"] + [b for _, b in CASES]
    assert "**" not in text
    out = tmp_path / "site"
    assert run_cli("build", str(export), str(out)).returncode in (0, 1)
    (built,) = (out / "c").glob("*.html")
    strong, text = _strong(built.read_text(encoding="utf-8"))
    assert len(strong) == len(CASES) + 1 and "**" not in text


def test_render_on_the_command_line(tmp_path: Path) -> None:
    src = tmp_path / "answer.md"
    src.write_text("\n\n".join(a for a, _ in CASES), encoding="utf-8")
    out = tmp_path / "page.html"
    r = run_cli("render", str(src), "--standalone", "-o", str(out))
    assert r.returncode == 0, r.stderr
    strong, text = _strong(out.read_text(encoding="utf-8"))
    assert strong == [b for _, b in CASES] and "**" not in text


_CJK_PROBE = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x7E),
        st.characters(min_codepoint=0x1000, max_codepoint=0x1200),  # Hangul jamo and around
        st.characters(min_codepoint=0x2E00, max_codepoint=0x3100),
        st.characters(min_codepoint=0xD700, max_codepoint=0xD7FF),
        st.characters(min_codepoint=0xE000, max_codepoint=0xF8FF),  # private use: the markers
        st.characters(min_codepoint=0xF900, max_codepoint=0xFFFF),
        st.characters(min_codepoint=0x1B000, max_codepoint=0x1F6FF),  # kana supplement, emoji
        st.characters(min_codepoint=0x20000, max_codepoint=0x20100),
    ),
    max_size=12,
)


@given(_CJK_PROBE)
def test_has_cjk_is_any_character_being_cjk(text: str) -> None:
    """The C search for what may be CJK finds exactly what the per-character check would
    (the private-use markers skipped, jamo and the planes above U+FFFF kept)."""
    from citerender.rendering.full_preset import has_cjk, is_cjk

    assert has_cjk(text) == any(is_cjk(ch) for ch in text)
