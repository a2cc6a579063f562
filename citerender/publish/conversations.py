"""Transcripts as pages: one page per conversation (a chat export, or saved provider turns), each
answer with its own bibliography (numbers restart, as in the chat) and id prefix (``t3-cite-1``),
and a site of them with an index, newest first. The site build keeps the folder build's safety
rules and renders only conversations whose data changed; the export is read as a stream twice
(plan, then render), so memory stays flat whatever its size."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from ..diagnostics import Diagnostic
from ..errors import CiterenderError
from ..jobs.pool import PageResult
from ..options import RenderOptions, id_stem
from ..providers.archive import MAX_INFLATED_BYTES, read_raw
from ..providers.exports import conversation
from ..providers.threads import Conversation, Turn
from ..rendering.html import answer_lang, render
from ..rendering.themes import load_theme
from ..sources.clean import display_text
from ..sources.model import Registry
from ..syntax.copied import as_links
from ..syntax.guide import strip_citations
from ..syntax.residue import clean_html
from .build_state import ASSET_CSS, Build, BuildResult, reported, write_output
from .chat_inputs import readable, transcript_or_export
from .shown import shown_conversation, shown_markup, shown_text

__all__ = ["build_conversations", "conversation_page", "render_conversation"]


class TurnView(NamedTuple):
    """One turn as the conversation template sees it, with its label among its versions and the others."""

    role: str
    who: str
    id: str
    html: str
    version: str = ""
    versions: tuple[VersionView, ...] = ()


class VersionView(NamedTuple):
    """Another version of a turn: its label (position, time, messages) and its turns."""

    id: str
    label: str
    turns: tuple[TurnView, ...]


class ConversationEntry(NamedTuple):
    """One conversation as the index template sees it."""

    title: str
    href: str
    date: str
    answers: int
    sources: int
    errors: int
    search: str  # what the index's search box matches: title, date, models and the user's words, lower case
    models: str = ""  # the models that answered, as the chat names them


#: the index page's search box over its JSON (also ``search-index.json``): every word typed must
#: match; without script the box stays hidden. Allowed by the page's CSP by its hash.
SEARCH_SCRIPT = (
    "(function(){var f=document.querySelector('.citerender-search'),"
    "d=document.getElementById('citerender-search-index');if(!f||!d)return;"
    "var data;try{data=JSON.parse(d.textContent);}catch(e){return;}"
    "var text={};data.forEach(function(e){text[e.href]=e.text;});"
    "var i=f.querySelector('input'),o=f.querySelector('output'),"
    "items=[].slice.call(document.querySelectorAll('.citerender-conversations > li'));"
    "function run(){var q=i.value.toLowerCase().split(/\\s+/).filter(Boolean),n=0;"
    "items.forEach(function(li){var a=li.querySelector('a'),t=text[a?a.getAttribute('href'):'']||'';"
    "var ok=q.every(function(w){return t.indexOf(w)!==-1;});li.hidden=!ok;if(ok)n++;});"
    "o.textContent=q.length?n+' of '+items.length+' conversations':'';}"
    "f.hidden=false;i.addEventListener('input',run);"
    "f.addEventListener('submit',function(e){e.preventDefault();run();});})();"
)
SEARCH_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SEARCH_SCRIPT.encode("utf-8")).digest()).decode("ascii")
SEARCH_CHARS = 600  # of the user's words per conversation: the index stays small for large exports
SEARCH_INDEX = "search-index.json"


def _name(conv: Conversation) -> str:
    """How a build's lines and manifest name the conversation: its title and its id."""
    return f"{conv.title} [{shown_text(conv.id, 100)}]"


def _models(conv: Conversation) -> str:
    names = [t.model for t in conv.every_turn() if t.model] or ([conv.model] if conv.model else [])
    return ", ".join(dict.fromkeys(names))


def _search_text(conv: Conversation) -> str:
    """What the search box matches: title, date, models and the start of the user's words, as one
    line of plain lower-case text."""
    said = " ".join(t.text for t in conv.every_turn() if t.role == "user")[: 8 * SEARCH_CHARS]
    words = shown_text(display_text(said)[0], 8 * SEARCH_CHARS)
    plain = " ".join(re.sub(r"[\[\]()*_`#>|~!]+", " ", words).split())
    text = f"{conv.title} {_day(conv.updated or conv.created)} {_models(conv)} {plain[:SEARCH_CHARS]}"
    return shown_text(text.casefold(), len(text) + 1)


def search_index(entries: list[ConversationEntry]) -> str:
    """The index's entries as JSON, newest first: safe inside a ``<script type="application/json">``
    element (no ``<``, ``>`` or ``&`` appears as itself) and as a file of its own."""
    data = [{"title": e.title, "href": e.href, "date": e.date, "models": e.models, "text": e.search} for e in entries]
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _day(epoch: float | None) -> str:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat() if epoch else ""


def _when(epoch: float | None) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M UTC") if epoch else ""


