"""Answers a provider stopped before their end (``finish_reason: "length"``, ``stop_reason:
"max_tokens"`` …): shown as far as they came and reported as cut off (CR514), naming the field and
its value. Each adapter says which of its values mean that; what each means to a reader is said
here, once."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, Note

__all__ = ["TOKEN_LIMIT", "cut_off", "stopped", "why_empty"]

#: the values that mean the answer reached its output token limit (lower case)
TOKEN_LIMIT = frozenset({"length", "max_tokens", "max_output_tokens"})

#: what a stop value (lower case) tells a reader; one not here is said to have stopped it early
_WHY: dict[str, str] = {
    **dict.fromkeys(TOKEN_LIMIT, "it reached the output token limit"),
    **dict.fromkeys(("model_length", "model_context_window_exceeded"), "it filled the model's context window"),
    **dict.fromkeys(("content_filter", "content_filtered", "content-filter"), "a content filter stopped it"),
    **dict.fromkeys(("safety", "prohibited_content"), "a safety filter stopped it"),
    "blocklist": "a blocklist stopped it",
    "spii": "it was stopped for holding personal data",
    "recitation": "it recited a source too closely",
    "refusal": "the model refused to go on",
    "guardrail_intervened": "a guardrail stopped it",
    "pause_turn": "the turn was paused (a long server tool run): its continuation is another response",
    "error": "the provider stopped it with an error",
    "malformed_model_output": "the model's output was malformed",
    "insufficient_system_resource": "the provider ran out of capacity",
    "timeout": "it timed out",
    "abort": "the stream was aborted before its end",
    "interrupted": "it was interrupted (stopped by the user, or the connection was lost)",
    "incomplete": "the provider marked it incomplete",
    "budget_exceeded": "its token budget was spent",
    "failed": "the response failed",
    "cancelled": "it was cancelled",
    "in_progress": "it was saved before it finished",
    "queued": "it was saved before it started",
}


def cut_off(
    b: Builder,
    field: str,
    value: Any,
    stops: Collection[str] | None,
    *,
    finished: Collection[str] = (),
    detail: Any = None,
) -> bool:
    """Report (CR514) an answer whose ``field`` holds one of ``stops`` (lower case) or, with
    ``stops`` None, any value but those in ``finished``; ``detail``: an error's message. Whether
    it was reported."""
    note = stopped(field, value, stops, finished=finished, detail=detail)
    b.note(note)
    return note is not None


def stopped(
    field: str, value: Any, stops: Collection[str] | None, *, finished: Collection[str] = (), detail: Any = None
) -> Note | None:
    """The note :func:`cut_off` makes, or None (for a reader that gathers its notes itself)."""
    if not isinstance(value, str) or not value.strip():
        return None
    key = value.strip().lower()
    if (key not in stops) if stops is not None else (key in finished):
        return None
    why = _WHY.get(key, "the provider stopped it before its end")
    more = f": {printable(detail, 160)}" if isinstance(detail, str) and detail.strip() else ""
    return ("CR514", f"the answer was cut off: {why} ({field} {printable(value, 60)}{more}){_SHOWN}")


_SHOWN = "; shown as far as it came"


def why_empty(notes: list[Note]) -> str | None:
    """Why a response holds no text, when a note says it was cut off (said with the error)."""
    cut = next((message for code, message in notes if code == "CR514"), None)
    return cut.removesuffix(_SHOWN) if cut is not None else None
