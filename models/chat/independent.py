"""Independently written poker chat through the whole chat path (`railbird eval chat --independent`).

Lines come from TSV files (`lang<TAB>label<TAB>text`, header first) written by people who have not
seen the rules or patterns. Each line becomes one `chat.messages` event and goes through the
pipeline `railbird replay` builds (every chat detector, then policy), in a fixed context:

- every line is sent at a table of its own, by a player of its own, while a hand runs there
  (`hand_id` set) and the speaker is not in it (`players_in_hand` holds two other seats). That is
  how the sets' hand-in-play lines were written ("typed during a running hand by a player not in
  it"), and it is the harder case for clean lines: hand-talk rules only run during a hand;
- a table, a player and a hand per line keep lines apart: no flooding, shouting match,
  harassment or repeat-offender finding can come from two lines of a set meeting, so a figure is
  about the line alone.

Counting (per category x language): a line of category C is found when a finding about its speaker
cites the same house rule as C (`rule_of`: insult, hate, threat and sexual are all chat.3, one
rule and one sanction); `exact` counts only findings of category C; `automatic` (the automatic-
action point's recall) counts lines that got an automatic action citing C's rule. A clean line counts against
the pipeline when any finding names it. Automatic actions are counted once per action id (two
detectors flagging one line make one mute); one is correct when the line is not clean and the
action cites the line's rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from models.chat.overlap import SeenTexts
from pipeline.categories import CHAT_OFFENCES, rule_of
from pipeline.contracts import CHAT
from pipeline.contracts.common import MAX_TEXT_CHARS
from pipeline.replay import envelope_line, replay_lines
from pipeline.runner import Pipeline

LANGS = ("en", "id", "vi", "hu", "uk", "ru")
CLEAN = "clean"
LABEL_ALIASES = {"collusion": "collusion_talk", "advertising": "spam"}
"""poker_chat_dev's names for two categories."""
MULTI_MESSAGE = frozenset({"flooding", "emoji_spam", "shouting", "harassment", "repeat_offender"})
"""Chat categories that need several messages: no single line can carry one."""
LABELS = frozenset({CLEAN} | CHAT_OFFENCES - MULTI_MESSAGE)
HEADER = ("lang", "label", "text")
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
"""Fixed event time: the same set gives the same events and finding ids on every run."""
CONTEXT = (
    "each line a chat.messages event on the table channel, at a table of its own, by a player of its "
    "own, during a running hand the speaker is not in; lines 1 s apart"
)
COUNTING = (
    "found = a finding about the speaker that cites the line's house rule (insult/hate/threat/sexual "
    "share chat.3); exact = a finding of the line's own category; clean flagged = any finding; "
    "automatic actions once per action id, correct when the line is not clean and the action cites "
    "its rule"
)


class EvalSetError(ValueError):
    """An evaluation file that cannot be used, with the file and line at fault."""


@dataclass(frozen=True, slots=True)
class LabelledLine:
    """One line of an evaluation set."""

    lang: str
    label: str
    text: str
    origin: str
    """`file:line`, for error messages."""


def read_set(path: Path) -> list[LabelledLine]:
    """Every line of a TSV file, or of every `*.tsv` in a directory (sorted by name)."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".tsv" and p.is_file())
        if not files:
            raise EvalSetError(f"{path}: no .tsv files")
        return [line for f in files for line in read_tsv(f)]
    if not path.is_file():
        raise EvalSetError(f"{path}: no such file or directory")
    return read_tsv(path)


def read_tsv(path: Path) -> list[LabelledLine]:
    """The lines of one file. Not the csv module: chat text holds quotes, which CSV quoting would
    eat; a text may even hold a tab (everything after the second tab is text)."""
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalSetError(f"{path}: cannot read ({exc})") from None
    rows = raw.splitlines()
    if not rows or tuple(c.strip().lower() for c in rows[0].split("\t")) != HEADER:
        raise EvalSetError(f"{path}:1: the header must be lang<TAB>label<TAB>text")
    out: list[LabelledLine] = []
    for number, row in enumerate(rows[1:], start=2):
        if not row.strip():
            continue
        out.append(_parse_row(row, f"{path}:{number}"))
    return out


def _parse_row(row: str, origin: str) -> LabelledLine:
    parts = row.split("\t", 2)
    if len(parts) != 3 or not parts[2].strip():
        raise EvalSetError(f"{origin}: expected lang<TAB>label<TAB>text")
    lang, label, text = parts[0].strip().lower(), parts[1].strip().lower(), parts[2]
    label = LABEL_ALIASES.get(label, label)
    if lang not in LANGS:
        raise EvalSetError(f"{origin}: unknown language {lang!r} (one of {', '.join(LANGS)})")
    if label not in LABELS:
        raise EvalSetError(f"{origin}: unknown label {label!r} (one of {', '.join(sorted(LABELS))})")
    return LabelledLine(lang, label, text, origin)


def chat_event(index: int, text: str) -> dict[str, Any]:
    """The event of the set's `index`-th line, in the documented context (module docstring)."""
    return {
        "event_id": f"ind-{index}",
        "ts": (T0 + timedelta(seconds=index)).isoformat(),
        "channel": "table",
        "player_id": f"ind-p{index}",
        "nickname": f"guest{index:05d}",
        "text": text,
        "client": "desktop",
        "table_id": f"ind-t{index}",
        "hand_id": f"ind-h{index}",
        "players_in_hand": [f"ind-p{index}-a", f"ind-p{index}-b"],
    }


