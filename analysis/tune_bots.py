"""``glade tune`` with target ``bot-share``: the bot weights that beat a baseline bot most often.

Each candidate is a setting of config keys (``bots.<kind>.*`` or
``personas.<name>.*``) that the *challenger* bot reads; the *baseline* bot
plays against it with the same weights in every candidate. A tune file::

    game = "vorex"
    target = "bot-share"
    challenger = "greedy"         # reads the searched keys
    baseline = "greedy_v1"        # a persona holding the earlier weights
    players = 2                   # optional, default 2
    seed = 11
    budget = 3000                 # games the search may spend
    confirm = 300                 # deals of the confirmation run
    start = 50                    # deals of a candidate's first look
    [params]
    "bots.greedy.production" = [0.0, 0.5, 1.0]

The seats are split as ``glade ladder`` splits a pair (the baseline in the
first half of the seats, rounded up) and every rotation of each deal is
played. The score is the challenger's share of the pairwise comparisons
against the baseline, averaged per deal (:func:`analysis.ladder.measure`, the
same computation as the ladder's pairs). The search races the candidates on
the same deals as the seat-balance search does (``docs/tune.md``): each
per-deal share lies in [0, 1], so its running mean has an anytime-valid
confidence sequence; a candidate is dropped when its sequence's top lies
below another's bottom. The chosen candidate is then played on new deals and
its share reported with the ladder's 95% t interval over deals: ``better``
when the interval lies above 50%, ``worse`` below, ``undecided`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import polars as pl

from analysis.ladder import measure, pair_lineup
from analysis.stats.skill import PairShares
from analysis.tune import Study, _Search, _key, _pct
from sims.core.play import resolve_bot, seat_labels
from sims.core.spec import ConfigError
from sims.registry import get_game

BOT_DELTA = 0.05  # the share difference the confidence sequences are tuned to tell apart
FAIR = 0.5


def bot_share_lineup(definition: Any, where: str, source: str, bots: Sequence[str] | None, players: int | None,
                     options: dict) -> tuple[int, tuple[str, ...], float]:
    """Target bot-share: the players, the seats (the ladder's split of baseline and challenger) and delta."""
    if bots:
        raise ConfigError(where, _key(source, "bots"), "no bots with target bot-share: the lineup is the baseline "
                          "and the challenger, seats split and rotated", ",".join(bots))
    for name in ("turns", "means", "turns_share", "max_stalls"):
        if options.get(name):
            raise ConfigError(where, _key(source, name), f"no {name.replace('_', ' ')} with target bot-share (a seat-balance target)",
                              has_got=False)
    challenger, baseline = options.get("challenger"), options.get("baseline")
    for name, bot in (("challenger", challenger), ("baseline", baseline)):
        if not bot:
            raise ConfigError(where, _key(source, name), f"a {name} bot or persona with target bot-share "
                              "(e.g. challenger = \"greedy\", baseline = \"greedy_v1\")", has_got=False)
    if challenger == baseline:
        raise ConfigError(where, _key(source, "baseline"), f"a bot other than the challenger ({challenger})",
                          baseline)
    players = 2 if players is None else players
    if players < 2:
        raise ConfigError(where, "--players", "at least 2 players (the challenger needs an opponent)", players)
    labels = tuple(seat_labels(definition, players, pair_lineup(baseline, challenger, players)))
    delta = float(options.get("delta") or BOT_DELTA)
    if not 0 < delta < FAIR:
        raise ConfigError(where, _key(source, "delta"), "a share difference between 0 and 0.5 (the confidence "
                          "sequences are tuned to tell it apart)", delta)
    return players, labels, delta


def check_baseline(study: Study, configs: Sequence[Any]) -> None:
    """A ConfigError unless the baseline plays with the same weights in every candidate (the searched keys
    must be the challenger's only)."""
    game = get_game(study.game)
    base = resolve_bot(game, game.load_config(None, study.base), study.baseline)
    for candidate, config in zip(study.candidates, configs):
        choice = resolve_bot(game, config, study.baseline)
        if (choice.kind, choice.weights) != (base.kind, base.weights):
            changed = sorted(k for k in set(choice.weights) | set(base.weights)
                             if choice.weights.get(k) != base.weights.get(k))
            raise ConfigError(study.source or "--param", f"candidate {candidate.id}",
                              f"keys that only the challenger reads: the baseline {study.baseline} would play with "
                              f"other weights ({', '.join(changed)}); keep the old weights in a persona (e.g. "
                              f"greedy_v1) and make it the baseline", has_got=False)


@dataclass(frozen=True)
class ShareLook:
    """A candidate's first ``deals`` deals: the challenger's share with its confidence sequence."""

    candidate: str
    deals: int
    games: int
    share: float  # the challenger's mean per-deal share of its comparisons with the baseline
    half_width: float  # the confidence sequence's half-width
    t_low: float  # the ladder's 95% t interval at this look (for reading, not for dropping)
    t_high: float

    @property
    def low(self) -> float:
        return max(0.0, self.share - self.half_width)

    @property
    def high(self) -> float:
        return min(1.0, self.share + self.half_width)

    def to_dict(self, fair: float = FAIR) -> dict:
        return {"candidate": self.candidate, "deals": self.deals, "games": self.games, "share": self.share,
                "half_width": self.half_width, "low": self.low, "high": self.high, "t_low": self.t_low,
                "t_high": self.t_high}


def share_look(records: pl.DataFrame, study: Study, candidate: str, deals: int, half_width: Any) -> ShareLook:
    """The challenger's share over the first ``deals`` deals of ``records`` (``half_width(n)``: the sequence's)."""
    tally = ShareTally(study, half_width)
    tally.add(records.filter(pl.col("deal") < deals))
    return tally.look(candidate, deals)


class ShareTally:
    """A bot-share look's running tally: the challenger's per-deal shares against the baseline
    (:class:`analysis.stats.skill.PairShares`), fed a block of deals at a time."""

    def __init__(self, study: Study, half_width: Any):
        self.pair = PairShares(study.challenger, study.baseline)
        self.half_width = half_width
        self.read_to = 0

    def add(self, records: pl.DataFrame) -> None:
        self.pair.add(records)

    def look(self, candidate: str, deals: int, level: Any = None) -> ShareLook:
        share, low, high, _, _ = self.pair.share()
        return ShareLook(candidate, deals, self.pair.games, share, self.half_width(self.pair.units), low, high)


class BotShareSearch(_Search):
    """The race of :class:`analysis.tune._Search` on the challenger's share: the higher the better."""

    def new_tally(self) -> ShareTally:
        return ShareTally(self.study, self.level.half_width)

    def look_text(self, look: ShareLook) -> str:
        return f"{self.study.challenger} share {_pct(look.share)} +-{100 * look.half_width:.1f}"

    def rank(self, index: int) -> float:
        return -self.looks[index].share

    def _decided(self, alive: list[int]) -> bool:
        if len(alive) == 1:
            self.manifest["stopped"] = "one candidate left"
        return len(alive) == 1

    def _drops(self, alive: list[int]) -> list[int]:
        best_low = max(self.looks[i].low for i in alive)
        kept = []
        for i in alive:
            high = self.looks[i].high
            if high < best_low:
                self.drop(i, "race", f"its share is at most {_pct(high)}, below the {_pct(best_low)} another "
                          "candidate is at least (confidence sequences)")
            else:
                kept.append(i)
        return kept

    def choose(self, alive: list[int]) -> int:
        return min(alive, key=lambda i: (self.rank(i), i))


def bot_confirmation(records: pl.DataFrame, study: Study) -> dict:
    """The chosen weights on new deals: the challenger's share against the baseline with the ladder's interval."""
    ladder = measure(records, [study.baseline, study.challenger], study.game, study.players)
    pair, challenger = ladder.pairs[0], ladder.ratings[1]  # ratings: the baseline at 0
    verdict = "better" if pair.low > FAIR else "worse" if pair.high < FAIR else "undecided"
    return {"verdict": verdict, "challenger": study.challenger, "baseline": study.baseline, "share": pair.share,
            "low": pair.low, "high": pair.high, "pair_deals": pair.deals, "pair_games": pair.games,
            "elo": challenger.elo, "elo_low": challenger.low, "elo_high": challenger.high,
            "method": ladder.method, "describe": ladder.describe()}


def bot_tune_json(data: dict) -> dict:
    """The ``--json`` object of a bot-share tune: the chosen weights, the verdict, the share on new deals."""
    c = data["confirmation"]
    keys = ("candidate", "seed", "deals", "games", "disjoint", "challenger", "baseline", "share", "low", "high",
            "elo", "elo_low", "elo_high", "method")
    return {"best": data["best"]["set"], "best_id": data["best"]["id"], "verdict": c["verdict"],
            "share": c["share"], "low": c["low"], "high": c["high"], "games": data["games"],
            "confirmation": {k: c[k] for k in keys}, "survivors": data["survivors"], "dropped": data["dropped"],
            "search": data["path"]}


def format_bot_tune(data: dict, seconds: float | None = None) -> str:
    """The printed table of a bot-share tune: candidates looked at, the choice, its share on new deals."""
    from analysis.tune import candidate_rows

    study, c = data["study"], data["confirmation"]
    rows = candidate_rows(data)
    width = max(len("candidate"), *(len(r["candidate"]) for r in rows))
    lines = [f"{'candidate':<{width}}  {'deals':>7}  {study['challenger'] + ' share [conf. seq.]':<30}  status"]
    for r in rows:
        share = f"{_pct(r['share'])} [{_pct(r['low'])}, {_pct(r['high'])}]"
        lines.append(f"{r['candidate']:<{width}}  {r['deals']:>7,}  {share:<30}  {r['status']}")
    lines.append("")
    lines.append(f"best: {data['best']['id']} (of {len(data['candidates'])} candidates, {len(data['survivors'])} "
                 f"survived the search; stopped: {data.get('stopped', 'the search ended')})")
    lines.append(f"confirmation on {c['deals']:,} new deals (seed {c['seed']}, none shared with the search): "
                 f"{c['challenger']} beats {c['baseline']} {_pct(c['share'])} [{_pct(c['low'])}, "
                 f"{_pct(c['high'])}] ({c['pair_games']:,} games; 95% t interval over deals)")
    meaning = {"better": f"the interval lies above 50%: {data['best']['id']} is shown to beat {c['baseline']}",
               "worse": f"the interval lies below 50%: {data['best']['id']} is shown to lose to {c['baseline']}",
               "undecided": "the interval contains 50%: not shown better or worse"}[c["verdict"]]
    lines.append(f"verdict: {c['verdict']}: {meaning}")
    g = data["games"]
    spent = f"games: {g['search']:,} searching (budget {study['budget']:,}) + {g['confirm']:,} confirming = {g['total']:,}"
    lines.append(spent + (f"; {seconds:.1f} s" if seconds is not None else ""))
    return "\n".join(lines)


__all__ = ["BOT_DELTA", "BotShareSearch", "ShareLook", "bot_confirmation",
           "bot_share_lineup", "bot_tune_json", "check_baseline", "format_bot_tune", "share_look"]
