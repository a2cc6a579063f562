"""ChatGPT exports and transcripts as pages: which turns are shown, what each content reference
renders as, where citations link, and the site build (index, incremental rebuilds, safety), on
the synthetic export in ``fixtures/chatgpt`` (see its ``make_export.py``)."""

from __future__ import annotations

import json
import re
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, RESERVED_OR_ESCAPE, CliResult, run_cli

from citerender.errors import CiterenderError
from citerender.providers.chatgpt import is_chatgpt_export
from citerender.providers.exports import find_conversation, read_conversations
from citerender.providers.transcripts import read_transcript
from citerender.publish.conversations import build_conversations, conversation_page

EXPORT = FIXTURES / "chatgpt" / "conversations.json"
TRANSCRIPT = FIXTURES / "providers" / "transcript.json"


def _convs() -> dict[str, object]:
    return {c.id: c for c in read_conversations(EXPORT)}


def _page(cid: str, **options: object) -> BeautifulSoup:
    page, _ = conversation_page(find_conversation(EXPORT, cid), **options)  # type: ignore[arg-type]
    return BeautifulSoup(page, "html.parser")


def _cli(*args: str) -> CliResult:
    return run_cli(*args)


def test_the_export_is_recognised_and_read_in_order() -> None:
    assert is_chatgpt_export(EXPORT)
    assert not is_chatgpt_export(TRANSCRIPT)
    convs = list(read_conversations(EXPORT))
    assert [c.id for c in convs] == ["conv-remote", "conv-paris", "conv-photo", "conv-empty", "conv-branches"]
    assert [c.title for c in convs][3] == "Untitled conversation"


def test_the_current_branch_without_hidden_system_tool_or_thinking_messages() -> None:
    remote = find_conversation(EXPORT, "conv-remote")
    assert [(t.role, t.text[:30]) for t in remote.turns] == [
        ("user", "How many remote days do I get "),  # the edited wording, not the first one
        ("assistant", "## Remote days\n\nEmployees may "),
        ("user", "Thanks!"),
        ("assistant", "You're welcome."),  # its one citation names an id the export records nowhere (CR509)
    ]
    assert remote.answers == 2 and remote.model == "gpt-5"
    empty = find_conversation(EXPORT, "Untitled conversation")  # no current node: the last children
    assert [t.role for t in empty.turns] == ["user"]  # the empty answer is not shown


def test_each_content_reference_renders_as_what_it_means() -> None:
    answer = find_conversation(EXPORT, "conv-remote").turns[1]
    text = answer.text
    assert "\ue200cite\ue202turn0search0\ue202turn0ref1\ue202turn0search1\ue201" in text  # items + supporting site
    assert "Contact Acme HR for exceptions.\ue200cite\ue202turn0search2\ue201" in text  # entity (U+202F), offsets off
    assert "about 3 \\* 52 = 156 remote days." in text  # calculator, as literal Markdown
    assert "See the approved laptops: Laptop A, Laptop B" in text  # products
    assert "turn0search9" not in text  # hidden: nothing
    assert "sunny, 21 °C" in text and answer.notes == [
        ("CR501", "content reference of unknown type 'weather_widget' shown as its text")
    ]
    assert text.endswith("A note: sunny, 21 °C.")  # the sources footnote adds nothing
    reg = answer.registry
    assert reg is not None
    assert reg["turn0search0"].url == "https://handbook.example/remote"
    assert reg["turn0search0"].updated == "2026-01-01"  # pub_date, epoch seconds
    assert reg["turn0ref1"].title == "HR FAQ"  # a supporting website
    assert reg["turn0search3"].text == "The VPN is required on public Wi-Fi."  # from search_result_groups


def test_import_codes_fail_and_pass() -> None:
    """CR501 (unknown type) and CR502 (a reference found nowhere): raised where they apply only."""
    convs = {c.id: c for c in read_conversations(EXPORT)}
    notes = {cid: [code for t in c.turns for code, _ in t.notes] for cid, c in convs.items()}
    assert notes == {
        "conv-remote": ["CR501", "CR509"],
        "conv-paris": ["CR502"],
        "conv-photo": [],
        "conv-empty": [],
        "conv-branches": ["CR509", "CR509"],
    }
    _, diags = conversation_page(convs["conv-paris"])
    assert [(n, d.code) for n, d in diags if d.code.startswith("CR5")] == [(2, "CR502")]


