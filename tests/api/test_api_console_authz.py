"""Console authorisation matrix: every console page and form x every human role and anonymous,
against the console's permission table (the same grants as the API's)."""

from __future__ import annotations

import pytest
from api_support import login_console as _login
from fastapi.routing import APIRoute

from api.auth.roles import GRANTS, HUMAN_ROLES
from api.console import views as console
from api.console.guard import CONSOLE_PERMISSIONS

DUMMY = {"case_id": "cas-x", "sanction_id": "snc-x", "appeal_id": "apl-x"}


def _path(template: str) -> str:
    for key, value in DUMMY.items():
        template = template.replace("{" + key + "}", value)
    return template


def test_every_console_route_has_an_explicit_permission():
    routes = {(m, r.path) for r in console.router().routes if isinstance(r, APIRoute) for m in r.methods}
    assert routes == set(CONSOLE_PERMISSIONS)


@pytest.mark.parametrize("role", [*HUMAN_ROLES, "anonymous"])
def test_console_matrix(client, users, role):
    csrf = "" if role == "anonymous" else _login(client, users, role=role, name=f"{role}_matrix")
    for (method, template), permission in sorted(CONSOLE_PERMISSIONS.items(), key=lambda kv: kv[0][1] == "/console/logout"):
        data = {"csrf": csrf} if method == "POST" else None
        r = client.request(method, _path(template), data=data, follow_redirects=False)
        where = (role, method, template, r.status_code)
        assert r.status_code < 500, where
        if permission == "public" or template.endswith("/login"):
            assert r.status_code != 403 or template == "/console/login", where
        elif role == "anonymous":
            assert r.status_code == 303 and r.headers["location"].split("?next=")[0] == "/console/login", where
        elif role in GRANTS[permission]:
            assert r.status_code != 403, where
        else:
            assert r.status_code == 403, where
