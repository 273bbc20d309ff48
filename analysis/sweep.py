"""Parameter sweeps: one run directory per cell of a grid of config values.

A sweep file (``configs/sweeps/*.toml``) names a game, its bots and seed, and
the cells to play::

    game = "overgrowth"
    description = "Board size x action-track order, greedy vs greedy"
    players = 2                      # optional, default: the number of bots
    bots = ["greedy", "greedy"]
    rotate_seats = false             # optional, default false
    trajectories = true              # optional, default true: each seat's score per round (lead changes, comebacks)
    seed = 11
    games_per_cell = 2000            # deals per cell
    base = ["rules.flowers=25"]      # optional: overrides applied to every cell
    baseline = "board.rows=7"        # optional: the cell compared against; default the first cell
    label = "{board.rows} rows"      # optional: how reports name a cell, from its axes' labels

    [grid]                           # the cartesian product of config keys ...
    "board.rows" = [5, 7, 8]         # a list of values
    [grid."track.spaces"]            # ... or a table of named values (readable cell ids)
    default = ["overgrow", "grow", "cast", "spread", "overgrow", "grow", "cast", "spread"]
    swapped = ["overgrow", "grow", "spread", "cast", "overgrow", "grow", "spread", "cast"]

    # ... or, instead of [grid], an explicit list of cells (a [grid] of only players and
    # bots may stand beside it: every cell is then played at every players/bots value):
    # [[cells]]
    # id = "small"                   # optional label
    # set = ["board.rows=5", "board.columns=5"]
    # games = 200                    # optional: at most this many deals (the first ones: slow bots)

Two axis names are not config keys: ``players`` (player counts) and
``bots`` (lineups, each a comma-separated string or a list). They may be grid
axes or keys of an explicit cell, so a sweep can compare player counts or bot
mixes; a single bot in ``bots`` seats that bot in every seat of any count::

    bots = ["greedy"]
    [grid]
    players = [2, 3, 4]
    "kinds[0].count" = [10, 12, 14]

Keys and values are those of ``glade play --set``. A value that is a table
sets each key it names, so one grid axis can change several keys together::

    [grid.board]
    5x5 = { rows = 5, columns = 5 }
    9x7 = { rows = 9, columns = 7 }

Cell ids. A grid cell's id joins ``axis=label`` in the grid's order, where the
label is the value's name, else the value itself (``board.rows=5,track.spaces=default``);
lists of short values are joined with ``+`` and anything longer becomes
``list-<hash>``: name such values. An explicit cell's id is its ``id``, else
its ``key=label`` pairs, else ``base``. Ids are stable (they depend only on the
sweep file) and are folder names: ``OUT/cells/<id>/``.

Common random numbers. Every cell is played with the sweep's root seed, so
deal ``d`` has the same game seed in every cell: cells differ only by their
config, and compare as paired differences. An explicit cell's ``games = N``
caps it at the first N deals (slow bots in a skill trace): it still shares
those deals with every other cell.

An output directory::

    OUT/sweep.json          the sweep file's text and hash, the cells (id, overrides,
                            config hash, status), games per cell, versions
    OUT/cells/<id>/         one glade play run directory per cell (manifest, records, events)
    OUT/.lock               held while a glade sweep writes here

Resuming. Run the same command again and only missing chunks are played; a
larger ``--games-per-cell`` (or ``games_per_cell``) extends every cell, a
smaller one keeps what is there. Description, comments and baseline may change;
a different game, bots, players, seed, seat rotation, base or cells is refused:
use another ``--out``.

This module holds no statistics beyond :func:`cell_table`, the first look the
command line prints; :func:`load_sweep` hands the cells to ``analysis.stats``
and the report.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import math
import re
import sys
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from sims.core.compiling import warm_runs
from sims.core.engine import GameConfig
from sims import outdir
from sims.core.files import Maybe, Opt, Where, read_state, set_aside, state_error, write_json
from sims.core.play import resolve_bot, seat_labels
from sims.core.spec import Bool, ConfigError, Field, Int, List, Optional, Str, parse_override, read_toml, validate
from sims.registry import get_game
from sims.records import (BOTS_SHAPE, COUNT_SHAPE, SEED_SHAPE, Chunk, finished_chunks, load_events, load_manifest, load_records, load_trajectories, now,
                          recorded_rotations, versions)
from sims.runner import check_deals, check_run_dir, check_scheduler, check_seed, plan_chunks, run, run_rotations
from sims.runspec import RunSpec

SWEEP_JSON = "sweep.json"
CELLS = "cells"
FORMAT = 1

# Names, labels and ids: safe as folder names and in a shell without quoting.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_LABEL_MAX = 40
_ID_MAX = 200
# Axes that set how a cell is played rather than a config key.
RUN_AXES = ("players", "bots")
# What must match for an output directory to be resumed.
_IDENTITY = ("game", "players", "bots", "rotate_seats", "seed", "base", "cells")


class _Anything(Field):
    """A sweep-file value checked by hand after the schema (grid, cells)."""

    def __init__(self, description: str):
        self.description = description

    def check(self, value: Any, source: str, key: str) -> Any:
        return value


_SCHEMA = {
    "game": Str(),
    "description": Optional(Str(), ""),
    "players": Optional(Int(1, 64)),
    "bots": List(Str(), 1),
    "rotate_seats": Optional(Bool(), False),
    "trajectories": Optional(Bool(), True),
    "seed": Int(),
    "games_per_cell": Int(1),
    "base": Optional(List(Str()), []),
    "baseline": Optional(Str()),
    "label": Optional(Str()),
    "grid": Optional(_Anything("a table of config keys, each a list of values or a table of named values")),
    "cells": Optional(_Anything("a list of [[cells]] tables")),
}


# ---------------------------------------------------------------- the sweep file


@dataclass(frozen=True)
class Setting:
    """One config key a cell (or the base) sets, and where the sweep file says so."""

    key: str  # dotted config key, e.g. board.rows
    value: Any
    origin: str  # sweep-file key, e.g. grid."board.rows" or cells[2].set[0]

    @property
    def override(self) -> str:
        """The ``--set`` text: ``key=<TOML value>``."""
        return f"{self.key}={toml_value(self.value)}"


@dataclass(frozen=True)
class CellSpec:
    """One cell of a sweep: its id, the keys it sets and their labels, and how it is played."""

    id: str
    settings: tuple[Setting, ...]
    labels: dict[str, str]  # axis (grid key, or config key of an explicit cell) -> label in the id
    title: str = ""  # how reports name the cell (the sweep's label template); empty: the id
    players: int | None = None  # None: the sweep's
    bots: tuple[str, ...] | None = None  # None: the sweep's
    games: int | None = None  # at most this many deals (the first ones); None: the sweep's games_per_cell

    @property
    def overrides(self) -> tuple[str, ...]:
        return tuple(s.override for s in self.settings)


@dataclass(frozen=True)
class Sweep:
    """A validated sweep file."""

    path: Path
    text: str
    hash: str  # sha256 of the file's bytes, 16 hex digits
    game: str
    description: str
    players: int
    bots: tuple[str, ...]
    rotate_seats: bool
    seed: int
    games_per_cell: int
    base: tuple[Setting, ...]
    cells: tuple[CellSpec, ...]
    baseline: str  # a cell id
    axes: tuple[str, ...]  # grid keys in order, or the keys explicit cells set
    trajectories: bool = True  # cells record each seat's score at each round end

    @property
    def rotations(self) -> int:
        return self.players if self.rotate_seats else 1

    def cell_players(self, cell: CellSpec) -> int:
        return cell.players if cell.players is not None else self.players

    def cell_bots(self, cell: CellSpec) -> list[str]:
        """One bot label per seat of the cell (a single bot fills every player seat)."""
        bots = list(cell.bots if cell.bots is not None else self.bots)
        players = self.cell_players(cell)
        return bots * players if len(bots) == 1 and players > 1 else bots

    def cell_spec(self, cell: CellSpec, config: GameConfig) -> RunSpec:
        """The run of a cell: its config, bots and players, the sweep's seed, seat rotation and trajectories."""
        return RunSpec(self.game, config, tuple(self.cell_bots(cell)), self.cell_players(cell), self.seed,
                       self.rotate_seats, self.trajectories)

    def cell_rotations(self, cell: CellSpec, config: GameConfig, cell_dir: Path) -> int:
        """Rotations of the cell's deals: one when the same bot sits in every seat (see ``sims.runner.run``)."""
        return run_rotations(cell_dir, self.cell_spec(cell, config))


