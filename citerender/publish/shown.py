"""The one pass every string of a built site goes through before a site file (JSON, attributes,
lists) holds it: titles, model names, the user's words in the search index, the manifest's records.

What comes out is one line of plain text with no marker form of any kind — raw, escaped (``\\ue200``,
``&#xE200;``, ``%EE%88%80``), visible (``citeturn0search0`` even glued to a word), bracketed, copy
residue — and no control character or lone surrogate. The pass runs until nothing changes, and what
it cuts becomes a space, so removing one form never leaves another behind.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..sources.clean import display_text, no_surrogates
from ..syntax.residue import RESIDUE, has_residue

if TYPE_CHECKING:
    from ..providers.threads import Conversation

__all__ = ["holds_marker", "one_line", "shown_conversation", "shown_markup", "shown_path", "shown_text"]

#: visible forms that the answer's scanner leaves to context (they are read only at a word's
#: boundary there) but that a title or a model name never holds as its own text
_VISIBLE = re.compile(
    r"(?:file)?(?:cite|navlist)turn\d+(?:[a-z]+\d+)?(?:turn\d+[a-z]+\d+)*(?:L\d+(?:[-\u2013]L\d+)?)?"
    r"|(?:file)?(?:cite|navlist)(?=\\u)"  # a family glued to what is left of an escaped delimiter
    r"|:*contentReference\[oaicite:\d*\]?(?:\{index=\d*\}?)?"
    r"|\u3010(?:[A-Za-z_]+\||\d+(?::\d+)?\u2020|F:[^\u3010\u3011\n]{0,300}\u2020|turn\d+[a-z]+\d+)"
    r"[^\u3010\u3011\n]{0,300}\u3011?"
    r"|entity\[\s*[\"\u201c][^\]\n]{0,300}\]?",
    re.I,
)
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
_BRUTE = re.compile("[\ue200-\ue206\u3010\u3011]")
_ROUNDS = 8
_TAG = re.compile(r"(<[^>]*>)")
_CODE_OPEN = re.compile(r"<(?:code|pre)\b", re.I)
_CODE_CLOSE = re.compile(r"</(?:code|pre)\s*>", re.I)


def holds_marker(text: str) -> bool:
    """Does ``text`` hold a marker form that :func:`shown_text` would remove (a file's name, which
    a build cannot change: its page's name and address would show it)?"""
    return has_residue(text) or _VISIBLE.search(text) is not None or display_text(text)[1]


def shown_text(value: object, limit: int = 200) -> str:
    """``value`` as one line of plain text for a site's files (see the module docstring), at most
    ``limit`` characters; ``""`` for ``None``."""
    if value is None:
        return ""
    text = no_surrogates(str(value)[:10_000])[0]
    for _ in range(_ROUNDS):
        cleaned = display_text(text)[0]
        if has_residue(cleaned):
            cleaned = RESIDUE.sub(" ", cleaned)
        cleaned = _VISIBLE.sub(" ", cleaned)
        if cleaned == text:
            break
        text = cleaned
    else:  # still changing after every round: whatever could start a form goes
        text = _VISIBLE.sub(" ", RESIDUE.sub(" ", _BRUTE.sub(" ", text)))
    return " ".join(_CONTROLS.sub(" ", text).split())[:limit].strip()


def shown_conversation(conv: Conversation) -> Conversation:
    """``conv`` with what a site shows of it (its title, its models, who answers) passed through
    :func:`shown_text`, once, where it enters a site; its id, which names its page, stays as exported."""
    conv.title = shown_text(conv.title) or "Untitled conversation"
    conv.model = shown_text(conv.model, 100) or None
    conv.assistant = shown_text(conv.assistant, 100)
    for turn in conv.every_turn():
        turn.model = shown_text(turn.model, 100) or None
    return conv


def shown_markup(markup: str) -> str:
    """Rendered HTML of a user's words without the visible forms the answer's scanner leaves to
    context (``Parisciteturn0search0``) in its text outside code; tags and attributes stay as they are."""
    if _VISIBLE.search(markup) is None:
        return markup
    out, depth = [], 0
    for piece in _TAG.split(markup):
        if piece.startswith("<"):
            depth += 1 if _CODE_OPEN.match(piece) else -1 if depth and _CODE_CLOSE.match(piece) else 0
        elif not depth:
            for _ in range(_ROUNDS):  # a removal can join two halves of another form
                cleaned = _VISIBLE.sub("", piece)
                if cleaned == piece:
                    break
                piece = cleaned
            else:
                piece = _VISIBLE.sub(" ", piece)
        out.append(piece)
    return "".join(out)


#: line breaks a terminal or a log reader honours, which ``escapes.visible`` keeps (messages may be
#: several lines); a name or a build's line about one page must stay one line
_BREAKS = str.maketrans({"\n": "\\n", "\r": "\\r", "\u2028": "<U+2028>", "\u2029": "<U+2029>"})


def one_line(text: str) -> str:
    """``text`` (already passed through ``escapes.visible``) with every line break written as an
    escape: a file named ``a\\nb.md`` never starts a line of a build's output."""
    return text.translate(_BREAKS)


def shown_path(rel: str) -> str:
    """A relative path as a build's lines show it: bytes that are not UTF-8 (a file system keeps
    them as lone surrogates) written as ``\\xNN``, so printing it never fails."""
    try:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return rel.encode("utf-8", "backslashreplace").decode("utf-8")
