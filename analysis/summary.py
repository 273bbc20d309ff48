"""The first look at a run: win rates per seat and per bot, game length, end reasons.

:func:`summarize` returns data (polars DataFrames and dicts); :func:`format_summary`
writes it as a fishtest-style text table::

    seat 0  wins 53.1% [52.4, 53.8] (Wilson 95%)  n = 20,000  ties 0.1%  stalls 0.0%  score 12.30

Wins count first places, shared ones included (``win`` in the records); a
stall has no first place. Intervals are Wilson 95% from statsmodels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from statsmodels.stats.proportion import proportion_confint

from analysis.report.text import _ci, _int, _num, _pct

CONFIDENCE = 0.95


@dataclass
class Summary:
    games: int
    players: int
    by_seat: pl.DataFrame  # seat, games, wins, win_rate, win_low, win_high, ties, tie_rate, stalls, stall_rate, mean_score
    by_bot: pl.DataFrame  # the same with bot instead of seat; games counts seat-games
    turns: dict[str, float]  # mean, min, q1, median, q3, max
    ends: pl.DataFrame  # end, games, share

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "players": self.players,
            "by_seat": self.by_seat.to_dicts(),
            "by_bot": self.by_bot.to_dicts(),
            "turns": self.turns,
            "ends": self.ends.to_dicts(),
        }


def _rates(records: pl.LazyFrame, key: str) -> pl.DataFrame:
    table = (
        records.group_by(key)
        .agg(
            pl.len().alias("games"),
            pl.col("win").sum().alias("wins"),
            pl.col("tie").sum().alias("ties"),
            pl.col("rank").is_null().sum().alias("stalls"),
            pl.col("score").mean().alias("mean_score"),
        )
        .sort(key)
        .collect(engine="streaming")
    )
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


def summarize(records: pl.DataFrame | pl.LazyFrame) -> Summary:
    """Per seat and per bot rates, game length and end reasons of a records table.

    A lazy frame (``sims.records.scan_records``) is aggregated in streaming
    fashion, so memory stays flat however many games the run holds.
    """
    records = records.lazy()
    per_game = records.filter(pl.col("seat") == 0).select("turns", "end")
    turns = per_game.select(
        pl.len().alias("games"),
        pl.col("turns").cast(pl.Float64).mean().alias("mean"),
        pl.col("turns").min().cast(pl.Float64).alias("min"),
        pl.col("turns").cast(pl.Float64).quantile(0.25, interpolation="linear").alias("q1"),
        pl.col("turns").cast(pl.Float64).median().alias("median"),
        pl.col("turns").cast(pl.Float64).quantile(0.75, interpolation="linear").alias("q3"),
        pl.col("turns").max().cast(pl.Float64).alias("max"),
    ).collect(engine="streaming").row(0, named=True)
    games = int(turns.pop("games"))
    ends = (
        per_game.group_by("end").agg(pl.len().alias("games"))
        .with_columns((pl.col("games") / games).alias("share"))
        .sort(["games", "end"], descending=[True, False])
        .collect(engine="streaming")
    )
    players = records.select(pl.col("seat").max()).collect().item() + 1
    return Summary(
        games=games,
        players=int(players),
        by_seat=_rates(records, "seat"),
        by_bot=_rates(records, "bot"),
        turns={k: float(v) for k, v in turns.items()},
        ends=ends,
    )


def _line(label: str, row: dict) -> str:
    return (
        f"{label}  wins {_pct(row['win_rate'])} {_ci(row['win_low'], row['win_high'])} "
        f"(Wilson 95%)  n = {_int(row['games'])}  ties {_pct(row['tie_rate'])}  "
        f"stalls {_pct(row['stall_rate'])}  score {_num(row['mean_score'])}"
    )


def format_summary(summary: Summary, title: str | None = None, games_per_second: float | None = None,
                   seconds: float | None = None, played: int | None = None, manifest: dict | None = None) -> str:
    """A readable text table of :func:`summarize`'s result.

    With the run's ``manifest``, it also says when seat rotation was
    collapsed (the same bot in every seat) and how ``--until-ci`` chose the
    run's size (its ``stopping`` record: rule, looks, outcome).
    """
    lines = [title] if title else []
    lines.append(f"{summary.games:,} games, {summary.players} players")
    lines.append("by seat (wins: first places, a shared first place counted for each tied seat; the report's "
                 "headline counts shares of decided games)")
    for row in summary.by_seat.to_dicts():
        lines.append("  " + _line(f"seat {row['seat']}", row))
    lines.append("by bot")
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
    if int(manifest.get("rotations", 1)) > 1:
        notes.append("note: the seat rates above pool every lineup and count games; the rotated games of a deal are "
                     "not independent. For seat balance between equal players, by deal: glade report")
    if manifest.get("stopping"):
        from analysis.stopping import describe_stopping

        notes.append(describe_stopping(manifest["stopping"], manifest.get("games")))
    return notes
