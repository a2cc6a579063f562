"""``render --from azure`` reads sources as Azure On Your Data lists them, without ids (issue 45 §4):
each ``[docN]`` becomes a citation linked to the N-th listed source, none is left in the text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, run_cli

from citerender.errors import CiterenderError
from citerender.sources.files import load_sources

CITATIONS: list[dict[str, Any]] = [
    {"content": "Walk your dog every day, twice if it is young.", "title": "Dog care",
     "url": "https://contoso.example/care.txt", "filepath": "care.txt", "chunk_id": "0"},
    {"content": "Brush a long coat weekly.", "title": "Grooming guide",
     "url": "https://contoso.example/grooming.txt", "filepath": "grooming.txt", "chunk_id": "0"},
    {"content": "Vaccinate puppies at eight weeks.", "title": "Vet handbook",
     "url": "https://vets.example/handbook.pdf", "filepath": "handbook.pdf", "chunk_id": "3"},
]  # fmt: skip
ANSWER = (
    "# Dog care\n\nWalk your dog daily [doc1]. Brush a long coat weekly [doc2], "
    "and vaccinate puppies early [doc3][doc1].\n\nIn code `[doc2]` stays as written.\n"
)
DOC = re.compile(r"\[doc\d+\]", re.I)


def _render(tmp_path: Path, sources: object, *extra: str, answer: str = ANSWER) -> tuple[BeautifulSoup, str]:
    src, data, out = tmp_path / "answer.md", tmp_path / "citations.json", tmp_path / "page.html"
    src.write_text(answer, encoding="utf-8")
    data.write_text(json.dumps(sources), encoding="utf-8")
    r = run_cli("render", str(src), "--from", "azure", "--sources", str(data), "--standalone", "-o", str(out), *extra)
    assert r.returncode == 0, r.stderr
    return BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser"), r.stderr


def _prose(soup: BeautifulSoup) -> str:
    for code in soup.find_all("code"):
        code.decompose()
    main = soup.find("main")
    assert main is not None
    return main.get_text()


@pytest.mark.parametrize("style", ["footnotes", "hovercard", "pills"])
@pytest.mark.parametrize("shape", ["list", "context"])
def test_each_doc_number_is_a_citation_of_the_listed_source(tmp_path: Path, style: str, shape: str) -> None:
    sources: object = CITATIONS if shape == "list" else {"citations": CITATIONS, "intent": "dog care"}
    soup, _ = _render(tmp_path, sources, "--style", style)
    assert DOC.search(_prose(BeautifulSoup(str(soup), "html.parser"))) is None
    refs = soup.select(".citerender-references > li")
    assert [a["href"] for r in refs for a in r.select("a.citerender-ref-title")] == [c["url"] for c in CITATIONS]
    # each citation, in the order written, points at the entry of its own source: doc1, doc2, doc3, doc1
    cites = soup.select(".citerender-cite")
    assert len(cites) == 3  # ``[doc3][doc1]`` are one group
    targets = [a.get("href") for a in soup.select(".citerender-cite a[href^='#ref-']")]
    titles = {r["id"]: r.select_one(".citerender-ref-title").get_text() for r in refs}  # type: ignore[union-attr]
    assert [titles[t[1:]] for t in dict.fromkeys(targets)] == ["Dog care", "Grooming guide", "Vet handbook"]
    assert [c.get_text() for c in soup.find_all("code")] == ["[doc2]"]


def test_the_card_quotes_the_cited_chunk(tmp_path: Path) -> None:
    soup, _ = _render(tmp_path, CITATIONS, "--style", "hovercard")
    cards = soup.select(".citerender-card")
    assert "Walk your dog every day" in cards[0].get_text()
    assert "Brush a long coat weekly." in cards[1].get_text()


def test_the_documented_response_s_citations_as_a_sources_file(tmp_path: Path) -> None:
    doc = json.loads((FIXTURES / "providers/documented/azure-on-your-data-advanced.json").read_text("utf-8"))
    message = doc["responses"]["200"]["body"]["choices"][0]["message"]
    for sources in (message["context"]["citations"], message["context"]):
        soup, _ = _render(tmp_path, sources, answer=message["content"])
        assert DOC.search(_prose(soup)) is None
        (link,) = soup.select(".citerender-references a.citerender-ref-title")
        assert link["href"] == message["context"]["citations"][0]["url"]


def test_ids_given_are_kept_and_other_dialects_still_ask_for_ids(tmp_path: Path) -> None:
    with_ids = [{"id": f"k{i}", **c} for i, c in enumerate(CITATIONS)]
    soup, _ = _render(tmp_path, with_ids)
    assert DOC.search(_prose(soup)) is None
    assert len(soup.select(".citerender-references > li")) == 3
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(CITATIONS), encoding="utf-8")
    with pytest.raises(CiterenderError, match="has no 'id'"):
        load_sources(path)  # without a dialect, an entry still needs its id
    registry = load_sources(path, numbered="doc{}")
    assert list(registry) == ["doc1", "doc2", "doc3"]
    assert registry["doc3"].text == "Vaccinate puppies at eight weeks."
    src = tmp_path / "a.md"
    src.write_text(ANSWER, encoding="utf-8")
    r = run_cli("render", str(src), "--sources", str(path))
    assert r.returncode == 2 and "has no 'id'" in r.stderr


def test_check_reads_the_same_list(tmp_path: Path) -> None:
    src, data = tmp_path / "answer.md", tmp_path / "citations.json"
    src.write_text(ANSWER, encoding="utf-8")
    data.write_text(json.dumps(CITATIONS), encoding="utf-8")
    r = run_cli("check", str(src), "--from", "azure", "--sources", str(data))
    assert r.returncode in (0, 1) and "has no 'id'" not in r.stderr  # the list is read, as render reads it


def test_check_reads_the_numbers_as_citations(tmp_path: Path) -> None:
    """``check --from azure`` reads ``[docN]`` as ``render`` does (it reported CR308 instead)."""
    from conftest import run_cli

    answer, sources = tmp_path / "a.md", tmp_path / "s.json"
    answer.write_text("Remote work is allowed three days [doc1]. Approval is needed [doc3].\n", encoding="utf-8")
    sources.write_text(
        json.dumps({"citations": [{"title": "Handbook", "content": "Remote work up to three days."}]}),
        encoding="utf-8",
    )
    r = run_cli("check", answer, "--from", "azure", "-s", sources, "--format", "json")
    codes = [d["code"] for d in json.loads(r.stdout)]
    assert "CR101" in codes and "CR308" not in codes  # doc3 is unknown; doc1 was read and cited
    assert r.returncode == 1
    r = run_cli("check", answer, "--from", "azure", "-s", sources, "--report", "--format", "json")
    assert json.loads(r.stdout)["report"]["citations"] >= 1
