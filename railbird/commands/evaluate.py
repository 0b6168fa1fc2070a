"""`railbird eval {chat,scenario}`: the chat model on labelled data, or the whole pipeline on a
simulated room with planted offences."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from railbird.commands.bounty_options import add_bounty_arguments, bounty_config, bounty_error
from railbird.settings import Settings

CHAT_EVAL_MODULE = "models.chat.evaluate"


def _chat_module() -> ModuleType | None:
    try:
        return importlib.import_module(CHAT_EVAL_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name is not None and CHAT_EVAL_MODULE.startswith(exc.name):
            return None
        raise


class _EvalParser(argparse.ArgumentParser):
    """A subcommand parser that can add its arguments only when it is actually used, so that
    `eval scenario` never pays for importing the chat model's evaluation."""

    lazy: Callable[[argparse.ArgumentParser], None] | None = None

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None,
    ) -> tuple[argparse.Namespace, list[str]]:
        if self.lazy is not None:
            load, self.lazy = self.lazy, None
            load(self)
        return super().parse_known_args(args, namespace)


def _chat_arguments(parser: argparse.ArgumentParser) -> None:
    module = _chat_module()
    if module is not None:
        module.add_chat_eval_arguments(parser)
    else:
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`chat` takes the chat evaluation's own options; `scenario` a seed and room size."""
    sub = parser.add_subparsers(dest="eval_command", required=True, metavar="{chat,scenario}",
                                parser_class=_EvalParser)
    chat = sub.add_parser("chat", help="evaluate the chat model on the labelled datasets")
    chat.lazy = _chat_arguments
    scenario = sub.add_parser("scenario", help="simulate a room and score every detector on planted offences")
    scenario.add_argument("--seed", type=int, nargs="+", default=[1], help="one or more seeds (pooled)")
    scenario.add_argument("--minutes", type=float, default=60.0, help="room time (default 60)")
    scenario.add_argument("--players", type=int, default=300)
    scenario.add_argument("--profile", choices=["normal", "demo"], default="normal")
    add_bounty_arguments(scenario)
    scenario.add_argument("--out", default=None, help="also write the JSON result to this file")
    scenario.add_argument("--markdown", action="store_true", help="print a Markdown table instead of JSON")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Dispatch to the chosen evaluation."""
    if args.eval_command == "chat":
        module = _chat_module()
        if module is None:
            print(f"railbird eval chat: {CHAT_EVAL_MODULE} is not available in this build", file=sys.stderr)
            return 2
        return int(module.run_chat_eval(args, settings))
    return _run_scenario(args, settings)


def _run_scenario(args: argparse.Namespace, settings: Settings) -> int:
    from railbird.wiring import make_pipeline, rules_from
    from simulator.config import RoomConfig
    from simulator.scenario import combine, markdown_table, run_scenario

    if args.minutes <= 0 or args.players < 1:
        print("railbird eval scenario: --minutes and --players must be positive", file=sys.stderr)
        return 2
    if (error := bounty_error(args)) is not None:
        print(f"railbird eval scenario: {error}", file=sys.stderr)
        return 2
    pipeline = make_pipeline(settings)
    registered = sorted({d.name for topic in ("chat.messages", "snapcam.reports", "seat.activity", "hand.records")
                         for d in pipeline.detectors_for(topic)})
    results: list[dict[str, Any]] = []
    for seed in args.seed:
        config = RoomConfig.for_profile(args.profile, seed=seed, minutes=args.minutes, players=args.players,
                                        **bounty_config(args))
        one = run_scenario(pipeline=make_pipeline(settings) if results else pipeline, config=config,
                           registered=registered, exempt_formats=rules_from(settings).exempt_formats)
        one["rules_version"] = settings.rules_version
        results.append(one)
    result: dict[str, Any] = results[0] if len(results) == 1 else {"pooled": combine(results), "runs": results}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    table = markdown_table(result.get("pooled", result))
    print(table if args.markdown else text)
    return 0
