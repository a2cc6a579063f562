"""The command line's chat exports and transcripts: one conversation as a page
(``render conversations.json --conversation ID_OR_TITLE``, or a transcript of saved responses)."""

from __future__ import annotations

import argparse
import sys

from ..errors import CiterenderError
from ..jobs.files import write_atomic
from ..providers.inputs import Input
from ..syntax.escapes import visible
from .options import cli_options

__all__ = ["render_conversation_page"]


def render_conversation_page(a: argparse.Namespace, src: Input) -> int:
    """``render conversations.json --conversation ID_OR_TITLE`` (or a transcript): one page,
    whose sources are the conversation's own (``--sources`` is refused)."""
    if a.sources:
        raise CiterenderError(
            f"a {'chat export' if src.kind == 'export' else 'transcript'} carries its own sources",
            path=a.sources,
            hint="drop --sources",
        )
    from ..providers.exports import find_conversation
    from ..providers.transcripts import transcript_titled
    from ..publish.conversations import conversation_page

    if a.to != "html":
        raise CiterenderError(f"a conversation renders to HTML, not --to {a.to}", hint="drop --to")
    if src.kind == "transcript":
        conv = transcript_titled(src.data, src.path, getattr(a, "from_", None))
    elif not a.conversation:
        raise CiterenderError("the file is a chat export: name the conversation", hint="add --conversation ID_OR_TITLE")
    else:
        conv = find_conversation(src.path, a.conversation)

    page, diags = conversation_page(conv, cli_options(a))
    for n, d in diags:
        print(
            visible(f"{a.answer} [{conv.title}, turn {n}]: {d.code} [{d.severity.value}] {d.message}"), file=sys.stderr
        )
    if a.output:
        write_atomic(a.output, page)
    else:
        sys.stdout.write(page)
    return 1 if any(d.severity.value == "error" for _, d in diags) else 0
