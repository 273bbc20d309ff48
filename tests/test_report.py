"""Reports: a run's, a sweep's and a diff's HTML and PDF; ``glade report`` on the command line.

Small runs of the toy game (tests/toy_game.py) and one small Overgrowth run,
played once per module; the Reforest solitaire sweep too, whose solitaire cell
is also the solitaire run. Building and rendering reports takes most of the
time (with numba's cache warm a toy run of 300 games costs about 0.3 s CPU, its
report about 3.6 s, its HTML 2.5 s and its PDF 4.9 s), so no report is rendered
twice.
"""

from __future__ import annotations

import html as html_lib
import math
import re
import shutil
import textwrap

import numpy as np
import polars as pl
import pytest

from analysis import report as rp
from analysis import stats
from tests.cli_helpers import glade, one_error_line
from analysis.sweep import run_sweep
from sims.core.spec import ConfigError
from sims.registry import get_game
from sims.records import load_records
from sims.runner import run
from sims.runspec import RunSpec
from tests import toy_game

RUN_SECTIONS = ("summary", "seats", "why", "bots", "scores", "length", "drama", "components", "methods", "manifest")




def pdf_pages(data: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", data))


def assert_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    images = re.findall(r"<img [^>]*>", page)
    assert images, "expected figures"
    for image in images:
        assert re.search(r'src="data:image/(svg\+xml|png);base64,', image), image[:120]
    assert "<script" not in page.lower()
    assert not re.search(r'(src|href)="(https?:)?//', page), "no external URL"
    assert "<style>" in page


def assert_no_text_cut_off(report: rp.Report) -> None:
    """No figure of the report has a text reaching past its edge (a saved picture cuts it off there)."""
    from analysis import plots

    assert [(p.id, text) for p in report.plots() for text in plots.clipped_texts(p.figure)] == []


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("report-runs")
    toy = toy_game.load()
    for name, config, seed in (("toy", toy, 5), ("toy-seed6", toy, 6),
                               ("toy-goal14", toy_game.load(overrides=("race.goal=14",)), 5)):
        run(RunSpec("toy", config, ["greedy", "random"], 2, seed, rotate_seats=True), 150, base / name, batch_size=64,
            progress=False)
    shutil.copytree(base / "toy", base / "toy-copy")  # the same config and seed play the same records
    run(RunSpec("toy", toy, ["greedy", "random", "bully"], 3, 2, rotate_seats=True), 60, base / "toy3", progress=False)
    overgrowth = get_game("overgrowth")
    run(RunSpec("overgrowth", overgrowth.load_config(None, ()), ["greedy", "greedy"], 2, 3), 150, base / "og",
        progress=False)
    return base


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("report-sweep")
    path = base / "sweep.toml"
    path.write_text(textwrap.dedent("""
        game = "toy"
        description = "toy sweep for the report"
        bots = ["greedy", "random"]
        seed = 11
        games_per_cell = 80
        baseline = "race.goal=12,race.bump=true"

        [grid]
        "race.goal" = [10, 12]
        "race.bump" = [true, false]
    """))
    run_sweep(path, base / "out", progress=False)
    return base / "out"


# ---------------------------------------------------------------- run reports


def test_run_report_has_every_section_flags_and_inline_figures(runs, tmp_path):
    report = rp.build_run_report(runs / "toy")
    assert [s.id for s in report.sections] == list(RUN_SECTIONS)
    figures = {p.id for p in report.plots()}
    flags = report.section("summary").blocks[1]
    written = rp.write_report(report, tmp_path / "out")  # renders the HTML and the PDF once each
    assert [p.name for p in written] == ["report.html", "report.pdf"]
    page = written[0].read_text(encoding="utf-8")
    for section in RUN_SECTIONS:
        assert f'<section id="{section}">' in page
    assert_self_contained(page)
    assert {"seat-win-rates", "convergence", "skill-gradient", "score-distributions", "game-length",
            "end-reasons", "component-strength"} <= figures
    assert isinstance(flags, rp.Flags) and flags.items[0].title.startswith("Seat balance")
    assert any(f.title.startswith(("Skill matters", "Skill gradient too flat")) for f in flags.items)
    assert "Wilson 95%" in page and "Holm" in page and "observational" in page.lower()
    for line in stats.methods_used():  # the methods section lists every test of the library
        assert html_lib.escape(line.replace("+-", "\u00b1")) in page
    assert re.search(r"Games per second</dt><dd>[0-9,]+ games/s", page)  # from the run's manifest
    assert "<details><summary>Config" in page  # the config, collapsible
    data = (tmp_path / "out" / "report.pdf").read_bytes()
    assert data.startswith(b"%PDF") and pdf_pages(data) >= 5
    assert_no_text_cut_off(report)


def test_overgrowth_report_checks_the_target_band_and_components(runs):
    report = rp.build_run_report(runs / "og")
    flags = report.section("summary").blocks[1].items
    titles = " | ".join(f.title for f in flags)
    assert "target 16\u201340 turns" in titles  # [report] target_turns of configs/games/overgrowth.toml
    assert "Stall rate" in titles
    assert not any("Skill" in f.title for f in flags)  # one bot: no gradient to measure
    components = report.section("components")
    table = next(b for b in components.blocks if isinstance(b, rp.Table))
    assert {row[0] for row in table.rows} >= {"cast", "grow", "spread"}  # the actions family, one row per item
    assert "observational" in components.blocks[0].text.lower()
    tables = [b for b in components.blocks if isinstance(b, rp.Table)]
    assert len(tables) == 1  # one bot: the table by bot is not repeated, a note names the family table
    assert any(getattr(b, "text", "").startswith("One bot played every seat, so the table by bot is the") and
               "table above, row for row" in b.text for b in components.blocks)
    three = rp.build_run_report(runs / "toy3").section("components")  # three bots: the table by bot stays
    assert any(isinstance(b, rp.Table) and b.columns[0].name == "Bot" for b in three.blocks)
    length = next(b for b in report.section("length").blocks if isinstance(b, rp.Facts))
    assert dict(length.items)["Target band"].startswith("16\u201340 turns")
    data = rp.render_pdf(report)
    assert data.startswith(b"%PDF") and pdf_pages(data) >= 5
    report.close()


def test_three_player_report_of_a_rotated_mixed_lineup_names_whose_seat_shares_it_shows(runs):
    report = rp.build_run_report(runs / "toy3")
    seats = report.section("seats")
    headline = report.section("summary").blocks[1].items[0].evidence
    assert "of this lineup, each bot in every seat (not what equal players get)" in headline  # said in the Summary
    assert "each bot in every seat of a deal" in headline  # the design, in the Summary
    assert "to measure balance" in headline or "to measure it" in headline  # the lineup to play
    assert "the Summary's first finding" in seats.blocks[0].text and "the design" in seats.blocks[0].text
    assert not any("each bot in every seat of a deal" in item for b in seats.blocks
                   for item in getattr(b, "items", []))
    table = next(b for b in seats.blocks if isinstance(b, rp.Table))
    assert [row[0] for row in table.rows] == ["seat 0", "seat 1", "seat 2"]
    assert "Holm-corrected" in table.caption
    assert '<section id="bots">' in rp.render_html(report)


def test_seat_tests_holm_across_seats():
    rows = []
    for game in range(300):
        winner = 0 if game % 2 == 0 else (1 if game % 4 == 1 else 2)  # seat 0 wins half the games
        for seat in range(3):
            rows.append({"game": game, "deal": game, "seat": seat, "win": seat == winner, "tie": False, "turns": 9, "end": "goal",
                         "rank": 1 if seat == winner else 2})
    advantage = stats.seat_advantage(pl.DataFrame(rows))
    tests = rp.seat_tests(advantage)
    assert tests["seat"].to_list() == [0, 1, 2]
    assert (tests["p_holm"] >= tests["p_value"] - 1e-12).all()
    assert tests.filter(pl.col("seat") == 0)["significant"][0]


def test_running_estimate_and_unpaired_change():
    wins = np.r_[np.ones(30), np.zeros(70)]
    n, rate, low, high = rp.running_estimate(wins, points=20)
    assert n[-1] == 100 and rate[-1] == pytest.approx(0.3) and np.all(np.diff(n) > 0)
    assert np.all(low <= rate + 1e-12) and np.all(rate <= high + 1e-12)
    same = rp.unpaired_change(30, 100, 30, 100)
    assert same.difference == 0 and same.p_value == 1.0 and same.low < 0 < same.high
    more = rp.unpaired_change(30, 1000, 60, 1000)
    assert more.difference == pytest.approx(0.03) and more.p_value < 0.05 and more.low > 0


def test_config_helpers():
    config = {"board": {"rows": 7, "cells": [[0, 1]]}, "rules": {"flag": True, "unset": None},
              "report": {"target_turns": [16, 40]}}
    assert rp.flatten(config)["board.rows"] == 7
    assert rp.target_band(config) == (16.0, 40.0) and rp.target_band({}) is None
    text = rp.config_text(config)
    assert "[board]\nrows = 7\ncells = [[0, 1]]" in text and "flag = true" in text and "unset" not in text


# ---------------------------------------------------------------- sweep reports


def test_sweep_report_ranks_cells_pairs_them_and_draws_a_heatmap(sweep_dir, tmp_path):
    report = rp.build_sweep_report(sweep_dir)
    ids = [s.id for s in report.sections]
    assert ids == ["summary", "cells", "paired", "heatmap", "effects", "curves", "cell-length", "cell-drama", "methods",
                   "manifest"]
    methods = " ".join(item for b in report.section("methods").blocks for item in getattr(b, "items", []))
    assert "Drama per cell" in methods and "Skill trace" not in methods  # no trace drawn, none described
    ranked = next(b for b in report.section("cells").blocks if isinstance(b, rp.Table))
    assert [row[0] for row in ranked.rows] == ["1", "2", "3", "4"]
    cells = {row[1].rstrip(" *") for row in ranked.rows}
    assert cells == {"race.goal=10,race.bump=true", "race.goal=10,race.bump=false",
                     "race.goal=12,race.bump=true", "race.goal=12,race.bump=false"}
    gaps = [abs(float(row[6])) for row in ranked.rows]
    assert gaps == sorted(gaps)  # most balanced first
    assert "Holm" in ranked.caption
    paired = report.section("paired")
    assert "common random numbers" in paired.blocks[0].text
    table = next(b for b in paired.blocks if isinstance(b, rp.Table))
    assert len(table.rows) == 3 and "pseudo-values" in table.caption and "Holm" in table.caption
    # one seat share: the paired table's baseline and cell figures are the cells table's (2 players: seat 0's)
    share = {row[1].rstrip(" *"): row[4] for row in ranked.rows}
    baseline = next(row[1].rstrip(" *") for row in ranked.rows if row[1].endswith(" *"))
    for row in table.rows:
        assert row[2] == f"{share[baseline]} \u2192 {share[row[0]]}"
    from analysis.sweep import cell_table, format_cell_table, load_sweep

    # glade report on a sweep prints the baseline's headline and the very table glade sweep prints
    assert report.terminal == format_cell_table(cell_table(load_sweep(sweep_dir)))
    assert report.headline.startswith("baseline cell race.goal=12,race.bump=true: each seat's share of decided games")
    heatmap = report.section("heatmap").blocks[0]
    assert isinstance(heatmap, rp.Plot) and heatmap.id == "sweep-heatmap"
    ax = heatmap.figure.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["10", "12"] and ax.get_ylabel() == "race.goal"  # the axis name once, not on every tick
    page = rp.render_html(report)
    assert_self_contained(page)
    assert 'id="fig-sweep-heatmap"' in page
    written = rp.write_report(report, tmp_path / "sweep", html_file=False)
    assert [p.name for p in written] == ["report.pdf"]
    data = written[0].read_bytes()
    assert data.startswith(b"%PDF") and pdf_pages(data) >= 5
    assert_no_text_cut_off(report)


def test_sweep_with_one_axis_has_no_heatmap(tmp_path):
    path = tmp_path / "one.toml"
    path.write_text('game = "toy"\nbots = ["greedy", "random"]\nseed = 3\ngames_per_cell = 40\n'
                    '[grid]\n"race.goal" = [10, 12]\n')
    run_sweep(path, tmp_path / "out", progress=False)
    report = rp.build_sweep_report(tmp_path / "out")
    assert "heatmap" not in [s.id for s in report.sections]
    assert "cells" in [s.id for s in report.sections]
    report.close()


def test_sweep_over_player_counts_pairs_each_cell_within_its_player_count(tmp_path):
    path = tmp_path / "players.toml"
    path.write_text('game = "toy"\nbots = ["greedy"]\nseed = 3\ngames_per_cell = 60\n'
                    'baseline = "players=2,race.goal=10"\n'
                    '[grid]\nplayers = [2, 3]\n"race.goal" = [10, 12]\n')
    run_sweep(path, tmp_path / "out", progress=False)
    cells = rp.analyse_sweep(tmp_path / "out").cells
    by_id = {c.id: c for c in cells}
    assert by_id["players=2,race.goal=12"].win_change is not None  # paired with the baseline
    assert by_id["players=3,race.goal=12"].paired_note.startswith("against players=3,race.goal=10")
    assert by_id["players=3,race.goal=10"].win_change is None
    assert [c.advantage.players for c in cells] == [2, 2, 3, 3]
    report = rp.build_sweep_report(tmp_path / "out")
    html = rp.render_html(report)
    assert "2 players: greedy, greedy; 3 players: greedy, greedy, greedy" in html
    assert "players \u00d7 race.goal" in html or "players × race.goal" in html
    assert "games per second over the cells" in html
    report.close()


@pytest.fixture(scope="module")
def solitaire_sweep(tmp_path_factory):
    """Reforest, greedy: solitaire and 2 players x the standard and the hard target, 30 deals a cell."""
    base = tmp_path_factory.mktemp("solitaire-sweep")
    path = base / "solo.toml"
    path.write_text('game = "reforest"\nbots = ["greedy"]\nseed = 5\ngames_per_cell = 30\n'
                    'baseline = "players=1,solitaire.difficulty=standard"\n'
                    '[grid]\nplayers = [1, 2]\n"solitaire.difficulty" = ["standard", "hard"]\n')
    run_sweep(path, base / "out", progress=False)
    return base / "out"


def test_sweep_with_solitaire_cells_reports_the_win_rate_beside_seat_balance(solitaire_sweep):
    cells = rp.analyse_sweep(solitaire_sweep).cells
    by_id = {c.id: c for c in cells}
    standard, hard = by_id["players=1,solitaire.difficulty=standard"], by_id["players=1,solitaire.difficulty=hard"]
    assert standard.advantage is None and standard.solo.rate == float(standard.records["win"].mean())
    assert hard.win_change is not None and hard.win_change.pairs == 30
    assert hard.win_change.difference <= 0  # the hard target adds to the standard one: no deal won only on hard
    assert by_id["players=2,solitaire.difficulty=hard"].paired_note.startswith("against players=2")
    report = rp.build_sweep_report(solitaire_sweep)
    assert [s.id for s in report.sections][:4] == ["summary", "cells", "solitaire", "paired"]
    ranked = next(b for b in report.section("cells").blocks if isinstance(b, rp.Table))
    assert {row[1].rstrip(" *") for row in ranked.rows} == {"players=2,solitaire.difficulty=standard",
                                                            "players=2,solitaire.difficulty=hard"}
    solo = next(b for b in report.section("solitaire").blocks if isinstance(b, rp.Table))
    assert [row[0] for row in solo.rows] == ["players=1,solitaire.difficulty=standard *",
                                             "players=1,solitaire.difficulty=hard"]
    assert solo.rows[0][2] == f"{100 * standard.solo.rate:.1f}%"
    assert any("Solitaire: the highest win rate" in f.title for f in report.section("summary").blocks[1].items)
    assert "4 cells of" in report.section("summary").blocks[0].text
    course = {row[0].rstrip(" *"): row[1:] for b in report.section("cell-drama").blocks
              if isinstance(b, rp.Table) and b.columns[1].name == "Lead changes a game" for row in b.rows}
    assert course["players=1,solitaire.difficulty=hard"] == ["one seat: no lead to change"] + ["\u2014"] * 5
    assert "n/a" not in course["players=2,solitaire.difficulty=hard"]  # recorded by default
    report.close()


def test_solo_run_against_a_house_seat_is_reported_on_the_player_alone(tmp_path, toy_config):
    run(RunSpec("toy-solo", toy_config, ["random"], 1, 3), 120, tmp_path / "solo", progress=False)
    records = pl.read_parquet(next((tmp_path / "solo" / "records").glob("*.parquet")))
    a = rp.analyse_run(tmp_path / "solo")
    assert a.players == 1 and a.advantage is None
    assert a.records["seat"].unique().to_list() == [0] and a.bots == ("random",)
    assert a.by_seat.to_dicts()[0]["win_rate"] == float(records.filter(pl.col("seat") == 0)["win"].mean())
    assert a.components is None or set(a.components["bot"].to_list()) == {"random"}  # not the house bot's choices
    report = rp.build_run_report(tmp_path / "solo")
    assert report.title == "Dice race against the house (test game): random vs the game's seat (greedy)"
    assert "solo against the game's seat" in report.subtitle
    assert report.section("seats").title == "Solitaire result"
    assert "the player against the game's own seat (played by greedy)" in report.section("summary").blocks[0].text
    report.close()


# ---------------------------------------------------------------- diffs


def test_diff_of_identical_runs_says_no_change(runs):
    report = rp.build_diff_report(runs / "toy", runs / "toy-copy")
    headline = report.section("summary").blocks[1].items[0]
    assert headline.level == "ok" and headline.title.startswith("No change")
    assert "paired on common random numbers" in headline.evidence
    page = rp.render_html(report)
    assert "No change" in page and "No config key differs." in page
    assert_self_contained(page)
    report.close()


def test_diff_shows_a_changed_rule(runs):
    report = rp.build_diff_report(runs / "toy", runs / "toy-goal14")
    changes = report.section("changes")
    table = changes.blocks[0]
    assert isinstance(table, rp.Table) and table.rows == [["race.goal", "12", "14"]]
    flags = report.section("summary").blocks[1].items
    assert not flags[0].title.startswith("No change")
    assert any("race.goal" in f.title for f in flags)
    seats, scores = [b for b in report.section("seats").blocks if isinstance(b, rp.Table)]
    assert len(seats.rows) == 2 and "Paired" in seats.caption
    a, b = load_records(runs / "toy"), load_records(runs / "toy-goal14")
    for seat, row in enumerate(scores.rows):  # the change in mean score per seat, B minus A
        mean_a = a.filter(pl.col("seat") == seat)["score"].mean()
        mean_b = b.filter(pl.col("seat") == seat)["score"].mean()
        assert row[1:4] == [f"{mean_a:.2f}", f"{mean_b:.2f}", f"{mean_b - mean_a:+.2f}"] and "t test on paired" in row[7]
    report.close()


def test_diff_of_rotated_runs_on_other_seeds_is_unpaired_and_by_deal(runs):
    report = rp.build_diff_report(runs / "toy", runs / "toy-seed6")
    headline = report.section("summary").blocks[1].items[0]
    assert "unpaired" in headline.evidence and "seed" in headline.evidence
    seats, scores = [b for b in report.section("seats").blocks if isinstance(b, rp.Table)]
    # mixed bots in rotated seats: each run's share is its headline's, the lineup's per-deal shares; unpaired Welch
    assert "Welch" in seats.caption and seats.rows[0][-1] == "150 + 150"  # deals, not games
    share = stats.seat_advantage(load_records(runs / "toy")).seats["share"][0]
    assert seats.rows[0][1] == f"{100 * share:.1f}%"
    assert "Welch" in scores.caption and scores.rows[0][-1] == "150 + 150"  # per-deal mean scores: deals, not games
    report.close()


def test_diff_changes_each_seats_mean_score_paired_by_deal_or_welch():
    from analysis.report.diff import _score_change

    deals = np.repeat(np.arange(40), 2)  # two seat rotations a deal
    a = pl.DataFrame({"deal": deals, "rotation": np.tile([0, 1], 40), "seat": 0, "seed": deals,
                      "score": (deals % 5).astype(float)})
    b = a.with_columns(pl.col("score") + 2)  # every game scores 2 more in run B
    paired = _score_change(a, b, 0, paired=True)
    assert (paired.base, paired.other, paired.difference) == (2.0, 4.0, 2.0)
    assert paired.low == paired.high == 2.0 and paired.p_value < 1e-6 and paired.n_text == "80 pairs in 40 deals"
    welch = _score_change(a, b, 0, paired=False)  # per-deal means: 40 + 40 values of sd 1.43
    assert welch.difference == pytest.approx(2.0) and welch.n_text == "40 + 40" and "Welch" in welch.method
    assert 1.3 < welch.low < 1.4 and 2.6 < welch.high < 2.7


def test_unpaired_change_of_win_rates_is_newcombe_with_equivalence_and_effect_size():
    change = rp.unpaired_change(500, 1000, 540, 1000, margin=0.025)
    assert change.interval_method.startswith("Newcombe") and change.difference == pytest.approx(0.04)
    assert change.effect_size == pytest.approx(2 * math.asin(math.sqrt(0.54)) - 2 * math.asin(math.sqrt(0.5)))
    assert change.equivalence_p > 0.5  # a 4-point change is not inside +-2.5 points
    assert 0.05 < change.detectable < 0.08  # 2.80 standard errors of a difference of two 1,000-game rates


# ---------------------------------------------------------------- command line


def test_cli_writes_the_reports(runs, tmp_path):
    result = glade("report", runs / "toy", "--html", "--out", tmp_path / "html-only")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("report.html")
    headline = result.stdout.splitlines()[0]  # the Seats section's lead, word for word
    assert headline.startswith("headline: seat ") and "of 300 games" in headline
    page = (tmp_path / "html-only" / "report.html").read_text()
    assert html_lib.escape(headline.removeprefix("headline: "), quote=False) in page
    assert (tmp_path / "html-only" / "report.html").exists()
    assert not (tmp_path / "html-only" / "report.pdf").exists()
    result = glade("report", "--diff", runs / "toy", runs / "toy-goal14", "--pdf", "--out", tmp_path / "diff")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "diff" / "report.pdf").read_bytes().startswith(b"%PDF")


