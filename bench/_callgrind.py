"""Executed instructions of chosen stretches of a benchmark, by callgrind (valgrind).

On this shared 2-core machine the CPU-time medians of a benchmark move by more than the 10 % they
are asked to show (docs/shadow-and-retro.md, "Cost"); instructions executed do not depend on load.
The benchmark runs under `valgrind --tool=callgrind --instr-atstart=no`, and a tiny C helper built
here from valgrind's own header switches instrumentation on and off around the stretch and dumps
the count under a label (callgrind client requests). Used by `bench/shadow_overhead.py
--instructions`; needs valgrind and gcc (Debian `valgrind`, `gcc`), bench-only.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_SOURCE = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(const char *label) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT(label); }
int cg_running(void) { return RUNNING_ON_VALGRIND; }
"""
_LIB = Path(tempfile.gettempdir()) / "railbird-bench-callgrind.so"


def available() -> str | None:
    """None when callgrind can be used here, else what is missing."""
    for tool in ("valgrind", "gcc"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install valgrind gcc)"
    if not Path("/usr/include/valgrind/callgrind.h").exists():
        return "valgrind's header callgrind.h is missing (apt-get install valgrind)"
    return None


def _library() -> ctypes.CDLL:
    if not _LIB.exists():
        src = _LIB.with_suffix(".c")
        src.write_text(_SOURCE)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(_LIB), str(src)], check=True)
    return ctypes.CDLL(str(_LIB))


class Counter:
    """Labels stretches of the running program for callgrind (a no-op when not under valgrind)."""

    def __init__(self) -> None:
        self._lib = _library()
        self.active = bool(self._lib.cg_running())

    @contextmanager
    def stretch(self, label: str) -> Iterator[None]:
        """Count the instructions of the `with` body under `label`."""
        if self.active:
            self._lib.cg_start()
        try:
            yield
        finally:
            if self.active:
                self._lib.cg_stop(label.encode())


def command(out_dir: Path, argv: list[str]) -> list[str]:
    """`argv` run under callgrind, its dumps written into `out_dir`."""
    return ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--trace-children=yes",
            f"--callgrind-out-file={out_dir}/cg.%p", *argv]


def totals(out_dir: Path) -> dict[str, int]:
    """Label -> instructions, from the dumps a run left in `out_dir` (a label counted twice: summed)."""
    out: dict[str, int] = {}
    for dump in sorted(out_dir.glob("cg.*")):
        text = dump.read_text(errors="replace")
        label = re.search(r"^desc: Trigger: Client Request: (.+)$", text, re.M)
        total = re.search(r"^totals: (\d+)", text, re.M)
        if label and total:
            out[label.group(1)] = out.get(label.group(1), 0) + int(total.group(1))
    return out


class CountError(Exception):
    """The run could not be counted: valgrind missing, or the counted program failed (its output)."""


@contextmanager
def counted_run(module: str, args: list[str]) -> Iterator[tuple[dict[str, int], Path]]:
    """`python -m module *args --counted-child DIR` under callgrind, with PYTHONHASHSEED=0 so every
    run has the same dict and set orders; yields label -> instructions and DIR (for files the child
    left there), removed afterwards. Raises CountError with the reason."""
    missing = available()
    if missing:
        raise CountError(f"cannot count instructions: {missing}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        child = [sys.executable, "-m", module, *args, "--counted-child", str(out)]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        run = subprocess.run(command(out, child), env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise CountError(f"counted run failed ({run.returncode}):\n{run.stdout[-2000:]}\n{run.stderr[-4000:]}")
        yield totals(out), out
