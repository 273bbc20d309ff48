"""The first look at a run: the seat headline, rates per seat and per bot, game length, end reasons.

:func:`summarize` returns data (polars DataFrames and dicts); :func:`format_summary`
writes it as a fishtest-style text table::

    headline: seat 0 wins 53.1% [52.4, 53.8] of decided games (Wilson 95%, n = 19,980 games), binomial ...
    seat 0  share 53.1% [52.4, 53.8] of decided games  n = 19,980  ties 0.1%  stalls 0.0%  score 12.30

The headline is :func:`seat_headline`, the same sentence the run report
(``glade report``) puts at the top of its Seats section and prints on the
terminal: seat 0's share of the decided games with 2 players (ties and stalls
shown beside it, not counted), each seat's share of first places with 3-4 (a
shared first place split between its seats), between equal players when the
bots differ and seats rotate (``analysis.stats.seat_advantage``). The bot
lines count first places, shared ones included (``win`` in the records), over
all of a bot's seat-games. Intervals are Wilson 95% from statsmodels unless
the headline names another.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from statsmodels.stats.proportion import proportion_confint

from analysis import stats
from analysis.report.text import _ci, _int, _num, _pct, format_p

CONFIDENCE = 0.95
DELTA = 0.025  # the balance margin of the headline's equivalence test (glade report --delta)


@dataclass
class Summary:
    games: int
    players: int
    by_seat: pl.DataFrame  # seat, games, wins, win_rate, win_low, win_high, ties, tie_rate, stalls, stall_rate, mean_score
    by_bot: pl.DataFrame  # the same with bot instead of seat; games counts seat-games
    turns: dict[str, float]  # mean, min, q1, median, q3, max
    ends: pl.DataFrame  # end, games, share
    headline: str = ""  # seat_headline: the run report's headline, word for word
    shares: pl.DataFrame | None = None  # the headline's per-seat shares: seat, share, share_low, share_high

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "players": self.players,
            "headline": self.headline,
            "shares": self.shares.to_dicts() if self.shares is not None else None,
            "by_seat": self.by_seat.to_dicts(),
            "by_bot": self.by_bot.to_dicts(),
            "turns": self.turns,
            "ends": self.ends.to_dicts(),
        }


# ---------------------------------------------------------------- the headline


def shares_counted(advantage: stats.SeatAdvantage) -> str:
    """What the headline's shares are of, in words."""
    what = ("of decided games" if advantage.players == 2
            else "of first places (a shared first place split between its seats)")
    if advantage.estimand == stats.ESTIMAND_LINEUP:
        what += " of this lineup, each bot in every seat (not what equal players get)"
    return what


def _beside(advantage: stats.SeatAdvantage) -> str:
    """The ties and stalls, shown beside the shares (with 2 players neither is in them), and the blocked games
    when there are any (scored, so counted like the others)."""
    games = max(advantage.games, 1)
    ties = "ties" if advantage.players == 2 else "shared first places"
    counted = "neither counted" if advantage.players == 2 else "stalls not counted"
    if advantage.blocked:
        counted = ("ties and stalls not counted" if advantage.players == 2 else "stalls not counted") + \
            ", blocked games (no seat could move; scored) counted"
        return (f"{ties} {_pct(advantage.ties / games)}, stalls {_pct(advantage.stalls / games)} and blocked "
                f"{_pct(advantage.blocked / games)} of {advantage.games:,} games, {counted}")
    return (f"{ties} {_pct(advantage.ties / games)} and stalls {_pct(advantage.stalls / games)} of "
            f"{advantage.games:,} games, {counted}")


def unfinished_note(stalls: float, blocked: float, games: int, limit: float = stats.UNFINISHED_LIMIT) -> str:
    """A warning when more than ``limit`` of the games stalled or ended blocked ("" otherwise): the rates named."""
    if stalls + blocked <= limit:
        return ""
    return (f"warning: {_pct(stalls + blocked)} of {games:,} games stalled (the turn cap, no result) or ended "
            f"blocked (no seat could move): stalls {_pct(stalls)}, blocked {_pct(blocked)}, over "
            f"{100 * limit:g}%")


