"""Sweeps read over the whole grid: main effects of each key from one model over all cells, response curves of
numeric keys with where they cross their target, and the feel of every cell (trajectories by default)."""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import polars as pl
import pytest

from analysis.report.sweep import build_sweep_report
from analysis.stats.effects import crossing, is_crossed, main_effects, numeric_keys
from analysis.sweep import read_sweep, run_sweep


def _games(effects_a: dict, effects_b: dict, deals: int, seed: int, interaction: float = 0.0,
           copies: int = 1) -> pl.DataFrame:
    """A crossed sweep of known means: y = 0.5 + a + b (+ interaction on (a1, b1)) + a deal effect + noise; each
    deal's games ``copies`` times (rotations that repeat a game)."""
    rng = np.random.default_rng(seed)
    rows = []
    for deal in range(deals):
        shared = rng.normal(0, 0.3)
        for a, b in itertools.product(effects_a, effects_b):
            value = 0.5 + effects_a[a] + effects_b[b] + shared + rng.normal(0, 0.3)
            value += interaction if (a, b) == ("a1", "b1") else 0.0
            rows += [dict(deal=deal, A=a, B=b, y=value)] * copies
    return pl.DataFrame(rows)


A = {"a1": 0.0, "a2": 0.1, "a3": -0.1}
B = {"b1": 0.05, "b2": -0.05}


def test_main_effects_find_the_level_that_moves_the_outcome():
    found = main_effects(_games(A, B, 400, 1), ["A", "B"], "y")
    levels = {(r["key"], r["level"]): r for r in found.levels.to_dicts()}
    for (key, level), effect in [(("A", k), v) for k, v in A.items()] + [(("B", k), v) for k, v in B.items()]:
        r = levels[(key, level)]
        assert r["low"] < effect < r["high"], (key, level, r)
    assert found.strongest("A")["level"] in ("a2", "a3") and levels[("A", "a1")]["p_holm"] > 0.05
    terms = {r["term"]: r for r in found.terms.to_dicts()}
    assert terms["A"]["df"] == 2 and terms["B"]["df"] == 1 and terms["interaction"]["df"] == 2
    assert terms["A"]["p_holm"] < 0.001 and terms["B"]["p_holm"] < 0.001 and terms["interaction"]["p_holm"] > 0.05
    assert found.deals == 400 and found.games == 2400
    assert found.grand == pytest.approx(found.levels.filter(pl.col("key") == "A")["marginal"].mean())


def test_an_interaction_is_found_when_one_cell_departs_from_the_sum():
    found = main_effects(_games(A, B, 400, 2, interaction=0.3), ["A", "B"], "y")
    assert found.terms.filter(pl.col("term") == "interaction")["p_holm"][0] < 0.001


def test_main_effects_count_deals_not_copies_of_a_deal():
    """Every game four times over (as rotations repeating a game): the intervals stay as wide."""
    once = main_effects(_games(A, B, 200, 3), ["A", "B"], "y").levels
    four = main_effects(_games(A, B, 200, 3, copies=4), ["A", "B"], "y").levels
    ratio = (four["high"] - four["low"]) / (once["high"] - once["low"])
    assert ratio.min() > 0.95 and ratio.max() < 1.05


def test_crossing_interpolates_between_neighbouring_cells_and_brackets_it_by_the_band():
    found = crossing([40, 50, 60], [0.6, 0.52, 0.45], [0.55, 0.47, 0.40], [0.65, 0.57, 0.50], 0.5)
    assert found.value == pytest.approx(50 + 10 * 0.02 / 0.07)
    assert found.low == pytest.approx(40 + 10 * 0.05 / 0.08, abs=0.01) and found.high == 60 and found.open_high
    never = crossing([1, 2, 3], [0.7, 0.8, 0.9], [0.65, 0.75, 0.85], [0.75, 0.85, 0.95], 0.5)
    assert np.isnan(never.value) and np.isnan(never.low)


def test_which_keys_are_numeric_and_which_grids_are_crossed():
    cells = [{"board": b, "rules.flowers": f} for b in ("5x5", "7x7") for f in ("15", "25", "35")]
    assert numeric_keys(cells, ["board", "rules.flowers"]) == ["rules.flowers"]
    assert is_crossed(cells, ["board", "rules.flowers"]) and not is_crossed(cells[:-1], ["board", "rules.flowers"])
    assert not is_crossed([{"bots": "random"}, {"bots": "planner", "bots.planner.depth": "12"}],
                          ["bots", "bots.planner.depth"])


