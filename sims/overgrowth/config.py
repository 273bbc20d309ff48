"""Overgrowth's config: schema, cross-checks, and the action numbering.

This module is all the two engines share (besides the random streams): the
numbers of the game and how an action is written as an integer.

Action numbering. A *placement* ``p`` is either one cell (``p < cells``, the
cell index ``row * columns + col``) or a pair of side-by-side cells in a row
(``p = cells + row * (columns - 1) + col`` for cells ``(row, col)`` and
``(row, col + 1)``). An action is ``slot * placements + p``: slot 0 is the
first turn (no marker move), slot ``i >= 1`` moves the marker
``moves[i - 1]`` spaces. The last action, ``PASS``, moves the marker and
places nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from sims.core.spec import (
    Bool,
    ConfigError,
    Int,
    List,
    LoadedConfig,
    Optional,
    Str,
    Table,
    bot_weight_fields,
    bot_tables,
    load_config,
)

ACTION_KINDS = ("overgrow", "grow", "cast", "spread")
BOT_KINDS = ("greedy", "planner")
# The greedy evaluation's weights; the planner also takes the shared search weights (sims.core.spec.PLANNER_WEIGHTS).
WEIGHT_NAMES = ("own_distance", "opponent_distance", "flowers")
PLAYERS = (2,)

_CELL = List(Int(0, 63), 2, 2)
_WEIGHTS = bot_weight_fields(WEIGHT_NAMES, PLAYERS)

SCHEMA = {
    "board": {
        "rows": Int(3, 16),
        "columns": Int(3, 16),
        "shaded_width": Int(1, 16),
        "shaded_cells": List(List(_CELL, 1), 0, 2),
    },
    "track": {
        "spaces": List(Str(ACTION_KINDS), 2, 32),
        "start": List(Int(0, 31), 2, 2),
        "moves": List(Int(1, 31), 1, 8),
    },
    "rules": {
        "flowers": Int(1, 64),
        "orthogonal_connection": Bool(),
        "overgrow_sides": Int(1, 4),
        "cast_distance": Int(1, 15),
    },
    "setup": Optional({"head_start": Optional(Int(0, 14), 0), "head_start_cells": Optional(List(_CELL, 0, 14), [])},
                      {"head_start": 0, "head_start_cells": []}),
    "limits": {"max_turns": Int(1, 1_000_000)},
    "report": {"target_turns": List(Int(0, 1_000_000), 2, 2)},
    "bots": {kind: _WEIGHTS for kind in BOT_KINDS},
    "personas": Optional(Table({"bot": Str(BOT_KINDS), **_WEIGHTS}), {}),
}


@dataclass(frozen=True)
class OvergrowthConfig:
    """A validated Overgrowth config with derived geometry."""

    rows: int
    columns: int
    shaded: tuple[tuple[int, ...], tuple[int, ...]]  # cell indices of each seat's shaded area
    track: tuple[str, ...]
    start: tuple[int, int]
    moves: tuple[int, ...]
    flowers: int
    orthogonal_connection: bool
    overgrow_sides: int
    cast_distance: int
    head_start: tuple[int, ...]  # cells of seat 1's flowers on the board at the start (a balancing variant)
    max_turns: int
    bot_weights: dict
    personas: dict
    loaded: LoadedConfig

    @property
    def cells(self) -> int:
        return self.rows * self.columns

    @property
    def placements(self) -> int:
        return self.cells + self.rows * (self.columns - 1)

    @property
    def pass_action(self) -> int:
        return (len(self.moves) + 1) * self.placements

    @property
    def num_actions(self) -> int:
        return self.pass_action + 1

    def encode(self, slot: int, placement: int) -> int:
        return slot * self.placements + placement

    def decode(self, action: int) -> tuple[int, int]:
        """``(slot, placement)``; the pass action decodes to ``(-1, -1)``."""
        if action == self.pass_action:
            return -1, -1
        return divmod(action, self.placements)

    def placement_cells(self, placement: int) -> tuple[int, ...]:
        """The one or two cell indices a placement fills."""
        if placement < self.cells:
            return (placement,)
        row, col = divmod(placement - self.cells, self.columns - 1)
        first = row * self.columns + col
        return (first, first + 1)

    def pair_placement(self, row: int, col: int) -> int:
        return self.cells + row * (self.columns - 1) + col


def _shaded_areas(values: dict, source: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    board = values["board"]
    rows, columns = board["rows"], board["columns"]
    if board["shaded_cells"]:
        if len(board["shaded_cells"]) != 2:
            raise ConfigError(source, "board.shaded_cells", "one list of cells per seat (2 lists) or []",
                              board["shaded_cells"])
        areas = []
        for seat, cells in enumerate(board["shaded_cells"]):
            indices = []
            for r, c in cells:
                if not (r < rows and c < columns):
                    raise ConfigError(source, f"board.shaded_cells[{seat}]",
                                      f"cells inside the {rows}x{columns} board", [r, c])
                indices.append(r * columns + c)
            if len(set(indices)) != len(indices):
                raise ConfigError(source, f"board.shaded_cells[{seat}]", "distinct cells", cells)
            areas.append(tuple(sorted(indices)))
    else:
        width = board["shaded_width"]
        if width > columns:
            raise ConfigError(source, "board.shaded_width", f"at most board.columns ({columns})", width)
        first = (columns - width) // 2
        areas = [tuple(row * columns + c for c in range(first, first + width)) for row in (0, rows - 1)]
    if set(areas[0]) & set(areas[1]):
        raise ConfigError(source, "board.shaded_cells", "two shaded areas that share no cell", has_got=False)
    return areas[0], areas[1]


def _head_start_cells(values: dict, source: str, shaded: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Seat 1's flowers on the board at the start: ``setup.head_start_cells``, or ``setup.head_start`` cells of
    the middle column, from the row before seat 1's home row toward seat 0."""
    setup, rows, columns = values["setup"], values["board"]["rows"], values["board"]["columns"]
    key, count = "setup.head_start", setup["head_start"]
    if setup["head_start_cells"]:
        key, listed = "setup.head_start_cells", setup["head_start_cells"]
        if any(r >= rows or c >= columns for r, c in listed):
            raise ConfigError(source, key, f"cells inside the {rows}x{columns} board", listed)
        cells = tuple(r * columns + c for r, c in listed)
        if len(set(cells)) != len(cells):
            raise ConfigError(source, key, "distinct cells", listed)
        if count:
            raise ConfigError(source, "setup.head_start", "0 when setup.head_start_cells lists the cells", count)
        count = len(cells)
    elif count > rows - 3:
        raise ConfigError(source, key, f"an integer from 0 to {rows - 3} (board.rows - 3)", count)
    else:
        cells = tuple((rows - 2 - i) * columns + columns // 2 for i in range(count))
    if count >= values["rules"]["flowers"]:
        raise ConfigError(source, key, f"fewer than rules.flowers ({values['rules']['flowers']}) flowers", count)
    if set(cells) & set(shaded[0] + shaded[1]):
        raise ConfigError(source, key, "cells outside the shaded areas", setup["head_start_cells"] or count)
    return cells


def build(loaded: LoadedConfig) -> OvergrowthConfig:
    """Cross-check a validated config and derive the typed config."""
    values, source = loaded.values, loaded.source
    board, track, rules = values["board"], values["track"], values["rules"]
    if board["rows"] * board["columns"] > 64:
        raise ConfigError(source, "board.rows", "rows x columns of at most 64 cells",
                          f"{board['rows']}x{board['columns']}")
    spaces = len(track["spaces"])
    for seat, space in enumerate(track["start"]):
        if space >= spaces:
            raise ConfigError(source, f"track.start[{seat}]", f"a space from 0 to {spaces - 1}", space)
    if track["start"][0] == track["start"][1]:
        raise ConfigError(source, "track.start", "two different start spaces", track["start"])
    moves = track["moves"]
    if sorted(set(moves)) != moves or moves[-1] >= spaces:
        raise ConfigError(source, "track.moves", f"distinct ascending step counts below {spaces}", moves)
    low, high = values["report"]["target_turns"]
    if low > high:
        raise ConfigError(source, "report.target_turns", "[shortest, longest] with shortest <= longest", [low, high])
    shaded = _shaded_areas(values, source)
    bot_weights, personas = bot_tables(values, source, {kind: WEIGHT_NAMES for kind in BOT_KINDS})
    return OvergrowthConfig(
        rows=board["rows"],
        columns=board["columns"],
        shaded=shaded,
        track=tuple(track["spaces"]),
        start=(track["start"][0], track["start"][1]),
        moves=tuple(moves),
        flowers=rules["flowers"],
        orthogonal_connection=rules["orthogonal_connection"],
        overgrow_sides=rules["overgrow_sides"],
        cast_distance=rules["cast_distance"],
        head_start=_head_start_cells(values, source, shaded),
        max_turns=values["limits"]["max_turns"],
        bot_weights=bot_weights,
        personas=personas,
        loaded=loaded,
    )


def load(path: Path | None = None, overrides: Iterable[str] = ()) -> OvergrowthConfig:
    """Read ``configs/games/overgrowth.toml`` (or ``path``) with overrides applied."""
    return build(load_config("overgrowth", SCHEMA, path, overrides))
