"""Audit sampling of unflagged chat through the API: set in the admin policy, an audit finding opens
a case of its own with no proposal, and its verdict labels the line (confirm: the category the
analyst gives, starting from the model's guess; dismiss: clean)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN

from api.policy.rules import effective_rules, from_document
from pipeline.contracts import ChatMessage
from pipeline.detectors.chat.audit_sample import AuditRates, AuditSampleDetector
from pipeline.findings import Finding
from pipeline.text_model import TextVerdict

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


class _Scores:
    """A model that flags nothing and scores every line threat 0.4."""

    def classify(self, texts):
        return [TextVerdict(scores={"threat": 0.4, "insult": 0.1}, language="en") for _ in texts]


def _audit(n: int, text: str, *, player: str = "p-alice") -> Finding:
    message = ChatMessage.model_validate({
        "event_id": f"audit-{n}", "ts": T0 + timedelta(seconds=n), "channel": "table",
        "player_id": player, "nickname": "Alice", "text": text, "client": "desktop", "table_id": "t-1"})
    [found] = AuditSampleDetector(_Scores(), AuditRates(rate=1.0)).process(message)
    return found


def _decide(client, case_id: str, headers, kind: str) -> None:
    assert client.post(f"/v1/cases/{case_id}/claim", headers=headers).status_code == 200
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": kind, "reason": kind}, headers=headers)
    assert r.status_code == 200, r.text


def test_an_audit_sample_is_its_own_case_even_beside_an_offence_at_the_same_table(client, users):
    r = client.post("/v1/findings/batch", json=batch(chat_finding(1), _audit(2, "we meet at the car park")), headers=SVC)
    assert r.status_code == 200, r.text
    cases = set(r.json()["case_ids"])
    assert len(cases) == 2
    audit_case = next(c for c in cases if client.get(f"/v1/cases/{c}", headers=users.headers("analyst", "ann"))
                      .json()["case"]["category"] == "audit_sample")
    body = client.get(f"/v1/cases/{audit_case}", headers=users.headers("analyst", "ann")).json()
    assert all(not f.get("actions") for f in body["findings"])


def test_confirming_labels_the_models_guess_and_the_analyst_corrects_it(client, users):
    ann = users.headers("analyst", "ann")
    [case_id] = client.post("/v1/findings/batch", json=batch(_audit(3, "wait outside, you'll see")),
                            headers=SVC).json()["case_ids"]
    _decide(client, case_id, ann, "confirm")
    [row] = client.get("/v1/labels", params={"case_id": case_id}, headers=ann).json()
    assert (row["category"], row["finding_category"], row["detector"]) == ("threat", "audit_sample", "chat.audit_sample")
    fixed = client.post(f"/v1/labels/{row['finding_id']}/correction", json={"category": "criminal"}, headers=ann)
    assert fixed.status_code == 200, fixed.text
    refused = client.post(f"/v1/labels/{row['finding_id']}/correction", json={"category": "audit_sample"}, headers=ann)
    assert refused.status_code == 422 and "unknown category 'audit_sample'" in refused.text


def test_dismissing_labels_the_line_clean(client, users):
    ann = users.headers("analyst", "ann")
    [case_id] = client.post("/v1/findings/batch", json=batch(_audit(4, "gl all")), headers=SVC).json()["case_ids"]
    _decide(client, case_id, ann, "dismiss")
    [row] = client.get("/v1/labels", params={"case_id": case_id}, headers=ann).json()
    assert row["category"] == "clean"


def test_admin_sets_audit_sampling_and_the_consumers_rules_carry_it(client, users):
    adm = users.headers("admin")
    assert client.get("/v1/policy", headers=SVC).json()["audit"] == {"rate": 0.0, "near_rate": 0.0, "near_score": 0.25}
    r = client.patch("/v1/admin/policy", headers=adm, json={
        "audit": {"rate": 0.01, "near_rate": 0.2, "near_score": 0.3}, "reason": "learn what we miss"})
    assert r.status_code == 200, r.text
    rules = effective_rules(from_document(client.get("/v1/policy", headers=SVC).json()))
    assert (rules.chat_audit_rate, rules.chat_audit_near_rate, rules.chat_audit_near_score) == (0.01, 0.2, 0.3)
    entry = next(e for e in client.get("/v1/audit", headers=adm).json() if e["action"] == "policy.change")
    assert '"audit":{"near_rate":0.2' in entry["payload"]


@pytest.mark.parametrize("audit", [{"rate": 1.5}, {"near_rate": -0.1}, {"near_score": 0.0}, {"rate": "often"}])
def test_bad_audit_settings_are_refused_with_a_reason_and_change_nothing(client, users, audit):
    adm = users.headers("admin")
    r = client.patch("/v1/admin/policy", headers=adm, json={"audit": audit, "reason": "x"})
    assert r.status_code == 422 and "audit" in r.text
    assert client.get("/v1/policy", headers=SVC).json()["revision"] == 0


def test_every_model_scored_category_takes_a_threshold_and_others_are_refused_by_name(client, users):
    adm = users.headers("admin")
    ok = client.patch("/v1/admin/policy", headers=adm, json={"category_thresholds": {"defamation": 0.7,
                                                                                      "misleading": 0.6}, "reason": "x"})
    assert ok.status_code == 200, ok.text
    bad = client.patch("/v1/admin/policy", headers=adm, json={"category_thresholds": {"flooding": 0.5}, "reason": "x"})
    assert bad.status_code == 422 and "unknown category 'flooding'" in bad.text
