"""Round 4b hostile-input review of the session's new inputs: ChatGPT's copied forms, sharded
exports (zip and folder), Gemini's Search Suggestions and image grounding, OpenAI Assistants
streams, xAI links. Each test is a finding: the input that broke a promise of SECURITY.md (nothing
dropped silently, no marker form shown, no hang, bounded memory), and what a user sees now. The
reproducers are in ``tests/fixtures/hostile/round4b/`` (see its README)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import best_cpu, chat_conversation, run_cli, write_folder, write_zip

HOSTILE = Path(__file__).parent / "fixtures" / "hostile" / "round4b"
BESIDE = {"chat.html": "<html></html>", "export_manifest.json": "{}"}


def _conv(k: int) -> dict:
    return chat_conversation(f"Conversation {k}", [("user", f"Question {k}?"), ("assistant", f"Answer {k}.")], f"c{k}")


def _bounded_cli(*args: object, memory: int = 1536 * 1024**2, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``citerender ARGS`` in a process of its own whose address space is capped: an input that
    blows the memory up fails that process (MemoryError), never the machine."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    cmd = [sys.executable, "-c", "import sys; from citerender.cli import main; sys.exit(main(sys.argv[1:]))"]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [*cmd, *map(str, args)], capture_output=True, text=True, timeout=timeout, preexec_fn=cap, env=env
    )


# --- sharded exports -------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["zip", "folder"])
def test_an_export_nested_thousands_deep_is_refused_in_bounded_memory(tmp_path: Path, where: str) -> None:
    """200 KB of ``[[[…]]]`` in a shard: ijson built a key path as long as the depth at every level
    (25 GB for 100,000 levels: the machine's memory, then the OOM killer). Now: exit 2 naming the
    shard, in bounded memory and a moment."""
    deep = (HOSTILE / "deep-shard.json").read_text(encoding="ascii")
    assert deep.count("[") >= 100_000
    files = {"conversations-000.json": json.dumps([_conv(0)]), "conversations-001.json": deep, **BESIDE}
    src = write_zip(tmp_path / "export.zip", files) if where == "zip" else write_folder(tmp_path / "export", files)
    r = _bounded_cli("build", src, tmp_path / "site")
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    assert "conversations-001.json" in r.stderr and "nested more than 1,000 levels" in r.stderr


def test_a_conversation_nested_past_the_data_limit_is_still_skipped_alone(tmp_path: Path) -> None:
    """Deeper than a conversation may be (100 levels) but within the stream's bound: that
    conversation is reported (CR506) and skipped, the rest built, as before."""
    deep = _conv(1)
    node: dict = deep["mapping"]["a2"]["message"]["metadata"]
    for _ in range(300):
        node["x"] = {}
        node = node["x"]
    files = {"conversations-000.json": json.dumps([_conv(0), deep, _conv(2)]), **BESIDE}
    r = run_cli("build", write_folder(tmp_path / "export", files), tmp_path / "site")
    assert r.returncode == 2
    assert "CR506" in r.stderr and "nested too deeply" in r.stderr
    assert len(list((tmp_path / "site" / "c").glob("*.html"))) == 2


@pytest.mark.parametrize("where", ["zip", "folder"])
def test_a_shard_that_is_an_object_is_an_error_not_zero_conversations(tmp_path: Path, where: str) -> None:
    """``conversations-001.json`` holding one conversation as an object (not a list): its
    conversations were dropped without a word (exit 0). Now: exit 2 naming the shard."""
    files = {
        "conversations-000.json": json.dumps([_conv(0), _conv(1)]),
        "conversations-001.json": json.dumps(_conv(2)),
        **BESIDE,
    }
    src = write_zip(tmp_path / "export.zip", files) if where == "zip" else write_folder(tmp_path / "export", files)
    r = run_cli("build", src, tmp_path / "site")
    assert r.returncode == 2, r.stderr
    assert "conversations-001.json holds an object" in r.stderr and "Traceback" not in r.stderr


def test_items_that_are_not_conversations_are_reported_one_by_one(tmp_path: Path) -> None:
    """``[conv, 5, "x", null, [conv], conv]``: the four non-objects vanished (exit 0, 2 pages).
    Now each is reported as a skipped item (CR506, exit 2) and the conversations are built."""
    items = [_conv(0), 5, "x", None, [_conv(9)], _conv(1)]
    src = write_folder(tmp_path / "export", {"conversations-000.json": json.dumps(items), **BESIDE})
    r = run_cli("build", src, tmp_path / "site")
    assert r.returncode == 2
    for k, kind in ((2, "number"), (3, "string"), (4, "null"), (5, "list")):
        assert f"CR506 item {k} of the export was skipped: it is a {kind}" in r.stderr
    assert len(list((tmp_path / "site" / "c").glob("*.html"))) == 2
    zipped = write_zip(tmp_path / "export.zip", {"conversations-000.json": json.dumps(items), **BESIDE})
    found = run_cli("render", zipped, "--conversation", "c1")  # finding one skips the non-objects
    assert found.returncode in (0, 1) and "Answer 1." in found.stdout, found.stderr


def test_a_symlinked_shard_is_refused_not_skipped(tmp_path: Path) -> None:
    """A shard that is a symbolic link (here to a file outside the folder) was skipped without a
    word, its conversations gone. Reading through it could publish any file: refused, exit 2."""
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps([_conv(7)]), encoding="utf-8")
    src = write_folder(tmp_path / "export", {"conversations-000.json": json.dumps([_conv(0)]), **BESIDE})
    (src / "conversations-001.json").symlink_to(outside)
    r = run_cli("build", src, tmp_path / "site")
    assert r.returncode == 2
    assert "conversations-001.json is a symbolic link" in r.stderr
    assert not (tmp_path / "site" / "index.html").exists()


# --- growth: input x4 -> time at most x6 --------------------------------------------------------


def _assistants_stream(n: int) -> list[dict]:
    """A run's stream of ``n`` deltas, each adding text and one numbered annotation."""
    events: list[dict] = [
        {"event": "thread.message.created", "data": {"id": "msg_1", "object": "thread.message", "role": "assistant",
                                                     "status": "in_progress", "content": []}},
    ]  # fmt: skip
    at = 0
    for i in range(n):
        marker = f"\u30104:{i}\u2020f.pdf\u3011"
        ann = {"index": i, "type": "file_citation", "text": marker, "start_index": at + 2,
               "end_index": at + 2 + len(marker), "file_citation": {"file_id": "file-1"}}  # fmt: skip
        text = {"value": "x " + marker, "annotations": [ann]}
        delta = {"content": [{"index": 0, "type": "text", "text": text}]}
        events.append({"event": "thread.message.delta",
                       "data": {"id": "msg_1", "object": "thread.message.delta", "delta": delta}})  # fmt: skip
        at += 2 + len(marker)
    return events


def _assistants_page(n: int) -> dict:
    """A page with one message of ``n`` annotated file search markers."""
    parts, anns, at = [], [], 0
    for i in range(n):
        claim, marker = f"Claim {i} ", f"\u30104:{i}\u2020f{i % 50}.pdf\u3011"
        parts.append(claim + marker + ". ")
        anns.append({"type": "file_citation", "text": marker, "start_index": at + len(claim),
                     "end_index": at + len(claim) + len(marker), "file_citation": {"file_id": f"file-{i % 50}"}})  # fmt: skip
        at += len(claim) + len(marker) + 2
    text = {"value": "".join(parts), "annotations": anns}
    msg = {"id": "msg_1", "object": "thread.message", "role": "assistant", "status": "completed",
           "content": [{"type": "text", "text": text}]}  # fmt: skip
    return {"object": "list", "data": [msg], "has_more": False}


def _xai_links(n: int) -> dict:
    """An xAI response of ``n`` ``[[k]](url)`` links, each with its url_citation annotation."""
    parts, anns, at = [], [], 0
    for i in range(n):
        claim, link = f"Claim {i} ", f"[[{i + 1}]](https://e{i}.example/p)"
        parts.append(claim + link + ". ")
        anns.append({"type": "url_citation", "url": f"https://e{i}.example/p", "start_index": at + len(claim),
                     "end_index": at + len(claim) + len(link), "title": str(i + 1)})  # fmt: skip
        at += len(claim) + len(link) + 2
    content = [{"type": "output_text", "text": "".join(parts), "annotations": anns}]
    message = {"type": "message", "id": "m", "role": "assistant", "status": "completed", "content": content}
    return {"id": "r", "object": "response", "model": "grok-4", "status": "completed", "output": [message]}


def _adapted(data: object) -> object:
    from citerender.providers import adapt

    return lambda: adapt(data)


GROWTH = {
    # name: (n -> the work, n)
    "an Assistants stream of annotation deltas": (lambda n: _adapted(_assistants_stream(n)), 1_000),
    "an Assistants message of annotated markers": (lambda n: _adapted(_assistants_page(n)), 1_500),
    "xAI links with their annotations": (lambda n: _adapted(_xai_links(n)), 1_500),
}


_best = best_cpu  # (by this name: the growth tests' fresh interpreters call it)


def test_an_assistants_stream_folds_to_what_its_deltas_say() -> None:
    """The fold keeps what the deltas build: text joined, annotations merged by index (a later
    delta completing an earlier one), parts by index with a skipped one left out."""
    from citerender.providers.assistants import collect_events

    def delta(content: list[dict]) -> dict:
        return {"id": "m", "object": "thread.message.delta", "delta": {"content": content}}

    page = collect_events([
        delta([{"index": 0, "type": "text", "text": {"value": "Hello ", "annotations": [{"index": 0, "type": "file_citation"}]}}]),
        delta([{"index": 0, "type": "text", "text": {"value": "world", "annotations": [{"index": 0, "text": "x", "start_index": 1}]}}]),
        delta([{"index": 2, "type": "image_file", "image_file": {"file_id": "file-9"}}]),
        delta([{"index": 10_000_000, "type": "text", "text": {"value": "far"}}]),
    ])  # fmt: skip
    content = page["data"][0]["content"]
    assert [p["type"] for p in content] == ["text", "image_file", "text"]
    assert content[0]["text"]["value"] == "Hello world"
    assert content[0]["text"]["annotations"] == [{"#": 0, "type": "file_citation", "text": "x", "start_index": 1}]
    assert content[2]["text"]["value"] == "far"


# --- ChatGPT's copied forms ------------------------------------------------------------------

_VISIBLE_FORMS = ("citeturn", "contentReference", "oaicite", "\ue200", "\\ue200")


@pytest.mark.parametrize("to", ["html", "markdown", "text", "json", "strip"])
def test_a_copied_links_title_and_fallback_lose_their_marker_forms(to: str) -> None:
    """A ``<Link>`` tag's title, a url pill's title and a pill's fallback text holding marker
    forms: the Markdown, JSON and strip outputs wrote ``[Docs citeturn0search1](<…>)`` and
    ``:contentReference[oaicite:3]…`` (a visible marker form), with footnotes ``[^1]``–``[^3]``
    nothing pointed at; HTML made a citation inside the link text of a source the answer never
    cites. Now the shown text is the title without them, the same everywhere, reported (CR114)."""
    src = HOSTILE / "copied-titles.md"
    r = run_cli("strip", src) if to == "strip" else run_cli("render", src, "--to", to)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["text"] if to == "json" else r.stdout
    for form in _VISIBLE_FORMS:
        assert form not in out, (form, out)
    assert "[^" not in out and "[1]" not in out  # nothing is cited: no note, no number
    words = out if to != "html" else BeautifulSoup(out, "html.parser").get_text(" ")
    for shown in ("Docs", "Pill", "fb", "Run"):
        assert shown in words
    if to == "html":
        page = BeautifulSoup(out, "html.parser")
        assert [(a.get_text(), a["href"]) for a in page.find_all("a")] == [
            ("Docs", "https://ok.example/"),
            ("Pill", "https://p.example/"),
        ]
        assert r.stderr.count("CR114") == 4, r.stderr


# --- Gemini's Search Suggestions -------------------------------------------------------------


def _suggested(html: str) -> BeautifulSoup:
    page = BeautifulSoup(html, "html.parser")
    return next(p for p in page.find_all("p") if p.get_text().startswith("Search suggestions from Google:"))


def test_search_chips_holding_marker_forms_show_their_words_and_cite_nothing() -> None:
    """A chip's query text is the model's search: ``q citeturn0search0 here`` made a citation of
    the answer's first source inside the chip's link (its back-link pointing into the search box), a
    raw marker an unknown id (an error: exit 1), and the Markdown export wrote the visible form.
    Now the words show without them (CR114), nothing is cited from the chips, and a chip past the
    50th is said (CR515), not dropped unseen."""
    src = HOSTILE / "gemini-chips-markers.json"
    r = run_cli("render", src)
    assert r.returncode == 0, r.stderr
    chips = _suggested(r.stdout)
    assert chips.find("sup") is None  # no citation from the search box
    texts = [a.get_text() for a in chips.find_all("a")]
    assert texts[:2] == ["q here", "q raw"]
    assert len(texts) == 47 and "chip 36" in texts and "chip 37" not in chips.get_text()  # 50 chips, 3 unlinked
    assert "73 chips: the first 50 are shown" in r.stderr
    assert r.stderr.count("CR114") == 4
    assert "{START}" not in chips.get_text()
    md = run_cli("render", src, "--to", "markdown").stdout
    for form in _VISIBLE_FORMS:
        assert form not in md
    data = json.loads(run_cli("render", src, "--to", "json").stdout)
    for d in data["diagnostics"]:
        assert "\\ue200" not in d["message"] and "\ue200" not in d["message"]


def test_a_chip_whose_link_holds_a_marker_is_its_words_not_markdown_source() -> None:
    """``href="https://\\ue200g.example/i"``: the link was refused after the paragraph was written,
    so the page showed ``[marker in href](<https://.example/i>)`` as text. Now the chip is its
    words, reported like any chip without an https link."""
    chips = _suggested(run_cli("render", HOSTILE / "gemini-chips-markers.json").stdout)
    text = chips.get_text()
    assert "marker in href" in text and "](<" not in text and "pct marker in href" in text


def test_a_widget_that_stdlib_html_parser_chokes_on_is_read() -> None:
    """``<![x`` after a chip: Python's HTMLParser raised AssertionError (a traceback); ``<a`` x
    100,000 took it minutes (quadratic). The chips are read by a linear reader now."""
    r = run_cli("render", HOSTILE / "gemini-chips-cdata.json")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert [a["href"] for a in _suggested(r.stdout).find_all("a")] == ["https://g.example/q"]


def _widget(n: int) -> object:
    from citerender.providers.search_suggestions import chips

    html = '<a class="chip" href="https://g.example/q">q</a>' + "<a" * n + "</" * n + "<a x" * n
    return lambda: chips(html)


GROWTH["a Search Suggestions widget of unclosed tags"] = (_widget, 20_000)


# --- growth (the table above, filled by each area) ------------------------------------------------


@pytest.mark.parametrize("name", list(GROWTH))
def test_growth_is_linear(name: str) -> None:
    """Input x4 -> time at most x6, in a fresh interpreter. Before: an Assistants stream of 20,000
    annotation deltas ran more than ten minutes (each delta copied the message's text and every
    annotation so far); 10,000 annotated markers x24 for x10; 5,000 xAI links x14 for x5 (each
    marker or link compared with every annotation)."""
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_hardening_round4b as t\n"
        f"make, n = t.GROWTH[{name!r}]\n"
        "small, large = make(n), make(4 * n)\n"
        "small()\n"
        "print(t._best(large) / max(t._best(small), 1e-4))\n"
    )
    ratios = []
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent.parent, capture_output=True,
                           text=True, timeout=300)  # fmt: skip
        assert r.returncode == 0, r.stderr
        ratios.append(float(r.stdout.strip().splitlines()[-1]))
        if ratios[-1] <= 6.0:
            break
    assert min(ratios) <= 6.0, f"{name}: x4 input took x{min(ratios):.1f} time (best of {len(ratios)} runs)"


