"""The recurring-bounty-tournament options `railbird simulate` and `railbird eval scenario` share:
one definition of the flags, their check and the `RoomConfig` fields they set."""

from __future__ import annotations

import argparse
from typing import Any


def add_bounty_arguments(parser: argparse.ArgumentParser) -> None:
    """`--bounty-every`, `--bounty-check-down`, `--bounty-sng`, `--no-agreement-chat`."""
    parser.add_argument("--bounty-every", type=float, default=None, metavar="MINUTES",
                        help="a new bounty tournament every MINUTES of room time, the agreement pair in each")
    parser.add_argument("--bounty-check-down", action="store_true",
                        help="the bounty pair calls the target's all-in and checks it down (default: raise to isolate)")
    parser.add_argument("--bounty-sng", action="store_true",
                        help="the recurring bounty tournaments are 9-seat single-table knockout sit & gos")
    parser.add_argument("--no-agreement-chat", action="store_true",
                        help="plant bounty agreements without any agreement talk (truth detail chat=false)")


def bounty_error(args: argparse.Namespace) -> str | None:
    """Why the bounty flags are unusable, or None."""
    if args.bounty_every is not None and args.bounty_every <= 0:
        return "--bounty-every must be positive"
    return None


def bounty_config(args: argparse.Namespace) -> dict[str, Any]:
    """The `RoomConfig.for_profile` keyword arguments the flags set."""
    return {"bounty_every_minutes": args.bounty_every, "agreement_chat": not args.no_agreement_chat,
            "bounty_check_down": args.bounty_check_down, "bounty_sit_and_go": args.bounty_sng}
