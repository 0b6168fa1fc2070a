"""Console queue over HTTP: filters, search, counts, SLA colours, sorts, saved views, bulk close."""

from __future__ import annotations

import re

from api_factories import batch, chat_finding
from api_support import SERVICE_TOKEN, login_console
from test_api_queue import bumhunting, hit_and_run

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _seed(client) -> None:
    findings = [chat_finding(1, player="p-alice"), chat_finding(2, player="p-bob", category="spam", text="cheap"),
                *(hit_and_run(i) for i in range(12)), bumhunting(1)]
    assert client.post("/v1/findings/batch", json=batch(*findings), headers=SVC).status_code == 200


def _rows(html: str) -> list[str]:
    return re.findall(r'<a class="player" href="/console/players/([^"]+)">', html)


def test_filters_search_counts_and_player_links(client, users):
    _seed(client)
    login_console(client, users)
    page = client.get("/console/?family=seat&category=bumhunting")
    assert page.status_code == 200 and _rows(page.text) == ["p-bh1"]
    seat = client.get("/console/?family=seat").text
    assert re.search(r'seat <span class="count">13</span>', seat) and re.search(r'chat <span class="count">2</span>', seat)
    assert len(_rows(client.get("/console/?family=seat&automatic=yes").text)) == 12
    assert _rows(client.get("/console/?family=all&status=all&q=p-bob").text) == ["p-bob"]
    assert _rows(client.get("/console/?family=all&status=all&q=t-hr3").text) == ["p-hr3"]
    assert 'class="age sla-ok"' in seat


def test_sla_colours_follow_the_clock(client, users, clock):
    _seed(client)
    login_console(client, users)
    clock.advance(hours=3)
    assert 'class="age sla-due"' in client.get("/console/?family=chat").text
    clock.advance(hours=2)
    chat = client.get("/console/?family=chat").text
    assert 'class="age sla-breached"' in chat and "sla-ok" not in chat


def test_sorted_columns_and_pages(client, users, clock):
    for i in range(3):
        assert client.post("/v1/findings/batch", json=batch(hit_and_run(i)), headers=SVC).status_code == 200
        clock.advance(minutes=5)
    login_console(client, users)
    first = client.get("/console/?family=seat&sort=oldest").text
    assert _rows(first) == ["p-hr0", "p-hr1", "p-hr2"] and 'class="sorted">Age ↑' in first
    assert _rows(client.get("/console/?family=seat&sort=newest").text) == ["p-hr2", "p-hr1", "p-hr0"]


def test_bad_filters_are_a_clear_422_page(client, users):
    login_console(client, users)
    for query in ("family=poker", "status=closed", "sort=random", "automatic=maybe", "q=" + "x" * 200,
                  "cursor=garbage", "age=old"):
        r = client.get(f"/console/?{query}")
        assert r.status_code == 422, (query, r.status_code)
        assert "Back to the queue" in r.text and "Queue:" in r.text


def test_saved_view_round_trip(client, users):
    _seed(client)
    csrf = login_console(client, users, name="mod_views")
    r = client.post("/console/saved-views", data={"csrf": csrf, "name": "auto HR", "family": "seat",
                                                   "automatic": "yes", "sort": "oldest"}, follow_redirects=False)
    assert r.status_code == 303 and "automatic=yes" in r.headers["location"]
    page = client.get("/console/").text
    link = re.search(r'<a class="view" href="([^"]+)">auto HR</a>', page)
    assert link is not None
    assert len(_rows(client.get(link.group(1).replace("&amp;", "&")).text)) == 12
    view_id = re.search(r'/console/saved-views/([^/]+)/delete', page).group(1)
    assert client.post(f"/console/saved-views/{view_id}/delete", data={"csrf": csrf}).status_code == 200
    assert "auto HR" not in client.get("/console/").text
    bad = client.post("/console/saved-views", data={"csrf": csrf, "name": "x", "family": "poker"})
    assert bad.status_code == 422


def _bulk_form(html: str) -> dict[str, str]:
    form = html[html.index('<form id="bulk"'):]
    form = form[:form.index("</form>")]
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form))


def test_moderator_closes_all_matching_from_the_queue(client, users):
    _seed(client)
    login_console(client, users, name="mod_bulk_console")
    page = client.get("/console/?family=seat&automatic=yes").text
    assert "Close all 12 matching" in page
    data = {**_bulk_form(page), "scope": "all", "outcome": "actioned", "reason": "auto blocks stand"}
    r = client.post("/console/cases/bulk-close", data=data)
    assert r.status_code == 200 and "Closed 12 cases as actioned" in r.text, r.text[-800:]
    assert _rows(client.get("/console/?family=seat").text) == ["p-bh1"]
    again = client.post("/console/cases/bulk-close", data=data)  # the 12 are gone: the selection changed
    assert again.status_code == 409 and "Nothing was closed" in again.text


def test_bulk_close_of_ticked_cases_and_analysts_cannot(client, users):
    _seed(client)
    login_console(client, users, name="mod_ticks")
    page = client.get("/console/?family=seat&sort=oldest").text
    ticks = re.findall(r'name="(case_\d+)" value="([^"]+)" form="bulk"', page)[:2]
    data = {**_bulk_form(page), "scope": "selected", "outcome": "dismissed", "reason": "noise", **dict(ticks)}
    r = client.post("/console/cases/bulk-close", data=data)
    assert "Closed 2 cases as dismissed" in r.text
    client.cookies.clear()
    ann_csrf = login_console(client, users, role="analyst", name="ann_ticks")
    assert 'id="bulk"' not in client.get("/console/?family=seat").text
    assert client.post("/console/cases/bulk-close", data={**data, "csrf": ann_csrf}).status_code == 403