def read_sweep(path: str | Path, text: str | None = None) -> Sweep:
    """Read and check a sweep file (``text``: its text, when it is not on disk yet); every problem is a
    ConfigError naming the file and key."""
    path = Path(path)
    if text is None:
        raw = read_toml(path)
        data = path.read_bytes()
    else:
        data = text.encode("utf-8")
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(str(path), "(syntax)", f"valid TOML ({error})", has_got=False) from None
    source = str(path)
    values = validate(raw, _SCHEMA, source)
    check_seed(values["seed"], source, "seed")
    game = _sweep_game(values["game"], source)
    bots = tuple(values["bots"])
    players = values["players"] if values["players"] is not None else len(bots)
    base = tuple(s for i, text in enumerate(values["base"]) for s in _parse_set(text, source, f"base[{i}]"))
    grid, explicit = values["grid"], values["cells"]
    if grid is not None and explicit is not None:
        if not isinstance(grid, dict) or not grid or set(grid) - set(RUN_AXES):
            raise ConfigError(source, "grid", "either a [grid] table or [[cells]] tables, not both (beside [[cells]], "
                              "a [grid] may only hold players and bots)", has_got=False)
        cells, axes = _crossed_cells(_grid_cells(grid, source)[0], _explicit_cells(explicit, source)[0])
        axes = [*grid, "cell"]
    elif grid is not None:
        cells, axes = _grid_cells(grid, source)
    elif values["cells"] is not None:
        cells, axes = _explicit_cells(values["cells"], source)
    else:
        raise ConfigError(source, "grid", "a [grid] table or [[cells]] tables (the cells to play)", has_got=False)
    ids = [c.id for c in cells]
    for cell_id in ids:
        if len(cell_id) > _ID_MAX:
            raise ConfigError(source, "grid" if values["grid"] is not None else "cells",
                              f"cell ids of at most {_ID_MAX} characters (name long values)", cell_id)
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ConfigError(source, "cells", "distinct cell ids", ", ".join(duplicates))
    baseline = values["baseline"] if values["baseline"] is not None else ids[0]
    if baseline not in ids:
        raise ConfigError(source, "baseline", "one of the cell ids: " + _short_list(ids), baseline)
    sweep = Sweep(
        path=path, text=data.decode("utf-8", errors="replace"), hash=hashlib.sha256(data).hexdigest()[:16],
        game=game.name, description=values["description"], players=players, bots=bots,
        rotate_seats=values["rotate_seats"], seed=values["seed"], games_per_cell=values["games_per_cell"],
        base=base, cells=tuple(cells), baseline=baseline, axes=tuple(axes), trajectories=values["trajectories"],
    )
    if values["label"] is not None:
        cells = [dataclasses.replace(c, title=_title(values["label"], c, source)) for c in cells]
        sweep = dataclasses.replace(sweep, cells=tuple(cells))
    for cell in sweep.cells:
        try:
            seat_labels(game, sweep.cell_players(cell), sweep.cell_bots(cell))
        except ConfigError as error:
            key = "players" if error.source == "--players" else "bots"
            raise ConfigError(source, f"{key} (cell {cell.id})", error.expected, has_got=False) from None
    return sweep


def _sweep_game(name: str, source: str):
    try:
        return get_game(name)
    except ConfigError as error:
        raise ConfigError(source, "game", error.expected, name) from None


