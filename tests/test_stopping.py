"""Seat rotation of identical lineups, and ``glade play --until-ci``: deals as the unit, the manifest's
``stopping`` record, and the anytime-valid rule's coverage under repeated looks."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import sims.runner as runner
from analysis.stats import max_half_width
from analysis.stopping import (ANYTIME, FIXED, StoppingRule, deal_shares, mixture_half_width, mixture_rho,
                               play_until, t_half_width)
from analysis.sweep import load_sweep, run_sweep
from sims.replay import replay_text
from sims.runner import COLLAPSED, load_events, load_manifest, load_records, run
from tests import toy_game
from tests.cli_helpers import glade, one_error_line
from tests.golden_files import GOLDEN


def play(out, bots, games=40, **options):
    options.setdefault("progress", False)
    return run("toy", toy_game.load(), list(bots), len(bots), 11, games, out, **options)


def _old_rotations(choices, players, rotate_seats):
    """The runner before identical lineups were collapsed: every lineup in ``players`` rotations."""
    return (players if rotate_seats else 1), None


# ---------------------------------------------------------------- identical lineups


@pytest.mark.parametrize("bots", [("greedy", "greedy"), ("random", "random", "random")])
def test_an_identical_lineup_plays_one_rotation_and_says_so(tmp_path, bots):
    summary = play(tmp_path / "rotated", bots, rotate_seats=True, batch_size=16)
    play(tmp_path / "plain", bots, batch_size=16)
    assert summary.rotations == 1 and summary.games == 40
    assert_frame_equal(load_records(tmp_path / "rotated"), load_records(tmp_path / "plain"))
    assert_frame_equal(load_events(tmp_path / "rotated"), load_events(tmp_path / "plain"))
    manifest = load_manifest(tmp_path / "rotated")
    assert manifest["rotate_seats"] is True and manifest["rotations"] == 1
    assert manifest["rotations_collapsed"] == COLLAPSED
    assert manifest["lineups"] == [list(bots)]
    assert "rotations_collapsed" not in load_manifest(tmp_path / "plain")


def test_the_replayed_rotations_were_identical_games(tmp_path, monkeypatch):
    """Why: bots draw from streams keyed by seat, and every rotation plays the deal's seed."""
    monkeypatch.setattr(runner, "seat_rotations", _old_rotations)
    play(tmp_path, ("greedy", "greedy"), rotate_seats=True)
    records = load_records(tmp_path)
    rotations = [records.filter(pl.col("rotation") == r).drop("game", "rotation") for r in (0, 1)]
    assert_frame_equal(rotations[0], rotations[1])


def test_personas_of_one_kind_are_different_bots(tmp_path):
    summary = play(tmp_path, ("greedy", "bully"), rotate_seats=True)
    assert summary.rotations == 2 and "rotations_collapsed" not in summary.manifest


