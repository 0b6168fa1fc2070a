"""The chip-transfer chart of a pair: per-hand transfers, cumulative series, sample size."""

from __future__ import annotations

from api_factories import T0, batch
from api_support import SERVICE_TOKEN, login_console

from api.console.pair_chart import net_transfer, transfer_chart
from pipeline.findings import Finding, stable_id

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


def _hand(n: int, a: tuple[int, int], b: tuple[int, int], c: tuple[int, int] | None = None) -> dict:
    seats = [{"player": "a", "starting_stack": a[0], "finishing_stack": a[1]},
             {"player": "b", "starting_stack": b[0], "finishing_stack": b[1]}]
    if c:
        seats.append({"player": "c", "starting_stack": c[0], "finishing_stack": c[1]})
    return {"hand_id": f"h{n}", "ts": f"2026-03-01T12:0{n}:00Z", "seats": seats}


def test_transfer_is_what_one_lost_that_the_other_won():
    assert net_transfer(_hand(1, (1000, 600), (1000, 1400)), "a", "b") == 400
    assert net_transfer(_hand(1, (1000, 600), (1000, 1100), (1000, 1300)), "a", "b") == 100  # c took the rest
    assert net_transfer(_hand(1, (1000, 1200), (1000, 900)), "a", "b") == -100
    assert net_transfer(_hand(1, (1000, 900), (1000, 950), (1000, 1150)), "a", "b") == 0  # both lost to c
    assert net_transfer({"seats": [{"player": "a", "starting_stack": "x"}]}, "a", "b") == 0


def test_chart_accumulates_and_counts_the_shared_hands():
    hands = [_hand(1, (1000, 600), (1000, 1400)), _hand(2, (600, 400), (1400, 1600)),
             {"hand_id": "other", "seats": [{"player": "a", "starting_stack": 1, "finishing_stack": 1}]}]
    chart = transfer_chart(hands, "a", "b")
    assert chart is not None and chart.hands == 2 and chart.total == 600
    assert len(chart.points.split()) == 3  # 0, then one point per shared hand
    assert transfer_chart([], "a", "b") is None


def test_chip_dumping_case_page_shows_the_chart(client, users):
    hand = {"hand_id": "hd1", "table_id": "t-1", "ts": T0.isoformat(), "players": ["p-x", "p-y"], "seats": [1, 2],
            "starting_stacks": [1000, 1000], "finishing_stacks": [0, 2000], "winnings": [0, 2000],
            "blinds_or_straddles": [5, 10], "antes": [0, 0], "actions": ["p1 cbr 1000", "p2 cc"]}
    f = Finding(finding_id=stable_id("fnd", "dumpchart"), detector="hand.chip_dumping", rule="collusion",
                family="hand", category="chip_dumping", score=0.9, players=("p-x", "p-y"), ts=T0, table_id="t-1",
                summary="p-x shoved into p-y", evidence={"hands": [hand]})
    case_id = client.post("/v1/findings/batch", json=batch(f), headers=SVC).json()["case_ids"][0]
    login_console(client, users, "analyst", "ann")
    html = client.get(f"/console/cases/{case_id}").text
    assert "Chips from p-x to p-y" in html and "1 hands together" in html and "net 1,000 chips to p-y" in html
