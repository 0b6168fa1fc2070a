"""How fast this machine's core is right now, as one number a bench can print beside its figures.

The shared 2-core bench machine's speed moves by more than 2x between sessions (a pure-Python loop
of 10^7 additions took 0.64 CPU-s on 6 Dec and 1.46-1.74 on 7 Dec), so a rate in messages per
CPU second from one session cannot be set beside another's without it. The loop is plain
interpreter work, like the detectors; it is a yardstick, not a correction: figures are quoted as
measured, with this beside them.
"""

from __future__ import annotations

import statistics
import time


def loop_seconds(runs: int = 3, n: int = 10**7) -> float:
    """Median CPU seconds of `n` additions in a Python loop."""
    times = []
    for _ in range(runs):
        start, total = time.process_time(), 0
        for i in range(n):
            total += i
        times.append(time.process_time() - start)
    return round(statistics.median(times), 3)
