"""A page declares the language of its answer's letters (issue 45 §4): an Arabic answer is ``ar``, a
Hebrew one ``he`` (Persian and Urdu ``fa`` / ``ur`` only when their letters say so), an English one
stays ``en``; citation markers, code and URLs (Latin letters) do not sway it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import chat_conversation, run_cli

from citerender import render
from citerender.providers.exports import read_conversations
from citerender.publish.conversations import conversation_page
from citerender.rendering.html import answer_lang
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
IDS = [f"turn0search{i}" for i in range(6)]
REG = registry_from_data([{"id": i, "title": f"Source {i}", "url": f"https://news.example/{i}"} for i in IDS])
MARKS = "".join(f"{S}cite{D}{i}{E}" for i in IDS)  # six citations: 70-odd Latin letters of ids

ARABIC = (
    f"## الطقس في القاهرة\n\nتصل درجات الحرارة إلى أربعين درجة في الصيف.{MARKS}\n\n"
    "- **الرطوبة** منخفضة\n- انظر `curl https://api.example/weather?city=cairo`\n"
)
HEBREW = f"# מזג האוויר בתל אביב\n\nהטמפרטורה מגיעה לשלושים מעלות בקיץ.{MARKS}\n\nראו [האתר](https://weather.example/telaviv)."
ENGLISH = f"# Weather in Cairo\n\nTemperatures reach forty degrees (القاهرة means Cairo).{MARKS}\n"
PERSIAN = "هوای تهران در تابستان گرم است و پاییز کوتاه."
URDU = "کراچی میں گرمیوں کا موسم بہت گرم ہوتا ہے۔"


def _lang_above_text(html: str, words: str) -> str:
    """The ``lang`` of the nearest element at or above the one holding ``words``."""
    soup = BeautifulSoup(html, "html.parser")
    node = soup.find(string=lambda s: s is not None and words in s)
    assert node is not None, words
    el = node.parent
    while el is not None and not el.get("lang"):
        el = el.parent
    assert el is not None
    return str(el["lang"])


@pytest.mark.parametrize(
    ("answer", "words", "lang"),
    [
        (ARABIC, "أربعين", "ar"),
        (HEBREW, "לשלושים", "he"),
        (ENGLISH, "forty degrees", "en"),
        (PERSIAN, "تهران", "fa"),
        (URDU, "کراچی", "ur"),
        ("こんにちは、**世界**。", "こんにちは", "en"),  # only Arabic and Hebrew are decided
    ],
)
def test_a_standalone_page_declares_its_answers_language(answer: str, words: str, lang: str) -> None:
    for style in ("footnotes", "hovercard"):
        r = render(answer, REG, standalone=True, style=style)
        assert _lang_above_text(r.html, words) == lang
        soup = BeautifulSoup(r.html, "html.parser")
        assert soup.html is not None and soup.html["lang"] == lang


def test_the_command_line_page(tmp_path: Path) -> None:
    for name, answer, lang in (("ar", ARABIC, "ar"), ("he", HEBREW, "he"), ("en", ENGLISH, "en")):
        src, out = tmp_path / f"{name}.md", tmp_path / f"{name}.html"
        src.write_text(answer, encoding="utf-8")
        sources = tmp_path / "sources.json"
        sources.write_text(json.dumps([{"id": i, "title": i, "url": f"https://n.example/{i}"} for i in IDS]))
        r = run_cli("render", str(src), "--sources", str(sources), "--standalone", "-o", str(out))
        assert r.returncode == 0, r.stderr
        soup = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
        assert soup.html is not None and soup.html["lang"] == lang


def test_the_rule() -> None:
    assert answer_lang("") == "en" and answer_lang("plain ascii") == "en"
    assert answer_lang("مرحبا بكم") == "ar"
    assert answer_lang("שלום עולם") == "he"
    assert answer_lang("Mostly English words here, with one word שלום") == "en"
    assert answer_lang("مرحبا", default="und") == "ar" and answer_lang("漢字", default="und") == "und"
    assert answer_lang("كتاب پاکستان") == "ar"  # an Arabic-only letter: not unambiguous Persian or Urdu


def test_an_export_page_in_hebrew(tmp_path: Path) -> None:
    conv = chat_conversation(
        "מזג אוויר",
        [("user", "מה מזג האוויר?"), ("assistant", "חם מאוד בקיץ, **שלושים** מעלות.")],
        "conv-he",
        1_767_200_000.0,
    )
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([conv], ensure_ascii=False), encoding="utf-8")
    (c,) = read_conversations(export)
    page, _ = conversation_page(c)
    assert _lang_above_text(page, "שלושים") == "he"


def test_a_folder_build_declares_each_page_language(tmp_path: Path) -> None:
    """``build`` of a folder of answers: each page says its own answer's language."""
    from conftest import run_cli

    src = tmp_path / "src"
    src.mkdir()
    (src / "he.md").write_text("שלום עולם, זו תשובה בעברית על עבודה מרחוק.\n", encoding="utf-8")
    (src / "ar.md").write_text("يمكن للموظفين العمل عن بعد ثلاثة أيام في الأسبوع.\n", encoding="utf-8")
    (src / "en.md").write_text("Employees may work remotely.\n", encoding="utf-8")
    assert run_cli("build", src, tmp_path / "out").returncode == 0
    for name, lang in (("he", "he"), ("ar", "ar"), ("en", "en")):
        page = (tmp_path / "out" / f"{name}.html").read_text(encoding="utf-8")
        assert f'<html lang="{lang}"' in page, name
