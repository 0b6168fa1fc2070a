"""`railbird backtest PATH --html FILE`: one self-contained page, inline SVG charts, every text escaped."""

from __future__ import annotations

import argparse
import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from railbird.backtest_html import HandStats, bar_chart, flagged_pairs, hand_stats, net_chart, render_html
from railbird.commands import backtest
from railbird.import_summary import Tally
from railbird.settings import Settings
from tests.hands.generators import Tactics, cash_session
from tests.hands.render_stars import render

FIXTURES = Path(__file__).parent / "fixtures"
VOID = {"meta", "br", "img", "hr", "input", "link"}


class Balance(HTMLParser):
    """Tags opened and closed in order (SVG shapes may close themselves)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> Balance:
    checker = Balance()
    checker.feed(page)
    assert not checker.errors and not checker.stack, (checker.errors, checker.stack)
    return checker


@pytest.fixture(scope="module")
def dumping_room(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """A 300-hand cash table where p2 dumps chips to p3, as PokerStars text, and GGPoker's fixture hands."""
    folder = tmp_path_factory.mktemp("room") / "hh"
    folder.mkdir()
    records = cash_session(table_id="t1", players=[f"p{i}" for i in range(6)], hands=300, rng=random.Random(7),
                           tactics=Tactics(dump=("p2", "p3")))
    (folder / "dump.txt").write_text("".join(render(r, site="ps", number=1000 + k) for k, r in enumerate(records)),
                                     encoding="utf-8")
    (folder / "gg_kinds.txt").write_bytes((FIXTURES / "gg_kinds.txt").read_bytes())
    return folder, records


def test_the_page_charts_findings_variants_and_the_flagged_pairs_nets(
    dumping_room: tuple[Path, list[dict]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, records = dumping_room
    page_file = tmp_path / "report.html"
    args = argparse.Namespace(path=str(folder), out=None, html=str(page_file), events=None)
    assert backtest.run(args, Settings()) == 0
    assert capsys.readouterr().out == ""  # --html alone: no Markdown on stdout
    page = page_file.read_text(encoding="utf-8")
    parsed = _parse(page)
    assert parsed.tags.count("svg") == 3 and "script" not in parsed.tags
    assert not re.search(r"https?://|src=|href=['\"](?!#)", page)  # nothing fetched, links only within the page
    text = "".join(parsed.text)
    assert "307 hands imported, 0 rejected" in text
    # Hands per variant: the 300 rendered hold'em hands and the GGPoker fixture's 4 NT, 1 PO, 1 PO5, 1 NS.
    variants = re.search(r"Hands per variant</text>(.*?)</svg>", page, re.S)[1]  # type: ignore[index]
    assert re.findall(r"<text[^>]*>([A-Z0-9/]+)</text>", variants)[:1] == ["NT"]
    assert "304</text>" in variants and variants.count("<rect") == 4
    # The chip dump's pair with their nets over the hands they played together, from the generator's truth.
    assert "p3" in text and "chip_dumping" in text
    net = {p: sum(r["finishing_stacks"][r["players"].index(p)] - r["starting_stacks"][r["players"].index(p)]
                  for r in records) for p in ("p2", "p3")}
    assert net["p2"] < 0 < net["p3"]
    chart = re.search(r"Net chips of flagged pairs.*?</svg>", page, re.S)[0]  # type: ignore[index]
    assert "p2 (with p3, cash, 300 hands)" in chart  # the run holds tournaments too (GGPoker fixture) and f"{net['p2']:+,}</text>" in chart and f"{net['p3']:+,}</text>" in chart
    assert "#c62828" in chart and "#2e7d32" in chart  # the loss drawn red, the gain green


def test_bars_are_drawn_to_scale() -> None:
    svg = bar_chart("Findings per detector", [("a", 40), ("b", 20), ("c", 0)], unit="findings")
    widths = [int(w) for w in re.findall(r"<rect [^>]*width='(\d+)'", svg)]
    assert len(widths) == 3 and widths[0] == 2 * widths[1] and widths[2] == 0


def test_every_text_from_the_histories_is_escaped() -> None:
    finding = {"detector": "hand.chip_dumping", "category": "chip_dumping", "score": 0.9, "players": ["a", "b"],
               "table_id": "t1", "source_event_ids": [f"ps-{k}" for k in range(8)],
               "summary": "<script>alert(1)</script> & more"}
    stats = HandStats()
    stats.variants["NT"] = 2
    stats.games["cash"] = 2
    pairs = flagged_pairs([{"kind": "finding", "finding": finding}])
    stats.nets[(("a", "b"), "cash")] = {"a": -500, "b": 480}
    page = render_html("<root>", 1, Tally(imported=2), [{"kind": "finding", "finding": finding}], stats, pairs)
    _parse(page)
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "Backtest of <code>&lt;root&gt;</code>" in page and "ps-4 (+3 more)" in page
    assert "-500</text>" in page and "+480</text>" in page and "cash: cents at real-money tables, chips for play money" in page


def test_nothing_found_says_so_instead_of_drawing_empty_charts() -> None:
    page = render_html("x", 1, Tally(imported=3), [], HandStats(), [])
    _parse(page)
    assert "No detector found anything." in page and "Findings per detector: nothing to draw." in page
    assert "no finding names a pair" in page and "<svg" not in page
    assert net_chart("t", HandStats(), []).startswith("<p class='empty'>")


def test_a_pair_at_cash_tables_and_in_tournaments_gets_its_nets_apart() -> None:
    lines = []
    for k, (game, a_net) in enumerate([("cash", -300), ("cash", -200), ("tournament", 900)]):
        hand = {"hand_id": f"h{k}", "game": game, "variant": "NT", "players": ["b", "a", "c"],
                "starting_stacks": [1000, 1000, 1000], "finishing_stacks": [1000 - a_net, 1000 + a_net, 1000]}
        lines.append(json.dumps({"topic": "hand.records", "value": hand}, separators=(",", ":")))
    lines.append(json.dumps({"topic": "chat.messages", "value": {}}, separators=(",", ":")))
    stats = hand_stats(lines, [("a", "b")])
    assert stats.nets == {(("a", "b"), "cash"): {"a": -500, "b": 500}, (("a", "b"), "tournament"): {"a": 900, "b": -900}}
    assert stats.together[(("a", "b"), "cash")] == 2 and stats.variants["NT"] == 3
    svg = net_chart("t", stats, [(("a", "b"), 0.9)])
    assert "a (with b, cash, 2 hands)" in svg and "a (with b, tournament, 1 hands)" in svg
    assert "-500 cash units" in svg and "+900 tournament chips" in svg


def test_a_page_that_cannot_be_written_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "r.html"
    args = argparse.Namespace(path=str(FIXTURES / "ps_kinds.txt"), out=None, html=str(target), events=None)
    assert backtest.run(args, Settings()) == 2
    assert f"cannot write {target}" in capsys.readouterr().err
