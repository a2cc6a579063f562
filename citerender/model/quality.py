"""The answer quality report: the measurable side of the guide's citation considerations.

How much of the answer is cited, how many of the available sources and domains it draws on,
which paragraphs state facts without a citation, and whether citations bunch at the end —
as data, so a pipeline can gate on it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field

from markdown_it.token import Token

from ..evidence.sentences import TERMINAL
from ..options import RenderOptions
from ..plugin.state import CitationState
from ..rendering.pipeline import pipeline
from ..sources.model import Registry

__all__ = ["QualityReport", "measure_quality", "quality_report"]

_PH = "\x00"  # stands for a citation while sentences are split
_SENTENCE_END = re.compile(TERMINAL + r"(?:\s*\x00)*(?=\s|$)|(?:\x00)+(?=\s*$)")
_FACT = re.compile(
    r"\d|\b(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"percent|per cent|million|billion|thousand|hundred|dozen|twice|half|majority|minority)\b",
    re.I,
)


@dataclass
class QualityReport:
    """Citation coverage of one answer."""

    paragraphs: int = 0
    cited_paragraphs: int = 0
    sentences: int = 0
    cited_sentences: int = 0
    sources_available: int = 0
    sources_cited: int = 0
    citations: int = 0
    domains: dict[str, int] = field(default_factory=dict)
    uncited_factual: list[dict[str, object]] = field(default_factory=list)
    tail_share: float = 0.0
    bunched_at_end: bool = False

    @property
    def paragraph_share(self) -> float:
        return self.cited_paragraphs / self.paragraphs if self.paragraphs else 0.0

    @property
    def sentence_share(self) -> float:
        return self.cited_sentences / self.sentences if self.sentences else 0.0

    @property
    def top_domain(self) -> str | None:
        return max(self.domains, key=lambda d: self.domains[d]) if self.domains else None

    @property
    def top_domain_share(self) -> float:
        total = sum(self.domains.values())
        return max(self.domains.values()) / total if total else 0.0

    def to_dict(self) -> dict[str, object]:
        d = asdict(self)
        d.update(
            paragraph_share=round(self.paragraph_share, 4),
            sentence_share=round(self.sentence_share, 4),
            top_domain=self.top_domain,
            top_domain_share=round(self.top_domain_share, 4),
        )
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def format(self) -> str:
        lines = [
            f"paragraphs cited: {self.cited_paragraphs}/{self.paragraphs} ({self.paragraph_share:.0%})",
            f"sentences cited:  {self.cited_sentences}/{self.sentences} ({self.sentence_share:.0%})",
            f"sources cited:    {self.sources_cited}/{self.sources_available}"
            if self.sources_available
            else f"sources cited:    {self.sources_cited}",
            f"domains cited:    {len(self.domains)}"
            + (f" (most cited: {self.top_domain}, {self.top_domain_share:.0%} of citations)" if self.domains else ""),
            f"citing places in the last fifth of the paragraphs: {self.tail_share:.0%}"
            + (" — bunched at the end" if self.bunched_at_end else ""),
        ]
        lines.extend(f"uncited factual paragraph at line {u['line']}: {u['text']}" for u in self.uncited_factual)
        return "\n".join(lines)


def quality_report(text: str, registry: Registry | None = None) -> QualityReport:
    """Measure citation coverage of ``text`` (parsed with markdown-it-py, like ``check``)."""
    parsed = pipeline(RenderOptions(unknown="keep", bibliography=False)).parse(text, registry)
    return measure_quality(parsed.tokens, parsed.state, registry)


def measure_quality(tokens: list[Token], st: CitationState, registry: Registry | None) -> QualityReport:
    """The coverage measures of an answer already parsed into ``tokens`` (``st``: its state)."""
    rep = QualityReport(sources_available=len(registry) if registry is not None else 0)
    tally = _Tally(registry, st)
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or i == 0 or tokens[i - 1].type != "paragraph_open":
            continue
        flat = tally.paragraph(tok.children or [], rep).strip()
        if not flat.replace(_PH, "").strip():
            continue
        rep.paragraphs += 1
        cited = _PH in flat
        rep.cited_paragraphs += cited
        _count_sentences(flat, rep)
        if not cited and _FACT.search(flat):
            snippet = flat.replace(_PH, "")
            rep.uncited_factual.append(
                {
                    "line": (tok.map[0] + 1) if tok.map else 1,
                    "text": snippet[:120] + ("…" if len(snippet) > 120 else ""),
                }
            )
    tally.finish(rep, st)
    return rep


class _Tally:
    """What the citations of the paragraphs read so far add up to."""

    def __init__(self, registry: Registry | None, st: CitationState) -> None:
        self.registry = registry
        self.st = st
        self.places: list[int] = []  # the paragraph each citation group sits in
        self.cited_ids: set[str] = set()
        self.domains: Counter[str] = Counter()

    def paragraph(self, children: list[Token], rep: QualityReport) -> str:
        """The paragraph's words with a placeholder per citation group; its citations counted."""
        parts: list[str] = []
        for child in children:
            if child.type == "citation":
                parts.append(_PH)
                self.places.append(rep.paragraphs)  # index of the paragraph being read
                for use in self.st.uses(child):
                    if not use.reference.known or (self.registry is not None and use.source.id not in self.registry):
                        continue
                    rep.citations += 1
                    self.cited_ids.add(use.source.id)
                    self.domains[use.source.domain or "(no domain)"] += 1
            elif child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
        return "".join(parts)

    def finish(self, rep: QualityReport, st: CitationState) -> None:
        """The measures over the whole answer: sources cited, domains, where citations bunch."""
        places = self.places
        rep.sources_cited = len(self.cited_ids)
        rep.domains = dict(self.domains.most_common())
        if places and rep.paragraphs:
            tail = [p for p in places if (p + 1) / rep.paragraphs > 0.8]
            rep.tail_share = len(tail) / len(places)
            rep.bunched_at_end = any(d.code == "CR305" for d in st.diagnostics) or (
                len(places) >= 3 and rep.tail_share >= 0.8 and rep.paragraphs >= 3
            )


def _count_sentences(flat: str, rep: QualityReport) -> None:
    """Sentences of a paragraph (a placeholder stands for a citation group), and the cited ones."""
    pos = 0
    for end in [*(m.end() for m in _SENTENCE_END.finditer(flat)), len(flat)]:
        sentence = flat[pos:end]
        pos = end
        if sentence.replace(_PH, "").strip():
            rep.sentences += 1
            rep.cited_sentences += _PH in sentence
