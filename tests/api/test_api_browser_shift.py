"""A scripted shift per role in headless Debian chromium, from login to the enforcement event on the
broker: analyst confirms, moderator enforces a case reviewed long after the offence, a senior
approves the held disqualifications of both colluders, an admin audits; every page is checked with
axe-core for serious accessibility violations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from api_factories import T0, chat_finding
from browser_support import ARGS, AXE, CHROMIUM, TOKEN, live_console, read_events, serious_violations

from pipeline.findings import ActionProposal, Finding, stable_id
from pipeline.policy import propose_actions
from pipeline.rules import RulesConfig

pytestmark = [pytest.mark.browser, pytest.mark.kafka,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed at /usr/bin/chromium"),
              pytest.mark.skipif(not AXE.exists(), reason="axe-core not installed (make browser installs it)")]

PEOPLE = [("ana", "analyst", "analyst-pass-1"), ("mona", "moderator", "moderator-pass-1"),
          ("sam", "senior", "senior-pass-1"), ("ada", "admin", "admin-pass-1")]


def _restriction(n: int) -> Finding:
    """An insult in March with a 24-hour chat restriction proposed: months old when reviewed."""
    f = chat_finding(n, player="p-alice", table="t-3", text="you are an idiot")
    old = f.actions[0]
    action = ActionProposal(action_id=old.action_id, disposition="proposed", kind="chat_restriction", scope="feature",
                            scope_value="chat", player_id="p-alice", starts_at=f.ts, expires_at=f.ts + timedelta(hours=24),
                            reason=old.reason, rule=old.rule)
    return f.model_copy(update={"actions": (action,)})


def _bounty_agreement() -> Finding:
    f = Finding(finding_id=stable_id("fnd", "shift-bounty"), detector="hand.bounty_agreement", rule="bounty",
                family="hand", category="bounty_agreement", score=0.93, players=("p-dave", "p-erin"), ts=T0,
                tournament_id="mtt-42", table_id="t-7", summary="p-dave and p-erin agreed to hunt p-frank's bounty")
    return f.with_actions(propose_actions(f, rules=RulesConfig()))


def _login(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/console/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("button[type=submit]")


def _logout(page) -> None:
    page.click(".logout button")


def test_a_shift_from_analyst_to_admin_ends_on_the_broker(tmp_path, kafka_broker):
    from playwright.sync_api import expect, sync_playwright

    findings = [_restriction(1), _restriction(2), _bounty_agreement()]
    with live_console(tmp_path, kafka_broker.bootstrap, people=PEOPLE, findings=findings) as live, sync_playwright() as pw:
        chat_case, hand_case = live.case_ids
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        page = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True).new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        violations: dict[str, list[str]] = {}

        def check(name: str) -> None:
            violations[name] = serious_violations(page)

        # Analyst: from a link to the case (login returns there), claim, confirm; the claim is released.
        page.goto(f"{live.base}/console/cases/{chat_case}")
        check("login")
        page.fill("#username", "ana")
        page.fill("#password", "analyst-pass-1")
        page.click("button[type=submit]")
        expect(page).to_have_url(f"{live.base}/console/cases/{chat_case}")
        check("case")
        page.click("#claim")
        expect(page.locator(".flash")).to_have_text("Claimed.")
        page.fill("#decision-reason", "insult at table t-3")
        page.select_option("#decision-kind", "confirm")
        page.click("#decide")
        expect(page.locator(".flash")).to_have_text("Decision recorded.")
        expect(page.locator("#claim")).to_be_visible()  # back in the pool for the next role
        page.goto(f"{live.base}/console/")
        check("queue")
        _logout(page)

        # Moderator: enforces the confirmed chat case, then confirms and applies the collusion case.
        _login(page, live.base, "mona", "moderator-pass-1")
        page.goto(f"{live.base}/console/cases/{chat_case}")
        page.click("#claim")
        page.click("#apply-proposals")
        expect(page.locator(".flash")).to_have_text("Sanction applied.")
        expect(page.locator("#events .published")).to_have_count(1, timeout=15_000)
        expect(page.locator("td.status-in_force")).to_have_count(1)
        page.goto(f"{live.base}/console/cases/{hand_case}")
        check("hand case")
        expect(page.locator(".role-partner")).to_have_count(1)
        page.click("#claim")
        page.fill("#decision-reason", "agreed to hunt a bounty together")
        page.check("#decision-apply")
        page.click("#decide")
        expect(page.locator("td.status-pending_review")).to_have_count(2)
        _logout(page)

        # Senior: approves both held disqualifications (four eyes), the relay publishes them.
        _login(page, live.base, "sam", "senior-pass-1")
        page.goto(f"{live.base}/console/appeals")
        check("second review")
        expect(page.locator("text=tournament_disqualification")).to_have_count(2)
        page.goto(f"{live.base}/console/cases/{hand_case}")
        for _ in range(2):
            form = page.locator("form[action$='/second-review']").first
            form.locator("select[name=approve]").select_option("yes")
            form.locator("input[name=reason]").fill("the chat and the play agree")
            form.locator("button").click()
            expect(page.locator(".flash")).to_have_text("Second review recorded.")
        expect(page.locator("#events .published")).to_have_count(2, timeout=15_000)
        _logout(page)

        # Admin: the audit page shows who decided what.
        _login(page, live.base, "ada", "admin-pass-1")
        page.goto(f"{live.base}/console/audit?action=decision.")
        check("audit")
        expect(page.locator("#audit tbody tr")).to_have_count(2)
        browser.close()

        active = httpx.get(f"{live.base}/v1/players/p-alice/sanctions/active",
                           headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).json()["sanctions"]
        assert [s["kind"] for s in active] == ["chat_restriction"]  # in force although the offence was in March
    assert errors == []
    assert {name: v for name, v in violations.items() if v} == {}
    events = read_events(live.bootstrap, live.topic, count=3)
    assert sorted((key, e["type"]) for key, e in events) == [
        (b"p-alice", "railbird.enforcement.chat_restriction"),
        (b"p-dave", "railbird.enforcement.tournament_disqualification"),
        (b"p-erin", "railbird.enforcement.tournament_disqualification")]
    alice = next(e for key, e in events if key == b"p-alice")["data"]
    starts = datetime.fromisoformat(alice["starts_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(alice["expires_at"].replace("Z", "+00:00"))
    assert abs(starts - datetime.now(UTC)) < timedelta(minutes=5) and expires - starts == timedelta(hours=24)


def test_the_accessibility_check_does_find_serious_violations():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        page = browser.new_page()
        page.set_content('<html lang="en"><head><title>t</title></head><body><main><img src="x.png">'
                         '<form><input name="q"></form></main></body></html>')
        found = serious_violations(page)
        browser.close()
    assert any(v.startswith("image-alt") for v in found) and any(v.startswith("label") for v in found)


HAND = {"event_id": "h-ev-1", "ts": T0.isoformat(), "hand_id": "hand-1", "table_id": "t-7", "game": "cash",
        "variant": "NT", "antes": [0, 0], "blinds_or_straddles": [50, 100], "min_bet": 100,
        "starting_stacks": [5000, 5000], "players": ["p-dave", "p-erin"], "seats": [1, 2],
        "actions": ["d dh p1 AsKs", "d dh p2 ????", "p1 cbr 300", "p2 cc", "d db 7h8s9c", "p2 cc", "p1 cc",
                    "d db 2d", "p2 cc", "p1 cc", "d db Jc", "p2 cc", "p1 cc", "p1 sm AsKs"],
        "finishing_stacks": [5300, 4700], "winnings": [600, 0]}


def test_the_hand_replayer_steps_through_the_streets(tmp_path, kafka_broker):
    from playwright.sync_api import expect, sync_playwright

    soft = Finding(finding_id=stable_id("fnd", "shift-soft"), detector="hand.soft_play", rule="collusion",
                   family="hand", category="soft_play", score=0.9, players=("p-dave", "p-erin"), ts=T0,
                   table_id="t-7", summary="p-dave and p-erin checked down 12 pots", evidence={"hands": [HAND]})
    soft = soft.with_actions(propose_actions(soft, rules=RulesConfig()))
    with live_console(tmp_path, kafka_broker.bootstrap, people=PEOPLE, findings=[soft]) as live, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        page = browser.new_context(bypass_csp=True).new_page()
        _login(page, live.base, "ana", "analyst-pass-1")
        page.goto(f"{live.base}/console/cases/{live.case_ids[0]}")
        streets = page.locator("[data-replayer] [data-step]")
        expect(streets).to_have_count(4)
        expect(page.locator("[data-replayer] [data-step]:visible")).to_have_count(1)
        expect(streets.first).to_contain_text("pot 600")
        page.click("text=next street ▶")
        expect(page.locator("[data-replayer] [data-step]:visible")).to_have_count(2)
        expect(streets.nth(1)).to_contain_text("[7h 8s 9c]")
        page.click("text=show all")
        expect(page.locator("[data-replayer] [data-step]:visible")).to_have_count(4)
        assert serious_violations(page) == []
        browser.close()


FRAGMENTS = {"/console/queue-counts"}
"""GET routes that answer a piece of a page (loaded into the queue), checked inside that page."""


def test_every_console_page_passes_the_accessibility_check(tmp_path, kafka_broker):
    from playwright.sync_api import sync_playwright

    from api.console.guard import CONSOLE_PERMISSIONS

    findings = [_restriction(1), _bounty_agreement()]
    with live_console(tmp_path, kafka_broker.bootstrap, people=PEOPLE, findings=findings) as live, sync_playwright() as pw:
        fill = {"{case_id}": live.case_ids[0], "{player_id}": "p-alice"}
        pages = sorted(path for (method, path), _ in CONSOLE_PERMISSIONS.items()
                       if method == "GET" and path not in FRAGMENTS)
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        page = browser.new_context(bypass_csp=True).new_page()
        found: dict[str, list[str]] = {}
        for who, password in (("sam", "senior-pass-1"), ("ada", "admin-pass-1")):
            _login(page, live.base, who, password)
            for template in pages:
                path = template
                for key, value in fill.items():
                    path = path.replace(key, value)
                response = page.goto(f"{live.base}{path}")
                if response is not None and response.status == 200:
                    found[f"{who} {path}"] = serious_violations(page)
            _logout(page)
        browser.close()
    assert len(found) >= len(pages)  # each page seen by at least one of the two roles
    bad = {page: v for page, v in found.items() if v}
    assert not bad, "\n".join(f"{p}: {v}" for p, v in bad.items())
