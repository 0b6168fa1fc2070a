"""Stored XSS: hostile chat text, nicknames and summaries reach the console's queue and case page
in a real browser (Debian chromium); nothing executes and the text is shown literally."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from api.deps import ApiConfig
from api.ids import utc_now
from railbird.settings import Settings
from tests.api.api_factories import chat_finding
from tests.live_server import serve_app

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TOKEN = "xss-service-token-0123456789"
PAYLOADS = [
    "<img src=x onerror=window.__xss=1>",
    "<script>window.__xss=1</script>",
    "\"><svg onload=window.__xss=1>",
    "<a href=\"javascript:window.__xss=1\" id=xss-link>click</a>",
    "</textarea><iframe srcdoc=\"<script>parent.__xss=1</script>\">",
]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed at /usr/bin/chromium")]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A live API with one case whose chat, nickname and summary are XSS attempts."""
    engine = make_engine(f"sqlite:///{tmp_path / 'xss.db'}")
    migrate(engine)
    with make_sessions(engine)() as s:
        auth.create_user(s, username="ana", role="analyst", password="analyst-pass-123", actor="test", now=utc_now())
    app = create_app(settings=Settings(env="test", data_dir=tmp_path, service_token=TOKEN, relay_enabled=False),
                     config=ApiConfig(service_token=TOKEN, env="test"), engine=engine, run_migrations=False)
    with serve_app(app) as base:
        findings = []
        for i, text in enumerate(PAYLOADS):
            f = chat_finding(i, player="p-xss", table="t-x", text=text)
            doc = f.model_dump(mode="json")
            doc["evidence"]["messages"][0]["nickname"] = PAYLOADS[(i + 1) % len(PAYLOADS)][:64]
            doc["summary"] = f"insult: {text}"
            findings.append(doc)
        r = httpx.post(f"{base}/v1/findings/batch", json={"findings": findings},
                       headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
        assert r.status_code == 200, r.text
        case_id = r.json()["case_ids"][0]
        yield base, case_id
    engine.dispose()


def test_stored_xss_in_chat_does_not_execute_and_reads_literally(live: tuple[str, str]) -> None:
    from playwright.sync_api import expect, sync_playwright

    base, case_id = live
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        page = browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(f"{base}/console/")
        page.fill("#username", "ana")
        page.fill("#password", "analyst-pass-123")
        page.click("button[type=submit]")
        expect(page.locator("#queue")).to_be_visible()
        assert page.evaluate("window.__xss") is None, "queue page: summary did not execute"
        page.goto(f"{base}/console/cases/{case_id}")
        body = page.locator("body").inner_text()
        for text in PAYLOADS:
            assert text in body, f"shown literally: {text}"
        assert page.evaluate("window.__xss") is None, "case page: nothing executed"
        assert page.locator("img[src=x], svg[onload], iframe, #xss-link, script:not([src])").count() == 0
        if page.locator("a", has_text="click").count():
            page.locator("a", has_text="click").first.click()
        assert page.evaluate("window.__xss") is None and dialogs == []
        # Control: the same payload, unescaped, on a page without our CSP does execute here.
        control = browser.new_page()
        control.set_content(PAYLOADS[0])
        control.wait_for_function("window.__xss === 1", timeout=5000)
        browser.close()