class _Turns:
    """Renders turns into views and gathers every diagnostic, labelled with its turn's number."""

    def __init__(self, opts: RenderOptions, speaker: str) -> None:
        self.opts, self.speaker = opts, speaker
        self.diags: list[tuple[int, Diagnostic]] = []
        self.count = 0

    def views(self, turns: list[Turn], prefix: str | None = None, place: str = "") -> tuple[TurnView, ...]:
        """``turns`` as views, ids ``t1``, ``t2``… on the current branch and detached threads,
        ``t3-v1-1``… inside a version of turn 3 (``prefix``, at ``place``: "message 3, version 1")."""
        out = []
        for i, turn in enumerate(turns, start=1):
            if prefix is None:
                self.count += 1
                tid = f"{id_stem(self.opts.id_prefix)}t{self.count}"
                where = f"message {self.count}"
            else:
                tid, where = f"{prefix}-{i}", f"{place}, message {i}"
            out.append(self._view(turn, tid, where))
        return tuple(out)

    def _view(self, turn: Turn, tid: str, where: str) -> TurnView:
        n, opts = self.count, self.opts  # every turn's headings one level down: the page's h1 is its title
        if turn.role == "user":
            text = as_links(strip_citations(turn.text))  # what the user pasted: its pages as links
            r = render(text, Registry([]), replace(opts, id_prefix=tid, bibliography=False, standalone=False), demote=1)
            r.body = shown_markup(r.body)
        else:
            r = render(turn.text, turn.registry, replace(opts, id_prefix=tid, standalone=False), demote=1)
            self.diags.extend((n, Diagnostic.make(code, message)) for code, message in turn.notes)
            # several answers share the page: each one's sources region gets a name of its own
            r.body = r.body.replace(
                'role="doc-endnotes" aria-label="Sources"', f'role="doc-endnotes" aria-label="Sources of {where}"', 1
            )
        self.diags.extend((n, d) for d in r.diagnostics if d.code != "CR308")  # pages seen, not all cited
        label = f"Version {turn.version[0]} of {turn.version[1]}" if turn.version else ""
        versions = []
        for v in turn.versions:
            vid = f"{tid}-v{v.position}"
            messages = f"{len(v.turns)} message{'s' if len(v.turns) != 1 else ''}"
            parts = [f"Version {v.position} of {v.of}", _when(v.created), messages]
            turns = self.views(v.turns, vid, f"{where}, version {v.position}")
            versions.append(VersionView(vid, " · ".join(p for p in parts if p), turns))
        who = "You" if turn.role == "user" else self.speaker
        return TurnView(turn.role, who, tid, r.body, label, tuple(versions))


@dataclass
class RenderedConversation:
    """A conversation's page body and every diagnostic, each labelled with its turn."""

    body: str
    diagnostics: list[tuple[int, Diagnostic]]


def render_conversation(
    conv: Conversation, options: RenderOptions | None = None, **kwargs: Any
) -> RenderedConversation:
    """The conversation's body: each user turn as written (markers stripped), each answer with its
    citations (options as for :func:`render`)."""
    opts = RenderOptions.build(options, **kwargs)
    conv = shown_conversation(conv)
    turns = _Turns(opts, conv.assistant or "Assistant")
    turns.diags.extend((0, Diagnostic.make(code, message)) for code, message in conv.notes)
    views = turns.views(conv.turns)
    detached = [turns.views(thread) for thread in conv.detached]
    body = load_theme(opts.theme).render_conversation(
        views,
        detached=detached,
        started=_day(conv.created),
        updated=_day(conv.updated),
        answers=conv.answers,
        model=conv.model or "",
    )
    return RenderedConversation(body, turns.diags)


def conversation_page(
    conv: Conversation, options: RenderOptions | None = None, **kwargs: Any
) -> tuple[str, list[tuple[int, Diagnostic]]]:
    """A complete page for one conversation (the theme's CSS inlined)."""
    page, r = _page(conv, RenderOptions.build(options, **kwargs))
    return clean_html(page)[0], r.diagnostics


def _page(conv: Conversation, opts: RenderOptions, **links: str) -> tuple[str, RenderedConversation]:
    """The conversation's page, its CSS inlined, or linked with a way home (``links``) on a site."""
    r = render_conversation(conv, opts)
    th = load_theme(opts.theme)
    css = "" if links else th.css
    return th.render_page(r.body, title=conv.title, css=css, lang=_lang(conv), **links), r


def _lang(conv: Conversation) -> str:
    """The page's language: the script most letters of its messages are in (``ar``, ``he`` …)."""
    return answer_lang(" ".join(strip_citations(t.text) for t in conv.every_turn()))


def _slug(title: str, cid: str) -> str:
    words = re.sub(r"[^\w]+", "-", title.casefold(), flags=re.ASCII).strip("-")[:60].strip("-") or "conversation"
    return f"{words}-{hashlib.sha256(cid.encode()).hexdigest()[:8]}"