def _tested(advantage: stats.SeatAdvantage) -> str:
    if advantage.unit == "deals":
        return f"n = {advantage.units_tested:,} deals ({advantage.games_tested:,} games)"
    return f"n = {advantage.games_tested:,} games"


def seat_headline(advantage: stats.SeatAdvantage) -> str:
    """The run's headline on seat balance, one sentence: ``glade play``'s summary and ``glade report`` say it.

    With 2 players seat 0's share of the decided games (ties and stalls shown
    beside it, not counted); with 3-4 every seat's share of first places (a
    shared first place split between its seats); each with its interval, the
    difference test and the verdict of :func:`analysis.stats.seat_advantage`.

        >>> seat_headline(stats.seat_advantage(records))  # doctest: +SKIP
        'seat 0 wins 74.2% [72.3, 76.0] of decided games (Wilson 95%, n = 1,940 games); binomial p < 0.001 vs
        50%: unbalanced; ties 3.0% and stalls 0.0% of 2,000 games, neither counted'
    """
    a = advantage
    rows = a.seats.to_dicts()
    if not np.isfinite(a.seats["share"].to_numpy()).any():
        note = f" ({a.lineup_note})" if a.lineup_note else ""
        return f"seat balance between equal players: {a.verdict}{note}, {_tested(a)}; {_beside(a)}"
    method = f"({a.share_method}, {_tested(a)})"
    if a.design == stats.DESIGN_CONFOUNDED:
        seats = ", ".join(f"seat {r['seat']} {_pct(r['share'])} {_ci(r['share_low'], r['share_high'])}"
                          for r in rows)
        return (f"each seat's share {shares_counted(a)}, its fixed bot's too: {seats} {method}; "
                f"seat balance {a.verdict}; {_beside(a)}")
    each = "" if a.players == 2 else " each"
    test = f"{a.test_name} {format_p(a.p_value)} vs {_pct(1 / a.players)}{each}: {a.verdict}"
    if a.players == 2:
        seat0 = rows[0]
        return (f"seat 0 wins {_pct(seat0['share'])} {_ci(seat0['share_low'], seat0['share_high'])} "
                f"{shares_counted(a)} {method}; {test}; {_beside(a)}")
    seats = ", ".join(f"seat {r['seat']} {_pct(r['share'])} {_ci(r['share_low'], r['share_high'])}" for r in rows)
    return f"seat shares {shares_counted(a)}: {seats} {method}; {test}; {_beside(a)}"


def solo_headline(wins: stats.Proportion) -> str:
    """A one-player run's headline: the player's win rate over all games."""
    return f"the player wins {_pct(wins.rate)} {_ci(wins.low, wins.high)} of games (Wilson 95%, n = {wins.n:,} games)"


def headline(records: pl.DataFrame | pl.LazyFrame | Iterable[pl.DataFrame], players: int | None = None,
             delta: float = DELTA) -> tuple[str, stats.SeatAdvantage | None]:
    """:func:`seat_headline` (or :func:`solo_headline`) of a records table, and the seat analysis behind it.

    ``players`` (the manifest's) leaves out a game's own seats beyond them (a
    solo mode's opponent), as the run report does. A lazy frame, or blocks of
    whole deals, is tallied a block at a time (:func:`analysis.stats.seat_tally`),
    so the headline of a run of any size takes memory that does not grow with it.
    """
    return tally_headline(stats.seat_tally(records, players), delta)


