"""``glade ablate``: the causal check of an item, on the same deals with one thing changed.

An ablation is one ``--item``: an ordinary ``--set`` expression, or ``+=`` /
``-=`` on a numeric config key (read from the game's config with the ``--set``
overrides applied)::

    species[Douglas Fir].count=0      Reforest without Douglas Fir (named list items work)
    tiles[3].cost+=1                  one tile dearer
    bots.greedy.progress-=0.5         any numeric key

``--remove NAME`` sets a named item's count to 0; ``--swap NAME=VANILLA`` replaces
the named item by a plain one of its list (:func:`swap_item`)::

    --swap "Douglas Fir=Bunchberry"   the 4 firs become 4 more Bunchberry (the deck keeps its size)
    --swap l1_bar=l1_bee              a one-of-a-kind Vorex tile takes l1_bee's hexes, shape and beetles

The baseline (the config with ``--set``) and every ablation are played on the
same deals (common random numbers: the root seed gives deal ``d`` the same game
seed in every run), as a sweep whose cells are the baseline and the ablations
(:mod:`analysis.sweep` plays them, resumably)::

    DIR/ablate.toml        the generated sweep file (the ablations as [[cells]])
    DIR/ablate.json        the ablations as given: text, resolved overrides, the item they concern
    DIR/sweep.json         the sweep's state (see analysis.sweep)
    DIR/cells/baseline/    the baseline run; DIR/cells/<id>/ one run per ablation
    DIR/placebo/           the baseline again on the same deals, every bot's tie-breaks from other streams

Run the same command again and only what is missing is played; other ablations
or settings need another ``--out``.

:func:`analyse_ablate` compares each ablation with the baseline deal by deal
(the deal is the unit): per seat the change of its share as the headline counts
it (:func:`analysis.stats.seat_share_change`) and of its mean score
(:func:`analysis.stats.paired_difference`), and the change of game length, each
with its interval and test, Holm-adjusted across the ablations. Where the
ablation names an item (the ``[Name]`` in its key, or the ``name`` of the list
item it indexes) that the baseline's events show in a content family
(:mod:`analysis.report.content`), it measures the share of the seats that used
the item in the baseline with the ablation and with the placebo (:func:`run_placebo`,
the drift any change of the course of play shows), and :class:`Users` gives
the verdict from their difference against the observational content table.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import stats
from analysis.sweep import _held as _held_sweep
from analysis.sweep import load_sweep, play_sweep, read_sweep, toml_value
from sims.core.files import Maybe, Opt, read_state, set_aside, write_json, write_text
from sims.records import load_events, load_records
from sims.core.spec import (Bool, ConfigError, Int, List, Optional, Str, _Named, _steps, parse_override, read_toml,
                            validate)
from sims.registry import get_game
from sims.runner import check_deals, check_run_dir
from sims.runspec import RunSpec

ABLATE_JSON = "ablate.json"
ABLATE_TOML = "ablate.toml"
BASELINE = "baseline"
FORMAT = 1
METRICS = ("share", "score", "turns")
METRIC_TEXT = {"share": "seat share", "score": "mean score", "turns": "game length (turns)"}
PLACEBO = "placebo"  # the placebo run's directory (the baseline with renamed bot streams), beside cells/
_OPERATOR = re.compile(r"^(?P<key>[^=]+?)\s*(?P<op>\+=|-=|=)(?P<value>.*)$")
_ID_CHARS = re.compile(r"[^A-Za-z0-9_.+-]+")


@dataclass(frozen=True)
class Ablation:
    """One ``--item``: as given, its cell id, the ``--set`` override it becomes, and the item it names."""

    text: str
    id: str
    override: str  # key with numeric list indices, and the value (what += / -= computed)
    item: str | None  # the item the key names ([Name], or the name of the list item it indexes)
    also: tuple[str, ...] = ()  # further overrides of the same ablation (--swap moves a count to another item)

    @property
    def overrides(self) -> tuple[str, ...]:
        return (self.override, *self.also)


def _item_error(text: str, expected: str) -> ConfigError:
    return ConfigError("--item", text, expected, has_got=False)


def _resolve(values: dict, key: str, text: str) -> tuple[str, Any, str | None]:
    """The key with numeric indices, its current value, and the item name it concerns."""
    node: Any = values
    parts, item = [], None
    for part in key.split("."):
        steps = _steps(part.strip())
        if steps is None:
            raise _item_error(text, "KEY=VALUE, KEY+=NUMBER or KEY-=NUMBER with a dotted config key such as "
                                    "kinds[2].count")
        name = steps[0]
        if not isinstance(node, dict) or name not in node:
            known = ", ".join(sorted(node)) if isinstance(node, dict) else "(not a table)"
            raise _item_error(text, f"a config key; {'.'.join(parts + [name]) or name} is not one (keys here: "
                                    f"{known})")
        node, written = node[name], name
        for step in steps[1:]:
            if not isinstance(node, list):
                raise _item_error(text, f"a list to index at {written}")
            if isinstance(step, _Named):
                names = [x.get("name") if isinstance(x, dict) else None for x in node]
                if step.name not in names:
                    raise _item_error(text, f"the name of an item of {written}: "
                                            + ", ".join(str(n) for n in names if n is not None))
                step = names.index(step.name)
            if step >= len(node):
                raise _item_error(text, f"an index below {len(node)} at {written}")
            node = node[step]
            written += f"[{step}]"
            if isinstance(node, dict) and isinstance(node.get("name"), str):
                item = node["name"]
        parts.append(written)
    return ".".join(parts), node, item


def parse_item(text: str, values: dict, index: int) -> Ablation:
    """One ``--item`` against the base config's ``values``; a ConfigError names the item and what was expected."""
    match = _OPERATOR.match(text.strip())
    if match is None:
        raise _item_error(text, "KEY=VALUE, KEY+=NUMBER or KEY-=NUMBER")
    key, op, value_text = match["key"].strip(), match["op"], match["value"].strip()
    resolved, current, item = _resolve(values, key, text)
    _, value = parse_override(f"x={value_text}", "--item")
    if op != "=":
        numeric = (int, float)
        if isinstance(current, bool) or not isinstance(current, numeric):
            raise _item_error(text, f"a numeric config key for {op} ({resolved} is {current!r})")
        if isinstance(value, bool) or not isinstance(value, numeric):
            raise _item_error(text, f"a number after {op}, such as {key}{op}1")
        value = current + value if op == "+=" else current - value
    override = f"{resolved}={toml_value(value)}"
    slug = _ID_CHARS.sub("_", text.strip()).strip("_.+-")[:60] or "item"
    return Ablation(text=text, id=f"a{index}-{slug}", override=override, item=item)


