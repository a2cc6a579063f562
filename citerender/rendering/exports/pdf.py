"""PDF through WeasyPrint, fetching nothing but ``data:`` URLs."""

from __future__ import annotations

from typing import Any

from ...errors import CiterenderError

__all__ = ["to_pdf"]


def to_pdf(html: str) -> bytes:
    """A PDF of a standalone page, through WeasyPrint (the ``pdf`` extra).

    Nothing is fetched: only ``data:`` resources are allowed, like the page's own CSP.
    """
    try:
        import weasyprint
    except ImportError:
        raise CiterenderError(
            "PDF export needs the pdf extra (citerender[pdf]): WeasyPrint is not installed",
            hint="install it from the citerender clone: pip install -e '.[pdf]'",
        ) from None
    except OSError as e:  # WeasyPrint installed without its system libraries (Pango)
        raise CiterenderError(
            f"WeasyPrint cannot start: {e}",
            hint="install Pango (Debian: apt-get install libpango-1.0-0 libpangoft2-1.0-0)",
        ) from None

    fetcher_class = getattr(weasyprint, "URLFetcher", None)
    if fetcher_class is not None:  # WeasyPrint ≥ 70: a fetcher object limited to data: URLs
        fetcher: Any = fetcher_class(allowed_protocols=("data",))
    else:

        def fetcher(url: str, *args: Any, **kwargs: Any) -> Any:
            if url.startswith("data:"):
                return weasyprint.default_url_fetcher(url, *args, **kwargs)
            raise ValueError(f"external resource not fetched: {url[:80]}")

    options: dict[str, Any] = {}
    if "pdf_tags" in getattr(weasyprint, "DEFAULT_OPTIONS", {}):  # WeasyPrint ≥ 63: a tagged PDF
        options["pdf_tags"] = True
    return bytes(weasyprint.HTML(string=html, url_fetcher=fetcher).write_pdf(**options))
