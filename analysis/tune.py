"""``glade tune``: search a game's config keys for a setting whose seats are balanced, or for the
bot weights that beat a baseline bot most often (target ``bot-share``, :mod:`analysis.tune_bots`).

A study names a game, its bots, the config keys to search (``--param``) and the
target; see ``docs/tune.md`` for the search and its statistics. Parameters::

    rules.flowers=15..45:5        integers 15, 20, ..., 45 (step 1 without ``:STEP``)
    rules.bias=0.1..0.5:0.1       reals (without ``:STEP``: 9 evenly spaced values)
    board.rows=5|7|9              named choices (TOML values, else text)

A tune file holds the same study (command-line options override it)::

    game = "overgrowth"
    description = "Flowers per player, greedy vs greedy"
    bots = ["greedy", "greedy"]
    players = 2                   # optional, default: the number of bots
    seed = 7
    target = "seat-balance"       # or "bot-share" (challenger and baseline instead of bots; see analysis.tune_bots)
    delta = 0.025                 # optional: balanced within +-delta of the fair share
    turns = "16..40"              # optional: the game length band ...
    turns_share = 0.75            # optional: ... that at least this share of games must lie inside (default 0.75)
    max_stalls = 0.01             # optional: at most this share of games may stall or end blocked (default 0.01)
    means = ["score=10..20"]      # optional: a records column's mean inside a range
    budget = 60000                # optional: games the search may spend
    confirm = 4000                # optional: deals of the confirmation run
    start = 256                   # optional: deals of a candidate's first look
    set = ["board.rows=7"]        # optional: overrides applied to every candidate
    [params]
    "rules.flowers" = "15..45:5"  # a range, or a list of values, as --param takes them
    "board.rows" = [5, 7, 9]

An output directory::

    OUT/tune.json               the study, every look of the search, the drops, the choice,
                                the confirmation and the games spent (rewritten after every look)
    OUT/candidates/<id>/        one glade play run directory per candidate looked at
    OUT/confirm/<id>/           the chosen candidate on new deals (another root seed)

Every candidate plays the study's seed, so deal ``d`` has the same game seed in
every candidate (common random numbers); seats are rotated when the lineup is
mixed. Resuming: the same command again replays the search's decisions from
the records on disk and plays only what is missing, so it ends with the same
result; a different study on the same directory is refused.
"""

from __future__ import annotations

import itertools
import json
import math
import shlex
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from statsmodels.stats.weightstats import DescrStatsW
from scipy import stats as scipy_stats

from analysis import stats
from analysis.stopping import _running, mixture_half_width, mixture_rho
from analysis.sweep import _NAME, flatten, label, toml_value
from sims import outdir
from sims.core.files import Maybe, Opt, Where, read_state, set_aside, shape_problem, state_error, write_json
from sims.core.play import resolve_bot, seat_labels
from sims.core.rng import mix64, purpose_key
from sims.core.spec import ConfigError, Float, Int, List, Optional, Str, parse_override, read_toml, validate
from sims.records import (BOTS_SHAPE, COUNT_SHAPE, MAX_DEALS, SEED_SHAPE, deal_blocks, load_records, now,
                          read_manifest, versions)
from sims.registry import get_game
from sims.runner import check_deals, check_run_dir, check_seed, run, run_rotations
from sims.runspec import RunSpec

TUNE_JSON = "tune.json"
CANDIDATES = "candidates"
CONFIRM = "confirm"
FORMAT = 1
SEAT_BALANCE = "seat-balance"
BOT_SHARE = "bot-share"
TARGETS = (SEAT_BALANCE, BOT_SHARE)
ALPHA = 0.05  # the error of the drop rule (a good candidate ever dropped) and of the confirmation tests
VERDICTS = ("balanced", "unbalanced", "undecided", "rejected")
DEFAULTS = {"delta": 0.025, "budget": 60_000, "confirm": 4000, "start": 256, "target": "seat-balance",
            "turns_share": stats.BAND_SHARE, "max_stalls": stats.UNFINISHED_LIMIT}
_REAL_POINTS = 9  # values of a real range given without a step
_MAX_VALUES = 1000
_MAX_CANDIDATES = 4096
# What must match for an output directory to be resumed.
_IDENTITY = ("game", "bots", "players", "params", "target", "delta", "turns", "means", "seed", "start", "set",
             "challenger", "baseline", "turns_share", "max_stalls")


# ---------------------------------------------------------------- parameters and targets


@dataclass(frozen=True)
class Param:
    """One config key to search: its values in order (``ordered``: a numeric range)."""

    key: str
    values: tuple[Any, ...]
    ordered: bool
    text: str  # as given: "rules.flowers=15..45:5"
    names: tuple[str, ...] = ()  # a tune file's named values ([params.board] 9x5 = {rows = 9, columns = 5})

    @property
    def labels(self) -> tuple[str, ...]:
        return self.names or tuple(label(v) for v in self.values)


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) else None


def parse_band(text: str, source: str, key: str) -> tuple[float, float]:
    """``"16..40"`` -> (16.0, 40.0); a ConfigError naming ``source`` and ``key`` otherwise."""
    low, sep, high = str(text).partition("..")
    lo, hi = _number(low.strip()), _number(high.strip())
    if not sep or lo is None or hi is None or not lo <= hi:
        raise ConfigError(source, key, "a band LO..HI of two numbers with LO <= HI, such as 16..40", text)
    return float(lo), float(hi)


def _range_values(key: str, spec: str, source: str, where: str) -> tuple[tuple[Any, ...], bool]:
    """``LO..HI[:STEP]`` as its values; integers when all three are integers."""
    expected = "LO..HI[:STEP] with numbers LO < HI and STEP > 0 (e.g. 15..45:5), or choices a|b|c"
    bounds, _, step_text = spec.partition(":")
    low, _, high = bounds.partition("..")
    lo, hi = _number(low.strip()), _number(high.strip())
    step = _number(step_text.strip()) if step_text else None
    if lo is None or hi is None or not lo < hi or (step_text and (step is None or step <= 0)):
        raise ConfigError(source, where, expected, f"{key}={spec}")
    if isinstance(lo, int) and isinstance(hi, int) and (step is None or isinstance(step, int)):
        step = step or 1
        if (hi - lo) // step + 1 > _MAX_VALUES:
            raise ConfigError(source, where, f"at most {_MAX_VALUES} values (a larger STEP)", f"{key}={spec}")
        return tuple(range(lo, hi + 1, step)), True
    if step is None:
        values = np.linspace(float(lo), float(hi), _REAL_POINTS)
    else:
        if (hi - lo) / step + 1 > _MAX_VALUES:
            raise ConfigError(source, where, f"at most {_MAX_VALUES} values (a larger STEP)", f"{key}={spec}")
        count = int(math.floor((hi - lo) / step + 1e-9)) + 1
        values = float(lo) + step * np.arange(count)
    return tuple(round(float(v), 12) for v in values), True


def parse_param(text: str, source: str = "--param", where: str | None = None) -> Param:
    """``KEY=LO..HI[:STEP]`` or ``KEY=a|b|c`` as a :class:`Param`."""
    where = where or text
    key, sep, spec = str(text).partition("=")
    key, spec = key.strip(), spec.strip()
    if not sep or not key or not spec or any(not part for part in key.split(".")):
        raise ConfigError(source, where, "KEY=LO..HI[:STEP] or KEY=a|b|c with a dotted config key "
                          "(e.g. rules.flowers=15..45:5)", text)
    if "|" in spec:
        values = tuple(parse_override(f"v={part.strip()}")[1] for part in spec.split("|"))
        return _param(key, values, False, text, source, where)
    if ".." in spec:
        values, ordered = _range_values(key, spec, source, where)
        return _param(key, values, ordered, text, source, where)
    raise ConfigError(source, where, "a range LO..HI[:STEP] or choices a|b|c", text)


def _param(key: str, values: tuple, ordered: bool, text: str, source: str, where: str,
           names: tuple[str, ...] = ()) -> Param:
    labels = list(names) or [label(v) for v in values]
    if len(set(labels)) != len(labels) or not values:
        raise ConfigError(source, where, "distinct values", text)
    return Param(key, values, ordered and len(values) > 1, text, names)