def _grid_cells(grid: Any, source: str) -> tuple[list[CellSpec], list[str]]:
    """The cartesian product of the grid's axes, the first axis varying slowest."""
    if not isinstance(grid, dict):
        raise ConfigError(source, "grid", "a table of config keys, each a list of values or a table of named values",
                          grid)
    if not grid:
        raise ConfigError(source, "grid", "at least one config key with a list of values", has_got=False)
    axes = []
    for key, values in grid.items():
        where = f"grid.{_quoted(key)}"
        _check_key(key, source, where)
        if key in RUN_AXES and isinstance(values, list):
            axes.append([(key, label(value), _run_axis(key, value, source, where)) for value in values])
            if not values:
                raise ConfigError(source, where, "a non-empty list", values)
            continue
        if isinstance(values, dict):
            if not values:
                raise ConfigError(source, where, "at least one named value", has_got=False)
            for name in values:
                if not _NAME.match(name):
                    raise ConfigError(source, f"{where}.{_quoted(name)}",
                                      "a name of letters, digits and . _ + - (it becomes part of a folder name)",
                                      has_got=False)
            options = list(values.items())
        elif isinstance(values, list):
            if not values:
                raise ConfigError(source, where, "a non-empty list of values or a table of named values", values)
            options = [(label(value), value) for value in values]
        else:
            raise ConfigError(source, where, "a list of values or a table of named values", values)
        names = [name for name, _ in options]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ConfigError(source, where, "distinct values", ", ".join(repeated))
        if key in RUN_AXES:
            axes.append([(key, name, _run_axis(key, value, source, f"{where}.{_quoted(name)}"))
                         for name, value in options])
        else:
            axes.append([(key, name, flatten(key, value, source, where)) for name, value in options])
    cells = []
    for combination in itertools.product(*axes):
        settings = tuple(s for key, _, flat in combination if key not in RUN_AXES for s in flat)
        labels = {key: name for key, name, _ in combination}
        run_values = {key: value for key, _, value in combination if key in RUN_AXES}
        cells.append(CellSpec(id=",".join(f"{k}={n}" for k, n in labels.items()), settings=settings, labels=labels,
                              players=run_values.get("players"), bots=run_values.get("bots")))
    return cells, list(grid)


def _title(template: str, cell: CellSpec, source: str) -> str:
    """``"{objectives.green} x {objectives.brown}"`` filled in with the cell's axis labels."""
    def fill(match: re.Match) -> str:
        axis = match.group(1)
        if axis not in cell.labels:
            raise ConfigError(source, "label", "{axis} names of the cell's axes: " + ", ".join(cell.labels),
                              "{" + axis + "}")
        return cell.labels[axis]
    return re.sub(r"\{([^{}]+)\}", fill, template)


def _crossed_cells(runs: list[CellSpec], explicit: list[CellSpec]) -> tuple[list[CellSpec], list[str]]:
    """Every explicit cell played at every value of the run axes (players, bots): ids ``players=3,<cell id>``."""
    cells = []
    for run_cell in runs:
        for cell in explicit:
            labels = {**run_cell.labels, "cell": cell.id}
            cells.append(CellSpec(id=f"{run_cell.id},{cell.id}", settings=cell.settings, labels=labels,
                                  players=run_cell.players if run_cell.players is not None else cell.players,
                                  bots=run_cell.bots if run_cell.bots is not None else cell.bots, games=cell.games))
    return cells, []


def _run_axis(key: str, value: Any, source: str, where: str) -> Any:
    """A ``players`` value (a player count) or a ``bots`` value (a lineup) of a grid or a cell."""
    if key == "players":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(source, where, "a player count (an integer of at least 1)", value)
        return value
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(source, where, 'a lineup: "greedy,random" or ["greedy", "random"]', value)
    return tuple(value)


def _explicit_cells(cells: Any, source: str) -> tuple[list[CellSpec], list[str]]:
    if not isinstance(cells, list) or not cells or not all(isinstance(c, dict) for c in cells):
        raise ConfigError(source, "cells", "one or more [[cells]] tables", has_got=False)
    out, axes = [], []
    for index, table in enumerate(cells):
        where = f"cells[{index}]"
        for key in table:
            if key not in ("id", "set", "games") + RUN_AXES:
                raise ConfigError(source, f"{where}.{key}", "one of the known keys (id, set, players, bots, games)",
                                  has_got=False)
        games = table.get("games")
        if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
            raise ConfigError(source, f"{where}.games", "a number of deals of at least 1", games)
        texts = table.get("set", [])
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ConfigError(source, f"{where}.set", 'a list of "key=value" strings', texts)
        settings = tuple(s for i, text in enumerate(texts) for s in _parse_set(text, source, f"{where}.set[{i}]"))
        labels: dict[str, str] = {}
        run_values = {}
        for key in RUN_AXES:
            if key in table:
                run_values[key] = _run_axis(key, table[key], source, f"{where}.{key}")
                labels[key] = label(table[key])
                if key not in axes:
                    axes.append(key)
        for setting in settings:
            labels[setting.key] = label(setting.value)
            if setting.key not in axes:
                axes.append(setting.key)
        cell_id = table.get("id")
        if cell_id is None:
            cell_id = ",".join(f"{k}={v}" for k, v in labels.items()) or "base"
        elif not isinstance(cell_id, str) or not _NAME.match(cell_id):
            raise ConfigError(source, f"{where}.id",
                              "a name of letters, digits and . _ + - (it becomes a folder name)", cell_id)
        out.append(CellSpec(id=cell_id, settings=settings, labels=labels, players=run_values.get("players"),
                            bots=run_values.get("bots"), games=games))
    return out, axes


def _parse_set(text: str, source: str, where: str) -> list[Setting]:
    try:
        path, value = parse_override(text, f"{source}: {where}")
    except ConfigError:
        raise ConfigError(source, where, "KEY=VALUE with a dotted config key, such as board.rows=5", text) from None
    key = ".".join(path)
    _check_key(key, source, where)
    return flatten(key, value, source, where)


_KEY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+-]*(\[\d+\])*$")


