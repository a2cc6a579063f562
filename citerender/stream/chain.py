"""The pipeline's core chain, run in the steps a stream needs: ``md.parse`` is its core rules in
order, and a stream runs the same rules on each decided block, stopping where it must look.

* :meth:`Chain.block_state` runs the rules up to markdown-it's ``block`` rule: the block structure
  alone, which says where the text's blocks end (:mod:`.blocks`).
* :meth:`Chain.go_on` runs them on up to ``inline``: every link label and footnote label the text
  looks up is known then (:class:`Labels`), before any citerender rule has numbered anything,
  so a block that looked up a label not yet defined can be put back and parsed again later.
* :meth:`Chain.finish` runs the rest, but for the footnotes' tail: the model's note definitions
  are kept aside and the notes section is built from all of them at the end (:meth:`Chain.notes`),
  as ``render()`` builds it after the whole answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore, block, inline
from markdown_it.token import Token
from mdit_py_plugins.footnote.index import footnote_tail

__all__ = ["Chain", "Labels", "NoteLabels", "define", "label_env"]

Rule = Callable[[StateCore], None]


class Chain:
    """One parser's core rules, split where a stream looks (see the module docstring)."""

    def __init__(self, md: MarkdownIt) -> None:
        self.md = md
        rules: list[Rule] = list(md.core.ruler.getRules(""))
        self.tail: Rule | None = footnote_tail if footnote_tail in rules else None  # the full preset's
        b, i = rules.index(block), rules.index(inline)
        self._before_block, self._block_to_inline = rules[:b], rules[b + 1 : i + 1]
        self._rest = [r for r in rules[i + 1 :] if r is not self.tail]
        self._after_tail = rules[rules.index(self.tail) + 1 :] if self.tail is not None else self._rest

    def block_state(self, text: str, env: dict[str, Any], tokens: list[Token] | None = None) -> StateCore:
        """``text`` parsed up to its block tokens, or given them (``tokens``, read in another env:
        the caller brings the definitions over, :func:`define`)."""
        state = StateCore(text, self.md, env)
        for rule in self._before_block:
            rule(state)
        if tokens is None:
            block(state)
        else:
            state.tokens = tokens
        return state

    def inline(self, text: str, env: dict[str, Any]) -> StateCore:
        """``text`` parsed up to its inline tokens (no citerender numbering yet)."""
        return self.go_on(self.block_state(text, env))

    def go_on(self, state: StateCore) -> StateCore:
        """A :meth:`block_state` parsed on up to its inline tokens; the labels noted as missed are
        those the inline rules looked up (a definition's own check whether its label is taken is not one)."""
        for table in (state.env.get("references"), state.env.get("footnotes", {}).get("refs")):
            if isinstance(table, Labels):
                table.missed.clear()
        for rule in self._block_to_inline:
            rule(state)
        return state

    def finish(self, state: StateCore, notes: list[Token], sources: list[str]) -> list[Token]:
        """The rest of the chain; the model's note definitions are moved to ``notes`` (and the
        text they were read from to ``sources``)."""
        if self.tail is not None:
            found = len(notes)
            state.tokens = _without_definitions(state.tokens, notes)
            if len(notes) > found:
                sources.append(state.src)
        for rule in self._rest:
            rule(state)
        return state.tokens

    def notes(self, state: StateCore, notes: Sequence[Token], sources: Sequence[str]) -> list[Token]:
        """The last tokens of a stream (``state``, parsed by :meth:`inline`) and the notes section
        built from every definition kept aside, through the rest of the chain. The rules read
        the text the notes came from too (whether it holds anything of theirs to look at)."""
        state.tokens = [*notes, *state.tokens]
        if sources:
            state.src = "\n".join([state.src, *sources])
        if self.tail is not None:
            self.tail(state)
        for rule in self._after_tail:
            rule(state)
        return state.tokens


def _without_definitions(tokens: list[Token], notes: list[Token]) -> list[Token]:
    """``tokens`` without the footnote definitions' runs, which go to ``notes``."""
    if not any(t.type == "footnote_reference_open" for t in tokens):
        return tokens
    kept: list[Token] = []
    inside = False
    for tok in tokens:
        if tok.type == "footnote_reference_open":
            inside = True
        (notes if inside else kept).append(tok)
        if tok.type == "footnote_reference_close":
            inside = False
    return kept


class Labels(dict[str, Any]):
    """``env["references"]`` that notes each label looked up and not found (``missed``). Always
    true: a rule that reads an empty table as none (``env.get("references") or {}``) still asks it."""

    def __init__(self) -> None:
        super().__init__()
        self.missed: set[str] = set()

    def __bool__(self) -> bool:
        return True

    def get(self, key: str, default: Any = None) -> Any:
        if not dict.__contains__(self, key):
            self.missed.add(key)
            return default
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        found = dict.__contains__(self, key)
        if not found and isinstance(key, str):
            self.missed.add(key)
        return found


class NoteLabels(Labels):
    """The footnote plugin's ``refs`` (``:label`` to the note's number, -1 while unused), noting
    the labels looked up and not found. Always true: an empty one made the plugin skip the
    lookup, so a reference before any definition was not noted. A definition read after a
    reference to it keeps the number given (``render()`` reads every definition first)."""

    def __setitem__(self, key: str, value: Any) -> None:
        if value == -1 and dict.get(self, key, -1) >= 0:
            return
        dict.__setitem__(self, key, value)


def define(env: dict[str, Any], scratch: dict[str, Any], lines: int, tokens: Sequence[Token]) -> None:
    """Bring into ``env`` the definitions :meth:`Chain.block_state` read into ``scratch`` in the
    first ``lines`` lines (``tokens``: their blocks), as the block rules would have."""
    refs = env["references"]
    for label, ref in (scratch.get("references") or {}).items():
        if ref["map"][1] <= lines and not dict.__contains__(refs, label):
            dict.__setitem__(refs, label, ref)
    notes = env["footnotes"]["refs"]
    for tok in tokens:
        if tok.type == "footnote_reference_open":
            notes[":" + tok.meta["label"]] = -1


def label_env(env: dict[str, Any]) -> tuple[Labels, NoteLabels]:
    """Put the noting label tables into ``env`` (before any parse); return them."""
    refs, notes = Labels(), NoteLabels()
    env["references"] = refs
    env["footnotes"] = {"refs": notes, "list": {}}
    return refs, notes
