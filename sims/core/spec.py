"""Game configs: TOML files checked against a small declarative schema.

A game declares its schema as nested dicts of fields mirroring its TOML file::

    SCHEMA = {"board": {"columns": Int(3, 8), "rows": Int(3, 8)},
              "limits": {"max_turns": Int(1, 100_000)}}

:func:`load_config` reads ``configs/games/<game>.toml`` with :mod:`tomllib`,
applies ``--set key=value`` overrides and validates the result. Every problem
raises :class:`ConfigError`, whose message names the file, the key and what
was expected; the command line prints it as one line and exits with status 2.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A config or argument problem: ``source: key: expected ..., got ...``."""

    def __init__(self, source: str, key: str, expected: str, got: Any = None, *, has_got: bool = True):
        self.source, self.key, self.expected = source, key, expected
        text = f"{source}: {key}: expected {expected}"
        if has_got:
            text += f", got {_show(got)}"
        super().__init__(text)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    text = json.dumps(value, default=str) if isinstance(value, list) else repr(value)
    return text if len(text) < 60 else text[:57] + "..."


class Field:
    """One leaf of a schema: checks and normalises a value or raises ConfigError."""

    description = "a value"

    def check(self, value: Any, source: str, key: str) -> Any:
        raise NotImplementedError


@dataclass
class Int(Field):
    low: int | None = None
    high: int | None = None

    @property
    def description(self) -> str:
        if self.low is not None and self.high is not None:
            return f"an integer from {self.low} to {self.high}"
        if self.low is not None:
            return f"an integer of at least {self.low}"
        return "an integer"

    def check(self, value: Any, source: str, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(source, key, self.description, value)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ConfigError(source, key, self.description, value)
        return value


@dataclass
class Float(Field):
    low: float | None = None
    high: float | None = None

    @property
    def description(self) -> str:
        if self.low is not None and self.high is not None:
            return f"a number from {self.low} to {self.high}"
        return "a number"

    def check(self, value: Any, source: str, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(source, key, self.description, value)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ConfigError(source, key, self.description, value)
        return float(value)


@dataclass
class Bool(Field):
    description: str = "true or false"

    def check(self, value: Any, source: str, key: str) -> bool:
        if not isinstance(value, bool):
            raise ConfigError(source, key, self.description, value)
        return value


@dataclass
class Str(Field):
    choices: tuple[str, ...] | None = None

    @property
    def description(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        return "a string"

    def check(self, value: Any, source: str, key: str) -> str:
        if not isinstance(value, str) or (self.choices and value not in self.choices):
            raise ConfigError(source, key, self.description, value)
        return value


@dataclass
class List(Field):
    item: Field
    min_len: int = 0
    max_len: int | None = None

    @property
    def description(self) -> str:
        size = f"at least {self.min_len}" if self.max_len is None else (
            f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len} to {self.max_len}")
        return f"a list of {size} items, each {self.item.description}"

    def check(self, value: Any, source: str, key: str) -> list:
        if not isinstance(value, list):
            raise ConfigError(source, key, self.description, value)
        if len(value) < self.min_len or (self.max_len is not None and len(value) > self.max_len):
            raise ConfigError(source, key, self.description, value)
        return [self.item.check(v, source, item_key(key, i, v)) for i, v in enumerate(value)]


def item_key(key: str, index: int, item: Any) -> str:
    """``species[24] (Douglas Fir)``: a list item's key, with its ``name`` when it has one."""
    name = item.get("name") if isinstance(item, dict) else None
    return f"{key}[{index}] ({name})" if isinstance(name, str) and name else f"{key}[{index}]"


@dataclass
class Table(Field):
    """A table with arbitrary key names, each value checked by ``value``."""

    value: Any
    description: str = "a table"

    def check(self, value: Any, source: str, key: str) -> dict:
        if not isinstance(value, dict):
            raise ConfigError(source, key, self.description, value)
        return {name: validate(item, self.value, source, f"{key}.{name}") for name, item in value.items()}


@dataclass
class Record(Field):
    """A table with fixed keys, checked against a nested schema (an item of a list of tables)."""

    schema: Any
    description: str = "a table"

    def check(self, value: Any, source: str, key: str) -> dict:
        return validate(value, self.schema, source, key)



def weight_at(name: str, players: int) -> str:
    """The key of weight ``name`` that replaces it at ``players`` players (``depth_3p``)."""
    return f"{name}_{players}p"


# The planner's and its tree search's own weights (their meanings: sims/core/planner.py, sims/core/search.py).
# Every game's ``[bots.planner]`` and planner personas accept each of them, and each as ``<name>_<P>p``.
PLANNER_WEIGHTS = ("candidates", "depth", "samples", "replies", "prune", "turns", "halving", "final_replies",
                   "explore", "budget", "reply_planner", "iterations", "walkers", "tree_depth", "widen", "uct",
                   "observe")
_AT_PLAYERS = re.compile(r"^(.*)_\d+p$")


def planner_weight_names(players: Iterable[int], own: Sequence[str] = ()) -> tuple[str, ...]:
    """:data:`PLANNER_WEIGHTS` and a game's ``own`` planner weights, each also at every count of ``players``."""
    names = PLANNER_WEIGHTS + tuple(own)
    return names + tuple(weight_at(name, count) for name in names for count in players)


def bot_weight_fields(greedy: Sequence[str], players: Iterable[int], own: Sequence[str] = ()) -> dict:
    """The schema of a ``[bots.<kind>]`` or ``[personas.<name>]`` table: the greedy evaluation's weights and
    :func:`planner_weight_names`, every one an optional number."""
    return {name: Optional(Float(), None) for name in tuple(greedy) + planner_weight_names(players, own)}


def bot_tables(values: dict, source: str, required: dict[str, Sequence[str]],
               planner_own: Sequence[str] = ()) -> tuple[dict, dict]:
    """``[bots.<kind>]`` weights and ``[personas.<name>]`` from validated values (unset weights dropped);
    a ConfigError names the first ``required[kind]`` weight a kind lacks, or a planner weight
    (:data:`PLANNER_WEIGHTS`, ``planner_own``) set on a bot that is not a planner."""
    weights = {kind: {k: v for k, v in table.items() if v is not None} for kind, table in values["bots"].items()}
    for kind, names in required.items():
        missing = [name for name in names if name not in weights.get(kind, {})]
        if missing:
            raise ConfigError(source, f"bots.{kind}.{missing[0]}", "a number", has_got=False)
    personas = {name: (persona["bot"], {k: v for k, v in persona.items() if k != "bot" and v is not None})
                for name, persona in values.get("personas", {}).items()}
    tables = [(f"bots.{kind}", kind, table) for kind, table in weights.items()]
    tables += [(f"personas.{name}", kind, table) for name, (kind, table) in personas.items()]
    planner_only = set(PLANNER_WEIGHTS) | set(planner_own)
    for key, kind, table in tables:
        misplaced = [name for name in table if kind != "planner" and base_weight(name) in planner_only]
        if misplaced:
            raise ConfigError(source, f"{key}.{misplaced[0]}", f"no planner weight on a {kind} bot (the planner "
                              f"weights {', '.join(sorted(planner_only))} belong to kind planner)", has_got=False)
    return weights, personas


def base_weight(name: str) -> str:
    """``depth_3p`` -> ``depth``."""
    match = _AT_PLAYERS.match(name)
    return match.group(1) if match else name


def validate(raw: Any, schema: Any, source: str, prefix: str = "") -> Any:
    """Check ``raw`` against ``schema`` (a Field or nested dict of fields)."""
    if isinstance(schema, Field):
        return schema.check(raw, source, prefix or "(top level)")
    if not isinstance(raw, dict):
        raise ConfigError(source, prefix or "(top level)", "a table", raw)
    out: dict[str, Any] = {}
    for name in raw:
        if name not in schema:
            plain = [key for key in sorted(schema) if base_weight(key) == key or base_weight(key) not in schema]
            at_players = ", or a planner weight as <name>_<P>p: its value at P players"
            at_players = at_players if len(plain) < len(schema) else ""
            raise ConfigError(source, _join(prefix, name), f"one of the known keys ({', '.join(plain)}{at_players})",
                              has_got=False)
    for name, sub in schema.items():
        key = _join(prefix, name)
        if name not in raw:
            if isinstance(sub, Optional):
                out[name] = sub.default
                continue
            raise ConfigError(source, key, f"this key to be set ({_describe(sub)})", has_got=False)
        out[name] = validate(raw[name], sub.field if isinstance(sub, Optional) else sub, source, key)
    return out


@dataclass
class Optional:
    """A key that may be left out; it then takes ``default``."""

    field: Any
    default: Any = None


def _describe(schema: Any) -> str:
    if isinstance(schema, Optional):
        schema = schema.field
    return schema.description if isinstance(schema, Field) else "a table"


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def parse_override(text: str, source: str = "--set") -> tuple[list[str], Any]:
    """``"board.columns=9"`` -> ``(["board", "columns"], 9)``; TOML values, else a bare string."""
    if "=" not in text:
        raise ConfigError(source, text, "KEY=VALUE (for example board.columns=9)", has_got=False)
    key, _, value_text = text.partition("=")
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise ConfigError(source, text, "KEY=VALUE with a dotted key such as board.columns", has_got=False)
    try:
        value = tomllib.loads(f"v = {value_text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = value_text.strip()
    return key.split("."), value


_PART = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]+\])*)$")


