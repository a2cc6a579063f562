"""What a code is: its severity, and the record every code table row is."""

from __future__ import annotations

from enum import StrEnum

from ..records import record

__all__ = ["Code", "Severity"]


class Severity(StrEnum):
    """How bad a diagnostic is; only ``error`` makes ``check`` and ``render`` exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@record(frozen=True, slots=True)
class Code:
    """One kind of problem: its stable code, short name, severity and the fix to suggest."""

    code: str
    name: str
    severity: Severity
    summary: str
    hint: str
