"""citerender: turn LLM citation markers into real, trustworthy citations.

Every public name is loaded on first use, so ``import citerender`` costs almost nothing and
programs that only strip markers never import markdown-it-py, Jinja2 or YAML. ``_LAZY`` lists
each name with the module that owns it; a test keeps ``__all__``, the table and the
type-checking imports equal.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .diagnostics import Diagnostic, Severity
    from .errors import CiterenderError
    from .model.check import check
    from .model.evidence import support_report
    from .model.prompts import citation_instructions
    from .model.quality import quality_report
    from .options import RenderOptions, SupportScorer
    from .plugin import citation_plugin
    from .providers import adapt, load_response
    from .publish.site import build_site
    from .publish.web import install_filter, render_answer, stylesheet
    from .rendering.exports.parsed import parse_answer
    from .rendering.html import Rendered, UnknownSourceError, render
    from .sources.files import load_sources
    from .sources.model import Registry, Source, registry_from_data
    from .sources.present import present
    from .stream import StreamRenderer, astream
    from .syntax.format import DEFAULT_FORMAT, CitationFormat
    from .syntax.guide import extract_citations, strip_citations
    from .syntax.scanner import scan
    from .syntax.types import Citation, LineRange, Mark, MarkKind

_LAZY = {
    "DEFAULT_FORMAT": "syntax.format",
    "CitationFormat": "syntax.format",
    "Citation": "syntax.types",
    "LineRange": "syntax.types",
    "Mark": "syntax.types",
    "MarkKind": "syntax.types",
    "extract_citations": "syntax.guide",
    "strip_citations": "syntax.guide",
    "scan": "syntax.scanner",
    "CiterenderError": "errors",
    "Diagnostic": "diagnostics",
    "Severity": "diagnostics",
    "RenderOptions": "options",
    "SupportScorer": "options",
    "Registry": "sources.model",
    "Source": "sources.model",
    "registry_from_data": "sources.model",
    "load_sources": "sources.files",
    "present": "sources.present",
    "citation_plugin": "plugin",
    "render": "rendering.html",
    "Rendered": "rendering.html",
    "UnknownSourceError": "rendering.html",
    "parse_answer": "rendering.exports.parsed",
    "check": "model.check",
    "support_report": "model.evidence",
    "quality_report": "model.quality",
    "citation_instructions": "model.prompts",
    "adapt": "providers",
    "load_response": "providers",
    "StreamRenderer": "stream",
    "astream": "stream",
    "build_site": "publish.site",
    "render_answer": "publish.web",
    "stylesheet": "publish.web",
    "install_filter": "publish.web",
}

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
    "RenderOptions",
    "Rendered",
    "Severity",
    "Source",
    "StreamRenderer",
    "SupportScorer",
    "UnknownSourceError",
    "adapt",
    "astream",
    "build_site",
    "check",
    "citation_instructions",
    "citation_plugin",
    "extract_citations",
    "install_filter",
    "load_response",
    "load_sources",
    "parse_answer",
    "present",
    "quality_report",
    "registry_from_data",
    "render",
    "render_answer",
    "scan",
    "strip_citations",
    "stylesheet",
    "support_report",
]


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