# --- a provider's domain ----------------------------------------------------------------------


@pytest.mark.parametrize("to", ["html", "json", "csl-json", "markdown"])
def test_an_image_chunks_domain_loses_its_marker_forms(to: str) -> None:
    """Gemini's image chunk names its site (``domain``), shown beside the source: residue was taken
    out after lowercasing (``:contentreference[oaicite:2]`` no longer looked like residue) and a
    copy-paste id never, so the bibliography, the JSON and CSL-JSON showed them. Now the domain
    is the site's name alone, the change reported (CR114)."""
    r = run_cli("render", HOSTILE / "gemini-image-domain.json", "--to", to)
    assert r.returncode == 0, r.stderr
    for form in (*_VISIBLE_FORMS, "contentreference", "\u202e"):
        assert form not in r.stdout, form
    if to == "html":
        domain = BeautifulSoup(r.stdout, "html.parser").select_one(".citerender-ref-domain")
        assert domain is not None and domain.get_text() == "inaturalist.org"
        assert "marker forms removed from its domain" in r.stderr
    if to == "json":
        assert [e["domain"] for e in json.loads(r.stdout)["bibliography"]] == ["inaturalist.org"]


# --- messages ----------------------------------------------------------------------------------


def test_the_json_exports_diagnostics_name_marker_characters() -> None:
    """Messages quoting a provider's string with ``repr`` (a citation source's title, a chip, a
    file name) wrote ``'Book \\ue200cite…'`` into ``--to json``'s diagnostics: a literal escape
    of a marker, a visible marker form in an output. Now they name them, as stderr does."""
    r = run_cli("render", HOSTILE / "vertex-citation-title-markers.json", "--to", "json")
    assert r.returncode == 0, r.stderr
    messages = [d["message"] for d in json.loads(r.stdout)["diagnostics"]]
    assert any("{START}cite{DELIM}turn0search0{STOP}" in m for m in messages), messages
    for m in messages:
        assert "\\ue20" not in m and not any("\ue200" <= c <= "\ue206" for c in m)


