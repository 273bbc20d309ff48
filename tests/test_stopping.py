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
from analysis.stats import CONFIDENCE, seat_advantage
from analysis.stopping import (ANYTIME, DECIDED, FIXED, SeatStream, StoppingRule, deal_shares, mixture_half_width,
                               mixture_rho, play_until, sprt_look)
from analysis.sweep import load_sweep, run_sweep
from sims.replay import replay_text
from sims.runner import COLLAPSED, load_events, load_manifest, load_records, run
from sims.runspec import RunSpec
from tests import toy_game
from tests.cli_helpers import glade, one_error_line
from tests.golden_files import GOLDEN


def play(out, bots, games=40, rotate_seats=False, **options):
    options.setdefault("progress", False)
    return run(RunSpec("toy", toy_game.load(), bots, len(bots), 11, rotate_seats), games, out, **options)


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
        run(RunSpec("toy", toy_game.load(), ["greedy", "random", "random"], 3, 11, rotate_seats=True), 12, out,
            batch_size=5, progress=False)
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


def stream_of(shares: np.ndarray, target: float = 0.01) -> SeatStream:
    stream = SeatStream(shares.shape[1], target)
    stream.add(shares)
    return stream


def largest_half_width(records: pl.DataFrame, rotations: int, rule: str = FIXED, target: float = 0.01) -> float:
    return StoppingRule(rule, target).look(stream_of(deal_shares(records), target), rotations)["half_width"]


def test_deal_shares_count_as_the_seat_headline_and_the_t_interval_over_deals():
    # Two rotations of 3 deals, 2 seats: seat 0 wins both games of deal 0, one of deal 1, none of deal 2.
    records = pl.DataFrame({
        "game": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
        "deal": [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2],
        "seat": [0, 1] * 6,
        "win": [True, False, True, False, True, False, False, True, False, True, False, True],
    })
    shares = deal_shares(records)
    assert shares.tolist() == [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    x = shares[:, 0]
    by_hand = stats.t.ppf(0.975, 2) * x.std(ddof=1) / math.sqrt(3)
    low, high = stream_of(shares).fixed_interval(rotations=2)
    assert (high - low)[0] / 2 == pytest.approx(by_hand)
    # A shared first place is not a decided 2-player game: deal 1's second game (both first) does not count,
    # as in the seat headline.
    tied = records.with_columns(pl.when(pl.col("game") == 3).then(True).otherwise(pl.col("win")).alias("win"))
    assert deal_shares(tied).tolist() == [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]


def test_the_stream_takes_deals_in_blocks_as_it_takes_them_at_once():
    rng = np.random.default_rng(3)
    shares = rng.integers(0, 3, (1000, 1)) / 2
    shares = np.column_stack([shares, 1 - shares])
    whole, parts = stream_of(shares, 0.02), SeatStream(2, 0.02)
    for block in np.array_split(shares, [1, 7, 300, 301, 999]):
        parts.add(block)
    assert np.concatenate(parts.anytime_interval()) == pytest.approx(np.concatenate(whole.anytime_interval()))
    assert np.concatenate(parts.fixed_interval(2)) == pytest.approx(np.concatenate(whole.fixed_interval(2)))
    assert parts.variance == pytest.approx(shares.var(axis=0, ddof=1))


def test_the_empirical_bernstein_sequence_by_hand():
    """Waudby-Smith and Ramdas (2023), predictable plug-in empirical Bernstein, written out deal by deal."""
    x = np.array([1.0, 0.0, 0.5, 1.0, 1.0, 0.0, 0.5, 0.5])
    target, alpha = 0.1, 0.05
    mean_sum, dev_sum, bets, bet_values, penalty = 0.5, 0.25, 0.0, 0.0, 0.0
    for i, value in enumerate(x, start=1):
        mean_before, variance_before = mean_sum / i, dev_sum / i
        bet = min(target / variance_before, 0.5)
        bets += bet
        bet_values += bet * value
        penalty += 4 * (value - mean_before) ** 2 * (-math.log(1 - bet) - bet) / 4
        mean_sum += value
        dev_sum += (value - mean_sum / (i + 1)) ** 2
    centre, radius = bet_values / bets, (math.log(2 / alpha) + penalty) / bets
    low, high = stream_of(np.column_stack([x, 1 - x]), target).anytime_interval()
    assert (float(low[0]), float(high[0])) == pytest.approx((max(centre - radius, 0), min(centre + radius, 1)))


def test_the_anytime_sequence_costs_about_twice_the_fixed_deals_at_any_variance():
    """Deals until the half-width is 0.01: one game a deal (variance 1/4) and two rotated games (1/8). The
    sequence adapts to the variance (the old worst-case sequence needed 23,700 deals in both)."""
    rng = np.random.default_rng(4)
    for games, variance in ((1, 0.25), (2, 0.125)):
        needed = {}
        for rule in (FIXED, ANYTIME):
            stream = SeatStream(2, 0.01)
            while True:
                x = (rng.random((500, games)) < 0.5).mean(axis=1)
                stream.add(np.column_stack([x, 1 - x]))
                if StoppingRule(rule, 0.01).look(stream, games)["half_width"] <= 0.01:
                    needed[rule] = stream.deals
                    break
        assert needed[FIXED] == pytest.approx(1.96 ** 2 * variance / 0.01 ** 2, rel=0.08)
        assert 1.6 <= needed[ANYTIME] / needed[FIXED] <= 2.2
        assert needed[ANYTIME] < 23_700 * variance / 0.25 * 1.05


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
    draws = draws.astype(np.float64)
    missed = 0
    for stream_values in draws:
        stream, previous, miss = SeatStream(2, 0.02), 0, False
        for look in looks:
            x = stream_values[previous:look]
            stream.add(np.column_stack([x, 1 - x]))
            previous = look
            low, high = (stream.anytime_interval() if rule == ANYTIME
                         else stream.fixed_interval(2 if rotated else 1))
            miss = miss or not low[0] <= p <= high[0]
        missed += miss
    return missed / streams


@pytest.mark.parametrize("p, rotated", [(0.5, False), (0.2, False), (0.5, True)])
def test_the_anytime_rule_covers_at_every_look(p, rotated):
    """400 seeded streams of 4,000 deals, a look every 40: the confidence sequence misses the true
    mean at some look in at most 5% of them; the fixed-level Wilson interval, looked at as often, far more."""
    looks = np.arange(40, 4001, 40)
    rng = np.random.default_rng(12)
    anytime = _miss_at_any_look(ANYTIME, p, 400, looks, rng, rotated)
    assert anytime <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)
    if not rotated:
        fixed = _wilson_miss_at_any_look(p, 400, looks, rng)
        assert fixed > 0.15  # repeated looks inflate the fixed-level interval's 5% error
        some = [_miss_at_any_look(FIXED, p, 30, looks, np.random.default_rng(5)),
                _wilson_miss_at_any_look(p, 30, looks, np.random.default_rng(5))]
        assert some[0] == some[1] > 0  # the vectorised count is SeatStream.fixed_interval's


