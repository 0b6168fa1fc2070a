"""Console player page: timeline, linked players (named together with pair statistics, shared
tables, shared reporters) as an SVG graph, nickname history; player ids link here."""

from __future__ import annotations

import re
from datetime import timedelta

from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN, login_console

from pipeline.findings import Finding

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _soft_play() -> Finding:
    return Finding(finding_id="fnd-soft-1", detector="hand.soft_play", rule="collusion", family="hand",
                   category="soft_play", score=0.9, players=("p-alice", "p-carol"), ts=T0 + timedelta(minutes=3),
                   table_id="t-9", summary="p-alice soft-played p-carol",
                   evidence={"statistic": {"name": "bet_rate_vs_partner", "value": 0.0412, "expected": 0.38},
                             "hand_ids": [f"h{i}" for i in range(40)]})


def _snapcam() -> list[Finding]:
    out = []
    for n, target in enumerate(("p-alice", "p-dan")):
        out.append(Finding(
            finding_id=f"fnd-snap-{n}", detector="snapcam.reports", rule="snapcam", family="snapcam",
            category="snapcam_abuse", score=0.8, players=(target,), ts=T0 + timedelta(minutes=5 + n),
            summary="reported", evidence={"reports": [{"report_id": f"r{n}", "reporter_id": "p-rita",
                                                       "reported_id": target, "reason": "obscene",
                                                       "comment": "gross"}]}))
    return out


def _seed(client) -> None:
    alice = chat_finding(1, player="p-alice", table="t-1")
    renamed = chat_finding(2, player="p-alice", table="t-1", text="you are an idiot too")
    renamed = renamed.model_copy(update={"evidence": {"messages": [
        {**renamed.evidence["messages"][0], "nickname": "AliceTheGreat"}]}})
    bob = chat_finding(3, player="p-bob", table="t-1", category="spam", text="cheap chips")
    findings = [alice, renamed, bob, _soft_play(), *_snapcam()]
    assert client.post("/v1/findings/batch", json=batch(*findings), headers=SVC).status_code == 200


def test_player_page_shows_timeline_links_and_nicknames(client, users):
    _seed(client)
    login_console(client, users)
    r = client.get("/console/players/p-alice")
    assert r.status_code == 200, r.text
    page = r.text
    timeline = page[page.index('id="timeline"'):]
    assert timeline.count('<span class="tl-kind">case</span>') == 3  # chat, hand, snapcam
    assert timeline.count('<span class="tl-kind">finding</span>') == 4
    links = page[page.index('id="links"'):page.index('id="nicknames"')]
    assert "<svg" in links and links.count("<circle") >= 4
    rows = dict(re.findall(r'<a class="player" href="/console/players/([^"]+)">[^<]+</a></td><td>([^<]+)</td>', links))
    assert rows["p-carol"].startswith("named together")
    assert "shared table" in rows["p-bob"]
    assert "reported them" in rows["p-rita"] and "shared reporter" in rows["p-dan"]
    assert "bet_rate_vs_partner 0.0412 (expected 0.38) over 40 hands" in links
    nicknames = page[page.index('id="nicknames"'):page.index('id="timeline"')]
    assert "AliceTheGreat" in nicknames and "Alice" in nicknames


def test_player_ids_link_to_the_player_page(client, users):
    _seed(client)
    login_console(client, users)
    queue = client.get("/console/?family=chat").text
    assert '<a class="player" href="/console/players/p-alice">p-alice</a>' in queue
    case_id = re.search(r'data-href="/console/cases/([^"]+)"', queue).group(1)
    case = client.get(f"/console/cases/{case_id}").text
    assert 'href="/console/players/p-alice"' in case


def test_player_ids_are_escaped_and_bounded(client, users):
    login_console(client, users)
    odd = client.get("/console/players/%3Cimg%20src=x%20onerror=alert(1)%3E")
    assert odd.status_code == 200 and "<img src=x" not in odd.text and "Nothing recorded" in odd.text
    assert client.get("/console/players/" + "x" * 300).status_code == 422


def test_admin_sees_no_nicknames(client, users):
    _seed(client)
    login_console(client, users, role="admin", name="ada_player")
    page = client.get("/console/players/p-alice").text
    assert "AliceTheGreat" not in page and "[redacted]" in page
