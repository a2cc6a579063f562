"""RAG frameworks' numbered citations (issue 28, items 4 and 7): ``[doc1]``, ``[citation:1]``,
``[ID:0]``, ``[[1]](url)`` and ``[1]``, read only when named, in the one pipeline; Azure On Your
Data responses, from the REST specification's documented examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import FIXTURES, expand
from hypothesis import given
from hypothesis import strategies as st
from markdown_it.utils import read_fixture_file

import citerender
from citerender import RenderOptions, adapt, load_sources, render
from citerender.cli import main
from citerender.options import DIALECTS
from citerender.plugin.dialects import holds_form
from citerender.rendering.exports.text import to_text

CASES = read_fixture_file(FIXTURES / "rag_dialects.md")
REGISTRY = load_sources(FIXTURES / "rag_dialects.sources.json")
DOCUMENTED = FIXTURES / "providers" / "documented"


@pytest.mark.parametrize("line,title,text,expected", CASES, ids=[c[1] for c in CASES])
def test_dialect_fixture(line: int, title: str, text: str, expected: str) -> None:
    dialect = title.split(":")[0]
    p = citerender.parse_answer(expand(text), registry=REGISTRY, dialect=None if dialect == "none" else dialect)
    codes = [d.code for d in p.diagnostics if d.code != "CR308" or not p.references]
    got = to_text(p).rstrip("\n") + "\ndiagnostics: " + " ".join(codes)
    assert got == expected.rstrip("\n"), f"{title} (fixture line {line})"


def test_every_dialect_has_a_fixture_case() -> None:
    assert {c[1].split(":")[0] for c in CASES} == {*DIALECTS, "none"}


def test_never_guessed_but_the_report_names_the_dialect() -> None:
    r = render("Remote work is allowed [doc1]. Travel [doc2].", registry=REGISTRY)
    assert "[doc1]" in r.html and "citerender-cite" not in r.html
    hint = [d.message for d in r.diagnostics if "no source is cited" in d.message]
    assert hint == [
        "no source is cited, but the answer writes '[doc1]': --from azure (dialect='azure') reads such numbers as citations"
    ]


def test_code_keeps_the_form_exactly() -> None:
    text = "Cited [doc1].\n\n```python\nprompt = 'answer with [doc1] after each claim'\n```\n\nInline `[doc2]` too.\n"
    r = render(text, registry=REGISTRY, dialect="azure", bibliography=False)
    soup = BeautifulSoup(r.html, "html.parser")
    assert [c.get_text() for c in soup.find_all("code")] == [
        "prompt = 'answer with [doc1] after each claim'\n",
        "[doc2]",
    ]
    assert len(soup.select(".citerender-cite")) == 1


def test_an_id_the_label_spells_wins_over_the_order() -> None:
    registry = citerender.registry_from_data(
        [
            {"id": "first", "title": "First"},
            {"id": "doc1", "title": "Named doc1"},
            {"id": "doc2", "title": "Named doc2"},
        ]
    )
    p = citerender.parse_answer("A [doc1]. B [doc2].", registry=registry, dialect="azure")
    assert [r.source.title for r in p.references] == ["Named doc1", "Named doc2"]


def test_without_sources_the_numbers_are_unverified_not_dropped() -> None:
    r = render("A claim [citation:2].", dialect="deepseek")
    soup = BeautifulSoup(r.html, "html.parser")
    assert soup.select_one(".citerender-cite") is not None
    assert "CR112" in {d.code for d in r.diagnostics}


def test_a_range_of_more_than_32_is_text() -> None:
    r = render("All of them [1-40].", registry=REGISTRY, dialect="numbered", bibliography=False)
    assert "[1-40]" in r.html and "citerender-cite" not in r.html


def test_option_is_checked() -> None:
    with pytest.raises(ValueError, match="dialect must be one of"):
        RenderOptions(dialect="docn")  # type: ignore[arg-type]


def test_stream_reads_the_dialect_as_the_one_shot_render_does() -> None:
    text = "Remote work is allowed [doc1]. Travel needs approval [doc2][doc4].\n\nMore [doc3].\n"
    whole = render(text, registry=REGISTRY, dialect="azure").html
    stream = citerender.StreamRenderer(registry=REGISTRY, output="html", dialect="azure")
    html = "".join(stream.feed(text[i : i + 3]) for i in range(0, len(text), 3)) + stream.close()
    html += stream.bibliography_html()
    assert BeautifulSoup(html, "html.parser").get_text() == BeautifulSoup(whole, "html.parser").get_text()
    with pytest.raises(ValueError, match="read by the HTML stream"):
        citerender.StreamRenderer(registry=REGISTRY, dialect="azure")
    adapted = adapt(_documented("azure-on-your-data-minimum.json"))  # a registry that brings its dialect
    with pytest.raises(ValueError, match="dialect 'azure'"):
        citerender.StreamRenderer(registry=adapted.registry)


# -- Azure On Your Data ------------------------------------------------------------------------


def _documented(name: str) -> Any:
    return json.loads((DOCUMENTED / name).read_text(encoding="utf-8"))["responses"]["200"]["body"]


@pytest.mark.parametrize("name", ["azure-on-your-data-minimum.json", "azure-on-your-data-advanced.json"])
def test_azure_on_your_data_documented_examples(name: str, tmp_path: Path) -> None:
    body = _documented(name)
    cit = body["choices"][0]["message"]["context"]["citations"][0]
    path = tmp_path / "response.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    out = tmp_path / "out.html"
    assert main(["render", str(path), "--style", "hovercard", "-o", str(out)]) == 0  # detected: no --from
    soup = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
    para = soup.find("p")
    assert para is not None and para.get_text().startswith("Content of the completion")
    assert "[doc1]" not in soup.get_text()
    card = soup.select_one(".citerender-card")
    assert card is not None
    assert cit["content"] in card.get_text() and cit["title"] in card.get_text()
    links = {a["href"].split("#")[0] for a in soup.select(".citerender-bibliography a[href^='https://']")}
    assert links == {cit["url"]}


def test_azure_chunks_of_one_document_are_one_source_quoting_each_chunk() -> None:
    body = _documented("azure-on-your-data-minimum.json")
    msg = body["choices"][0]["message"]
    first = msg["context"]["citations"][0]
    msg["content"] = "Dogs need walks [doc1]. Feed them twice a day [doc2]. Vets yearly [doc3]."
    msg["context"]["citations"] += [
        {**first, "content": "Feed adult dogs twice a day.", "chunk_id": "1"},
        {"content": "Annual check-ups.", "title": "Vet guide", "filepath": "vet.md", "url": None, "chunk_id": "0"},
    ]
    adapted = adapt(body)
    assert adapted.text == msg["content"]  # the text as written: the dialect reads it
    r = render(adapted.text, registry=adapted.registry, style="hovercard")
    soup = BeautifulSoup(r.html, "html.parser")
    nums = [b.get_text() for b in soup.select(".citerender-hc-trigger")]
    assert nums == ["[1]", "[1]", "[2]"]
    cards = [c.get_text(" ") for c in soup.select(".citerender-card")]
    assert "Citation content." in cards[0] and "Feed adult dogs twice a day." in cards[1]
    assert "Annual check-ups." in cards[2] and "Vet guide" in cards[2]
    assert len(soup.select(".citerender-bibliography li")) == 2


def test_azure_streamed_context_and_consulted_documents() -> None:
    citations = [{"content": "Walk daily.", "title": "Dog care", "url": "https://pets.example/dogs", "chunk_id": "0"}]
    retrieved = [*citations, {"content": "Cats.", "title": "Cat care", "url": "https://pets.example/cats"}]
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "context": {"citations": citations, "intent": "dogs", "all_retrieved_documents": retrieved}}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Walk your dog "}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "daily [doc1]."}}]},
    ]  # fmt: skip
    adapted = adapt(chunks)
    assert adapted.text == "Walk your dog daily [doc1]."
    r = render(adapted.text, registry=adapted.registry, consulted=True)
    soup = BeautifulSoup(r.html, "html.parser")
    assert [a["href"] for a in soup.select(".citerender-references a.citerender-ref-title")] == [
        "https://pets.example/dogs"
    ]
    assert [a["href"] for a in soup.select(".citerender-consulted a[href]")][:1] == ["https://pets.example/cats"]


def test_azure_2023_extensions_api_tool_message() -> None:
    # the 2023-06-01-preview shape (documented in the REST reference of that version): the
    # citations are JSON text in a tool message beside the answer
    tool = json.dumps(
        {
            "citations": [
                {"content": "Parrots need perches.", "title": "Parrot care", "url": "https://birds.example/parrots"}
            ],
            "intent": "[]",
        }
    )
    body = {"id": "chatcmpl-1", "choices": [{"index": 0, "messages": [{"role": "tool", "content": tool}, {"role": "assistant", "content": "Give them perches [doc1]."}]}]}  # fmt: skip
    adapted = adapt(body)
    r = render(adapted.text, registry=adapted.registry)
    assert 'href="https://birds.example/parrots"' in r.html and "[doc1]" not in r.html


def test_cli_from_a_dialect_on_a_markdown_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text("Remote work is allowed [ID:0]. Travel [ID:1].\n", encoding="utf-8")
    out = tmp_path / "answer.html"
    sources = str(FIXTURES / "rag_dialects.sources.json")
    assert main(["render", str(answer), "--sources", sources, "--from", "ragflow", "-o", str(out)]) == 0
    soup = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
    assert [a["href"] for a in soup.select(".citerender-references a.citerender-ref-title")] == [
        "https://intranet.example/handbook",
        "https://intranet.example/travel",
    ]
    assert main(["check", str(answer), "--sources", sources]) == 0  # not read without --from: said so
    assert "--from ragflow" in capsys.readouterr().out


def test_two_chunks_of_one_document_cited_together_are_both_quoted_in_one_card_item() -> None:
    body = _documented("azure-on-your-data-minimum.json")
    msg = body["choices"][0]["message"]
    first = msg["context"]["citations"][0]
    msg["content"] = "Dogs need walks and two meals a day [doc1][doc2]."
    msg["context"]["citations"].append({**first, "content": "Feed adult dogs twice a day.", "chunk_id": "1"})
    adapted = adapt(body)
    for style in ("hovercard", "sidenotes"):
        soup = BeautifulSoup(render(adapted.text, registry=adapted.registry, style=style).html, "html.parser")
        items = soup.select(".citerender-card-item")
        assert len(items) == 1, style  # one source, one item …
        quoted = [t.get_text() for t in items[0].select(".citerender-ltext")]
        assert quoted == ["Citation content.", "Feed adult dogs twice a day."], style  # … quoting both chunks


_PIECES = st.sampled_from(
    ["[", "]", "(", ")", "[1]", "[doc2]", "[ID:0]", "##1$$", "[citation:3]", "【citation:1】", "[[2]]",
     "(https://intranet.example/travel)", "`", "```\n", "\n\n", "    ", "- ", "# ", "doc", "ID:", "$$", "#",
     "[5]: https://five.example/\n", "\\", "word ", "1", "-", ",", "\ue200cite\ue202policy\ue201"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=24).map("".join), st.sampled_from(DIALECTS))
def test_a_dialect_changes_nothing_but_its_own_forms(text: str, dialect: str) -> None:
    """Any text renders in any dialect; one that holds none of the dialect's forms renders exactly
    as without it, and no marker character or dialect form is left where a citation was read."""
    with_dialect = render(text, registry=REGISTRY, dialect=dialect)
    assert "\ue200" not in with_dialect.html
    if not holds_form(dialect, text):
        assert with_dialect.html == render(text, registry=REGISTRY).html
