"""Where a sentence ends, as the claim spans, the support checks and the quality report read it:
terminal punctuation (Latin and CJK) and any closing quotes or brackets after it."""

from __future__ import annotations

__all__ = ["TERMINAL"]

#: a sentence's last characters; each reader adds what must follow (white space, a citation, the end)
TERMINAL = r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*"
