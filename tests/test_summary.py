"""The summary table: counts, Wilson intervals from statsmodels, game length, end reasons."""

from __future__ import annotations

import polars as pl
import pytest
from statsmodels.stats.proportion import proportion_confint

from analysis.summary import format_summary, summarize


@pytest.fixture
def records():
    # Four 2-seat games: seat 0 wins, seat 1 wins, a shared first place, a stall.
    return pl.DataFrame({
        "game": [0, 0, 1, 1, 2, 2, 3, 3],
        "seat": [0, 1] * 4,
        "bot": ["greedy", "random", "random", "greedy", "greedy", "random", "random", "greedy"],
        "score": [10.0, 4.0, 3.0, 9.0, 7.0, 7.0, 1.0, 2.0],
        "rank": [1, 2, 2, 1, 1, 1, None, None],
        "win": [True, False, False, True, True, True, False, False],
        "tie": [False, False, False, False, True, True, False, False],
        "turns": [10, 10, 20, 20, 30, 30, 40, 40],
        "end": ["goal", "goal", "goal", "goal", "goal", "goal", "stall", "stall"],
    }, schema_overrides={"seat": pl.Int8, "rank": pl.Int8})


def test_summary_counts(records):
    summary = summarize(records)
    assert summary.games == 4 and summary.players == 2
    seat0 = summary.by_seat.row(0, named=True)
    assert (seat0["games"], seat0["wins"], seat0["ties"], seat0["stalls"]) == (4, 2, 1, 1)
    low, high = proportion_confint(2, 4, alpha=0.05, method="wilson")
    assert (seat0["win_low"], seat0["win_high"]) == pytest.approx((low, high))
    greedy = summary.by_bot.filter(pl.col("bot") == "greedy").row(0, named=True)
    assert (greedy["wins"], greedy["mean_score"]) == (3, pytest.approx(7.0))
    assert summary.turns["mean"] == 25 and summary.turns["median"] == 25
    assert summary.ends.rows() == [("goal", 3, 0.75), ("stall", 1, 0.25)]


def test_summary_text_is_fishtest_style(records):
    text = format_summary(summarize(records), "toy", games_per_second=1234.0, seconds=2.0, played=2468)
    assert "random  first places 25.0% [4.6, 69.9] (Wilson 95%)  n = 4  ties 25.0%" in text
    assert text.splitlines()[2].startswith("headline: seat balance between equal players: not measured")
    assert "end    goal 75.0% (3), stall 25.0% (1)" in text
    assert "2,468 games in 2.00 s: 1,234 games/s" in text


def test_a_blocked_game_is_a_decided_game_named_among_the_ends(records):
    # a game that ended with nobody able to move is scored: its ranks count, only the stall is left out
    blocked = records.with_columns(pl.when(pl.col("game") == 1).then(pl.lit("blocked")).otherwise(pl.col("end"))
                                   .alias("end"))
    summary = summarize(blocked)
    seat0 = summary.by_seat.row(0, named=True)
    assert (seat0["games"], seat0["wins"], seat0["ties"], seat0["stalls"]) == (4, 2, 1, 1)
    assert summary.ends.rows() == [("goal", 2, 0.5), ("blocked", 1, 0.25), ("stall", 1, 0.25)]
    assert "end    goal 50.0% (2), blocked 25.0% (1), stall 25.0% (1)" in format_summary(summary, "toy")