def _oai_text(n: int) -> tuple[str, str]:
    """``[oai_citation:1‡t](xxxxxxxxxx`` n times (never closed), and real forms of the same length."""
    hostile = ("[oai_citation:1\u2021t](" + "x" * 10) * n
    real = "".join(f"[oai_citation:{i}\u2021T](https://e{i}.example/) " for i in range(n))
    return hostile, real[: len(hostile)]


def _pill_text(n: int) -> tuple[str, str]:
    """``{"fallbackMarkdown":`` n times (never closed), and real residue objects of that length."""
    hostile = '{"fallbackMarkdown":' * n
    one = '{"fallbackMarkdown":"f","reference":{"type":"url"},"showLoginRequiredCard":false} '
    return hostile, (one * (len(hostile) // len(one) + 1))[: len(hostile)]


@pytest.mark.parametrize("kind", ["oai", "pill"])
def test_copied_forms_that_never_close_cost_what_real_ones_do(kind: str) -> None:
    """Each ``[oai_citation:`` that never closed scanned 4,096 characters after it in Python (88x
    the cost of the same length of real forms: a 6 MB answer of them ran two minutes); each
    ``{"fallbackMarkdown":`` never closed searched 64 KiB for its end (28x, growing with the
    answer). A form now ends where the next begins: the same cost per character as real ones."""
    from citerender.syntax.copied import find_copied
    from citerender.syntax.copy_residue import pill_spans

    hostile, real = _oai_text(20_000) if kind == "oai" else _pill_text(20_000)
    work = find_copied if kind == "oai" else (lambda text: list(pill_spans(text)))
    ratio = _best(lambda: work(hostile)) / max(_best(lambda: work(real)), 1e-4)
    assert ratio <= 5, f"a never-closed form costs x{ratio:.1f} a real one"


# --- the annotations export ----------------------------------------------------------------------


def test_an_answer_the_annotations_export_cannot_mark_is_an_error_naming_its_file(tmp_path: Path) -> None:
    """An answer holding every Unicode noncharacter leaves the annotations export no mark to place
    its citations with: a clear error, but it named no file (every input error names its file)."""
    nonchars = "".join(chr(c) for c in range(0xFDD1, 0xFDF0)) + "".join(
        chr(p << 16 | e) for p in range(17) for e in (0xFFFE, 0xFFFF)
    )
    answer = tmp_path / "answer.md"
    answer.write_text(f"Odd text {nonchars} and a claim \ue200cite\ue202turn0search0\ue201.\n", encoding="utf-8")
    r = run_cli("render", answer, "--to", "annotations")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{answer}: the answer holds too many Unicode noncharacters" in r.stderr
    assert r.stdout == ""


# --- ids of the source views --------------------------------------------------------------------


def test_headings_named_like_the_source_views_get_ids_of_their_own() -> None:
    """An answer's headings ``Source 1``, ``Source views`` and ``Source 1 title`` took the ids
    ``source-1``, ``source-views`` and ``source-1-title`` that the page's source views use: three
    ids twice on the page, the views' ``aria-labelledby`` and ``#source-1`` pointing at the answer's
    heading. Headings never take the views' ids now (as they never took ``cite-1`` or ``ref-1``)."""
    src = HOSTILE / "view-heading-ids.md"
    r = run_cli("render", src, "-s", src.with_suffix(".sources.json"), "--standalone")
    assert r.returncode == 0, r.stderr
    page = BeautifulSoup(r.stdout, "html.parser")
    ids = [e["id"] for e in page.find_all(id=True)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    view = page.find(id="source-1")
    assert view is not None and view.name == "section" and "citerender-view" in view["class"]
    assert page.find("h1")["id"] == "section-source-1"
    assert page.find(id="source-views").name == "h2"
