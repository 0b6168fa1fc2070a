"""How low the play p-values of `hand.bounty_agreement` go for honest pairs, per sample tier.

Runs simulated rooms (the `railbird eval scenario` room: 300 players, a bounty tournament every 30
minutes, the planted pair checking down, no agreement chat) through the bounty detector alone, hands
only, and records every play evaluation of every pair with at least two bounty spots: spots,
cooperative spots, the check-down p, the all-in-call p and the combined p (`play_verdict`). Honest =
every pair but the planted bounty pair (other planted groups included: they have no bounty
agreement). Prints, per tier (2 spots all cooperative, 3 of 3, >= 4 with >= 80 % cooperative), the
number of honest pairs and their lowest combined p, the joint tail (combined p against the all-in-call
p over every honest evaluation), and the findings on honest pairs. Planted pairs are summarised
only when `--show-planted` is given (rooms used to choose a threshold must not be used to report it).
`--score` also scores the detector's bounty findings against the rooms' truth the way `railbird eval
scenario --bounty-every 30 --bounty-check-down --no-agreement-chat` does (same rooms, same matching,
pair-exact): rows acted on found, findings, findings on the planted pair; the same figures as the eval
for this category, without running the other detectors.

    nice -n 19 .venv/bin/python -m bench.bounty_honest_tail --seed 101 102 --minutes 480 [--jsonl FILE] [--score]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pipeline.contracts import HandRecord
from pipeline.detectors.hand.bounty_agreement import BountyAgreementDetector
from pipeline.detectors.hand.bounty_state import TournamentState
from pipeline.detectors.hand.pairs import PairBook
from pipeline.detectors.hand.stream import HandStream
from pipeline.findings import Finding
from simulator.config import RoomConfig
from simulator.evaluation import bounty_breakdown, match
from simulator.room import Room


class _Recording(BountyAgreementDetector):
    """The detector, noting each play evaluation of a pair with >= 2 spots before deciding."""

    def __init__(self, seed: int, planted: set[frozenset[str]]) -> None:
        super().__init__(stream=HandStream(pairs=PairBook()))
        self.seed, self.planted = seed, planted
        self.rows: list[dict[str, Any]] = []

    def _finding_for(
        self, tournament: str, state: TournamentState, pair: tuple[str, str], ts: datetime
    ) -> Finding | None:
        spots = state.pairs.get(pair)
        if spots is not None and spots.cooperative > 0:
            n, k, p_check = self._play(pair)
            if n >= 2:
                calls = self.entries.p_value(pair, self.t)
                flagged, p = self._tested(pair, p_check, n, k)
                self.rows.append(
                    {
                        "seed": self.seed,
                        "pair": list(pair),
                        "planted": frozenset(pair) in self.planted,
                        "tournament": tournament,
                        "n": n,
                        "k": k,
                        "p_check": p_check,
                        "p_calls": calls[3],
                        "calls": calls[:3],
                        "p": p,
                        "flagged": flagged,
                    }
                )
        return super()._finding_for(tournament, state, pair, ts)


def room_rows(seed: int, minutes: float, scores: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Every play evaluation of one room's pairs; with `scores`, also append the room's score."""
    config = RoomConfig.for_profile(
        "normal",
        seed=seed,
        minutes=minutes,
        players=300,
        bounty_every_minutes=30.0,
        bounty_check_down=True,
        agreement_chat=False,
    )
    room = Room(config)
    planted = {frozenset(g.members[:2]) for g in room.population.groups if g.kind == "bounty"}
    detector = _Recording(seed, planted)
    findings: list[Finding] = []
    for _, event in room.events():
        if isinstance(event, HandRecord):
            findings += [f for f in detector.process(event) if f.category == "bounty_agreement"]
    if scores is not None:
        scores.append(room_score(seed, findings, room, planted))
    return detector.rows


