"""The command line's one options object, built from its arguments (every subcommand and the
conversation pages use it)."""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING, Any

from ..errors import CiterenderError

if TYPE_CHECKING:
    from ..options import RenderOptions

__all__ = ["cli_options", "cli_scorer", "require_extra"]


def cli_options(a: argparse.Namespace, **extra: Any) -> RenderOptions:
    """The one options object of this command line."""
    from ..options import ENGINE_REMOVED, RenderOptions

    if getattr(a, "engine", None) is not None:
        raise CiterenderError(f"--engine {a.engine}: {ENGINE_REMOVED}")
    try:
        return RenderOptions.build(
            style=a.style,
            theme=a.theme,
            unknown=a.unknown,
            markdown=a.markdown,
            id_prefix=a.id_prefix,
            repo=a.repo,
            repo_url=a.repo_url,
            repo_include_hidden=getattr(a, "repo_include_hidden", None),
            keep_code_residue=getattr(a, "keep_code_residue", None),
            list_all=getattr(a, "all_sources", None) or None,
            consulted=getattr(a, "consulted", None),
            dialect=getattr(a, "dialect", None),
            html=getattr(a, "allow_html", None) or None,
            mark_unsupported=getattr(a, "mark_unsupported", None) or None,
            evidence=getattr(a, "check_support", None) or None,
            scorer=cli_scorer(a),
            **extra,
        )
    except ValueError as e:  # an option's value (an id prefix, say): a usage error, not a traceback
        raise CiterenderError(str(e)) from None


def cli_scorer(a: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The support scorer ``--scorer MODULE:NAME`` names, loaded; None without one."""
    spec = getattr(a, "scorer", None)
    if not spec:
        return None
    from .scorer import load_scorer

    return load_scorer(spec)


def require_extra(extra: str, module: str, needed_for: str, package: str | None = None) -> None:
    """Stop before any work when ``needed_for`` needs the optional extra ``extra`` and its ``module``
    (from ``package``) cannot be imported: a usage error naming the extra (``citerender[pdf]``) and
    how to install it."""
    try:
        importlib.import_module(module)
    except ImportError:
        package = package or module.split(".")[0]
        raise CiterenderError(
            f"{needed_for} needs the {extra} extra (citerender[{extra}]): {package} is not installed",
            hint=f"install it from the citerender clone: pip install -e '.[{extra}]'",
        ) from None
    except OSError as e:  # installed, but its system libraries are missing (WeasyPrint without Pango)
        raise CiterenderError(
            f"{needed_for} needs the {extra} extra (citerender[{extra}]), which cannot start: {e}",
            hint="install its system libraries (WeasyPrint: Debian's libpango-1.0-0 libpangoft2-1.0-0)",
        ) from None
