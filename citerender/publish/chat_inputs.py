"""What a conversation build reads: a chat export (its ``.zip``, its ``conversations.json``, its
shards, or the folder it unzips to) read as a stream, or one transcript of saved provider
responses; an export that holds no conversation is an input error, said before anything is built."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..jobs.pool import PageResult
from ..providers.archive import is_zip, is_zipped_export
from ..providers.exports import conversation
from ..providers.inputs import read_input
from ..providers.threads import BrokenGraph, Conversation
from ..providers.transcripts import transcript_titled
from .build_state import Build
from .shown import shown_conversation

__all__ = ["readable", "transcript_or_export"]


def readable(raw: Iterator[tuple[int, Any]], build: Build, export: str | Path) -> Iterator[tuple[int, Conversation]]:
    """The export's conversations, each one shown; one whose graph cannot be walked is reported (a
    failed page) and skipped."""
    count = 0
    for k, data in raw:
        count += 1
        try:
            yield k, shown_conversation(conversation(data, k))
        except BrokenGraph as e:
            build.results.append(PageResult(rel=f"conversation {k + 1}", out="", title="", failure=str(e)))
    if not count:
        raise CiterenderError(
            "the export holds no conversations",
            path=str(export),
            hint="export the chats again; a ChatGPT export holds conversations.json or conversations-NNN.json",
        )


def transcript_or_export(src: Path, provider: str | None) -> Conversation | None:
    """The transcript ``src`` holds, or None for a chat export (a folder, a zip, or a file: read
    later, as a stream); anything else is refused, saying what it holds."""
    if src.is_dir():
        return None
    if is_zip(src) and not is_zipped_export(src):
        raise CiterenderError(
            "the zip holds no conversations: no conversations.json and no conversations-NNN.json",
            path=str(src),
            hint="build takes a ChatGPT or Claude export's .zip, the folder it unzips to, or its conversations.json",
        )
    found = read_input(str(src), provider)
    if found.kind not in ("export", "transcript"):
        raise CiterenderError(
            f"this file holds {'an answer' if found.kind == 'answer' else 'one provider response'}, not a chat export"
            " or a transcript of saved responses",
            path=str(src),
            hint="build takes a folder of answers, a ChatGPT export or a transcript; render takes one answer",
        )
    return shown_conversation(transcript_titled(found.data, src, provider)) if found.kind == "transcript" else None
