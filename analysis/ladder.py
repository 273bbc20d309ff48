"""``glade ladder``: the skill ladder, each bot against the next one up, and a rating per bot.

Each adjacent pair of the ladder (random vs greedy, greedy vs planner, planner
vs strong by default) plays the same deals (the run's seed) with the seats
split between the two bots and every seat rotation played, so each bot sits
in each seat of each deal::

    OUT/<lower>-vs-<upper>/     a glade play run directory per pair
    OUT/ladder.json             the pairs' shares and the ratings

A pair's share is the upper bot's points over every pair of seats held by
different bots (the better rank scores 1, the same rank or a stall 1/2), the
games of one deal as one paired unit; the ratings are Bradley-Terry on the
same comparisons, on the Elo scale, the lowest bot at 0. Both come from
:func:`analysis.stats.skill_gradient` (see its docstring for the intervals).

Saved results (``--save``) go into ``configs/ladder.toml``, one entry per game
and player count, which ``glade games`` prints as each bot's strength.
"""

from __future__ import annotations

import datetime
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from analysis import stats
from sims.core.play import STRONG
from sims.core.spec import ConfigError, Float, Int, List, Optional, Record, Str, project_root, read_toml, validate
from sims import outdir
from sims.core.files import LOCK, Opt, Where, is_temporary, read_state, set_aside, write_json, write_text
from sims.records import BOTS_SHAPE, COUNT_SHAPE, DAMAGED, SEED_SHAPE, load_records
from sims.registry import get_game
from sims.runner import check_deals, check_run_dir, run
from sims.runspec import RunSpec

LADDER = ("random", "greedy", "planner", STRONG)
LADDER_JSON = "ladder.json"
# The bar (issue 37): random -> greedy -> planner, each level beats the one below with at least BAR of the points
# (the interval's low end) over at least BAR_DEALS deals; strong beats the planner with an interval above
# STRONG_BAR over at least STRONG_DEALS deals, or the game's ladder drops strong and says so.
BAR = 0.6
BAR_DEALS = 200
STRONG_BAR = 0.5
STRONG_DEALS = 400


def ladder_path() -> Path:
    """The shipped ladder file, ``configs/ladder.toml``."""
    return project_root() / "configs" / "ladder.toml"


def pair_lineup(lower: str, upper: str, players: int) -> list[str]:
    """The seats of one pair: the lower bot in the first half (rounded up), the upper bot in the rest.

    Rotating it gives every seat to each bot and, at 4 players, four different tables.
    """
    return [lower] * math.ceil(players / 2) + [upper] * (players // 2)


def pair_dir(out: Path, lower: str, upper: str) -> Path:
    return out / f"{lower}-vs-{upper}"


# ---------------------------------------------------------------- the measure


@dataclass(frozen=True)
class Pair:
    """The upper bot's share of the points against the lower bot, with its interval (by deal)."""

    lower: str
    upper: str
    share: float
    low: float
    high: float
    deals: int
    games: int

    @property
    def strong(self) -> bool:
        """A pair of the top level: strong (or a bot called ``strong...``) over a planner (``planner...``,
        ``learned_planner``)."""
        return self.upper.startswith(STRONG) and "planner" in self.lower

    @property
    def bar(self) -> float:
        """The pair's bar: :data:`STRONG_BAR` for strong, else :data:`BAR`."""
        return STRONG_BAR if self.strong else BAR

    @property
    def bar_deals(self) -> int:
        """The deals the bar asks for: :data:`STRONG_DEALS` for strong, else :data:`BAR_DEALS`."""
        return STRONG_DEALS if self.strong else BAR_DEALS

    @property
    def meets_bar(self) -> bool:
        """The interval lies above the bar: the upper bot shown to win at least ``BAR`` (strong: more than
        ``STRONG_BAR``)."""
        return self.low > STRONG_BAR if self.strong else self.low >= BAR


@dataclass(frozen=True)
class Rating:
    """A bot's Elo (400/ln 10 per Bradley-Terry logit) with its 95% interval; the lowest bot is 0."""

    bot: str
    elo: float
    low: float
    high: float


@dataclass(frozen=True)
class Ladder:
    """The pairs and ratings of one game and player count."""

    game: str
    players: int
    pairs: tuple[Pair, ...]
    ratings: tuple[Rating, ...]
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "method": self.method,
                "pairs": [vars(p) | {"bar": p.bar, "bar_deals": p.bar_deals, "meets_bar": p.meets_bar}
                          for p in self.pairs],
                "ratings": [vars(r) for r in self.ratings]}

    def describe(self) -> str:
        lines = [f"{self.game}, {self.players} players ({self.method})"]
        for p in self.pairs:
            verdict = "meets" if p.meets_bar else "misses"
            short = f", fewer than the bar's {p.bar_deals:,} deals" if p.deals < p.bar_deals else ""
            bar = f"the interval above {_pct(p.bar)}" if p.strong else f"the {_pct(p.bar)} bar"
            lines.append(f"  {p.upper} beats {p.lower} {_pct(p.share)} [{_pct(p.low)}, {_pct(p.high)}] "
                         f"of {p.deals:,} deals ({p.games:,} games): {verdict} {bar}{short}")
        for r in self.ratings:
            lines.append(f"  {r.bot:<10} Elo {r.elo:+,.0f} [{r.low:+,.0f}, {r.high:+,.0f}]")
        return "\n".join(lines)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def measure(records: pl.DataFrame, bots: Sequence[str], game: str = "", players: int | None = None) -> Ladder:
    """The ladder of ``records`` (every pair's games; ``game`` ids unique over them) for ``bots``, lowest
    first: each adjacent pair's upper-bot share, and Bradley-Terry ratings with ``bots[0]`` at 0."""
    gradient = stats.skill_gradient(records, reference=bots[0])
    pairs = tuple(_pair(gradient.pairwise, lower, upper) for lower, upper in zip(bots, bots[1:]))
    table = {row["bot"]: row for row in gradient.ratings.to_dicts()}
    ratings = tuple(Rating(bot, float(table[bot]["elo"]), _elo(table[bot]["low"]), _elo(table[bot]["high"]))
                    for bot in bots)
    method = (f"shares: {gradient.pair_method}; ratings: {gradient.rating_method}, "
              f"Elo = 400/ln 10 per logit, {bots[0]} = 0")
    return Ladder(game, gradient.players if players is None else players, pairs, ratings, method)


