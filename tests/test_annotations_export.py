"""``render --to annotations``: a W3C Web Annotation collection (JSON-LD), one annotation per
citation, checked as its consumers read it: expanded offline by pyld against the W3C context
(a copy in tests/fixtures/annotations/, origin in its README), selectors resolved against the
text the file declares, bodies against the sources file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, assert_no_marker, expand, run_cli
from pyld import jsonld

from citerender import load_sources
from citerender.rendering.exports.annotations import ANNO_CONTEXT, to_annotations, to_annotations_data
from citerender.rendering.exports.parsed import parse_answer
from citerender.rendering.exports.text import to_text
from citerender.sources.model import Registry, Source
from citerender.syntax.types import line_locator

FIXTURES = Path(__file__).parent / "fixtures" / "annotations"
CONTEXT_DOC = json.loads((FIXTURES / "anno.jsonld").read_text(encoding="utf-8"))
TERMS = set(CONTEXT_DOC["@context"])
#: the motivations the W3C vocabulary defines (the context's terms mapped to ``oa:`` motivations)
MOTIVATIONS = {
    "bookmarking", "classifying", "commenting", "describing", "editing", "highlighting", "identifying",
    "linking", "moderating", "questioning", "replying", "reviewing", "tagging",
}  # fmt: skip
OA = "http://www.w3.org/ns/oa#"
AS = "http://www.w3.org/ns/activitystreams#"
RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"
#: an absolute IRI: a scheme, a colon and no white space (RFC 3987)
ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+\Z")


def _loader(url: str, options: object = None) -> dict[str, Any]:
    """pyld's document loader, offline: the W3C context from the fixture copy, nothing else."""
    if url.replace("https:", "http:") != ANNO_CONTEXT:
        raise AssertionError(f"expansion asked for {url}; only the W3C context is served")
    return {"contextUrl": None, "documentUrl": url, "document": CONTEXT_DOC, "contentType": "application/ld+json"}


