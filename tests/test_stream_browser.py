"""The streaming example in Chromium: no raw marker is ever visible in the DOM during the stream."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import EXAMPLES, load_example_module

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    from werkzeug.serving import make_server

    create_app = load_example_module(EXAMPLES / "stream" / "app.py", "citerender_example_stream").create_app
    srv = make_server("127.0.0.1", 0, create_app(delay=0.005), threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


WATCH = """
window.__leaks = [];
window.__snapshots = 0;
new MutationObserver(() => {
  window.__snapshots++;
  const t = document.body ? document.body.innerText + document.body.innerHTML : "";
  if (/[\\uE200-\\uE206]/.test(t)) window.__leaks.push(t.slice(0, 200));
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def test_stream_never_shows_a_marker(server: str, browser: Any) -> None:
    page = browser.new_page()
    page.add_init_script(WATCH)
    page.goto(server + "/")
    page.wait_for_function("document.getElementById('status').textContent === 'done'", timeout=30000)
    assert page.evaluate("window.__leaks") == []
    assert page.evaluate("window.__snapshots") > 3  # the answer really arrived in pieces
    assert page.locator("#answer .citerender-hovercard").count() == 8
    assert page.locator("#sources li.citerender-ref").count() == 3
    trigger = page.locator("#answer .citerender-hc-trigger").first
    trigger.hover()
    page.locator("#cite-1-card").wait_for(state="visible")
    assert "three days per week" in page.locator("#cite-1-card").inner_text()
    page.close()