def _elo(logit: float) -> float:
    return float(stats.ELO_PER_LOGIT * logit)


def _pair(pairwise: pl.DataFrame, lower: str, upper: str) -> Pair:
    for a, b, flip in ((upper, lower, False), (lower, upper, True)):
        row = pairwise.filter((pl.col("bot_a") == a) & (pl.col("bot_b") == b))
        if row.height:
            r = row.row(0, named=True)
            share, low, high = ((1 - r["share"], 1 - r["share_high"], 1 - r["share_low"]) if flip
                                else (r["share"], r["share_low"], r["share_high"]))
            return Pair(lower, upper, float(share), float(low), float(high), int(r["deals"]), int(r["games"]))
    raise stats.StatsError(f"ladder: expected games of {lower} against {upper} in the records")


# ---------------------------------------------------------------- playing it


def play_ladder(game_name: str, players: int, games: int, seed: int, out_dir: str | Path,
                bots: Sequence[str] = LADDER, jobs: int = 1, batch_size: int = 512,
                progress: Any = None, overrides: Sequence[str] = (), warn: Any = None) -> Ladder:
    """Play every adjacent pair of ``bots`` on ``games`` deals of ``seed`` (seats split and rotated) into
    ``out_dir`` (resumed if there), and measure the ladder; writes ``OUT/ladder.json``.

    ``overrides`` are ``--set`` config keys (a weight study: ``bots.greedy.flowers=1`` against a persona
    holding the old weights). Everything, and what ``out_dir`` holds, is checked before anything is written:
    ladder.json records the study first, and a directory holding another ladder is refused."""
    if len(bots) < 2 or len(set(bots)) != len(bots):
        raise ConfigError("--bots", ",".join(bots), "at least two different bots, weakest first", has_got=False)
    game = get_game(game_name)
    if players < 2:
        raise ConfigError("--players", str(players), "at least 2 (the ladder seats two bots)", has_got=False)
    check_deals("--games", games)
    config = game.load_config(None, tuple(overrides))
    out = Path(out_dir)
    pairs = list(zip(bots, bots[1:]))
    wanted = {pair_dir(out, lower, upper).name: RunSpec(game.name, config, tuple(pair_lineup(lower, upper, players)),
                                                        players, seed, rotate_seats=True) for lower, upper in pairs}
    study = {"game": game.name, "players": players, "bots": list(bots), "seed": int(seed), "set": list(overrides)}
    state = {"format": FORMAT, "study": study, "games": games}
    with outdir.writing(out, "ladder", lambda: _check_ladder_dir(out, study, wanted, games)) as damage:
        if damage is not None:
            aside = set_aside(out / LADDER_JSON)
            (warn or _stderr)(f"warning: {out / LADDER_JSON} is damaged ({damage.expected}); moved to {aside}, "
                              "written again (every pair directory is this ladder's)")
        write_json(state, out / LADDER_JSON)
        frames = []
        for lower, upper in pairs:
            where = pair_dir(out, lower, upper)
            run(wanted[where.name], games, where, batch_size=batch_size, jobs=jobs, progress=progress)
            frames.append(load_records(where))
        ladder = measure(stacked(frames), bots, game.name, players)
        write_json({**ladder.to_dict(), **state}, out / LADDER_JSON)
    return ladder