def remove_item(name: str, values: dict) -> str:
    """``--remove NAME`` as an ``--item``: the named item's ``count`` set to 0 (``LIST[NAME].count=0``).

    The item is looked up by ``name`` in every top-level list of named tables of the config (Reforest's
    species, Vora's kinds); a ConfigError says why it cannot be removed: no such name, or an item without a
    count (a Vorex tile is one of a kind: change it with ``--item`` instead)."""
    lists = _named_lists(values)
    for key, node in lists.items():
        for entry in node:
            if entry["name"] != name:
                continue
            if "count" not in entry:
                raise ConfigError("--remove", name, f"an item with a count to set to 0 ({key}[{name}] has none: "
                                  f"it is one of a kind; change it with --item, e.g. {key}[{name}].<key>=VALUE)",
                                  has_got=False)
            return f"{key}[{name}].count=0"
    where = ", ".join(f"{key} ({', '.join(str(x['name']) for x in node[:6])}{', ...' if len(node) > 6 else ''})"
                      for key, node in lists.items())
    raise ConfigError("--remove", name, "the name of an item of the config with a count: "
                      + (where or "this game's config has no list of named items"), has_got=False)


def _named_lists(values: dict) -> dict[str, list]:
    """The config's top-level lists of named tables (Reforest's species and visitors, Vora's kinds, Vorex's tiles)."""
    return {key: node for key, node in values.items()
            if isinstance(node, list) and node and all(isinstance(x, dict) and "name" in x for x in node)}


def swap_item(text: str, values: dict, index: int) -> Ablation:
    """``--swap NAME=VANILLA``: the named item replaced by copies of a plain one from the same list.

    Items with a ``count`` (Reforest's species, Vora's kinds): NAME's count goes to 0 and VANILLA's grows by it,
    so the deck keeps its size. Items without one (a Vorex tile, a Reforest visitor): NAME takes every value of
    VANILLA but its name. A ConfigError names the swap and what was expected."""
    name, sep, vanilla = (part.strip() for part in text.partition("="))
    if not sep or not name or not vanilla or name == vanilla:
        raise ConfigError("--swap", text, "NAME=VANILLA, two different items of one list of the config (e.g. "
                          "\"Douglas Fir=Bunchberry\")", has_got=False)
    for key, node in _named_lists(values).items():
        names = [entry["name"] for entry in node]
        if name not in names:
            continue
        if vanilla not in names:
            raise ConfigError("--swap", text, f"VANILLA the name of another item of {key}: "
                              + ", ".join(map(str, names)), has_got=False)
        i, j = names.index(name), names.index(vanilla)
        item, plain = node[i], node[j]
        if "count" in item and "count" in plain:
            overrides = [f"{key}[{i}].count=0", f"{key}[{j}].count={plain['count'] + item['count']}"]
        else:
            overrides = [f"{key}[{i}].{k}={toml_value(v)}" for k, v in plain.items()
                         if k != "name" and item.get(k) != v]
            if not overrides:
                raise ConfigError("--swap", text, f"a VANILLA item that differs from {name} in some value",
                                  has_got=False)
        slug = _ID_CHARS.sub("_", f"swap {name} for {vanilla}").strip("_.+-")[:60]
        return Ablation(text=f"swap {name} for {vanilla}", id=f"a{index}-{slug}", override=overrides[0], item=name,
                        also=tuple(overrides[1:]))
    where = ", ".join(f"{key} ({', '.join(str(x['name']) for x in node[:6])}{', ...' if len(node) > 6 else ''})"
                      for key, node in _named_lists(values).items())
    raise ConfigError("--swap", text, "NAME the name of an item of the config: "
                      + (where or "this game's config has no list of named items"), has_got=False)


