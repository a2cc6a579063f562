"""Exports, one module per format, all from one parse (:mod:`.parsed`): Markdown footnotes, plain
text, JSON for front ends, CSL-JSON, BibTeX and RIS, PDF and Word (through pandoc)."""

from __future__ import annotations

__all__ = ["FORMATS"]

FORMATS = ("html", "markdown", "text", "json", "csl-json", "bibtex", "ris", "ai-sdk", "pdf", "docx")