def _check_key(key: str, source: str, where: str) -> None:
    if not all(_KEY_PART.match(part) for part in key.split(".")):
        raise ConfigError(source, where, "a dotted config key such as board.rows or kinds[2].count", key)


def flatten(key: str, value: Any, source: str = "", where: str = "") -> list[Setting]:
    """A table value sets each key it names: ``board={rows=5}`` -> ``board.rows=5``."""
    if isinstance(value, dict):
        if not value:
            raise ConfigError(source, where, "a non-empty table of keys to set", value)
        return [s for name, item in value.items() for s in flatten(f"{key}.{name}", item, source, where)]
    return [Setting(key, value, where)]


def _quoted(key: str) -> str:
    return key if _NAME.match(key) and "." not in key else json.dumps(key)


def _short_list(items: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


# ---------------------------------------------------------------- values: labels and TOML text


def label(value: Any) -> str:
    """A value as it appears in a cell id: short and safe as a folder name, else ``<kind>-<hash>``."""
    text = _plain_label(value)
    if text is not None and len(text) <= _LABEL_MAX and _NAME.match(text):
        return text
    kind = {list: "list", dict: "table", str: "text"}.get(type(value), "value")
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:8]
    return f"{kind}-{digest}"


def _plain_label(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, list) and value and all(isinstance(v, (bool, int, float, str)) for v in value):
        parts = [_plain_label(v) for v in value]
        return "+".join(parts) if all(p and _NAME.match(p) for p in parts) else None
    return None