@dataclass(frozen=True)
class _Named:
    """A list item chosen by its ``name`` key, as in ``species[Douglas Fir]``."""

    name: str


def _steps(part: str) -> list[str | int | _Named] | None:
    """``"kinds[2]"`` -> ``["kinds", 2]``; ``"species[Douglas Fir]"`` -> ``["species", _Named("Douglas Fir")]``."""
    match = _PART.match(part)
    if not match:
        return None
    return [match.group(1)] + [int(i) if i.strip().isdigit() else _Named(i.strip())
                               for i in re.findall(r"\[([^\[\]]+)\]", match.group(2))]


def _named_index(node: Any, name: str, where: str, dotted: str, source_name: str) -> int:
    """The index of the item of list ``node`` whose ``name`` is ``name``; a ConfigError listing the names."""
    names = [item.get("name") for item in node if isinstance(item, dict)] if isinstance(node, list) else []
    if name not in names:
        known = ", ".join(str(n) for n in names if isinstance(n, str)) or "(the items have no name key)"
        raise ConfigError(where, dotted, f"the name of an item of the list in {source_name}: {known}",
                          has_got=False)
    return names.index(name)


def apply_overrides(raw: dict, overrides: Iterable[str], source_name: str) -> dict:
    """A copy of ``raw`` with each ``key=value`` set; the key must already exist, but for a bot's or a persona's
    weight (``bots.planner.samples=4``), which the schema checks.

    A part of the key may index a list, as in ``kinds[2].count=10``, or name
    one of its items, as in ``species[Douglas Fir].cost=2``.
    """
    result = copy.deepcopy(raw)
    for text in overrides:
        path, value = parse_override(text)
        steps: list[tuple[str | int, str]] = []
        for depth, part in enumerate(path):
            dotted = ".".join(path[: depth + 1])
            parsed = _steps(part)
            if parsed is None:
                raise ConfigError(f"--set {text}", dotted, "a key such as board.rows or kinds[2].count",
                                  has_got=False)
            steps.extend((step, dotted) for step in parsed)
        node: Any = result
        for index, (step, dotted) in enumerate(steps):
            if isinstance(step, _Named):
                step = _named_index(node, step.name, f"--set {text}", dotted, source_name)
            if isinstance(step, int):
                if not isinstance(node, list):
                    raise ConfigError(f"--set {text}", dotted, f"a list of {source_name} to index", has_got=False)
                if step >= len(node):
                    raise ConfigError(f"--set {text}", dotted, f"an index below {len(node)} (the list's length "
                                      f"in {source_name})", has_got=False)
            elif not isinstance(node, dict) or (step not in node and not _is_bot_weight(path, index, steps)):
                raise ConfigError(f"--set {text}", dotted, f"a key of {source_name}", has_got=False)
            if index == len(steps) - 1:
                node[step] = value
            else:
                node = node[step]
    return result


