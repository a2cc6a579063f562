"""What one conversation of a chat export holds (see :mod:`bench.corpus_held`): ChatGPT's
``content_references`` on each assistant message (a ``grouped_webpages`` pill, or its
model-predicted fallback, with its pages is a place; a ``video`` names its page; a
``sources_footnote`` lists pages), and the older ``metadata.citations``; Claude's text blocks'
``citations[]`` (``details.url``). The answers' words (markers taken out) must all be on the page."""

from __future__ import annotations

from typing import Any

from bench.corpus_held import Held, without_markers

_PILLS = ("grouped_webpages", "grouped_webpages_model_predicted_fallback")


def chatgpt(conv: dict[str, Any]) -> Held:
    h = Held("chatgpt-export")
    texts = []
    for node_id, node in sorted((conv.get("mapping") or {}).items()):
        msg = (node or {}).get("message") or {}
        if ((msg.get("author") or {}).get("role")) != "assistant":
            continue
        content = msg.get("content") or {}
        if content.get("content_type") == "text" and msg.get("recipient", "all") == "all":
            texts += [without_markers(p) for p in content.get("parts") or [] if isinstance(p, str)]
        meta = msg.get("metadata") or {}
        _references(h, node_id, meta.get("content_references") or [])
        for n, c in enumerate(meta.get("citations") or []):
            url = (c.get("metadata") or {}).get("url")
            if url:  # the rest say "Unsupported, please upgrade": placeholders of the pills
                h.cite((node_id, "c", n), url)
                h.url(url)
    h.text = "\f".join(texts)  # each answer's words, in the order the page shows its turns
    return h


def _references(h: Held, node_id: str, refs: list[Any]) -> None:
    place, end = 0, None
    for n, ref in enumerate(refs):
        kind = ref.get("type")
        items = ref.get("items") or []
        if kind in _PILLS and items:
            if ref.get("start_idx") != end:  # a pill right after another shares its place
                place = n
            end = ref.get("end_idx")
            h.cite((node_id, place), kind)
            for it in items:
                h.url(it.get("url"))
                h.url(*(s.get("url") for s in it.get("supporting_websites") or []))
        elif kind == "video":
            h.url(ref.get("url"))
        elif kind in ("image_v2", "image_group"):  # a carousel: each image's page
            h.url(*(i.get("url") or (i.get("image_result") or {}).get("url") for i in ref.get("images") or []))
        elif kind == "navigation":  # a list of sites
            h.url(*(d.get("url") for d in ref.get("domains") or []))
        elif kind == "sources_footnote":
            h.url(*(s.get("url") for s in ref.get("sources") or []))


def claude(conv: dict[str, Any]) -> Held:
    h = Held("claude-export")
    texts = []
    for m, msg in enumerate(conv.get("chat_messages") or []):
        if msg.get("sender") != "assistant":
            continue
        texts += [str(b.get("text") or "") for b in msg.get("content") or [] if b.get("type") == "text"]
        for b, block in enumerate(msg.get("content") or []):
            for c in block.get("citations") or []:
                h.cite((m, b, c.get("end_index")), c.get("uuid"))
                h.url((c.get("details") or {}).get("url"))
    h.text = "\f".join(texts)
    return h


def export_held(conv: dict[str, Any]) -> Held:
    return claude(conv) if "chat_messages" in conv else chatgpt(conv)
