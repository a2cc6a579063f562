"""Answers a provider stopped before their end: a saved response says so in one field (OpenAI's
``finish_reason: "length"``, Anthropic's ``stop_reason: "max_tokens"``, Gemini's ``finishReason:
MAX_TOKENS``, a Responses ``status: "incomplete"`` …), and the answer, shown as far as it came,
is reported as cut off (CR514), naming that field and its value. Each adapter says which of its
field's values mean that (its provider's documentation); what each value means to a reader is
said here, once, whoever sent it. A citation marker the cut left open is reported as well by the
marker checks (CR1xx): this note says why it is open."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..syntax.escapes import printable
from .common import Builder, Note

__all__ = ["TOKEN_LIMIT", "cut_off", "stopped", "why_empty"]

#: the values that mean the answer reached its output token limit (lower case)
TOKEN_LIMIT = frozenset({"length", "max_tokens", "max_output_tokens"})

_LIMIT = "it reached the output token limit"
_FILTER = "a content filter stopped it"
_WINDOW = "it filled the model's context window"

#: what a stop value (lower case) tells a reader; one not here is said to have stopped it early
_WHY: dict[str, str] = {
    "length": _LIMIT,
    "max_tokens": _LIMIT,
    "max_output_tokens": _LIMIT,
    "model_length": _WINDOW,
    "model_context_window_exceeded": _WINDOW,
    "content_filter": _FILTER,
    "content_filtered": _FILTER,
    "content-filter": _FILTER,
    "safety": "a safety filter stopped it",
    "prohibited_content": "a safety filter stopped it",
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
    """Report (CR514) an answer whose ``field`` holds ``value``, when that value is one of
    ``stops`` (lower case) or, with ``stops`` None, any value but those in ``finished`` (Gemini's
    ``finishReason`` names many ways to stop early and one to finish). ``detail``: what the
    provider added (an error's message). Whether it was reported."""
    note = stopped(field, value, stops, finished=finished, detail=detail)
    b.note(note)
    return note is not None


def stopped(
    field: str, value: Any, stops: Collection[str] | None, *, finished: Collection[str] = (), detail: Any = None
) -> Note | None:
    """The note :func:`cut_off` makes (None when ``value`` does not say the answer was cut off),
    for a reader that gathers its notes itself (a chat export's turn)."""
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
    """Why a response holds no text, when a note says it was cut off (a refusal, a limit spent
    before the first word): said with the error, not after a page that is not made."""
    cut = next((message for code, message in notes if code == "CR514"), None)
    return cut.removesuffix(_SHOWN) if cut is not None else None
