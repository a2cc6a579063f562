"""Bare URLs a Markdown reader links on its own, kept as text when the one URL allow-list
(:func:`citerender.sources.urls.allowed_link`) refuses them: GitHub links a bare ``ftp://host/…``,
pandoc any registered scheme (``javascript:…``). The Markdown, JSON and AI SDK exports escape the
colon after the scheme (``ftp\\://``): a reader shows the same characters and finds no scheme."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ...sources.urls import allowed_link
from ...syntax.marks import URL_CUT

__all__ = ["BARE_SCHEMES", "has_bare_link", "map_outside", "unlink_bare"]

#: schemes a reader links bare without ``//`` after them (IANA's best known, as pandoc's list has
#: them); any scheme followed by ``//`` is taken for a link whatever its name
BARE_SCHEMES = frozenset(
    {"about", "blob", "data", "file", "jar", "resource", "view-source"}  # local
    | {"chrome", "chrome-extension", "moz-extension"}  # browser internals
    | {"ftp", "ftps", "gopher", "wais", "feed", "webcal", "ws", "wss"}  # fetched
    | {"javascript", "vbscript"}  # scripts
    | {"callto", "facetime", "irc", "irc6", "ircs", "mms", "msteams", "news", "nntp", "sip", "sips"}  # messages
    | {"skype", "slack", "sms", "tel", "xmpp", "ymsgr", "zoommtg"}  # messages and calls
    | {"bitcoin", "doi", "geo", "isbn", "magnet", "pmid", "urn"}  # identifiers
    | {"afp", "dns", "git", "ldap", "ldaps", "mvn", "nfs", "rsync", "rtmp", "rtsp", "sftp", "smb"}  # services
    | {"snmp", "ssh", "svn", "telnet", "tftp"}  # remote services
    | {"intent", "itms", "itms-apps", "ms-msdt", "ms-settings", "search-ms", "spotify", "steam"}  # apps
)
# a scheme (not inside a longer word, not already escaped) and its colon, something after it
_BARE = re.compile(r"(?<![A-Za-z0-9+.\-\\])([A-Za-z][A-Za-z0-9+.\-]{0,31}):(?=\S)")
# what keeps its characters as written: a code span, an autolink or a tag (an escaped ``\<`` is text)
_KEEP = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)|(?<!\\)<[A-Za-z/!?][^<>\n]*>")


def _refused(m: re.Match[str]) -> bool:
    """Is ``m`` (a scheme and its colon) the start of a bare link the allow-list refuses?"""
    scheme = m.group(1).lower()
    if scheme not in BARE_SCHEMES and not m.string.startswith("//", m.end()):
        return False
    return not allowed_link(m.string[m.start() : m.end() + 2])


def has_bare_link(text: str) -> bool:
    """Does ``text`` (prose, as a reader sees it) hold a bare link the allow-list refuses, or a
    URL a marker cut?"""
    return URL_CUT in text or (":" in text and any(_refused(m) for m in _BARE.finditer(text)))


#: what ends a run of URL characters
_BREAKS = re.compile(r"([\s<>]+)")
#: what GFM would still link in a run without a scheme (``www.`` hosts, e-mail addresses)
_SCHEMELESS = re.compile(r"(?<![\w\\])(www)\.|(?<!\\)@", re.I)


def _escape_refused(m: re.Match[str]) -> str:
    return m.group(1) + "\\:" if _refused(m) else m.group(0)


def _cut_run(run: str) -> str:
    """A run of URL characters a marker cut (``syntax.marks.URL_CUT``): it stays text, every
    scheme's colon, ``www.`` host's dot and address's ``@`` in it escaped."""
    run = _BARE.sub(lambda m: m.group(1) + "\\:", run)
    return _SCHEMELESS.sub(lambda w: w.group(1) + "\\." if w.group(1) else "\\@", run)


def _unlinked_part(part: str) -> str:
    """Prose outside code: refused bare schemes escaped, and every run a marker cut."""
    if URL_CUT not in part:
        return _BARE.sub(_escape_refused, part)
    return "".join(_cut_run(p) if URL_CUT in p else _BARE.sub(_escape_refused, p) for p in _BREAKS.split(part))


def map_outside(keep: re.Pattern[str], line: str, change: Callable[[str], str]) -> str:
    """``line`` with ``change`` applied to the text between the matches of ``keep``."""
    out: list[str] = []
    pos = 0
    for m in keep.finditer(line):
        out += (change(line[pos : m.start()]), m.group(0))
        pos = m.end()
    out.append(change(line[pos:]))
    return "".join(out)


def unlink_bare(markdown: str, parse: Callable[[str], Iterable[Any]]) -> str:
    """``markdown`` with every refused bare link kept as text: the lines of each block whose prose
    holds one (``parse``: the guard's reader, giving markdown-it tokens) are escaped; code blocks,
    fences and code spans keep their characters."""
    if not has_bare_link(markdown):
        return markdown
    lines = markdown.split("\n")
    block_map: list[int] | None = None
    done: set[int] = set()
    for tok in parse(markdown):
        if tok.map is not None:
            block_map = tok.map
        where = tok.map or block_map
        if tok.type != "inline" or where is None or not tok.children:
            continue
        if any(c.type == "text" and has_bare_link(c.content) for c in tok.children):
            for i in range(where[0], min(where[1], len(lines))):
                if i not in done:
                    done.add(i)
                    lines[i] = map_outside(_KEEP, lines[i], _unlinked_part)
    return "\n".join(lines)