def make_ablations(game: str, items: list[str] | tuple[str, ...], base: tuple[str, ...] = (),
                   remove: list[str] | tuple[str, ...] = (), swap: list[str] | tuple[str, ...] = ()) -> list[Ablation]:
    """Every ``--item``, ``--remove`` and ``--swap`` resolved and checked: the game loads its config with each."""
    if not items and not remove and not swap:
        raise ConfigError("--item", "(none)", "one or more --item KEY=VALUE, --remove NAME or --swap NAME=VANILLA "
                          "(the ablations to play)", has_got=False)
    definition = get_game(game)
    values = definition.load_config(None, base).loaded.values
    texts = list(items) + [remove_item(name, values) for name in remove]
    ablations = [parse_item(text, values, i) for i, text in enumerate(texts, 1)]
    ablations[len(items):] = [dataclasses.replace(a, text=f"remove {name}")
                              for a, name in zip(ablations[len(items):], remove)]
    ablations += [swap_item(text, values, i) for i, text in enumerate(swap, len(texts) + 1)]
    for a in ablations:
        try:
            definition.load_config(None, base + a.overrides)
        except ConfigError as error:
            option, given = (("--swap", a.text.removeprefix("swap ").replace(" for ", "=")) if a.text.startswith("swap ")
                             else ("--remove", a.text.removeprefix("remove ")) if a.text.startswith("remove ")
                             else ("--item", a.text))
            raise ConfigError(option, given, f"a change the game accepts; with it the game refuses {error.key} "
                              f"(expected {error.expected}){_fix(definition, base, a.overrides, error.key)}",
                              has_got=False) from None
    return ablations


def _fix(definition: Any, base: tuple[str, ...], overrides: tuple[str, ...], key: str) -> str:
    """The ``--set`` that makes the game accept an ablation whose change another key refuses (Reforest's deck size
    by player count, when a removed species leaves too few cards): the nearest whole value of that key the game
    accepts with the ablation, tried outwards from the current one; "" when none is found or the key is not a
    whole number."""
    try:
        resolved, current, _ = _resolve(definition.load_config(None, base).loaded.values, key, key)
    except ConfigError:
        return ""
    if isinstance(current, bool) or not isinstance(current, int) or any(o.startswith(f"{resolved}=") for o in overrides):
        return ""
    for step in range(1, 201):
        for value in (current - step, current + step):
            if value < 0:
                continue
            try:
                definition.load_config(None, base + (f"{resolved}={value}",) + overrides)
            except ConfigError:
                continue
            return f"; add --set {key}={value} (--set applies to the baseline and every ablation alike)"
    return ""


