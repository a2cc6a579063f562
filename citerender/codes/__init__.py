"""The code table: every kind of problem citerender reports, its severity and the fix to suggest.
Marker characters are the guide's placeholders (``{CITATION_START}``): a diagnostic never carries a
marker in any form; ``citerender codes`` shows them as escapes. The single list of what we report;
the docs' table (docs/diagnostics.md) is generated from it (``citerender codes``) and a test keeps the two equal."""

from __future__ import annotations

from . import dialects, evidence, imports, placement, validity
from .kinds import Code, Severity

__all__ = ["CODES", "CODE_TABLE", "Code", "Severity"]

#: every code, in the order the documentation lists them (one module a family)
CODE_TABLE: list[Code] = [*validity.ROWS, *dialects.ROWS, *placement.ROWS, *imports.ROWS, *evidence.ROWS]

CODES: dict[str, Code] = {c.code: c for c in CODE_TABLE}