def tally_headline(tally: stats.SeatTally, delta: float = DELTA) -> tuple[str, stats.SeatAdvantage | None]:
    """:func:`headline` of a run's :class:`~analysis.stats.SeatTally` (``sims.records`` read into it a block of
    deals at a time, as ``glade play``, ``glade report`` and ``glade sweep`` do)."""
    if tally.games == 0:
        return "no games", None
    if tally.players == 1:
        wins, games = next(iter(tally.bot_wins.values())) if len(tally.bot_wins) == 1 else (
            sum(w for w, _ in tally.bot_wins.values()), sum(g for _, g in tally.bot_wins.values()))
        return solo_headline(stats.proportion(int(wins), int(games))), None
    advantage = stats.seat_advantage(tally, delta=delta)
    return seat_headline(advantage), advantage


def _rates(counts: pl.DataFrame, key: str) -> pl.DataFrame:
    """Per ``key`` value: seat-games, first places, ties, stalls and mean score, from a tally's counts at each
    score (``analysis.stats.intervals.rate_counts``)."""
    table = counts.group_by(key).agg(
        pl.col("games").sum(), pl.col("wins").sum(), pl.col("ties").sum(), pl.col("stalls").sum(),
        ((pl.col("score") * pl.col("games")).sum() / pl.col("games").sum()).alias("mean_score")).sort(key)
    games, wins = table["games"].to_numpy(), table["wins"].to_numpy()
    low, high = proportion_confint(wins, games, alpha=1 - CONFIDENCE, method="wilson")
    return table.with_columns(
        (pl.col("wins") / pl.col("games")).alias("win_rate"),
        pl.Series("win_low", low, dtype=pl.Float64),
        pl.Series("win_high", high, dtype=pl.Float64),
        (pl.col("ties") / pl.col("games")).alias("tie_rate"),
        (pl.col("stalls") / pl.col("games")).alias("stall_rate"),
    ).select(key, "games", "wins", "win_rate", "win_low", "win_high", "ties", "tie_rate", "stalls", "stall_rate",
             "mean_score")


def summarize_run(out_dir: str | Path, players: int | None = None, delta: float = DELTA) -> Summary:
    """:func:`summarize` of a run directory, read a block of deals at a time (``analysis.run_tally.tally_run``):
    memory does not grow with the games."""
    from analysis.run_tally import tally_run

    return summary_of(tally_run(out_dir, players, points=0, all_seats=True), delta)


def summarize(records: pl.DataFrame | pl.LazyFrame, players: int | None = None, delta: float = DELTA) -> Summary:
    """The headline, per seat and per bot rates, game length and end reasons of a records table (a lazy frame is
    collected; a run directory is read a block of deals at a time by :func:`summarize_run`). ``players`` (the
    manifest's) keeps a game's own extra seats out of the headline; the tables show every seat."""
    from analysis.run_tally import tally_records

    frame = records.collect() if isinstance(records, pl.LazyFrame) else records
    return summary_of(tally_records(frame, players, points=0, all_seats=True), delta)


def summary_of(tally: Any, delta: float = DELTA) -> Summary:
    """The :class:`Summary` of a run's tallies (``analysis.run_tally.RunTally``)."""
    text, advantage = tally_headline(tally.seats, delta)
    outcomes = tally.outcomes
    turns, counts = outcomes.turn_values()
    games = int(counts.sum())
    deals = outcomes.distinct()
    ends = pl.DataFrame([(end, int((deals.ended(end) * deals.count).sum())) for end in outcomes.end_names()],
                        schema={"end": pl.String, "games": pl.UInt32}, orient="row")
    ends = (ends.with_columns((pl.col("games") / games).alias("share"))
            .sort(["games", "end"], descending=[True, False]))
    by_seat = _rates(outcomes.rate_table("seat"), "seat")
    return Summary(
        games=games,
        players=int(by_seat["seat"].max()) + 1,
        by_seat=by_seat,
        by_bot=_rates(outcomes.rate_table("bot"), "bot"),
        turns={"mean": float((turns * counts).sum() / games), "min": float(turns.min()),
               "q1": outcomes.quantile(0.25), "median": outcomes.quantile(0.5), "q3": outcomes.quantile(0.75),
               "max": float(turns.max())},
        ends=ends,
        headline=text,
        shares=advantage.seats.select("seat", "share", "share_low", "share_high") if advantage is not None else None,
    )


