"""`railbird backtest PATH`: import a folder of hand histories, replay them through every detector,
and write a Markdown report an analyst can read (per detector: findings, players, evidence hands);
`--html FILE` writes the same report as one HTML page with charts (`railbird/backtest_html.py`).

The same steps as `railbird import hands PATH --out F` then `railbird replay F`, in one command;
`--events FILE` keeps the imported events for a later replay.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from pipeline.hands.seating import SeatTracker
from pipeline.replay import replay_lines
from railbird.backtest_html import flagged_pairs, hand_stats, render_html
from railbird.commands.importer import Tally, _files, _size, _summary, import_file
from railbird.progress import MODES, Progress, choose_mode
from railbird.settings import Settings
from railbird.wiring import make_pipeline

MAX_ROWS = 50
"""Findings listed per detector (all are counted)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`PATH [--out REPORT.md] [--html REPORT.html] [--events FILE]`."""
    parser.add_argument("path", help="a hand-history file or a folder of them (GGPoker, PokerStars, PHH)")
    parser.add_argument("--out", help="Markdown report file (default: stdout, unless --html is given)")
    parser.add_argument("--html", help="also (or only, without --out) the report as a self-contained HTML page with charts")
    parser.add_argument("--events", help="also keep the imported events (JSON lines) here")
    parser.add_argument("--progress", choices=MODES, default="auto", help="import progress on stderr, as for `railbird import`")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Import, replay, report; 2 on a bad PATH, 1 when no hand imported."""
    root = Path(args.path)
    if not root.exists():
        print(f"railbird backtest: no such path: {root}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        events = Path(args.events) if args.events else Path(tmp) / "events.jsonl"
        tally, files, seats = Tally(), 0, SeatTracker()
        paths = list(_files(root))
        # The import is the long part of a backtest: the same progress as `railbird import` on stderr.
        writes_stdout = not args.out and not getattr(args, "html", None)
        progress = Progress(sys.stderr, choose_mode(getattr(args, "progress", "auto"), sys.stderr, sys.stdout, writes_stdout),
                            files=len(paths), total_bytes=sum(_size(p) for p in paths))
        with events.open("w", encoding="utf-8") as sink:
            for path in paths:
                tally.add(import_file(path, "auto", sink, None, seats, progress, tally))
                files += 1
        progress.close()
        if not tally.imported:
            print("railbird backtest: no hand imported", file=sys.stderr)
            return 1
        with events.open(encoding="utf-8") as lines:
            outputs = list(replay_lines(lines, make_pipeline(settings)))
        html_path = getattr(args, "html", None)
        if html_path:
            pairs = flagged_pairs(outputs)
            with events.open(encoding="utf-8") as lines:  # a second pass: the charts need the pairs first
                stats = hand_stats(lines, [pair for pair, _ in pairs])
            if not _write(Path(html_path), render_html(str(root), files, tally, outputs, stats, pairs)):
                return 2
    report = render_report(str(root), files, tally, outputs)
    if args.out:
        return 0 if _write(Path(args.out), report) else 2
    if not html_path:
        sys.stdout.write(report)
    return 0


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"railbird backtest: cannot write {path}: {exc.strerror}", file=sys.stderr)
        return False
    return True


def render_report(root: str, files: int, tally: Tally, outputs: list[dict[str, Any]]) -> str:
    """The Markdown report of one backtest."""
    summary = _summary(tally)
    by_detector: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for out in outputs:
        if out["kind"] == "finding":
            by_detector[out["finding"]["detector"]].append(out["finding"])
    lines = [f"# Backtest of `{root}`", ""]
    lines.append(f"{files} files: {tally.imported} hands imported, {tally.rejected} rejected"
                 f" ({_reasons(summary['reasons'])}), {tally.chats} chat lines, {tally.seat_events} seat events"
                 f" (derived from consecutive hands), {tally.junk_lines} lines outside any hand.")
    errors = [o for o in outputs if o["kind"] in ("dead_letter", "detector_error")]
    lines += [f"Replay: {sum(len(v) for v in by_detector.values())} findings, {len(errors)} dead letters or detector errors.", ""]
    lines += ["| detector | findings | players |", "|---|---|---|"]
    for name in sorted(by_detector):
        found = by_detector[name]
        players = {p for f in found for p in f["players"]}
        lines.append(f"| {name} | {len(found)} | {len(players)} |")
    for name in sorted(by_detector):
        lines += ["", f"## {name}", "", "| category | score | players | table / tournament | evidence | summary |",
                  "|---|---|---|---|---|---|"]
        for f in by_detector[name][:MAX_ROWS]:
            place = f.get("tournament_id") or f.get("table_id") or ""
            evidence = ", ".join(f.get("source_event_ids", [])[:5])
            lines.append(f"| {f['category']} | {f['score']:.2f} | {', '.join(f['players'])} | {place} | {evidence} | "
                         f"{_cell(f['summary'])} |")
        if len(by_detector[name]) > MAX_ROWS:
            lines.append(f"\n({len(by_detector[name]) - MAX_ROWS} more not listed)")
    if summary["first_rejects"]:
        lines += ["", "## First rejected hands", ""]
        lines += [f"- `{r['file']}` {r['reason']}" for r in summary["first_rejects"]]
    return "\n".join(lines) + "\n"


def _reasons(reasons: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "none"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:200]