def test_cli_errors_are_one_line(runs, tmp_path):
    (tmp_path / "empty").mkdir()
    line = one_error_line(glade("report", tmp_path / "empty"))
    assert "manifest.json" in line and "sweep.json" in line
    line = one_error_line(glade("report", tmp_path / "missing"))
    assert "does not exist" in line
    one_error_line(glade("report"))
    one_error_line(glade("report", runs / "toy", "--diff", runs / "toy", runs / "toy-copy"))
    one_error_line(glade("report", "--diff", runs / "toy", tmp_path / "empty"))
    one_error_line(glade("report", runs / "toy", "--delta", "0.7"))


def test_kind_of(runs, sweep_dir, tmp_path):
    assert rp.kind_of(runs / "toy") == "run"
    assert rp.kind_of(sweep_dir) == "sweep"
    with pytest.raises(ConfigError, match="ladder directory"):
        rp.kind_of(tmp_path)


def test_component_analysis_uses_the_design_components_a_game_declares():
    from analysis.report import design_components

    events = pl.DataFrame({"game": [0, 0], "seat": [0, 1], "kind": ["grow", "pass"], "block": ["x", "y"]})
    assert design_components("overgrowth", events) == ("kind", ("overgrow", "grow", "cast", "spread"))
    assert design_components("vora", events)[0] == "block"
    assert design_components("toy", events) == ("kind", None)  # nothing declared: guessed by column name
    assert design_components("overgrowth", events.drop("kind")) == (None, None)