@pytest.fixture(scope="module")
def overgrowth_sweep(tmp_path_factory):
    """Board x flowers at 2 players, no trajectories key in the file: trajectories are recorded by default."""
    base = tmp_path_factory.mktemp("effects-sweep")
    path = base / "sweep.toml"
    path.write_text(textwrap.dedent("""
        game = "overgrowth"
        bots = ["greedy", "greedy"]
        seed = 5
        games_per_cell = 60
        baseline = "board=7x7,rules.flowers=25"
        [grid.board]
        5x5 = { rows = 5, columns = 5 }
        7x7 = { rows = 7, columns = 7 }
        [grid]
        "rules.flowers" = [15, 25, 35]
    """))
    assert read_sweep(path).trajectories
    run_sweep(path, base / "out", progress=False)
    return base / "out"


def test_a_sweep_report_has_main_effects_response_curves_and_every_cells_feel(overgrowth_sweep):
    report = build_sweep_report(overgrowth_sweep)
    ids = [s.id for s in report.sections]
    assert "effects" in ids and "curves" in ids
    effects = report.section("effects")
    terms = next(b for b in effects.blocks if getattr(b, "columns", None) and b.columns[0].name == "Term")
    assert [row[0] for row in terms.rows] == ["board", "rules.flowers", "interaction"]
    levels = next(b for b in effects.blocks if getattr(b, "columns", None) and b.columns[0].name == "Key")
    assert [(row[0], row[1]) for row in levels.rows] == [("board", "5x5"), ("board", "7x7"), ("rules.flowers", "15"),
                                                         ("rules.flowers", "25"), ("rules.flowers", "35")]
    assert "board" in effects.blocks[0].text
    curves = report.section("curves")
    assert [b.id for b in curves.blocks if hasattr(b, "figure")] == ["response-rules-flowers"]
    table = next(b for b in curves.blocks if hasattr(b, "rows"))
    assert [row[1] for row in table.rows] == ["board=5x5", "board=7x7"]
    course = next(b for b in report.section("cell-drama").blocks
                  if getattr(b, "columns", None) and b.columns[1].name == "Lead changes a game")
    assert all("n/a" not in cell for row in course.rows for cell in row), course.rows
    methods = " ".join(item for b in report.section("methods").blocks for item in getattr(b, "items", []))
    assert "Main effects" in methods and "Response curves" in methods


def test_a_key_that_changes_nothing_has_an_exact_zero_effect_and_no_warning():
    """Reforest's solitaire difficulty changes only the target, not the game: its cells' turns are identical deal
    by deal. The level effects on turns are exactly 0 (no interval to estimate), the interaction's degenerate
    directions are left out of its Wald test, and nothing warns (statsmodels did: invalid sqrt, rank)."""
    rows = []
    rng = np.random.default_rng(6)
    for deal in range(200):
        turns = {size: 20 + size + rng.integers(0, 5) for size in (24, 30, 40)}
        for difficulty, size in itertools.product(("standard", "hard"), (24, 30, 40)):
            rows.append(dict(deal=deal, difficulty=difficulty, size=str(size), turns=float(turns[size])))
    found = main_effects(pl.DataFrame(rows), ["difficulty", "size"], "turns")
    difficulty = found.levels.filter(pl.col("key") == "difficulty")
    assert difficulty["effect"].to_list() == pytest.approx([0, 0], abs=1e-9)
    assert difficulty["low"].to_list() == pytest.approx([0, 0], abs=1e-9) and difficulty["p_value"].to_list() == [1, 1]
    terms = {r["term"]: r for r in found.terms.to_dicts()}
    assert terms["difficulty"]["df"] == 0 and terms["difficulty"]["p_value"] == 1.0
    assert terms["size"]["p_holm"] < 0.001 and terms["interaction"]["df"] == 0



def test_response_curves_keep_long_line_names_inside_the_figure():
    """Reforest's solitaire sweep named its lines 'solitaire.difficulty=standard, bots=greedy': three legend entries
    a row ran past the figure's edge (make report-check found them cut off)."""
    from analysis import plots

    x = np.array([24.0, 30.0, 40.0])
    values = [(np.array([0.3, 0.6, 0.7]), np.array([0.2, 0.5, 0.6]), np.array([0.4, 0.7, 0.8]))] * 3
    lines = [(f"solitaire.difficulty={d}, bots={b}", x, values) for d in ("standard", "hard")
             for b in ("greedy", "planner")]
    panels = [("Win rate", "Wilson 95%", "pct", None), ("Mean turns", "95% by deal", "num", (20.0, 30.0)),
              ("Stall rate", "Wilson 95%", "pct", 0.01)]
    assert plots.clipped_texts(plots.response_curves("deck.size[0]", lines, panels)) == []