def _wilson_miss_at_any_look(p: float, streams: int, looks: np.ndarray, rng: np.random.Generator) -> float:
    """:func:`_miss_at_any_look` of the fixed rule with one game a deal (``SeatStream.fixed_interval``: the Wilson
    interval of the seat's wins at each look), every look of every stream at once."""
    wins = np.cumsum(rng.random((streams, int(looks[-1]))) < p, axis=1)[:, looks - 1]
    low, high = proportion_confint(wins, looks, alpha=1 - CONFIDENCE, method="wilson")
    return float(np.mean(np.any((p < low) | (p > high), axis=1)))


# ---------------------------------------------------------------- play --until-ci


def test_until_ci_with_rotation_counts_deals_and_records_its_looks(tmp_path):
    out = tmp_path / "run"
    result = play_until(RunSpec("toy", toy_game.load(), ["greedy", "random"], 2, 3, rotate_seats=True), 60, out, 0.06,
                        max_games=2000, batch_size=60, progress=False)
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
    assert stopping["final_half_width"] == pytest.approx(largest_half_width(records, 2))
    assert stopping["final_half_width"] <= 0.06 < looks[-2]["half_width"]
    earlier = records.filter(pl.col("deal") < looks[-2]["deals"])
    assert looks[-2]["half_width"] == pytest.approx(largest_half_width(earlier, 2))
    # The look's interval is the seat headline's: the same shares, the same t interval.
    headline = seat_advantage(records).seats.row(0, named=True)
    assert stopping["final_half_width"] == pytest.approx((headline["share_high"] - headline["share_low"]) / 2)


def test_until_ci_without_rotation_records_wilson(tmp_path):
    result = play_until(RunSpec("toy", toy_game.load(), ["greedy", "random"], 2, 3), 100, tmp_path, 0.2, batch_size=50,
                        progress=False)
    stopping = result.stopping
    assert stopping["rule"] == FIXED and stopping["method"].startswith("Wilson 95%")
    assert stopping["final_half_width"] == pytest.approx(largest_half_width(load_records(tmp_path), 1))
    assert stopping == load_manifest(tmp_path)["stopping"]


