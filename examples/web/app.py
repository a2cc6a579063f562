"""A small Flask app serving a rendered answer. It needs the web extra (Flask): in the citerender
clone, ``pip install -e '.[web]'``, then ``flask --app examples/web/app.py run`` (or
``python examples/web/app.py``). Without Flask it says so and exits 1.

The answer and its sources are the worked example's; the template uses the ``citations``
filter and links the theme's stylesheet.
"""

from __future__ import annotations

from pathlib import Path

try:
    from flask import Flask, Response, render_template_string
except ImportError:  # before anything else: say which extra to install, no traceback
    raise SystemExit(
        "examples/web/app.py needs Flask, from the web extra (citerender[web]): "
        "pip install -e '.[web]' in the citerender clone"
    ) from None

from citerender import install_filter, load_sources, stylesheet

HERE = Path(__file__).resolve().parent
WORKED = HERE.parent / "worked"

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<link rel="stylesheet" href="/citerender.css">
</head>
<body>
<main class="citerender-page">
{{ answer | citations(sources) }}
</main>
</body>
</html>"""


def create_app() -> Flask:
    app = Flask(__name__)
    install_filter(app.jinja_env, style="hovercard")
    sources = load_sources(WORKED / "answer.sources.json")
    answer = (WORKED / "answer.md").read_text(encoding="utf-8")

    @app.get("/")
    def index() -> str:
        return render_template_string(PAGE, title="Working from home", answer=answer, sources=sources)

    @app.get("/citerender.css")
    def css() -> Response:
        return Response(stylesheet(), mimetype="text/css")

    return app


app = create_app()

if __name__ == "__main__":
    app.run()
