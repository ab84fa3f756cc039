"""The HTML view in headless Chromium: the graph renders offline with no console error, a click shows
a node's content and relations, search finds nodes, and a screenshot is saved."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphmem import MemoryService
from graphmem.service.export import ExportScope
from tests.chromium import Browser, find_chromium
from tests.conftest import ORDERS, WEBHOOK

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium; .ci/run does)")

PEOPLE = [
    {"type": "entity", "name": "Payments_Team", "entityType": "team",
     "observations": ["Owns the Stripe webhook handler", "Reviews every idempotency key change"]},
    {"type": "relation", "from": "Payments_Team", "to": "Ops_Team", "relationType": "hands_off_to"},
]
_ALLOWED_SCHEMES = ("file:", "data:", "about:", "blob:")
_PAINTED = """(() => { let painted = 0;
  document.querySelectorAll('#graph canvas').forEach(canvas => {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) { if (pixels[i] > 0) painted++; } });
  return painted; })()"""
_FOCUS = """(() => { const cy = window.graphmemView.cy, node = cy.getElementById(%s);
  node.style('z-index', 9999); cy.zoom(2); cy.center(node);
  const box = cy.container().getBoundingClientRect(), at = node.renderedPosition();
  return [box.left + at.x, box.top + at.y]; })()"""


@pytest.fixture
def page(service: MemoryService, tmp_path: Path) -> tuple[Path, dict[str, object]]:
    service.import_jsonl([json.dumps(record) for record in PEOPLE])
    webhook = service.store(WEBHOOK, kind="pattern", project="payments").id
    service.store(ORDERS, kind="solution", project="payments")
    path = tmp_path / "graph.html"
    with path.open("w", encoding="utf-8") as stream:
        scope = ExportScope(query="stripe webhook idempotency", hops=2)
        export = service.exports.write("html", stream, scope)
    return path, {"webhook": webhook, "nodes": export.graph.number_of_nodes()}


@pytest.fixture
def browser(tmp_path: Path):
    opened = Browser(CHROMIUM or "", tmp_path / "profile")
    try:
        for domain in ("Runtime", "Log", "Network", "Page"):
            opened.send(f"{domain}.enable", page=True)
        opened.send("Emulation.setDeviceMetricsOverride",
                    {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}, page=True)
        yield opened
    finally:
        opened.close()


def problems(browser: Browser) -> list[str]:
    """Console errors and warnings, uncaught exceptions and log errors the page produced."""
    found = []
    for event in browser.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(str(params["exceptionDetails"].get("exception", {}).get("description")))
        elif method == "Runtime.consoleAPICalled" and params["type"] in {"error", "warning", "assert"}:
            found.append(" ".join(str(arg.get("value")) for arg in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] in {"error", "warning"}:
            found.append(params["entry"]["text"])
    return found


def test_the_html_view_renders_offline_and_answers_clicks_and_search(page, browser, tmp_path):
    path, facts = page
    browser.send("Page.navigate", {"url": path.as_uri()}, page=True)
    browser.wait_for("Page.loadEventFired")
    assert browser.evaluate("window.graphmemView.ready") == facts["nodes"] > 10
    assert browser.evaluate("document.body.dataset.renderedNodes") == str(facts["nodes"])
    assert browser.evaluate(_PAINTED) > 5_000, "the canvas shows the graph"

    x, y = browser.evaluate(_FOCUS % json.dumps(facts["webhook"]))
    browser.click(x, y)
    assert browser.evaluate("window.graphmemView.cy.$(':selected').id()") == facts["webhook"]
    details = browser.evaluate("document.getElementById('details').innerText")
    assert WEBHOOK in details and "mention" in details

    matches = browser.evaluate("window.graphmemView.search('idempotency').length")
    assert matches >= 2
    assert browser.evaluate("document.getElementById('status').textContent").startswith(f"{matches} of ")

    shot = browser.screenshot(Path(os.environ.get("GRAPHMEM_SCREENSHOT", tmp_path / "graph.png")))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    assert problems(browser) == [] and browser.evaluate("window.__graphmemErrors") == []
    requests = [event["params"]["request"]["url"] for event in browser.events
                if event.get("method") == "Network.requestWillBeSent"]
    assert requests and all(url.startswith(_ALLOWED_SCHEMES) for url in requests), requests
