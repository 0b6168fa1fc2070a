"""Bad input never yields a 5xx: wrong types, unknown fields, huge bodies, odd unicode, fuzzing."""

from __future__ import annotations

import json

import pytest
import schemathesis
from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, Users
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings

from api.app import create_app
from api.auth.roles import ENDPOINT_PERMISSIONS, GRANTS
from api.db import make_engine, migrate

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}
ODD = "Ünïcödé \u202eevil\u202c zero\u200bwidth e\u0301 🂡🃏 مرحبا 你好 \U0001f600"


def _claimed_case(client, users) -> tuple[str, dict[str, str]]:
    case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC).json()["case_ids"][0]
    h = users.headers("moderator")
    client.post(f"/v1/cases/{case_id}/claim", headers=h)
    return case_id, h


def test_wrong_types_and_unknown_fields_are_422(client, users):
    case_id, h = _claimed_case(client, users)
    url = f"/v1/cases/{case_id}/decisions"
    for body in ({"kind": "approve", "reason": "x"}, {"kind": "confirm"}, {"kind": "confirm", "reason": 5},
                 {"kind": "confirm", "reason": "x", "extra": 1}, {"kind": "confirm", "reason": "   "},
                 {"kind": "confirm", "reason": "x" * 2001}, [], "confirm"):
        r = client.post(url, json=body, headers=h)
        assert r.status_code == 422, (body, r.status_code)
    r = client.post(url, content=b"{not json", headers={**h, "content-type": "application/json"})
    assert r.status_code == 422
    assert client.get("/v1/cases", params={"limit": 0}, headers=h).status_code == 422
    assert client.get("/v1/cases", params={"status": "bogus"}, headers=h).status_code == 422


def test_odd_unicode_round_trips_and_unstorable_text_is_refused(client, users):
    case_id, h = _claimed_case(client, users)
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "hold", "reason": ODD}, headers=h)
    assert r.status_code == 200 and r.json()["decision"]["reason"] == ODD
    client.post(f"/v1/cases/{case_id}/claim", headers=h)
    raw = json.dumps({"kind": "hold", "reason": "x"}).replace('"x"', '"\\udc80 lone"')
    r = client.post(f"/v1/cases/{case_id}/decisions", content=raw, headers={**h, "content-type": "application/json"})
    assert r.status_code == 422
    r = client.post(f"/v1/cases/{case_id}/decisions", json={"kind": "hold", "reason": "a\x00b"}, headers=h)
    assert r.status_code == 422


def test_huge_body_is_413(client):
    big = b'{"findings": [' + b" " * (3 * 1024 * 1024) + b"]}"
    r = client.post("/v1/findings/batch", content=big, headers={**SVC, "content-type": "application/json"})
    assert r.status_code == 413

    def chunks():
        yield b'{"findings": ['
        for _ in range(40):
            yield b" " * 100_000
        yield b"]}"

    r = client.post("/v1/findings/batch", content=chunks(), headers={**SVC, "content-type": "application/json"})
    assert r.status_code == 413


def test_unknown_ids_are_404_not_500(client, users):
    h = users.headers("senior")
    assert client.get("/v1/cases/nope", headers=h).status_code == 404
    assert client.post("/v1/cases/nope/claim", headers=h).status_code == 404
    assert client.post("/v1/sanctions/nope/revoke", json={"reason": "r"}, headers=h).status_code == 404
    assert client.post("/v1/appeals/nope/resolve", json={"outcome": "upheld", "reason": "r"}, headers=h).status_code == 404
    r = client.post("/v1/cases/nope/reassign", json={"user_id": "ghost", "reason": "r"}, headers=h)
    assert r.status_code == 404
    r = client.post("/v1/cases/nope/take-over", json={"reason": "r"}, headers=h)
    assert r.status_code == 404


@pytest.mark.slow
def test_fuzzing_the_openapi_schema_finds_no_5xx(tmp_path, clock, settings, app_config):
    engine = make_engine(f"sqlite:///{tmp_path / 'fuzz.db'}")
    migrate(engine)
    users = Users(engine, clock)
    by_role = {role: users.headers(role) for role in ("service", "senior", "admin", "moderator")}
    app = create_app(settings=settings, config=app_config, engine=engine, run_migrations=False)
    schema = schemathesis.openapi.from_asgi("/v1/openapi.json", app)
    failures: list[str] = []
    calls = 0
    for result in schema.get_all_operations():
        op = result.ok()
        template = op.path if op.path.startswith("/v1") else f"/v1{op.path}"
        if template == "/v1/auth/logout":
            continue  # would revoke the fuzzing token
        permission = ENDPOINT_PERMISSIONS[(op.method.upper(), template)]
        role = next((r for r in ("senior", "moderator", "admin", "service") if r in GRANTS[permission]), "senior")

        calls += _fuzz(op, by_role[role], failures)
    assert calls > 100
    assert failures == []


def _fuzz(op, headers: dict[str, str], failures: list[str]) -> int:
    calls = 0

    @hsettings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(op.as_strategy())
    def fuzz(case):
        nonlocal calls
        calls += 1
        r = case.call(headers=headers)
        if r.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path} -> {r.status_code}: {r.text[:200]}")

    fuzz()
    return calls
