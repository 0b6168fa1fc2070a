"""`railbird train chat`: train the chat classifier on the licensed sets (reproducible by seed)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from railbird.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`chat` plus where to read data, where to write the artifact, the seed, or the recipe check."""
    parser.add_argument("model", choices=["chat"], help="which model to train")
    parser.add_argument("--datasets", type=Path, default=None, help="datasets folder (default: settings)")
    parser.add_argument("--out", type=Path, default=None, help="artifact path (default: the shipped one)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--dev",
        type=Path,
        default=None,
        help="independent dev set the operating points are chosen on (default: models/chat/evalsets/independent/dev)",
    )
    parser.add_argument(
        "--recipe-check",
        action="store_true",
        help="train+test the recipe on each set's own split (incl. eval-only sets); writes no artifact",
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Train and save (or run the recipe check); exit 2 when the datasets or a recipe's package are
    missing."""
    from models.chat.artifact import DEFAULT_PATH, save_model
    from models.chat.evaluate import INDEPENDENT_DIR
    from models.chat.operating_points import on_dev
    from models.chat.recipes import run_recipes
    from models.chat.training import TrainConfig, train

    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(message)s")
    datasets = args.datasets or settings.datasets_dir
    if not (datasets / "davidson").is_dir():
        print(f"railbird train: no datasets at {datasets}", file=sys.stderr)
        return 2
    if args.recipe_check:
        try:
            results = run_recipes(datasets, seed=args.seed)
        except RuntimeError as exc:  # a recipe's optional package is not installed
            print(f"railbird train: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(results, indent=2))
        return 0
    model = train(datasets, config=TrainConfig(seed=args.seed))
    # Review and automatic-action points per category, on the independent DEV set (never report/).
    model = on_dev(model, args.dev or INDEPENDENT_DIR / "dev")
    out = args.out or DEFAULT_PATH
    save_model(model, out)
    print(json.dumps({"artifact": str(out), "thresholds": model.thresholds,
                      "automatic_thresholds": model.auto_thresholds, **model.meta}))
    return 0