def _render_task(task: dict[str, Any]) -> PageResult:
    """Worker: one conversation's page, written atomically."""
    # an export's conversation is built here from its data: registries do not travel between processes
    conv = shown_conversation(task.get("conversation") or conversation(task["data"], task["index"]))
    res = PageResult(rel=_name(conv), out=task["out_rel"], title=conv.title, input_hash=task["input_hash"])
    with reported(res):
        page, r = _page(
            conv, task["options"], css_href="../" + ASSET_CSS, home_href="../index.html", home_label="All conversations"
        )
        write_output(task, res, page, [d for _, d in r.diagnostics])
        res.lines = [f"{conv.title} (turn {n}): {d.code} [{d.severity.value}] {d.message}" for n, d in r.diagnostics]
    return res


class _Plan:
    """The first pass of a build: each conversation's page, and whether it must be rendered."""

    def __init__(self, build: Build) -> None:
        self.build = build
        self.entries: dict[str, ConversationEntry] = {}
        self.order: list[tuple[float, str]] = []
        #: position in the export → (page, input hash) of each conversation the second pass renders
        self.changed: dict[int, tuple[str, str]] = {}

    def add(self, conv: Conversation, position: int, export: str | Path) -> None:
        build = self.build
        rel = f"c/{_slug(conv.title, conv.id)}.html"
        if rel in self.entries:
            raise CiterenderError(f"two conversations have the id {conv.id!r}", path=str(export))
        input_hash = hashlib.sha256(f"{build.key}|{conv.digest}".encode()).hexdigest()
        self.entries[rel] = ConversationEntry(conv.title, "./" + rel, _day(conv.updated or conv.created),
                                              conv.answers, conv.sources, 0, _search_text(conv), _models(conv))  # fmt: skip
        self.order.append((conv.updated or conv.created or 0.0, rel))
        name = _name(conv)
        if build.kept(name, rel, input_hash, conv.title):
            return
        self.changed[position] = (rel, input_hash)
        build.tasks.append({"out_rel": rel, "rel": name})  # recorded as pending by Build.start()

    def newest(self) -> list[ConversationEntry]:
        """The index's entries, newest first, with the errors each page's build found."""
        for r in self.build.results:
            if r.out in self.entries and (r.errors or r.failure):
                self.entries[r.out] = self.entries[r.out]._replace(errors=r.errors + (1 if r.failure else 0))
        return [self.entries[rel] for _, rel in sorted(self.order, key=lambda x: x[0], reverse=True)]


def build_conversations(
    export: str | Path,
    out: str | Path,
    options: RenderOptions | None = None,
    *,
    jobs: int = 1,
    force: bool = False,
    overwrite: bool = False,
    progress: TextIO | None = None,
    provider: str | None = None,
    max_export_bytes: int = MAX_INFLATED_BYTES,
    **kwargs: Any,
) -> BuildResult:
    """One page per conversation of ``export`` under ``out/c/``, and ``out/index.html``.

    ``export`` is a chat export (``conversations.json`` or its shards, its ``.zip``, the folder it
    unzips to) or a transcript of saved provider responses (in ``provider``'s format). A zipped
    export may inflate to at most ``max_export_bytes`` (and 200 times its compressed size).
    ``force`` renders every conversation again; ``overwrite`` writes over pages changed since."""
    opts = RenderOptions.build(options, **kwargs)
    src = Path(export).resolve()
    build = Build(src.parent, out, opts, force, False, overwrite)
    single = transcript_or_export(src, provider)
    if single is not None:
        jobs = 1  # one small transcript: rendered in this process
    plan = _Plan(build)
    for k, conv in [(0, single)] if single is not None else readable(read_raw(src, max_export_bytes), build, export):
        plan.add(conv, k, export)  # first pass: what changed, nothing rendered
    changed = plan.changed
    build.start(SEARCH_INDEX)

    def tasks() -> Iterator[dict[str, Any]]:  # second pass: render what changed, one at a time
        for k, data in read_raw(src, max_export_bytes) if single is None else [(0, {})]:
            if k in changed:
                rel, input_hash = changed[k]
                yield {
                    "conversation": single,
                    "data": data,
                    "index": k,
                    "out": str(build.out_dir / rel),
                    "out_rel": rel,
                    "options": opts,
                    "input_hash": input_hash,
                }

    build.render(tasks(), len(changed), jobs, _render_task, progress)
    entries = plan.newest()
    index_json = search_index(entries)
    build.write_asset(SEARCH_INDEX, index_json.encode("utf-8"))
    removed = build.remove_gone()
    index = build.theme.render_conversation_index(
        entries, css_href=ASSET_CSS, title="Conversations", search_script=SEARCH_SCRIPT, search_hash=SEARCH_HASH,
        search_index=index_json,
    )  # fmt: skip
    build.write_page("index.html", index)
    build.results.sort(key=lambda r: r.out)
    return build.finish(len(changed), removed)
