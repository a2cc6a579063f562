"""How a claim the support checks found unsupported is shown (``mark_unsupported``): the reason,
looked up in the document's claims; a badge before the citation; a warning atop its card."""

from __future__ import annotations

from html import escape
from typing import Any

from .state import CitationMeta, citation_state

__all__ = ["card_warning", "unsupported_flag", "unsupported_reason"]


def unsupported_reason(meta: CitationMeta, env: Any) -> str | None:
    """Why the group's claim was found unsupported (``mark_unsupported``), or ``None``."""
    table = citation_state(env).claims
    for k in meta.get("claims", ()):
        claim = table[k]
        if claim.verdict == "unsupported":
            return "; ".join(claim.reasons) or "not found in the cited passage"
    return None


def unsupported_flag(reason: str) -> str:
    """The visible, accessible badge of an unsupported claim, before its citation (after a space,
    not a word joiner: on a narrow screen badge and citation may wrap together)."""
    return (
        f' <span class="citerender-flag" role="note" title="{escape(reason)}"><span aria-hidden="true">\u26a0</span> '
        f'unsupported<span class="citerender-sr">: {escape(reason)}</span></span>'
    )


def card_warning(reason: str) -> str:
    return f'<span class="citerender-card-warning">Check this claim: {escape(reason)}</span>'
