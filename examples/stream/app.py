"""Stream a recorded answer into the browser, citations and hover cards appearing as they arrive.

It needs the web extra (Flask): in the citerender clone, ``pip install -e '.[web]'``. Run:
``flask --app examples/stream/app.py run`` (or ``python examples/stream/app.py``), then open
http://127.0.0.1:5000/. Without Flask it says so and exits 1.

The server replays the worked example's answer in 20-character chunks (as a model would send
them) through ``StreamRenderer``; the page appends each complete block it receives over
server-sent events. No raw marker is ever sent, so none can flash on screen.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

try:
    from flask import Flask, Response
except ImportError:  # before anything else: say which extra to install, no traceback
    raise SystemExit(
        "examples/stream/app.py needs Flask, from the web extra (citerender[web]): "
        "pip install -e '.[web]' in the citerender clone"
    ) from None

from citerender import StreamRenderer, load_sources, stylesheet

WORKED = Path(__file__).resolve().parent.parent / "worked"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Streaming answer</title>
<link rel="stylesheet" href="/citerender.css">
</head>
<body>
<main class="citerender-page">
<div id="answer" aria-live="polite"></div>
<div id="sources"></div>
<p id="status">streaming…</p>
</main>
<script>
const answer = document.getElementById("answer");
const events = new EventSource("/events");
events.addEventListener("block", (e) => answer.insertAdjacentHTML("beforeend", JSON.parse(e.data)));
events.addEventListener("done", (e) => {
  document.getElementById("sources").innerHTML = JSON.parse(e.data);
  document.getElementById("status").textContent = "done";
  events.close();
});
</script>
</body>
</html>"""


def chunks(text: str, size: int = 20) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i : i + size]


def create_app(delay: float = 0.01) -> Flask:
    app = Flask(__name__)
    registry = load_sources(WORKED / "answer.sources.json")
    answer = (WORKED / "answer.md").read_text(encoding="utf-8")

    @app.get("/")
    def index() -> str:
        return PAGE

    @app.get("/citerender.css")
    def css() -> Response:
        return Response(stylesheet(), mimetype="text/css")

    @app.get("/events")
    def events() -> Response:
        def generate() -> Iterator[str]:
            sr = StreamRenderer(registry, output="html", style="hovercard")
            for chunk in chunks(answer):
                html = sr.feed(chunk)
                if html:
                    yield f"event: block\ndata: {json.dumps(html)}\n\n"
                time.sleep(delay)
            tail = sr.close()
            if tail:
                yield f"event: block\ndata: {json.dumps(tail)}\n\n"
            yield f"event: done\ndata: {json.dumps(sr.bibliography_html())}\n\n"

        return Response(generate(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache"})

    return app


app = create_app()

if __name__ == "__main__":
    app.run()
