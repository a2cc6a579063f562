"""Sources and the registry: what an answer may cite, loaded from data files or model-facing text.

A registry file is JSON, YAML or TOML — a list of sources or ``{"sources": [...]}`` — or the very
text shown to the model: tool output (``Citation Marker:`` headers, ``[L1]`` lines) or injected
``<BLOCK id="…">`` context. Every problem is a :class:`CiterenderError` naming file and line.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from .errors import CiterenderError
from .format import DEFAULT_FORMAT, CitationFormat
from .markers import LineRange, scan

__all__ = ["Registry", "Source", "load_sources", "parse_blocks", "parse_tool_output", "registry_from_data"]

#: Caps on what one registry may hold (see SECURITY.md).
MAX_SOURCES = 10_000
MAX_SOURCES_FILE_BYTES = 64 * 1024 * 1024

_EMPTY_META: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Source:
    """One citable unit: a stable id, metadata, and numbered lines or a text block."""

    id: str
    title: str | None = None
    url: str | None = None
    updated: str | None = None
    lines: tuple[str, ...] | None = None
    text: str | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY_META, compare=False)

    @property
    def line_count(self) -> int | None:
        return None if self.lines is None else len(self.lines)

    def has_lines(self, rng: LineRange) -> bool:
        """Does this source have every line of ``rng``?"""
        return self.lines is not None and 1 <= rng.low and rng.high <= len(self.lines)

    def cited_lines(self, rng: LineRange | None) -> list[tuple[int, str]]:
        """The (number, text) pairs a locator covers; empty when it covers nothing."""
        if rng is None or not self.has_lines(rng):
            return []
        assert self.lines is not None
        return [(n, self.lines[n - 1]) for n in range(rng.low, rng.high + 1)]

    @property
    def domain(self) -> str | None:
        """Host of the URL without ``www.``, for display."""
        if not self.url:
            return None
        try:
            host = urlsplit(self.url).hostname
        except ValueError:
            return None
        if not host:
            return None
        return host[4:] if host.startswith("www.") else host

    @property
    def body(self) -> str:
        """The source text as one string."""
        if self.lines is not None:
            return "\n".join(self.lines)
        return self.text or ""


class Registry(Mapping[str, Source]):
    """The ordered id → :class:`Source` mapping for one answer."""

    def __init__(self, sources: Iterable[Source] = (), *, path: str | None = None) -> None:
        self._by_id: dict[str, Source] = {}
        for s in sources:
            if s.id in self._by_id:
                raise CiterenderError(f"duplicate source id {s.id!r}", path=path,
                                      hint="give every source a unique id")
            self._by_id[s.id] = s
        if len(self._by_id) > MAX_SOURCES:
            raise CiterenderError(f"{len(self._by_id)} sources exceed the limit of {MAX_SOURCES}", path=path)
        self.path = path

    def __getitem__(self, key: str) -> Source:
        return self._by_id[key]

    def get(self, key: str, default: Source | None = None) -> Source | None:  # type: ignore[override]
        return self._by_id.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._by_id

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __repr__(self) -> str:
        return f"Registry({list(self._by_id)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Registry):
            return NotImplemented
        return list(self._by_id.values()) == list(other._by_id.values())

    __hash__ = None  # type: ignore[assignment]

    def has_locator(self, source_id: str, rng: LineRange) -> bool:
        """Does ``source_id`` exist and have the lines ``rng`` names?"""
        s = self._by_id.get(source_id)
        return s is not None and s.has_lines(rng)

    def text_for(self, source_id: str, rng: LineRange | None = None) -> str | None:
        """The text a citation covers: the cited lines, or the whole source without a locator."""
        s = self._by_id.get(source_id)
        if s is None:
            return None
        if rng is None:
            return s.body
        return "\n".join(t for _, t in s.cited_lines(rng)) or None



# --------------------------------------------------------------------------- building sources

_ID_RE = re.compile(r"[A-Za-z0-9_-]+\Z")
_KNOWN_KEYS = {"id", "title", "url", "updated", "lines", "text", "meta"}


def _check_date(value: object, where: str, path: str | None, line: int | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if not isinstance(value, str):
        raise CiterenderError(f"{where}: 'updated' must be an ISO date string, not {type(value).__name__}",
                              path=path, line=line, hint="write it as 2026-03-01")
    try:
        datetime.fromisoformat(value.strip())
    except ValueError:
        try:
            date.fromisoformat(value.strip())
        except ValueError:
            raise CiterenderError(f"{where}: 'updated' is not an ISO date: {value[:40]!r}",
                                  path=path, line=line, hint="write it as 2026-03-01") from None
    return value.strip()


def source_from_mapping(item: object, index: int, *, path: str | None = None,
                        line: int | None = None, fmt: CitationFormat = DEFAULT_FORMAT) -> Source:
    """Validate one source entry from a data file."""
    where = f"source #{index + 1}"
    if not isinstance(item, Mapping):
        raise CiterenderError(f"{where} must be an object with an 'id', not {type(item).__name__}",
                              path=path, line=line)
    if "id" not in item:
        raise CiterenderError(f"{where} has no 'id'", path=path, line=line,
                              hint="add an id such as turn0file0 or block1")
    sid = item["id"]
    if isinstance(sid, int) and not isinstance(sid, bool):
        sid = str(sid)
    if not isinstance(sid, str) or not fmt.id_re.match(sid):
        raise CiterenderError(f"{where}: id {str(sid)[:60]!r} is not a valid id", path=path, line=line,
                              hint="ids use only letters, digits, '_' and '-'")
    where = f"source {sid!r}"
    for key in ("title", "url"):
        if item.get(key) is not None and not isinstance(item[key], str):
            raise CiterenderError(f"{where}: {key!r} must be a string", path=path, line=line)
    lines = item.get("lines")
    text = item.get("text")
    if lines is not None:
        if isinstance(lines, str):
            lines = lines.splitlines()
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise CiterenderError(f"{where}: 'lines' must be a list of strings", path=path, line=line,
                                  hint="line N of the list is cited as LN")
        if text is not None:
            raise CiterenderError(f"{where}: give either 'lines' or 'text', not both", path=path, line=line)
    if text is not None and not isinstance(text, str):
        raise CiterenderError(f"{where}: 'text' must be a string", path=path, line=line)
    meta = item.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise CiterenderError(f"{where}: 'meta' must be an object", path=path, line=line)
    extra = {k: v for k, v in item.items() if k not in _KNOWN_KEYS}
    return Source(
        id=sid,
        title=(item.get("title") or None),
        url=(item.get("url") or "").strip() or None,
        updated=_check_date(item.get("updated"), where, path, line),
        lines=tuple(lines) if lines is not None else None,
        text=text,
        meta=MappingProxyType({**extra, **meta}),
    )


def _line_of(raw: str, needle: str) -> int | None:
    i = raw.find(needle)
    return None if i < 0 else raw.count("\n", 0, i) + 1


def registry_from_data(data: object, *, path: str | None = None, raw: str = "",
                       fmt: CitationFormat = DEFAULT_FORMAT) -> Registry:
    """Build a registry from parsed JSON/YAML/TOML data: a list or ``{"sources": [...]}``."""
    items = data.get("sources") if isinstance(data, Mapping) else data
    if not isinstance(items, list):
        raise CiterenderError("expected a list of sources or an object with a 'sources' list",
                              path=path, line=1, hint='write {"sources": [{"id": "turn0file0", …}]}')
    out: list[Source] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        sid = item.get("id") if isinstance(item, Mapping) else None
        line = _line_of(raw, f"{sid}") if isinstance(sid, str) and raw else None
        src = source_from_mapping(item, i, path=path, line=line, fmt=fmt)
        if src.id in seen:
            raise CiterenderError(f"duplicate source id {src.id!r} (sources #{seen[src.id] + 1} and #{i + 1})",
                                  path=path, line=line, hint="give every source a unique id")
        seen[src.id] = i
        out.append(src)
    return Registry(out, path=path)


# --------------------------------------------------------------------------- model-facing text

_PLACEHOLDERS = {"{CITATION_START}": "\ue200", "{CITATION_DELIMITER}": "\ue202", "{CITATION_STOP}": "\ue201"}
_LINE_RE = re.compile(r"\[L(\d+)\] ?(.*)\Z", re.S)
_BLOCK_HEADER_RE = re.compile(r"\[Block(\d+)\]\s*\Z")
_BLOCK_RE = re.compile(r"<BLOCK((?:\s+[A-Za-z_]+\s*=\s*\"[^\"]*\")*)\s*>\n?(.*?)\n?</BLOCK>", re.S)
_ATTR_RE = re.compile(r'([A-Za-z_]+)\s*=\s*"([^"]*)"')
_HEADER_KEYS = {"title": "title", "url": "url", "updated": "updated"}


def _marker_id(marker_text: str, fmt: CitationFormat) -> str | None:
    for k, v in _PLACEHOLDERS.items():
        marker_text = marker_text.replace(k, v)
    for mk in scan(marker_text, fmt=fmt):
        if mk.citation is not None and len(mk.citation.source_ids) == 1:
            return mk.citation.source_ids[0]
    return None


def _numbered(lines: list[str]) -> list[str] | None:
    """The texts of ``[L1] …``, ``[L2] …`` lines in order, or None if they are not all such."""
    out: list[str] = []
    for line in lines:
        m = _LINE_RE.match(line)
        if m is None or int(m.group(1)) != len(out) + 1:
            return None
        out.append(m.group(2))
    return out


def parse_tool_output(text: str, *, path: str | None = None, fmt: CitationFormat = DEFAULT_FORMAT) -> Registry:
    """Read the guide's tool-output format back into a registry.

    Each source starts with ``Citation Marker: <marker>``, then optional ``Title:``, ``URL:`` and
    ``Updated:`` lines, a blank line, then ``[L1] …`` lines or a ``[BlockN]`` body. Text that
    :mod:`citerender.present` neutralised is restored.
    """
    from .present import unescape_line, unescape_text

    sources: list[Source] = []
    cur: dict[str, Any] | None = None
    cur_line = 0
    mode = "header"

    def finish() -> None:
        if cur is None:
            return
        body = cur.pop("_body")
        if cur.pop("_kind") == "lines":
            if body:
                cur["lines"] = [unescape_line(x) for x in body]
        else:
            cur["text"] = unescape_text("\n".join(body).rstrip("\n"))
        sources.append(source_from_mapping(cur, len(sources), path=path, line=cur_line, fmt=fmt))

    for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if line.startswith("Citation Marker:"):
            finish()
            sid = _marker_id(line[len("Citation Marker:"):].strip(), fmt)
            if sid is None:
                raise CiterenderError("a 'Citation Marker:' line holds no readable marker", path=path,
                                      line=n, hint="write Citation Marker: \\ue200cite\\ue202turn0file0\\ue201")
            cur, cur_line, mode = {"id": sid, "_body": [], "_kind": "lines"}, n, "header"
            continue
        if cur is None:
            if line.strip():
                raise CiterenderError("text before the first 'Citation Marker:' line", path=path, line=n)
            continue
        if mode == "header":
            key, sep, value = line.partition(":")
            if sep and key.strip().lower() in _HEADER_KEYS and not line.startswith(("[", "\\")):
                cur[_HEADER_KEYS[key.strip().lower()]] = unescape_line(value.strip())
                continue
            if not line.strip():
                mode = "body"
                continue
            mode = "body"
        if cur["_kind"] == "block":
            cur["_body"].append(line)
            continue
        m = _LINE_RE.match(line)
        if m and int(m.group(1)) == len(cur["_body"]) + 1:
            cur["_body"].append(m.group(2))
        elif (bm := _BLOCK_HEADER_RE.match(line)) and not cur["_body"]:
            cur["_kind"] = "block"
            cur.setdefault("meta", {})["block"] = int(bm.group(1))
        elif not line.strip():
            continue
        else:
            raise CiterenderError(f"expected an [L{len(cur['_body']) + 1}] line", path=path, line=n,
                                  hint="number lines [L1], [L2], … in order")
    finish()
    return Registry(sources, path=path)


def parse_blocks(text: str, *, path: str | None = None, fmt: CitationFormat = DEFAULT_FORMAT) -> Registry:
    """Read injected ``<BLOCK id="…">…</BLOCK>`` context back into a registry.

    Attributes ``title``, ``url`` and ``updated`` become metadata; a body made only of
    ``[L1] …`` lines becomes numbered lines, any other body a text block.
    """
    from .present import unescape_line, unescape_text

    sources: list[Source] = []
    for m in _BLOCK_RE.finditer(text.replace("\r\n", "\n")):
        line = text.count("\n", 0, m.start()) + 1
        attrs = {k.lower(): html.unescape(v) for k, v in _ATTR_RE.findall(m.group(1))}
        if "id" not in attrs:
            raise CiterenderError("a <BLOCK> element has no id attribute", path=path, line=line)
        entry: dict[str, Any] = {"id": attrs.pop("id")}
        for key in ("title", "url", "updated"):
            if key in attrs:
                entry[key] = unescape_line(attrs.pop(key))
        if attrs:
            entry["meta"] = attrs
        body = m.group(2)
        numbered = _numbered(body.split("\n")) if body else None
        if numbered is not None:
            entry["lines"] = [unescape_line(x) for x in numbered]
        elif body:
            entry["text"] = unescape_text(body)
        sources.append(source_from_mapping(entry, len(sources), path=path, line=line, fmt=fmt))
    if not sources:
        raise CiterenderError("no <BLOCK id=\"…\"> … </BLOCK> element found", path=path, line=1)
    return Registry(sources, path=path)


# --------------------------------------------------------------------------- files

def read_text_file(path: str | Path, *, limit: int = MAX_SOURCES_FILE_BYTES, what: str = "file") -> str:
    """Read a UTF-8 text file, turning every failure into a :class:`CiterenderError`."""
    p = Path(path)
    name = str(path)
    try:
        if p.is_dir():
            raise CiterenderError(f"{what} is a directory, not a file", path=name)
        size = p.stat().st_size
        if size > limit:
            raise CiterenderError(f"{what} is {size:,} bytes, over the limit of {limit:,}", path=name)
        data = p.read_bytes()
    except FileNotFoundError:
        raise CiterenderError(f"{what} not found", path=name, hint="check the path") from None
    except PermissionError:
        raise CiterenderError(f"{what} is not readable (permission denied)", path=name) from None
    except OSError as e:
        raise CiterenderError(f"cannot read {what}: {e.strerror or e}", path=name) from None
    return decode_text(data, name, what)


def decode_text(data: bytes, name: str, what: str = "file") -> str:
    """Decode UTF-8 (a BOM is allowed), refusing binary data with a clear message."""
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CiterenderError(f"{what} looks binary (it has NUL bytes)", path=name,
                              hint="pass a UTF-8 text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise CiterenderError(f"{what} is not valid UTF-8 (byte {e.start})", path=name, line=line,
                              hint="save it as UTF-8") from None


def parse_data(raw: str, suffix: str, name: str) -> object:
    """Parse JSON, YAML or TOML text, reporting the parser's line on failure."""
    if suffix == ".json":
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise CiterenderError(f"invalid JSON: {e.msg} (column {e.colno})", path=name, line=e.lineno) from None
    if suffix in (".yaml", ".yml"):
        import yaml  # lazy: only YAML users pay for it

        try:
            return yaml.safe_load(raw)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise CiterenderError(f"invalid YAML: {problem}", path=name,
                                  line=mark.line + 1 if mark is not None else None) from None
    if suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(raw)
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
            msg = re.sub(r"\s*\(at line.*\)", "", str(e))
            raise CiterenderError(f"invalid TOML: {msg}", path=name, line=int(m.group(1)) if m else None) from None
    raise CiterenderError(f"unknown sources format {suffix!r}", path=name,
                          hint="use .json, .yaml, .toml, or tool-output / <BLOCK> text in .txt")


def load_sources(path: str | Path, *, fmt: CitationFormat = DEFAULT_FORMAT) -> Registry:
    """Load a registry, choosing the format from the file name and content."""
    name = str(path)
    raw = read_text_file(path, what="sources file")
    suffix = Path(path).suffix.lower()
    if suffix in (".json", ".yaml", ".yml", ".toml"):
        return registry_from_data(parse_data(raw, suffix, name), path=name, raw=raw, fmt=fmt)
    stripped = raw.lstrip()
    if stripped.startswith("Citation Marker:"):
        return parse_tool_output(raw, path=name, fmt=fmt)
    if stripped.startswith("<BLOCK"):
        return parse_blocks(raw, path=name, fmt=fmt)
    if stripped.startswith(("{", "[")):
        return registry_from_data(parse_data(raw, ".json", name), path=name, raw=raw, fmt=fmt)
    raise CiterenderError("cannot tell the sources format", path=name, line=1,
                          hint="use .json/.yaml/.toml, or text starting with 'Citation Marker:' or '<BLOCK'")