def test_until_ci_anytime_stops_where_the_sequence_reaches_the_target(tmp_path):
    out = tmp_path / "run"
    result = glade("play", "toy", "--games", 100, "--seed", 2, "--bots", "greedy,random", "--rotate-seats",
                   "--until-ci", 0.1, "--anytime", "--batch-size", 100, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    stopping = load_manifest(out)["stopping"]
    assert stopping["rule"] == ANYTIME
    deals = [look["deals"] for look in stopping["looks"]]
    records = load_records(out)
    assert largest_half_width(records, 2, ANYTIME, 0.1) == pytest.approx(stopping["final_half_width"])
    before = records.filter(pl.col("deal") < deals[-1] - 100)
    assert stopping["final_half_width"] <= 0.1 < largest_half_width(before, 2, ANYTIME, 0.1)
    assert f"reached the target after {deals[-1]:,} deals ({2 * deals[-1]:,} games)" in result.stdout
    assert "empirical-Bernstein confidence sequence 95%" in result.stdout
    assert "holds at every look at once" in result.stdout
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
    play_until(RunSpec("toy", toy_game.load(), ["greedy", "random"], 2, 3), 50, tmp_path, 0.3, batch_size=50,
               progress=False)
    first = load_manifest(tmp_path)["stopping"]
    result = play_until(RunSpec("toy", toy_game.load(), ["greedy", "random"], 2, 3), 50, tmp_path, 0.2, batch_size=50,
                        progress=False, anytime=True)
    assert result.stopping["earlier"] == [first]
    assert result.stopping["looks"][0]["deals"] == first["deals"]


def test_anytime_needs_until_ci(tmp_path):
    one_error_line(glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random", "--anytime",
                         "--out", tmp_path / "r"), "--anytime")


def test_until_ci_says_what_holds_at_the_stop(tmp_path):
    result = glade("play", "toy", "--games", 50, "--seed", 3, "--bots", "greedy,greedy", "--until-ci", 0.12,
                   "--batch-size", 50, "--out", tmp_path / "r", "--no-progress")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "every seat's 95% interval at this look is at most +-0.12 wide" in text
    assert "stops on the intervals' widths, not on the estimates" in text
    assert "covers less than" not in text


# ---------------------------------------------------------------- play --until-decided


def test_sprt_look_by_hand():
    # 400 deals of one game: seat 0 wins 210. Seat 0 is tested on both sides of 50% +- 2.5 points.
    x = np.array([1.0] * 210 + [0.0] * 190)
    look = sprt_look(stream_of(np.column_stack([x, 1 - x])), 0.025, 0.05, 0.05)
    variance = (x.var(ddof=1) * 399 + 0.25) / 400
    for side, mu1 in (("lower", 0.475), ("upper", 0.525)):
        by_hand = 400 * (mu1 - 0.5) * (2 * x.mean() - 0.5 - mu1) / (2 * variance)
        assert look["llr"][f"0-{side}"] == pytest.approx(by_hand)
    a = 0.05 / 2
    assert look["bounds"] == pytest.approx([math.log(0.05 / (1 - a)), math.log(0.95 / a)])
    assert look["decision"] == "undecided" and set(look["sides"]) == {"0-lower", "0-upper"}
    three = sprt_look(stream_of(np.full((10, 3), 1 / 3)), 0.025, 0.05, 0.05)
    assert len(three["sides"]) == 6  # every seat of 3, both sides


def _decisions(mu: float, runs: int, seed: int, step: int = 500) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    rule = StoppingRule(DECIDED, 0.025)
    seen = []
    for _ in range(runs):
        stream, look = SeatStream(2, 0.025), None
        while stream.deals < 200_000:
            x = (rng.random(step) < mu).astype(np.float64)
            stream.add(np.column_stack([x, 1 - x]))
            look = rule.look(stream, 1, look)
            if rule.done(look):
                break
        seen.append(look["decision"])
    return {d: seen.count(d) / runs for d in ("balanced", "unbalanced", "undecided")}


def test_until_decided_error_rates_on_a_fair_game_and_at_the_margin():
    """A fair game is called unbalanced, and a game with seat 0 at 52.5% balanced, at most about 5% of the time."""
    runs = 150
    fair = _decisions(0.5, runs, seed=21)
    margin = _decisions(0.525, runs, seed=22)
    assert fair["unbalanced"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs) and fair["undecided"] == 0
    assert margin["balanced"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)


def test_until_decided_plays_until_the_verdict_and_records_it(tmp_path):
    out = tmp_path / "run"
    result = glade("play", "toy", "--games", 100, "--seed", 2, "--bots", "greedy,greedy", "--until-decided",
                   0.1, "--batch-size", 100, "--max-games", 5000, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    stopping = load_manifest(out)["stopping"]
    assert stopping["rule"] == DECIDED and stopping["margin"] == 0.1 and stopping["outcome"] == "reached"
    assert stopping["decision"] in ("balanced", "unbalanced") and stopping["decision"] == stopping["looks"][-1][
        "decision"]
    assert all(look["decision"] == "undecided" for look in stopping["looks"][:-1])
    assert f"until-decided: {stopping['decision']}" in " ".join(result.stdout.split())


def test_until_decided_refuses_a_mixed_lineup_before_writing(tmp_path):
    out = tmp_path / "run"
    one_error_line(glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random", "--until-decided",
                         0.025, "--out", out), "--until-decided")
    assert not out.exists()
    one_error_line(glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,greedy", "--until-decided",
                         0.025, "--until-ci", 0.01, "--out", out), "--until-decided")