def _file_param(key: str, value: Any, source: str) -> Param:
    """A tune file's ``[params]`` entry: a range or choices string, or a list of values."""
    where = f"params.{json.dumps(key) if '.' in key else key}"
    if isinstance(value, str):
        return parse_param(f"{key}={value}", source, where)
    if isinstance(value, dict) and value:
        for name in value:
            if not _NAME.match(name):
                raise ConfigError(source, f"{where}.{name}", "a name of letters, digits and . _ + - (it becomes "
                                  "part of a folder name)", name)
        text = f"{key}=" + "|".join(f"{n}:{toml_value(v)}" for n, v in value.items())
        return _param(key, tuple(value.values()), False, text, source, where, tuple(value))
    if isinstance(value, list) and value:
        ordered = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value) and value == sorted(value)
        text = f"{key}=" + "|".join(toml_value(v) for v in value)
        return _param(key, tuple(value), ordered, text, source, where)
    raise ConfigError(source, where, 'a range "LO..HI[:STEP]", choices "a|b|c", a list of values or a table of '
                      'named values', value)


@dataclass(frozen=True)
class MeanTarget:
    """A records column whose mean (per deal) should lie in ``[low, high]``."""

    column: str
    low: float
    high: float

    @property
    def text(self) -> str:
        return f"{self.column}={self.low:g}..{self.high:g}"


def parse_mean(text: str, source: str = "--mean") -> MeanTarget:
    column, sep, band = str(text).partition("=")
    if not sep or not column.strip():
        raise ConfigError(source, text, "COLUMN=LO..HI, a records column and a range, such as score=10..20",
                          has_got=False)
    low, high = parse_band(band, source, column.strip())
    return MeanTarget(column.strip(), low, high)


# ---------------------------------------------------------------- the study


@dataclass(frozen=True)
class Candidate:
    """One setting of the searched keys: its id (a folder name) and ``--set`` overrides."""

    index: int
    id: str
    settings: tuple[tuple[str, Any], ...]

    @property
    def overrides(self) -> tuple[str, ...]:
        return tuple(s.override for k, v in self.settings for s in flatten(k, v))


@dataclass(frozen=True)
class Study:
    """A validated tune study (from the command line, a tune file, or both)."""

    game: str
    bots: tuple[str, ...]  # one per player seat
    players: int
    params: tuple[Param, ...]
    seed: int
    target: str = "seat-balance"
    delta: float = 0.025
    turns: tuple[float, float] | None = None
    turns_share: float = stats.BAND_SHARE  # the share of games the turns band must hold
    max_stalls: float = stats.UNFINISHED_LIMIT  # the largest share of games that may stall or end blocked
    means: tuple[MeanTarget, ...] = ()
    budget: int = 60_000
    confirm: int = 4000
    start: int = 256
    base: tuple[str, ...] = ()
    description: str = ""
    source: str = ""  # the tune file, if any
    challenger: str = ""  # target bot-share: the bot whose weights the candidates set
    baseline: str = ""  # target bot-share: the bot it plays against (its weights the same in every candidate)

    @property
    def candidates(self) -> list[Candidate]:
        combos = itertools.product(*(tuple(zip(p.labels, p.values)) for p in self.params))
        out = []
        for index, combo in enumerate(combos):
            cid = ",".join(f"{p.key}={name}" for p, (name, _) in zip(self.params, combo))
            out.append(Candidate(index, cid, tuple((p.key, v) for p, (_, v) in zip(self.params, combo))))
        return out

    @property
    def title(self) -> str:
        """``rules.flowers 25..45 (3), board 7x7|9x5``: the keys and their values, short."""
        return ", ".join(f"{p.key} " + (f"{p.labels[0]}..{p.labels[-1]} ({len(p.values)})" if p.ordered
                                        else "|".join(p.labels)) for p in self.params)

    @property
    def ordered(self) -> bool:
        """One numeric range: the search brackets it (the seat advantage is taken to be monotone in it)."""
        return (self.target == SEAT_BALANCE and len(self.params) == 1 and self.params[0].ordered
                and len(self.params[0].values) > 3)

    @property
    def limits_stalls(self) -> bool:
        """Whether the search and the verdict hold the stall limit (seat balance: always; bot strength: never)."""
        return self.target == SEAT_BALANCE

    def run_spec(self, config: Any, seed: int | None = None) -> RunSpec:
        """A candidate's run: ``config`` played by the study's bots on its seed (``seed``: the confirmation's),
        seats rotated."""
        return RunSpec(self.game, config, self.bots, self.players, self.seed if seed is None else seed,
                       rotate_seats=True)

    def identity(self) -> dict:
        pair = {"challenger": self.challenger, "baseline": self.baseline} if self.target == BOT_SHARE else {}
        limits = {"turns_share": self.turns_share, "max_stalls": self.max_stalls} if self.target == SEAT_BALANCE \
            else {}
        return {"game": self.game, "bots": list(self.bots), "players": self.players,
                "params": [p.text for p in self.params], "target": self.target, "delta": self.delta,
                "turns": list(self.turns) if self.turns else None, "means": [m.text for m in self.means],
                "seed": self.seed, "start": self.start, "set": list(self.base), **pair, **limits}


_FILE_SCHEMA = {
    "game": Str(),
    "description": Optional(Str(), ""),
    "bots": Optional(List(Str(), 1)),
    "players": Optional(Int(1, 64)),
    "seed": Optional(Int()),
    "target": Optional(Str()),
    "challenger": Optional(Str()),
    "baseline": Optional(Str()),
    "delta": Optional(Float(0.0, 0.5)),
    "turns": Optional(Str()),
    "turns_share": Optional(Float(0.0, 1.0)),
    "max_stalls": Optional(Float(0.0, 1.0)),
    "means": Optional(List(Str()), []),
    "budget": Optional(Int(1)),
    "confirm": Optional(Int(2)),
    "start": Optional(Int(2)),
    "set": Optional(List(Str()), []),
}  # and [params], checked by hand


def read_tune_file(path: str | Path) -> dict:
    """A tune file's settings as the keyword arguments of :func:`make_study` (params as :class:`Param`)."""
    path = Path(path)
    raw = read_toml(path)
    source = str(path)
    params = raw.pop("params", None)
    values = validate(raw, _FILE_SCHEMA, source)
    if params is not None and (not isinstance(params, dict) or not params):
        raise ConfigError(source, "params", "a [params] table of config keys, each a range or a list of values",
                          params)
    out = {k: v for k, v in values.items() if v is not None and k not in ("means", "set", "description")}
    out["description"] = values["description"]
    if values["means"]:
        out["means"] = tuple(parse_mean(m, f"{source}: means") for m in values["means"])
    if values["set"]:
        out["base"] = tuple(values["set"])
    if "turns" in out:
        out["turns"] = parse_band(out["turns"], source, "turns")
    if params:
        out["params"] = tuple(_file_param(k, v, source) for k, v in params.items())
    out["source"] = source
    return out


