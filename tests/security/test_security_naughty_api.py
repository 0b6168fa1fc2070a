"""Every naughty string through API fields (login, finding text and summary, decision reason,
query parameters and ids): a 2xx, or a 4xx with a reason; never a 5xx. Unstorable text (NUL,
unpaired surrogates) is refused with 422 and says where."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Engine

from tests.api.api_factories import batch, chat_finding
from tests.hostile.naughty import NAUGHTY, storable
from tests.security.conftest import SERVICE_TOKEN, make_client

SERVICE = {"Authorization": f"Bearer {SERVICE_TOKEN}", "Content-Type": "application/json"}


def _segment(text: str) -> str:
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _json(value: object) -> bytes:
    return json.dumps(value).encode()  # ASCII escapes: lone surrogates travel as \\udxxx


def _body(text: str, i: int) -> bytes:
    # json.dumps escapes lone surrogates as \\udxxx, exactly what a hostile client can send.
    doc = batch(chat_finding(i, player=f"p-n{i}", text=text))
    doc["findings"][0]["summary"] = text or "-"
    return json.dumps(doc).encode()


def test_naughty_strings_through_api_fields(engine: Engine, tmp_path: Path, login_as) -> None:
    with make_client(engine, tmp_path, rate_limit_write_per_min=100_000, rate_limit_login_per_min=100_000) as client:
        analyst, moderator = login_as("ana", "analyst"), login_as("mod", "moderator")
        refused = 0
        for i, text in enumerate(NAUGHTY):
            r = client.post("/v1/findings/batch", content=_body(text, i), headers=SERVICE)
            if storable(text):
                assert r.status_code == 200, (repr(text[:30]), r.text[:200])
            else:
                assert r.status_code == 422 and r.json()["detail"], repr(text[:30])
                refused += 1
            for status in (
                client.post("/v1/auth/login", content=_json({"username": text, "password": text}),
                            headers={"Content-Type": "application/json"}).status_code,
                client.get(f"/v1/findings?player_id={_segment(text)}&detector={_segment(text)}",
                           headers=analyst).status_code,
                client.get(f"/v1/cases?subject_id={_segment(text)}&cursor={_segment(text)}",
                           headers=analyst).status_code,
                client.get(f"/v1/players/{_segment(text)}", headers=analyst).status_code,
            ):
                assert status < 500, (repr(text[:30]), status)
        assert refused >= 5, "NUL and lone surrogates are among the strings"
        case = client.get("/v1/cases", headers=analyst).json()["items"][0]["id"]
        assert client.post(f"/v1/cases/{case}/claim", headers=moderator).status_code == 200
        for text in NAUGHTY[:60]:
            r = client.post(f"/v1/cases/{case}/decisions", content=_json({"kind": "hold", "reason": text}),
                            headers={**moderator, "Content-Type": "application/json"})
            assert r.status_code < 500, (repr(text[:30]), r.status_code)
        stored = client.get("/v1/findings", params={"limit": 200}, headers=analyst).json()
        texts = {f["document"]["evidence"]["messages"][0]["text"] for f in stored}
        assert {t for t in NAUGHTY if storable(t)} >= texts and len(texts) > 150, "stored literally"
