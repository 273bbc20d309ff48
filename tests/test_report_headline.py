"""One headline on seat balance: ``glade play``'s summary, ``glade report``'s terminal line and the report say it alike.

Synthetic records with ties, where the old terminal figure (first places,
shared ones counted as wins, over all games) and the share of decided games
differ: 100 games, seat 0 wins 60 alone, seat 1 wins 25 alone, 15 are shared.
The old figure was 75.0%; the headline is 60 / 85 = 70.6%.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import polars as pl

import analysis.stats as S
import pytest

from analysis import report as rp
from analysis.report.run import _analyse, _headline, _seat_flags, _seat_section, _verdict_flag
from analysis.summary import format_summary, seat_headline, summarize
from analysis import stats


def tied_records(solo0: int = 60, solo1: int = 25, shared: int = 15, players: int = 2) -> pl.DataFrame:
    rows = []
    outcomes = [0] * solo0 + [1] * solo1 + [-1] * shared  # the sole winner, -1: a shared first place
    for game, winner in enumerate(outcomes):
        for seat in range(players):
            first = winner in (-1, seat) if seat < 2 else False
            rows.append(dict(game=game, deal=game, seat=seat, bot="greedy", score=10.0 if first else 5.0,
                             rank=1 if first else 2, win=first, tie=winner == -1 and seat < 2, turns=20, end="goal"))
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8, "rank": pl.Int8})


def test_the_headline_counts_decided_games_and_shows_ties_beside():
    records = tied_records()
    text = seat_headline(stats.seat_advantage(records))
    assert text.startswith("seat 0 wins 70.6% [")  # 60 of 85 decided games, not 75 of 100
    assert "of decided games (Wilson 95%, n = 85 games)" in text
    assert "ties 15.0% and stalls 0.0% of 100 games, neither counted" in text
    old = records.filter(pl.col("seat") == 0)["win"].mean()
    assert old == pytest.approx(0.75)  # the figure the terminal used to print


def test_play_summary_and_the_run_report_say_the_same_headline():
    records = tied_records()
    summary = summarize(records, players=2)
    printed = format_summary(summary, "toy")
    lines = printed.splitlines()
    assert lines[2] == f"headline: {summary.headline}"
    assert "  seat 0  share 70.6% [" in printed and "  seat 1  share 29.4% [" in printed
    assert "75.0%" not in printed  # the ties-as-wins figure of seat 0 is gone from the seat lines
    manifest = {"game": "overgrowth", "players": 2, "bots": ["greedy", "greedy"], "rotations": 1}
    a = _analyse(Path("synthetic"), manifest, records, None, 0.025)
    assert _headline(a) == summary.headline
    seats = _seat_section(a)
    assert _verdict_flag(a.advantage).evidence.startswith(summary.headline)  # said in the Summary
    assert seats.blocks[0].text.startswith("Seat balance: unbalanced, seat 0 wins more than its fair share: the headline and its evidence (the "
                                           "equivalence test, the effect size, why balance cannot be shown yet) are "
                                           "the Summary's first finding")  # referred to in Seats
    assert all("seat 0 wins" not in line for b in seats.blocks for line in getattr(b, "items", []))


def test_a_three_player_report_says_the_headline_once():
    """The headline's per-seat figures, e.g. seat 0's "34.0% [", once in the Summary and once in the Seats table,
    not again in the Seats section's lead and lines; the per-seat equivalence p is a table column."""
    records = tied_records(solo0=50, solo1=40, shared=10, players=3)
    manifest = {"game": "overgrowth", "players": 3, "bots": ["greedy"] * 3, "rotations": 1}
    a = _analyse(Path("synthetic"), manifest, records, None, 0.025)
    share = f"{100 * (50 + 10 / 2) / 100:.1f}% ["
    flag = _verdict_flag(a.advantage)
    seats = _seat_section(a)
    table = next(b for b in seats.blocks if hasattr(b, "rows"))
    texts = [b.text for b in seats.blocks if hasattr(b, "text")] + [i for b in seats.blocks for i in getattr(b, "items", [])]
    assert share in flag.evidence and not any(share in t for t in texts)
    assert table.rows[0][5] == "55.0%" and table.columns[7].name == "Equivalence p (\u00b12.5 points)"
    assert re.fullmatch(r"< 0\.001|[01]\.\d{3}", table.rows[0][7])


def rendered_text(sections: list) -> str:
    """The words of ``sections`` as the HTML shows them (tags and figures left out)."""
    page = rp.render_html(rp.Report("run", "t", "", sections, ""))
    body = re.sub(r"<img[^>]*>", " ", page.split("<body", 1)[1])
    return html.unescape(re.sub(r"<[^>]+>", "\n", body))