def make_study(game: str, bots: Sequence[str] | None, players: int | None, params: Sequence[Param],
               seed: int | None, source: str = "", **options: Any) -> Study:
    """Check a study's settings (the command line's, or a tune file's with the command line's on top)."""
    where = source or "glade tune"
    try:
        definition = get_game(game)
    except ConfigError as error:
        raise ConfigError(where, "game", error.expected, game) from None
    if seed is None:
        raise ConfigError(where, "--seed", "a root seed (an integer)", has_got=False)
    if source:
        check_seed(seed, source, "seed")
    else:
        check_seed(seed)
    for name in ("confirm", "start"):
        if options.get(name) is not None:
            check_deals(_key(source, name), options[name])
    if not params:
        raise ConfigError(where, "--param", "at least one KEY=LO..HI[:STEP] or KEY=a|b|c to search",
                          has_got=False)
    keys = [p.key for p in params]
    if len(set(keys)) != len(keys):
        raise ConfigError(where, "--param", "each config key once", ", ".join(keys))
    target = options.get("target") or DEFAULTS["target"]
    if target not in TARGETS:
        raise ConfigError(where, _key(source, "target"), "one of " + ", ".join(TARGETS), target)
    if target == BOT_SHARE:
        from analysis.tune_bots import bot_share_lineup
        players, labels, delta = bot_share_lineup(definition, where, source, bots, players, options)
    else:
        players, labels, delta = _seat_balance_lineup(definition, where, source, bots, players, options)
    limits = _limits(where, source, options)
    study = Study(
        game=definition.name, bots=labels, players=players, params=tuple(params), seed=int(seed), target=target,
        delta=delta, turns=options.get("turns"), means=tuple(options.get("means") or ()), **limits,
        budget=int(options.get("budget") or DEFAULTS["budget"]), confirm=int(options.get("confirm") or
                                                                           DEFAULTS["confirm"]),
        start=int(options.get("start") or DEFAULTS["start"]), base=tuple(options.get("base") or ()),
        description=options.get("description") or "", source=source,
        challenger=options.get("challenger") or "", baseline=options.get("baseline") or "",
    )
    if len(study.candidates) > _MAX_CANDIDATES:
        raise ConfigError(where, "--param", f"at most {_MAX_CANDIDATES:,} candidates (fewer values)",
                          len(study.candidates))
    return study


def _limits(where: str, source: str, options: dict) -> dict:
    """``turns_share`` and ``max_stalls``, checked: shares strictly between 0 and 1."""
    found = {}
    for name, text in (("turns_share", "the share of games the turns band must hold"),
                       ("max_stalls", "the largest share of games that may stall or end blocked")):
        value = options.get(name)
        value = DEFAULTS[name] if value is None else float(value)
        if not 0 < value < 1:
            raise ConfigError(where, _key(source, name), f"{text}, a number strictly between 0 "
                              f"and 1 (default {DEFAULTS[name]:g})", value)
        found[name] = value
    return found


def _key(source: str, name: str) -> str:
    """A study key as the user wrote it: ``max_stalls`` in a tune file, ``--max-stalls`` on the command line."""
    return name if source else f"--{name.replace('_', '-')}"


def _seat_balance_lineup(definition: Any, where: str, source: str, bots: Sequence[str] | None,
                         players: int | None, options: dict) -> tuple[int, tuple[str, ...], float]:
    """Target seat-balance: the players, one bot label per seat, and the margin delta."""
    for name in ("challenger", "baseline"):
        if options.get(name):
            raise ConfigError(where, _key(source, name), f"no {name} with target seat-balance (bots, one per "
                              f"player; a {name} belongs to target bot-share)", options[name])
    if not bots:
        raise ConfigError(where, "--bots", "bots, one per player (e.g. greedy,greedy)", has_got=False)
    players = players if players is not None else len(bots)
    if players < 2:
        raise ConfigError(where, "--players", "at least 2 players (seat balance needs two seats)", players)
    bots = list(bots) * players if len(bots) == 1 else list(bots)
    labels = tuple(seat_labels(definition, players, bots))
    delta = float(options.get("delta") or DEFAULTS["delta"])
    if not 0 < delta < 1 / players:
        raise ConfigError(where, "--delta", f"a margin between 0 and {1 / players:g} (the fair share)", delta)
    return players, labels, delta


def candidate_configs(study: Study) -> list[Any]:
    """Each candidate's game config (the study's --set, then the candidate's keys), bots checked against it."""
    game = get_game(study.game)
    configs = []
    where = study.source or "--param"
    for candidate in study.candidates:
        try:
            config = game.load_config(None, study.base + candidate.overrides)
        except ConfigError as error:
            raise ConfigError(where, f"candidate {candidate.id}", str(error), has_got=False) from None
        for bot in dict.fromkeys(study.bots):
            resolve_bot(game, config, bot)
        configs.append(config)
    if study.target == BOT_SHARE:
        from analysis.tune_bots import check_baseline
        check_baseline(study, configs)
    _check_mean_columns(study, configs[0] if configs else None)
    return configs


def _check_mean_columns(study: Study, config: Any) -> None:
    """Each --mean a numeric records column of the game, before anything is written: from the game's data
    dictionary, or, for a game without one, from the records of one deal played here."""
    from sims.core.columns import dictionary

    if not study.means or config is None:
        return
    columns = dictionary(study.game, config)
    if columns is not None:
        records = pl.DataFrame(schema={c.name: getattr(pl, c.type, pl.String) for c in columns.records})
    else:
        from sims.runner import play_chunk

        choices = tuple(resolve_bot(get_game(study.game), config, bot) for bot in study.bots)
        records = play_chunk(study.game, config, study.players, choices, study.seed, 0, 1, 0, 1)[1]
    for target in study.means:
        _check_column(records, target)


# ---------------------------------------------------------------- one look at a candidate


@dataclass(frozen=True)
class Look:
    """A candidate's first ``deals`` deals: per-seat shares with their confidence sequence, game length."""

    candidate: str
    deals: int
    games: int
    counted: int  # deals with a counted game (a decided one with 2 players)
    share: tuple[float, ...]  # per seat, mean per-deal share of first places
    half_width: float  # the confidence sequence's half-width (every seat)
    median_turns: float
    inside: float  # mean per-deal share of games inside the turns band (nan without a band)
    turns_half_width: float
    unfinished: float = math.nan  # mean per-deal share of games that stalled or ended blocked
    means: tuple[float, ...] = ()

    def deviation(self, fair: float) -> np.ndarray:
        return np.asarray(self.share) - fair

    def imbalance(self, fair: float) -> float:
        """The largest |share - fair| over the seats."""
        return float(np.max(np.abs(self.deviation(fair)))) if self.counted else math.inf

    def bounds(self, fair: float) -> tuple[float, float]:
        """The confidence sequence's range for the imbalance: (smallest, largest) it can be."""
        if not self.counted:
            return 0.0, 1.0
        gaps = np.abs(self.deviation(fair))
        return float(np.max(np.maximum(gaps - self.half_width, 0.0))), float(np.max(gaps + self.half_width))

    def off_band(self, required: float) -> str:
        """Why the game length clearly misses the band ("" when it is not shown to): the confidence sequence of
        the share of games inside it lies below ``required``."""
        if math.isnan(self.inside) or not self.inside + self.turns_half_width < required:
            return ""
        return (f"clearly fewer than {_pct(required)} of games inside the turns band ({_pct(self.inside)} inside, "
                f"+-{100 * self.turns_half_width:.1f})")

    def over_limit(self, limit: float) -> str:
        """Why the candidate clearly breaks the stall limit ("" when it is not shown to)."""
        if math.isnan(self.unfinished) or not self.unfinished - self.turns_half_width > limit:
            return ""
        return (f"clearly more than {_pct(limit)} of games stall or end blocked ({_pct(self.unfinished)}, "
                f"+-{100 * self.turns_half_width:.1f})")

    def to_dict(self, fair: float) -> dict:
        lower, upper = self.bounds(fair)
        return {"candidate": self.candidate, "deals": self.deals, "games": self.games, "counted": self.counted,
                "share": list(self.share), "half_width": self.half_width,
                "low": [max(0.0, s - self.half_width) for s in self.share],
                "high": [min(1.0, s + self.half_width) for s in self.share],
                "imbalance": self.imbalance(fair), "imbalance_low": lower, "imbalance_high": upper,
                "median_turns": self.median_turns, "inside": _finite(self.inside),
                "unfinished": _finite(self.unfinished), "means": list(self.means)}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _finite(x: float) -> float | None:
    """A float for tune.json: None for nan (JSON has no nan)."""
    return None if x is None or not math.isfinite(x) else float(x)


def deal_matrix(records: pl.DataFrame, players: int) -> np.ndarray:
    """float ``[deals, players]``: each deal's share of first places per seat, over its counted games.

    Counted as :func:`analysis.stats.seat_advantage` counts: with 2 players the
    games with one winner; with more, games with a result, a shared first
    place split. Deals without a counted game are left out.
    """
    games = stats._per_game(records)
    counted = stats._counted_shares(records, games, players)
    if not counted.height:
        return np.zeros((0, players))
    return stats._seat_matrix(counted, players, "deal")


