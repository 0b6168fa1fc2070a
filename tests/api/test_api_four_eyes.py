"""Clearing a collusion case takes two reviewers; when two disagree a third decides (majority)."""

from __future__ import annotations

import pytest
from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN

from api.decisions.four_eyes import Vote, outcome

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _case(client, category: str) -> str:
    f = chat_finding(1, category=category)
    r = client.post("/v1/findings/batch", json=batch(f), headers=SVC)
    return r.json()["case_ids"][0]


def _decide(client, case_id: str, headers: dict[str, str], kind: str):
    assert client.post(f"/v1/cases/{case_id}/claim", headers=headers).status_code == 200
    return client.post(f"/v1/cases/{case_id}/decisions", json={"kind": kind, "reason": f"{kind} it"}, headers=headers)


def _status(client, users, case_id: str) -> str:
    return client.get(f"/v1/cases/{case_id}", headers=users.headers("analyst")).json()["case"]["status"]


def test_one_analyst_cannot_clear_a_collusion_case(client, users):
    case_id = _case(client, "collusion_talk")
    assert _decide(client, case_id, users.headers("analyst", "ann"), "dismiss").status_code == 200
    assert _status(client, users, case_id) == "escalated"  # to the seniors, not closed
    assert _decide(client, case_id, users.headers("senior", "sen"), "dismiss").status_code == 200
    assert _status(client, users, case_id) == "dismissed"


def test_the_same_reviewer_twice_is_not_four_eyes(client, users):
    case_id = _case(client, "collusion_talk")
    sen = users.headers("senior", "sen")
    assert _decide(client, case_id, sen, "dismiss").status_code == 200
    again = _decide(client, case_id, sen, "dismiss")
    assert again.status_code == 409 and "second reviewer" in again.json()["detail"]
    assert _status(client, users, case_id) == "escalated"


@pytest.mark.parametrize(("third", "final"), [("confirm", "confirmed"), ("dismiss", "dismissed")])
def test_disagreement_goes_to_a_third_reviewer_whose_majority_stands(client, users, third, final):
    case_id = _case(client, "collusion_talk")
    _decide(client, case_id, users.headers("analyst", "ann"), "dismiss")
    assert _decide(client, case_id, users.headers("senior", "s1"), "confirm").status_code == 200
    assert _status(client, users, case_id) == "escalated"  # one each way: nobody's call yet
    assert _decide(client, case_id, users.headers("senior", "s2"), third).status_code == 200
    assert _status(client, users, case_id) == final


def test_other_categories_are_dismissed_by_one_reviewer(client, users):
    case_id = _case(client, "insult")
    _decide(client, case_id, users.headers("analyst", "ann"), "dismiss")
    assert _status(client, users, case_id) == "dismissed"


def test_confirming_collusion_alone_is_allowed(client, users):
    case_id = _case(client, "collusion_talk")
    _decide(client, case_id, users.headers("analyst", "ann"), "confirm")
    assert _status(client, users, case_id) == "confirmed"


def test_outcome_rules():
    a, b, c = "a", "b", "c"
    assert outcome([Vote(a, "confirm")]) == "confirm"
    assert outcome([Vote(a, "dismiss")]) == "needs_second"
    assert outcome([Vote(a, "dismiss"), Vote(a, "dismiss")]) == "needs_second"
    assert outcome([Vote(a, "dismiss"), Vote(b, "dismiss")]) == "dismiss"
    assert outcome([Vote(a, "dismiss"), Vote(b, "confirm")]) == "needs_third"
    assert outcome([Vote(a, "confirm"), Vote(b, "dismiss")]) == "needs_third"
    assert outcome([Vote(a, "dismiss"), Vote(b, "confirm"), Vote(c, "dismiss")]) == "dismiss"
    assert outcome([Vote(a, "dismiss"), Vote(b, "confirm"), Vote(c, "confirm")]) == "confirm"
    # a reviewer who changes their mind counts once, with the latest verdict
    assert outcome([Vote(a, "dismiss"), Vote(a, "confirm")]) == "confirm"