@pytest.mark.parametrize("outcomes, verdict", [
    ({}, "unbalanced"),
    (dict(solo0=50, solo1=40, shared=10, players=3), "unbalanced"),
    (dict(solo0=48, solo1=45, shared=7), "not enough games yet"),
])
def test_the_summary_and_the_seats_section_say_each_sentence_once(outcomes, verdict):
    """The seat-balance finding (headline, design, equivalence, effect size, why balance cannot be shown or the
    games still needed) is said in the Summary; the Seats section refers to it and repeats none of its
    sentences (rendered HTML, split at sentence and clause ends)."""
    players = outcomes.get("players", 2)
    manifest = {"game": "overgrowth", "players": players, "bots": ["greedy"] * players, "rotations": 1}
    a = _analyse(Path("synthetic"), manifest, tied_records(**outcomes), None, 0.025)
    assert a.advantage.verdict == verdict
    text = rendered_text([rp.Section("summary", "Summary", [rp.Flags([_verdict_flag(a.advantage), *_seat_flags(a)])]),
                          _seat_section(a)])
    pieces = [p.strip() for p in re.split(r"(?<=[.;])\s+|\n", text) if len(p.strip()) >= 30]
    repeated = {p for p in pieces if pieces.count(p) > 1}
    assert not repeated
    for row in a.advantage.seats.to_dicts():  # each seat's share with its interval: said once, in the headline
        share = f"{100 * row['share']:.1f}% [{100 * row['share_low']:.1f}, {100 * row['share_high']:.1f}]"
        assert text.count(share) == (row["seat"] == 0 or players > 2)  # the 2-player headline names seat 0
    if players == 2:  # the one seat test is the headline's: no second finding, the direction in the verdict's title
        assert not _seat_flags(a)
        assert ("Seat balance: unbalanced, seat 0 wins more than its fair share." in text) == (verdict == "unbalanced")
    assert text.count("effect size: Cohen's h") == 1 and text.count("ties and stalls counted as the headline") == 2
    assert text.count("cannot be shown while") + text.count("more games for the equivalence test") == 1
    assert "the Summary's first finding" in text and "the effect size" in text


def test_three_players_share_first_places_and_show_shared_ones():
    records = tied_records(solo0=50, solo1=30, shared=20, players=3)
    summary = summarize(records)
    assert summary.headline.startswith("seat shares of first places (a shared first place split between its seats): "
                                       "seat 0 60.0% [")  # (50 + 20 / 2) / 100
    assert "seat 2 0.0% [" in summary.headline
    assert "shared first places 20.0% and stalls 0.0% of 100 games, stalls not counted" in summary.headline


def test_a_solitaire_summary_says_the_player_win_rate():
    records = tied_records().filter(pl.col("seat") == 0)
    summary = summarize(records)
    assert summary.headline.startswith("the player wins 75.0% [") and summary.shares is None
    assert "seat 0  first places 75.0%" in format_summary(summary)


def test_the_sweep_cell_table_shows_each_cells_headline_share():
    from analysis.sweep import cell_frame, cell_row, format_cell_table

    records, solo = tied_records(), tied_records().filter(pl.col("seat") == 0)
    advantage = stats.seat_advantage(records)
    rows = [cell_row("tied", "goal 12", True, 2, seat_headline(advantage), advantage, None, 100, 20.0, 0.0),
            cell_row("alone", "alone", False, 1, "", None, stats.proportion(int(solo["win"].sum()), 100), 100, 20.0,
                     0.0),
            {"cell": "later", "title": "later", "baseline": False, "games": 0, "players": 2}]
    table = cell_frame(rows)
    assert table["seat0_share"][0] == pytest.approx(60 / 85) and table["counted"][0] == "decided games"
    text = format_cell_table(table)
    lines = text.splitlines()
    assert lines[1].startswith("goal 12 *") and " 70.6% [" in lines[1] and "75.0%" not in lines[1]
    assert " 75.0% [" in lines[2]  # the solitaire cell: the player's win rate over all games
    assert lines[3].split() == ["later", "0", "(not", "played)"]
    assert "the headline's (glade play, glade report), of decided games; games (solitaire)" in text
    assert "interval: Wilson 95%" in text


def test_the_convergence_figure_draws_the_headline_share_over_the_first_deals():
    from analysis.report.methods import running_headline

    records = tied_records()  # deals 0-59: seat 0 wins alone, 60-84: seat 1, 85-99: shared
    games, share, low, high = running_headline(records, points=8, start=20)
    assert games[0] == 20 and share[0] == 1.0 and games[-1] == 100
    assert share[-1] == pytest.approx(60 / 85)  # the ties of deals 85-99 are not counted, as in the headline
    assert np.all(low <= share) and np.all(share <= high + 1e-12) and np.all(np.diff(games) > 0)
    manifest = {"game": "overgrowth", "players": 2, "bots": ["greedy", "greedy"], "rotations": 1}
    seats = _seat_section(_analyse(Path("synthetic"), manifest, records, None, 0.025))
    plot = next(b for b in seats.blocks if getattr(b, "id", "") == "convergence")
    line = plot.figure.axes[0].lines[0].get_ydata()
    assert line[-1] == pytest.approx(60 / 85) and "share of decided games" in plot.caption


