"""GGPoker and PokerStars histories of every kind: imported with their bounties, places and chat,
or rejected with the line and the rule broken; encodings, concatenation and junk."""

from __future__ import annotations

import argparse
import io
import json
import random
from pathlib import Path

from pipeline.hands.importing import Imported, Junk, Rejected, text_outcomes
from pipeline.registry import build_pipeline
from pipeline.replay import replay_lines
from pipeline.rules import RulesConfig
from railbird.commands import importer
from railbird.settings import Settings
from tests.hands.generators import HandSpec, Tactics, play_hand, random_style
from tests.hands.render_stars import render

FIXTURES = Path(__file__).parent / "fixtures"


def _outcomes(data: bytes) -> list[Imported | Rejected | Junk]:
    return list(text_outcomes(io.BytesIO(data)))


def _hands(name: str) -> list[dict]:
    outs = _outcomes((FIXTURES / name).read_bytes())
    assert all(isinstance(o, Imported) for o in outs), [o for o in outs if not isinstance(o, Imported)]
    return [json.loads(o.hand_json) for o in outs if isinstance(o, Imported)]


def test_every_pokerstars_kind_imports() -> None:
    hands = {h["hand_id"]: h for h in _hands("ps_kinds.txt")}
    ko = hands["ps-230000000001"]
    assert ko["bounties"] == {"Ann_Lee": 200} and ko["bounties_won"] == {"erika8282": 200}
    assert ko["eliminated"] == ["Ann_Lee"] and ko["places"] == {"Ann_Lee": 3}
    assert ko["ts"] == "2023-03-01T19:15:00+00:00"
    pko = hands["ps-230000000002"]  # progressive: the cash half is won, the bounty was 5 + 2.50 on his head
    assert pko["bounties_won"] == {"zed": 250} and pko["bounties"]["bob"] == 500
    assert pko["places"] == {"bob": 2, "zed": 1}
    assert hands["ps-230000000003"]["blind_level"] == "level-II"  # shootout header, rebuy and add-on lines
    assert hands["ps-230000000004"]["variant"] == "PO/8" and hands["ps-230000000004"]["winnings"] == [0, 31, 31]
    assert hands["ps-230000000005"]["variant"] == "FT" and hands["ps-230000000005"]["min_bet"] == 10
    five = hands["ps-230000000006"]
    assert five["variant"] == "PO5" and "m3" not in five["players"]  # sitting out: not dealt in
    assert hands["ps-230000000007"]["winnings"] == [0, 0, 125]  # converted file, euro cents
    assert hands["ps-230000000008"]["run_count"] == 2
    assert hands["ps-230000000009"]["antes"] == [0, 0, 5, 0]  # dead small blind


def test_every_ggpoker_kind_imports() -> None:
    hands = {h["hand_id"]: h for h in _hands("gg_kinds.txt")}
    assert hands["gg-OM100001"]["variant"] == "PO" and hands["gg-OM100001"]["rake"] == 3  # rake + jackpot
    assert hands["gg-OM100002"]["variant"] == "PO5" and hands["gg-OM100002"]["starting_stacks"][1] == 105965
    short = hands["gg-SD100003"]
    assert short["variant"] == "NS" and short["blinds_or_straddles"] == [0, 0, 4, 2]
    assert hands["gg-HD100010"]["blinds_or_straddles"] == [0, 0, 0]  # bomb pot
    rush = hands["gg-RC100011"]
    assert rush["blinds_or_straddles"] == [60, 25, 0]  # small blind and straddle of one player add up
    assert hands["gg-TM100012"]["tournament_id"] == "gg-t258198994" and hands["gg-TM100012"]["winnings"][2] == 1150
    pko = hands["gg-TM100013"]  # GGPoker writes no bounty lines: a bounty event, amounts unknown (0)
    assert pko["bounties"] == {"x1": 0, "x2": 0, "Hero": 0} and pko["eliminated"] == ["x1"]


