"""Overgrowth's records and events columns (the data dictionary; see :mod:`sims.core.columns`)."""

from __future__ import annotations

from sims.core.columns import Column, GameColumns
from sims.overgrowth.config import ACTION_KINDS, OvergrowthConfig


def columns(config: OvergrowthConfig) -> GameColumns:
    """Every Overgrowth column beyond the shared records columns (cells are ``row * columns + column``)."""
    per_kind = [Column(kind, "Int32", f"turns the seat took a {kind} action", "turns") for kind in ACTION_KINDS]
    records = [
        Column("flowers_placed", "Int32", "flowers the seat placed on the board", "flowers"),
        Column("flowers_lost", "Int32", "of the seat's flowers, those overgrown (removed) by the opponent",
               "flowers"),
        *per_kind,
        Column("passes", "Int32", "turns the seat passed (no allowed move had a legal placement)", "turns"),
    ]
    kinds = {kind: f"a {kind} action" for kind in ACTION_KINDS}
    kinds["first"] = "the first turn's placement (no marker move)"
    kinds["pass"] = "a pass: the marker moves, nothing is placed"
    events = [
        Column("game", "Int64", "game id (the records' game)"),
        Column("turn", "Int32", "turn index in the game, from 0", "turns"),
        Column("seat", "Int8", "the seat acting"),
        Column("kind", "String", "action kind of the track space the marker ended on", codes=kinds),
        Column("steps", "Int8", "spaces the marker moved clockwise (0 on the first turn)", "spaces",
               codes={"-1": "a pass"}),
        Column("cell", "Int16", f"cell placed on, row x {config.columns} + column (the left cell of a pair)",
               codes={"-1": "none (a pass)"}),
        Column("cell2", "Int16", "second cell of a side-by-side pair (spread)", codes={"-1": "none"}),
        Column("points", "Int8", "flowers the action put on the board: the seat's score change (an overgrow also "
               "takes one of the opponent's)", "flowers"),
    ]
    end = {"connection": "a seat joined the two shaded areas with a line of its flowers",
           "flowers": "a seat placed its last flower",
           "blocked": "neither seat could ever place a flower again (rules §6.3); more flowers on the board win",
           "stall": "max_turns reached without a result"}
    return GameColumns(records, events, end)
