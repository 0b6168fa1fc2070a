"""Import speed of hand-history files: bytes -> parsed hands -> contract-validated records.

Files are written in PokerStars and GGPoker text by tests/hands/render_stars.py from generated legal
hands (6-9 players; tournament hands with antes, cash hands in cents, chat lines), so every hand's
true values are known; the real Pluribus files are timed too when present (settings.hands_dir).
Rates are hands per CPU second of this process (`time.process_time`), median of runs: the 2-core
machine is shared, so wall-clock rates (also written) understate one core. The whole pipeline of
`railbird import` is timed except writing the output: reading, splitting, parsing, JSON, the
contract with its replay, and the seat events consecutive hands show (one `SeatTracker` per run,
as `railbird import` keeps). A rendered table keeps its players from hand to hand, 6 to 9 of the
same 9 dealt in, so seats churn as at a real table. Writes bench/results/hand_import.json.

    .venv/bin/python -m bench.hand_import [--runs 5] [--hands 3000]
    .venv/bin/python -m bench.hand_import --instructions   # executed instructions per hand

`--instructions` counts with callgrind (bench/_callgrind.py) what one import of each file executes
after a warm one: unlike CPU time on the shared machine, the count does not move with load, so two
versions of the importer compare to the instruction. Writes hand_import_instructions.json.
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import _callgrind
from pipeline.hands.importing import Imported, file_outcomes, text_outcomes
from pipeline.hands.seating import SeatTracker
from railbird.settings import Settings
from tests.hands.generators import HandSpec, Tactics, play_hand, random_style
from tests.hands.render_stars import render

RESULTS = Path(__file__).parent / "results" / "hand_import.json"
INSTRUCTIONS = RESULTS.with_name("hand_import_instructions.json")


def rendered(site: str, hands: int, seed: int = 7) -> bytes:
    """A history file of `hands` generated hands in one site's format."""
    rng = random.Random(seed)
    parts = []
    for k in range(hands):
        n = rng.randint(6, 9)
        players = [f"player{k % 7}_{i}" for i in range(n)]  # render_stars seats hand k at table k % 7
        tour = k % 2 == 0
        stacks = [rng.randint(10, 150) * 100 if tour else rng.randint(80, 250) * 10 for _ in players]
        spec = HandSpec(players, stacks, 100 if tour else 10, ante=10 if tour else 0)
        record = play_hand(spec, {p: random_style(rng) for p in players}, Tactics(), rng)
        chat = [(players[0], "gl")] if k % 10 == 0 else []
        parts.append(render(record, site=site, number=10_000 + k, tournament=5 if tour else None, chat=chat))
    return "".join(parts).encode("utf-8")


def rate(data: bytes, runs: int) -> dict[str, Any]:
    """Median hands per CPU second and per wall second of importing `data`."""
    cpu, wall, count = [], [], 0
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        count = _import_bytes(data)
        cpu.append(count / (time.process_time() - c0))
        wall.append(count / (time.perf_counter() - w0))
    return {"hands": count, "hands_per_cpu_s": round(statistics.median(cpu)), "hands_per_wall_s": round(statistics.median(wall))}


def pluribus(runs: int) -> dict[str, Any] | None:
    """The real Pluribus files (PokerStars text), if present."""
    files = _pluribus_files()
    if not files:
        return None
    cpu = []
    count = 0
    for _ in range(runs):
        c0 = time.process_time()
        count = _import_files(files)
        cpu.append(count / (time.process_time() - c0))
    return {"hands": count, "hands_per_cpu_s": round(statistics.median(cpu))}


def _pluribus_files() -> list[Path]:
    folder = Settings().hands_dir / "pluribus"
    return sorted(folder.glob("*.txt")) if folder.is_dir() else []


def _imports(hands: int) -> dict[str, Callable[[], int]]:
    """Label -> one import of that input, returning the hands imported."""
    inputs: dict[str, Callable[[], int]] = {}
    for label, site in (("pokerstars_rendered", "ps"), ("ggpoker_rendered", "gg")):
        data = rendered(site, hands)
        inputs[label] = functools.partial(_import_bytes, data)
    files = _pluribus_files()
    if files:
        inputs["pluribus"] = functools.partial(_import_files, files)
    return inputs


def _import_bytes(data: bytes) -> int:
    return sum(isinstance(o, Imported) for o in text_outcomes(io.BytesIO(data), SeatTracker()))


def _import_files(files: list[Path]) -> int:
    seats = SeatTracker()
    return sum(isinstance(o, Imported) for f in files for o in file_outcomes(f, seats=seats))


def counted_child(hands: int, out: Path) -> None:
    """What `instructions` runs under callgrind: each input imported warm once, then counted once."""
    counter = _callgrind.Counter()
    counts = {}
    for label, run in _imports(hands).items():
        run()
        with counter.stretch(label):
            counts[label] = run()
    (out / "hands.json").write_text(json.dumps(counts), encoding="utf-8")


def instructions(hands: int) -> int:
    """Instructions executed per imported hand, per input; writes INSTRUCTIONS."""
    try:
        with _callgrind.counted_run("bench.hand_import", ["--hands", str(hands)]) as (counts, out):
            imported = json.loads((out / "hands.json").read_text(encoding="utf-8"))
    except _callgrind.CountError as exc:
        print(exc)
        return 2
    figures = {label: round(counts[label] / imported[label]) for label in sorted(counts)}
    for label, per_hand in figures.items():
        print(f"{label:<20} {per_hand:>10,} instructions per imported hand ({imported[label]} hands)")
    result = {"hands": imported, "instructions_per_hand": figures, "python": platform.python_version(),
              "measure": "instructions executed by one import of each input (callgrind, PYTHONHASHSEED=0, after a warm run)"}
    INSTRUCTIONS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {INSTRUCTIONS}")
    return 0


def main() -> int:
    """Measure and write the results file (or count instructions)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--instructions", action="store_true",
                        help=f"count executed instructions per hand with callgrind instead of timing (writes {INSTRUCTIONS.name})")
    parser.add_argument("--counted-child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions:
        return instructions(args.hands)
    if args.counted_child is not None:
        counted_child(args.hands, args.counted_child)
        return 0
    results = {
        "pokerstars_rendered": rate(rendered("ps", args.hands), args.runs),
        "ggpoker_rendered": rate(rendered("gg", args.hands), args.runs),
        "pluribus": pluribus(max(1, args.runs // 2)),
        "target_hands_per_cpu_s": 5000,
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