def _line(label: str, row: dict) -> str:
    return (
        f"{label}  first places {_pct(row['win_rate'])} {_ci(row['win_low'], row['win_high'])} "
        f"(Wilson 95%)  n = {_int(row['games'])}  ties {_pct(row['tie_rate'])}  "
        f"stalls {_pct(row['stall_rate'])}  score {_num(row['mean_score'])}"
    )


def _seat_lines(summary: Summary) -> list[str]:
    """One line per seat: the headline's share, then the seat's ties, stalls and mean score over all games."""
    if summary.shares is None:
        return ["by seat (first places over all games)"] + [
            "  " + _line(f"seat {row['seat']}", row) for row in summary.by_seat.to_dicts()]
    what = "share of decided games" if summary.players == 2 else "share of first places"
    shares = {row["seat"]: row for row in summary.shares.to_dicts()}
    lines = [f"by seat ({what}, as in the headline; ties, stalls and score over all games)"]
    for row in summary.by_seat.to_dicts():
        share = shares.get(row["seat"], {})
        interval = _ci(share.get("share_low"), share.get("share_high"))
        lines.append(f"  seat {row['seat']}  share {_pct(share.get('share'))}"
                     f"{'' if interval == 'n/a' else ' ' + interval}  ties {_pct(row['tie_rate'])}  "
                     f"stalls {_pct(row['stall_rate'])}  score {_num(row['mean_score'])}")
    return lines


def format_summary(summary: Summary, title: str | None = None, games_per_second: float | None = None,
                   seconds: float | None = None, played: int | None = None, manifest: dict | None = None) -> str:
    """A readable text table of :func:`summarize`'s result, the headline first.

    With the run's ``manifest``, it also says when seat rotation was
    collapsed (the same bot in every seat) and how ``--until-ci`` or ``--until-decided`` chose the
    run's size (its ``stopping`` record: rule, looks, outcome).
    """
    lines = [title] if title else []
    lines.append(f"{summary.games:,} games, {summary.players} players")
    if summary.headline:
        lines.append(f"headline: {summary.headline}")
    lines.extend(_seat_lines(summary))
    lines.append("by bot (first places over the bot's seat-games, a shared first place counted for each tied seat)")
    width = max(len(str(b)) for b in summary.by_bot["bot"])
    for row in summary.by_bot.to_dicts():
        lines.append("  " + _line(f"{row['bot']:<{width}}", row))
    t = summary.turns
    lines.append(
        f"turns  mean {t['mean']:.1f}, quartiles {t['q1']:g} / {t['median']:g} / {t['q3']:g} "
        f"(min {t['min']:g}, max {t['max']:g})"
    )
    lines.append("end    " + ", ".join(
        f"{row['end']} {_pct(row['share'])} ({_int(row['games'])})" for row in summary.ends.to_dicts()
    ))
    share = {row["end"]: row["share"] for row in summary.ends.to_dicts()}
    note = unfinished_note(share.get(stats.STALL, 0.0), share.get(stats.BLOCKED, 0.0), summary.games)
    if note:
        lines.insert(lines.index(f"headline: {summary.headline}") + 1 if summary.headline else 1, note)
    if played is not None:
        if played and games_per_second:
            lines.append(f"speed  {played:,} games in {seconds:.2f} s: {games_per_second:,.0f} games/s")
        else:
            lines.append("speed  nothing new to play: every game was already on disk")
    lines.extend(_manifest_notes(manifest or {}))
    return "\n".join(lines)


def _manifest_notes(manifest: dict) -> list[str]:
    """What a reader of the numbers above must know about how the run was played."""
    notes = []
    if manifest.get("rotations_collapsed"):
        notes.append(f"note: --rotate-seats played one rotation: {manifest['rotations_collapsed']}")
    if manifest.get("stopping"):
        from analysis.stopping import describe_stopping

        notes.append(describe_stopping(manifest["stopping"], manifest.get("games")))
    return notes