def toml_value(value: Any) -> str:
    """``value`` written as a TOML value (what ``--set key=...`` parses back to it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # inf, -inf and nan are TOML too
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "isoformat"):  # TOML dates and times
        return value.isoformat()
    raise TypeError(f"no TOML form for {value!r}")


# ---------------------------------------------------------------- configs of the cells


def cell_configs(sweep: Sweep) -> list[Any]:
    """Each cell's game config (base overrides, then the cell's), bots checked against it.

    A bad key or value is a ConfigError naming the sweep file, the sweep-file
    key it came from and the cell.
    """
    game = get_game(sweep.game)
    base = tuple(s.override for s in sweep.base)
    configs = []
    for cell in sweep.cells:
        try:
            config = game.load_config(None, base + cell.overrides)
        except ConfigError as error:
            raise _cell_error(sweep, cell, error) from None
        for label_ in dict.fromkeys(sweep.cell_bots(cell)):
            try:
                resolve_bot(game, config, label_)
            except ConfigError as error:
                raise ConfigError(str(sweep.path), f"bots (cell {cell.id})", error.expected, label_) from None
        configs.append(config)
    return configs


def _cell_error(sweep: Sweep, cell: CellSpec, error: ConfigError) -> ConfigError:
    """``sweep.toml: grid."board.rows" (cell board.rows=99): board.rows: expected ..., got 99``."""
    detail = str(error).removeprefix(f"{error.source}: ").removeprefix(f"{error.key}: expected ")
    origin = None
    for setting in sweep.base + cell.settings:  # the last setting of a key wins, so look at all
        if _related(setting.key, error.key):
            origin = setting.origin
    where = f"{origin} (cell {cell.id})" if origin else f"cell {cell.id}"
    return ConfigError(str(sweep.path), f"{where}: {error.key}", detail, has_got=False)


def _related(set_key: str, error_key: str) -> bool:
    """Whether an error about ``error_key`` concerns the setting of ``set_key``."""
    return (set_key == error_key or set_key.startswith(error_key + ".")
            or error_key.startswith(set_key + ".") or error_key.startswith(set_key + "["))


# ---------------------------------------------------------------- running


@dataclass
class CellRun:
    """What :func:`run_sweep` did to one cell."""

    id: str
    out_dir: Path
    games: int  # games in the cell directory (deals x rotations)
    played: int  # played by this call
    seconds: float


@dataclass
class SweepSummary:
    """What a call to :func:`run_sweep` did."""

    out_dir: Path
    sweep: Sweep = field(repr=False)
    games_per_cell: int  # deals per cell
    cells: list[CellRun]
    seconds: float

    @property
    def played(self) -> int:
        return sum(c.played for c in self.cells)

    @property
    def kept(self) -> int:
        return sum(c.games - c.played for c in self.cells)

    @property
    def games_per_second(self) -> float | None:
        return self.played / self.seconds if self.played and self.seconds > 0 else None


def run_sweep(
    path: str | Path,
    out_dir: str | Path,
    jobs: int = 1,
    games_per_cell: int | None = None,
    batch_size: int = 4096,
    progress: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> SweepSummary:
    """Play every cell of the sweep file ``path`` into ``out_dir/cells/<id>`` (resuming what is there).

    ``games_per_cell`` (deals) overrides the file's (it never shrinks what the
    directory holds). ``batch_size``, ``jobs``, ``backend`` and ``scheduler``
    (see :func:`sims.runner.run`) change speed only, never the records. Cells
    are played one after the other, each on all ``jobs`` workers. ``warn(line)``
    is told of a damaged sweep.json rebuilt from the cells (default: stderr).
    """
    return play_sweep(read_sweep(path), out_dir, jobs, games_per_cell, batch_size, progress, backend, scheduler,
                      warn=warn)


def play_sweep(sweep: Sweep, out_dir: str | Path, jobs: int = 1, games_per_cell: int | None = None,
               batch_size: int = 4096, progress: bool = True, backend: str = "loky", scheduler: str | None = None,
               command: str = "sweep", before: Callable[[Any], None] | None = None,
               check: Callable[[], Any] | None = None, after: Callable[[], None] | None = None,
               warn: Callable[[str], None] | None = None) -> SweepSummary:
    """:func:`run_sweep` of a read sweep. ``command`` names the command writing ``out_dir`` (``ablate`` writes its
    sweep into its own directory), ``check()`` is its own read-only check of the directory and ``before()`` what
    it writes there (given what ``check()`` found), under the lock, before the sweep; ``after()`` what it plays
    there after the sweep, still under the lock. Everything is checked before anything is written."""
    for option, value in (("--games-per-cell", games_per_cell), ("--batch-size", batch_size), ("--jobs", jobs)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ConfigError(option, str(value), "an integer of at least 1", has_got=False)
    check_deals("--games-per-cell" if games_per_cell else f"{sweep.path}: games_per_cell",
                games_per_cell or sweep.games_per_cell)
    configs = cell_configs(sweep)
    out = Path(out_dir)
    wanted = _manifest(sweep, configs, games_per_cell or sweep.games_per_cell)
    outdir.check_out(out, command)
    if backend == "dask":
        check_scheduler(backend, scheduler)
    warn = warn or _stderr
    started = time.perf_counter()

    def checks() -> tuple[tuple[dict | None, ConfigError | None], Any]:
        own = check() if check is not None else None
        return _check_sweep_dir(out, sweep, configs, wanted), own

    with outdir.writing(out, command, checks) as ((held, damage), own):
        if before is not None:
            before(own)
        manifest = wanted
        if damage is not None:
            aside = set_aside(out / SWEEP_JSON)
            warn(f"warning: {out / SWEEP_JSON} is damaged ({damage.expected}); moved to {aside}, rebuilt from the "
                 "cells' manifests")
            manifest["games_per_cell"] = max(manifest["games_per_cell"], _cells_games(out, manifest))
        if held is not None:
            manifest["games_per_cell"] = max(manifest["games_per_cell"], held.get("games_per_cell", 0))
            manifest["created"] = held.get("created", manifest["created"])
        deals = manifest["games_per_cell"]
        missing = {}
        for cell, config, entry in zip(sweep.cells, configs, manifest["cells"]):
            rotations = sweep.cell_rotations(cell, config, out / entry["dir"])
            finished = finished_chunks(out / entry["dir"])
            wanted_deals = cell_deals(entry, deals)
            missing[entry["id"]] = sum(c.deals for c in plan_chunks(wanted_deals, rotations, wanted_deals, finished))
            entry["status"] = _status(finished, wanted_deals, rotations)
        write_json(manifest, out / SWEEP_JSON)
        if scheduler is None:  # every cell's bots compiled before the bar (and its ETA) and the workers start
            warm_runs(sweep.game, [(config, sweep.cell_bots(cell), sweep.cell_players(cell))
                                   for cell, config in zip(sweep.cells, configs) if missing[cell.id]])
        runs = []
        with _progress_bar(progress and any(missing.values()), sum(missing.values()),
                           f"{sweep.game} sweep ({out})") as bar:
            for number, (cell, config, entry) in enumerate(zip(sweep.cells, configs, manifest["cells"]), 1):
                cell_dir = out / entry["dir"]
                bar.start_cell(f"{number}/{len(sweep.cells)} {cell.id}", missing[cell.id])
                entry["status"] = "running"
                write_json(manifest, out / SWEEP_JSON)
                result = _play_cell(sweep, cell, config, cell_dir, cell_deals(entry, deals), missing[cell.id],
                                    batch_size, jobs, bar, backend, scheduler)
                entry["status"] = "done"
                entry["games"] = result.games
                manifest["updated"] = now()
                write_json(manifest, out / SWEEP_JSON)
                runs.append(result)
                if progress:
                    done = (f"played {result.played:,} in {result.seconds:.1f} s" if result.played
                            else "all on disk")
                    bar.echo(f"cell {number}/{len(sweep.cells)} {cell.id}: {result.games:,} games ({done})")
        if after is not None:
            after()
    return SweepSummary(out_dir=out, sweep=sweep, games_per_cell=deals, cells=runs,
                        seconds=time.perf_counter() - started)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _check_sweep_dir(out: Path, sweep: Sweep, configs: Sequence[Any], wanted: dict
                     ) -> tuple[dict | None, ConfigError | None]:
    """What ``out`` holds of the sweep ``wanted`` describes: (its sweep.json, None), (None, the damage) when
    sweep.json is damaged but the cells show they are this sweep's, or (None, None) when nothing is played yet.
    A ConfigError if it holds another sweep, cells without a sweep.json, or a cell that is not this sweep's.
    Read-only: :func:`play_sweep` checks before it writes anything."""
    held, damage = outdir.held_state(lambda: _held(out), lambda held: _check_resume(held, wanted, out / SWEEP_JSON),
                                     lambda: _check_cells(out, sweep, configs, wanted))
    if held is None and damage is None and _cell_dirs(out):
        raise ConfigError(str(out / SWEEP_JSON), "(file)", f"a sweep.json beside the cell directories in {out} "
                          "(it was deleted; use another --out)", has_got=False)
    return held, damage


def _cell_dirs(out: Path) -> list[Path]:
    folder = out / CELLS
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _check_cells(out: Path, sweep: Sweep, configs: Sequence[Any], wanted: dict) -> None:
    """A ConfigError unless every cell directory in ``out`` is a cell of ``sweep`` that glade play may resume."""
    cells = {entry["dir"]: (cell, config) for cell, config, entry in zip(sweep.cells, configs, wanted["cells"])}
    for path in _cell_dirs(out):
        key = f"{CELLS}/{path.name}"
        if key not in cells:
            raise ConfigError(str(path), "(directory)", "a cell of this sweep: " + _short_list(
                [c.id for c in sweep.cells]) + " (use another --out for a different sweep)", has_got=False)
        cell, config = cells[key]
        check_run_dir(path, sweep.cell_spec(cell, config))


def _cells_games(out: Path, manifest: dict) -> int:
    """The most deals an uncapped cell of ``out`` holds (what a lost sweep.json's games_per_cell was at least)."""
    from sims.records import read_manifest

    held = [read_manifest(out / entry["dir"]) for entry in manifest["cells"] if not entry.get("deal_cap")]
    return max([int(m["games"]) for m in held if m is not None] + [0])


def _play_cell(sweep: Sweep, cell: CellSpec, config: GameConfig, cell_dir: Path, deals: int, missing: int,
               batch_size: int, jobs: int, bar: Any, backend: str, scheduler: str | None) -> CellRun:
    """Bring one cell to ``deals`` deals; each finished chunk moves the sweep's bar.

    Chunks are at most ``batch_size`` deals, and small enough that a cell with
    few missing games still keeps ``jobs`` workers busy (chunking never changes
    the records).
    """
    batch = max(1, min(batch_size, math.ceil(missing / jobs))) if missing else batch_size
    result = run(sweep.cell_spec(cell, config), deals, cell_dir, batch_size=batch, jobs=jobs, progress=None,
                 on_chunk=lambda chunk, count: bar.update(count), backend=backend, scheduler=scheduler)
    return CellRun(cell.id, cell_dir, result.games, result.played, result.seconds)


def _manifest(sweep: Sweep, configs: Sequence[Any], games_per_cell: int) -> dict:
    return {
        "format": FORMAT,
        "sweep_file": str(sweep.path),
        "sweep_hash": sweep.hash,
        "sweep_text": sweep.text,
        "description": sweep.description,
        "game": sweep.game,
        "players": sweep.players,
        "bots": list(sweep.bots),
        "rotate_seats": sweep.rotate_seats,
        "seed": sweep.seed,
        "games_per_cell": games_per_cell,
        "base": [s.override for s in sweep.base],
        "baseline": sweep.baseline,
        "axes": list(sweep.axes),
        "cells": [
            {
                "id": cell.id,
                "dir": f"{CELLS}/{cell.id}",
                "overrides": list(cell.overrides),
                "set": {s.key: s.value for s in cell.settings},
                "labels": cell.labels,
                "title": cell.title or cell.id,
                "players": sweep.cell_players(cell),
                "bots": sweep.cell_bots(cell),
                "config_hash": config.loaded.hash,
                "deal_cap": cell.games,
                "status": "pending",
                "games": 0,
            }
            for cell, config in zip(sweep.cells, configs)
        ],
        "versions": versions(),
        "created": now(),
        "updated": now(),
    }


def cell_deals(entry: dict, deals: int) -> int:
    """The deals a cell plays: the sweep's, or fewer where the cell caps them (its ``games`` key)."""
    cap = entry.get("deal_cap")
    return min(int(cap), deals) if cap else deals


def _identity(manifest: dict, key: str) -> Any:
    if key == "cells":
        return [{"id": c["id"], "overrides": c["overrides"] + [f"{k}={_plain(c[k])}" for k in RUN_AXES if k in c.get("labels", {})]}
                for c in manifest.get("cells", [])]
    return manifest.get(key)


def _check_resume(held: dict, wanted: dict, path: Path) -> None:
    """Refuse an output directory that holds a different sweep."""
    advice = "use another --out for a different sweep"
    for key in _IDENTITY:
        before, now = _identity(held, key), _identity(wanted, key)
        if before == now:
            continue
        if key == "cells":
            ids_before, ids_now = [c["id"] for c in before], [c["id"] for c in now]
            if ids_before != ids_now:
                raise ConfigError(str(path), "cells", f"the cells this sweep directory holds "
                                  f"({_short_list(ids_before)}; {advice}), got {_short_list(ids_now)}", has_got=False)
            changed = next(b for b, n in zip(before, now) if b != n)
            new = next(n for n in now if n["id"] == changed["id"])
            raise ConfigError(str(path), f"cells.{changed['id']}", f"the overrides this sweep directory holds "
                              f"({' '.join(changed['overrides'])}; {advice}), got {' '.join(new['overrides'])}",
                              has_got=False)
        raise ConfigError(str(path), key, f"{_plain(before)} (what this sweep directory holds; {advice}), "
                          f"got {_plain(now)}", has_got=False)
    for old, new in zip(held["cells"], wanted["cells"]):
        if old.get("config_hash") != new["config_hash"]:
            raise ConfigError(str(path), f"cells.{new['id']}.config_hash",
                              f"{old.get('config_hash')} (the config this cell was played with: did the game's "
                              f"config file change? {advice}), got {new['config_hash']}", has_got=False)


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value)) if value else "(none)"
    return json.dumps(value).strip('"')


