"""Exports, one module per format, all from one parse (:mod:`.parsed`): Markdown footnotes, plain
text, JSON for front ends, W3C Web Annotations, CSL-JSON, BibTeX and RIS, PDF and Word (through pandoc)."""

from __future__ import annotations

__all__ = ["FORMATS", "FORMAT_ALIASES"]

FORMATS = ("html", "markdown", "text", "json", "csl-json", "bibtex", "ris", "ai-sdk", "pdf", "docx", "annotations")
#: other names a format answers to (``--to web-annotations`` is ``--to annotations``)
FORMAT_ALIASES = {"annotation": "annotations", "web-annotations": "annotations", "w3c-annotations": "annotations"}