def sweep_text(game: str, bots: list[str], players: int, seed: int, games: int, base: tuple[str, ...],
               rotate: bool, ablations: list[Ablation]) -> str:
    """The sweep file that plays the baseline and the ablations on the same deals."""
    lines = [f"game = {toml_value(game)}", 'description = "glade ablate: the baseline and one run per ablation"',
             f"bots = {toml_value(list(bots))}", f"players = {players}", f"rotate_seats = {toml_value(rotate)}",
             f"seed = {seed}", f"games_per_cell = {games}", f"base = {toml_value(list(base))}",
             f'baseline = "{BASELINE}"', "", "[[cells]]", f'id = "{BASELINE}"']
    for a in ablations:
        lines += ["", "[[cells]]", f"id = {toml_value(a.id)}", f"set = {toml_value(list(a.overrides))}"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Study:
    """An ablation study file (``configs/ablate/*.toml``): the arguments of one ``glade ablate``."""

    path: Path
    game: str
    bots: tuple[str, ...]
    players: int
    games: int
    seed: int
    rotate_seats: bool
    base: tuple[str, ...]
    items: tuple[str, ...]
    remove: tuple[str, ...]
    swap: tuple[str, ...] = ()
    placebo: bool = True

    def ablations(self) -> list[Ablation]:
        """The study's ablations, resolved and checked against the game's config."""
        return make_ablations(self.game, self.items, self.base, self.remove, self.swap)

    def sweep(self) -> str:
        """The sweep file that plays the study's runs (the baseline and one run per ablation)."""
        return sweep_text(self.game, list(self.bots), self.players, self.seed, self.games, self.base,
                          self.rotate_seats, self.ablations())


_STUDY = {
    "game": Str(),
    "description": Optional(Str(), ""),
    "bots": List(Str(), 1),
    "players": Optional(Int(1, 64)),
    "games": Optional(Int(1), 2000),
    "seed": Optional(Int(), 1),
    "rotate_seats": Optional(Bool(), False),
    "set": Optional(List(Str()), []),
    "items": Optional(List(Str()), []),
    "remove": Optional(List(Str()), []),
    "swap": Optional(List(Str()), []),
    "placebo": Optional(Bool(), True),
}


def read_study(path: str | Path) -> Study:
    """Read and check an ablation study file; a ConfigError names the file and key."""
    path = Path(path)
    values = validate(read_toml(path), _STUDY, str(path))
    try:
        game = get_game(values["game"]).name
    except ConfigError as error:
        raise ConfigError(str(path), "game", error.expected, values["game"]) from None
    bots = tuple(values["bots"])
    players = values["players"] if values["players"] is not None else len(bots)
    if not values["items"] and not values["remove"] and not values["swap"]:
        raise ConfigError(str(path), "items", "a list of ablations (or remove = a list of item names, or swap = a "
                          "list of NAME=VANILLA)", has_got=False)
    return Study(path, game, bots, players, values["games"], values["seed"], values["rotate_seats"],
                 tuple(values["set"]), tuple(values["items"]), tuple(values["remove"]), tuple(values["swap"]),
                 values["placebo"])


def run_ablate(game: str, bots: list[str], players: int, seed: int, games: int, out_dir: str | Path,
               items: list[str] | tuple[str, ...], base: tuple[str, ...] = (), rotate: bool = False, jobs: int = 1,
               batch_size: int = 4096, progress: bool = False, remove: list[str] | tuple[str, ...] = (),
               swap: list[str] | tuple[str, ...] = (), placebo: bool = True, warn: Any = None) -> Any:
    """Play the baseline and every ablation into ``out_dir`` (resuming), then the placebo run
    (:func:`run_placebo`) unless ``placebo`` is false; returns the sweep's summary.

    Every argument, and what ``out_dir`` holds, is checked before anything is written; the directory stays
    locked until the placebo run is played."""
    check_deals("--games", games)
    ablations = make_ablations(game, list(items), tuple(base), tuple(remove), tuple(swap))
    baseline = RunSpec(game, get_game(game).load_config(None, tuple(base)), tuple(bots), players, seed, rotate)
    out = Path(out_dir)
    text = sweep_text(game, bots, players, seed, games, tuple(base), rotate, ablations)
    path = out / ABLATE_TOML
    sweep = read_sweep(path, text)
    given = {"format": FORMAT, "game": game, "base": list(base), "items_given": [a.text for a in ablations],
             "ablations": [a.__dict__ for a in ablations]}
    warn = warn or (lambda line: print(line, file=sys.stderr))
    placebo_run = None
    if placebo and _fixed_streams(baseline) is None:
        placebo_run = baseline.with_(bot_streams=PLACEBO_STREAMS)

    def check() -> list[Path]:
        if placebo_run is not None and (out / PLACEBO).exists():
            check_run_dir(out / PLACEBO, placebo_run, games)
        return _check_ablate_dir(out, text)

    def before(damaged: list[Path]) -> None:
        for damaged_path in damaged:
            aside = set_aside(damaged_path)
            warn(f"warning: {damaged_path} is damaged; moved to {aside}, written again from this command (the "
                 "sweep it holds is this study's)")
        if not path.exists():
            write_text(text, path)
        held = load_ablate_json(out) or {}
        given.update({k: held[k] for k in ("placebo_skipped",) if k in held})
        write_json(given, out / ABLATE_JSON)

    def after() -> None:
        if placebo:
            skipped = run_placebo(baseline, games, out, jobs, batch_size, progress)
            if skipped:
                write_json({**given, "placebo_skipped": skipped}, out / ABLATE_JSON)

    return play_sweep(sweep, out, jobs=jobs, batch_size=batch_size, progress=progress, command="ablate",
                      check=check, before=before, after=after, warn=warn)


def _check_ablate_dir(out: Path, text: str) -> list[Path]:
    """The state files of ``out`` to set aside and write again (damaged ones); a ConfigError if ``out`` holds
    another study. Read-only. The study is what ablate.toml says, or, when that is damaged, what sweep.json
    recorded of it (or, when both are, the cells, checked by :func:`analysis.sweep.play_sweep`)."""
    path = out / ABLATE_TOML
    damaged = []
    held = None
    if path.exists():
        try:
            held = path.read_text()
            read_sweep(path, held)
        except (ConfigError, UnicodeDecodeError, OSError):
            held = None
            damaged.append(path)
    if held is None:
        try:
            recorded = (_held_sweep(out) or {}).get("sweep_text")
        except ConfigError:
            recorded = None  # damaged too: the cells must show the study
        held = recorded
    if held is not None and held != text:
        try:
            given = load_ablate_json(out) or {}
        except ConfigError:
            given = {}
        raise ConfigError(str(out), "(directory)", "the same game, bots, players, seed, --set, --games and --item "
                          f"as the ablation study it holds ({' | '.join(given.get('items_given', [])) or 'see '}"
                          f"{'' if given else path}); use another --out for a different study", has_got=False)
    try:
        load_ablate_json(out)
    except ConfigError:
        damaged.append(out / ABLATE_JSON)
    return damaged


PLACEBO_STREAMS = "placebo"


def run_placebo(baseline: RunSpec, games: int, out: Path, jobs: int, batch_size: int, progress: bool) -> str:
    """The placebo run, ``out/placebo/``: the baseline's config, bots and deals, every bot drawing its tie-breaks
    from other random streams (``baseline.with_(bot_streams=...)``). No rule changes, so whatever it does to the
    item's users is the drift any change of the course of play shows. Returns why it was not played ("" when it
    was): a bot whose random stream cannot be renamed."""
    from sims.runner import run

    fixed = _fixed_streams(baseline)
    if fixed is not None:
        return fixed
    display = None
    if progress:
        from analysis.progress import progress_display as display
    run(baseline.with_(bot_streams=PLACEBO_STREAMS), games, out / PLACEBO, batch_size=batch_size, jobs=jobs,
        progress=display)
    return ""


def _fixed_streams(baseline: RunSpec) -> str | None:
    """Why the placebo run cannot be played (a bot whose random stream cannot be renamed), or None."""
    from sims.core.play import without_streams

    fixed = without_streams(get_game(baseline.game), baseline.choices)
    if fixed is None:
        return None
    return (f"none: {baseline.game}'s {fixed.kind} bot ({fixed.label}) cannot draw its tie-breaks from other "
            "random streams, so the drift a neutral change shows is not measured")


# ---------------------------------------------------------------- analysis


@dataclass(frozen=True)
class Change:
    """One paired change: an ablation against the baseline, for one seat (None: the whole game) and metric."""

    ablation: str  # the --item text
    seat: int | None
    metric: str
    paired: stats.PairedDifference
    p_holm: float = float("nan")

    def row(self) -> dict:
        p = self.paired
        return {"ablation": self.ablation, "seat": self.seat, "metric": self.metric, "base": p.base_mean,
                "ablated": p.other_mean, "change": p.difference, "low": p.mean.low, "high": p.mean.high,
                "interval": p.mean.method, "units": p.units, "unit": p.unit, "test": p.test, "p": p.p_value,
                "p_holm": self.p_holm}


VERDICTS = ("confirmed", "not confirmed", "undecided", "not comparable")
MIN_USER_DEALS = 20  # fewer deals with a user of the item and its interval (an interval on so few) decides nothing


@dataclass(frozen=True)
class Users:
    """The ablation's answer for its item: the change of the share of the seats that used the item in the
    baseline, with the ablation and with the placebo (the drift a neutral change shows), the difference of the
    two (the verdict's measure), and the item's use rate in each run.

    ``verdict`` reads the ablation as weakening the item (fewer copies, a higher cost): ``confirmed`` when the
    users' share, beyond the placebo's drift, is shown to move against the observational difference (a strong
    item weakened costs its users); ``not confirmed`` when a move that way larger than ``margin`` is ruled out
    (the interval's far end is within the margin, or the move goes the other way); ``undecided`` otherwise, and
    always without a placebo run (the drift is then unknown); ``not comparable`` when no content table names the
    item or no baseline seat used it.
    """

    ablation: str
    item: str
    family: str | None  # the content family whose table names the item; None when no table does
    observed: dict | None  # the family table's row for the item (baseline run)
    change: stats.PairedDifference | None  # the users' share: ablation minus baseline
    placebo: stats.PairedDifference | None = None  # the users' share: placebo minus baseline (the drift)
    effect: stats.PairedDifference | None = None  # the users' share: ablation minus placebo (beyond the drift)
    use: tuple[stats.Proportion | None, ...] = (None, None, None)  # use rate: baseline, ablation, placebo
    changed: tuple[float, float] = (float("nan"), float("nan"))  # games the ablation changed; of them, the placebo
    margin: float = 0.025

    @property
    def measure(self) -> stats.PairedDifference | None:
        """What the verdict reads: the change beyond the placebo's drift (the users' change without a placebo)."""
        return self.effect if self.placebo is not None else self.change

    @property
    def verdict(self) -> str:
        if self.observed is None or self.change is None:
            return "not comparable"
        observed = self.observed["difference"]
        if not np.isfinite(observed) or observed == 0:
            return "not comparable"
        m = self.measure.mean
        towards = sorted((-np.sign(observed) * m.low, -np.sign(observed) * m.high))  # > 0: the expected way
        if not all(np.isfinite(towards)) or self.change.units < MIN_USER_DEALS:
            return "undecided"
        if towards[0] > 0:
            return "confirmed" if self.placebo is not None else "undecided"
        if towards[1] < self.margin:
            return "not confirmed"
        return "undecided"

    def reason(self) -> str:
        """Why the verdict, in words."""
        verdict = self.verdict
        if verdict == "not comparable":
            return ("no content table of the baseline's events names the item" if self.family is None else
                    "too few of the baseline's seats used it to pair" if self.change is None else
                    "the content table shows no difference to confirm")
        shown = "beyond the placebo's drift" if self.placebo is not None else "(no placebo run: drift unknown)"
        m = self.measure
        text = f"its users' share {_change('share', m.difference, m.mean.low, m.mean.high)} {shown}"
        if self.change.units < MIN_USER_DEALS:
            return text + f": only {self.change.units} deals had a user (at least {MIN_USER_DEALS} decide)"
        if verdict == "confirmed":
            return text + ": weakening it costs its users"
        if verdict == "not confirmed":
            return text + f": a move of more than {100 * self.margin:g} points the way its observational " \
                          "difference predicts is ruled out"
        if self.placebo is None:
            return text + ": without a placebo run the drift a neutral change shows is unknown"
        return text + f": the interval holds 0 and moves of more than {100 * self.margin:g} points"


@dataclass(frozen=True)
class AblateResult:
    out_dir: Path
    game: str
    ablations: tuple[Ablation, ...]
    deals: int
    changes: tuple[Change, ...]
    users: tuple[Users, ...]
    placebo: str = ""  # what the placebo run is ("" when there is none), or why it is missing

    def table(self) -> pl.DataFrame:
        return pl.DataFrame([c.row() for c in self.changes], schema={
            "ablation": pl.String, "seat": pl.Int64, "metric": pl.String, "base": pl.Float64, "ablated": pl.Float64,
            "change": pl.Float64, "low": pl.Float64, "high": pl.Float64, "interval": pl.String, "units": pl.Int64,
            "unit": pl.String, "test": pl.String, "p": pl.Float64, "p_holm": pl.Float64})


# ablate.json as glade ablate writes it.
ABLATE_SHAPE = {"format": int, "game": str, "base": [str], "items_given": [str],
                "ablations": [{"text": str, "id": str, "override": str, "item": Maybe(str), "also": Opt([str])}],
                "placebo_skipped": Opt(str)}


def load_ablate_json(out_dir: str | Path) -> dict | None:
    """``OUT/ablate.json`` through the state loader (None if there is none); a damaged one is a ConfigError."""
    return read_state(Path(out_dir) / ABLATE_JSON, ABLATE_SHAPE, "ablate.json", "ablate")


def load_ablations(out_dir: str | Path) -> list[Ablation]:
    path = Path(out_dir) / ABLATE_JSON
    data = load_ablate_json(out_dir)
    if data is None:
        raise ConfigError(str(path), "(file)", "an ablation directory written by glade ablate", has_got=False)
    return [Ablation(text=a["text"], id=a["id"], override=a["override"], item=a["item"], also=tuple(a.get("also", ())))
            for a in data["ablations"]]


_KEY = ("deal", "rotation", "seat")


def _changes(text: str, base: pl.DataFrame, other: pl.DataFrame) -> list[Change]:
    """Per seat: its share as the headline counts it (:func:`analysis.stats.seat_share_change`) and its mean
    score; the game's length once."""
    out = []
    for seat in sorted(base["seat"].unique().to_list()):
        b, o = base.filter(pl.col("seat") == seat), other.filter(pl.col("seat") == seat)
        out.append(Change(text, int(seat), "share", stats.seat_share_change(base, other, int(seat), key=_KEY)))
        out.append(Change(text, int(seat), "score", stats.paired_difference(b, o, "score", key=_KEY)))
    first = int(base["seat"].min())
    out.append(Change(text, None, "turns", stats.paired_difference(base.filter(pl.col("seat") == first),
                                                                   other.filter(pl.col("seat") == first), "turns",
                                                                   key=_KEY)))
    return out


def _holm(changes: list[Change]) -> list[Change]:
    """Holm across the ablations, separately per seat and metric."""
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(changes):
        groups.setdefault((c.seat, c.metric), []).append(i)
    adjusted = [float("nan")] * len(changes)
    for indices in groups.values():
        for i, p in zip(indices, stats.correct(np.array([changes[i].paired.p_value for i in indices]), "holm")):
            adjusted[i] = float(p)
    return [Change(c.ablation, c.seat, c.metric, c.paired, p) for c, p in zip(changes, adjusted)]


def _item_users(item: str, family: Any, events: pl.DataFrame | None) -> pl.DataFrame | None:
    """``game, seat`` of the seat-games that used ``item`` (events of its family), or None without events."""
    from analysis.report.content import family_events

    if events is None:
        return None
    used = family_events(events, family)
    if used is None:
        return None
    return used.filter(pl.col(family.item).cast(pl.String) == item).select("game", "seat").unique()


def use_rate(records: pl.DataFrame, users: pl.DataFrame | None) -> stats.Proportion | None:
    """The share of seat-games that used the item, the deal as the unit (:func:`analysis.stats.clustered_proportion`)."""
    if users is None:
        return None
    flags = records.select("game", "seat", "deal").join(users.with_columns(pl.lit(True).alias("used")),
                                                        on=["game", "seat"], how="left")
    return stats.clustered_proportion(flags["used"].fill_null(False).to_numpy(), flags["deal"].to_numpy())


def changed_games(base: pl.DataFrame, other: pl.DataFrame) -> pl.DataFrame:
    """Per common game (``deal``, ``rotation``): ``changed``, whether its course changed from ``base`` to
    ``other``: another length or another score for some seat."""
    def per_game(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.sort("seat").group_by("deal", "rotation").agg(pl.col("turns").first(), pl.col("score"))

    joined = per_game(base).join(per_game(other), on=["deal", "rotation"])
    return joined.select("deal", "rotation", ((pl.col("turns") != pl.col("turns_right"))
                                              | (pl.col("score") != pl.col("score_right"))).alias("changed"))


def matched_placebo(base: pl.DataFrame, ablated: pl.DataFrame, placebo: pl.DataFrame) -> pl.DataFrame:
    """The placebo's games where the ablation changed the course of play, the baseline's where it did not: a
    neutral change of the very games the ablation changed, so its drift and the ablation's compare like for like
    (the placebo redraws every game's tie-breaks, a far wider change than a cost that matters in a few games)."""
    changed = changed_games(base, ablated)
    keep = changed.filter(pl.col("changed")).select("deal", "rotation")
    rest = changed.filter(~pl.col("changed")).select("deal", "rotation")
    return pl.concat([placebo.join(keep, on=["deal", "rotation"]), base.join(rest, on=["deal", "rotation"])],
                     how="vertical_relaxed").sort("deal", "rotation", "seat")


def _users(ablation: Ablation, game: str, runs: dict[str, pl.DataFrame], events: dict[str, pl.DataFrame | None],
           margin: float) -> Users:
    """The item's users in the baseline and their share with the ablation, with the placebo, and between the two."""
    from analysis.report.content import content_of, family_events

    base_events = events["baseline"]
    if base_events is None or not base_events.height:
        return Users(ablation.text, ablation.item, None, None, None)
    for family in content_of(game, base_events).families:
        used = family_events(base_events, family)
        if used is None or ablation.item not in used[family.item].cast(pl.String).to_list():
            continue
        table = stats.item_strength(runs["baseline"], used, family.item)
        observed = table.filter(pl.col(family.item) == ablation.item).to_dicts()
        users = _item_users(ablation.item, family, base_events)
        picked = users.join(runs["baseline"].select("game", "seat", "deal", "rotation"), on=["game", "seat"]) \
            .select(*_KEY)
        placebo = runs.get("placebo")

        def users_change(base: pl.DataFrame, other: pl.DataFrame) -> stats.PairedDifference:
            return stats.seat_share_change(base.join(picked, on=list(_KEY)), other.join(picked, on=list(_KEY)),
                                           None, key=_KEY, margin=margin, metric="users' share")

        found: dict[str, Any] = {}
        matched = matched_placebo(runs["baseline"], runs["ablated"], placebo) if placebo is not None else None
        if picked.height > 1:
            found["change"] = users_change(runs["baseline"], runs["ablated"])
            if matched is not None:
                found["placebo"] = users_change(runs["baseline"], matched)
                found["effect"] = users_change(matched, runs["ablated"])
        rates = tuple(use_rate(runs[name], _item_users(ablation.item, family, events.get(name)))
                      if name in runs else None for name in ("baseline", "ablated", "placebo"))
        ablation_changed = changed_games(runs["baseline"], runs["ablated"])
        changed = (float(ablation_changed["changed"].mean()), float("nan"))
        if placebo is not None:
            placebo_changed = changed_games(runs["baseline"], placebo).join(
                ablation_changed.filter(pl.col("changed")).select("deal", "rotation"), on=["deal", "rotation"])
            changed = (changed[0], float(placebo_changed["changed"].mean()) if placebo_changed.height else 0.0)
        return Users(ablation.text, ablation.item, family.title, observed[0] if observed else None,
                     found.get("change"), found.get("placebo"), found.get("effect"), rates, changed, margin)
    return Users(ablation.text, ablation.item, None, None, None)


def _common_deals(base: pl.DataFrame, other: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    common = base.select("deal").unique().join(other.select("deal").unique(), on="deal")
    return base.join(common, on="deal"), other.join(common, on="deal")


def analyse_ablate(out_dir: str | Path, margin: float = 0.025) -> AblateResult:
    """Every ablation against the baseline on their common deals, and its item against the placebo (module
    docstring); ``margin`` is the users' share change a "not confirmed" rules out."""
    ablations = load_ablations(out_dir)
    data = load_sweep(out_dir)
    baseline = data.cell(BASELINE)
    players = data.players
    base = stats.seat_fractions(baseline.records().filter(pl.col("seat") < players), players)
    placebo_dir = Path(out_dir) / PLACEBO
    placebo_records = placebo_events = None
    if (placebo_dir / "manifest.json").is_file():
        placebo_records = stats.seat_fractions(load_records(placebo_dir).filter(pl.col("seat") < players), players)
        placebo_events = load_events(placebo_dir)
    changes, users = [], []
    for a in ablations:
        cell = data.cell(a.id)
        other = stats.seat_fractions(cell.records().filter(pl.col("seat") < players), players)
        b, o = _common_deals(base, other)
        changes += _changes(a.text, b, o)
        if a.item is not None:
            runs = {"baseline": b, "ablated": o}
            if placebo_records is not None:
                runs["baseline"], runs["placebo"] = _common_deals(b, placebo_records)
                runs["ablated"] = o.join(runs["baseline"].select("deal").unique(), on="deal")
            users.append(_users(a, data.game, runs, {"baseline": baseline.events(), "ablated": cell.events(),
                                                     "placebo": placebo_events}, margin))
    placebo = _placebo_text(out_dir) if placebo_records is not None else _placebo_missing(out_dir)
    return AblateResult(Path(out_dir), data.game, tuple(ablations), int(base["deal"].n_unique()),
                        tuple(_holm(changes)), tuple(users), placebo)


def _placebo_text(out_dir: str | Path) -> str:
    return (f"the baseline played again on the same deals with every bot's tie-breaks drawn from other random "
            f"streams ({Path(out_dir) / PLACEBO}): no rule changes, so its users' change is the drift alone; each "
            "ablation is read against the placebo's games where it changed the course of play, the baseline's "
            "elsewhere")


def _placebo_missing(out_dir: str | Path) -> str:
    held = load_ablate_json(out_dir) or {}
    return held.get("placebo_skipped") or "none (glade ablate --no-placebo)"


# ---------------------------------------------------------------- text and JSON


def _value(metric: str, x: float) -> str:
    return f"{100 * x:.1f}%" if metric == "share" else f"{x:.2f}"


def _change(metric: str, c: float, low: float, high: float) -> str:
    if metric == "share":
        return f"{100 * c:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] points"
    return f"{c:+.2f} [{low:+.2f}, {high:+.2f}]"


def _rate(p: stats.Proportion | None) -> str:
    return "n/a" if p is None else f"{100 * p.rate:.1f}% [{100 * p.low:.1f}, {100 * p.high:.1f}]"


def verdict_line(u: Users) -> str:
    """The ablation's answer in one line: the verdict with its measure and interval, and the item's use rate
    before and after."""
    use = f"{u.item} used in {_rate(u.use[0])} of seat-games, {_rate(u.use[1])} with the change"
    return f"{u.ablation}: {u.verdict}: {u.reason()}; {use}"


def users_text(u: Users) -> str:
    """The detail behind the verdict: the observational difference, the users' change with the ablation and with
    the placebo, the share of games whose course each changed, the use rates."""
    if u.family is None:
        return f"item {u.item}: in no content table of the baseline's events (not compared)"
    obs = u.observed
    seen = (f"observational {100 * obs['difference']:+.1f} [{100 * obs['diff_low']:+.1f}, "
            f"{100 * obs['diff_high']:+.1f}] points" if obs else "no observational row")
    if u.change is None:
        return f"item {u.item} ({u.family}): {seen}; too few users to pair: {u.verdict}"
    c = u.change
    parts = [f"its baseline users' share {_change('share', c.difference, c.mean.low, c.mean.high)} with the change"]
    if u.placebo is not None:
        p, e = u.placebo, u.effect
        parts.append(f"{_change('share', p.difference, p.mean.low, p.mean.high)} with the placebo (the drift); "
                     f"beyond it {_change('share', e.difference, e.mean.low, e.mean.high)}")
        parts.append(f"the change altered the course of {100 * u.changed[0]:.0f}% of games, the placebo "
                     f"{100 * u.changed[1]:.0f}% of those")
    parts.append(f"use {_rate(u.use[0])} -> {_rate(u.use[1])}"
                 + (f" (placebo {_rate(u.use[2])})" if u.use[2] is not None else ""))
    return f"item {u.item} ({u.family}): {seen}; " + "; ".join(parts) + f": {u.verdict}"


def format_ablate(result: AblateResult) -> str:
    """The verdicts first (one line per ablation with an item), then per ablation, seat and metric: baseline ->
    ablated, paired change [95%], Holm p, and the item's detail."""
    from analysis.report.text import format_p

    lines = [f"{result.game}: {len(result.ablations)} ablation(s) on {result.deals:,} common deals "
             f"({result.out_dir})"]
    lines += [f"verdict: {verdict_line(u)}" for u in result.users]
    lines.append(f"placebo: {result.placebo}")
    lines.append("paired changes (ablated minus baseline), the deal as the unit; share: of decided games "
                 "(first places with 3-4 players), as the headline counts it")
    for a in result.ablations:
        lines.append(f"{a.text}  (set {' '.join(a.overrides)})")
        for c in (c for c in result.changes if c.ablation == a.text):
            p = c.paired
            who = f"seat {c.seat}" if c.seat is not None else "game"
            lines.append(f"  {who:<7} {METRIC_TEXT[c.metric]:<22} {_value(c.metric, p.base_mean):>7} -> "
                         f"{_value(c.metric, p.other_mean):>7}  {_change(c.metric, p.difference, p.mean.low, p.mean.high)}"
                         f"  Holm {format_p(c.p_holm)}")
        for u in (u for u in result.users if u.ablation == a.text):
            lines.append("  " + users_text(u))
    return "\n".join(lines)


def ablate_json(result: AblateResult) -> dict:
    """What ``glade ablate --json`` prints."""
    def clean(row: dict) -> dict:
        return {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in row.items()}

    def paired(p: stats.PairedDifference | None, name: str) -> dict:
        if p is None:
            return {name: None, f"{name}_low": None, f"{name}_high": None}
        return {name: p.difference, f"{name}_low": p.mean.low, f"{name}_high": p.mean.high}

    users = []
    for u in result.users:
        users.append(clean({"ablation": u.ablation, "item": u.item, "family": u.family, "verdict": u.verdict,
                            "reason": u.reason(),
                            "observed_difference": u.observed["difference"] if u.observed else None,
                            **paired(u.change, "users_change"), **paired(u.placebo, "placebo_change"),
                            **paired(u.effect, "beyond_placebo"),
                            "use_baseline": u.use[0].rate if u.use[0] else None,
                            "use_ablated": u.use[1].rate if u.use[1] else None,
                            "use_placebo": u.use[2].rate if u.use[2] else None,
                            "changed_ablated": u.changed[0], "changed_placebo": u.changed[1]}))
    return {"game": result.game, "out_dir": str(result.out_dir), "deals": result.deals, "placebo": result.placebo,
            "ablations": [a.__dict__ for a in result.ablations],
            "changes": [clean(r) for r in result.table().to_dicts()], "items": users}


__all__ = ["Ablation", "AblateResult", "Change", "Users", "ablate_json", "analyse_ablate", "format_ablate",
           "load_ablations", "make_ablations", "parse_item", "run_ablate", "sweep_text"]