def test_chat_lines_carry_the_running_hand() -> None:
    outs = _outcomes((FIXTURES / "ps_kinds.txt").read_bytes())
    first = outs[0]
    assert isinstance(first, Imported)
    chats = [json.loads(c) for c in first.chats]
    assert [c["text"] for c in chats] == ["gl all", "nh"]
    assert chats[0]["hand_id"] == "ps-230000000001" and chats[0]["players_in_hand"] == ["Ann_Lee", "zed", "erika8282"]
    assert chats[0]["tournament_id"] == "ps-t3100000001" and chats[1]["player_id"] == "zed"


GOOD = (FIXTURES / "ps_kinds.txt").read_text(encoding="utf-8").split("\n\n\n\n")[4].strip("\n")


def _variant(number: int, old: str = "", new: str = "") -> str:
    return GOOD.replace("#230000000005", f"#{number}").replace(old, new) + "\n\n"


def test_bad_hands_each_get_a_line_and_a_reason_and_the_rest_imports() -> None:
    truncated = "\n".join(_variant(2).splitlines()[:14]) + "\n\n"
    parts = [
        "some notes the analyst pasted\n\n",
        _variant(1),
        truncated,
        _variant(3, "Total pot $0.65", "Total pot $0.75"),
        _variant(4, "Seat 2: lb ($5 in chips)", "Seat 2: lb has a strange seat line"),
        _variant(5, "lc: calls $0.10\n*** FLOP", "lc: calls €0.10\n*** FLOP"),
        _variant(6, "la: bets $0.10", "la: \x00\x01\xff\xfe bets"),
        _variant(7, "lc: calls $0.10\n*** TURN", "lc: raises $0.30 to $0.40\n*** TURN"),
        _variant(9, "lc: calls $0.10\n*** FLOP", "lc: calls  $0.10\n*** FLOP"),  # an empty amount crashed the import
        _variant(8),
    ]
    outs = _outcomes("".join(parts).encode("utf-8", errors="surrogateescape"))
    kinds = [(type(o).__name__, getattr(o, "kind", None)) for o in outs]
    assert kinds == [
        ("Junk", None), ("Imported", None), ("Rejected", "truncated"), ("Rejected", "chips_not_conserved"),
        ("Rejected", "parse_error"), ("Rejected", "parse_error"), ("Rejected", "parse_error"),
        ("Rejected", "illegal_action"), ("Rejected", "parse_error"), ("Imported", None),
    ]
    rejected = [o for o in outs if isinstance(o, Rejected)]
    numbered = "".join(parts).splitlines()

    def line_of(text: str) -> int:
        return next(i + 1 for i, line in enumerate(numbered) if text in line)

    assert rejected[1].line == line_of("Total pot $0.75")
    assert rejected[1].reason.startswith(f"line {line_of('Total pot $0.75')}: 'Total pot 0.75'")
    assert f"line {line_of('strange seat')}: seat line not understood" in rejected[2].reason
    assert f"line {line_of('calls €')}:" in rejected[3].reason and "not in the hand's currency" in rejected[3].reason
    assert rejected[4].line == line_of("\x00") or f"line {line_of(chr(0))}" in rejected[4].reason
    assert rejected[5].line == line_of("raises $0.30 to $0.40") and "fixed limit" in rejected[5].reason
    assert rejected[6].reason == f"line {line_of('calls  $')}: not an amount: ''"


def test_encodings_boms_and_concatenated_files() -> None:
    text = GOOD + "\n\n"
    for data in (text.encode("utf-16"), text.encode("utf-16-le"), ("\ufeff" + text).encode("utf-8"),
                 text.replace("la", "Ménière").encode("cp1252"), (text.encode("utf-8-sig") * 3)):
        outs = _outcomes(data)
        assert outs and all(isinstance(o, Imported) for o in outs), outs
    cp = _outcomes(text.replace("la", "Ménière").encode("cp1252"))[0]
    assert isinstance(cp, Imported) and "M_ni_re" in cp.hand_json


