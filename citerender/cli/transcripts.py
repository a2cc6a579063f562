"""The command line's chat exports and transcripts: telling them from an answer, and rendering
one conversation as a page (``render conversations.json --conversation ID_OR_TITLE``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import CiterenderError
from ..publish.files import write_atomic
from ..syntax.escapes import visible

__all__ = ["is_export", "read_transcript_arg", "render_conversation_page"]


def is_export(path: str, provider: str | None) -> bool:
    if provider == "chatgpt-export":
        return True
    if provider or path == "-" or not Path(path).is_file():
        return False
    try:  # an export is JSON or a zip: anything else is decided without loading the reader
        with Path(path).open("rb") as f:
            head = f.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    if not head.startswith((b"[", b"PK")):
        return False
    from ..providers.chatgpt import is_chatgpt_export

    return is_chatgpt_export(path)


def read_transcript_arg(a: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The transcript (a list of saved responses and user turns) ``a.answer`` holds, or None."""
    if a.answer == "-" or not a.answer.lower().endswith(".json") or not Path(a.answer).is_file():
        return None
    from ..providers.transcripts import is_transcript, read_transcript

    try:
        data = json.loads(Path(a.answer).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None  # reported by the reader the file goes to
    return read_transcript(a.answer, getattr(a, "from_", None)) if is_transcript(data) else None


def render_conversation_page(a: argparse.Namespace, conv=None) -> int:  # type: ignore[no-untyped-def]
    """``render conversations.json --conversation ID_OR_TITLE`` (or a transcript): one page."""
    from ..providers.chatgpt import find_conversation
    from ..publish.conversations import conversation_page

    if a.to != "html":
        raise CiterenderError(f"a conversation renders to HTML, not --to {a.to}", hint="drop --to")
    if conv is None and not a.conversation:
        raise CiterenderError("the file is a chat export: name the conversation", hint="add --conversation ID_OR_TITLE")
    if conv is None:
        conv = find_conversation(a.answer, a.conversation)
    from .commands import cli_options

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