_CELL_SHAPE = {"id": Where(str, lambda value: bool(value) and "/" not in value and not value.startswith("."),
                           "a cell id (a folder name)"),
               "dir": str, "overrides": [str], "set": dict, "labels": dict, "config_hash": str, "title": Opt(str),
               "players": Opt(COUNT_SHAPE), "bots": Opt(BOTS_SHAPE), "deal_cap": Opt(Maybe(COUNT_SHAPE)),
               "status": Opt(str), "games": Opt(int)}
# sweep.json as glade sweep writes it: every key the readers (load_sweep, resuming, reports) use.
SWEEP_SHAPE = {"game": str, "description": str, "players": COUNT_SHAPE, "bots": BOTS_SHAPE,
               "rotate_seats": bool, "seed": SEED_SHAPE, "games_per_cell": COUNT_SHAPE, "base": [str], "baseline": str,
               "axes": [str], "cells": Where([_CELL_SHAPE], bool, "a list of one or more cells"),
               "sweep_text": Opt(str), "created": Opt(str)}


def _held(out: Path) -> dict | None:
    """``OUT/sweep.json`` read through the state loader (None if there is none); a damaged one is a ConfigError."""
    path = out / SWEEP_JSON
    held = read_state(path, SWEEP_SHAPE, "sweep.json", "sweep")
    if held is None:
        return None
    ids = [cell["id"] for cell in held["cells"]]
    for index, cell in enumerate(held["cells"]):
        if cell["dir"] != f"{CELLS}/{cell['id']}":
            raise state_error(path, f"cells[{index}].dir", f"{CELLS}/{cell['id']} (the cell's folder)", "sweep.json",
                              "sweep", cell["dir"])
    if len(set(ids)) != len(ids):
        raise state_error(path, "cells", "cells with distinct ids", "sweep.json", "sweep", ids)
    if held["baseline"] not in ids:
        raise state_error(path, "baseline", "one of the cell ids", "sweep.json", "sweep", held["baseline"])
    for index, text in enumerate(held["base"]):
        try:
            parse_override(text)
        except ConfigError:
            raise state_error(path, f"base[{index}]", "KEY=VALUE", "sweep.json", "sweep", text) from None
    return held


