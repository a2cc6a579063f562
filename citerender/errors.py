"""The one exception type the library raises for bad input, carrying where and how to fix it."""

from __future__ import annotations


class CiterenderError(Exception):
    """Bad input: names the file, the place (line) where known, what is wrong and the fix.

    Every failure caused by input — files, sources, options — is raised as this type; anything
    else escaping the library is a bug.
    """

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.hint = hint

    def __str__(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where += f":{self.line}"
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


def internal_failure(e: BaseException) -> str:
    """What a page or record that failed on a bug of ours reports, so that one bad input never costs
    the rest of a site or an archive its pages."""
    return f"internal error ({type(e).__name__}: {str(e)[:200]}); please report it"


def failure_of(e: Exception) -> str:
    """What a page or record that could not be made reports: the input's problem, or a bug of ours."""
    return str(e) if isinstance(e, CiterenderError) else internal_failure(e)
