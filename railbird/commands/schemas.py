"""`railbird schemas`: write the contracts' JSON Schemas and the AsyncAPI document of every topic
to docs/schemas, or --check them."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.contracts.asyncapi import asyncapi_document
from pipeline.contracts.schemas import render, schema_documents
from railbird.settings import PROJECT_ROOT, Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--out folder, --check to fail when the files differ from the code."""
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "docs" / "schemas")
    parser.add_argument("--check", action="store_true", help="exit 1 if the files are out of date")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Export or check; prints one line per file."""
    out: Path = args.out
    stale = []
    documents = {**schema_documents(), "asyncapi.json": asyncapi_document()}
    for name, schema in documents.items():
        path = out / name
        text = render(schema)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run `railbird schemas` and commit docs/schemas")
        return 1
    if args.check:
        print("docs/schemas matches the code")
    return 0
