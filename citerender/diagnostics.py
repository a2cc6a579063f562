"""Diagnostics: every problem found, as data with a stable code (:mod:`citerender.codes`), never
printed from the library."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

from .codes import CODE_TABLE, CODES, Code, Severity
from .records import record

__all__ = ["CODES", "Code", "Diagnostic", "Severity", "has_errors", "in_file", "markdown_table", "sort_key", "to_json"]


@record(frozen=True, slots=True)
class Diagnostic:
    """One problem at one place: 1-based line and column in the answer as given."""

    code: str
    severity: Severity
    message: str
    line: int
    column: int
    hint: str

    @classmethod
    def make(cls, code: str, message: str | None = None, *, line: int = 1, column: int = 1) -> Diagnostic:
        """Build a diagnostic from the code table; ``message`` defaults to the code's summary."""
        c = CODES[code]
        return cls(code, c.severity, message or c.summary, line, column, c.hint)

    def format(self, filename: str = "<answer>") -> str:
        """Ruff-style one-line form: ``FILE:LINE:COL: CODE message``."""
        return f"{filename}:{self.line}:{self.column}: {self.code} [{self.severity.value}] {self.message}"

    def to_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["severity"] = self.severity.value
        d["name"] = CODES[self.code].name
        return d


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    """True when any diagnostic has error severity."""
    return any(d.severity is Severity.ERROR for d in diagnostics)


def in_file(diagnostics: list[Diagnostic], first_line: int) -> list[Diagnostic]:
    """Lines counted in the file, for an answer starting on its line ``first_line`` (front matter)."""
    return [replace(d, line=d.line + first_line - 1) for d in diagnostics] if first_line > 1 else diagnostics


def sort_key(d: Diagnostic) -> tuple[int, int, str]:
    return (d.line, d.column, d.code)


def to_json(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], ensure_ascii=False, indent=2)


#: the guide's placeholders as the escapes a reader types (``\\ue200``): the table says what to write
_ESCAPES = {
    "{CITATION_START}": "\\ue200",
    "{CITATION_DELIMITER}": "\\ue202",
    "{CITATION_STOP}": "\\ue201",
    "{HIGHLIGHT_START}": "\\ue203",
    "{HIGHLIGHT_STOP}": "\\ue204",
}


def _cell(text: str) -> str:
    """``text`` in a table cell: the guide's placeholders as escapes, pipes escaped."""
    for placeholder, escape in _ESCAPES.items():
        text = text.replace(placeholder, escape)
    return text.replace("|", "\\|")


def markdown_table() -> str:
    """The README table of every code (``citerender codes``), marker characters as escapes."""
    rows = [
        f"| `{c.code}` | {c.name} | {c.severity.value} | {_cell(c.summary)} | {_cell(c.hint)} |" for c in CODE_TABLE
    ]
    return "\n".join(["| code | name | severity | what it means | fix |", "|---|---|---|---|---|", *rows])
