"""finding_players: the players a finding names besides its subject, backfilled from findings.players

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:10:00
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

import api.db

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_BATCH = 5_000


def upgrade() -> None:
    """Create the association table and fill it from the findings already stored."""
    table = op.create_table(
        "finding_players",
        sa.Column("finding_id", sa.String(length=128), nullable=False),
        sa.Column("player_id", sa.String(length=128), nullable=False),
        sa.Column("case_id", sa.String(length=40), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("ts", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["finding_id"], ["findings.finding_id"]),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.PrimaryKeyConstraint("finding_id", "player_id"),
    )
    op.create_index("ix_finding_players_player_ts", "finding_players", ["player_id", "ts"])
    op.create_index("ix_finding_players_player_case", "finding_players", ["player_id", "case_id"])
    _backfill(table)


def _backfill(table: sa.Table) -> None:
    # Keyset over finding_id in batches: a large table is never held in memory at once.
    findings = sa.table("findings", sa.column("finding_id", sa.String), sa.column("case_id", sa.String),
                        sa.column("players", sa.JSON), sa.column("ts", api.db.UtcDateTime()))
    conn = op.get_bind()
    last = ""
    while True:
        rows = conn.execute(
            sa.select(findings.c.finding_id, findings.c.case_id, findings.c.players, findings.c.ts)
            .where(findings.c.finding_id > last).order_by(findings.c.finding_id).limit(_BATCH)
        ).all()
        if not rows:
            return
        out: list[dict[str, Any]] = []
        for finding_id, case_id, players, ts in rows:
            named = json.loads(players) if isinstance(players, str) else (players or [])
            for position, player in enumerate(dict.fromkeys(str(p) for p in named)):
                if position == 0:
                    continue  # the subject: findings.subject_id
                out.append({"finding_id": finding_id, "player_id": player, "case_id": case_id,
                            "position": position, "ts": ts})
        if out:
            conn.execute(table.insert(), out)
        last = rows[-1][0]


def downgrade() -> None:
    """Drop the association table (findings.players still holds the same names)."""
    op.drop_index("ix_finding_players_player_case", table_name="finding_players")
    op.drop_index("ix_finding_players_player_ts", table_name="finding_players")
    op.drop_table("finding_players")
