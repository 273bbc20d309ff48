"""Verdicts a designer reads: game length by the share of games inside the target band, stalls and blocked
games named wherever a verdict or headline is said, long-tail length figures cut and captioned. Synthetic
records with known answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analysis import plots, stats
from analysis.report.run import _analyse, run_flags
from analysis.summary import format_summary, summarize

BAND = [16, 40]


def games(turns: list[int], ends: list[str] | None = None, rotations: int = 1, winner=None) -> pl.DataFrame:
    """Two-seat records, one game per entry of ``turns``, ``rotations`` games a deal; seat ``winner(g)`` wins
    (default: alternating with a tie every seventh game); a ``stall`` end has no ranks."""
    ends = ends or ["goal"] * len(turns)
    rows = []
    for g, (t, end) in enumerate(zip(turns, ends)):
        first = (g % 2) if winner is None else winner(g)
        tied = winner is None and g % 7 == 3
        for seat in range(2):
            win = end != "stall" and (tied or seat == first)
            rank = None if end == "stall" else (1 if win else 2)
            rows.append({"game": g, "deal": g // rotations, "rotation": g % rotations, "seed": g // rotations,
                         "seat": seat, "bot": "greedy", "score": float(win), "rank": rank, "win": win, "tie": tied,
                         "turns": t, "end": end})
    return pl.DataFrame(rows, schema_overrides={"rank": pl.Int8})


def _run_flags(records: pl.DataFrame) -> list:
    manifest = {"game": "toy", "players": 2, "bots": ["greedy", "greedy"], "rotations": 1,
                "config": {"report": {"target_turns": BAND}, "limits": {"max_turns": 500}}}
    return run_flags(_analyse(Path("synthetic"), manifest, records, None, 0.025))


def test_a_median_inside_the_band_is_not_ok_when_most_games_lie_outside_it():
    """The median is 32 turns, inside 16-40, but only 32% of the games are inside: the old flag said OK."""
    turns = [32] * 320 + [10] * 340 + [60] * 340
    flag = next(f for f in _run_flags(games(turns)) if "ame length" in f.title or "Typical game" in f.title)
    assert flag.level == "warn" and "only 32.0%" in flag.title and "the target needs 75%" in flag.title
    assert not flag.title.startswith("Typical game")  # the old title: "Typical game 32 turns (median), inside"
    ok = next(f for f in _run_flags(games([30] * 900 + [60] * 100)) if "ame length" in f.title)
    assert ok.level == "ok" and "90.0%" in ok.title


def test_the_band_share_is_by_deal_when_deals_hold_several_games():
    """52% of the games shorter than the band, one short game in most deals of two: 48% inside, not ok."""
    turns = [t for deal in range(400) for t in ((10, 10) if deal < 16 else (10, 20))]
    share = stats.band_share(games(turns, rotations=2), (16, 40))
    assert share.verdict == "outside" and share.unit == "deals" and share.units == 400
    assert share.share.rate == pytest.approx(0.48) and "by deal" in share.share.method
    assert share.p_outside < 0.001 and share.required == 0.75
    assert stats.band_share(games(turns, rotations=2), (16, 40), required=0.4).verdict == "inside"


def test_stalls_and_blocked_games_are_named_in_the_headline_the_summary_and_the_flags():
    ends = ["blocked"] * 25 + ["stall"] * 10 + ["goal"] * 965  # 2.5% blocked, 1.0% stalled
    records = games([30] * 1000, ends, winner=lambda g: 0 if g % 5 else 1)
    summary = summarize(records)
    assert "blocked 2.5%" in summary.headline and "stalls 1.0%" in summary.headline
    assert summarize(records.lazy()).headline == summary.headline  # glade play streams its records
    assert "blocked games (no seat could move; scored) counted" in summary.headline
    text = format_summary(summary)
    assert "warning: 3.5% of 1,000 games stalled (the turn cap, no result) or ended blocked" in text
    # a blocked game has its ranks: it counts like any decided game (the shares leave the stalls out only)
    advantage = stats.seat_advantage(records)
    assert advantage.blocked == 25 and advantage.stalls == 10 and advantage.games_tested == 990
    flag = next(f for f in _run_flags(records) if "stall" in f.title.lower())
    assert flag.level == "warn" and "blocked 2.5%" in flag.title and "stalls 1.0%" in flag.title
    quiet = summarize(games([30] * 1000, ["blocked"] * 5 + ["goal"] * 995))
    assert "warning" not in format_summary(quiet) and "blocked 0.5%" in quiet.headline


def test_unfinished_games_against_a_limit_by_game_and_by_deal():
    over = stats.unfinished(games([30] * 1000, ["blocked"] * 30 + ["goal"] * 970))
    assert over.verdict == "over" and over.blocked.rate == 0.03 and over.stalls.rate == 0
    within = stats.unfinished(games([30] * 1000, ["stall"] * 2 + ["goal"] * 998))
    assert within.verdict == "within"
    few = stats.unfinished(games([30] * 200))
    assert few.verdict == "undecided"  # 0 of 200: an upper bound of 1.5% does not show "at most 1%"
    by_deal = stats.unfinished(games([30] * 2000, ["stall"] * 40 + ["goal"] * 1960, rotations=2))
    assert "deals" in by_deal.test and by_deal.either.rate == 0.02 and by_deal.verdict == "over"


def test_a_long_tail_cuts_the_length_axis_and_the_caption_says_so():
    histogram = pl.DataFrame({"turns": [20, 30, 40, 500], "games": [300, 400, 290, 10]})
    cap = plots.length_cap(histogram)
    assert cap == 40
    note = plots.length_cap_note(cap, histogram)
    assert "cut at 40 turns" in note and "1.0% of the games are longer, up to 500" in note
    figure = plots.game_length(histogram, (16, 40), 30, 20, 40)
    assert figure.axes[0].get_xlim()[1] < 50
    assert plots.length_cap(pl.DataFrame({"turns": [20, 30], "games": [5, 5]})) is None
    stalled = pl.DataFrame({"turns": [20, 30, 40, 500], "games": [300, 400, 270, 30]})  # 3% stalls at the cap
    assert plots.length_cap(stalled) is None  # the 99th percentile is the cap itself
    assert plots.length_cap(stalled, turn_cap=500) == 40
    records = games([30] * 970 + [80] * 5 + [500] * 25, ["goal"] * 975 + ["stall"] * 25)  # 2.5% stall at 500
    manifest = {"game": "toy", "players": 2, "bots": ["greedy", "greedy"], "rotations": 1,
                "config": {"report": {"target_turns": BAND}, "limits": {"max_turns": 500}}}
    from analysis.report.run import _length_section

    section = _length_section(_analyse(Path("synthetic"), manifest, records, None, 0.025))
    plot = next(b for b in section.blocks if getattr(b, "id", "") == "game-length")
    assert "The turns axis is cut at 40 turns" in plot.caption and "3.0% of the games are longer, up to 500" \
        in plot.caption  # the band's end: the 99th percentile of the finished games is 30
    np.testing.assert_array_less(plot.figure.axes[0].get_xlim()[1], 60)


def test_a_sweep_says_ok_for_length_only_when_every_cell_holds_the_share():
    from types import SimpleNamespace

    from analysis.report.sweep import length_flags

    def cell(name: str, turns: list[int], ends: list[str] | None = None) -> SimpleNamespace:
        records = games(turns, ends)
        return SimpleNamespace(id=name, band=stats.band_share(records, (16, 40)), unfinished=stats.unfinished(records))

    wide = cell("wide", [32] * 320 + [10] * 340 + [60] * 340)  # median 32 inside, 32% of games inside
    good = cell("good", [30] * 900 + [60] * 100, ["blocked"] * 20 + ["goal"] * 980)
    flags = length_flags([good, wide])
    titles = [f.title for f in flags]
    assert any(t.startswith("Game length off target in 1 of 2 cells") for t in titles)
    assert not any(t.startswith("Every cell") for t in titles)
    stall = next(f for f in flags if "stall" in f.title)
    assert "good: stalls 0.00%" in stall.evidence and "blocked 2.00%" in stall.evidence
    assert [f.level for f in length_flags([good])] == ["warn", "ok"]
