"""Runs every benchmark script in bench/, collects bench/results/*.json into bench/results.json and
prints a summary table. `make bench` calls this.

    .venv/bin/python -m bench.run_all [--only simulator_rate,seat_detectors] [--skip e2e_throughput]
                                      [--timeout 1800] [--collect-only]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS_DIR = BENCH / "results"
COMBINED = BENCH / "results.json"
SLOW = {"e2e_throughput": 2.0}
"""Timeout multipliers: the end-to-end bench starts consumer groups and review APIs (SQLite and
PostgreSQL, two mixes) many times over, ~20 minutes on two idle cores."""
HEADLINE_HINTS = ("median", "ratio", "p99", "per_s", "peak")
"""Top-level result keys worth a column in the printed table."""


@dataclass(frozen=True)
class Outcome:
    """One script's run: exit code (None = timed out) and wall seconds."""

    name: str
    code: int | None
    seconds: float


def scripts(only: set[str], skip: set[str]) -> list[str]:
    """Benchmark module names in bench/, sorted; run_all itself and private modules excluded."""
    names = sorted(p.stem for p in BENCH.glob("*.py") if p.stem not in ("run_all", "__init__") and not p.stem.startswith("_"))
    return [n for n in names if (not only or n in only) and n not in skip]


def run_script(name: str, *, timeout: float) -> Outcome:
    """Run `python -m bench.<name>` from the repository root, streaming its output."""
    began = time.monotonic()
    print(f"== bench.{name}", flush=True)
    try:
        done = subprocess.run([sys.executable, "-m", f"bench.{name}"], cwd=ROOT, timeout=timeout, check=False)
        code: int | None = done.returncode
    except subprocess.TimeoutExpired:
        code = None
        print(f"!! bench.{name} timed out after {timeout:.0f}s", flush=True)
    return Outcome(name, code, time.monotonic() - began)


def collect() -> dict[str, Any]:
    """Every bench/results/*.json by file stem (unreadable files are reported, not fatal)."""
    out: dict[str, Any] = {}
    for path in sorted(RESULTS_DIR.glob("*.json")):
        try:
            out[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            out[path.stem] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def headline(result: Any, limit: int = 4) -> str:
    """A few top-level figures of one result, for the table."""
    if not isinstance(result, dict):
        return ""
    picks = [f"{k}={v}" for k, v in result.items()
             if isinstance(v, int | float) and not isinstance(v, bool) and any(h in k for h in HEADLINE_HINTS)]
    return "; ".join(picks[:limit])


def table(outcomes: list[Outcome], results: dict[str, Any]) -> str:
    """Plain-text summary: script, status, seconds, headline figures."""
    runs = {o.name: o for o in outcomes}
    rows = [("benchmark", "status", "seconds", "figures")]
    for name in sorted(set(runs) | set(results)):
        o = runs.get(name)
        if o is None:
            status = "collected"
        else:
            status = "timeout" if o.code is None else ("ok" if o.code == 0 else f"exit {o.code}")
        rows.append((name, status, f"{o.seconds:.0f}" if o else "-", headline(results.get(name))))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}" for r in rows)


def main(argv: list[str] | None = None) -> int:
    """Run the scripts, combine the results, print the table; non-zero if any script failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated script names to run")
    parser.add_argument("--skip", default="", help="comma-separated script names to leave out")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per script")
    parser.add_argument("--collect-only", action="store_true", help="only combine existing results")
    args = parser.parse_args(argv)
    only = {n for n in args.only.split(",") if n}
    skip = {n for n in args.skip.split(",") if n}
    outcomes = [] if args.collect_only else [
        run_script(n, timeout=args.timeout * SLOW.get(n, 1.0)) for n in scripts(only, skip)
    ]
    results = collect()
    combined = {
        "python": platform.python_version(), "machine": platform.machine(),
        "runs": {o.name: {"exit_code": o.code, "seconds": round(o.seconds, 1)} for o in outcomes},
        "results": results,
    }
    COMBINED.write_text(json.dumps(combined, indent=2) + "\n", encoding="utf-8")
    print(table(outcomes, results))
    print(f"combined results: {COMBINED.relative_to(ROOT)}")
    return 0 if all(o.code == 0 for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
