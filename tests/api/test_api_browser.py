"""Browser test: Debian chromium drives the console against a live server, relay and broker."""

from __future__ import annotations

import json
import os
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from api_factories import T0, chat_finding
from browser_support import ARGS, CHROMIUM, live_console

from pipeline.findings import ActionProposal, Finding, stable_id

DOC_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

pytestmark = [pytest.mark.browser, pytest.mark.kafka,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed at /usr/bin/chromium")]


def _hand(i: int) -> dict:
    return {"event_id": f"h-ev-{i}", "ts": (T0 + timedelta(minutes=i)).isoformat(), "hand_id": f"hand-{i}",
            "table_id": "t-7", "game": "tournament", "tournament_id": "mtt-42", "variant": "NT", "antes": [0, 0, 0],
            "blinds_or_straddles": [50, 100, 0], "min_bet": 100, "starting_stacks": [5000, 5000, 1200],
            "players": ["p-dave", "p-erin", "p-frank"], "seats": [1, 2, 3],
            "actions": ["d dh p1 AsKs", "d dh p2 ????", "d dh p3 ????", "p3 cbr 1200", "p1 cc", "p2 f",
                        "d db 7h8s9c", "d db 2d", "d db Jc", "p3 sm QhQd", "p1 sm AsKs"],
            "finishing_stacks": [7450, 4900, 0], "winnings": [2550, 0, 0], "bounties": {"p-frank": 500},
            "eliminated": ["p-frank"]}


def _rich_findings() -> list[Finding]:
    chat = [chat_finding(i, player="p-alice", table="t-3", text=t) for i, t in
            enumerate(["gg wp", "you are an idiot, <b>fold</b>", "you are an idiot again"])]
    hand_id = stable_id("fnd", "bounty", "mtt-42")
    hand = Finding(
        finding_id=hand_id, detector="hand.bounty_agreement", rule="bounty", family="hand",
        category="bounty_agreement", score=0.93, players=("p-dave", "p-erin"), ts=T0 + timedelta(minutes=5),
        tournament_id="mtt-42", table_id="t-7", summary="p-dave and p-erin folded to each other and shared bounties",
        evidence={"hands": [_hand(1), _hand(2)], "statistic": {"name": "fold_to_partner", "value": 0.92,
                                                             "expected": 0.31, "p_value": 0.0004}},
        actions=(ActionProposal(action_id=stable_id("act", hand_id), disposition="proposed",
                                kind="tournament_disqualification", scope="tournament", scope_value="mtt-42",
                                player_id="p-dave", starts_at=T0, expires_at=None, reason="bounty agreement",
                                rule="bounty"),),
    )
    seat_id = stable_id("fnd", "sitout", "mtt-42")
    seat = Finding(
        finding_id=seat_id, detector="seat.sync_sit_out", rule="tournament_sit_out", family="seat",
        category="collusive_sit_out", score=0.88, players=("p-gina", "p-hal"), ts=T0, tournament_id="mtt-42",
        summary="p-gina and p-hal sat out together three times",
        evidence={"timeline": [
            {"player_id": p, "table_id": t, "tournament_id": "mtt-42", "start": (T0 + timedelta(minutes=a)).isoformat(),
             "end": (T0 + timedelta(minutes=b)).isoformat(), "state": s}
            for p, t in (("p-gina", "t-1"), ("p-hal", "t-2"))
            for a, b, s in ((0, 10, "seated"), (10, 18, "sitting_out"), (18, 30, "seated"), (30, 36, "sitting_out"))]},
    )
    # Background traffic for the queue screenshot, all below p-alice's priority.
    others = [chat_finding(20 + i, player=f"p-{name}", table=f"t-{10 + i}", score=0.55 + i * 0.02, category=cat,
                           text=text)
              for i, (name, cat, text) in enumerate([
                  ("ivan", "spam", "visit my site for free chips"), ("jo", "insult", "you donkey"),
                  ("kim", "flooding", "aaaaaaaaaaaaaa"), ("lee", "personal_info", "what's your real name?"),
                  ("max", "insult", "idiot call"), ("nia", "spam", "cheap chips here"),
                  ("oli", "shouting", "WHY DID YOU CALL"), ("pat", "harassment", "I'll follow you to every table")])]
    return [*chat, *others, hand, seat]


@pytest.fixture
def live(tmp_path, kafka_broker):
    people = [("mona", "moderator", "moderator-pass-1"), ("ada", "admin", "admin-pass-1")]
    with live_console(tmp_path, kafka_broker.bootstrap, people=people, findings=_rich_findings()) as console:
        yield console.base, console.bootstrap, console.topic


def test_moderator_works_a_case_to_a_published_sanction(live, tmp_path):
    from kafka import KafkaConsumer
    from playwright.sync_api import expect, sync_playwright

    base, bootstrap, topic = live
    # Screenshots go to docs/ only when asked for, so an ordinary test run leaves the tree clean.
    shots = DOC_SHOTS if os.environ.get("RAILBIRD_SCREENSHOTS") == "1" else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{base}/console/")
        page.fill("#username", "mona")
        page.fill("#password", "moderator-pass-1")
        page.click("button[type=submit]")
        expect(page.locator("#queue")).to_be_visible()
        page.goto(f"{base}/console/?family=chat")
        page.keyboard.press("j")
        page.screenshot(path=str(shots / "queue.png"), full_page=True)
        page.goto(f"{base}/console/?family=seat")
        first = page.locator("#queue tbody tr").first
        first.click()
        page.keyboard.press("Enter")
        expect(page.locator(".timeline rect").first).to_be_visible()
        page.goto(f"{base}/console/?family=chat")
        expect(page.locator("#queue tbody tr.selected")).to_have_count(1)
        page.keyboard.press("j")
        page.keyboard.press("k")
        page.keyboard.press("c")  # claim the selected case: lands on its page
        expect(page.locator(".flash")).to_have_text("Claimed.")
        assert page.locator("mark").count() >= 2
        assert page.locator("b").count() == 0  # the <b> typed in chat is shown as text
        page.fill("#decision-reason", "insults at table t-3")
        page.check("#decision-apply")
        page.click("#decide")
        expect(page.locator(".flash")).to_have_text("Decision recorded.")
        expect(page.locator("#events .published")).to_have_count(1, timeout=15_000)
        page.screenshot(path=str(shots / "case.png"), full_page=True)
        page.goto(f"{base}/console/?family=hand")
        page.locator("#queue tbody tr td.summary a").first.click()
        expect(page.locator("article.hand")).to_have_count(2)
        page.screenshot(path=str(shots / "case_hands.png"), full_page=True)
        page.goto(f"{base}/console/dashboard")
        expect(page.locator("svg.chart rect").first).to_be_visible()
        page.screenshot(path=str(shots / "dashboard.png"), full_page=True)
        _admin_changes_policy_and_sees_no_chat(page, base, shots)
        browser.close()
    assert errors == []
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             group_id=f"g-{uuid.uuid4().hex[:6]}", session_timeout_ms=6000,
                             heartbeat_interval_ms=1000, consumer_timeout_ms=20_000)
    record = next(iter(consumer))
    consumer.close()
    event = json.loads(record.value)
    assert record.key == b"p-alice" and event["type"] == "railbird.enforcement.chat_ban"


def _admin_changes_policy_and_sees_no_chat(page, base: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.click(".logout button")
    page.fill("#username", "ada")
    page.fill("#password", "admin-pass-1")
    page.click("button[type=submit]")
    page.goto(f"{base}/console/?family=chat&status=actioned")
    page.locator("#queue tbody tr td.summary a").first.click()
    expect(page.locator(".chat .text").first).to_have_text("[redacted]")
    assert "idiot" not in page.content()
    page.click("text=Policy")
    page.uncheck("#auto-mute")
    page.fill("#policy-reason", "pause automatic mutes during the model retraining")
    page.click("#policy-save")
    expect(page.locator(".flash")).to_contain_text("Policy changed")
    expect(page.locator("h1")).to_contain_text("revision 1")
    page.screenshot(path=str(shots / "policy.png"), full_page=True)