def test_a_solitaire_run_reports_its_win_rate_instead_of_seat_balance(solitaire_sweep):
    cell = solitaire_sweep / "cells" / "players=1,solitaire.difficulty=standard"  # a sweep cell is a run directory
    report = rp.build_run_report(cell)
    page = rp.render_html(report)
    assert "Solitaire result" in page and "Solitaire: the player wins" in page
    assert "Score margin" not in page and "Seat balance" not in page
    assert "solitaire, seed 5" in page
    report.close()


def test_diff_of_a_config_list_names_the_item_and_key_that_changed():
    from analysis.report.diff import _diff_config

    species = [{"name": "Step Moss", "cost": 0, "rows": ["low"]}, {"name": "Douglas Fir", "cost": 4, "count": 4}]
    cheaper = [dict(species[0]), {**species[1], "cost": 2}]
    rows = _diff_config({"config": {"species": species}}, {"config": {"species": cheaper}})
    assert rows == [["species[1] Douglas Fir: cost", "4", "2"]]  # not the whole list, twice
    longer = _diff_config({"config": {"deck": list(range(100))}}, {"config": {"deck": list(range(101))}})
    assert len(longer) == 1 and len(longer[0][1]) <= 160 and longer[0][1].endswith("\u2026")  # fits a PDF row
    nested = _diff_config({"config": {"board": {"cells": [[0, 1], [1, 1]]}}},
                          {"config": {"board": {"cells": [[0, 1], [1, 2]]}}})
    assert nested == [["board.cells[1][1]", "1", "2"]]


