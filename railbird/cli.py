"""`railbird` entry point: builds the settings once and dispatches to one command module."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol, cast

from railbird.settings import Settings, load_settings

COMMANDS: dict[str, tuple[str, str]] = {
    "broker": ("railbird.commands.broker", "start the embedded Kafka-compatible broker on loopback"),
    "api": ("railbird.commands.api", "run the review API and console (and the outbox relay)"),
    "consume": ("railbird.commands.consume", "consume one input topic or all of them"),
    "skip": ("railbird.commands.skip", "dead-letter an undecodable batch that paused a partition"),
    "simulate": ("railbird.commands.simulate", "produce simulated poker-room traffic"),
    "demo": ("railbird.commands.demo", "broker + API + consumers + simulator, with a live summary"),
    "replay": ("railbird.commands.replay", "run a JSONL file of events through the pipeline offline"),
    "schemas": ("railbird.commands.schemas", "export (or --check) the JSON Schemas in docs/schemas"),
    "train": ("railbird.commands.train", "train a model (chat)"),
    "eval": ("railbird.commands.evaluate", "evaluate the chat model on a CSV or a simulated scenario"),
    "models": ("railbird.commands.models", "chat model registry: register, compare, list, promote, roll back"),
    "classify": ("railbird.commands.classify", "classify text or JSON lines from stdin"),
    "import": ("railbird.commands.importer", "import hand histories as hand.records and chat.messages JSON lines"),
    "backtest": ("railbird.commands.backtest", "import hand histories, replay them, write a Markdown report per detector"),
    "audit": ("railbird.commands.audit", "verify the tamper-evident audit log"),
    "admin": ("railbird.commands.admin", "manage users and tokens"),
    "player": ("railbird.commands.player", "export or erase what is held about a player; evidence retention"),
    "archive": ("railbird.commands.archive", "copy the input topics into the event archive (for retroactive runs)"),
    "retro": ("railbird.commands.retro", "retroactive runs: run one past range now, or work the queued runs"),
}
"""Every subcommand: its module (imported only when used) and one line of help."""


class CommandModule(Protocol):
    """What each command module provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace, settings: Settings) -> int: ...


def _load(name: str) -> CommandModule:
    return cast(CommandModule, importlib.import_module(COMMANDS[name][0]))


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """Parser with every command listed; only the chosen command's module is imported."""
    parser = argparse.ArgumentParser(prog="railbird", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (_, help_text) in COMMANDS.items():
        cmd_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            _load(name).add_arguments(cmd_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, load settings once, run the command; the exit code is its result."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(args_list).parse_args(args_list)
    settings = load_settings()
    return _load(args.command).run(args, settings)


if __name__ == "__main__":
    raise SystemExit(main())
