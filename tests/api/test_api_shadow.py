"""Shadow mode in the review API: the policy's shadow part (validated, revisioned, audited), shadow
findings stored apart (no case, proposal, sanction or outbox row), the live/shadow comparison and
the console pages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN, login_console
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.cases.models import Case, CaseAction
from api.findings.models import FindingRow
from api.outbox.models import OutboxEvent
from api.policy.rules import from_document, shadow_rules, shadow_thresholds
from api.sanctions.models import Sanction
from api.shadow.models import ShadowFindingRow

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
SHADOW = {"detectors": ["chat.banned_words", "seat.hit_and_run"], "category_thresholds": {"insult": 0.9},
          "rules_version": "uk-2022-09-28"}


def shadowed(n: int, **kw):  # type: ignore[no-untyped-def]
    """The shadow copy's finding: the live one's id, marked shadow."""
    return chat_finding(n, **kw).model_copy(update={"shadow": True})


def enable(client, users, clock, shadow=SHADOW):  # type: ignore[no-untyped-def]
    clock.now = T0 - timedelta(hours=1)  # before the findings' event time: the comparison starts here
    r = client.patch("/v1/admin/policy", headers=users.headers("admin"),
                     json={"shadow": shadow, "reason": "trial the stricter insult threshold"})
    assert r.status_code == 200, r.text
    return r.json()


def count(engine, model) -> int:  # type: ignore[no-untyped-def]
    with Session(engine) as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def test_shadow_part_is_revisioned_audited_and_reaches_the_consumers(client, users, clock):
    body = enable(client, users, clock)
    assert body["revision"] == 1
    assert body["shadow"] == {**SHADOW, "model_version": None, "model_sha256": None, "share": 1.0,
                              "since": body["shadow"]["since"]}
    seen = client.get("/v1/policy", headers=SVC).json()
    policy = from_document(seen)
    assert policy.shadow.detectors == ("chat.banned_words", "seat.hit_and_run")
    assert shadow_rules(policy).version == "uk-2022-09-28" and policy.rules_version == "id-vi-2022-09-28"
    assert shadow_thresholds(policy) == {"insult": 0.9} and dict(policy.category_thresholds) == {}
    # Another change keeps the shadow part; {} switches it off; each is a revision with an audit entry.
    adm = users.headers("admin")
    r = client.patch("/v1/admin/policy", headers=adm, json={"auto_mute_enabled": False, "reason": "x"})
    assert r.json()["revision"] == 2 and r.json()["shadow"]["detectors"] == SHADOW["detectors"]
    assert r.json()["shadow"]["since"] == body["shadow"]["since"]  # the same shadow run goes on
    off = client.patch("/v1/admin/policy", headers=adm, json={"shadow": {}, "reason": "trial over"})
    assert off.json()["revision"] == 3 and off.json()["shadow"]["detectors"] == [] and off.json()["shadow"]["since"] is None
    again = client.patch("/v1/admin/policy", headers=adm, json={"shadow": {}, "reason": "noop"})
    assert again.json()["revision"] == 3
    entries = [e for e in client.get("/v1/audit", headers=adm).json() if e["action"] == "policy.change"]
    assert len(entries) == 3 and any('"seat.hit_and_run"' in e["payload"] for e in entries)
    view = client.get("/v1/admin/policy", headers=adm).json()
    assert "chat.classifier" in view["available_detectors"] and "seat.hit_and_run" in view["available_detectors"]


@pytest.mark.parametrize(("shadow", "reason"), [
    ({"detectors": ["chat.nope"]}, "unknown detector"),
    ({"detectors": ["chat.classifier"], "category_thresholds": {"flooding": 0.5}}, "unknown category"),
    ({"detectors": ["chat.classifier"], "category_thresholds": {"insult": 1.5}}, "within"),
    ({"detectors": ["chat.classifier"], "rules_version": "fr-2030"}, "rules_version"),
    ({"category_thresholds": {"insult": 0.9}}, "name the detectors"),
    ({"detectors": ["chat.classifier", "chat.classifier"]}, "twice"),
    ({"detectors": ["chat.classifier"], "colour": "red"}, ""),
    ({"detectors": "chat.classifier"}, ""),
    ({"detectors": ["chat.classifier"], "share": 0}, "share"),
    ({"detectors": ["chat.classifier"], "share": 1.5}, "share"),
    ({"detectors": ["chat.classifier", "chat.collusion_parties"], "share": 0.2}, "combine several players"),
])
def test_bad_shadow_config_is_refused_with_the_reason(client, users, shadow, reason):
    adm = users.headers("admin")
    r = client.patch("/v1/admin/policy", headers=adm, json={"shadow": shadow, "reason": "x"})
    assert r.status_code == 422, r.text
    assert reason in str(r.json()["detail"])
    assert client.get("/v1/policy", headers=adm).json()["revision"] == 0


def test_only_admin_sets_shadow_mode(client, users):
    for role in ("analyst", "moderator", "senior", "service"):
        r = client.patch("/v1/admin/policy", headers=users.headers(role), json={"shadow": SHADOW, "reason": "x"})
        assert r.status_code == 403


def test_shadow_findings_open_no_case_sanction_or_event(client, users, clock, engine):
    enable(client, users, clock)
    findings = [shadowed(0, automatic=True, kind="chat_mute"), shadowed(1)]
    r = client.post("/v1/findings/batch", headers=SVC, json=batch(*findings))
    assert r.status_code == 200, r.text
    assert r.json() == {"accepted": 2, "duplicates": 0, "case_ids": [], "sanction_ids": [], "shadow": 2}
    assert r.json()["shadow"] == 2
    again = client.post("/v1/findings/batch", headers=SVC, json=batch(*findings)).json()
    assert (again["accepted"], again["duplicates"], again["shadow"]) == (0, 2, 0)
    for model in (Case, CaseAction, Sanction, OutboxEvent, FindingRow):
        assert count(engine, model) == 0, model.__tablename__
    assert count(engine, ShadowFindingRow) == 2
    listed = client.get("/v1/shadow/findings", headers=users.headers("analyst")).json()
    assert [f["finding_id"] for f in listed] == [findings[1].finding_id, findings[0].finding_id]
    assert [f["automatic"] for f in listed] == [0, 1]
    assert listed[1]["document"]["actions"][0]["kind"] == "chat_mute" and listed[1]["document"]["shadow"]
    # A live finding with the same id as a shadow one is still a live finding with its case.
    live = client.post("/v1/findings/batch", headers=SVC, json=batch(chat_finding(1))).json()
    assert live["accepted"] == 1 and live["shadow"] == 0 and len(live["case_ids"]) == 1
    assert count(engine, ShadowFindingRow) == 2 and count(engine, FindingRow) == 1


def test_shadow_findings_filters(client, users, clock):
    enable(client, users, clock)
    client.post("/v1/findings/batch", headers=SVC, json=batch(
        shadowed(0, category="insult"), shadowed(1, category="threat", player="p-bob"), shadowed(5)))
    h = users.headers("senior")
    get = lambda **q: [f["finding_id"] for f in client.get("/v1/shadow/findings", headers=h, params=q).json()]  # noqa: E731
    assert get(category="threat") == [shadowed(1, category="threat", player="p-bob").finding_id]
    assert get(player_id="p-bob") == get(category="threat")
    assert get(start=(T0 + timedelta(seconds=2)).isoformat()) == [shadowed(5).finding_id]
    assert len(get(end=(T0 + timedelta(seconds=2)).isoformat().replace("+00:00", ""))) == 2
    assert get(detector="chat.classifier") == []
    bad = client.get("/v1/shadow/findings", headers=h, params={"start": T0.isoformat(), "end": T0.isoformat()})
    assert bad.status_code == 422 and "after" in bad.text
    assert client.get("/v1/shadow/findings", headers=h, params={"start": "yesterday"}).status_code == 422


def test_comparison_counts_agreeing_extra_and_missing_with_examples(client, users, clock):
    enable(client, users, clock)
    client.post("/v1/findings/batch", headers=SVC, json=batch(*(chat_finding(n) for n in (0, 1, 2))))
    client.post("/v1/findings/batch", headers=SVC, json=batch(*(shadowed(n) for n in (1, 2, 3))))
    body = client.get("/v1/shadow/comparison", headers=users.headers("analyst")).json()
    assert body["shadow_enabled"] and body["start"].startswith("2026-03-01T10:00")
    by = {d["detector"]: d for d in body["detectors"]}
    assert set(by) == {"chat.banned_words", "seat.hit_and_run"}
    words = by["chat.banned_words"]
    assert (words["agreeing"], words["extra"], words["missing"]) == (2, 1, 1)
    assert [e["finding_id"] for e in words["examples"]["extra"]] == [chat_finding(3).finding_id]
    assert [e["finding_id"] for e in words["examples"]["missing"]] == [chat_finding(0).finding_id]
    assert [e["finding_id"] for e in words["examples"]["agreeing"]] == [chat_finding(n).finding_id for n in (2, 1)]
    assert (by["seat.hit_and_run"]["agreeing"], by["seat.hit_and_run"]["missing"]) == (0, 0)
    # An explicit period: only findings from event time T0+2s on.
    later = client.get("/v1/shadow/comparison", headers=users.headers("analyst"),
                       params={"detector": "chat.banned_words", "start": (T0 + timedelta(seconds=2)).isoformat()}).json()
    (only,) = later["detectors"]
    assert (only["agreeing"], only["extra"], only["missing"]) == (1, 1, 0)


def test_comparison_on_a_share_counts_only_the_sampled_players_live_findings(client, users, clock):
    from pipeline.shadow_sample import in_share

    share = 0.5
    players = [f"p-{i}" for i in range(40)]
    inside = [p for p in players if in_share(p, share)][:2]
    outside = [p for p in players if not in_share(p, share)][:2]
    assert len(inside) == len(outside) == 2
    body = enable(client, users, clock, shadow={"detectors": ["chat.banned_words"], "share": share})
    assert body["shadow"]["share"] == share
    live = [chat_finding(n, player=p) for n, p in enumerate(inside + outside)]
    client.post("/v1/findings/batch", headers=SVC, json=batch(*live))
    client.post("/v1/findings/batch", headers=SVC, json=batch(shadowed(0, player=inside[0])))
    (words,) = client.get("/v1/shadow/comparison", headers=users.headers("analyst")).json()["detectors"]
    # The unsampled players' live findings were never shown to the copy: not "missing".
    assert (words["agreeing"], words["extra"], words["missing"]) == (1, 0, 1)
    assert [e["finding_id"] for e in words["examples"]["missing"]] == [live[1].finding_id]
    login_console(client, users, role="analyst", name="an_share")
    assert "on 50 % of the room" in client.get("/console/shadow").text


@pytest.mark.parametrize("role", ["analyst", "moderator", "senior", "admin"])
def test_console_shadow_page_and_dashboard_for_every_reviewing_role(client, users, clock, role):
    enable(client, users, clock)
    client.post("/v1/findings/batch", headers=SVC, json=batch(chat_finding(1)))
    client.post("/v1/findings/batch", headers=SVC, json=batch(shadowed(1), shadowed(2, automatic=True, kind="chat_mute")))
    login_console(client, users, role=role, name=f"{role}_shadow")
    page = client.get("/console/shadow")
    assert page.status_code == 200, page.text
    assert "chat.banned_words, seat.hit_and_run" in page.text and "applied at once: chat_mute" in page.text
    assert "proposed for review: chat_ban" in page.text
    dash = client.get("/console/dashboard")
    assert dash.status_code == 200 and "Live against shadow" in dash.text
    assert "<td>chat.banned_words</td><td>1</td><td>1</td><td>0</td>" in dash.text
    assert 'href="/console/shadow"' in page.text  # the nav link


def test_console_shadow_page_refuses_anonymous(client):
    r = client.get("/console/shadow", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/console/login")
    assert client.get("/console/shadow", headers=SVC, follow_redirects=False).status_code == 303


def test_admin_sets_and_clears_shadow_mode_on_the_policy_page(client, users):
    csrf = login_console(client, users, role="admin", name="adm_shadow")
    page = client.get("/console/admin/policy").text
    assert 'name="shadow_detector_chat.classifier"' in page and 'name="shadow_threshold_insult"' in page
    r = client.post("/console/admin/policy", data={
        "csrf": csrf, "expected_revision": "0", "rules_version": "id-vi-2022-09-28", "auto_mute_enabled": "on",
        "shadow_detector_chat.classifier": "on", "shadow_threshold_insult": "0.9",
        "shadow_rules_version": "uk-2022-09-28", "shadow_share": "0.25", "reason": "trial"}, follow_redirects=True)
    assert "Policy changed" in r.text, r.text
    shadow = client.get("/v1/policy", headers=SVC).json()["shadow"]
    assert (shadow["detectors"], shadow["category_thresholds"], shadow["rules_version"], shadow["share"]) == \
        (["chat.classifier"], {"insult": 0.9}, "uk-2022-09-28", 0.25)
    assert 'name="shadow_share" inputmode="decimal" maxlength="8" value="0.25"' in client.get("/console/admin/policy").text
    assert 'name="shadow_detector_chat.classifier" checked' in client.get("/console/admin/policy").text
    bad = client.post("/console/admin/policy", data={
        "csrf": csrf, "expected_revision": "1", "rules_version": "id-vi-2022-09-28", "auto_mute_enabled": "on",
        "shadow_threshold_insult": "0.9", "reason": "no detector"}, follow_redirects=True)
    assert "name the detectors" in bad.text and client.get("/v1/policy", headers=SVC).json()["revision"] == 1
    off = client.post("/console/admin/policy", data={
        "csrf": csrf, "expected_revision": "1", "rules_version": "id-vi-2022-09-28", "auto_mute_enabled": "on",
        "reason": "trial over"}, follow_redirects=True)
    assert "Policy changed" in off.text
    assert client.get("/v1/policy", headers=SVC).json()["shadow"]["detectors"] == []