def _write(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A fixture answer (its marker placeholders made real characters) and its sources file."""
    answer = tmp_path / f"{name}.md"
    answer.write_text(expand((FIXTURES / f"{name}.md").read_text(encoding="utf-8")), encoding="utf-8")
    return answer, FIXTURES / f"{name}.sources.json"


def _export(tmp_path: Path, name: str) -> tuple[dict[str, Any], str]:
    """``render NAME.md -s NAME.sources.json --to annotations -o FILE.jsonld``: the file, read
    back, and what the command said on stderr. The exit code says whether a diagnostic is an
    error (``answer.md`` cites lines its source lacks: 1), the file is written either way."""
    answer, sources = _write(tmp_path, name)
    out = tmp_path / f"{name}.jsonld"
    r = run_cli("render", answer, "-s", sources, "--to", "annotations", "-o", out)
    assert r.returncode == (1 if name == "answer" else 0), r.stderr
    assert r.stdout == ""
    return json.loads(out.read_text(encoding="utf-8")), r.stderr


def _objects(node: object) -> Iterator[dict[str, Any]]:
    """Every JSON object in a document, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


def _items(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["first"]["items"]


def _declared(doc: dict[str, Any]) -> dict[str, Any]:
    """The one ``Text`` resource the file declares (the answer's plain text)."""
    texts = [o for o in _objects(doc) if o.get("type") == "Text"]
    assert len(texts) == 1, "the answer's text is declared exactly once"
    return texts[0]


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _selector(resource: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [s for s in _listed(resource.get("selector", [])) if s["type"] == kind]


def _quote_and_position(target: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    (quote,) = _selector(target, "TextQuoteSelector")
    (position,) = _selector(target, "TextPositionSelector")
    return quote, position


def _exact_of(doc: dict[str, Any]) -> list[str]:
    return [_quote_and_position(a["target"])[0]["exact"] for a in _items(doc)]


def _bodies(annotation: dict[str, Any]) -> list[dict[str, Any]]:
    return _listed(annotation["body"])


# -- the collection and its annotations -------------------------------------------------------


def test_collection_is_a_w3c_annotation_collection_with_one_annotation_per_citation(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "answer")
    assert doc["@context"] == "http://www.w3.org/ns/anno.jsonld"
    assert doc["type"] == "AnnotationCollection"
    assert ABSOLUTE_IRI.match(doc["id"]), doc["id"]
    page = doc["first"]
    assert isinstance(page, dict) and page["type"] == "AnnotationPage"  # embedded, not a link
    assert ABSOLUTE_IRI.match(page["id"])
    # one annotation per citation: the JSON export's citing places, in the same order
    answer, sources = _write(tmp_path, "answer")
    citations = json.loads(run_cli("render", answer, "-s", sources, "--to", "json").stdout)["citations"]
    assert doc["total"] == len(page["items"]) == len(citations) == 9
    assert [a["id"].rsplit(":", 1)[1] for a in page["items"]] == [c["anchor"] for c in citations]


def test_every_annotation_has_a_unique_absolute_id_its_type_and_a_w3c_motivation(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "answer")
    ids = [a["id"] for a in _items(doc)]
    assert len(set(ids)) == len(ids)
    for a in _items(doc):
        assert ABSOLUTE_IRI.match(a["id"]), a["id"]
        assert a["type"] == "Annotation"
        assert a["motivation"] in MOTIVATIONS
        assert a["motivation"] in TERMS  # and the context maps it onto the W3C vocabulary


def test_expands_offline_against_the_w3c_context_dropping_nothing(tmp_path: Path) -> None:
    for name in ("answer", "scripts"):
        doc, _ = _export(tmp_path, name)
        undefined = {k for o in _objects(doc) for k in o if k not in TERMS and k != "@context"}
        assert not undefined, f"keys the W3C context does not define: {undefined}"
        dropped: list[str | None] = []
        expanded = jsonld.expand(doc, {"documentLoader": _loader}, on_property_dropped=dropped.append)
        assert dropped == []
        (collection,) = expanded
        assert collection["@type"] == [AS + "OrderedCollection"]
        assert collection[AS + "totalItems"][0]["@value"] == doc["total"]
        (page,) = collection[AS + "first"]
        items = page[AS + "items"][0]["@list"]
        assert len(items) == doc["total"]
        for ann in items:
            assert ann["@type"] == [OA + "Annotation"]
            assert {OA + "hasBody", OA + "hasTarget", OA + "motivatedBy"} <= set(ann)
            assert ann[OA + "motivatedBy"] == [{"@id": OA + "linking"}]
        # the answer's text survives expansion, whole
        value = _declared(doc)["value"]
        assert any(v.get("@value") == value for o in _objects(expanded) for v in _listed(o.get(RDF_VALUE, [])))


# -- the target: the claim, in the text the file declares ----------------------------------------


def test_target_text_is_declared_once_and_is_the_text_export(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "answer")
    declared = _declared(doc)
    assert declared["format"] == "text/plain"
    assert ABSOLUTE_IRI.match(declared["id"])
    for a in _items(doc):
        target = a["target"]
        assert target["type"] == "SpecificResource"
        assert target["source"] == declared["id"] or target["source"] is declared
    answer, sources = _write(tmp_path, "answer")
    assert declared["value"] == run_cli("render", answer, "-s", sources, "--to", "text").stdout
    assert_no_marker(declared["value"], "the declared text")


@pytest.mark.parametrize("name", ["answer", "scripts"])
def test_quote_and_position_select_the_same_words_in_code_points(tmp_path: Path, name: str) -> None:
    doc, _ = _export(tmp_path, name)
    text = _declared(doc)["value"]
    for a in _items(doc):
        quote, position = _quote_and_position(a["target"])
        start, end = position["start"], position["end"]
        assert 0 <= start < end <= len(text)
        assert text[start:end] == quote["exact"]
        assert text[start - len(quote["prefix"]) : start] == quote["prefix"]
        assert text[end : end + len(quote["suffix"])] == quote["suffix"]
        assert quote["prefix"] and quote["suffix"]  # the text around it, where there is any


def test_each_quote_is_its_claims_sentence_and_no_other_claim(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "answer")
    assert _exact_of(doc) == [
        "Employees may work remotely up to three days per week.",
        "Each extra day needs a manager's approval, and approved accommodations can change the limit",
        "The three-day limit applies to part-time staff as well.",
        "Connect through the company VPN on public Wi-Fi and enrol a personal laptop before using it.",
        "The handbook also covers sabbaticals.",
        "Remote days are logged by Friday.",  # a table cell
        "Travel is booked through the company portal.",  # a list item
        "Receipts for equipment are kept for a year.",
        "Equipment is reimbursed up to 300 EUR a year.",  # a quote
    ]
    positions = sorted((p["start"], p["end"]) for p in (_quote_and_position(a["target"])[1] for a in _items(doc)))
    assert all(end <= start for (_, end), (start, _) in pairwise(positions))  # no overlap


def test_two_claims_in_one_sentence_each_quote_their_own_clause() -> None:
    reg = Registry([Source("a", title="A", lines=("one",)), Source("b", title="B", lines=("two",))])
    text = "Rents rose 4% in 2025\ue200cite\ue202a\ue202L1\ue201, while wages rose 2%.\ue200cite\ue202b\ue202L1\ue201"
    doc = to_annotations_data(parse_answer(text, reg))
    assert _exact_of(doc) == ["Rents rose 4% in 2025", "while wages rose 2%."]


def test_a_citation_opening_its_paragraph_quotes_its_own_number() -> None:
    """It closes no words (the claim rule gives it none): the quote is the number it stands as,
    never the next sentence, which is no claim of it."""
    reg = Registry([Source("a", title="A", lines=("one",))])
    doc = to_annotations_data(parse_answer("\ue200cite\ue202a\ue201 Then words follow.", reg))
    assert _exact_of(doc) == ["[1]"]


def test_offsets_count_code_points_not_utf16_units_in_rtl_cjk_and_astral_text(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "scripts")
    text = _declared(doc)["value"]
    exact = _exact_of(doc)
    assert exact == [
        "👩\u200d💻 Staff 🙂 may work from home three days a week.",
        "העובדים רשאים לעבוד מהבית עד שלושה ימים בשבוע.",
        "يُسمح للموظفين بالعمل من المنزل ثلاثة أيام في الأسبوع.",
        "员工每周最多可以远程工作三天。",
        "额外的远程工作日需要经理批准。",
        "在宅勤務は週に三日までです🎉。",
        "𝐒𝐭𝐚𝐟𝐟 𝑚𝑎𝑦 choose the days.",
    ]
    for a in _items(doc):
        start = _quote_and_position(a["target"])[1]["start"]
        utf16 = len(text[:start].encode("utf-16-le")) // 2
        assert utf16 > start  # emoji before every claim: UTF-16 offsets would differ ...
        assert text[start:].startswith(_quote_and_position(a["target"])[0]["exact"])  # ... code points fit


# -- the bodies: the cited passages ------------------------------------------------------------


def test_bodies_name_the_source_by_url_or_by_an_iri_holding_its_id(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "answer")
    sources = {s["id"]: s for s in json.loads((FIXTURES / "answer.sources.json").read_text())["sources"]}
    named = {b["source"] for a in _items(doc) for b in _bodies(a)}
    assert named == {
        sources["handbook"]["url"],
        sources["security"]["url"],
        "urn:citerender:source:turn0file0",  # no URL
        "urn:citerender:source:hostile",  # a javascript: URL is no link: the id names it
    }
    for a in _items(doc):
        for body in _bodies(a):
            assert body["type"] == "SpecificResource"
            assert ABSOLUTE_IRI.match(body["source"])


def test_body_quotes_the_cited_lines_and_gives_their_line_fragment(tmp_path: Path) -> None:
    doc, _ = _export(tmp_path, "answer")
    lines = {s["id"]: s.get("lines") for s in json.loads((FIXTURES / "answer.sources.json").read_text())["sources"]}
    by_place = {a["id"].rsplit(":", 1)[1]: _bodies(a) for a in _items(doc)}
    cited = {  # anchor: (source id, first, last)
        "cite-1": ("handbook", 1, 1),
        "cite-2": ("handbook", 2, 3),
        "cite-3": ("handbook", 1, 1),
        "cite-6": ("handbook", 4, 4),
        "cite-7": ("turn0file0", 1, 1),
        "cite-9": ("turn0file0", 3, 3),
    }
    for anchor, (sid, first, last) in cited.items():
        (body,) = by_place[anchor]
        (quote,) = _selector(body, "TextQuoteSelector")
        assert quote["exact"] == " ".join(" ".join(lines[sid][first - 1 : last]).split())  # white space collapsed
        fragments = {f["value"] for f in _selector(body, "FragmentSelector")}
        assert line_locator(first, last) in fragments
        if sid == "turn0file0":  # named by its id: its text is its lines, and RFC 5147 says which
            rfc = [f for f in _selector(body, "FragmentSelector") if "conformsTo" in f]
            assert rfc == [
                {
                    "type": "FragmentSelector",
                    "conformsTo": "http://tools.ietf.org/rfc/rfc5147",
                    "value": f"line={first - 1},{last}",
                }
            ]
    assert by_place["cite-2"][0]["selector"][1]["value"] == "L2-L3"
    # two claims citing one range: two annotations, the same passage
    assert by_place["cite-1"] == by_place["cite-3"]
    # a group of two sources: one body each
    assert [b["source"] for b in by_place["cite-4"]] == [
        "https://company.example/it/security#remote",
        "urn:citerender:source:turn0file0",
    ]


def test_rfc5147_lines_only_while_every_line_before_is_one_line() -> None:
    """RFC 5147 counts the lines of the source's text: a row holding a line break would shift every
    number after it, so past it only the ``L`` fragment names the lines."""
    reg = Registry([Source("f", title="F", lines=("one", "two\nhalves", "three"))])
    doc = to_annotations_data(parse_answer("A.\ue200cite\ue202f\ue202L1\ue201 B.\ue200cite\ue202f\ue202L3\ue201", reg))
    fragments = [[f["value"] for f in _selector(_bodies(a)[0], "FragmentSelector")] for a in _items(doc)]
    assert fragments == [["L1", "line=0,1"], ["L3"]]


def test_out_of_range_locator_gets_no_line_selector_and_is_still_reported(tmp_path: Path) -> None:
    doc, stderr = _export(tmp_path, "answer")
    assert "CR102" in stderr and "L40-L45" in stderr
    (body,) = next(_bodies(a) for a in _items(doc) if a["id"].endswith(":cite-5"))
    assert body["source"] == "https://company.example/handbook"
    assert "selector" not in body  # no line selector, no quote: nothing clamped to line 5
    assert "L5" not in json.dumps(body)


def test_hostile_titles_and_urls_stay_data(tmp_path: Path) -> None:
    doc, stderr = _export(tmp_path, "answer")
    raw = json.dumps(doc, ensure_ascii=False)
    assert_no_marker(raw, "the annotations")
    (body,) = next(_bodies(a) for a in _items(doc) if a["id"].endswith(":cite-8"))
    assert body["label"] == '<img src=x onerror=alert(1)> "Quoted" & title'  # a label, never markup
    assert "javascript:" not in raw
    assert "CR114" in stderr  # the marker removed from the title is reported


def test_iris_keep_ids_and_letters_of_any_script_and_escape_what_an_iri_cannot_hold() -> None:
    reg = Registry(
        [
            Source("4:0", title="File search result", lines=("l1",)),  # an Assistants file-search id
            Source("web", title="Web", url="https://例え.jp/パス?q=a b&r=<x>", lines=("l1",)),
        ]
    )
    doc = to_annotations_data(parse_answer("One.【4:0†source】 Two.\ue200cite\ue202web\ue201", reg))
    sources = [b["source"] for a in _items(doc) for b in _bodies(a)]
    assert sources == ["urn:citerender:source:4:0", "https://例え.jp/パス?q=a%20b&r=%3Cx%3E"]
    dropped: list[str | None] = []
    jsonld.expand(doc, {"documentLoader": _loader}, on_property_dropped=dropped.append)
    assert dropped == []


def test_answer_with_noncharacters_of_its_own_keeps_its_places() -> None:
    """The export marks places with noncharacters; an answer holding some of them is no trouble."""
    reg = Registry([Source("a", title="A", lines=("one",))])
    own = "".join(chr(c) for c in range(0xFDD0, 0xFDE0))
    text = f"Odd {own} text is kept.\ue200cite\ue202a\ue202L1\ue201 # {own}"
    doc = to_annotations_data(parse_answer(text, reg))
    assert _exact_of(doc) == [f"Odd {own} text is kept."]
    assert own in _declared(doc)["value"]


# -- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("alias", ["annotation", "web-annotations", "w3c-annotations"])
def test_aliases_write_the_same_collection(tmp_path: Path, alias: str) -> None:
    answer, sources = _write(tmp_path, "answer")
    shipped = run_cli("render", answer, "-s", sources, "--to", "annotations")
    other = run_cli("render", answer, "-s", sources, "--to", alias)
    assert shipped.returncode == other.returncode == 1  # CR102: lines its source lacks
    assert other.stdout == shipped.stdout and json.loads(shipped.stdout)["total"] == 9


def test_options_without_effect_are_refused(tmp_path: Path) -> None:
    answer, sources = _write(tmp_path, "answer")
    r = run_cli("render", answer, "-s", sources, "--to", "annotations", "--style", "hovercard")
    assert r.returncode == 2
    assert "--style has no effect with --to annotations" in r.stderr


def test_same_answer_same_ids_other_sources_other_collection(tmp_path: Path) -> None:
    answer, sources = _write(tmp_path, "answer")
    first = run_cli("render", answer, "-s", sources, "--to", "annotations").stdout
    assert run_cli("render", answer, "-s", sources, "--to", "annotations").stdout == first
    changed = json.loads(sources.read_text(encoding="utf-8"))
    changed["sources"][0]["lines"][0] = "Employees may work remotely up to two days per week."
    other_sources = tmp_path / "other.sources.json"
    other_sources.write_text(json.dumps(changed), encoding="utf-8")
    other = json.loads(run_cli("render", answer, "-s", other_sources, "--to", "annotations").stdout)
    assert other["id"] != json.loads(first)["id"]


def test_an_answer_without_citations_is_an_empty_collection() -> None:
    doc = json.loads(to_annotations(parse_answer("Nothing cited here.", Registry([]))))
    assert doc["total"] == 0 and doc["first"]["items"] == []
    dropped: list[str | None] = []
    jsonld.expand(doc, {"documentLoader": _loader}, on_property_dropped=dropped.append)
    assert dropped == []


@pytest.mark.parametrize(
    ("answer", "sources"),
    [
        (EXAMPLES / "handbook" / "answer.md", EXAMPLES / "handbook" / "answer.sources.json"),
        (Path(__file__).parent / "fixtures" / "rtl" / "answer.md", Path(__file__).parent / "fixtures" / "rtl" / "answer.sources.json"),
    ],
    ids=["handbook", "rtl"],
)  # fmt: skip
def test_other_answers_keep_every_promise(answer: Path, sources: Path) -> None:
    parsed = parse_answer(answer.read_text(encoding="utf-8"), load_sources(sources))
    doc = to_annotations_data(parsed)
    text = _declared(doc)["value"]
    assert text == to_text(parse_answer(answer.read_text(encoding="utf-8"), load_sources(sources)))
    assert doc["total"] == len(parsed.groups) > 0
    for a in _items(doc):
        quote, position = _quote_and_position(a["target"])
        assert text[position["start"] : position["end"]] == quote["exact"]
        assert "[" not in quote["exact"]  # a claim's words, never a citation's number


def test_the_expansion_check_would_see_an_undefined_key(tmp_path: Path) -> None:
    """The check above is no formality: a key the W3C context lacks is dropped, and reported."""
    doc, _ = _export(tmp_path, "scripts")
    doc["first"]["items"][0]["anchor"] = "cite-1"
    dropped: list[str | None] = []
    jsonld.expand(doc, {"documentLoader": _loader}, on_property_dropped=dropped.append)
    assert dropped == ["anchor"]


def test_a_cited_heading_keeps_its_rule_as_long_as_its_words() -> None:
    """The marks that place claims take no room in the text: a heading's rule is the text export's."""
    reg = Registry([Source("a", title="A", lines=("one",))])
    answer = "# Remote days\ue200cite\ue202a\ue202L1\ue201\n\n## Office days\ue200cite\ue202a\ue201\n\nBody."
    value = _declared(to_annotations_data(parse_answer(answer, reg)))["value"]
    assert value == to_text(parse_answer(answer, reg))
    assert value.startswith("Remote days[1]\n" + "=" * 14 + "\n\nOffice days[1]\n" + "-" * 14 + "\n\nBody.")


def test_the_documented_hypothesis_script_quotes_what_the_published_page_shows(tmp_path: Path) -> None:
    """docs/annotations.md's script, run as printed: a request body per annotation, each anchored
    by a quote a reader finds on the standalone page."""
    from bs4 import BeautifulSoup

    docs = (Path(__file__).parent.parent / "docs" / "annotations.md").read_text(encoding="utf-8")
    (script,) = re.findall(r"```python\n(# to_hypothesis\.py.*?)```", docs, re.S)
    (tmp_path / "to_hypothesis.py").write_text(script, encoding="utf-8")
    answer, sources = EXAMPLES / "handbook" / "answer.md", EXAMPLES / "handbook" / "answer.sources.json"
    assert run_cli("render", answer, "-s", sources, "--to", "annotations", "-o", tmp_path / "a.jsonld").returncode == 0
    assert run_cli("render", answer, "-s", sources, "--standalone", "-o", tmp_path / "a.html").returncode == 0
    page = "https://example.org/answers/remote-work.html"
    r = subprocess.run(
        [sys.executable, tmp_path / "to_hypothesis.py", tmp_path / "a.jsonld", page],
        capture_output=True, text=True, encoding="utf-8", check=True, timeout=60,
    )  # fmt: skip
    requests = [json.loads(line) for line in r.stdout.splitlines()]
    collection = json.loads((tmp_path / "a.jsonld").read_text(encoding="utf-8"))
    assert len(requests) == collection["total"] == 8
    shown = " ".join(BeautifulSoup((tmp_path / "a.html").read_text(encoding="utf-8"), "html.parser").get_text().split())
    for request, annotation in zip(requests, _items(collection), strict=True):
        assert request["uri"] == page
        (selector,) = request["target"][0]["selector"]
        assert selector == _quote_and_position(annotation["target"])[0]
        assert " ".join(selector["exact"].split()) in shown  # Hypothesis finds the quote on the page
    assert "[Employee Handbook](https://company.example/handbook) L1" in requests[0]["text"]
    assert "> Employees may work remotely up to three days per week." in requests[0]["text"]


def test_a_citation_opening_a_paragraph_never_takes_the_claim_of_the_paragraph_before() -> None:
    reg = Registry([Source("a", title="A", lines=("one",)), Source("b", title="B", lines=("two",))])
    answer = "First claim.\ue200cite\ue202a\ue201\n\n\ue200cite\ue202b\ue201 Second paragraph."
    assert _exact_of(to_annotations_data(parse_answer(answer, reg))) == ["First claim.", "[2]"]
