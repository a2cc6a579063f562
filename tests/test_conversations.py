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
from citerender.providers.chatgpt import find_conversation, is_chatgpt_export, read_conversations
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
    # an image group: its titles linked to where they come from, nothing fetched
    assert (
        "Images: [Pyramid at night](<https://img.example/1>), [Mona Lisa room](<https://img.example/2>)" in answer.text
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
    assert rows[0].startswith("Remote work policy 2026-01-02 · 2 answers · 5 sources")
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