def test_the_older_generation_and_the_other_types() -> None:
    answer = find_conversation(EXPORT, "Paris trip").turns[1]
    assert "\ue206" not in answer.text  # group ends stand for nothing
    # an image group: its titles linked to where they come from, with their domain; nothing fetched
    assert (
        "Images: [Pyramid at night](<https://img.example/1>) (img\\.example), "
        "[Mona Lisa room](<https://img.example/2>) (img\\.example)" in answer.text
    )
    assert answer.text.endswith("More: Louvre guides")
    assert answer.notes[0][0] == "CR502"
    soup = _page("Paris trip")
    highlights = soup.select(".citerender-highlight")
    assert [h.get_text() for h in highlights] == [
        "The Louvre opens at 9:00 every day but Tuesday.",
        "Book tickets online.",
    ]
    links = {a.get_text(): a["href"] for a in soup.select(".citerender-bibliography a[href^='http']")}
    assert links == {
        "Louvre hours": "https://louvre.example/hours",
        "Tickets": "https://louvre.example/tickets",
        "A tour of the Louvre": "https://video.example/louvre",
    }


def test_hostile_parts_stay_text_and_code_stays_as_written() -> None:
    soup = _page("conv-photo")
    html = str(soup)
    assert soup.select("script") == []
    assert [a["href"] for a in soup.select("a[href]") if "javascript" in a["href"].lower()] == []
    assert soup.title is not None and soup.title.get_text() == "Photo question <b>bold</b>"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    code = soup.select("pre code")
    assert code[0].get_text() == 'total = 42  # entity["not", "touched"]\n'
    assert code[1].get_text() == "total = 42\n"  # a code answer, fenced
    user = soup.select(".citerender-turn-user .citerender-turn-body")[0].get_text(" ", strip=True)
    assert user == "[image] What is the total on this receipt?"  # multimodal parts
    title = soup.select_one(".citerender-bibliography li")
    assert title is not None and "<img src=x onerror=alert(1)>receipt.pdf" in title.get_text()
    assert soup.select("img") == []


def test_a_page_has_one_bibliography_per_answer_and_no_id_twice() -> None:
    soup = _page("conv-remote", style="hovercard")
    ids = Counter(el["id"] for el in soup.select("[id]"))
    assert [i for i, n in ids.items() if n > 1] == []
    assert len(soup.select(".citerender-bibliography")) == 1  # the second answer cites nothing known
    current = [t for t in soup.select(".citerender-turn-who") if not t.find_parent("details")]
    assert [t.get_text() for t in current] == ["You · Version 2 of 2", "ChatGPT", "You", "ChatGPT"]
    other = soup.select("details.citerender-version .citerender-turn-who")
    assert [t.get_text() for t in other] == ["You", "ChatGPT"]  # the first wording, and its answer
    cards = soup.select(".citerender-card")
    assert "Employees may work remotely up to three days per week." in cards[0].get_text()  # the snippet
    assert RESERVED_OR_ESCAPE.search(str(soup)) is None