def _status(finished: Sequence[Chunk], deals: int, rotations: int) -> str:
    if not plan_chunks(deals, rotations, max(deals, 1), finished):
        return "done"
    return "partial" if finished else "pending"


class _NoBar:
    """No bar (nothing to play, or no progress asked for); a cell's line still goes to stderr."""

    def update(self, count: int) -> None:
        pass

    def start_cell(self, name: str, length: int) -> None:
        pass

    def echo(self, line: str) -> None:
        print(line, file=sys.stderr)


@contextlib.contextmanager
def _progress_bar(show: bool, length: int, label_: str) -> Iterator[Any]:
    """One display over all cells (see :mod:`analysis.progress`): overall and current-cell progress with ETAs."""
    if not show:
        yield _NoBar()
        return
    from analysis.progress import progress_display

    with progress_display(length, label_) as bar:
        yield bar


# ---------------------------------------------------------------- reading a sweep


@dataclass(frozen=True)
class SweepCell:
    """One cell of a played sweep."""

    id: str
    overrides: dict[str, Any]  # config key -> value the cell sets (base settings not included)
    labels: dict[str, str]  # axis -> label in the id (a value's name, or the value)
    config_hash: str
    path: Path  # the cell's run directory
    status: str  # done, partial (some chunks), pending (none)
    baseline: bool
    players: int
    bots: tuple[str, ...]  # one per seat
    title: str  # how reports name the cell

    def records(self) -> pl.DataFrame:
        """The cell's records (see ``sims.records.load_records``)."""
        return load_records(self.path)

    def events(self) -> pl.DataFrame | None:
        return load_events(self.path)

    def trajectories(self) -> pl.DataFrame | None:
        """Each seat's score at each round end (see ``sims.records.load_trajectories``), or None."""
        return load_trajectories(self.path)

    def manifest(self) -> dict:
        """The cell's run manifest: its whole config, bots, seeds, chunks."""
        return load_manifest(self.path)


@dataclass(frozen=True)
class SweepData:
    """A played sweep: its settings and cells in sweep order, for the stats and report code."""

    out_dir: Path
    game: str
    description: str
    players: int
    bots: tuple[str, ...]
    rotate_seats: bool
    seed: int
    games_per_cell: int  # deals per cell asked for (cells may hold fewer if interrupted)
    base: dict[str, Any]  # config key -> value set in every cell
    axes: tuple[str, ...]  # grid keys in order (or the keys explicit cells set)
    cells: tuple[SweepCell, ...]
    manifest: dict = field(repr=False)  # sweep.json

    @property
    def baseline(self) -> SweepCell:
        return next(c for c in self.cells if c.baseline)

    def cell(self, cell_id: str) -> SweepCell:
        for cell in self.cells:
            if cell.id == cell_id:
                return cell
        raise ConfigError(str(self.out_dir / SWEEP_JSON), "cells", "one of " + _short_list([c.id for c in self.cells]),
                          cell_id)

    def records(self) -> pl.DataFrame:
        """All cells' records with a ``cell`` column first (cells without records are left out)."""
        frames = [c.records().select(pl.lit(c.id).alias("cell"), pl.all()) for c in self.cells if c.status != "pending"]
        if not frames:
            raise ConfigError(str(self.out_dir / CELLS), "(files)", "cells with records (run glade sweep)",
                              has_got=False)
        return pl.concat(frames, how="vertical")


def load_sweep(out_dir: str | Path) -> SweepData:
    """Read ``OUT/sweep.json`` and describe its cells (records load on demand)."""
    out = Path(out_dir)
    manifest = _held(out)
    if manifest is None:
        raise ConfigError(str(out / SWEEP_JSON), "(file)", "a sweep directory written by glade sweep",
                          has_got=False)
    deals = int(manifest["games_per_cell"])
    cells = []
    for entry in manifest["cells"]:
        path = out / entry["dir"]
        players = int(entry.get("players", manifest["players"]))
        rotations = recorded_rotations(path) or (players if manifest["rotate_seats"] else 1)
        cells.append(SweepCell(
            id=entry["id"], overrides=dict(entry["set"]), labels=dict(entry["labels"]),
            config_hash=entry["config_hash"], path=path,
            status=_status(finished_chunks(path), cell_deals(entry, deals), rotations),
            baseline=entry["id"] == manifest["baseline"],
            players=players, bots=tuple(entry.get("bots", manifest["bots"])), title=entry.get("title", entry["id"]),
        ))
    base = {}
    for text in manifest["base"]:
        key, value = parse_override(text)
        base[".".join(key)] = value
    return SweepData(
        out_dir=out, game=manifest["game"], description=manifest["description"], players=manifest["players"],
        bots=tuple(manifest["bots"]), rotate_seats=manifest["rotate_seats"], seed=manifest["seed"],
        games_per_cell=deals, base=base, axes=tuple(manifest["axes"]), cells=tuple(cells), manifest=manifest,
    )


# ---------------------------------------------------------------- the first look


_CELL_SCHEMA = {
    "cell": pl.String, "title": pl.String, "baseline": pl.Boolean, "games": pl.Int64, "players": pl.Int64,
    "seat0_share": pl.Float64, "seat0_low": pl.Float64, "seat0_high": pl.Float64, "counted": pl.String,
    "share_method": pl.String, "headline": pl.String, "mean_turns": pl.Float64, "stall_rate": pl.Float64,
    "blocked_rate": pl.Float64,
}