def test_a_lineup_that_cannot_measure_seats_gets_a_note_not_empty_figures():
    rows = []
    for deal in range(30):  # greedy wins every game, in either seat: seat balance is not measured
        for rotation in range(2):
            for seat in range(2):
                bot = "greedy" if (seat + rotation) % 2 == 0 else "random"
                rows.append(dict(game=2 * deal + rotation, deal=deal, rotation=rotation, seat=seat, bot=bot,
                                 score=9.0 if bot == "greedy" else 1.0, rank=1 if bot == "greedy" else 2,
                                 win=bot == "greedy", tie=False, turns=20, end="goal"))
    records = pl.DataFrame(rows, schema_overrides={"seat": pl.Int8, "rank": pl.Int8})
    manifest = {"game": "overgrowth", "players": 2, "bots": ["greedy", "random"], "rotations": 2}
    a = _analyse(Path("synthetic"), manifest, records, None, 0.025)
    seats = _seat_section(a)
    assert a.advantage.verdict == S.VERDICT_NOT_MEASURED
    # The figures show this lineup's seat shares, and say whose they are.
    plot = next(b for b in seats.blocks if getattr(b, "id", "") == "convergence")
    assert "of this lineup" in plot.caption
    evidence = _verdict_flag(a.advantage).evidence  # why it is not measured: said once (it was said three times)
    assert "play greedy,greedy to measure it" in evidence and "not what equal players get" in evidence
    text = rendered_text([rp.Section("summary", "Summary", [rp.Flags([_verdict_flag(a.advantage), *_seat_flags(a)])]),
                          seats])
    assert text.count("greedy takes 100.0% of its decided comparisons") == 1


def _cell(name: str, records: pl.DataFrame, baseline: bool = False):
    from analysis.report.sweep import CellAnalysis

    records = records.with_columns(pl.lit(0).alias("rotation"))
    return CellAnalysis(name, {"rule": name}, baseline, records, {}, None, None, None, float("nan"), float("nan"),
                        float("nan"), 0, 2)


def test_the_sweep_pairs_seat_0s_share_as_the_headline_counts_it():
    """Base: seat 0 alone first in 60 deals, seat 1 in 25, 15 shared. The cell turns the 15 shared first places
    into seat 0's and stalls one of seat 1's deals (every row of it unranked). Each cell's share is its headline's,
    of decided games: 60 / 85 = 70.6% in the base, 75 / 99 = 75.8% in the cell, so the paired change is +5.2
    points, the very figures of the cells table. The 15 deals tied in the base count in the cell's share only, so
    no deal is dropped; counting ties as wins saw no change on them, and pairing only the deals decided in both
    cells would drop them all."""
    from analysis.report.sweep import _paired_change, _sweep_section_paired

    base = tied_records()
    shared, stalled = pl.col("game") >= 85, pl.col("game") == 60  # deal 60: seat 1 alone first in the base
    cell = base.with_columns(pl.when(shared).then(pl.col("seat") == 0).when(stalled).then(False)
                             .otherwise(pl.col("win")).alias("win"),
                             pl.when(stalled).then(None).when(shared).then(pl.col("seat") + 1)
                             .otherwise(pl.col("rank")).cast(pl.Int8).alias("rank"),
                             pl.lit(False).alias("tie"))
    cells = [_cell("base", base, baseline=True), _cell("other", cell)]
    change = _paired_change(cells[1], cells[0], cells)["win_change"]
    assert change.pairs == 100 and change.metric == "seat share"
    assert change.base_mean == pytest.approx(60 / 85) == stats.seat_advantage(base).seats["share"][0]
    assert change.other_mean == pytest.approx(75 / 99) == stats.seat_advantage(cell).seats["share"][0]
    assert change.difference == pytest.approx(75 / 99 - 60 / 85)
    assert change.mean.low < change.difference < change.mean.high and change.p_value < 0.01
    old = stats.paired_difference(base.filter(pl.col("seat") == 0), cell.filter(pl.col("seat") == 0), "win",
                                  key=("deal", "seat"))
    assert old.difference == pytest.approx(0.0)  # ties as wins: the 15 tied deals looked unchanged
    from dataclasses import replace

    paired = _sweep_section_paired(None, [cells[0], replace(cells[1], **_paired_change(cells[1], cells[0], cells))])
    table = next(b for b in paired.blocks if hasattr(b, "rows"))
    assert table.rows[0][:4] == ["other", "100", "70.6% \u2192 75.8%", "+5.2"]
    assert "the same figures as the cells table" in table.caption
