"""Tables as the plugin renders them: inside a box that scrolls sideways (:func:`_table_open`)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..sources.clean import display_text

__all__ = ["add_table_rules"]


def add_table_rules(md: MarkdownIt) -> None:
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)


def _table_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """A table inside a box that scrolls sideways, so a wide table never widens the page (a phone's
    layout viewport would grow): a focusable region for keyboards, named by the header cells."""
    heads: list[str] = []
    for j in range(idx + 1, len(tokens)):
        tok = tokens[j]
        if tok.type in ("tr_close", "table_close"):
            break
        if tok.type == "inline" and tokens[j - 1].type == "th_open":
            heads.append(" ".join((tok.content or "").split()))
    name = "Table: " + ", ".join(h for h in heads if h)[:80] if any(heads) else "Table"
    seen: dict[str, int] = env.setdefault("citerender_tables", {}) if isinstance(env, dict) else {}
    seen[name] = seen.get(name, 0) + 1
    if seen[name] > 1:
        name = f"{name} ({seen[name]})"
    label = escape(display_text(name)[0].replace("*", "").replace("`", "").replace("\x00", ""))  # as readers see it
    return f'<div class="citerender-table" role="region" tabindex="0" aria-label="{label}">\n' + str(
        self.renderToken(tokens, idx, options, env)
    )


def _table_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return str(self.renderToken(tokens, idx, options, env)) + "</div>\n"
