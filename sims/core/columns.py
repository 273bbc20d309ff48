"""The data dictionary: every records, events and trajectories column of a game, with its meaning.

Each game describes its own columns in ``sims/<game>/columns.py``, a function
``columns(config) -> GameColumns`` (column names may follow the config, as
Vora's ``farm_<kind>``). The records columns every game shares are described
here once. The same descriptions feed ``glade columns GAME``,
``docs/columns.md`` and the Parquet schema metadata of every chunk written
(each field's ``description``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sims.core.engine import GameConfig


@dataclass(frozen=True)
class Column:
    """One column: name, type as written (a polars dtype name), meaning, unit, and codes of its values."""

    name: str
    type: str
    meaning: str
    unit: str = ""
    codes: Mapping[str, str] = field(default_factory=dict)

    def description(self) -> str:
        """One line: meaning, unit and codes (what the Parquet metadata holds)."""
        text = self.meaning + (f" [{self.unit}]" if self.unit else "")
        if self.codes:
            text += "; " + ", ".join(f"{value} = {meaning}" for value, meaning in self.codes.items())
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "meaning": self.meaning, "unit": self.unit,
                "codes": dict(self.codes)}


@dataclass(frozen=True)
class GameColumns:
    """What a game's ``columns(config)`` returns: its own records columns, its events columns, its end reasons."""

    records: Sequence[Column]
    events: Sequence[Column]
    end: Mapping[str, str]  # end reason -> meaning (the ``end`` column's values)


@dataclass(frozen=True)
class Dictionary:
    """Every column a run of one game writes: records (shared columns first), events and trajectories."""

    game: str
    records: tuple[Column, ...]
    events: tuple[Column, ...]
    trajectories: tuple[Column, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        """The tables a run of the game writes."""
        return ("records", "events") + (("trajectories",) if self.trajectories else ())

    def table(self, kind: str) -> tuple[Column, ...]:
        return {"records": self.records, "events": self.events, "trajectories": self.trajectories}[kind]

    def descriptions(self, kind: str) -> dict[str, str]:
        """``{column: description}`` of the records, events or trajectories table."""
        return {column.name: column.description() for column in self.table(kind)}

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, **{kind: [c.to_dict() for c in self.table(kind)] for kind in self.kinds}}


def base_columns(end: Mapping[str, str]) -> list[Column]:
    """The records columns every game writes, in order (see :data:`sims.records.BASE_COLUMNS`)."""
    return [
        Column("game", "Int64", "game id in the run: deal x rotations + rotation"),
        Column("deal", "Int64", "deal index 0 .. games-1; every rotation of a deal plays the same seed"),
        Column("rotation", "Int8", "seat rotation: seat s plays bot (s + rotation) mod players of --bots"),
        Column("seed", "UInt64", "the deal's game seed, derived from the run's --seed and the deal"),
        Column("seat", "Int8", "seat at the table, 0 moves first"),
        Column("bot", "String", "bot or persona label playing this seat"),
        Column("score", "Float64", "the seat's final score", "points"),
        Column("rank", "Int8", "final place, 1 best (tied seats share a rank); null when the game stalled"),
        Column("win", "Boolean", "the seat ranked first (alone or tied)"),
        Column("tie", "Boolean", "the seat shares first place with another seat"),
        Column("turns", "Int32", "turns the game lasted (the game's own count of turns)", "turns"),
        Column("end", "String", "why the game ended", codes=dict(end)),
    ]


def trajectory_columns() -> list[Column]:
    """The trajectories table every game with a progress measure writes (see ``BatchedEngine.progress``)."""
    return [
        Column("game", "Int64", "game id (the records' game)"),
        Column("round", "Int16", "rounds played, from 1: a round ends when a turn ends and seat 0 is to move; "
               "a game's last round is its end (a partial round when it ended mid-round)", "rounds"),
        Column("seat", "Int8", "seat at the table"),
        Column("value", "Float64", "the seat's score at that point, as if the game ended there (Overgrowth: "
               "flowers on the board)", "points"),
    ]


def dictionary(game_name: str, config: GameConfig | None = None) -> Dictionary | None:
    """The data dictionary of a game (for ``config``, default its default config), or None if it has none.

    A game has one when its package holds a ``columns`` module (``sims/<game>/columns.py``).
    """
    from sims.registry import get_game

    game = get_game(game_name)
    package = game.load_config.__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.columns")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.columns":
            raise
        return None
    if config is None:
        config = game.load_config(None, ())
    own = module.columns(config)
    return Dictionary(game.name, tuple(base_columns(own.end) + list(own.records)), tuple(own.events),
                      tuple(trajectory_columns()))


def format_text(columns: Dictionary) -> str:
    """The dictionary as text: one block per table, a line per column."""
    lines = []
    for kind in columns.kinds:
        table = columns.table(kind)
        width = max(len(c.name) for c in table)
        lines.append(f"{columns.game} {kind} ({len(table)} columns)")
        lines += [f"  {c.name:<{width}}  {c.type:<8} {c.description()}" for c in table]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def format_markdown(dictionaries: Sequence[Dictionary]) -> str:
    """``docs/columns.md``: every game's tables, with the command that regenerates the page."""
    lines = ["# Records, events and trajectories columns", "",
             "Every column a run writes, per game: `records/*.parquet` (one row per game and seat),",
             "`events/*.parquet` (one row per event or decision) and `trajectories/*.parquet` (one row per",
             "round and seat: each seat's score at each round end). Generated from `sims/<game>/columns.py` and",
             "`sims/core/columns.py` with the default configs; regenerate after changing them:", "",
             "    glade columns --all --markdown > docs/columns.md", "",
             "The same descriptions are in each chunk file's Parquet schema (field metadata `description`)",
             "and in `glade columns GAME [--json]`.", ""]
    for columns in dictionaries:
        for kind in columns.kinds:
            lines += [f"## {columns.game}: {kind}", "", "| column | type | meaning | unit | codes |",
                      "|---|---|---|---|---|"]
            for c in columns.table(kind):
                codes = "; ".join(f"`{value}` {meaning}" for value, meaning in c.codes.items())
                lines.append(f"| `{c.name}` | {c.type} | {_cell(c.meaning)} | {c.unit} | {_cell(codes)} |")
            lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