FORMAT = 1
_STUDY_SHAPE = {"game": str, "players": COUNT_SHAPE, "bots": BOTS_SHAPE, "seed": SEED_SHAPE, "set": [str]}
# ladder.json as glade ladder writes it: the study first, the pairs and ratings once measured (a directory
# written before the study was recorded holds only the measured keys).
LADDER_SHAPE = Where({"format": Opt(int), "study": Opt(_STUDY_SHAPE), "games": Opt(int), "game": Opt(str),
                      "players": Opt(COUNT_SHAPE), "method": Opt(str),
                      "pairs": Opt([{"lower": str, "upper": str, "share": float, "low": float, "high": float,
                                     "deals": int, "games": int}]),
                      "ratings": Opt([{"bot": str, "elo": float, "low": float, "high": float}])},
                     lambda data: "study" in data or all(key in data for key in ("game", "players", "pairs")),
                     "a JSON object with the ladder's study (or, written before it was recorded, its game, players "
                     "and pairs)")


def held_study(held: dict) -> dict:
    """The study a ladder.json records (of an older one: its game, players and the bots its pairs name)."""
    if "study" in held:
        return held["study"]
    pairs = held["pairs"]
    bots = [pairs[0]["lower"]] + [p["upper"] for p in pairs] if pairs else []
    return {"game": held["game"], "players": held["players"], "bots": bots}


def read_ladder_json(out_dir: str | Path) -> dict | None:
    """``OUT/ladder.json`` through the state loader (None if there is none); a damaged one is a ConfigError."""
    return read_state(Path(out_dir) / LADDER_JSON, LADDER_SHAPE, "ladder.json", "ladder")


