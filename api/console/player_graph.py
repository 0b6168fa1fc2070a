"""Geometry of the linked-players graph on the player page (the template draws it as inline SVG).

The player sits in the middle, linked players on a circle around them; an edge's width grows with
the number of ties and its colour says the strongest kind. Plain numbers and strings only: Jinja
escapes every label, so a player id can never become markup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from api.players.profile import Link

WIDTH, HEIGHT, RADIUS = 460, 300, 115
KIND_COLOURS = {"named together": "#c62828", "shared reporter": "#6a1b9a", "reported them": "#ef6c00",
                "shared table": "#1565c0"}


@dataclass(frozen=True, slots=True)
class Node:
    """A linked player: where to draw them and the edge to the centre."""

    player_id: str
    label: str
    x: float
    y: float
    width: float
    colour: str
    title: str


@dataclass(frozen=True, slots=True)
class Graph:
    """The whole drawing."""

    width: int
    height: int
    cx: float
    cy: float
    centre: str
    nodes: list[Node]


def graph(player_id: str, links: list[Link]) -> Graph:
    """Nodes evenly on a circle, strongest link first (at the top)."""
    cx, cy = WIDTH / 2, HEIGHT / 2
    nodes: list[Node] = []
    for i, link in enumerate(links):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(links))
        kind = link.kinds.most_common(1)[0][0]
        ties = ", ".join(f"{k} ×{n}" for k, n in link.kinds.most_common())
        title = f"{link.player_id}: {ties}" + (f"; {'; '.join(link.stats)}" if link.stats else "")
        nodes.append(Node(link.player_id, _short(link.player_id), round(cx + RADIUS * math.cos(angle), 1),
                          round(cy + RADIUS * math.sin(angle), 1), min(8.0, 1.0 + link.weight),
                          KIND_COLOURS.get(kind, "#5f6b76"), title))
    return Graph(WIDTH, HEIGHT, cx, cy, _short(player_id), nodes)


def _short(player_id: str) -> str:
    return player_id if len(player_id) <= 16 else player_id[:15] + "…"