@dataclass(slots=True)
class LineOutcome:
    """What the pipeline made of one line: categories found about its speaker, automatic actions
    (action id -> rule), and whether the event was refused."""

    categories: set[str] = field(default_factory=set)
    automatic: dict[str, str] = field(default_factory=dict)
    dead_letter: bool = False


def run_lines(texts: Sequence[str], pipeline: Pipeline) -> list[LineOutcome]:
    """Send the texts through the replay path (decode, every detector, policy, end-of-input
    flush) and collect each line's findings."""
    outcomes = [LineOutcome() for _ in texts]
    by_event = {f"ind-{i}": i for i in range(len(texts))}
    lines = (envelope_line(CHAT, chat_event(i, t)) for i, t in enumerate(texts))
    for out in replay_lines(lines, pipeline):
        if out["kind"] == "dead_letter":
            outcomes[out["line"] - 1].dead_letter = True
        elif out["kind"] == "finding":
            _attach(out["finding"], by_event, outcomes)
    return outcomes


def _attach(finding: dict[str, Any], by_event: dict[str, int], outcomes: list[LineOutcome]) -> None:
    for event_id in finding["source_event_ids"]:
        index = by_event.get(event_id)
        if index is None or finding["players"][0] != f"ind-p{index}":
            continue
        outcome = outcomes[index]
        outcome.categories.add(finding["category"])
        for action in finding["actions"]:
            if action["disposition"] == "automatic":
                outcome.automatic[action["action_id"]] = action["rule"]


def evaluate_set(
    lines: Sequence[LabelledLine],
    pipeline: Pipeline,
    *,
    seen: SeenTexts | None = None,
    tests: SeenTexts | None = None,
) -> dict[str, Any]:
    """Figures for one set; lines found in the training data (`seen`) are dropped and counted,
    lines found in the team's own test lines (`tests`) are counted and kept."""
    kept = [ln for ln in lines if seen is None or ln.text not in seen]
    too_long = [ln for ln in kept if len(ln.text) > MAX_TEXT_CHARS]
    kept = [ln for ln in kept if len(ln.text) <= MAX_TEXT_CHARS]
    outcomes = run_lines([ln.text for ln in kept], pipeline)
    result = score(kept, outcomes)
    result["lines"] = len(lines)
    result["in_training_dropped"] = len(lines) - len(kept) - len(too_long)
    result["too_long_dropped"] = len(too_long)
    result["dead_letters"] = sum(o.dead_letter for o in outcomes)
    result["in_authored_tests_kept"] = sum(1 for ln in kept if tests is not None and ln.text in tests)
    return result


def score(lines: Sequence[LabelledLine], outcomes: Sequence[LineOutcome]) -> dict[str, Any]:
    """Recall per category x language, clean lines flagged per language, automatic precision."""
    cells: dict[tuple[str, str], list[tuple[bool, bool, bool]]] = {}
    clean: dict[str, list[bool]] = {}
    found_as: dict[str, Counter[str]] = {}
    auto: dict[str, list[bool]] = {}
    for line, outcome in zip(lines, outcomes, strict=True):
        for rule in outcome.automatic.values():
            auto.setdefault(line.lang, []).append(line.label != CLEAN and rule == rule_of(line.label))
        if line.label == CLEAN:
            clean.setdefault(line.lang, []).append(bool(outcome.categories))
            found_as.setdefault(CLEAN, Counter()).update(outcome.categories)
            continue
        hit = any(rule_of(c) == rule_of(line.label) for c in outcome.categories)
        # The automatic-action point's recall: the line got an automatic action citing its rule.
        acted = any(rule == rule_of(line.label) for rule in outcome.automatic.values())
        cells.setdefault((line.label, line.lang), []).append((hit, line.label in outcome.categories, acted))
        found_as.setdefault(line.label, Counter()).update(outcome.categories - {line.label})
    return {
        "context": CONTEXT,
        "counting": COUNTING,
        "recall": _recall_table(cells),
        "recall_by_language": _by_language(cells),
        "clean_flagged": _clean_table(clean),
        "automatic_actions": _auto_table(auto),
        "other_categories_found": {k: dict(sorted(v.items())) for k, v in sorted(found_as.items()) if v},
    }


def _recall(pairs: Sequence[tuple[bool, bool, bool]]) -> dict[str, Any]:
    n = len(pairs)
    found = sum(h for h, _, _ in pairs)
    exact = sum(e for _, e, _ in pairs)
    acted = sum(a for _, _, a in pairs)
    return {
        "n": n,
        "found": found,
        "recall": _ratio(found, n),
        "exact": exact,
        "recall_exact": _ratio(exact, n),
        "automatic": acted,
        "recall_automatic": _ratio(acted, n),
    }


