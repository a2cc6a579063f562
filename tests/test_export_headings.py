"""A conversation page has one ``h1``, the conversation's title, and its ``<title>`` says the same:
the answers' own headings (``#`` included) go one level down, ``h6`` staying ``h6`` (issue 45 §4)."""

from __future__ import annotations

import json
from pathlib import Path

from bs4 import BeautifulSoup
from conftest import FIXTURES, chat_conversation, run_cli

from citerender.providers.exports import read_conversations
from citerender.publish.conversations import conversation_page

REAL = FIXTURES / "chatgpt" / "real" / "best-mice.json"
ANSWER = (
    "# Plan de voyage\n\nIntro paragraph.\n\n## Jour un\n\nText.\n\n### Matin\n\n"
    "###### Note fine\n\nSetext title\n============\n\n```md\n# not a heading\n```\n"
)


def _export(tmp_path: Path) -> Path:
    """An export of its own: two answers that open with a ``#`` heading, and a user turn with one."""
    turns = [
        ("user", "# My question\n\nPlan a trip to Lyon?"),
        ("assistant", ANSWER),
        ("user", "And day two?"),
        ("assistant", "# Jour deux\n\nMusées.\n"),
    ]
    conv = chat_conversation("Lyon weekend", turns, "conv-lyon")
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conv], ensure_ascii=False), encoding="utf-8")
    return path


def _one_h1_titled(page: str, title: str) -> BeautifulSoup:
    soup = BeautifulSoup(page, "html.parser")
    h1s = soup.find_all("h1")
    assert [h.get_text(strip=True) for h in h1s] == [title]
    assert soup.title is not None and soup.title.get_text() == title
    return soup


def _headings(soup: BeautifulSoup) -> list[tuple[str, str]]:
    body = soup.select(".citerender-turn-body")
    return [(h.name, h.get_text(strip=True)) for b in body for h in b.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])]


def test_answers_that_open_with_a_hash_heading_sit_under_the_title(tmp_path: Path) -> None:
    export = _export(tmp_path)
    (conv,) = read_conversations(export)
    page, _ = conversation_page(conv)
    soup = _one_h1_titled(page, "Lyon weekend")
    assert ("h2", "My question") in _headings(soup)  # the user's own heading too
    assert [h for h in _headings(soup) if h[1] != "My question" and not h[1].startswith("Sources")] == [
        ("h2", "Plan de voyage"),
        ("h3", "Jour un"),
        ("h4", "Matin"),
        ("h6", "Note fine"),  # h6 stays h6
        ("h2", "Setext title"),
        ("h2", "Jour deux"),
    ]
    assert "# not a heading" in soup.get_text()  # code stays as written


def test_the_built_site_has_one_h1_per_page_the_title(tmp_path: Path) -> None:
    out = tmp_path / "site"
    r = run_cli("build", str(_export(tmp_path)), str(out))
    assert r.returncode in (0, 1), r.stderr
    (page,) = (out / "c").glob("*.html")
    soup = _one_h1_titled(page.read_text(encoding="utf-8"), "Lyon weekend")
    assert soup.find("h1") is not None and soup.find("h1").find_parent("main") is not None  # type: ignore[union-attr]


def test_the_real_export_pages_have_one_h1_each_the_conversation_title(tmp_path: Path) -> None:
    convs = list(read_conversations(REAL))
    assert len(convs) == 4
    demoted = 0
    for conv in convs:
        page, _ = conversation_page(conv)
        soup = _one_h1_titled(page, conv.title)
        levels = [name for name, _ in _headings(soup)]
        assert "h1" not in levels, levels  # the title is the page's one h1
        assert not levels or "h2" in levels, levels  # an answer opening at ``###`` sits right under it
        demoted += levels.count("h2")
    assert demoted >= 10
    out = tmp_path / "site"
    r = run_cli("build", str(REAL), str(out), "--style", "hovercard")
    assert r.returncode in (0, 1), r.stderr
    titles = {c.title for c in convs}
    pages = sorted((out / "c").glob("*.html"))
    assert len(pages) == 4
    for p in pages:
        soup = BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")
        (h1,) = soup.find_all("h1")
        assert h1.get_text(strip=True) in titles and soup.title is not None
        assert soup.title.get_text() == h1.get_text(strip=True)
