"""A large synthetic ChatGPT export for the memory and time of ``citerender build`` on it: the
fixture's conversations (``tests/fixtures/chatgpt``), repeated under new ids with longer answers,
written as one JSON list until the file reaches the size asked for."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "chatgpt" / "conversations.json"
FILLER = (
    "Remote work is allowed for up to three days per week, and every remote day is recorded in the HR portal "
    "by Friday of the same week. Exceptions need a manager's approval and are reviewed each quarter. "
)


def _longer(conv: dict[str, Any], k: int) -> dict[str, Any]:
    conv = copy.deepcopy(conv)
    conv["id"] = conv["conversation_id"] = f"{conv['id']}-{k}"
    conv["title"] = f"{conv['title'] or 'Untitled'} #{k}"
    conv["update_time"] = (conv.get("create_time") or 1.7e9) + k
    for node in conv["mapping"].values():
        msg = node.get("message")
        if msg and msg["author"]["role"] == "assistant" and msg["content"].get("content_type") == "text":
            parts = msg["content"]["parts"]
            if parts and parts[0]:  # paragraphs after the cited text: offsets of references stay right
                parts[0] = parts[0] + "\n\n" + "\n\n".join(FILLER * 3 for _ in range(6))
    return conv


def write_export(path: Path, size: int) -> int:
    """Write an export of about ``size`` bytes to ``path``; returns the number of conversations."""
    base = json.loads(FIXTURE.read_text(encoding="utf-8"))
    written, k = 1, 0
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        while written < size:
            item = json.dumps(_longer(base[k % len(base)], k), ensure_ascii=False)
            f.write(("," if k else "") + item)
            written += len(item.encode("utf-8")) + 1
            k += 1
        f.write("]")
    return k