class _Level:
    """The confidence sequences' level: ``ALPHA`` split over candidates and the statistics each one has."""

    def __init__(self, study: Study):
        statistics = (1 if study.players == 2 or study.target == BOT_SHARE else study.players) + \
            (1 if study.turns else 0) + (1 if study.limits_stalls else 0)
        self.tests = len(study.candidates) * statistics
        self.confidence = 1 - ALPHA / self.tests
        self.rho = mixture_rho(study.delta, self.confidence)

    def half_width(self, n: int) -> float:
        return float(mixture_half_width(n, self.rho, self.confidence)) if n else 1.0


def take_look(records: pl.DataFrame, study: Study, candidate: str, deals: int, level: _Level) -> Look:
    """The look at the first ``deals`` deals of ``records`` (player seats only)."""
    tally = LookTally(study)
    tally.add(records.filter(pl.col("deal") < deals))
    return tally.look(candidate, deals, level)


class LookTally:
    """What a look needs of a candidate's deals, fed in deal order a block of whole deals at a time, so that a
    look reads only the deals added since the last (as ``analysis.stopping`` feeds its running sums): per-deal
    seat shares and their running sum, games per number of turns, per-deal shares inside the turns band and
    unfinished (running sums), the means' running sums. Running sums add one deal at a time from the state
    before (``analysis.stopping._running``), so a look is the same however its deals were split into blocks."""

    def __init__(self, study: Study):
        self.study = study
        self.read_to = 0  # the candidate's deals fed so far
        self.games = self.counted = self.deals = self.rows = 0
        self.total = np.zeros(study.players)
        self.turns: Counter = Counter()
        self.inside = np.zeros(1)
        self.unfinished = np.zeros(1)
        self.sums = np.zeros(len(study.means))
        self.values = np.zeros(len(study.means))  # the means' non-null values

    def add(self, records: pl.DataFrame) -> None:
        """Take the next deals' records (whole deals, every seat)."""
        study = self.study
        for target in study.means:
            _check_column(records, target)
        part = records.filter(pl.col("seat") < study.players)
        shares = deal_matrix(part, study.players)
        if shares.shape[0]:
            self.total = _running(self.total, shares)[-1]
            self.counted += shares.shape[0]
        first = part.filter(pl.col("seat") == 0)
        self.games += first.height
        for turns, count in first.group_by("turns").len().iter_rows():
            self.turns[turns] += count
        per_deal = first.group_by("deal").agg(
            pl.col("turns").is_between(*(study.turns or (0, 0))).mean().alias("inside"),
            (pl.col("rank").is_null() | (pl.col("end").cast(pl.String) == stats.BLOCKED)).mean().alias("unfinished"),
        ).sort("deal")
        if per_deal.height:
            self.inside = _running(self.inside, per_deal["inside"].to_numpy()[:, None])[-1]
            self.unfinished = _running(self.unfinished, per_deal["unfinished"].to_numpy()[:, None])[-1]
            self.deals += per_deal.height
        for i, target in enumerate(study.means):
            column = part[target.column].cast(pl.Float64)
            self.sums[i] += float(column.sum())
            self.values[i] += column.count()
        self.rows += part.height

    def look(self, candidate: str, deals: int, level: _Level) -> Look:
        study = self.study
        per_deal = (lambda total: float(total[0] / self.deals) if self.deals else math.nan)  # noqa: E731
        return Look(candidate=candidate, deals=deals, games=self.games, counted=self.counted,
                    share=tuple(float(x) for x in (self.total / self.counted if self.counted else
                                                   np.full(study.players, np.nan))),
                    half_width=level.half_width(self.counted), median_turns=self.median_turns(),
                    inside=per_deal(self.inside) if study.turns else math.nan,
                    turns_half_width=level.half_width(self.deals),
                    unfinished=per_deal(self.unfinished) if study.limits_stalls else math.nan,
                    means=tuple(float(total / count) if count else math.nan
                                for total, count in zip(self.sums, self.values)))

    def median_turns(self) -> float:
        """The median game length (the two middle games' mean for an even count)."""
        turns = sorted(self.turns)
        ends = np.cumsum([self.turns[t] for t in turns])
        if not turns:
            return math.nan
        middle = (ends[-1] - 1) / 2
        low, high = (turns[int(np.searchsorted(ends, i, side="right"))] for i in (math.floor(middle), math.ceil(middle)))
        return float((low + high) / 2)


# ---------------------------------------------------------------- the search


@dataclass
class TuneResult:
    """What :func:`run_tune` found (also written to ``OUT/tune.json``)."""

    out_dir: Path
    study: Study
    data: dict  # tune.json
    played: int
    seconds: float

    @property
    def verdict(self) -> str:
        return self.data["confirmation"]["verdict"]


