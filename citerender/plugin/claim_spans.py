"""The words each citation supports, wrapped in a span, so that a page can highlight the sentence
while its card or sidenote is open (CSS only: ``.citerender-claim:has(:popover-open)``).

A claim runs back from its citation to the end of the previous sentence, the previous citation, a
hard break or the start of its container. The span wraps whole tokens at one nesting level, so
markup stays balanced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..evidence.sentences import TERMINAL
from ..lazy_re import lazy_compile

__all__ = ["add_claim_spans", "claim_start"]

# the end of a sentence and the white space after it (where the next claim starts)
_SENTENCE_END = lazy_compile(TERMINAL + r"\s+")
# a sentence that ends a piece of text
_ENDS = lazy_compile(TERMINAL + r"\Z")
_STOPS = frozenset({"citation", "hardbreak", "image"})


def add_claim_spans(md: MarkdownIt) -> None:
    """Register the rule (after citerender's core rule and its checks) and the spans' markup."""
    md.core.ruler.push("citerender_claim_spans", _claims)
    md.add_render_rule("citation_claim_open", lambda self, t, i, o, e: '<span class="citerender-claim">')
    md.add_render_rule("citation_claim_close", lambda self, t, i, o, e: "</span>")


def _claims(state: Any) -> None:
    for tok in state.tokens:
        if tok.type == "inline" and tok.children and any(c.type == "citation" for c in tok.children):
            tok.children = wrap_claims(tok.children)


def wrap_claims(children: list[Token]) -> list[Token]:
    """``children`` with each card-opening citation and the words it closes inside a claim span."""
    out = list(children)
    i = len(out) - 1
    while i >= 0:  # from the end: an insertion never moves a citation still to be wrapped
        tok = out[i]
        if tok.type == "citation" and not tok.meta.get("in_link") and tok.meta.get("uses"):
            at = claim_start(out, i)
            if at is not None:
                start, split = at
                out.insert(i + 1, Token("citation_claim_close", "span", -1))
                if split:  # the sentence starts inside a text token: cut it there
                    head = out[start]
                    tail = Token("text", "", 0, content=head.content[split:])
                    head.content = head.content[:split]
                    out[start + 1 : start + 1] = [Token("citation_claim_open", "span", 1), tail]
                    i = start + 1
                else:
                    out.insert(start, Token("citation_claim_open", "span", 1))
                    i = start
        i -= 1
    return out


def claim_start(children: Sequence[Token], cite: int) -> tuple[int, int] | None:
    """Where the claim of the citation at ``cite`` starts: ``(index, offset)``, ``offset``
    characters into the text token at ``index``; ``None`` when the citation closes no words."""
    k = cite - 1
    words = False  # words met so far, walking back
    while k >= 0:
        tok = children[k]
        if tok.type in _STOPS or tok.nesting == 1:
            break  # the previous citation, a hard break, or the start of the container
        if tok.nesting == -1:  # a closed pair (bold, a link): inside the claim whole, unless
            if words and _ends_sentence(children, k):  # it ends the sentence before (*Renewal.* Terms)
                break
            k = _opening(children, k)
            words = True
        elif tok.type == "text" and tok.content.strip():
            text = tok.content
            # the citation's own sentence end is not a boundary: only one before it
            cut = _last_end(text if words else text.rstrip())
            if cut is not None:
                if text[cut:].strip():
                    return k, cut
                break  # the previous sentence ends with this token
            words = True
        elif tok.type in ("code_inline", "math_inline", "math_inline_double", "html_inline"):
            words = True
        k -= 1
    if not words:
        return None
    k += 1
    while k < cite and children[k].type == "text" and not children[k].content.strip():
        k += 1
    if k < cite and children[k].type == "text":
        return k, len(children[k].content) - len(children[k].content.lstrip())
    return k, 0


def _last_end(text: str) -> int | None:
    """The offset just after the last sentence end (and its white space) in ``text``."""
    last = None
    for m in _SENTENCE_END.finditer(text):
        last = m.end()
    return last


def _ends_sentence(children: Sequence[Token], close: int) -> bool:
    """Whether the pair closed at ``close`` ends with a sentence's end and white space follows it."""
    inner, after = children[close - 1], children[close + 1] if close + 1 < len(children) else None
    return (
        inner.type == "text"
        and after is not None
        and after.type == "text"
        and after.content[:1].isspace()
        and _ENDS.search(inner.content.rstrip()) is not None
    )


def _opening(children: Sequence[Token], close: int) -> int:
    """The index of the token that opens the pair closed at ``close``."""
    depth = 0
    k = close
    while k >= 0:
        depth += children[k].nesting
        if depth == 0:
            return k
        k -= 1
    return 0
