"""Bounded case pages: a decided case stops growing, repeats collapse, headlines and numbers read well."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, login_console

from api.console.render import collapse_findings, human
from consumers.archive import ArchivedRecord, SegmentWriter
from tests.samples import hand_value

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _ingest(client, *findings) -> list[str]:
    r = client.post("/v1/findings/batch", json=batch(*findings), headers=SVC)
    assert r.status_code == 200, r.text
    return r.json()["case_ids"]


def test_findings_after_confirm_open_a_linked_follow_up_case(client, users, clock):
    [case_id] = _ingest(client, chat_finding(1), chat_finding(2))
    ann = users.headers("analyst", "ann")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "confirm", "reason": "clear"}, headers=ann)
    clock.advance(minutes=5)
    [later] = _ingest(client, chat_finding(3), chat_finding(4))
    assert later != case_id
    decided = client.get(f"/v1/cases/{case_id}", headers=ann).json()
    assert decided["case"]["finding_count"] == 2 and len(decided["findings"]) == 2
    assert client.get(f"/v1/cases/{later}", headers=ann).json()["case"]["finding_count"] == 2
    login_console(client, users, "analyst", "ann2")
    html = client.get(f"/console/cases/{case_id}").text
    assert f'href="/console/cases/{later}"' in html and "follow-up case" in html
    # the pending proposals of the decided case are still the moderator's to apply
    mod = users.headers("moderator", "mo")
    client.post(f"/v1/cases/{case_id}/claim", headers=mod)
    assert client.post(f"/v1/cases/{case_id}/sanctions", json={}, headers=mod).status_code == 200


def test_open_and_held_cases_still_absorb_findings(client, users):
    [case_id] = _ingest(client, chat_finding(1))
    ann = users.headers("analyst", "ann")
    client.post(f"/v1/cases/{case_id}/claim", headers=ann)
    client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "hold", "reason": "wait for more"}, headers=ann)
    assert _ingest(client, chat_finding(2)) == [case_id]


def test_headline_follows_the_newest_finding(client, users):
    [case_id] = _ingest(client, chat_finding(1, text="first line"))
    _ingest(client, chat_finding(2, text="second line"))
    case = client.get(f"/v1/cases/{case_id}", headers=users.headers("analyst")).json()["case"]
    assert case["summary"] == "insult: second line"


def test_repeated_findings_collapse_on_the_page(client, users):
    findings = [chat_finding(n, text="same insult") for n in range(30)] + [chat_finding(99, text="another")]
    [case_id] = _ingest(client, *findings)
    login_console(client, users, "analyst", "ann")
    html = client.get(f"/console/cases/{case_id}").text
    assert "Findings (31 in 2 kinds)" in html and "30× since" in html
    assert html.index('id="claim"') < html.index("<h2>Findings")  # the actions come before the evidence


def test_collapse_groups_by_detector_and_summary_newest_first():
    class F:
        def __init__(self, detector: str, summary: str, score: float, minute: int) -> None:
            self.detector, self.summary, self.score = detector, summary, score
            self.ts = datetime(2026, 3, 1) + timedelta(minutes=minute)

    groups = collapse_findings([F("a", "x", 0.5, 1), F("a", "x", 0.9, 3), F("b", "x", 0.7, 2)])
    assert [(g.detector, g.count, g.max_score) for g in groups] == [("a", 2, 0.9), ("b", 1, 0.7)]
    assert groups[0].first == datetime(2026, 3, 1, 0, 1) and groups[0].last == datetime(2026, 3, 1, 0, 3)


def test_numbers_read_as_an_analyst_reads_them():
    assert human(1.8320176834363596e-05) == "1.8 × 10^-5"
    assert human(1086.0) == "1,086" and human(1086) == "1,086"
    assert human(0.123456) == "0.123" and human(12345.67) == "12,346"
    assert human("12:00:00") == "12 h" and human("0:30:05") == "30 min 5 s"
    assert human(None) == "—" and human(True) == "yes" and human("plain") == "plain"


def test_every_statistic_field_is_shown_readably():
    from api.console.render import statistic_items

    items = dict(statistic_items({"finding_id": "f", "name": "cooperative_bounty_spots", "level": "chat",
                                  "spots": 12, "p_value": 1.83e-05, "all_in_calls": {"called": 4, "expected": 1.5},
                                  "hands": ["h1", "h2"]}))
    assert items == {"level": "chat", "spots": "12", "p value": "1.8 × 10^-5", "all in calls · called": "4",
                     "all in calls · expected": "1.5", "hands": "h1, h2"}


def test_snapcam_clips_play_through_the_configured_template(engine, settings, clock, users):
    from fastapi.testclient import TestClient

    from api.app import create_app
    from api.db import make_sessions
    from api.deps import ApiConfig
    from pipeline.findings import Finding, stable_id

    config = ApiConfig(service_token=SERVICE_TOKEN, env="test", clock=clock,
                       clip_url_template="https://clips.example.net/v1/{clip_ref}.mp4")
    app = create_app(settings=settings, config=config, engine=engine, sessions=make_sessions(engine),
                     run_migrations=False)
    report = Finding(finding_id=stable_id("fnd", "cam"), detector="snapcam.triage", rule="snapcam", family="snapcam",
                     category="snapcam_abuse", score=0.8, players=("p-cam",), ts=clock.now, summary="3 reports",
                     evidence={"reports": [{"reporter_id": "p-r", "reported_id": "p-cam", "reason": "offensive",
                                            "comment": "rude", "clip_ref": "clip/42 a"}]})
    with TestClient(app) as client:
        case_id = client.post("/v1/findings/batch", json=batch(report), headers=SVC).json()["case_ids"][0]
        login_console(client, users, "analyst", "ann")
        r = client.get(f"/console/cases/{case_id}")
        assert 'src="https://clips.example.net/v1/clip%2F42%20a.mp4"' in r.text and "<video" in r.text
        assert "media-src 'self' https://clips.example.net" in r.headers["content-security-policy"]


def test_without_a_template_the_clip_is_a_bare_reference(client, users, clock):
    from pipeline.findings import Finding, stable_id

    report = Finding(finding_id=stable_id("fnd", "cam2"), detector="snapcam.triage", rule="snapcam", family="snapcam",
                     category="snapcam_abuse", score=0.8, players=("p-cam",), ts=clock.now, summary="1 report",
                     evidence={"reports": [{"reporter_id": "p-r", "reported_id": "p-cam", "reason": "offensive",
                                            "comment": "rude", "clip_ref": "clip-7"}]})
    case_id = _ingest(client, report)[0]
    login_console(client, users, "analyst", "ann")
    r = client.get(f"/console/cases/{case_id}")
    assert "clip clip-7" in r.text and "<video" not in r.text
    assert "media-src" not in r.headers["content-security-policy"]


def test_hand_in_play_chat_names_its_hand_and_links_to_it(client, users):
    f = chat_finding(7, category="hand_in_play", text="fold he has aces")
    msg = {**f.evidence["messages"][0], "hand_id": "hand-77", "players_in_hand": ["p-bob", "p-carl"]}
    f = f.model_copy(update={"evidence": {"messages": [msg]}})
    [case_id] = _ingest(client, f)
    login_console(client, users, "analyst", "ann")
    html = client.get(f"/console/cases/{case_id}").text
    assert "during hand" in html and "?q=hand-77" in html and "between p-bob, p-carl" in html
    assert "speaker not in it" in html
    assert "Hand hand-77" not in html  # no archive yet: the hand is named, not shown


def test_hand_in_play_chat_shows_its_hand_from_the_event_archive(client, users):
    """The finding is judged while the hand runs; its record, archived when the hand ended, is
    shown in the replayer beside the line (api/evidence/hand_lookup.py)."""
    f = chat_finding(8, category="hand_in_play", text="fold he has aces")
    sent = datetime.fromisoformat(f.evidence["messages"][0]["ts"].replace("Z", "+00:00"))
    msg = {**f.evidence["messages"][0], "hand_id": "hand-88", "players_in_hand": ["p-bob", "p-carl"]}
    f = f.model_copy(update={"evidence": {"messages": [msg]}})
    [case_id] = _ingest(client, f)
    root = client.app.state.retro_archive_root
    hand = hand_value(hand_id="hand-88", players=["p-bob", "p-carl"], ts=(sent + timedelta(minutes=2)).isoformat())
    other = hand_value(hand_id="hand-89", ts=(sent + timedelta(minutes=3)).isoformat())
    at_ms = int((sent + timedelta(minutes=2)).timestamp() * 1000)
    writer = SegmentWriter(root, name="test")
    writer.append([ArchivedRecord("hand.records", 0, n, at_ms + n, json.dumps(v).encode())
                   for n, v in enumerate([other, hand])])
    writer.sync()
    writer.close()
    login_console(client, users, "analyst", "ann")
    html = client.get(f"/console/cases/{case_id}").text
    assert "Hand hand-88" in html and "data-replayer" in html
    assert "Hand hand-89" not in html  # another hand of the same hour is not this line's


def test_the_decision_form_offers_reason_templates(client, users):
    [case_id] = _ingest(client, chat_finding(8))
    csrf = login_console(client, users, "analyst", "ann")
    client.post(f"/console/cases/{case_id}/claim", data={"csrf": csrf})
    html = client.get(f"/console/cases/{case_id}").text
    assert 'list="reason-templates"' in html and "Dismissed: false positive (poker jargon" in html


def test_dashboard_bars_show_whole_counts_without_a_decimal():
    from api.console.render import bar_chart

    rows, _ = bar_chart([("chat.banned_words", 11.0), ("confirm", 66.7)])
    assert [shown for _, shown, _ in rows] == ["11", "66.7"]
    assert rows[0][2].title == "chat.banned_words: 11"
