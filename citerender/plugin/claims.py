"""The ``citerender_claims`` and ``citerender_support`` core rules (with ``evidence=True``): every
group's claim and cited passages, judged by :mod:`citerender.evidence.support`, each finding
reported where its claim stands. A group's ``meta["claims"]`` holds indices into ``st.claims``."""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..diagnostics import Diagnostic
from ..evidence.claims import GROUP, Claim, Evidence, claim_texts
from ..evidence.support import check_support
from .locate import where
from .options import PluginOptions
from .state import CitationState, RefUse, citation_state

__all__ = ["claims_of", "claims_rule", "support_rule"]


def claims_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule: the document's claims, in order, each group pointing at its own by index."""
    st = citation_state(state.env, opts.registry)
    st.claims = claims_of(state.tokens, st)


def support_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule: the support checks on the document's claims, each finding a diagnostic."""
    st = citation_state(state.env, opts.registry)

    def report(claim: Claim, code: str, message: str) -> None:
        st.diagnostics.append(Diagnostic.make(code, message, line=claim.line, column=claim.column))

    check_support(st.claims, st.registry, opts.options.scorer, report)


def claims_of(tokens: Sequence[Token], st: CitationState) -> list[Claim]:
    """Every citation group's claim and evidence, in order (the group's ``meta["claims"]`` indexes them)."""
    out: list[Claim] = []
    for tok in tokens:
        if tok.type != "inline" or not tok.children:
            continue
        flat, groups = _flatten(tok.children)
        if not groups:
            continue
        for k, words in claim_texts(flat):
            group = groups[k]
            if not group.meta["uses"]:
                continue
            line, col = st.line_col(where(group, st))
            group.meta.setdefault("claims", []).append(len(out))
            out.append(Claim(words, line, col, group.meta["anchor"], _evidence(st.uses(group))))
    return out


def _evidence(uses: list[RefUse]) -> list[Evidence]:
    """The passages a group cites, each once: the locator's lines, or the whole source."""
    out: list[Evidence] = []
    seen: set[tuple[str, tuple[int, int] | None]] = set()
    for use in uses:
        src = use.source
        if not use.reference.known:
            continue
        rng = (use.lines.low, use.lines.high) if use.lines is not None and use.lines_valid else None
        if (src.id, rng) in seen:
            continue
        seen.add((src.id, rng))
        if rng is not None:
            text = "\n".join(t for _, t in src.cited_lines(use.lines))
        elif src.lines is not None:
            text = "\n".join(src.lines)
        else:
            text = src.text or ""
        out.append(Evidence(src.id, use.reference.number, rng, text))
    return out


def _flatten(children: Sequence[Token]) -> tuple[str, list[Token]]:
    """The block's words with a placeholder per citation group (a code span stands as ``…``)."""
    parts: list[str] = []
    groups: list[Token] = []
    for child in children:
        if child.type == "citation":
            parts.append(GROUP)
            groups.append(child)
        elif child.type == "text":
            parts.append(child.content.replace(GROUP, ""))
        elif child.type == "code_inline":  # an identifier or a command, not a claim: its numbers are not figures
            parts.append("\u2026")
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts), groups
