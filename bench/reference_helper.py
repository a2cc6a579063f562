"""The guide's reference helper, restated from its contract: the peer in benchmarks and tests.

Contract: a marker is START, one of ``families``, DELIMITER, then the shortest run of any
characters up to the next STOP. Its body is split on DELIMITER, parts are stripped and empty
ones dropped; a final part matching ``L<n>`` or ``L<n>-L<m>`` is the locator; every other part
must match ``[A-Za-z0-9_-]+`` or the marker yields nothing. Scanning resumes after the STOP.
Stripping removes the spans, rebuilding the string once per citation (quadratic).
"""

from __future__ import annotations

import re

START, DELIM, STOP = "\ue200", "\ue202", "\ue201"
_ID = re.compile(r"[A-Za-z0-9_-]+")
_LOC = re.compile(r"L\d+(?:-L\d+)?")


def ref_extract(text: str, families: tuple[str, ...] = ("cite",)) -> list[dict]:
    if not families:
        return []
    alternation = "|".join(re.escape(f) for f in families)
    pattern = re.compile(f"{START}(?P<family>{alternation}){DELIM}(?P<body>.*?){STOP}", re.DOTALL)
    found = []
    for m in pattern.finditer(text):
        parts = [p.strip() for p in m.group("body").split(DELIM)]
        parts = [p for p in parts if p]
        if not parts:
            continue
        locator = parts.pop() if _LOC.fullmatch(parts[-1]) else None
        if not parts or not all(_ID.fullmatch(p) for p in parts):
            continue
        found.append(
            {
                "raw": m.group(0),
                "family": m.group("family"),
                "source_ids": parts,
                "locator": locator,
                "start": m.start(),
                "end": m.end(),
            }
        )
    return found


def ref_strip(text: str, citations: list[dict]) -> str:
    out = text
    for c in sorted(citations, key=lambda c: c["start"], reverse=True):
        out = out[: c["start"]] + out[c["end"] :]
    return out


def ref_bodies(text: str, families: tuple[str, ...]) -> list[str]:
    """Every body the helper's pattern matches, valid or not (to know where it misbehaves)."""
    if not families:
        return []
    alternation = "|".join(re.escape(f) for f in families)
    pattern = re.compile(f"{START}(?:{alternation}){DELIM}(.*?){STOP}", re.DOTALL)
    return [m.group(1) for m in pattern.finditer(text)]
