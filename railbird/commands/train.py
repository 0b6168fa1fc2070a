"""`railbird train chat`: train the chat classifier on the licensed sets (reproducible by seed)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from railbird.settings import Settings

if TYPE_CHECKING:
    from models.chat.decision_labels import DecisionRows


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
        "--decisions",
        type=Path,
        default=None,
        metavar="FILE",
        help="reviewers' decisions (GET /v1/labels/export, JSON lines) as extra training rows; evaluation "
             "lines, disputed and unlearnable labels are left out and counted",
    )  # fmt: skip
    parser.add_argument(
        "--recipe-check",
        action="store_true",
        help="train+test the recipe on each set's own split (incl. eval-only sets); writes no artifact",
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Train and save (or run the recipe check); exit 2 when the datasets or a recipe's package are
    missing."""
    from models.chat.artifact import DEFAULT_PATH, save_model
    from models.chat.decision_labels import write_provenance
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
    try:
        rows, digest = _decision_rows(args.decisions)
    except (OSError, ValueError) as exc:
        print(f"railbird train: cannot use --decisions {args.decisions}: {exc}", file=sys.stderr)
        return 2
    extra_meta = rows.summary(digest=digest) if rows is not None else None
    if extra_meta is not None:
        print(json.dumps({"decisions": extra_meta}), file=sys.stderr)
    model = train(datasets, config=TrainConfig(seed=args.seed), extra=rows.samples if rows else (),
                  extra_meta=extra_meta)
    # Review and automatic-action points per category, on the independent DEV set (never report/).
    model = on_dev(model, args.dev or INDEPENDENT_DIR / "dev")
    out = args.out or DEFAULT_PATH
    save_model(model, out)
    if rows is not None:
        # Which decisions taught this artifact, one line per training row (no player text).
        write_provenance(rows, out.with_name(out.name + ".decisions.jsonl"))
    print(json.dumps({"artifact": str(out), "thresholds": model.thresholds,
                      "automatic_thresholds": model.auto_thresholds, **model.meta}))
    return 0


def _decision_rows(path: Path | None) -> tuple[DecisionRows | None, str]:
    """The training rows of a labels export, and the file's sha256 (None, "" without a file)."""
    if path is None:
        return None, ""
    from models.chat.decision_labels import decision_rows, file_digest, read_export

    rows = decision_rows(read_export(path))
    if not rows.samples:
        raise ValueError(f"none of its {rows.read} labels is usable for training ({rows.excluded})")
    return rows, file_digest(path)
