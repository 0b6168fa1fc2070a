"""Chat classifier speed beside alt-profanity-check on the same messages, same run, one core.

Message sets: `dataset_texts` (the test parts of the public sets, read from settings.datasets_dir,
de-duplicated and shuffled), `table_talk` (the authored table-talk lines, each once) — both with
the verdict cache OFF, so every message is analysed — and `table_talk_repeated` (the same lines x10
in batch order, cache ON and emptied before every run: chat repeats "gg", "nh", "ty").
Batch throughput (messages/s, median of 5 runs over all messages) and single-message latency
(p50/p99 over 2,000 one-message calls after warm-up, cache OFF).
`cold_pass_msgs_per_cpu_s`: one pass with the word and lingua memos emptied first
(`clear_memos`); the 5 runs after it reuse them, as a running classifier does.
`unseen_msgs_per_cpu_s`: a new classifier warmed up on one sixth of the texts, then each of the
other five sixths classified once (median of the 5): messages it has never seen, in a process that
is no longer starting up. The timed runs above repeat the same texts, so lingua's memo already
holds what they need (and, with the RE2 fallback engine, the prefilter's lazily built DFA states);
never-seen text pays for them.
`load_seconds`: artifact load with the pattern database compiled (empty cache directory);
`load_seconds_cached`: the same with the compiled database found in the cache, as every process
after the first loads it.
Both clocks are reported. The targets are judged on CPU time (house rules: this 2-core machine
is shared and noisy): wall time adds the time the process waits for a core while other work
runs, which is the scheduler's, not the classifier's; the wall figures and the load average
are written beside them so the difference stays visible.
Writes bench/results/chat_classifier.json.
Run: OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python bench/chat_classifier.py
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from models.chat import ChatClassifier, load_classifier
from models.chat.artifact import ChatModel
from models.chat.corpus.table_talk import BASE, table_talk
from models.chat.data import LOADERS
from railbird.settings import load_settings

RESULTS = Path(__file__).resolve().parent / "results" / "chat_classifier.json"
N_MESSAGES = 20_000
BATCH = 5_000


def messages(datasets_dir: Path) -> list[str]:
    """De-duplicated, shuffled chat-like messages in every room language."""
    texts: list[str] = []
    for lang in BASE:
        texts += table_talk(lang)
    for name in ("davidson", "sms_spam", "vihos", "ru_distorted", "id_ibrohim", "vihsd"):
        texts += [s.text for s in LOADERS[name](datasets_dir) if s.split == "test"]
    unique = list(dict.fromkeys(t for t in texts if t.strip()))
    random.Random(7).shuffle(unique)
    return unique[:N_MESSAGES]


def throughput(
    fn: object, texts: list[str], runs: int = 5, clock: str = "wall", before: object = None
) -> list[float]:
    """Messages per second of `fn(batch)` over all texts in batches, per run (the first run is
    the one with a cold language memo). clock "cpu" = this process's CPU time, which a shared,
    overloaded machine inflates far less than wall time."""
    timer = time.process_time if clock == "cpu" else time.perf_counter
    rates = []
    for _ in range(runs):
        if before is not None:
            before()  # type: ignore[operator]
        start = timer()
        for i in range(0, len(texts), BATCH):
            fn(texts[i : i + BATCH])  # type: ignore[operator]
        rates.append(len(texts) / (timer() - start))
    return rates


def latency(fn: object, texts: list[str], n: int = 2000, clock: str = "wall") -> dict[str, float]:
    """p50/p99 milliseconds of one-message calls (wall or thread CPU time)."""
    timer = time.thread_time if clock == "cpu" else time.perf_counter
    for t in texts[:200]:
        fn([t])  # type: ignore[operator]
    times = []
    for t in texts[:n]:
        start = timer()
        fn([t])  # type: ignore[operator]
        times.append((timer() - start) * 1000)
    times.sort()
    return {"p50_ms": round(times[len(times) // 2], 4), "p99_ms": round(times[int(len(times) * 0.99)], 4)}


def cold_pass(classifier: ChatClassifier, texts: list[str]) -> float:
    """Messages per CPU-second of one pass with every memo empty (the verdict cache is off)."""
    classifier.clear_memos()
    start = time.process_time()
    for i in range(0, len(texts), BATCH):
        classifier.classify(texts[i : i + BATCH])
    return len(texts) / (time.process_time() - start)


def unseen_pass(model: ChatModel, texts: list[str], cache_dir: Path, parts: int = 6) -> list[float]:
    """Messages per CPU-second of each never-seen part, after warming a new classifier up on
    the first part (interleaved parts, so every part has the same mix of sets)."""
    fresh = ChatClassifier(model, cache_size=0, cache_dir=cache_dir)
    slices = [texts[k::parts] for k in range(parts)]
    for i in range(0, len(slices[0]), BATCH):
        fresh.classify(slices[0][i : i + BATCH])
    rates = []
    for part in slices[1:]:
        start = time.process_time()
        for i in range(0, len(part), BATCH):
            fresh.classify(part[i : i + BATCH])
        rates.append(len(part) / (time.process_time() - start))
    return rates


def main() -> None:
    """Run both, print the medians and the ratio, write the JSON."""
    from profanity_check import predict_prob

    settings = load_settings()
    texts = messages(settings.datasets_dir)
    cache_dir = Path(tempfile.mkdtemp(prefix="railbird-bench-cache-"))
    started = time.perf_counter()
    classifier = load_classifier(settings.chat_model_path, cache_dir=cache_dir)
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    load_classifier(settings.chat_model_path, cache_dir=cache_dir)
    load_cached_s = time.perf_counter() - started
    uncached = ChatClassifier(classifier.model, cache_size=0, cache_dir=cache_dir)
    distinct = list(dict.fromkeys(t for lang in BASE for t in table_talk(lang)))

    def cold_cache(batch: list[str]) -> object:
        return classifier.classify(batch)

    sets = {
        "dataset_texts": (texts, uncached.classify),
        "table_talk": (distinct, uncached.classify),
        "table_talk_repeated": (distinct * 10, cold_cache),
    }
    result: dict[str, object] = {
        "cpu_affinity": sorted(os.sched_getaffinity(0)),
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "load_seconds": round(load_s, 3),
        "load_seconds_cached": round(load_cached_s, 3),
        "prefilter_engine": classifier.analyzer.rules.engine,
        "batch": BATCH,
        "p99_judged_on": "cpu",
    }
    for name, (msgs, ours_fn) in sets.items():
        row: dict[str, object] = {
            "messages": len(msgs),
            "mean_chars": round(statistics.mean(len(m) for m in msgs), 1),
        }
        if ours_fn == uncached.classify:
            row["cold_pass_msgs_per_cpu_s"] = round(cold_pass(uncached, msgs))
            unseen = unseen_pass(classifier.model, msgs, cache_dir)
            row["unseen_msgs_per_cpu_s"] = round(statistics.median(unseen))
            row["unseen_msgs_per_cpu_s_runs"] = [round(r) for r in unseen]
        for clock in ("wall", "cpu"):
            ours = throughput(ours_fn, msgs, clock=clock, before=classifier.clear_cache)
            peer = throughput(predict_prob, msgs, clock=clock)
            row[clock] = {
                "railbird_msgs_per_s_median": round(statistics.median(ours)),
                "targets_met": {
                    "batch_20k_msgs_per_s": statistics.median(ours) >= 20_000,
                },
                "railbird_msgs_per_s_runs": [round(r) for r in ours],
                "profanity_check_msgs_per_s_median": round(statistics.median(peer)),
                "throughput_ratio": round(statistics.median(ours) / statistics.median(peer), 3),
                "railbird_single": latency(uncached.classify, msgs, clock=clock),
                "profanity_check_single": latency(predict_prob, msgs, clock=clock),
            }
            met = row[clock]["targets_met"]  # type: ignore[index]
            met["single_p99_2ms"] = row[clock]["railbird_single"]["p99_ms"] <= 2.0  # type: ignore[index]
        result[name] = row
    result["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