def test_build_writes_an_index_newest_first_and_rebuilds_only_what_changed(tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = build_conversations(EXPORT, out, style="hovercard")
    assert first.written == 5 and not first.failed
    index = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    rows = [li.get_text(" ", strip=True) for li in index.select("ol.citerender-conversations li")]
    assert rows[0].startswith("Remote work policy 2026-01-02 · gpt-5 · 2 answers · 5 sources")
    assert [r.split(" 20")[0] for r in rows] == ["Remote work policy", "Branches and files", "Paris trip",
                                                 "Photo question <b>bold</b>", "Untitled conversation"]  # fmt: skip
    for a in index.select("ol a"):
        assert (out / a["href"]).is_file()
    again = build_conversations(EXPORT, out, style="hovercard")
    assert again.written == 0 and again.skipped == 5
    data = json.loads(EXPORT.read_text(encoding="utf-8"))
    data[1]["title"] = "Paris trip, day two"
    changed = tmp_path / "conversations.json"
    changed.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    third = build_conversations(changed, out, style="hovercard")
    assert third.written == 1 and third.skipped == 4
    assert [Path(r).name.split("-d8")[0] for r in third.removed] == ["paris-trip"]  # its old page


def test_build_refuses_a_folder_it_does_not_own(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / "mine.html").write_text("mine", encoding="utf-8")
    with pytest.raises(CiterenderError, match="not empty"):
        build_conversations(EXPORT, out)
    assert (out / "mine.html").read_text(encoding="utf-8") == "mine"


def test_a_zipped_export_and_the_command_line(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(EXPORT, "conversations.json")
        z.writestr("chat.html", "<html></html>")
    r = _cli("build", str(archive), str(tmp_path / "site"), "--jobs", "2")
    # turn 4 of "Remote work policy" cites an id the export records nowhere: a warning (CR509), not a failed build
    assert r.returncode == 0, r.stderr
    assert "built 5 page(s)" in r.stderr and "Remote work policy [conv-remote]: 0 error(s), 2 warning(s)" in r.stderr
    page = tmp_path / "paris.html"
    r = _cli("render", str(EXPORT), "--conversation", "PARIS TRIP", "--style", "pills", "-o", str(page))
    assert r.returncode == 0, r.stderr
    assert "Tickets" in page.read_text(encoding="utf-8")
    r = _cli("render", str(EXPORT), "-o", str(page))
    assert r.returncode == 2 and "add --conversation" in r.stderr
    r = _cli("render", str(EXPORT), "--conversation", "nope")
    assert r.returncode == 2 and "no conversation with id or title 'nope'" in r.stderr
    r = _cli("check", str(EXPORT))
    assert r.returncode == 2 and "build EXPORT OUT" in r.stderr


def test_a_transcript_of_saved_responses_is_a_conversation(tmp_path: Path) -> None:
    conv = read_transcript(TRANSCRIPT)
    assert conv.title == "Renewal questions"
    assert [t.role for t in conv.turns] == ["user", "assistant", "user", "assistant"]
    page = tmp_path / "t.html"
    r = _cli("render", str(TRANSCRIPT), "-o", str(page))
    assert r.returncode == 0, r.stderr
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    assert len(soup.select(".citerender-bibliography")) == 2  # one per answer
    assert all(re.fullmatch(r"t\d+-.*", el["id"]) for el in soup.select(".citerender-cite[id]"))
    r = _cli("build", str(TRANSCRIPT), str(tmp_path / "site"))
    assert r.returncode == 0 and "built 1 page(s)" in r.stderr


# --------------------------------------------------------------------------- round two: nothing in an export is lost

REAL = FIXTURES / "chatgpt" / "real"
_UTM = re.compile(r"[?&]utm_source=chatgpt\.com$")


def _recorded_urls(export: Path) -> set[str]:
    """Every URL the export's content references and older citations record, on every node."""
    urls: set[str] = set()
    for conv in json.loads(export.read_text(encoding="utf-8")):
        for node in conv["mapping"].values():
            meta = (node.get("message") or {}).get("metadata") or {}
            for ref in [
                *(meta.get("content_references") or []),
                *(c.get("metadata") or {} for c in meta.get("citations") or []),
            ]:
                found = [ref.get("url")]
                for key in ("items", "images", "domains", "sources"):
                    for item in ref.get(key) or []:
                        found += [item.get("url"), *(s.get("url") for s in item.get("supporting_websites") or [])]
                urls |= {u for u in found if isinstance(u, str) and u}
    return urls


def _linked(site: Path) -> set[str]:
    hrefs = set()
    for page in site.rglob("*.html"):
        hrefs |= {
            _UTM.sub("", a["href"]) for a in BeautifulSoup(page.read_text("utf-8"), "html.parser").select("a[href]")
        }
    return hrefs


@pytest.mark.parametrize(
    "export", [REAL / "puerto-vallarta.json", REAL / "best-mice.json", EXPORT], ids=lambda p: p.name
)
def test_nearly_every_recorded_url_is_linked_on_some_page(export: Path, tmp_path: Path) -> None:
    """The issue's measure, on real exports copied verbatim (and the synthetic one): every URL the
    references record, counted over every branch and detached part, linked somewhere (≥ 95%)."""
    result = build_conversations(export, tmp_path / "site")
    assert not result.failed and sum(p.errors for p in result.pages) == 0  # an unresolved id is a warning
    recorded = _recorded_urls(export)
    linked = {u for u in recorded if _UTM.sub("", u) in _linked(tmp_path / "site")}
    unsafe = {u for u in recorded if u.startswith("javascript:")}  # never a link, by design
    assert len(linked) >= 0.95 * len(recorded - unsafe), sorted(recorded - unsafe - linked)
    if export.parent == REAL:
        assert linked == recorded  # 47 of 47 and 8 of 8


def test_no_message_text_is_lost_on_a_real_export(tmp_path: Path) -> None:
    """Every shown message of every node is on the page (its words in order), the attributed
    sentences included (64 attribution references: the sentence is the reference's text)."""
    export = REAL / "puerto-vallarta.json"
    conv = next(read_conversations(export))
    page, diags = conversation_page(conv)
    text = " ".join(BeautifulSoup(page, "html.parser").get_text(" ").split())
    data = json.loads(export.read_text(encoding="utf-8"))[0]
    attributed = [r["matched_text"] for n in data["mapping"].values()
                  for r in ((n.get("message") or {}).get("metadata") or {}).get("content_references") or []
                  if r["type"] == "attribution"]  # fmt: skip
    assert len(attributed) == 64
    missing = [s for s in attributed if " ".join(s.split()) not in text]
    assert missing == []
    users = [n["message"]["content"]["parts"][0] for n in data["mapping"].values()
             if n.get("message") and n["message"]["author"]["role"] == "user"]  # fmt: skip
    assert len(users) == 4 and all(u in text for u in users)
    # three parts hang from no common root: the first from the root, two detached, oldest first
    assert [len(t) for t in conv.detached] == [2, 3] and len(conv.turns) == 3
    assert [d.code for _, d in diags if d.code == "CR508"] == ["CR508"]
    soup = BeautifulSoup(page, "html.parser")
    section = soup.select_one("section.citerender-detached")
    assert section is not None and "Messages whose place was lost" in section.get_text()
    assert len(section.select("article")) == 5


def test_every_version_is_reachable_where_it_happened_and_numbers_stay() -> None:
    conv = find_conversation(EXPORT, "conv-branches")
    soup = _page("conv-branches")
    current = [a for a in soup.select("article") if not a.find_parent("details") and not a.find_parent("section")]
    assert [a["aria-labelledby"] for a in current] == ["t1-who", "t2-who", "t3-who", "t4-who"]
    assert current[1].select_one(".citerender-turn-version").get_text() == "· Version 2 of 2"
    versions = soup.select("details.citerender-version")
    labels = [d.select_one("summary").get_text() for d in versions]
    # the regenerated answer's first version (its answer, then the follow-up as last edited), and
    # inside it the follow-up's first wording with its answer
    assert labels == ["Version 1 of 2 · 2026-01-01 00:01 UTC · 2 messages"] * 2
    outer, inner = versions
    assert inner.find_parent("details") is outer  # the edit inside the regenerated answer's first version
    assert "120 sites" in outer.get_text() and "And in 2022?" in outer.get_text() and "110 sites" in inner.get_text()
    # each version has its own numbered, linked citations and ids of its own
    first = outer.select_one(".citerender-bibliography a[href]")
    assert first is not None and first["href"] == "https://reports.example/0"
    ids = Counter(el["id"] for el in soup.select("[id]"))
    assert [i for i, n in ids.items() if n > 1] == []
    assert outer["id"] == "t2-v1" and inner["id"] == "t2-v1-2-v1"
    # the current branch renders exactly as it would with no other version in the export
    data = json.loads(EXPORT.read_text(encoding="utf-8"))[4]
    for gone in ("a1", "u1a", "u1a2", "a1a"):
        del data["mapping"][gone]
    data["mapping"]["u1"]["children"] = ["a1b"]
    from citerender.providers.exports import conversation

    alone = BeautifulSoup(conversation_page(conversation(data))[0], "html.parser")
    strip = lambda s: [(a["aria-labelledby"], a.select_one(".citerender-turn-body").decode_contents()) for a in s]  # noqa: E731
    alone_current = [a for a in alone.select("article") if not a.find_parent("section")]
    assert strip(alone_current) == strip(current)
    assert sum(1 for _ in conv.every_turn()) == 10


def test_files_navlists_tether_and_unresolved_ids(tmp_path: Path) -> None:
    soup = _page("conv-branches")
    answer = next(a for a in soup.select("article") if a["aria-labelledby"] == "t4-who")
    text = " ".join(answer.get_text(" ").split())
    assert "Both reports agree on the method." in text  # an attribution keeps its sentence
    refs = [" ".join(li.get_text(" ").split()) for li in answer.select(".citerender-bibliography li")]
    assert refs[0].startswith("report-2024.pdf, lines 8–12 (uploaded file: not in the export)")
    assert refs[1].startswith("Site count 2024")  # 【8†source】 through the message's metadata.citations
    assert refs[2].startswith("notes.txt (not in the export)")  # 【125:1†notes.txt】: cited by its name
    assert "【" not in text and "†" not in text  # 【15†source】 names nothing: removed, reported
    links = {a.get_text(): a["href"] for a in answer.select(".citerender-turn-body p a[href]")}
    assert links["Reports archive"] == "https://reports.example/archive"  # a navigation widget: titled links
    assert "contentReference" not in answer.select_one("pre").get_text()  # residue leaves code
    _, diags = conversation_page(find_conversation(EXPORT, "conv-branches"))
    codes = Counter(d.code for _, d in diags)
    assert codes["CR509"] == 2 and codes["CR212"] == 1 and codes["CR508"] == 1
    assert not any(d.severity.value == "error" for _, d in diags)
    kept, _ = conversation_page(find_conversation(EXPORT, "conv-branches"), keep_code_residue=True)
    assert "// allow key events :contentReference[oaicite:4]{index=4}" in kept


def test_the_export_codes_fail_and_pass() -> None:
    """CR508 (a part detached) and CR509 (an id nothing resolves): only where they apply."""
    by_id = {c.id: c for c in read_conversations(EXPORT)}
    assert [c for c, _ in by_id["conv-branches"].notes] == ["CR508"]
    assert all(not c.notes for cid, c in by_id.items() if cid != "conv-branches")
    cr509 = {cid: sum(code == "CR509" for t in c.every_turn() for code, _ in t.notes) for cid, c in by_id.items()}
    assert cr509 == {"conv-remote": 1, "conv-paris": 0, "conv-photo": 0, "conv-empty": 0, "conv-branches": 2}


def test_the_index_searches_a_json_index_that_works_from_disk(tmp_path: Path) -> None:
    """The index's JSON (a file for other tools, and the same text in the page, so the search
    works opened from disk) lists every conversation newest first with its title, date and
    models; no title can end the element it sits in."""
    out = tmp_path / "site"
    build_conversations(EXPORT, out)
    data = json.loads((out / "search-index.json").read_text(encoding="utf-8"))
    soup = BeautifulSoup((out / "index.html").read_text(encoding="utf-8"), "html.parser")
    embedded = soup.select_one("script#citerender-search-index[type='application/json']")
    assert embedded is not None and json.loads(embedded.string or "") == data
    assert [d["title"] for d in data][:2] == ["Remote work policy", "Branches and files"]
    assert [d["date"] for d in data] == sorted((d["date"] for d in data), reverse=True)
    assert {d["title"]: d["models"] for d in data}["Paris trip"] == "gpt-4o"
    raw = (out / "search-index.json").read_text(encoding="utf-8")
    assert "<" not in raw and "Photo question \\u003cb\\u003ebold\\u003c/b\\u003e" in raw
    assert [a["href"] for a in soup.select("ol.citerender-conversations a")] == [d["href"] for d in data]
    again = build_conversations(EXPORT, out)  # owned by the build: rewritten, never left stale
    assert again.written == 0 and (out / "search-index.json").read_text(encoding="utf-8") == raw


# --------------------------------------------------------------------------- Claude's data export

CLAUDE = FIXTURES / "claude" / "conversations.json"


def test_a_claude_export_is_recognised_and_builds_a_site(tmp_path: Path) -> None:
    from citerender.providers.exports import export_kind

    assert export_kind(CLAUDE) == "claude" and export_kind(EXPORT) == "chatgpt" and export_kind(TRANSCRIPT) is None
    r = _cli("build", str(CLAUDE), str(tmp_path / "site"))
    assert r.returncode == 0, r.stderr
    assert (
        "built 2 page(s)" in r.stderr and "Blocking search ads [claude-conv-ads]: 0 error(s), 2 warning(s)" in r.stderr
    )
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(encoding="utf-8"), "html.parser")
    rows = [li.get_text(" ", strip=True) for li in index.select("ol.citerender-conversations li")]
    assert rows[0].startswith("Blocking search ads 2026-02-05 · claude-sonnet-4-5 · 2 answers · 4 sources")
    zipped = tmp_path / "data-2026-02-05.zip"  # the export's zip: the same member name as ChatGPT's
    with zipfile.ZipFile(zipped, "w") as z:
        z.write(CLAUDE, "conversations.json")
        z.writestr("users.json", "[]")
    assert _cli("build", str(zipped), str(tmp_path / "zipped")).returncode == 0


def test_a_claude_page_holds_every_message_in_order_and_every_citation() -> None:
    data = json.loads(CLAUDE.read_text(encoding="utf-8"))[0]
    page, diags = conversation_page(find_conversation(CLAUDE, "Blocking search ads"), style="hovercard")
    soup = BeautifulSoup(page, "html.parser")
    current = [a for a in soup.select("article") if not a.find_parent("details")]
    assert [a.select_one(".citerender-turn-who").get_text() for a in current] == [
        "You", "Claude · Version 2 of 2", "You", "Claude"]  # fmt: skip
    words = " ".join(soup.get_text(" ").split())
    shown = [
        b["text"] for m in data["chat_messages"] for b in m["content"] if b["type"] == "text" and b["text"].strip()
    ]
    pos = 0
    for block in shown:  # every text block, in order (the retried answer's first version after its turn)
        if block == "Chrome has no setting that hides search ads.":
            continue  # the retried answer's first version: inside its turn's versions, checked below
        at = words.find(" ".join(block.split()).rstrip("."), pos)
        assert at != -1, block
        pos = at
    version = soup.select_one("details.citerender-version")
    assert version is not None and "Chrome has no setting that hides search ads." in version.get_text()
    answer = current[1]
    paragraphs = [p.get_text(" ", strip=True) for p in answer.select(".citerender-turn-body > p")]
    assert paragraphs[0] == "Let me look that up."  # a tool call came between: paragraphs of their own
    assert paragraphs[1].startswith("Chrome alone cannot hide them")
    text = find_conversation(CLAUDE, "Blocking search ads").turns[1].text  # blocks joined, each marker in its place
    assert "hides sponsored results\ue200cite\ue202claude2\ue201 on Google's results pages." in text
    assert "with intrusive ads.\ue200cite\ue202claude1\ue201 An extension" in text  # after the sentence's period
    # each citation after its own words, linked to its URL, titled and quoted from the search
    cards = answer.select(".citerender-card")
    assert [c.select_one("a.citerender-card-title")["href"] for c in cards] == [
        "https://support.google.com/chrome/answer/7632919", "https://ublockorigin.com/", "https://duckduckgo.com/about"]  # fmt: skip
    assert "Block or allow pop-ups and intrusive ads in Chrome" in cards[0].get_text()
    assert "uBlock Origin is a free and open-source" in cards[1].get_text()
    assert (
        "thinking" not in words.casefold() and "block google search ads chrome" not in words
    )  # not shown, as in the chat
    assert "[attachment: my-filters.txt]" in words and "[file: ad-report.pdf]" in words
    codes = sorted(d.code for _, d in diags)
    assert codes == ["CR501", "CR504"]  # an unknown block, a citation past its text: said, never silent


def test_a_claude_export_without_parents_is_read_in_order() -> None:
    conv = find_conversation(CLAUDE, "claude-conv-old")
    assert [(t.role, t.text) for t in conv.turns] == [
        ("user", "What is a haiku?"), ("assistant", "A three-line poem of 5, 7 and 5 syllables.")]  # fmt: skip
    assert conv.title == "Old linear chat" and conv.assistant == "Claude"


@pytest.mark.parametrize(
    "broken",
    [{"name": "x", "chat_messages": "nope"}, {"name": "x", "chat_messages": [1]},
     {"name": "x", "chat_messages": [{"uuid": "a", "parent_message_uuid": ["b"]}]},
     {"name": "x", "chat_messages": [{"uuid": "a", "parent_message_uuid": "b", "sender": "human", "text": "hi"},
                                     {"uuid": "b", "parent_message_uuid": "a", "sender": "human", "text": "ho"}]}],
    ids=["not a list", "not an object", "a list as a parent", "parents that loop"],
)  # fmt: skip
def test_a_broken_claude_conversation_is_reported_not_a_traceback(broken: dict[str, object]) -> None:
    from citerender.providers.exports import conversation
    from citerender.providers.threads import BrokenGraph

    with pytest.raises(BrokenGraph, match=r"CR506 conversation .* was skipped"):
        conversation(broken)