def test_rendered_rooms_import_with_their_true_values() -> None:
    rng = random.Random(22)
    records, texts = [], {"ps": [], "gg": []}
    for k in range(150):
        n = rng.randint(3, 9)
        players = [f"pl{k}_{i}" for i in range(n)]
        tour = k % 2 == 0
        stacks = [rng.randint(5, 200) * 100 if tour else rng.randint(50, 300) * 10 for _ in players]
        spec = HandSpec(players, stacks, 100 if tour else 10, ante=10 if tour else 0)
        rec = play_hand(spec, {p: random_style(rng) for p in players}, Tactics(), rng)
        records.append(rec)
        for site, bucket in texts.items():
            bucket.append(render(rec, site=site, number=500 + k, tournament=9 if tour else None))
    for bucket in texts.values():
        outs = _outcomes("".join(bucket).encode())
        assert len(outs) == len(records) and all(isinstance(o, Imported) for o in outs)
        for rec, out in zip(records, outs, strict=True):
            value = json.loads(out.hand_json)  # type: ignore[union-attr]
            assert value["winnings"] == rec["winnings"] and value["finishing_stacks"] == rec["finishing_stacks"]


def test_import_command_writes_topics_replay_reads_and_a_summary_per_file(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "hh"
    folder.mkdir()
    for name in ("ps_kinds.txt", "gg_kinds.txt"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    (folder / "bad.txt").write_text(_variant(3, "Total pot $0.65", "Total pot $0.75"), encoding="utf-8")
    out, rejects = tmp_path / "out.jsonl", tmp_path / "rejects.jsonl"
    summary = tmp_path / "summary.json"
    args = argparse.Namespace(what="hands", path=str(folder), format="auto", out=str(out), rejects=str(rejects),
                              summary=str(summary))
    assert importer.run(args, Settings()) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    topics = [json.loads(line)["topic"] for line in lines]
    assert topics.count("hand.records") == 16 and topics.count("chat.messages") == 2
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert [e["file"].rsplit("/", 1)[-1] for e in doc["files"]] == ["bad.txt", "gg_kinds.txt", "ps_kinds.txt"]
    assert doc["files"][0]["rejected"] == 1 and doc["total"]["imported"] == 16 and doc["total"]["chat_lines_carried"] == 2
    assert "bad.txt: 0 imported, 1 rejected" in capsys.readouterr().err
    assert json.loads(rejects.read_text(encoding="utf-8"))["kind"] == "chips_not_conserved"
    outputs = list(replay_lines(lines, build_pipeline(rules=RulesConfig())))
    assert not [o for o in outputs if o["kind"] in ("dead_letter", "detector_error")]


def test_a_huge_line_and_a_huge_block_cost_bounded_memory() -> None:
    import tracemalloc

    from pipeline.hands.history_io import MAX_BLOCK_LINES, MAX_LINE_BYTES

    data = b"\xff" * 3_000_000 + b"\n" + (GOOD + "\n\n").encode() + GOOD.encode().replace(
        b"*** SUMMARY ***", b"la: checks\n" * (MAX_BLOCK_LINES + 10) + b"*** SUMMARY ***") + b"\n\n" + GOOD.encode()
    tracemalloc.start()
    outs = _outcomes(data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [type(o).__name__ for o in outs] == ["Junk", "Imported", "Rejected", "Imported"]
    assert "runs past" in outs[2].reason  # type: ignore[union-attr]
    assert peak < 8_000_000 + 50 * MAX_LINE_BYTES  # the input itself is ~3 MB; nothing grows with it


_KINDS = (FIXTURES / "ps_kinds.txt").read_bytes() + (FIXTURES / "gg_kinds.txt").read_bytes()


def test_garbled_history_bytes_never_crash_the_import() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(noise=st.binary(max_size=60), at=st.integers(0, len(_KINDS)), cut=st.integers(0, len(_KINDS)))
    def check(noise: bytes, at: int, cut: int) -> None:
        data = (_KINDS[:at] + noise + _KINDS[at:])[: max(cut, at)]
        for outcome in _outcomes(data):
            assert isinstance(outcome, Imported | Rejected | Junk)
            if isinstance(outcome, Rejected):
                assert outcome.reason and outcome.kind

    check()
