"""The ``citerender`` command: check, strip and render answers, build sites, write prompts.

Exit codes: 0 clean, 1 when a diagnostic has error severity, 2 on usage or input errors.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..errors import CiterenderError
from .parser import build_parser

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    code = _run(argv)
    if argv is None:  # the process is the command and ends now
        import gc

        gc.freeze()  # the exit skips a last collection of every object; a caller's collector is left as it was
    return code


def _run(argv: Sequence[str] | None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate from JSON input prints as "?"
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words[0] if words else None)  # the named subcommand's parser alone
    try:
        args = parser.parse_args(words)
    except SystemExit as e:
        return int(e.code or 0) if e.code in (0, None) else 2
    if getattr(args, "from_", None) is not None:
        from ..options import DIALECTS

        if args.from_ in DIALECTS:  # a text dialect: the input is still told from its name
            args.dialect, args.from_ = args.from_, None
    try:
        return int(args.func(args))
    except CiterenderError as e:
        from ..syntax.escapes import visible

        print(f"citerender: error: {visible(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