def cell_row(cell_id: str, title: str, baseline: bool, players: int, headline: str, advantage: Any,
             solo: Any, games: int, mean_turns: float, stall_rate: float, blocked_rate: float = 0.0) -> dict[str, Any]:
    """One row of :func:`cell_table`: seat 0's share as the cell's headline counts it
    (``analysis.summary.seat_headline``: decided games with 2 players, first places with a shared one split with
    3-4), or a solitaire cell's win rate (``solo``, an ``analysis.stats.Proportion``)."""
    from analysis.summary import shares_counted

    row = {"cell": cell_id, "title": title, "baseline": baseline, "games": games, "players": players,
           "headline": headline, "mean_turns": mean_turns, "stall_rate": stall_rate, "blocked_rate": blocked_rate}
    if advantage is not None:
        seat0 = advantage.seats.filter(pl.col("seat") == 0).row(0, named=True)
        row.update(seat0_share=seat0["share"], seat0_low=seat0["share_low"], seat0_high=seat0["share_high"],
                   counted=shares_counted(advantage).removeprefix("of "), share_method=advantage.share_method)
    elif solo is not None:
        row.update(seat0_share=solo.rate, seat0_low=solo.low, seat0_high=solo.high, counted="games (solitaire)",
                   share_method="Wilson 95%")
    return row


def cell_table(data: SweepData) -> pl.DataFrame:
    """Per cell: games and seat 0's share as the cell's headline counts it, with its interval; mean turns, stalls.

    Columns: cell (id), title (the sweep's ``label`` template, else the id), baseline, games, players,
    seat0_share, seat0_low, seat0_high (the share :func:`analysis.summary.seat_headline` reports: of decided
    games with 2 players, ties and stalls not counted; of first places with 3-4, a shared one split between its
    seats; between equal players by a model of seat and bot terms when the bots differ and seats rotate; a
    solitaire cell's win rate), counted (what the share is of), share_method (its interval), headline (the
    cell's headline sentence), mean_turns, stall_rate, blocked_rate (games that ended with no seat able to move).
    Cells without records have 0 games and nulls.
    """
    rows = []
    for cell in data.cells:
        row = {"cell": cell.id, "title": cell.title, "baseline": cell.baseline, "games": 0, "players": cell.players}
        if cell.status != "pending":
            row = cell_figures(cell)
        rows.append(row)
    return cell_frame(rows)


def cell_figures(cell: SweepCell, tally: Any = None) -> dict[str, Any]:
    """:func:`cell_row` of a played cell from its tallies (``analysis.run_tally.tally_run``: the cell read a block
    of deals at a time, a game's own seats beyond the players left out), read here unless given."""
    from analysis.run_tally import tally_run
    from analysis.stats import proportion
    from analysis.summary import tally_headline

    tally = tally if tally is not None else tally_run(cell.path, cell.players, points=0)
    text, advantage = tally_headline(tally.seats)
    seat0 = tally.outcomes.rate_table("seat").filter(pl.col("seat") == 0)  # one seat-game per game
    solo = proportion(int(seat0["wins"].sum()), int(seat0["games"].sum())) if advantage is None else None
    turns, games = tally.outcomes.turn_values()
    deals = tally.outcomes.distinct()
    total = float(games.sum())
    return cell_row(cell.id, cell.title, cell.baseline, cell.players, text, advantage, solo, int(total),
                    float((turns * games).sum() / total), float((deals.stalled * deals.count).sum() / total),
                    float((deals.blocked * deals.count).sum() / total))


def cell_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """:func:`cell_row` rows as :func:`cell_table`'s frame (missing keys null)."""
    return pl.DataFrame(rows, schema=_CELL_SCHEMA)


def format_cell_table(table: pl.DataFrame) -> str:
    """:func:`cell_table` as text, cells named by their title (the ``label`` template); the baseline is starred.
    Seat 0's share is the one each cell's headline reports (``glade play``, the run report); the last lines say
    what it counts and its interval."""
    names = [t if t else c for c, t in zip(table["cell"], table["title"])]
    table = table.with_columns(pl.Series("cell", names, dtype=pl.String))
    width = max(len("cell"), *(len(c) for c in table["cell"]))
    blocked = bool((table["blocked_rate"].fill_null(0.0) > 0).any())
    lines = [f"{'cell':<{width}}    {'games':>9}  {'seat 0 share [95%]':<24}  {'turns':>6}  {'stalls':>6}"
             + (f"  {'blocked':>7}" if blocked else "")]
    for row in table.iter_rows(named=True):
        mark = " *" if row["baseline"] else "  "
        if row["games"]:
            share = ("n/a" if row["seat0_share"] is None or not math.isfinite(row["seat0_share"]) else
                     f"{100 * row['seat0_share']:.1f}%" + _interval(row["seat0_low"], row["seat0_high"]))
            rest = f"{row['mean_turns']:>6.1f}  {100 * row['stall_rate']:>5.1f}%"
            if blocked:
                rest += f"  {100 * (row['blocked_rate'] or 0.0):>6.1f}%"
        else:
            share, rest = "(not played)", ""
        lines.append(f"{row['cell']:<{width}}{mark}  {row['games']:>9,}  {share:<24}  {rest}".rstrip())
    played = table.filter(pl.col("games") > 0)
    counted = "; ".join(dict.fromkeys(played["counted"].drop_nulls().to_list())) or "n/a"
    methods = "; ".join(dict.fromkeys(played["share_method"].drop_nulls().to_list())) or "n/a"
    lines.append("* baseline; seat 0 share: the headline's (glade play, glade report), of " + counted)
    lines.append(f"  interval: {methods}; turns: mean; stalls: share of games without a result"
                 + ("; blocked: share of games that ended with no seat able to move (scored)" if blocked else ""))
    return "\n".join(lines)


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return ""
    return f" [{100 * low:.1f}, {100 * high:.1f}]"


__all__ = [
    "CellRun", "CellSpec", "Setting", "Sweep", "SweepCell", "SweepData", "SweepSummary", "cell_configs",
    "cell_frame", "cell_row", "cell_table", "format_cell_table", "label", "load_sweep", "read_sweep", "run_sweep", "toml_value",
]