def test_a_mixed_lineup_keeps_the_records_it_had():
    """Records of the runner before the change (tests/golden/runner-toy-rotated-greedy-random-random.csv)."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        run("toy", toy_game.load(), ["greedy", "random", "random"], 3, 11, 12, out, batch_size=5,
            rotate_seats=True, progress=False)
        text = load_records(out).write_csv()
    assert text == (GOLDEN / "runner-toy-rotated-greedy-random-random.csv").read_text()


def test_a_run_played_before_collapsing_resumes_with_its_rotations(tmp_path, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(runner, "seat_rotations", _old_rotations)
        play(tmp_path, ("greedy", "greedy"), games=30, rotate_seats=True, batch_size=16)
    again = play(tmp_path, ("greedy", "greedy"), games=30, rotate_seats=True)
    assert again.played == 0 and again.rotations == 2
    extended = play(tmp_path, ("greedy", "greedy"), games=40, rotate_seats=True)
    assert extended.played == 20 and extended.rotations == 2
    manifest = load_manifest(tmp_path)
    assert manifest["rotations"] == 2 and "rotations_collapsed" not in manifest
    assert manifest["lineups"] == [["greedy", "greedy"]] * 2
    records = load_records(tmp_path)
    assert records["game"].n_unique() == 80 and (records["game"] == records["deal"] * 2 + records["rotation"]).all()


SWEEP = """
game = "toy"
bots = ["greedy", "random"]
rotate_seats = true
seed = 4
games_per_cell = 30
[grid.bots]
mirror = "greedy,greedy"
mixed = "greedy,random"
"""


def test_a_sweep_mixing_identical_and_mixed_lineups(tmp_path, monkeypatch):
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP)
    run_sweep(path, tmp_path / "new", progress=False)
    cells = {c.id: c for c in load_sweep(tmp_path / "new").cells}
    assert [c.status for c in cells.values()] == ["done", "done"]
    assert cells["bots=mirror"].manifest()["rotations"] == 1 and cells["bots=mixed"].manifest()["rotations"] == 2
    assert cells["bots=mirror"].records()["game"].n_unique() == 30
    assert cells["bots=mixed"].records()["game"].n_unique() == 60
    text = glade("sweep", path, "--out", tmp_path / "new", "--no-progress").stdout
    assert "note: 1 cell with the same bot in every seat played one rotation" in text and "bots=mirror" in text
    # A sweep directory played before the change resumes and extends with its cells' rotations.
    with monkeypatch.context() as patch:
        patch.setattr(runner, "seat_rotations", _old_rotations)
        run_sweep(path, tmp_path / "old", progress=False)
    assert sum(c.played for c in run_sweep(path, tmp_path / "old", progress=False).cells) == 0
    extended = run_sweep(path, tmp_path / "old", games_per_cell=40, progress=False)
    assert [c.played for c in extended.cells] == [20, 20]
    assert [c.status for c in load_sweep(tmp_path / "old").cells] == ["done", "done"]


def test_replay_numbers_an_identical_lineup_as_the_run_does(toy_config):
    text = replay_text("toy", toy_config, 2, 11, 3, ["greedy", "greedy"], rotate_seats=True)
    assert text.splitlines()[0].startswith("toy game 3: deal 3, rotation 0")


def test_play_prints_a_note_when_rotation_collapses(tmp_path):
    result = glade("play", "toy", "--games", 20, "--seed", 1, "--bots", "greedy,greedy", "--rotate-seats",
                   "--out", tmp_path / "r", "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"note: --rotate-seats played one rotation: {COLLAPSED}" in result.stdout
    assert "20 games, 2 players" in result.stdout


# ---------------------------------------------------------------- the intervals


def test_deal_shares_and_the_t_interval_over_deals():
    # Two rotations of 3 deals, 2 seats: seat 0 wins both games of deal 0, one of deal 1, none of deal 2.
    records = pl.DataFrame({
        "deal": [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2],
        "seat": [0, 1] * 6,
        "win": [True, False, True, False, True, False, False, True, False, True, False, True],
    })
    shares = deal_shares(records)
    assert shares.tolist() == [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    x = shares[:, 0]
    by_hand = stats.t.ppf(0.975, 2) * x.std(ddof=1) / math.sqrt(3)
    assert t_half_width(shares) == pytest.approx(by_hand)
    assert t_half_width(shares[:1]) == math.inf


def test_mixture_half_width_by_hand_and_tuning():
    rho = mixture_rho(0.01)
    alpha, n = 0.05, 10_000
    v = n / 4
    assert mixture_half_width(n, rho) == pytest.approx(math.sqrt((v + rho) * math.log((v + rho) / (rho * alpha**2))) / n)
    # Wider than the fixed-level normal interval at the same deals, and narrowest near the deals it was tuned for.
    assert mixture_half_width(n, rho) > 1.96 * 0.5 / math.sqrt(n)
    planned = (1.96 * 0.5 / 0.01) ** 2
    assert mixture_half_width(planned, rho) < mixture_half_width(planned, rho * 10)
    assert mixture_half_width(planned, rho) < mixture_half_width(planned, rho / 10)
    widths = mixture_half_width(np.arange(100, 100_000, 100), rho)
    assert np.all(np.diff(widths) < 0)


def _miss_at_any_look(rule: str, p: float, streams: int, looks: np.ndarray, rng: np.random.Generator,
                      rotated: bool = False) -> float:
    """The share of seeded synthetic streams whose interval excludes the true mean at some look."""
    draws = rng.random((streams, int(looks[-1]))) < p
    if rotated:  # a deal's share over two rotations: two draws, correlated through a shared half
        second = np.where(rng.random(draws.shape) < 0.5, draws, rng.random(draws.shape) < p)
        draws = (draws.astype(np.float64) + second) / 2
    sums = np.cumsum(draws, axis=1, dtype=np.float64)[:, looks - 1]
    means = sums / looks
    if rule == ANYTIME:
        radius = mixture_half_width(looks, StoppingRule(ANYTIME, 0.02).rho)
        missed = np.abs(means - p) > radius
    else:
        low, high = proportion_confint(sums, looks, alpha=0.05, method="wilson")
        missed = (p < low) | (p > high)
    return float(missed.any(axis=1).mean())


@pytest.mark.parametrize("p, rotated", [(0.5, False), (0.2, False), (0.5, True)])
def test_the_anytime_rule_covers_at_every_look(p, rotated):
    """1,000 seeded streams of 4,000 deals, a look every 40: the confidence sequence misses the true
    mean at some look in at most 5% of them; the fixed-level Wilson interval, looked at as often, far more."""
    looks = np.arange(40, 4001, 40)
    rng = np.random.default_rng(12)
    anytime = _miss_at_any_look(ANYTIME, p, 1000, looks, rng, rotated)
    assert anytime <= 0.05
    if not rotated:
        fixed = _miss_at_any_look(FIXED, p, 1000, looks, rng)
        assert fixed > 0.15  # repeated looks inflate the fixed-level interval's 5% error


# ---------------------------------------------------------------- play --until-ci


def test_until_ci_with_rotation_counts_deals_and_records_its_looks(tmp_path):
    out = tmp_path / "run"
    result = play_until("toy", toy_game.load(), ["greedy", "random"], 2, 3, 60, out, 0.06, max_games=2000,
                        batch_size=60, rotate_seats=True, progress=False)
    stopping = load_manifest(out)["stopping"]
    assert stopping["rule"] == FIXED and stopping["unit"] == "deals" and stopping["reached"]
    assert stopping["outcome"] == "reached" and stopping["target_half_width"] == 0.06
    assert stopping["max_games"] == 2000 and stopping["step"] == 60 and "t 95%" in stopping["method"]
    looks = stopping["looks"]
    assert [look["deals"] for look in looks] == list(range(60, result.deals + 1, 60))
    assert stopping["deals"] == result.deals and stopping["games"] == 2 * result.deals
    records = load_records(out)
    assert records["deal"].n_unique() == result.deals
    # The last look is the t interval over deals; the one before was too wide.
    assert stopping["final_half_width"] == pytest.approx(t_half_width(deal_shares(records)))
    assert stopping["final_half_width"] <= 0.06 < looks[-2]["half_width"]
    earlier = records.filter(pl.col("deal") < looks[-2]["deals"])
    assert looks[-2]["half_width"] == pytest.approx(t_half_width(deal_shares(earlier)))
    # Counting rotated games as independent would have stopped earlier, on a narrower interval.
    assert max_half_width(earlier) < looks[-2]["half_width"]


def test_until_ci_without_rotation_records_wilson(tmp_path):
    result = play_until("toy", toy_game.load(), ["greedy", "random"], 2, 3, 100, tmp_path, 0.2,
                        batch_size=50, progress=False)
    stopping = result.stopping
    assert stopping["rule"] == FIXED and stopping["method"].startswith("Wilson 95%")
    assert stopping["final_half_width"] == pytest.approx(max_half_width(load_records(tmp_path)))
    assert stopping == load_manifest(tmp_path)["stopping"]


def test_until_ci_anytime_stops_where_the_sequence_reaches_the_target(tmp_path):
    out = tmp_path / "run"
    result = glade("play", "toy", "--games", 100, "--seed", 2, "--bots", "greedy,random", "--rotate-seats",
                   "--until-ci", 0.1, "--anytime", "--batch-size", 100, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    stopping = load_manifest(out)["stopping"]
    rho = mixture_rho(0.1)
    assert stopping["rule"] == ANYTIME and stopping["rho"] == pytest.approx(rho)
    deals = [look["deals"] for look in stopping["looks"]]
    assert mixture_half_width(deals[-1], rho) <= 0.1 < mixture_half_width(deals[-1] - 100, rho)
    assert f"reached the target after {deals[-1]:,} deals ({2 * deals[-1]:,} games)" in result.stdout
    assert "normal-mixture confidence sequence 95%" in result.stdout
    # Re-running continues the same looks; a plain play extending the run keeps the record and says so.
    glade("play", "toy", "--games", 100, "--seed", 2, "--bots", "greedy,random", "--rotate-seats",
          "--until-ci", 0.1, "--anytime", "--batch-size", 100, "--out", out, "--no-progress")
    assert load_manifest(out)["stopping"]["looks"] == stopping["looks"]
    more = glade("play", "toy", "--games", deals[-1] + 50, "--seed", 2, "--bots", "greedy,random", "--rotate-seats",
                 "--out", out, "--no-progress", "--json")
    data = json.loads(more.stdout)
    assert data["stopping"] == stopping
    text = glade("play", "toy", "--games", deals[-1] + 50, "--seed", 2, "--bots", "greedy,random",
                 "--rotate-seats", "--out", out, "--no-progress").stdout
    assert f"then extended to {deals[-1] + 50:,} deals without the rule" in text


def test_until_ci_with_another_rule_keeps_the_earlier_record(tmp_path):
    play_until("toy", toy_game.load(), ["greedy", "random"], 2, 3, 50, tmp_path, 0.3, batch_size=50,
               progress=False)
    first = load_manifest(tmp_path)["stopping"]
    result = play_until("toy", toy_game.load(), ["greedy", "random"], 2, 3, 50, tmp_path, 0.2, batch_size=50,
                        progress=False, anytime=True)
    assert result.stopping["earlier"] == [first]
    assert result.stopping["looks"][0]["deals"] == first["deals"]


def test_anytime_needs_until_ci(tmp_path):
    one_error_line(glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random", "--anytime",
                         "--out", tmp_path / "r"), "--anytime")
