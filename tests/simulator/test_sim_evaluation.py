"""Matching findings to ground truth: the rule in docs/quality.md, and the metrics built on it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pipeline.findings import Finding
from simulator.evaluation import match, relevant_truth, score
from simulator.truth import TruthRow

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def _row(category: str, players: tuple[str, ...], start_s: float, end_s: float, **detail: object) -> TruthRow:
    return TruthRow(
        category=category,
        players=players,
        start=T0 + timedelta(seconds=start_s),
        end=T0 + timedelta(seconds=end_s),
        event_ids=("e1",),
        detail=dict(detail),
    )


def _finding(
    category: str,
    subject: str,
    ts_s: float,
    *,
    detector: str = "d.one",
    window: tuple[float, float] | None = None,
) -> Finding:
    return Finding(
        finding_id=f"f-{category}-{subject}-{ts_s}",
        detector=detector,
        rule="r",
        family="chat",
        category=category,
        score=0.9,
        players=(subject, "other"),
        ts=T0 + timedelta(seconds=ts_s),
        summary="s",
        window_start=T0 + timedelta(seconds=window[0]) if window else None,
        window_end=T0 + timedelta(seconds=window[1]) if window else None,
    )


def test_match_needs_category_subject_and_overlap() -> None:
    truth = [_row("insult", ("p1",), 100, 100), _row("collusive_sit_out", ("p2", "p3"), 200, 500)]
    findings = [
        _finding("insult", "p1", 101),  # same category, subject, within slack
        _finding("threat", "p1", 100),  # wrong category
        _finding("insult", "p9", 100),  # wrong subject
        _finding("insult", "p1", 300),  # too late
        _finding("collusive_sit_out", "p3", 900, window=(400, 450)),  # second member, window overlaps
    ]
    hits = [bool(s.matched) for s in match(findings, truth, slack=timedelta(seconds=60))]
    assert hits == [True, False, False, False, True]


def test_score_reports_precision_recall_ttd_and_false_rate() -> None:
    truth = [
        _row("insult", ("p1",), 100, 100),
        _row("insult", ("p2",), 1000, 1000),
        _row("spam", ("p4",), 10, 10),
    ]
    findings = [_finding("insult", "p1", 130), _finding("insult", "p5", 400)]
    result = score(
        findings, truth, honest_hours=100.0, registered=["d.one", "d.idle"], honest_players=frozenset({"p5"})
    )
    insult = result["categories"]["insult"]
    assert (insult["precision"], insult["recall"], insult["median_ttd_s"]) == (0.5, 0.5, 30.0)
    assert insult["false_per_10k_honest_hours"] == 100.0 and insult["false_on_honest_players"] == 1
    assert result["categories"]["spam"]["status"] == "no detector emitted this category"
    assert result["categories"]["spam"]["recall"] == 0.0
    assert result["detectors"]["d.idle"]["status"] == "registered, no findings"
    assert "hate" not in result["categories"]
    named = score([], truth, honest_hours=1.0, registered=["hand.spam"])
    assert named["categories"]["spam"]["status"] == "hand.spam registered, no findings"


def test_exempt_formats_drop_hit_and_run_rows_for_that_rules_version() -> None:
    rows = [
        _row("hit_and_run", ("p1",), 0, 60, format="rush_and_cash"),
        _row("hit_and_run", ("p1",), 0, 60, format="vip"),
    ]
    kept = relevant_truth(rows, exempt_formats=frozenset({"rush_and_cash", "all_in_or_fold"}))
    assert [r.detail["format"] for r in kept] == ["vip"]


def test_chat_recall_is_broken_down_by_language() -> None:
    truth = [
        _row("insult", ("p1",), 100, 100, language="hu"),
        _row("insult", ("p2",), 500, 500, language="hu"),
        _row("threat", ("p3",), 100, 100, language="vi"),
    ]
    result = score([_finding("insult", "p1", 100)], truth, honest_hours=10.0, registered=[])
    assert result["chat_recall_by_language"] == {
        "hu": {"truth": 2, "found": 1, "recall": 0.5},
        "vi": {"truth": 1, "found": 0, "recall": 0.0},
    }


def _bounty_row(tournament: str, start_s: float, end_s: float, *, chat: bool, acted_on: int) -> TruthRow:
    return TruthRow(
        category="bounty_agreement",
        players=("h1", "h2"),
        start=T0 + timedelta(seconds=start_s),
        end=T0 + timedelta(seconds=end_s),
        event_ids=("e",),
        tournament_id=tournament,
        detail={"chat": chat, "acted_on": acted_on},
    )


def _bounty_finding(tournament: str, ts_s: float, window: tuple[float, float], listed: list[str]) -> Finding:
    return Finding(
        finding_id=f"f-{tournament}",
        detector="hand.bounty_agreement",
        rule="collusion",
        family="hand",
        category="bounty_agreement",
        score=0.6,
        players=("h1", "h2"),
        ts=T0 + timedelta(seconds=ts_s),
        summary="s",
        tournament_id=tournament,
        window_start=T0 + timedelta(seconds=window[0]),
        window_end=T0 + timedelta(seconds=window[1]),
        evidence={"tournaments": [{"tournament_id": t} for t in listed]},
    )


def test_bounty_rows_match_only_the_tournaments_a_finding_names() -> None:
    """A case found in T3 that lists T1 and T3 covers those rows, not T2 which its window overlaps."""
    truth = [
        _bounty_row("T1", 0, 100, chat=False, acted_on=1),
        _bounty_row("T2", 200, 300, chat=False, acted_on=0),
        _bounty_row("T3", 400, 500, chat=False, acted_on=2),
        _bounty_row("T4", 600, 700, chat=True, acted_on=0),
    ]
    finding = _bounty_finding("T3", 450, (50, 450), ["T1", "T3"])
    assert match([finding], truth)[0].matched == (0, 2)
    rows = score([finding], truth, honest_hours=1.0, registered=["hand.bounty_agreement"])[
        "bounty_agreement_rows"
    ]
    assert (rows["rows"]["found"], rows["rows"]["truth"]) == (2, 4)
    assert (rows["acted_on"]["found"], rows["acted_on"]["truth"], rows["acted_on"]["recall"]) == (2, 2, 1.0)
    assert (rows["without_chat"]["found"], rows["without_chat"]["truth"]) == (2, 3)
    assert (rows["not_acted_on"]["found"], rows["not_acted_on"]["truth"]) == (0, 2)
    assert rows["with_chat"]["recall"] == 0.0 and rows["pairs"] == {"truth": 1, "found": 1, "recall": 1.0}


def test_pair_findings_match_only_rows_of_that_pair() -> None:
    """A planted colluder flagged with an honest player is a false pair, not a hit on his row; a
    finding naming one player (a table line of agreement talk) still matches on him."""
    truth = [
        _bounty_row("T1", 0, 100, chat=False, acted_on=1),
        _row("soft_play", ("h1", "h2"), 0, 100),
        _row("chip_dumping", ("h3", "h4"), 0, 100),
    ]
    right = _bounty_finding("T1", 50, (0, 100), ["T1"])
    wrong = Finding(
        finding_id="f-wrong",
        detector="hand.bounty_agreement",
        rule="collusion",
        family="hand",
        category="bounty_agreement",
        score=0.6,
        players=("h1", "x9"),
        ts=T0 + timedelta(seconds=50),
        summary="s",
        tournament_id="T1",
        evidence={"tournaments": [{"tournament_id": "T1"}]},
    )
    alone = Finding(
        finding_id="f-alone",
        detector="hand.bounty_agreement",
        rule="collusion",
        family="hand",
        category="bounty_agreement",
        score=0.4,
        players=("h2",),
        ts=T0 + timedelta(seconds=50),
        summary="s",
        tournament_id="T1",
    )
    soft_wrong = _finding("soft_play", "h1", 50)  # names (h1, other)
    dump_reversed = Finding(
        finding_id="f-dump",
        detector="hand.chip_dumping",
        rule="collusion",
        family="hand",
        category="chip_dumping",
        score=0.8,
        players=("h4", "h3"),
        ts=T0 + timedelta(seconds=50),
        summary="s",
    )
    hits = [s.matched for s in match([right, wrong, alone, soft_wrong, dump_reversed], truth)]
    assert hits == [(0,), (), (0,), (), (2,)]
    result = score([right, wrong], truth, honest_hours=1.0, registered=["hand.bounty_agreement"])
    assert result["categories"]["bounty_agreement"]["precision"] == 0.5