def room_score(
    seed: int, findings: Sequence[Finding], room: Room, planted: set[frozenset[str]]
) -> dict[str, Any]:
    """Bounty rows acted on found and findings on the planted pair (pair-exact), as the eval scores them."""
    truth = [r for r in room.truth if r.category == "bounty_agreement"]
    scored = match(findings, truth)
    rows = bounty_breakdown(truth, {k: 0.0 for s in scored for k in s.matched})
    return {
        "seed": seed,
        "acted_on": [rows["acted_on"]["found"], rows["acted_on"]["truth"]],
        "raw": [rows["rows"]["found"], rows["rows"]["truth"]],
        "findings": len(findings),
        "matched": sum(1 for s in scored if s.matched),
        "not_planted_pair": [
            [*f.players, f.tournament_id] for f in findings if frozenset(f.players) not in planted
        ],
    }


def _tier(row: dict[str, Any]) -> str | None:
    n, k = row["n"], row["k"]
    if n >= 4 and k >= 0.8 * n:
        return ">=4"
    return f"{n} of {n}" if n in (2, 3) and k == n else None


def summary(rows: Sequence[dict[str, Any]], show_planted: bool) -> dict[str, Any]:
    """Lowest combined p per pair and tier; the joint tail; flagged pairs."""
    best: dict[tuple[str, int, tuple[str, ...]], dict[str, Any]] = {}
    for r in rows:
        tier = _tier(r)
        key = (tier or "", r["seed"], tuple(r["pair"]))
        if tier is not None and (key not in best or r["p"] < best[key]["p"]):
            best[key] = r
    out: dict[str, Any] = {"rooms": len({r["seed"] for r in rows})}
    for tier in ("2 of 2", "3 of 3", ">=4"):
        for planted in (False, True) if show_planted else (False,):
            got = sorted(
                (r for (t, _, _), r in best.items() if t == tier and r["planted"] == planted),
                key=lambda r: r["p"],
            )
            out[f"{tier} {'planted' if planted else 'honest'}"] = {
                "pairs": len(got),
                **{f"p<={th:g}": sum(r["p"] <= th for r in got) for th in (1e-3, 1e-4, 1e-5)},
                "lowest": [{k: r[k] for k in ("seed", "n", "k", "p", "p_check", "p_calls")} for r in got[:5]],
            }
    honest: dict[tuple[int, tuple[str, ...], int], dict[str, Any]] = {}
    for r in rows:  # one evaluation per honest pair and spot count, the lowest
        key2 = (r["seed"], tuple(r["pair"]), r["n"])
        if not r["planted"] and (key2 not in honest or r["p"] < honest[key2]["p"]):
            honest[key2] = r
    joint = sorted((r for r in honest.values() if r["p_calls"] <= 0.01), key=lambda r: r["p"])
    out["honest evaluations"] = len(honest)
    out["honest with all-in-call p <= 0.01"] = {
        "evaluations": len(joint),
        "lowest": [{k: r[k] for k in ("seed", "n", "k", "p", "p_calls")} for r in joint[:3]],
    }
    flagged = {
        (r["seed"], *r["pair"]): (r["n"], r["k"], r["p"]) for r in rows if r["flagged"] and not r["planted"]
    }
    out["honest pairs flagged"] = [[*key, *value] for key, value in flagged.items()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, nargs="+", required=True)
    parser.add_argument("--minutes", type=float, default=480.0)
    parser.add_argument("--jsonl", default=None, help="also append every evaluation to this file")
    parser.add_argument("--show-planted", action="store_true")
    parser.add_argument(
        "--score", action="store_true", help="also score the findings against the rooms' truth"
    )
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    scores: list[dict[str, Any]] = []
    for seed in args.seed:
        rows += room_rows(seed, args.minutes, scores if args.score else None)
        print(
            f"seed {seed}: {len(rows)} evaluations so far", *(scores[-1:] if args.score else ()), flush=True
        )
    if args.jsonl:
        with open(args.jsonl, "a", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    out = summary(rows, args.show_planted)
    if args.score:
        out["score"] = {key: sum(s[key][0] for s in scores) for key in ("acted_on", "raw")}
        out["score"].update({f"{key}_rows": sum(s[key][1] for s in scores) for key in ("acted_on", "raw")})
        out["score"].update(
            findings=sum(s["findings"] for s in scores), matched=sum(s["matched"] for s in scores)
        )
        out["score"]["per_seed"] = scores
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