def _is_bot_weight(path: list[str], index: int, steps: list) -> bool:
    """Whether step ``index`` is the weight of ``bots.<kind>.<weight>`` or ``personas.<name>.<weight>``: a weight
    the file leaves out may still be set (the game's schema then checks its name)."""
    return len(path) == 3 == len(steps) and index == 2 and path[0] in ("bots", "personas")


def read_toml(path: Path) -> dict:
    """Parse a TOML file; a missing file or a syntax error is a ConfigError."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise ConfigError(str(path), "(file)", "an existing TOML file", has_got=False) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), "(syntax)", f"valid TOML ({error})", has_got=False) from None


def config_hash(config: Mapping) -> str:
    """A short stable hash of a validated config (canonical JSON, sha256)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def project_root() -> Path:
    """The checkout that holds ``configs/`` (``GLADE_ROOT`` overrides)."""
    if "GLADE_ROOT" in os.environ:
        return Path(os.environ["GLADE_ROOT"])
    return Path(__file__).resolve().parents[2]


def default_config_path(game: str) -> Path:
    return project_root() / "configs" / "games" / f"{game}.toml"


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config: the plain dict, where it came from, and its hash."""

    values: dict
    source: str
    overrides: tuple[str, ...] = field(default=())

    @property
    def hash(self) -> str:
        return config_hash(self.values)


class RecordedValues(dict):
    """Config values recorded by a run (its manifest's ``config``), loaded again in place of a TOML file.

    Pass one as ``path`` to a game's ``load_config``: keys left unset (null)
    are dropped, so their defaults apply again, and the values are validated
    as a file's would be; ``source`` names where they came from.
    """

    def __init__(self, values: Mapping, source: str):
        super().__init__(_without_nulls(values))
        self.source = source


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def load_config(
    game: str,
    schema: Mapping,
    path: Path | RecordedValues | None = None,
    overrides: Iterable[str] = (),
    cross_check: Callable[[dict, str], None] | None = None,
) -> LoadedConfig:
    """Read, override and validate a game's config; raise ConfigError on any problem."""
    if isinstance(path, RecordedValues):
        path, raw = path.source, copy.deepcopy(dict(path))
    else:
        path = Path(path) if path else default_config_path(game)
        raw = read_toml(path)
    overrides = tuple(overrides)
    raw = apply_overrides(raw, overrides, str(path))
    source = str(path) + (" with --set " + " ".join(overrides) if overrides else "")
    values = validate(raw, schema, source)
    if cross_check is not None:
        cross_check(values, source)
    return LoadedConfig(values=values, source=source, overrides=overrides)
