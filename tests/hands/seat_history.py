"""Writes PokerStars-format hand histories of one table, hand by hand, for the seat-event tests.

Our own text, from the format's public shape: every hand is a walk (blinds, everyone folds to the
big blind), so a test controls only who is seated, who sits out and which seat lines a hand has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

T0 = datetime(2023, 3, 1, 15, 0, 0)


@dataclass
class HandSpec:
    """One hand: seat -> player dealt in, seat -> player sitting out, extra lines after the pot."""

    seats: dict[int, str]
    out: dict[int, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    at: float | None = None
    """Seconds after T0 (default: a minute after the previous hand)."""


def render_table(
    hands: list[HandSpec], *, table: str = "Seats", tournament: int | None = None, first: int = 500_000
) -> str:
    """The history text of `hands` at one table (cash $0.05/$0.10, or a tournament at 10/20)."""
    out = []
    at = 0.0
    for k, spec in enumerate(hands):
        at = spec.at if spec.at is not None else (at + 60.0 if k else 0.0)
        out.append(_hand(spec, first + k, T0 + timedelta(seconds=at), table, tournament))
    return "".join(out)


def _hand(spec: HandSpec, number: int, when: datetime, table: str, tournament: int | None) -> str:
    money = "" if tournament else "$"
    sb, bb = ("10", "20") if tournament else ("0.05", "0.10")
    game = (f"Tournament #{tournament}, $10+$1 USD Hold'em No Limit - Level I ({sb}/{bb})" if tournament
            else f" Hold'em No Limit (${sb}/${bb} USD)")
    dealt = sorted(spec.seats)
    button = dealt[0]
    order = [spec.seats[s] for s in dealt]
    small, big = order[1], order[2]
    stack = "1500" if tournament else "$10"
    lines = [f"PokerStars Hand #{number}: {game} - {when:%Y/%m/%d %H:%M:%S} ET",
             f"Table '{table}' 9-max Seat #{button} is the button"]
    for s in sorted({**spec.seats, **spec.out}):
        if s in spec.seats:
            lines.append(f"Seat {s}: {spec.seats[s]} ({stack} in chips)")
        else:
            lines.append(f"Seat {s}: {spec.out[s]} ({stack} in chips) is sitting out")
    lines += [f"{small}: posts small blind {money}{sb}", f"{big}: posts big blind {money}{bb}", "*** HOLE CARDS ***"]
    lines += [f"{p}: folds" for p in order[3:]] + [f"{order[0]}: folds", f"{small}: folds"]
    half = sb  # the big blind less the small one comes back
    pot = "20" if tournament else "0.10"
    lines += [f"Uncalled bet ({money}{half}) returned to {big}", f"{big} collected {money}{pot} from pot"]
    lines += spec.lines
    lines += ["*** SUMMARY ***", f"Total pot {money}{pot} | Rake {money}0"]
    lines += [f"Seat {s}: {spec.seats[s]} folded before Flop" for s in dealt if spec.seats[s] != big]
    lines += [f"Seat {dealt[2]}: {big} (big blind) collected ({money}{pot})", "", ""]
    return "\n".join(lines) + "\n"
