"""Authorisation matrix: every endpoint x every role, plus no, expired and revoked tokens."""

from __future__ import annotations

from datetime import timedelta

import pytest
from api_support import SERVICE_TOKEN

from api.app import create_app
from api.auth import service as auth
from api.auth.roles import ENDPOINT_PERMISSIONS, GRANTS, ROLES
from api.db import make_sessions

DUMMY = {"finding_id": "f-x", "case_id": "c-x", "sanction_id": "s-x", "player_id": "p-x", "appeal_id": "a-x",
         "user_id": "u-x", "token_id": "t-x", "view_id": "v-x"}
CALLERS = [*ROLES, "none", "expired", "revoked"]


def _path(template: str) -> str:
    out = template
    for key, value in DUMMY.items():
        out = out.replace("{" + key + "}", value)
    return out


def test_every_route_has_an_explicit_permission(settings, app_config, engine):
    app = create_app(settings=settings, config=app_config, engine=engine, run_migrations=False)
    schema = app.openapi()
    listed = {(m.upper(), p) for p, ops in schema["paths"].items() for m in ops}
    assert listed == set(ENDPOINT_PERMISSIONS), "routes and the permission table disagree"


@pytest.fixture
def tokens(users, engine, clock) -> dict[str, dict[str, str]]:
    out = {role: users.headers(role) for role in ROLES}
    out["none"] = {}
    expired = users.token("analyst", "exp_user", ttl=timedelta(seconds=1))
    revoked = users.token("senior", "rev_user")
    with make_sessions(engine)() as s:
        token = s.scalars(auth.select(auth.ApiToken).where(auth.ApiToken.token_hash == auth.token_hash(revoked))).one()
        auth.revoke_token(s, token_id=token.id, actor="test", now=clock())
    clock.advance(seconds=5)
    out["expired"] = {"Authorization": f"Bearer {expired}"}
    out["revoked"] = {"Authorization": f"Bearer {revoked}"}
    return out


def test_authorisation_matrix(client, tokens):
    # Logout revokes the caller's token, so it goes last.
    for method, template in sorted(ENDPOINT_PERMISSIONS, key=lambda k: (k[1] == "/v1/auth/logout", k)):
        _check_endpoint(client, tokens, method, template)


def _check_endpoint(client, tokens, method, template):
    permission = ENDPOINT_PERMISSIONS[(method, template)]
    for caller in CALLERS:
        r = client.request(method, _path(template), headers=tokens[caller], json={})
        if permission == "public":
            assert r.status_code not in (401, 403) or template == "/v1/auth/login", (caller, r.status_code)
        elif caller in ("none", "expired", "revoked"):
            assert r.status_code == 401, (caller, method, template, r.status_code, r.text)
            assert r.json()["detail"] in ("missing bearer token", "token expired", "token revoked")
        elif caller in GRANTS[permission]:
            assert r.status_code not in (401, 403), (caller, method, template, r.status_code, r.text)
        else:
            assert r.status_code == 403, (caller, method, template, r.status_code, r.text)
    assert r.status_code < 500


def test_unlisted_route_is_denied(client, tokens):
    r = client.get("/v1/nothing-here", headers=tokens["admin"])
    assert r.status_code in (403, 404)


def test_login_logout_and_dev_service_token_in_production(client, users, settings):
    users.token("moderator", "maria", password="correct horse battery")
    bad = client.post("/v1/auth/login", json={"username": "maria", "password": "wrong"})
    assert bad.status_code == 401
    ok = client.post("/v1/auth/login", json={"username": "maria", "password": "correct horse battery"})
    assert ok.status_code == 200 and ok.json()["role"] == "moderator"
    h = {"Authorization": f"Bearer {ok.json()['token']}"}
    assert client.get("/v1/auth/me", headers=h).json()["username"] == "maria"
    assert client.post("/v1/auth/logout", headers=h).status_code == 204
    assert client.get("/v1/auth/me", headers=h).status_code == 401
    prod = settings.model_copy(update={"env": "production"})
    with pytest.raises(RuntimeError, match="dev default"):
        create_app(settings=prod.model_copy(update={"service_token": "dev-service-token-change-me"}))
    assert SERVICE_TOKEN != "dev-service-token-change-me"


def test_admin_manages_users_and_tokens(client, users):
    adm = users.headers("admin")
    r = client.post("/v1/users", json={"username": "gs-eu1", "role": "service"}, headers=adm)
    assert r.status_code == 201
    tok = client.post("/v1/tokens", json={"username": "gs-eu1", "label": "game server"}, headers=adm).json()
    gs = {"Authorization": f"Bearer {tok['token']}"}
    assert client.get("/v1/players/p-1/sanctions/active", headers=gs).status_code == 200
    assert client.get("/v1/cases", headers=gs).status_code == 403
    client.post(f"/v1/tokens/{tok['id']}/revoke", headers=adm)
    assert client.get("/v1/players/p-1/sanctions/active", headers=gs).status_code == 401
    uid = r.json()["id"]
    assert client.patch(f"/v1/users/{uid}", json={"role": "wizard"}, headers=adm).status_code == 422
    assert client.patch(f"/v1/users/{uid}", json={"role": "analyst"}, headers=adm).json()["role"] == "analyst"
    actions = [e["action"] for e in client.get("/v1/audit", headers=adm).json()]
    assert {"user.create", "token.issue", "token.revoke", "user.role_change"} <= set(actions)
