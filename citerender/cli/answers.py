"""What ``render`` and ``check`` read: an answer file (its YAML front matter split off, sources
from ``--sources``, the front matter or a sidecar, as ``build`` finds them) or a saved provider
response; and the diagnostics' lines counted in the file as given."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic, in_file
from ..errors import CiterenderError
from ..providers.inputs import Input, read_input
from ..sources.model import Registry

__all__ = ["AnswerInput", "answer_input", "load_registry", "read_answer"]


@dataclass
class AnswerInput:
    """The answer's Markdown (front matter split off), its sources, what an adapter noted, the
    file line the Markdown starts on, the front matter's title and its text as written."""

    text: str
    registry: Registry | None
    notes: list[Diagnostic] = field(default_factory=list)
    first_line: int = 1
    title: str | None = None
    front_matter: str = ""

    def cleaned_front_matter(self) -> str:
        """The front matter as written, without markers or their residue."""
        from ..syntax.guide import strip_citations
        from ..syntax.residue import remove_residue

        return remove_residue(strip_citations(self.front_matter)) if self.front_matter else ""

    def in_file(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """``diagnostics`` with lines counted in the whole file (front matter included)."""
        return in_file(diagnostics, self.first_line)


def read_answer(path: str) -> tuple[str, Registry | None]:
    """The text of an answer file, or of standard input for ``-`` (bounded, decoded, not empty);
    for a saved provider response (JSON, its events, SSE, a Bedrock binary stream), the answer it
    holds and its sources — not the response's own text, which has no answer in it as written."""
    src = read_input(path)
    if src.kind == "answer":
        return _not_empty(src.text, path), None
    got = _adapted(src, None, None)
    return got.text, got.registry


def _adapted(src: Input, provider: str | None, sources: str | None) -> AnswerInput:
    """The answer a saved response (or transcript) holds, adapted; a chat export is refused."""
    if src.kind == "export":
        raise CiterenderError(
            "this is a chat export: it holds many answers", path=src.path,
            hint="citerender build EXPORT OUT renders and checks every conversation",
        )  # fmt: skip
    from ..providers import adapt

    try:
        adapted = adapt(src.data, provider, sources=load_registry(sources) if sources else None)
    except CiterenderError as e:
        raise CiterenderError(e.message, path=src.name, hint=e.hint) from None
    notes = [Diagnostic.make(code, message) for code, message in adapted.notes]
    return AnswerInput(adapted.text, adapted.registry, notes)


def _not_empty(text: str, path: str) -> str:
    if not text.strip():
        raise CiterenderError(
            "answer is empty", path="<stdin>" if path == "-" else path, hint="pass the model's answer text"
        )
    return text


def load_registry(path: str, dialect: str | None = None) -> Registry:
    """The ``--sources`` file; for a numbering dialect (``--from azure``), entries without an id
    get the ids its numbers spell (``doc1``, ``doc2`` … in order), as the framework lists them."""
    from ..sources.files import load_sources

    form = None
    if dialect:
        from ..formats import find  # (the formats' table only when a dialect is named)

        form = find(dialect)
    if form is None or form.kind != "dialect":
        return load_sources(path)
    return load_sources(path, numbered=form.label, first=form.base)


def answer_input(a: argparse.Namespace, src: Input) -> AnswerInput:
    """The answer ``src`` holds: a Markdown answer, or a saved provider response (``--from``,
    inferred for .json / .jsonl files) carrying both text and sources (--sources then supplies
    what its citations name by id, as Mistral's do). A Markdown answer's front matter is not part
    of the answer: its sources are used when --sources is not given (inline, a path, or a
    ``NAME.sources.*`` sidecar)."""
    if src.kind != "answer":
        return _adapted(src, getattr(a, "from_", None), a.sources)
    from ..publish.answers import front_matter_title, registry_for, split_front_matter
    from ..sources.model import registry_from_data

    text = _not_empty(src.text, src.path)
    name = src.name
    meta, body, first_line = split_front_matter(text, name, strict=False)
    if a.sources:
        registry: Registry | None = load_registry(a.sources, getattr(a, "dialect", None))
    elif src.path == "-":  # no folder to find a sidecar or a relative path in: inline sources only
        inline = meta.get("sources")
        registry = (
            registry_from_data(inline, path=f"{name} (front matter)") if isinstance(inline, list | dict) else None
        )
    else:
        registry = registry_for(meta, Path(src.path))[0]
    front = text[: len(text) - len(body)]
    return AnswerInput(body, registry, first_line=first_line, title=front_matter_title(meta), front_matter=front)
