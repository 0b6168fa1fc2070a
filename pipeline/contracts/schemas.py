"""JSON Schema documents for every contract, as exported to `docs/schemas/`."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from pipeline.contracts import INPUT_TOPICS, SCHEMA_VERSION
from pipeline.contracts.deadletter import DeadLetter
from pipeline.contracts.enforcement import EnforcementEvent
from pipeline.findings import Finding


def schema_documents() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema, one per topic contract plus findings."""
    models: dict[str, type[BaseModel]] = {t: m for t, m in INPUT_TOPICS.items()}
    models["enforcement.events"] = EnforcementEvent
    models["dlq"] = DeadLetter
    models["finding"] = Finding
    docs: dict[str, dict[str, Any]] = {}
    for name, model in models.items():
        schema = model.model_json_schema(mode="validation")
        schema["$id"] = f"urn:railbird:schema:{name}:v{SCHEMA_VERSION}"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        docs[f"{name}.v{SCHEMA_VERSION}.json"] = schema
    return docs


def render(schema: dict[str, Any]) -> str:
    """Stable text form of one schema (sorted keys, trailing newline)."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
