"""Pure helpers behind the case page: hand replay, span segments, timeline geometry."""

from __future__ import annotations

from api.console.render import segments, timeline_chart
from api.evidence.replay import replay

HAND = {"hand_id": "h1", "table_id": "t1", "variant": "NT", "players": ["a", "b", "c"], "seats": [2, 5, 9],
        "antes": [10, 10, 10], "blinds_or_straddles": [50, 100, 0], "starting_stacks": [1000, 2000, 300],
        "actions": ["d dh p1 AcAd", "d dh p2 ????", "d dh p3 ????", "p3 cbr 300", "p1 cc", "p2 f",
                    "d db KhKs2c", "d db 3d", "d db 4h", "p3 sm 7c7d", "p1 sm AcAd"],
        "finishing_stacks": [1730, 1900, 0], "winnings": [730, 0, 0], "bounties": {"c": 50}, "eliminated": ["c"]}


def test_replay_reads_seats_streets_pot_and_winners():
    r = replay(HAND)
    assert [(s["seat"], s["player"], s["cards"]) for s in r["seats"]] == [(2, "a", "AcAd"), (5, "b", None),
                                                                          (9, "c", "7c7d")]
    assert [s["name"] for s in r["streets"]] == ["preflop", "flop", "turn", "river"]
    assert r["streets"][1]["board"] == ["Kh", "Ks", "2c"] and r["streets"][2]["board"] == ["3d"]
    pre = r["streets"][0]["actions"]
    assert pre[0] == {"player": "c", "action": "bets/raises to", "amount": 300}
    assert pre[1] == {"player": "a", "action": "checks/calls", "amount": 250}  # 300 minus the 50 blind posted
    assert pre[2]["action"] == "folds"
    assert r["pot"] == 730 and r["winners"] == ["a"]
    assert r["seats"][2]["bounty"] == 50 and r["seats"][2]["eliminated"] is True


def test_replay_gives_the_pot_after_each_street_and_the_blinds():
    r = replay(HAND)
    # antes 30, then c raises to 300, a calls, b folds its 100 blind: 730 from the flop on
    assert [s["pot"] for s in r["streets"]] == [730, 730, 730, 730]
    bet_on_flop = {**HAND, "actions": [*HAND["actions"][:7], "p1 cbr 200", "p3 cc", "d db 3d", "d db 4h"]}
    assert [s["pot"] for s in replay(bet_on_flop)["streets"]] == [730, 1130, 1130, 1130]  # +200 each way
    assert r["blinds"] == [50, 100] and r["antes"] == [10, 10, 10]


def test_replay_without_winnings_computes_the_pot_from_bets():
    r = replay({**HAND, "winnings": []})
    assert r["pot"] == 30 + 300 + 300 + 100 and r["winners"] == []


def test_replay_tolerates_garbage():
    r = replay({"players": ["x", "y"], "actions": ["p9 cbr 5", "nonsense", "p1", "d db"], "seats": "bad"})
    assert [s["seat"] for s in r["seats"]] == [1, 2] and r["pot"] == 0
    assert replay({})["seats"] == []


def test_segments_clamp_merge_and_keep_all_text():
    text = "you are an idiot and a clown"
    segs = segments(text, [{"start": 11, "end": 16, "label": "insult"}, {"start": 14, "end": 20, "label": "x"},
                           {"start": 23, "end": 99, "label": "insult"}, {"start": 5, "end": 2}, {"bad": 1}])
    assert "".join(s.text for s in segs) == text
    assert [(s.text, s.label) for s in segs if s.label] == [("idiot", "insult"), (" and", "x"), ("clown", "insult")]
    assert segments("plain", None) == segments("plain", [])
    assert [s.label for s in segments("plain", [])] == [None]


def test_timeline_lays_out_rows_and_ignores_bad_intervals():
    intervals = [
        {"player_id": "p1", "table_id": "t1", "start": "2026-03-01T10:00:00+00:00", "end": "2026-03-01T10:30:00+00:00",
         "state": "seated"},
        {"player_id": "p1", "table_id": "t1", "start": "2026-03-01T10:30:00+00:00", "end": "2026-03-01T11:00:00+00:00",
         "state": "sitting_out"},
        {"player_id": "p2", "table_id": "t2", "start": "2026-03-01T10:15:00Z", "end": "2026-03-01T10:45:00Z",
         "state": "disconnected"},
        {"player_id": "p3", "start": "not a time", "end": "2026-03-01T10:45:00Z", "state": "away"},
    ]
    chart = timeline_chart(intervals)
    assert chart is not None and [label for label, _ in chart.rows] == ["p1 @ t1", "p2 @ t2"]
    first, second, third = chart.bars
    assert first.x < second.x and abs(first.width - second.width) < 1 and first.y == second.y != third.y
    assert third.fill == "#c62828"
    assert timeline_chart([]) is None