def _recall_table(cells: dict[tuple[str, str], list[tuple[bool, bool, bool]]]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for category in sorted({c for c, _ in cells}):
        row = {lang: _recall(cells[(category, lang)]) for lang in LANGS if (category, lang) in cells}
        row["all"] = _recall([p for (c, _), ps in cells.items() if c == category for p in ps])
        table[category] = row
    return table


def _by_language(cells: dict[tuple[str, str], list[tuple[bool, bool, bool]]]) -> dict[str, dict[str, Any]]:
    langs = [lang for lang in LANGS if any(lg == lang for _, lg in cells)]
    out = {lang: _recall([p for (_, lg), ps in cells.items() if lg == lang for p in ps]) for lang in langs}
    out["all"] = _recall([p for ps in cells.values() for p in ps])
    return out


def _clean_table(clean: dict[str, list[bool]]) -> dict[str, dict[str, Any]]:
    def row(flags: Sequence[bool]) -> dict[str, Any]:
        n, flagged = len(flags), sum(flags)
        return {"n": n, "flagged": flagged, "percent": round(100.0 * flagged / n, 2) if n else None}

    out = {lang: row(clean[lang]) for lang in LANGS if lang in clean}
    out["all"] = row([f for flags in clean.values() for f in flags])
    return out


def _auto_table(auto: dict[str, list[bool]]) -> dict[str, dict[str, Any]]:
    def row(correct: Sequence[bool]) -> dict[str, Any]:
        return {
            "actions": len(correct),
            "correct": sum(correct),
            "precision": _ratio(sum(correct), len(correct)),
        }

    out = {lang: row(auto[lang]) for lang in LANGS if lang in auto}
    out["all"] = row([c for cs in auto.values() for c in cs])
    return out


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def markdown(results: dict[str, dict[str, Any]]) -> str:
    """One Markdown section per set: recall per category x language (found/n), clean lines
    flagged, automatic-action precision."""
    return "\n\n".join(_markdown_set(name, result) for name, result in results.items())


def _markdown_set(name: str, result: dict[str, Any]) -> str:
    if "note" in result:
        return f"### {name}\n\n{result['note']}"
    recall = result["recall"]
    langs = [
        lang
        for lang in LANGS
        if any(lang in row for row in recall.values()) or lang in result["clean_flagged"]
    ]
    head = ["category", *langs, "all", "exact (all)", "automatic (all)"]
    rows = [_md_row(head), _md_row(["---"] * len(head))]
    for category, row in recall.items():
        cells = [_cell(row.get(lang)) for lang in langs]
        rows.append(_md_row([category, *cells, _cell(row["all"]), _exact(row["all"]), _acted(row["all"])]))
    by_lang = result["recall_by_language"]
    rows.append(
        _md_row(
            [
                "**every category**",
                *(_cell(by_lang.get(lg)) for lg in langs),
                _cell(by_lang["all"]),
                _exact(by_lang["all"]),
                _acted(by_lang["all"]),
            ]
        )
    )
    flagged = result["clean_flagged"]
    rows.append(
        _md_row(["clean lines flagged", *(_pct(flagged.get(lg)) for lg in langs), _pct(flagged["all"]), "", ""])
    )
    auto = result["automatic_actions"]
    rows.append(
        _md_row(
            ["automatic actions: precision", *(_auto(auto.get(lg)) for lg in langs), _auto(auto["all"]), "", ""]
        )
    )
    notes = (f"{result['lines']} lines; dropped as found in training text: {result['in_training_dropped']}; "
             f"too long: {result['too_long_dropped']}; refused by the contract: {result['dead_letters']}; "
             f"also in the team's own test lines (kept): {result['in_authored_tests_kept']}")  # fmt: skip
    return f"### {name}\n\n{notes}\n\n" + "\n".join(rows)


def _md_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(r: dict[str, Any] | None) -> str:
    return "" if r is None else f"{r['found']}/{r['n']} ({r['recall']:.2f})"


def _exact(r: dict[str, Any]) -> str:
    return f"{r['exact']}/{r['n']} ({r['recall_exact']:.2f})"


def _acted(r: dict[str, Any]) -> str:
    """Recall at the automatic-action point (an automatic action citing the line's rule)."""
    return f"{r['automatic']}/{r['n']} ({r['recall_automatic']:.2f})"


def _pct(r: dict[str, Any] | None) -> str:
    return "" if r is None or not r["n"] else f"{r['flagged']}/{r['n']} ({r['percent']:.1f} %)"


def _auto(r: dict[str, Any] | None) -> str:
    if r is None or not r["actions"]:
        return "0 actions" if r is not None else ""
    return f"{r['correct']}/{r['actions']} ({r['precision']:.2f})"


def iter_sets(paths: Sequence[Path]) -> Iterator[tuple[str, Path]]:
    """(name, path) per set: a directory is named by its last two parts (`independent/dev`), a
    file by its stem; a name used twice gets a number."""
    used: Counter[str] = Counter()
    for path in paths:
        name = "/".join(path.parts[-2:]) if path.is_dir() else path.stem
        used[name] += 1
        yield (name if used[name] == 1 else f"{name}#{used[name]}"), path
