"""Exports, each checked with the real consumer: pandoc, a JSON Schema validator, WeasyPrint."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import EXAMPLES, CliResult, assert_no_marker, example_pairs, expand, run_cli

from citerender import CiterenderError, load_sources
from citerender.rendering.exports.csl import to_csl_json
from citerender.rendering.exports.json import SCHEMA_PATH, to_json, to_json_data
from citerender.rendering.exports.markdown import to_markdown
from citerender.rendering.exports.parsed import Parsed, parse_answer
from citerender.rendering.exports.pdf import to_pdf
from citerender.rendering.exports.text import to_text
from citerender.sources.model import registry_from_data

PAIRS = example_pairs()
PANDOC = shutil.which("pandoc") or "/usr/bin/pandoc"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _notes(doc: object) -> list[str]:
    """Every footnote in a pandoc JSON AST, as plain text, in document order."""
    out: list[str] = []

    def text(node: object) -> str:
        if isinstance(node, dict):
            t = node.get("t")
            if t == "Str":
                return str(node["c"])
            if t in ("Space", "SoftBreak", "LineBreak"):
                return " "
            return text(node.get("c", []))
        if isinstance(node, list):
            return "".join(text(x) for x in node)
        return ""

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("t") == "Note":
                out.append(text(node["c"]).strip())
                return
            walk(node.get("c", []))
            if "blocks" in node:
                walk(node["blocks"])
        elif isinstance(node, list):
            for x in node:
                walk(x)

    walk(doc)
    return out


@pytest.mark.parametrize("answer,sources", PAIRS, ids=[p[0].parent.name for p in PAIRS])
def test_markdown_export_reads_back_in_pandoc(answer: Path, sources: Path, tmp_path: Path) -> None:
    p = parse_answer(answer.read_text(encoding="utf-8"), load_sources(sources))
    md = to_markdown(p)
    assert_no_marker(md)
    body, _, defs_text = md.rpartition("\n\n")
    defs = {}
    for line in defs_text.strip().split("\n"):
        label, _, content = line.partition("]: ")
        defs[label[2:]] = content
    import re

    order = re.findall(r"\[\^([\w-]+)\](?!:)", body)  # one note per source and locator: [^1-L2-L3]
    ast = json.loads(
        subprocess.run(
            [PANDOC, "-f", "markdown", "-t", "json"], input=md, capture_output=True, text=True, check=True
        ).stdout
    )
    notes = _notes(ast)
    expected = [re.sub(r"[<>\\]", "", defs[n]) for n in order]
    assert notes == expected


def test_markdown_export_keeps_text_and_escapes_metadata() -> None:
    reg = registry_from_data([{"id": "a", "title": "A *bold* [title] <x>", "url": "javascript:alert(1)"}])
    p = parse_answer(expand("Keep `code {S}cite{D}a{E}` and **this**.{S}cite{D}a{E}"), reg)
    md = to_markdown(p)
    assert md.startswith("Keep `code citea` and **this**.[^1]\n")  # code: only invisible characters go
    assert md.endswith("[^1]: A \\*bold\\* \\[title\\] \\<x\\>\n")


def test_text_export() -> None:
    reg = registry_from_data([{"id": "a", "title": "Alpha", "url": "https://a.example/", "lines": ["x", "y"]}])
    p = parse_answer(expand("# Title\n\n- one.{S}cite{D}a{D}L2{E}\n- two\n\nSee [docs](https://d.example)."), reg)
    assert to_text(p) == (
        "Title\n=====\n\n- one.[1]\n- two\n\nSee docs <https://d.example>.\n\n"
        "References\n[1] Alpha. https://a.example/. Line 2.\n"
    )


@pytest.mark.parametrize("answer,sources", PAIRS, ids=[p[0].parent.name for p in PAIRS])
def test_json_export_validates_and_offsets_hold(answer: Path, sources: Path) -> None:
    text = answer.read_text(encoding="utf-8")
    data = json.loads(to_json(parse_answer(text, load_sources(sources))))
    jsonschema.validate(data, SCHEMA)
    assert_no_marker(json.dumps(data["text"], ensure_ascii=False))
    assert_no_marker(json.dumps(data, ensure_ascii=False))
    for c in data["citations"]:
        first = c["markers"][0]
        assert c["input"]["start"] == first["start"] and c["input"]["end"] == c["markers"][-1]["end"]
        assert text[first["start"] : first["end"]].strip()


def test_json_offsets_in_utf16_and_crlf() -> None:
    reg = registry_from_data([{"id": "a"}, {"id": "b"}])
    text = expand("Emoji 😀 here.{S}cite{D}a{E}\r\nNext 😀😀.{S}cite{D}b{E}\r\n")
    data = to_json_data(parse_answer(text, reg))
    jsonschema.validate(data, SCHEMA)
    c1, c2 = data["citations"]
    assert text[c1["input"]["start"] : c1["input"]["end"]] == expand("{S}cite{D}a{E}")
    assert text[c2["input"]["start"] : c2["input"]["end"]] == expand("{S}cite{D}b{E}")
    assert c1["input"]["start_utf16"] == c1["input"]["start"] + 1
    assert c2["input"]["start_utf16"] == c2["input"]["start"] + 3
    clean = data["text"]
    assert clean == "Emoji 😀 here.\nNext 😀😀.\n"
    assert clean[: c1["clean"]["offset"]] == "Emoji 😀 here."
    assert c2["clean"]["offset_utf16"] == len(clean[: c2["clean"]["offset"]].encode("utf-16-le")) // 2


def test_csl_json_works_with_pandoc_citeproc(tmp_path: Path) -> None:
    answer, sources = PAIRS[0]
    p = parse_answer(answer.read_text(encoding="utf-8"), load_sources(sources))
    csl = tmp_path / "refs.json"
    csl.write_text(to_csl_json(p), encoding="utf-8")
    items = json.loads(csl.read_text(encoding="utf-8"))
    assert [i["id"] for i in items] == [r.source.id for r in p.references]
    doc = "Claim [@" + items[0]["id"] + "].\n"
    out = subprocess.run(
        [PANDOC, "--citeproc", "--bibliography", str(csl), "-t", "plain"],
        input=doc,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flat = out.replace("\n", " ").lower()
    assert items[0]["title"].split(":")[0].lower() in flat and items[0]["URL"].lower() in flat


def test_pdf_export(tmp_path: Path) -> None:
    pytest.importorskip("weasyprint", reason="the [pdf] extra is installed by make test")
    from citerender import render

    answer, sources = PAIRS[0]
    html = render(answer.read_text(encoding="utf-8"), load_sources(sources), theme="report", standalone=True).html
    pdf = to_pdf(html.replace("</main>", '<img src="https://tracker.example/pixel.png"></main>'))
    assert pdf.startswith(b"%PDF") and len(pdf) > 2000


def test_pdf_without_the_extra_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "weasyprint", None)
    with pytest.raises(CiterenderError, match=r"citerender\[pdf\].*pip install -e '\.\[pdf\]'"):
        to_pdf("<p>x</p>")


def _cli(*args: object) -> CliResult:
    return run_cli(*args)


def test_cli_to_formats(tmp_path: Path) -> None:
    answer, sources = PAIRS[0]
    for fmt in ("markdown", "text", "json", "csl-json"):
        out = tmp_path / f"out.{fmt}"
        r = _cli("render", answer, "-s", sources, "--to", fmt, "-o", out)
        assert r.returncode == 0, r.stderr
        assert_no_marker(out.read_text(encoding="utf-8"))
    r = _cli("render", answer, "--to", "pdf")
    assert r.returncode == 2 and "needs an output file" in r.stderr


def test_docx_has_real_footnotes_with_the_cited_lines(tmp_path: Path) -> None:
    import threading
    import zipfile
    from http.server import BaseHTTPRequestHandler, HTTPServer

    fetched: list[str] = []

    class Pixel(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            fetched.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Pixel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    pixel = f"http://127.0.0.1:{server.server_port}/pixel.png"
    answer = tmp_path / "a.md"
    text = (EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8")
    answer.write_text(text + f"\n\n![tracking pixel]({pixel}) ![local](/etc/hostname)\n", encoding="utf-8")
    out = tmp_path / "a.docx"
    r = _cli("render", answer, "-s", EXAMPLES / "handbook" / "answer.sources.json", "--to", "docx", "-o", out)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(out) as z:
        notes = re.sub(r"<[^>]+>", "", z.read("word/footnotes.xml").decode("utf-8"))
        body = z.read("word/document.xml").decode("utf-8")
        names = z.namelist()
    assert (
        "Employee Handbook" in notes and "https://company.example/handbook" in notes and "updated 2026-03-01" in notes
    )
    assert "Employees may work remotely up to three days per week." in notes  # the cited line itself
    cites = len(re.findall("\ue201", (EXAMPLES / "handbook" / "answer.md").read_text(encoding="utf-8")))
    assert body.count("<w:footnoteReference") >= cites - 2  # a Word footnote at every citation (groups share one)
    assert "[image: tracking pixel]" in re.sub(r"<[^>]+>", "", body)
    server.shutdown()
    assert fetched == [] and not any(n.startswith("word/media/") for n in names)  # nothing fetched, nothing embedded
    r = _cli("render", answer, "--to", "docx")
    assert r.returncode == 2 and "--to docx needs an output file" in r.stderr


def test_each_claims_note_names_its_own_lines_in_markdown_and_docx(tmp_path: Path) -> None:
    """The claim citing lines 2–3 and the one citing line 4 of the same source get notes of their
    own (Word numbers each citing place); adjacent notes are kept apart; a source with a snippet
    and no lines has its snippet quoted in the note."""
    from citerender.rendering.exports.docx import to_docx

    reg = registry_from_data([
        {"id": "a", "title": "Handbook", "url": "https://h.example/", "lines": ["one", "two", "three", "four"]},
        {"id": "b", "title": "FAQ", "url": "https://f.example/", "text": "A snippet of the FAQ."},
    ])  # fmt: skip
    text = expand(
        "Allowed.{S}cite{D}a{D}L2-L3{E} Approval.{S}cite{D}a{D}L4{E} Both.{S}cite{D}a{D}L4{E}{S}cite{D}b{E}\n"
    )
    p = parse_answer(text, reg)
    md = to_markdown(p)
    assert md.startswith("Allowed.[^1-L2-L3] Approval.[^1-L4] Both.[^1-L4],[^2]\n")  # never ¹²
    assert (
        "[^1-L2-L3]: Handbook, <https://h.example/>, lines 2–3\n[^1-L4]: Handbook, <https://h.example/>, line 4\n" in md
    )
    path = tmp_path / "a.docx"
    path.write_bytes(to_docx(p))
    back = subprocess.run([PANDOC, str(path), "-t", "plain"], capture_output=True, text=True, check=True).stdout
    notes = [" ".join(n.split()) for n in re.findall(r"^\[\d+\] (.+?)(?=\n\n|\Z)", back, re.M | re.S)]
    assert notes == [
        "Handbook, https://h.example/, lines 2–3: “two three”",
        "Handbook, https://h.example/, line 4: “four”",
        "Handbook, https://h.example/, line 4: “four”",
        "FAQ, https://f.example/, “A snippet of the FAQ.”",
    ]
    assert "Both.[3],[4]" in back


HOSTILE_BIB = [
    {"id": "handbook", "title": "Handbook {2026} \\input{/etc/passwd} 100% & $x_1$ #1 ^ ~", "url": "https://h.example/a b{c}",
     "lines": ["one", "two"], "updated": "2026-03-01"},
    {"id": "faq", "title": "FAQ}\n@misc{evil, title={pwned}", "url": "javascript:alert(1)"},
    {"id": "HandBook", "title": "Same key, other case", "url": "https://c.example/"},
]  # fmt: skip


def _bib_parsed() -> Parsed:
    text = expand("One.{S}cite{D}handbook{D}L2{E} Two.{S}cite{D}faq{E} Three.{S}cite{D}HandBook{E}\n")
    return parse_answer(text, registry_from_data(HOSTILE_BIB))


def test_bibtex_reads_back_in_pandoc_citeproc(tmp_path: Path) -> None:
    """Every cited source, read back by pandoc as a bibliography and cited by citeproc: titles keep
    their characters (none opens a field, a command or a new entry), keys are unique, only
    allowed links are written."""
    from citerender.rendering.exports.bib import to_bibtex

    bib = to_bibtex(_bib_parsed())
    assert_no_marker(bib)
    path = tmp_path / "cited.bib"
    path.write_text(bib, encoding="utf-8")
    items = json.loads(subprocess.run([PANDOC, "-f", "bibtex", "-t", "csljson", str(path)], capture_output=True,
                                      text=True, check=True).stdout)  # fmt: skip
    by_id = {i["id"]: i for i in items}
    assert sorted(by_id) == ["HandBook-2", "faq", "handbook"]  # keys: unique even to a case-blind reader
    title = by_id["handbook"]["title"]
    assert "\\input{/etc/passwd}" in title and "100% & $x_1$ #1 ^ ~" in title  # text, never a command
    assert by_id["handbook"]["URL"] == "https://h.example/a%20b%7Bc%7D" and by_id["handbook"]["note"] == "line 2"
    assert "URL" not in by_id["faq"] and "pwned" in by_id["faq"]["title"] and len(items) == 3  # no entry injected
    doc = tmp_path / "doc.md"
    doc.write_text("---\nnocite: '@*'\n---\nCited.\n", encoding="utf-8")
    out = subprocess.run([PANDOC, str(doc), "--citeproc", f"--bibliography={path}", "-t", "plain"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "https://h.example/a%20b%7Bc%7D" in out and "same key, other case" in out.casefold()  # the style title-cases


def test_ris_reads_back(tmp_path: Path) -> None:
    """The RIS export read back by rispy (and by pandoc where its version reads RIS): one
    single-line value per tag, one record per cited source."""
    import rispy

    from citerender.rendering.exports.bib import to_ris

    ris = to_ris(_bib_parsed())
    assert_no_marker(ris)
    records = rispy.loads(ris)
    assert [r["id"] for r in records] == ["handbook", "faq", "HandBook-2"]
    first = records[0]
    assert first["type_of_reference"] == "ELEC" and first["urls"] == ["https://h.example/a b{c}"]
    assert (
        first["title"].startswith("Handbook {2026}") and first["date"] == "2026/03/01" and first["notes"] == ["line 2"]
    )
    assert records[1]["type_of_reference"] == "GEN" and "urls" not in records[1]  # javascript: is not a link
    assert records[1]["title"] == "FAQ} @misc{evil, title={pwned}"  # one line: no tag injected
    formats = subprocess.run([PANDOC, "--list-input-formats"], capture_output=True, text=True).stdout.split()
    if "ris" in formats:  # pandoc ≥ 3 reads RIS too
        path = tmp_path / "cited.ris"
        path.write_text(ris, encoding="utf-8")
        back = json.loads(subprocess.run([PANDOC, "-f", "ris", "-t", "csljson", str(path)], capture_output=True,
                                         text=True, check=True).stdout)  # fmt: skip
        assert [i["id"] for i in back] == ["handbook", "faq", "HandBook-2"]


def test_a_note_after_a_bare_url_stays_out_of_the_address(tmp_path: Path) -> None:
    """A reader that links bare URLs (GFM, markdown-it's linkify) reads ``https://x/page[^1]`` as
    one address: the note is written a space apart, and stays a note when read back."""
    from bs4 import BeautifulSoup
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    from citerender import Source
    from citerender.sources.model import Registry

    src = expand(
        "See https://example.com/page{S}cite{D}a{E} and www.example.org{S}cite{D}a{E}; [a link](https://x.example/){S}cite{D}a{E}.\n"
    )
    reg = Registry([Source(id="a", title="A", url="https://a.example/")])
    out = to_markdown(parse_answer(src, reg))
    assert "https://example.com/page [^1]" in out and "www.example.org [^1]" in out
    assert "(https://x.example/)[^1]" in out  # a link's end closes it already: no space
    html = MarkdownIt("gfm-like").use(footnote_plugin).render(out)
    soup = BeautifulSoup(html, "html.parser")
    assert [a["href"] for a in soup.select("a:not(.footnote-backref)") if "example" in a["href"]][:3] == [
        "https://example.com/page",
        "http://www.example.org",
        "https://x.example/",
    ]
    assert len(soup.select("sup.footnote-ref")) == 3