def test_the_config_block_shows_only_the_keys_that_differ_from_the_shipped_config(tmp_path):
    """A Vorex run with three keys changed: three lines, not the 26 tiles; the full config named where it is kept."""
    import copy

    from analysis.report.run import config_block

    shipped = get_game("vorex").load_config(None, ()).loaded.values
    changed = copy.deepcopy(shipped)
    changed["rules"]["flowers"] = 20
    changed["tiles"][0]["beetles"] = ["insect"]
    changed["tiles"][3]["hexes"][0]["value"] = 2  # a list of tables inside one: by its item, not the whole list
    kept = tmp_path / "manifest.json"
    block = config_block({"game": "vorex", "config_hash": "abc", "config": changed, "config_source": "x.toml"}, kept)
    assert block.summary == "Config (hash abc): 3 keys differ from the game's shipped config (configs/games/vorex.toml)"
    assert block.text.splitlines() == [
        'rules.flowers = 20   # shipped: 13',
        'tiles[0] start_first: beetles = ["insect"]   # shipped: ["mushroom", "insect"]',
        "tiles[3] start_d: hexes[0]: value = 2   # shipped: 0",
        "", f'The full config is in {kept} (key "config"), from x.toml.']
    same = config_block({"game": "vorex", "config_hash": "def", "config": shipped, "config_source": "y.toml"}, kept)
    assert same.summary.endswith("the game's shipped config (configs/games/vorex.toml), no key changed")
    unknown = config_block({"game": "nogame", "config": {"rules": {"goal": 3}}}, kept)
    assert unknown.text.startswith("[rules]\ngoal = 3")  # a game this process cannot load: the whole config


@pytest.mark.parametrize("name", ["overgrowth", "vora", "vorex", "reforest"])
def test_the_manifest_config_is_toml_that_reads_back_to_the_config(name):
    import tomllib

    def unset_left_out(x):
        if isinstance(x, dict):
            return {k: unset_left_out(v) for k, v in x.items() if v is not None}
        return [unset_left_out(v) for v in x] if isinstance(x, (list, tuple)) else x

    values = unset_left_out(get_game(name).load_config(None, ()).loaded.values)
    text = rp.config_text(values)
    assert tomllib.loads(text) == values and "{'" not in text  # lists of tables as [[...]], not Python reprs
