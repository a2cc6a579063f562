"""citerender: turn LLM citation markers into real, trustworthy citations.

Every name is loaded on first use, so ``import citerender`` costs almost nothing and programs
that only strip markers never import markdown-it-py, Jinja2 or YAML.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .check import check
    from .diagnostics import Diagnostic, Severity
    from .errors import CiterenderError
    from .format import DEFAULT_FORMAT, CitationFormat
    from .markers import Citation, LineRange, Mark, MarkKind, extract_citations, scan, strip_citations
    from .plugin import citation_plugin
    from .rendering import Rendered, UnknownSourceError, render
    from .sources import Registry, Source, load_sources

__all__ = [
    "DEFAULT_FORMAT",
    "Citation",
    "CitationFormat",
    "CiterenderError",
    "Diagnostic",
    "LineRange",
    "Mark",
    "MarkKind",
    "Registry",
    "Rendered",
    "Severity",
    "Source",
    "UnknownSourceError",
    "check",
    "citation_plugin",
    "extract_citations",
    "load_sources",
    "render",
    "scan",
    "strip_citations",
]

_LAZY = {
    "DEFAULT_FORMAT": "format",
    "CitationFormat": "format",
    "Citation": "markers",
    "LineRange": "markers",
    "Mark": "markers",
    "MarkKind": "markers",
    "extract_citations": "markers",
    "scan": "markers",
    "strip_citations": "markers",
    "CiterenderError": "errors",
    "Diagnostic": "diagnostics",
    "Severity": "diagnostics",
    "check": "check",
    "citation_plugin": "plugin",
    "render": "rendering",
    "Rendered": "rendering",
    "UnknownSourceError": "rendering",
    "Registry": "sources",
    "Source": "sources",
    "load_sources": "sources",
}


def __getattr__(name: str) -> object:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'citerender' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
