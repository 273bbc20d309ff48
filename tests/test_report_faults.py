"""Small report faults a designer noticed, each pinned by a test: axis labels that say the wrong number, text
cut off at a figure's edge, sentences that explain an outcome wrongly."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
import polars as pl

from analysis import plots, stats
from analysis.report.tune import search_path_figure
from analysis.report.tune_bots import share_path_figure


def _labels(ax, axis: str = "x", minor: bool = False) -> dict[float, str]:
    """The drawn tick labels of ``axis`` inside the view, by tick value (after ``fig.canvas.draw()``)."""
    low, high = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    get = ax.get_xticklabels if axis == "x" else ax.get_yticklabels
    return {float(t.get_position()[0 if axis == "x" else 1]): t.get_text() for t in get(minor=minor)
            if low <= t.get_position()[0 if axis == "x" else 1] <= high and t.get_visible() and t.get_text()}


def _points(label: str) -> float:
    return float(label.replace("\u2212", "-").replace("+", ""))


def test_the_change_axis_of_a_sweep_labels_each_tick_with_its_own_value():
    """Ticks 0, 2.5, 5, 7.5 points were labelled +0, +2, +5, +8 (each rounded to a whole point)."""
    cells = ["a", "b", "c"]
    share = np.array([0.55, 0.6, 0.62])
    fig = plots.cell_balance(cells, share, share - 0.02, share + 0.02, 0.5, np.array([0.0, 0.037, 0.055]),
                             np.array([0.0, 0.0, 0.0275]), np.array([0.0, 0.055, 0.11]), "a")  # ticks 2.5 apart
    fig.canvas.draw()
    labels = _labels(fig.axes[1])
    assert len(labels) >= 3
    for value, label in labels.items():
        assert abs(_points(label) - 100 * value) < 1e-6, labels
    assert len(set(labels.values())) == len(labels)


def test_the_relative_share_axis_of_a_sweep_labels_each_tick_with_its_own_value():
    cells = ["a", "b"]
    fig = plots.cell_balance(cells, np.array([0.002, 0.006]), np.array([0.001, 0.005]), np.array([0.003, 0.008]), 0.0,
                             np.zeros(2), np.zeros(2), np.zeros(2), "a", relative=True)
    fig.canvas.draw()
    labels = _labels(fig.axes[0])
    assert len(labels) >= 3
    for value, label in labels.items():
        assert abs(_points(label) - 100 * value) < 1e-6, label


def test_a_convergence_axis_over_less_than_a_decade_reads_plain_numbers():
    """A log axis from 20 to 60 games labelled its minor ticks '2x10^1, 3x10^1'."""
    games = np.arange(2, 61, dtype=float)  # as running_headline gives 60 games: 2 to 60, a log axis
    rate = np.full(games.size, 0.55)
    fig = plots.convergence(games, rate, rate - 0.05, rate + 0.05, 0.5)
    fig.canvas.draw()
    ax = fig.axes[0]
    shown = list(_labels(ax).items()) + list(_labels(ax, minor=True).items())
    assert shown
    for value, label in shown:
        assert "10^" not in label and "times" not in label and "\u00d7" not in label, label
        assert float(label.replace(",", "")) == value


def test_the_length_axis_names_every_player_not_both():
    histogram = pl.DataFrame({"turns": [20, 21, 22], "games": [3, 5, 2]})
    for players, wanted in ((3, "all 3 players' turns"), (2, "both players' turns"), (1, "turns")):
        fig = plots.game_length(histogram, None, 21, 20, 22, players=players)
        label = fig.axes[0].get_xlabel()
        assert wanted in label and (players == 2 or "both" not in label), label


def _tune_rows(long: bool) -> list[dict]:
    names = (["setup.head_start_cells=edge-row3,rules.flowers=35,board=9x5,rules.overgrow_sides=1",
              "setup.head_start_cells=edge-row2,rules.flowers=40,board=9x5,rules.overgrow_sides=2"] if long
             else ["rules.flowers=25"] * 2)
    return [{"candidate": name, "deals": 16384, "share": [0.5 + 0.02 * i], "low": [0.48 + 0.02 * i],
             "high": [0.52 + 0.02 * i], "status": "best" if i == 0 else "dropped (race)"}
            for i, name in enumerate(names)]


def test_no_text_of_the_tune_figures_leaves_the_figure():
    """The search path's note ('... grey: dropped') ran past the figure's right edge: 'grey: d'."""
    for figure in (search_path_figure(_tune_rows(True), 0.5, 0.025),
                   share_path_figure([{**r, "share": r["share"][0], "low": r["low"][0], "high": r["high"][0],
                                       "candidate": "bots.greedy.production=" + "0.25" * 8}
                                      for r in _tune_rows(True)], "greedy", "greedy_v1")):
        assert plots.clipped_texts(figure) == []


def test_clipped_texts_finds_a_label_wider_than_its_figure():
    fig, axes = plots._figure(2.0, width=3.0)
    axes[0, 0].set_xlabel("a note far too long for a figure three inches wide, cut at its right edge: grey: dropped")
    clipped = plots.clipped_texts(fig)
    assert len(clipped) == 1 and clipped[0].startswith("a note far too long")


def _records(rows: list[dict]) -> pl.DataFrame:
    frame = pl.DataFrame(rows)
    return frame.with_columns(pl.col("game").alias("deal"), (pl.col("rank") == 1).alias("win"),
                              pl.lit(False).alias("tie"), pl.lit("goal").alias("end"), pl.lit("greedy").alias("bot"))


def test_a_win_at_equal_points_is_called_a_tie_break_not_a_goal():
    """Vorex breaks equal points by resources: 'the game ends on a goal, not on points' was wrong for it."""
    from analysis.report.run import won_not_on_points

    rows = []
    for g in range(10):  # games 0-2: seat 0 wins at equal points (a tie-break); the others it outscores seat 1
        rows += [dict(game=g, seat=0, score=7.0, rank=1, turns=20),
                 dict(game=g, seat=1, score=7.0 if g < 3 else 5.0, rank=2, turns=20)]
    margin = stats.score_margin(_records(rows))
    assert margin.tie_break.k == 3 and margin.fewer_points.k == 0 and margin.not_outscored.k == 3
    facts = won_not_on_points(margin)
    assert len(facts) == 1 and "tie-break" in facts[0][0] and "30.0%" in facts[0][1]
    assert "goal" not in " ".join(facts[0])
    rows[1]["score"] = 9.0  # game 0: seat 0 wins with fewer points than seat 1 (a goal)
    margin = stats.score_margin(_records(rows))
    assert margin.tie_break.k == 2 and margin.fewer_points.k == 1
    facts = won_not_on_points(margin)
    assert [k for k, _ in facts] == ["Won at equal points (a tie-break)", "Won with fewer points than second place"]
    assert "goal" in facts[1][1]


def test_tempo_reconciles_turns_per_seat_with_the_game_length():
    """Vorex at 3 players: 8.39 turns a seat (25.2 in all) beside a mean length of 28.2: the 3 setup turns are
    no move events, and the report said nothing of them."""
    from analysis.report.designer import _tempo_blocks
    from analysis.report.model import Table

    rows, events = [], []
    for g in range(6):  # 3 seats; turns 0-2 are setup (one a seat), then 9 + g % 2 move turns
        length = 3 + 9 + g % 2
        rows += [dict(game=g, seat=s, score=float(s == 0), rank=1 if s == 0 else 2, turns=length) for s in range(3)]
        events += [dict(game=g, turn=t, seat=t % 3, phase="setup" if t < 3 else "action") for t in range(length)]
    tempo = stats.tempo(_records(rows), pl.DataFrame(events), "turn", pl.col("phase") != "setup",
                        "events with phase other than setup")
    assert tempo.turns["mean"].sum() == pytest.approx(9.5)
    assert tempo.game_turns == pytest.approx(12.5) and tempo.other_turns == pytest.approx(3.0)

    class Designer:
        pass

    d = Designer()
    d.tempo = tempo
    caption = next(b.caption for b in _tempo_blocks(d) if isinstance(b, Table) and "Turns a seat" in b.caption)
    assert "9.50 a game" in caption and "12.5 turns" in caption and "3.00" in caption and "setup" in caption


def _one_figure_report(figure, caption: str = "A figure."):
    from analysis.report.model import Paragraph, Plot, Report, Section

    return Report("run", "Check", "a report of one figure", [
        Section("summary", "Summary", [Paragraph("One figure follows."), Plot("one", figure, caption)])], "today")


def _long_label_figure():
    fig, axes = plots._figure(2.0)
    axes[0, 0].set_yticks([0, 1], ["a candidate named at great length, as tune ids are", "another candidate"])
    axes[0, 0].set_xlabel("anytime-valid confidence sequence; dashed: fair 50%, dotted: \u00b12.5 points; "
                          "grey: dropped")
    return fig


@pytest.mark.skipif(shutil.which(os.environ.get("CHROMIUM", "chromium")) is None,
                    reason="needs chromium (apt-get install -y chromium), as make report-check does")
def test_the_html_check_finds_a_figure_label_cut_at_the_picture_edge(tmp_path):
    from analysis.report.html import render_html
    from analysis.report.pages import check_html, main

    cut, fitted = tmp_path / "cut.html", tmp_path / "fitted.html"
    cut.write_text(render_html(_one_figure_report(_long_label_figure())))
    fitted.write_text(render_html(_one_figure_report(plots.fit_labels(_long_label_figure()))))
    problems = check_html(cut)
    assert len(problems) == 1 and "cut off" in problems[0] and "grey: dropped" in problems[0], problems
    assert check_html(fitted) == []
    assert main(["check", str(cut)]) == 1 and main(["check", str(fitted)]) == 0


@pytest.mark.skipif(shutil.which(os.environ.get("CHROMIUM", "chromium")) is None,
                    reason="needs chromium (apt-get install -y chromium), as make report-check does")
def test_the_html_check_finds_a_caption_wider_than_its_box(tmp_path):
    from analysis.report.html import render_html
    from analysis.report.pages import check_html

    fig, _ = plots._figure(1.5)
    page = tmp_path / "wide.html"
    page.write_text(render_html(_one_figure_report(fig, "An unbroken caption: " + "x" * 400)))
    problems = check_html(page)
    assert any("wider than its box" in p and "figcaption" in p for p in problems), problems


def test_the_pdf_check_finds_a_figure_cut_at_its_edge_and_text_outside_the_margins(tmp_path):
    """The PDF holds figures as pictures: a cut through letters leaves ink at the picture's edge (a cut between
    words does not: the HTML check, on the same figures, finds every one)."""
    pytest.importorskip("pypdfium2", reason="make report-check installs it (the dev extra)")
    from fpdf import FPDF

    from analysis.report.pages import check_pdf
    from analysis.report.pdf import render_pdf

    def figure():
        fig = _long_label_figure()
        fig.axes[0].set_xlabel(fig.axes[0].get_xlabel().replace(" ", "_"))  # one long word: cut through letters
        return fig

    cut, fitted, wide = tmp_path / "cut.pdf", tmp_path / "fitted.pdf", tmp_path / "wide.pdf"
    cut.write_bytes(render_pdf(_one_figure_report(figure())))
    fitted.write_bytes(render_pdf(_one_figure_report(plots.fit_labels(figure()))))
    problems = check_pdf(cut)
    assert len(problems) == 1 and "right edge" in problems[0], problems
    assert check_pdf(fitted) == []
    pdf = FPDF(unit="mm", format="A4")
    pdf.add_page()
    pdf.set_font("helvetica", size=9)
    pdf.text(150, 100, "a caption running past the right margin")
    wide.write_bytes(bytes(pdf.output()))
    problems = check_pdf(wide)
    assert len(problems) == 1 and "outside the margins" in problems[0] and "margin" in problems[0], problems