class _Search:
    """The search's state: games per candidate, the looks, the drops; every step goes to tune.json."""

    def __init__(self, study: Study, out: Path, configs: list[Any], manifest: dict, jobs: int, batch_size: int,
                 progress: Callable[[str], None] | None):
        self.study, self.out, self.configs, self.manifest = study, out, configs, manifest
        self.jobs, self.batch_size, self.progress = jobs, batch_size, progress
        self.candidates = study.candidates
        self.level = _Level(study)
        self.fair = 1 / study.players
        self.deals = [0] * len(self.candidates)  # deals looked at, per candidate
        self.rotations = [1] * len(self.candidates)
        self.looks: dict[int, Look] = {}
        self.tallies: dict[int, Any] = {}  # per candidate, its looks' running tally (read_to: deals fed)
        self.played = 0
        self.step = 0

    # -- games

    def spent(self) -> int:
        return sum(d * r for d, r in zip(self.deals, self.rotations))

    def cost(self, index: int, deals: int) -> int:
        return max(0, deals - self.deals[index]) * self._rotations(index)

    def _rotations(self, index: int) -> int:
        candidate = self.candidates[index]
        return run_rotations(self._dir(candidate), self.study.run_spec(self.configs[index]))

    def _dir(self, candidate) -> Path:
        return self.out / CANDIDATES / candidate.id

    def bring(self, index: int, deals: int, phase: str) -> Look:
        """Play candidate ``index`` to ``deals`` deals (what is on disk is kept) and look at them."""
        candidate = self.candidates[index]
        held = read_manifest(self._dir(candidate)) or {}
        playing = max(deals, int(held.get("games", 0)))  # a resumed search looks again at fewer deals than it played
        summary = run(self.study.run_spec(self.configs[index]), playing, self._dir(candidate), jobs=self.jobs,
                      batch_size=min(self.batch_size, max(1, math.ceil(playing / self.jobs))))
        self.played += summary.played
        self.rotations[index] = summary.rotations
        self.deals[index] = max(self.deals[index], deals)
        look = self.look_at(index, candidate.id, deals)
        self.looks[index] = look
        self.step += 1
        entry = {"step": self.step, "phase": phase, **look.to_dict(self.fair), "spent": self.spent()}
        self.manifest["path"].append(entry)
        self._save()
        if self.progress:
            self.progress(f"look {self.step}: {candidate.id}, {deals:,} deals, {self.look_text(look)} "
                          f"({self.spent():,} games spent)")
        return look

    def new_tally(self) -> Any:
        """A candidate's running tally for its looks."""
        return LookTally(self.study)

    def look_at(self, index: int, candidate: str, deals: int) -> Any:
        """The look at candidate ``index``'s first ``deals`` deals: its tally fed only the deals it has not seen
        (from the first deal again if a look asks for fewer)."""
        tally = self.tallies.get(index)
        if tally is None or tally.read_to > deals:
            tally = self.tallies[index] = self.new_tally()
        for block in deal_blocks(self._dir(self.candidates[index]), deals, start=tally.read_to):
            tally.add(block)
        tally.read_to = deals
        return tally.look(candidate, deals, self.level)

    def look_text(self, look: Look) -> str:
        return "seat shares " + ", ".join(_pct(s) for s in look.share) + f" +-{100 * look.half_width:.1f}"

    def rank(self, index: int) -> float:
        """Smaller is better: the estimated seat imbalance (halving and the final choice sort by it)."""
        return self.looks[index].imbalance(self.fair)

    def affordable(self, index: int, deals: int) -> bool:
        return self.spent() + self.cost(index, deals) <= self.study.budget

    def drop(self, index: int, phase: str, reason: str) -> None:
        look = self.looks[index]
        self.manifest["dropped"].append({"candidate": self.candidates[index].id, "step": self.step, "phase": phase,
                                         "deals": look.deals, "reason": reason})
        self._save()

    def _save(self) -> None:
        self.manifest["games"]["search"] = self.spent()
        self.manifest["updated"] = now()
        write_json(self.manifest, self.out / TUNE_JSON)

    # -- the bracket (one ordered parameter)

    def sign(self, index: int) -> tuple[int, int]:
        """Seat 0's side of fair, (decided, estimated): decided is +1 above, -1 below, or 0 when the probe's
        games cannot tell it from fair (or show it within the band); estimated is the estimate's side.
        Doubles the candidate's deals until decided or the probe's share of the budget is spent."""
        deals = max(self.deals[index], self.study.start)
        cap = max(self.study.start * self._rotations(index),
                  self.study.budget // (2 * (math.ceil(math.log2(len(self.candidates))) + 2)))
        while True:
            look = self.bring(index, deals, "bracket")
            gap = look.deviation(self.fair)[0]
            estimated = 1 if gap > 0 else -1
            if abs(gap) > look.half_width:
                return estimated, estimated
            more = deals * 2
            if look.bounds(self.fair)[1] <= self.study.delta or self.cost(index, more) + \
                    self.deals[index] * self.rotations[index] > cap or not self.affordable(index, more) \
                    or more > MAX_DEALS:
                return 0, estimated
            deals = more

    def bracket(self) -> list[int]:
        """Bisection on the grid for seat 0's crossing of the fair share: the final adjacent pair, and every
        probe that could not be told apart from fair (near the crossing), go on to the race. An undecided
        probe's estimate chooses the half to keep."""
        low, high = 0, len(self.candidates) - 1
        (decided_low, s_low), (decided_high, s_high) = self.sign(low), self.sign(high)
        keep = {i for i, decided in ((low, decided_low), (high, decided_high)) if decided == 0}
        if s_low == s_high:
            note = "seat 0's share is on the same side of fair at both ends: no crossing in range"
        else:
            while high - low > 1:
                middle = (low + high) // 2
                decided, estimated = self.sign(middle)
                if decided == 0:
                    keep.add(middle)
                if estimated == s_low:
                    low = middle
                else:
                    high = middle
            note = (f"seat 0's share crosses fair between {self.candidates[low].id} and "
                    f"{self.candidates[high].id}")
        keep = sorted(keep | {low, high})
        self.manifest["bracket"] = {"kept": [self.candidates[i].id for i in keep], "note": note}
        for index in range(len(self.candidates)):
            if index not in keep and index in self.looks:
                self.drop(index, "bracket", "outside the bracket (seat 0's advantage taken as monotone)")
        self._save()
        return keep

    # -- the race

    def race(self, alive: list[int]) -> list[int]:
        """Rounds of doubling deals for every candidate still in the race; drop by the confidence sequences."""
        deals = max([self.study.start] + [self.deals[i] for i in alive])
        while True:
            for index in alive:
                if self.deals[index] < deals or index not in self.looks or self.looks[index].deals < deals:
                    self.bring(index, deals, "race")
            alive = self._drops(alive)
            if self._decided(alive):
                return alive
            deals *= 2
            if deals > MAX_DEALS:
                self.manifest["stopped"] = "the next round would pass the most deals a run holds"
                return alive
            while len(alive) > 1 and self.spent() + sum(self.cost(i, deals) for i in alive) > self.study.budget:
                alive = self._halve(alive)
            if len(alive) == 1:
                self.manifest["stopped"] = "one candidate left after halving for the budget"
                return alive
            if self.spent() + sum(self.cost(i, deals) for i in alive) > self.study.budget:
                self.manifest["stopped"] = "the budget cannot pay the next round"
                return alive

    def _decided(self, alive: list[int]) -> bool:
        """Nothing more to learn for the target: one candidate left, the closest shown inside the band, or
        every survivor shown outside it (then the closest by estimate is the answer: nothing in range is balanced)."""
        bounds = [self.looks[i].bounds(self.fair) for i in alive]
        best = min(alive, key=lambda i: (self.rank(i), i))
        inside = self.looks[best].bounds(self.fair)[1] <= self.study.delta
        outside = all(low > self.study.delta for low, _ in bounds)
        if outside:
            self.manifest["stopped"] = "every survivor is shown further than delta from fair"
        elif inside:
            self.manifest["stopped"] = f"{self.candidates[best].id} is shown within delta of fair"
        elif len(alive) == 1:
            self.manifest["stopped"] = "one candidate left"
        return len(alive) == 1 or inside or outside

    def _drops(self, alive: list[int]) -> list[int]:
        """Candidates shown to break the stall limit, then those shown to miss the turns band (unless every one
        left does), then the race's drop by the seat imbalance's confidence sequences."""
        study = self.study
        for phase, reason, active in (("stalls", lambda look: look.over_limit(study.max_stalls), study.limits_stalls),
                                      ("turns", lambda look: look.off_band(study.turns_share), bool(study.turns))):
            off = {i: reason(self.looks[i]) for i in alive}
            if active and not all(off.values()):
                for i in alive:
                    if off[i]:
                        self.drop(i, phase, off[i])
                alive = [i for i in alive if not off[i]]
        best_high = min(self.looks[i].bounds(self.fair)[1] for i in alive)
        kept = []
        for i in alive:
            low = self.looks[i].bounds(self.fair)[0]
            if low > best_high:
                self.drop(i, "race", f"its seat imbalance is at least {100 * low:.1f} points, more than the "
                          f"{100 * best_high:.1f} points another candidate is at most (confidence sequences)")
            else:
                kept.append(i)
        return kept

    def _halve(self, alive: list[int]) -> list[int]:
        """The budget cannot pay the next round for all: keep the better half by the estimates (not a test)."""
        ranked = sorted(alive, key=lambda i: (self.rank(i), i))
        keep = ranked[:math.ceil(len(ranked) / 2)]
        for i in ranked[len(keep):]:
            self.drop(i, "halving", "the budget pays the next round for half the candidates: the worse half by "
                      "the estimates (successive halving, not an error-controlled drop)")
        return sorted(keep)

    def choose(self, alive: list[int]) -> int:
        """The survivor with the smallest estimated imbalance, preferring one whose estimates meet the other
        targets: the stall limit, the turns band's share, the means' ranges."""
        def outside(i: int) -> int:
            look, study = self.looks[i], self.study
            misses = int(study.limits_stalls and look.unfinished > study.max_stalls)
            misses += int(bool(study.turns) and look.inside < study.turns_share)
            misses += sum(not m.low <= v <= m.high for m, v in zip(study.means, look.means))
            return misses
        return min(alive, key=lambda i: (outside(i), self.looks[i].imbalance(self.fair), i))


def confirm_seed(seed: int) -> int:
    """The confirmation run's root seed: a hash of the study's, so its deals are new deals."""
    return int(mix64(np.uint64(seed % (1 << 64)) ^ purpose_key("tune/confirm")))


def _seat_verdict(advantage: stats.SeatAdvantage) -> str:
    return {stats.VERDICT_BALANCED: "balanced", stats.VERDICT_UNBALANCED: "unbalanced"}.get(advantage.verdict,
                                                                                             "undecided")


def verdict(seat_verdict: str, targets: Sequence[dict]) -> str:
    """The study's verdict from the seats' and the other targets': ``unbalanced`` when a seat is shown off,
    ``rejected`` when a target is shown missed (too many stalls or blocked games, the length band, a mean),
    ``balanced`` only when the seats are shown balanced and every target shown met, else ``undecided``."""
    if seat_verdict == "unbalanced":
        return "unbalanced"
    if any(t["verdict"] in ("outside", "over") for t in targets):
        return "rejected"
    if seat_verdict == "balanced" and all(t["verdict"] in ("inside", "within") for t in targets):
        return "balanced"
    return "undecided"


def confirmation(records: pl.DataFrame, study: Study) -> dict:
    """The verdicts on the confirmation run: seat balance (TOST within delta), stalls and blocked games, game
    length, means; and the study's verdict over all of them (:func:`verdict`)."""
    records = records.filter(pl.col("seat") < study.players)
    advantage = stats.seat_advantage(records, delta=study.delta, alpha=ALPHA)
    seats = [{k: (None if isinstance(v, float) and not math.isfinite(v) else float(v) if isinstance(v, float) else v)
              for k, v in row.items()}
             for row in advantage.seats.select("seat", "share", "share_low", "share_high", "p_value", "tost_p")
             .rename({"share_low": "low", "share_high": "high"}).to_dicts()]
    out = {"seat_verdict": _seat_verdict(advantage), "seat_verdict_text": advantage.verdict, "seats": seats,
           "test": advantage.test, "p_value": advantage.p_value, "tost_p": advantage.tost_p,
           "equivalence": advantage.equivalence_method, "share_method": advantage.share_method,
           "more_games": advantage.more_games, "unit": advantage.unit, "units": advantage.units_tested,
           "describe": advantage.describe(), "targets": []}
    if study.limits_stalls:
        out["targets"].append(_stall_check(records, study.max_stalls))
    if study.turns:
        out["targets"].append(_turns_check(records, study.turns, study.turns_share))
    for target in study.means:
        out["targets"].append(_mean_check(records, target))
    out["verdict"] = verdict(out["seat_verdict"], out["targets"])
    return out


def _stall_check(records: pl.DataFrame, limit: float) -> dict:
    """At most ``limit`` of the games stalled or ended blocked (:func:`analysis.stats.unfinished`)."""
    u = stats.unfinished(records, limit, ALPHA)
    return {"target": "stalls and blocked games", "band": [0.0, limit], "estimate": u.either.rate,
            "low": u.either.low, "high": u.either.high, "stalls": u.stalls.rate, "blocked": u.blocked.rate,
            "limit": limit, "p_inside": u.p_within, "p_outside": u.p_over, "verdict": u.verdict,
            "method": f"{u.either.method} 95% interval; {u.test}", "describe": u.describe()}


def _turns_check(records: pl.DataFrame, band: tuple[float, float], required: float) -> dict:
    """At least ``required`` of the games inside the turns ``band`` (:func:`analysis.stats.band_share`: the deal
    as the unit when deals hold several games, one-sided tests against ``required``)."""
    b = stats.band_share(records, band, required, ALPHA)
    return {"target": "turns", "band": list(band), "estimate": b.share.rate, "low": b.share.low,
            "high": b.share.high, "required": required, "median": b.median, "p_inside": b.p_inside,
            "p_outside": b.p_outside, "verdict": b.verdict,
            "method": f"share of games inside the band, {b.share.method} 95%; {b.test}", "describe": b.describe()}


def _check_column(records: pl.DataFrame, target: MeanTarget) -> None:
    numeric = [name for name, dtype in records.schema.items() if dtype.is_numeric() or dtype == pl.Boolean]
    if target.column not in numeric:
        raise ConfigError("--mean", target.column, "a numeric records column: " + ", ".join(numeric),
                          has_got=False)


def _mean_check(records: pl.DataFrame, target: MeanTarget) -> dict:
    """A column's mean (per deal) inside ``[low, high]``: two one-sided t tests (``DescrStatsW.ttost_mean``)."""
    _check_column(records, target)
    per_deal = records.group_by("deal").agg(pl.col(target.column).cast(pl.Float64).mean())[target.column]
    values = per_deal.to_numpy()
    estimate = float(values.mean())
    p = float(DescrStatsW(values).ttost_mean(target.low, target.high)[0]) if values.std() > 0 else \
        float(not target.low < estimate < target.high)
    inside = target.low <= estimate <= target.high
    text = "inside" if p < ALPHA else "outside" if not inside else "undecided"
    return {"target": f"mean {target.column}", "band": [target.low, target.high], "estimate": estimate,
            "p_inside": p, "verdict": text,
            "method": "mean of per-deal means; two one-sided t tests (statsmodels DescrStatsW.ttost_mean)",
            "describe": f"mean {target.column} {estimate:.4g} (of per-deal means), range {target.low:g}..{target.high:g}"
                        f": {text} (two one-sided t tests, statsmodels DescrStatsW.ttost_mean, {stats.format_p(p)})"}


def _check_resume(held: dict, wanted: dict, path: Path) -> None:
    for key in _IDENTITY:
        default = DEFAULTS.get(key) if key in wanted["study"] else None  # directories older than the key
        if held["study"].get(key, default) != wanted["study"].get(key):
            raise ConfigError(str(path), key, f"{json.dumps(held['study'].get(key))} (what this tune "
                              f"directory holds; use another --out for a different study), got "
                              f"{json.dumps(wanted['study'].get(key))}", has_got=False)
    for key in ("budget", "confirm"):
        if held["study"].get(key) != wanted["study"].get(key):
            raise ConfigError(str(path), key, f"{held['study'][key]} (what this tune directory was searched with; "
                              f"the search's path depends on it: use another --out), got {wanted['study'][key]}",
                              has_got=False)


def _manifest(study: Study) -> dict:
    return {"format": FORMAT, "study": {**study.identity(), "budget": study.budget, "confirm": study.confirm},
            "description": study.description, "source": study.source, "ordered": study.ordered,
            "axes": [{"key": p.key, "values": list(p.labels)} for p in study.params],
            "candidates": [{"id": c.id, "set": dict(c.settings), "dir": f"{CANDIDATES}/{c.id}"}
                           for c in study.candidates],
            "path": [], "dropped": [], "games": {"search": 0, "confirm": 0, "total": 0},
            "versions": versions(), "created": now(), "updated": now()}


_NUMBER = Maybe(float)  # a statistic: NaN, or null where none could be computed
_STUDY_SHAPE = {"game": str, "bots": BOTS_SHAPE, "players": COUNT_SHAPE, "params": [str],
                "target": Where(str, lambda value: value in TARGETS, "one of " + ", ".join(TARGETS)),
                "delta": float, "turns": Maybe([float]), "means": [str], "seed": SEED_SHAPE, "start": int, "set": [str],
                "budget": int, "confirm": int, "challenger": Opt(str), "baseline": Opt(str),
                "turns_share": Opt(float), "max_stalls": Opt(float)}
# tune.json as glade tune writes it (after every look): the study, the candidates, the search so far.
TUNE_SHAPE = {"format": int, "study": _STUDY_SHAPE, "description": Opt(str), "source": Opt(str),
              "candidates": [{"id": str, "set": dict, "dir": str}], "path": [dict],
              "dropped": [{"candidate": str, "phase": str, "reason": str}],
              "games": {"search": int, "confirm": int, "total": int}, "created": Opt(str), "stopped": Opt(str),
              "axes": Opt([{"key": str, "values": [str]}]), "bracket": Opt({"kept": [str], "note": str})}
_LOOK = {"candidate": str, "step": int, "phase": str, "deals": int, "half_width": float, "spent": int}
_LOOKS = {SEAT_BALANCE: {**_LOOK, "share": [_NUMBER], "low": [_NUMBER], "high": [_NUMBER], "imbalance": float,
                         "median_turns": _NUMBER},
          BOT_SHARE: {**_LOOK, "share": float, "low": float, "high": float}}
_CONFIRMED = {"candidate": str, "seed": SEED_SHAPE, "deals": int, "games": int, "disjoint": bool, "verdict": str}
_CONFIRMATIONS = {
    SEAT_BALANCE: {**_CONFIRMED, "seats": [{"seat": int, "share": _NUMBER, "low": _NUMBER, "high": _NUMBER,
                                            "p_value": _NUMBER, "tost_p": _NUMBER}],
                   "test": str, "p_value": _NUMBER, "tost_p": _NUMBER, "equivalence": str, "share_method": str,
                   "more_games": Maybe(int), "unit": str, "describe": str,
                   "targets": [{"target": str, "band": [float], "estimate": _NUMBER, "p_inside": _NUMBER,
                                "verdict": str, "method": str}]},
    BOT_SHARE: {**_CONFIRMED, "challenger": str, "baseline": str, "share": float, "low": float, "high": float,
                "pair_deals": int, "pair_games": int, "elo": _NUMBER, "elo_low": _NUMBER, "elo_high": _NUMBER,
                "method": str, "describe": str},
}
# What a finished tune adds (the report reads it).
_FINISHED = {"best": {"id": str, "set": dict, "search": dict}, "survivors": [str],
             "drop_rule": {"alpha": float, "tests": int, "confidence": float, "rho": float}}


def read_tune_json(out_dir: str | Path, finished: bool = False) -> dict | None:
    """``OUT/tune.json`` through the state loader: None if there is none, a ConfigError naming it if it is not
    of the shape glade tune writes (``finished``: with the choice and its confirmation)."""
    path = Path(out_dir) / TUNE_JSON
    data = read_state(path, TUNE_SHAPE, "tune.json", "tune")
    if data is None:
        return None
    target = data["study"]["target"]
    problem = shape_problem(data["path"], [_LOOKS[target]], "path")
    if problem is None and (finished or "confirmation" in data):
        if "confirmation" not in data:
            raise ConfigError(str(path), "confirmation", "a finished tune (run glade tune again to finish it)",
                              has_got=False)
        problem = (shape_problem(data, _FINISHED, "(top level)")
                   or shape_problem(data["confirmation"], _CONFIRMATIONS[target], "confirmation"))
    if problem is not None:
        raise state_error(path, *problem[:2], "tune.json", "tune", problem[2])
    return data


def _check_tune_dir(out: Path, study: Study, configs: Sequence[Any], wanted: dict
                    ) -> tuple[dict | None, ConfigError | None]:
    """What ``out`` holds of ``study``: (its tune.json, None), (None, the damage) when tune.json is damaged or
    missing but every candidate and confirmation directory there is this study's (the search is replayed from
    their records), or (None, None). A ConfigError if it holds another study. Read-only."""
    return outdir.held_state(lambda: read_tune_json(out), lambda held: _check_resume(held, wanted, out / TUNE_JSON),
                             lambda: _check_runs(out, study, configs))


def _check_runs(out: Path, study: Study, configs: Sequence[Any]) -> None:
    """A ConfigError unless every directory under candidates/ and confirm/ is a run of ``study`` glade play may
    resume (a candidate's own settings; the confirmation on its own seed and deals)."""
    index = {c.id: i for i, c in enumerate(study.candidates)}
    for folder, seed, deals in ((CANDIDATES, study.seed, None), (CONFIRM, confirm_seed(study.seed), study.confirm)):
        if not (out / folder).is_dir():
            continue
        for path in sorted((out / folder).iterdir()):
            if path.name not in index:
                raise ConfigError(str(path), "(directory)", "a candidate of this study (use another --out for a "
                                  "different study)", has_got=False)
            check_run_dir(path, study.run_spec(configs[index[path.name]], seed), deals)


def run_tune(study: Study, out_dir: str | Path, jobs: int = 1, batch_size: int = 4096,
             progress: Callable[[str], None] | None = None, warn: Callable[[str], None] | None = None) -> TuneResult:
    """Search ``study``'s candidates into ``out_dir``, confirm the choice on new deals, write tune.json.

    ``jobs`` and ``batch_size`` change speed only: the records, and so every
    decision of the search, are the same for any value. Everything is checked
    before anything is written; a damaged tune.json whose candidates show they
    are this study's is set aside (``warn`` says so) and written again.
    """
    configs = candidate_configs(study)
    out = Path(out_dir)
    started = time.perf_counter()
    manifest = _manifest(study)
    with outdir.writing(out, "tune", lambda: _check_tune_dir(out, study, configs, manifest)) as (held, damage):
        if damage is not None:
            aside = set_aside(out / TUNE_JSON)
            (warn or _stderr)(f"warning: {out / TUNE_JSON} is damaged ({damage.expected}); moved to {aside}, "
                              "written again as the search is replayed from the candidates' records")
        if held is not None:
            manifest["created"] = held.get("created", manifest["created"])
        write_json(manifest, out / TUNE_JSON)
        search_class, judge = _target_parts(study.target)
        search = search_class(study, out, configs, manifest, jobs, batch_size, progress)
        alive = search.bracket() if study.ordered else list(range(len(search.candidates)))
        alive = search.race(alive)
        best = search.choose(alive)
        candidate = search.candidates[best]
        manifest["survivors"] = [search.candidates[i].id for i in alive]
        manifest["best"] = {"id": candidate.id, "set": dict(candidate.settings),
                            "set_args": list(candidate.overrides), "search": search.looks[best].to_dict(search.fair)}
        manifest["closest"] = manifest["best"]["id"]
        confirm_dir = out / CONFIRM / candidate.id
        seed = confirm_seed(study.seed)
        summary = run(study.run_spec(configs[best], seed), study.confirm, confirm_dir,
                      batch_size=min(batch_size, max(1, math.ceil(study.confirm / jobs))), jobs=jobs)
        records = load_records(confirm_dir)
        confirming = records["seed"].unique().implode()
        overlap = {seed for block in deal_blocks(search._dir(search.candidates[best]), columns=["seed"])
                   for seed in block.filter(pl.col("seed").is_in(confirming))["seed"].to_list()}
        if overlap:  # a 64-bit hash collision: never seen, but the promise is checked, not assumed
            raise ConfigError(str(confirm_dir), "seed", "confirmation deals disjoint from the search's",
                              sorted(overlap)[:3])
        manifest["confirmation"] = {"candidate": candidate.id, "dir": f"{CONFIRM}/{candidate.id}", "seed": seed,
                                    "deals": study.confirm, "games": summary.games, "disjoint": True,
                                    **judge(records, study)}
        manifest["games"] = {"search": search.spent(), "confirm": summary.games,
                             "total": search.spent() + summary.games}
        manifest["drop_rule"] = {"alpha": ALPHA, "tests": search.level.tests, "confidence": search.level.confidence,
                                 "rho": search.level.rho}
        manifest["updated"] = now()
        write_json(manifest, out / TUNE_JSON)
    return TuneResult(out, study, manifest, search.played + summary.played, time.perf_counter() - started)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _target_parts(target: str) -> tuple[type[_Search], Callable[[pl.DataFrame, Study], dict]]:
    """The search and the confirmation's judge of a target."""
    if target == BOT_SHARE:
        from analysis.tune_bots import BotShareSearch, bot_confirmation
        return BotShareSearch, bot_confirmation
    return _Search, confirmation


def load_tune(out_dir: str | Path) -> dict:
    """``OUT/tune.json`` of a finished tune; a ConfigError otherwise."""
    data = read_tune_json(out_dir, finished=True)
    if data is None:
        raise ConfigError(str(Path(out_dir) / TUNE_JSON), "(file)", "a tune directory written by glade tune",
                          has_got=False)
    return data


# ---------------------------------------------------------------- the outputs


def tune_json(data: dict) -> dict:
    """The ``--json`` object: best setting, verdict, per-seat shares of the confirmation, games spent."""
    if data["study"]["target"] == BOT_SHARE:
        from analysis.tune_bots import bot_tune_json
        return bot_tune_json(data)
    c = data["confirmation"]
    return {"best": data["best"]["set"], "best_id": data["best"]["id"], "best_set": best_set_args(data),
            "verdict": c["verdict"], "seat_verdict": c.get("seat_verdict", c["verdict"]),
            "seats": c["seats"], "games": data["games"], "delta": data["study"]["delta"],
            "confirmation": {k: c[k] for k in ("candidate", "seed", "deals", "games", "disjoint", "test", "p_value",
                                               "tost_p", "equivalence", "share_method", "more_games", "targets")},
            "survivors": data["survivors"], "dropped": data["dropped"], "search": data["path"]}


def candidate_rows(data: dict) -> list[dict]:
    """Per candidate looked at: its last look, and whether it was dropped (and why) or survived."""
    last = {}
    for entry in data["path"]:
        last[entry["candidate"]] = entry
    dropped = {d["candidate"]: d for d in data["dropped"]}
    rows = []
    for candidate in data["candidates"]:
        look = last.get(candidate["id"])
        if look is None:
            continue
        status = ("best" if candidate["id"] == data["best"]["id"] else
                  f"dropped ({dropped[candidate['id']]['phase']})" if candidate["id"] in dropped else "survived")
        rows.append({**look, "status": status, "reason": dropped.get(candidate["id"], {}).get("reason", "")})
    return rows


def best_set_args(data: dict) -> list[str]:
    """The chosen setting as ``--set`` values (``key=TOML value``), as ``glade play --set`` takes them."""
    best = data["best"]
    if "set_args" in best:
        return list(best["set_args"])
    return [s.override for key, value in best["set"].items() for s in flatten(key, value)]


def paste_text(data: dict) -> str:
    """The chosen setting as ``--set`` options quoted for a shell: ``--set rules.flowers=35 --set '...'``."""
    return " ".join(f"--set {shlex.quote(arg)}" for arg in best_set_args(data))


def limit_text(target: dict) -> str:
    """A confirmation target in one line: its estimate, interval and verdict, the stall and blocked rates named."""
    if target["target"] == "stalls and blocked games":
        return (f"stalls and blocked games: {100 * target['estimate']:.2f}% [{100 * target['low']:.2f}, "
                f"{100 * target['high']:.2f}] of games (stalls {100 * target['stalls']:.2f}%, blocked "
                f"{100 * target['blocked']:.2f}%), limit {100 * target['limit']:g}%: {target['verdict']} "
                f"({stats.format_p(target['p_inside'])} below, {stats.format_p(target['p_outside'])} above)")
    if target["target"] == "turns" and "required" in target:
        return (f"turns: {_pct(target['estimate'])} [{100 * target['low']:.1f}, {100 * target['high']:.1f}] of games "
                f"inside {target['band'][0]:g}..{target['band'][1]:g} (median {target['median']:g}); the band needs "
                f"{100 * target['required']:g}%: {target['verdict']} ({stats.format_p(target['p_inside'])} above, "
                f"{stats.format_p(target['p_outside'])} below)")
    return (f"{target['target']}: {target['estimate']:.4g}, band {target['band'][0]:g}..{target['band'][1]:g}: "
            f"{target['verdict']} ({stats.format_p(target['p_inside'])})")


def verdict_text(data: dict) -> str:
    """The verdict sentence: what the confirmation showed of the seats and of every other target."""
    study, c, best = data["study"], data["confirmation"], data["best"]["id"]
    delta = f"+-{100 * study['delta']:g} points of {_pct(1 / study['players'])}"
    targets = c.get("targets", [])
    missed = [t for t in targets if t["verdict"] in ("outside", "over")]
    open_ = [t for t in targets if t["verdict"] not in ("inside", "within", "outside", "over")]
    seat = c.get("seat_verdict", c["verdict"])
    seats = {"balanced": f"keeps every seat within {delta} (TOST {stats.format_p(c['tost_p'])})",
             "unbalanced": f"favours a seat ({c['test'].split(' (')[0]} {stats.format_p(c['p_value'])})",
             }.get(seat, f"is neither shown balanced within {delta} nor unbalanced")
    verdict = c["verdict"]
    if verdict == "balanced":
        checked = ", ".join(_target_name(t) for t in targets)
        return f"verdict: balanced: {best} {seats}" + (f"; {checked} shown met" if checked else "")
    if verdict == "unbalanced":
        return (f"verdict: unbalanced: no setting in range is shown balanced; the closest, {best}, still {seats}"
                + "".join(f"; {_missed(t)}" for t in missed))
    if verdict == "rejected":
        return f"verdict: rejected: {best} {seats}, but " + "; ".join(_missed(t) for t in missed)
    more = (f"; about {c['more_games']:,} more {c['unit']} would decide the seats" if seat == "undecided"
            and c.get("more_games") else "")
    pending = "; ".join(f"{_target_name(t)} not shown met" for t in open_)
    return f"verdict: undecided: {best} {seats}" + (f"; {pending}" if pending else "") + more


def _target_name(target: dict) -> str:
    if target["target"] == "stalls and blocked games":
        return f"stalls and blocked games at most {100 * target['limit']:g}%"
    if target["target"] == "turns" and "required" in target:
        return f"{100 * target['required']:g}% of games inside {target['band'][0]:g}..{target['band'][1]:g} turns"
    return f"{target['target']} inside {target['band'][0]:g}..{target['band'][1]:g}"


def _missed(target: dict) -> str:
    if target["target"] == "stalls and blocked games":
        return (f"{100 * target['estimate']:.2f}% [{100 * target['low']:.2f}, {100 * target['high']:.2f}] of games "
                f"stall or end blocked, over the {100 * target['limit']:g}% limit")
    if target["target"] == "turns" and "required" in target:
        return (f"only {_pct(target['estimate'])} [{100 * target['low']:.1f}, {100 * target['high']:.1f}] of games "
                f"last {target['band'][0]:g}..{target['band'][1]:g} turns, fewer than the "
                f"{100 * target['required']:g}% the band needs")
    return f"{target['target']} {target['estimate']:.4g} is outside {target['band'][0]:g}..{target['band'][1]:g}"


def format_tune(data: dict, seconds: float | None = None) -> str:
    """The printed table: candidates looked at, the choice, its confirmation on new deals, the verdict over every
    target, and the chosen setting as ``--set`` values."""
    if data["study"]["target"] == BOT_SHARE:
        from analysis.tune_bots import format_bot_tune
        return format_bot_tune(data, seconds)
    study = data["study"]
    rows = candidate_rows(data)
    band = bool(study.get("turns"))
    width = max(len("candidate"), *(len(r["candidate"]) for r in rows))
    lines = [f"{'candidate':<{width}}  {'deals':>7}  {'seat 0 share [conf. seq.]':<25}  "
             f"{'imbalance':>9}  {'turns':>6}  {'in band' if band else '':>7}  {'stalls':>6}  status"]
    for r in rows:
        share = f"{_pct(r['share'][0])} [{_pct(r['low'][0])}, {_pct(r['high'][0])}]"
        inside = _pct(r["inside"]) if band and r.get("inside") is not None else ""
        stalled = _pct(r["unfinished"]) if r.get("unfinished") is not None else ""
        lines.append(f"{r['candidate']:<{width}}  {r['deals']:>7,}  {share:<25}  "
                     f"{100 * r['imbalance']:>6.1f} pt  {r['median_turns']:>6.1f}  {inside:>7}  {stalled:>6}  "
                     f"{r['status']}")
    lines.append(f"  turns: median; in band: share of games inside {study['turns'][0]:g}..{study['turns'][1]:g}; "
                 "stalls: share of games that stalled or ended blocked" if band else
                 "  turns: median; stalls: share of games that stalled or ended blocked")
    c = data["confirmation"]
    lines.append("")
    survivors = data["survivors"]
    lines.append(f"best: {data['best']['id']} (of {len(data['candidates'])} candidates, {len(survivors)} "
                 f"survived the search; stopped: {data.get('stopped', 'the search ended')})")
    lines.append(f"confirmation on {c['deals']:,} new deals (seed {c['seed']}, none shared with the search):")
    lines += ["  " + line for line in c["describe"].splitlines()]
    for t in c["targets"]:
        lines.append("  " + limit_text(t))
    lines.append(verdict_text(data))
    lines.append(f"the setting, for glade play: {paste_text(data)}")
    g = data["games"]
    spent = f"games: {g['search']:,} searching (budget {study['budget']:,}) + {g['confirm']:,} confirming = {g['total']:,}"
    lines.append(spent + (f"; {seconds:.1f} s" if seconds is not None else ""))
    return "\n".join(lines)


__all__ = ["BOT_SHARE", "CANDIDATES", "SEAT_BALANCE", "TARGETS", "CONFIRM", "Candidate", "Look", "MeanTarget", "Param", "Study", "TUNE_JSON",
           "TuneResult", "candidate_configs", "candidate_rows", "confirm_seed", "confirmation", "deal_matrix",
           "format_tune", "load_tune", "make_study", "paste_text", "verdict", "verdict_text", "best_set_args", "parse_band", "parse_mean", "parse_param", "read_tune_file",
           "run_tune", "take_look", "tune_json"]