def _check_ladder_dir(out: Path, study: dict, wanted: dict[str, RunSpec], games: int) -> ConfigError | None:
    """None if ``out`` holds nothing or this ladder; the damage when ladder.json is damaged but every pair
    directory is this ladder's; else a ConfigError (another ladder, a pair of other bots). Read-only."""
    def same(held: dict) -> None:
        recorded = held_study(held)
        for key, value in study.items():
            if key in recorded and recorded[key] != value:
                raise ConfigError(str(out / LADDER_JSON), key, f"{json.dumps(recorded[key])} (what this ladder "
                                  "directory holds; use another --out for a different ladder), got "
                                  f"{json.dumps(value)}", has_got=False)

    def prove() -> None:
        for entry in sorted(out.iterdir()) if out.is_dir() else []:
            if entry.name in (LADDER_JSON, LOCK, DAMAGED) or is_temporary(entry):
                continue
            if entry.name not in wanted:
                raise ConfigError(str(entry), "(directory)", "a pair of this ladder: " + ", ".join(wanted)
                                  + " (use another --out for a different ladder)", has_got=False)
            check_run_dir(entry, wanted[entry.name], games)

    return outdir.held_state(lambda: read_ladder_json(out), same, prove)[1]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def stacked(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """The pairs' records as one table, ``game`` ids offset so that no two runs share one."""
    out, offset = [], 0
    for frame in frames:
        frame = frame.select("game", "deal", "seat", "bot", "rank")
        out.append(frame.with_columns(pl.col("game") + offset))
        offset += int(frame["game"].max()) + 1 if frame.height else 0
    return pl.concat(out)


# ---------------------------------------------------------------- the ladder file

_PAIR = Record({"lower": Str(), "upper": Str(), "share": Float(0, 1), "low": Float(0, 1), "high": Float(0, 1),
                "deals": Int(1), "games": Int(1)})
_RATING = Record({"bot": Str(), "elo": Float(), "low": Float(), "high": Float()})
_ENTRY = Record({"game": Str(), "players": Int(1), "seed": Int(), "date": Str(), "command": Str(),
                 "pairs": List(_PAIR, 1), "ratings": List(_RATING, 2), "note": Optional(Str(), "")})
_SCHEMA = {"ladder": Optional(List(_ENTRY), [])}


def read_ladder(path: Path | None = None) -> list[dict]:
    """The entries of a ladder file (``configs/ladder.toml`` by default); none if the file does not exist.
    A malformed file is a ConfigError naming the file and key."""
    path = ladder_path() if path is None else Path(path)
    if not path.exists():
        return []
    return validate(read_toml(path), _SCHEMA, str(path))["ladder"]


def entries_of(entries: Sequence[dict], game: str) -> list[dict]:
    """A game's entries, by player count."""
    return sorted((e for e in entries if e["game"] == game), key=lambda e: e["players"])


def save_ladder(ladder: Ladder, seed: int, command: str, path: Path | None = None, note: str = "") -> Path:
    """Put ``ladder`` into the ladder file, replacing the entry of the same game and player count."""
    path = ladder_path() if path is None else Path(path)
    kept = [e for e in read_ladder(path) if (e["game"], e["players"]) != (ladder.game, ladder.players)]
    entry = {"game": ladder.game, "players": ladder.players, "seed": seed,
             "date": datetime.date.today().isoformat(), "command": command,
             "pairs": [vars(p) for p in ladder.pairs], "ratings": [vars(r) for r in ladder.ratings], "note": note}
    entries = sorted(kept + [entry], key=lambda e: (e["game"], e["players"]))
    write_text(_HEADER + "".join(_entry_toml(e) for e in entries), path)
    return path


_HEADER = """\
# The skill ladder: each bot's measured strength, per game and player count.
# Written by `glade ladder GAME --players P --games N --seed S --out DIR --save`
# (docs/bots.md); `glade games` prints it. A pair: the upper bot's share of the
# points against the lower bot (seats split and rotated on the same deals; a
# tie or stall is half), a 95% t interval over deals. Ratings: Bradley-Terry on
# the same comparisons, Elo scale (400/ln 10 per logit), random = 0, 95%.
"""


def _entry_toml(entry: dict) -> str:
    lines = ["", "[[ladder]]"]
    for key in ("game", "players", "seed", "date", "command", "note"):
        lines.append(f"{key} = {json.dumps(entry[key])}")
    lines.append("pairs = [")
    for p in entry["pairs"]:
        lines.append(f'  {{ lower = "{p["lower"]}", upper = "{p["upper"]}", share = {p["share"]:.4f}, '
                     f'low = {p["low"]:.4f}, high = {p["high"]:.4f}, deals = {p["deals"]}, games = {p["games"]} }},')
    lines.append("]")
    lines.append("ratings = [")
    for r in entry["ratings"]:
        lines.append(f'  {{ bot = "{r["bot"]}", elo = {r["elo"]:.1f}, low = {r["low"]:.1f}, high = {r["high"]:.1f} }},')
    lines.append("]")
    return "\n".join(lines) + "\n"


def strength_lines(entry: dict) -> list[str]:
    """What ``glade games`` prints of one entry: a heading, then each bot's Elo and its win over the bot below."""
    beats = {p["upper"]: p for p in entry["pairs"]}
    deals = max(p["deals"] for p in entry["pairs"])
    lines = [f"{entry['players']} players (Elo, {entry['ratings'][0]['bot']} = 0; "
             f"{deals:,} deals a pair, {entry['date']})"]
    for r in entry["ratings"]:
        text = f"{r['bot']}: {r['elo']:,.0f}"
        if r["bot"] in beats:
            p = beats[r["bot"]]
            text += f" (beats {p['lower']} {_whole(p['share'])}% [{_whole(p['low'])}, {_whole(p['high'])}])"
            pair = Pair(**{key: p[key] for key in ("lower", "upper", "share", "low", "high", "deals", "games")})
            if pair.strong and not pair.meets_bar:
                text = (f"{r['bot']}: dropped from the ladder (beats {p['lower']} {_whole(p['share'])}% "
                        f"[{_whole(p['low'])}, {_whole(p['high'])}] of {p['deals']:,} deals: not shown above "
                        f"{_whole(STRONG_BAR)}%)")
        lines.append(text)
    if entry.get("note"):
        lines.append(f"note: {entry['note']}")
    return lines


def _whole(share: float) -> str:
    """A share in whole percent, one decimal where rounding would show 0 or 100 for what is neither."""
    text = f"{100 * share:.0f}"
    return f"{100 * share:.1f}" if text in ("0", "100") and 0 < share < 1 else text
