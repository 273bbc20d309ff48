"""analysis.stats: known answers computed another way (by hand, closed forms, other scipy routes),
coverage of the Wilson interval, verdicts on synthetic records, and one real Overgrowth run."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scipy import stats as sps

import analysis.stats as S
from analysis.cli import main

Z95 = sps.norm.ppf(0.975)


# ---------------------------------------------------------------- synthetic records


def records_of(games: list[dict]) -> pl.DataFrame:
    """Records from a list of games: each ``{"bots", "ranks", "scores"}`` and optional deal, rotation, turns, end.

    ``ranks`` holds None for every seat of a stall; ``win`` and ``tie`` follow from the ranks as the runner
    derives them.
    """
    rows = []
    for index, game in enumerate(games):
        ranks = game["ranks"]
        firsts = sum(1 for r in ranks if r == 1)
        for seat, (bot, rank, score) in enumerate(zip(game["bots"], ranks, game["scores"])):
            rows.append({
                "game": index, "deal": game.get("deal", index), "rotation": game.get("rotation", 0),
                "seed": game.get("seed", 1000 + game.get("deal", index)), "seat": seat, "bot": bot,
                "score": float(score), "rank": rank, "win": rank == 1, "tie": rank == 1 and firsts > 1,
                "turns": game.get("turns", 10), "end": game.get("end", "goal" if rank is not None else "stall"),
            })
    return pl.DataFrame(rows, schema={
        "game": pl.Int64, "deal": pl.Int64, "rotation": pl.Int8, "seed": pl.UInt64, "seat": pl.Int8,
        "bot": pl.String, "score": pl.Float64, "rank": pl.Int8, "win": pl.Boolean, "tie": pl.Boolean,
        "turns": pl.Int32, "end": pl.String,
    })


def two_player(seat0_wins: int, seat1_wins: int, ties: int = 0, stalls: int = 0, bots=("a", "a")) -> pl.DataFrame:
    """2-player records in bulk: seat 0 wins, then seat 1 wins, shared first places, stalls."""
    ranks = ([(1, 2)] * seat0_wins + [(2, 1)] * seat1_wins + [(1, 1)] * ties + [(None, None)] * stalls)
    n = len(ranks)
    rank = np.array([[np.nan if r is None else r for r in pair] for pair in ranks]).reshape(-1)
    frame = pl.DataFrame({
        "game": np.repeat(np.arange(n), 2), "deal": np.repeat(np.arange(n), 2), "rotation": np.zeros(2 * n),
        "seat": np.tile([0, 1], n), "bot": np.tile(list(bots), n), "score": np.where(rank == 1, 5.0, 3.0),
        "rank": rank, "turns": np.full(2 * n, 12), "end": np.where(np.isnan(rank), "stall", "goal"),
    }, nan_to_null=True).with_columns(pl.col("rank").cast(pl.Int8), pl.col("seat").cast(pl.Int8))
    firsts = frame.group_by("game").agg((pl.col("rank") == 1).sum().alias("firsts"))
    return frame.join(firsts, on="game").with_columns(
        (pl.col("rank") == 1).fill_null(False).alias("win"),
        ((pl.col("rank") == 1) & (pl.col("firsts") > 1)).fill_null(False).alias("tie"),
    ).drop("firsts").sort("game", "seat")


def three_player(first_places: list[int], shared01: int = 0) -> pl.DataFrame:
    """3-player records: ``first_places[s]`` sole wins of seat s, plus games where seats 0 and 1 share first."""
    games = []
    for seat, count in enumerate(first_places):
        ranks = [2, 2, 2]
        ranks[seat] = 1
        ranks[(seat + 1) % 3] = 3
        games += [{"bots": ["a"] * 3, "ranks": list(ranks), "scores": [0, 0, 0]}] * count
    games += [{"bots": ["a"] * 3, "ranks": [1, 1, 3], "scores": [0, 0, 0]}] * shared01
    return records_of(games)


def wilson_by_hand(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


# ---------------------------------------------------------------- API


def test_public_api():
    for name in ["proportion", "Proportion", "proportion_table", "seat_advantage", "SeatAdvantage", "score_margin",
                 "Margin", "game_length", "GameLength", "end_reasons", "lead_changes", "skill_gradient",
                 "SkillGradient", "component_strength", "paired_difference", "PairedDifference", "correct",
                 "games_needed", "half_width_reached", "max_half_width", "methods_used", "mean_interval",
                 "format_proportion_table", "format_component_strength"]:
        assert callable(getattr(S, name)), name


# ---------------------------------------------------------------- proportions


def test_proportion_is_the_wilson_interval():
    result = S.proportion(37, 120)
    assert (result.low, result.high) == pytest.approx(wilson_by_hand(37, 120), abs=1e-12)
    assert result.rate == pytest.approx(37 / 120) and result.method == "Wilson"
    assert S.proportion(10_620, 20_000).describe("seat 0") == \
        "seat 0 wins 53.1% [52.4, 53.8] (Wilson 95%), n = 20,000"
    empty = S.proportion(0, 0)
    assert (empty.low, empty.high) == (0.0, 1.0) and math.isnan(empty.rate)
    with pytest.raises(S.StatsError, match="0 <= k <= n"):
        S.proportion(5, 3)


def test_wilson_95_interval_covers_the_true_rate_in_93_to_97_percent_of_runs():
    rng = np.random.default_rng(7)
    true_rate, n, runs = 0.3, 400, 4000
    wins = rng.binomial(n, true_rate, size=runs)
    intervals = [S.proportion(int(k), n) for k in wins]
    covered = [interval.low <= true_rate <= interval.high for interval in intervals]
    assert 0.93 <= np.mean(covered) <= 0.97


def test_proportion_table_counts_wilson_and_score_intervals():
    rng = np.random.default_rng(3)
    small, big = 300, 2500
    frame = pl.DataFrame({
        "bot": ["small"] * small + ["big"] * big,
        "win": rng.random(small + big) < 0.4,
        "tie": [False] * (small + big),
        "rank": pl.Series([1] * (small + big - 7) + [None] * 7, dtype=pl.Int8),
        "score": rng.normal(10, 3, small + big),
    })
    table = S.proportion_table(frame, "bot")
    assert table.columns == ["bot", "games", "wins", "win_rate", "win_low", "win_high", "ties", "tie_rate",
                             "stalls", "stall_rate", "mean_score", "score_low", "score_high", "score_method"]
    for row in table.to_dicts():
        scores = frame.filter(pl.col("bot") == row["bot"])["score"].to_numpy()
        wins = int(frame.filter(pl.col("bot") == row["bot"])["win"].sum())
        assert (row["win_low"], row["win_high"]) == pytest.approx(wilson_by_hand(wins, len(scores)))
        t_half = sps.t.ppf(0.975, len(scores) - 1) * scores.std(ddof=1) / math.sqrt(len(scores))
        assert row["score_method"] == "t 95%"
        assert (row["score_low"], row["score_high"]) == pytest.approx(
            (scores.mean() - t_half, scores.mean() + t_half), rel=1e-12)
    assert table.filter(pl.col("bot") == "big")["stalls"][0] == 7
    assert "score 10." in S.format_proportion_table(table, "bot")


def test_mean_interval_covers_small_skewed_samples_better_than_the_percentile_bootstrap():
    """n = 50 exponential values, 1,000 seeded samples: the t interval covers the mean in 93-97% of them (the
    percentile bootstrap it replaced covered about 92.7-93.5% of such samples)."""
    rng = np.random.default_rng(50)
    covered = [S.mean_interval(rng.exponential(1.0, 50)) for _ in range(1000)]
    coverage = np.mean([m.low <= 1.0 <= m.high for m in covered])
    assert 0.93 <= coverage <= 0.97, coverage
    assert S.mean_interval(np.full(5, 2.0)).method == "t 95% (no variation)"


# ---------------------------------------------------------------- seat advantage


def test_a_share_on_the_equivalence_bound_needs_no_games_figure_and_does_not_crash():
    # 0.45 - 0.5 is just inside 0.05 in floating point: the TOST bound equals the share (effect size 0).
    result = S.seat_advantage(two_player(45, 55), delta=0.05, alpha=0.05)
    assert result.seats["share"][0] == pytest.approx(0.45)
    assert result.more_games is None


def test_seat_advantage_two_players_exact_binomial_and_tost_by_hand():
    records = two_player(60, 40, ties=3, stalls=2)
    result = S.seat_advantage(records, delta=0.025, alpha=0.05)
    assert (result.games, result.games_tested, result.ties, result.stalls) == (105, 100, 3, 2)
    # Two-sided exact binomial p for p = 0.5 (symmetric): twice the upper tail.
    assert result.p_value == pytest.approx(2 * sps.binom.sf(59, 100, 0.5))
    assert result.tost_p == pytest.approx(max(sps.binom.sf(59, 100, 0.475), sps.binom.cdf(60, 100, 0.525)))
    seat0 = result.seats.row(0, named=True)
    assert seat0["share"] == 0.6 and (seat0["share_low"], seat0["share_high"]) == pytest.approx(
        wilson_by_hand(60, 100))
    assert result.verdict == S.VERDICT_UNSURE  # p = 0.057, and 60% is far outside 50 +- 2.5
    assert result.more_games is None
    text = result.describe()
    assert text.splitlines()[0] == ("seat 0 wins 60.0% [50.2, 69.1] (Wilson 95%), n = 100, "
                                    "binomial p = 0.057 vs 50%: not enough games yet")
    assert "ties (3) and stalls (2) excluded" in text and "cannot be shown" in text


def test_seat_advantage_verdicts_two_players():
    balanced = S.seat_advantage(two_player(10_050, 9_950))
    assert balanced.verdict == S.VERDICT_BALANCED and balanced.more_games == 0
    unbalanced = S.seat_advantage(two_player(1_200, 800))
    assert unbalanced.verdict == S.VERDICT_UNBALANCED and unbalanced.p_value < 1e-10
    assert unbalanced.describe().startswith("seat 0 wins 60.0% [57.8, 62.1] (Wilson 95%), n = 2,000, "
                                            "binomial p < 0.001 vs 50%: unbalanced")
    unsure = S.seat_advantage(two_player(104, 96))
    assert unsure.verdict == S.VERDICT_UNSURE and unsure.more_games > 10_000
    # If the observed 52% held over the games it asks for, the TOST would pass (it plans for 80% power,
    # more than the 50% that an exactly-held rate needs).
    total = 200 + unsure.more_games
    wins = round(0.52 * total)
    assert S.seat_advantage(two_player(wins, total - wins)).verdict == S.VERDICT_BALANCED
    # With a third of those games it would not (the share is already significantly off 50% by then).
    short = round(0.52 * total / 3)
    assert S.seat_advantage(two_player(short, round(total / 3) - short)).verdict == S.VERDICT_UNBALANCED


def test_seat_advantage_three_players_chi_square_by_hand_with_fractional_ties():
    records = three_player([40, 30, 26], shared01=4)
    result = S.seat_advantage(records)
    observed = np.array([42.0, 32.0, 26.0])  # the 4 shared first places give half a game to seats 0 and 1
    expected = 100 / 3
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    assert result.test.startswith("chi-square") and result.statistic == pytest.approx(chi2)
    assert result.p_value == pytest.approx(math.exp(-chi2 / 2))  # chi-square survival with 2 df
    assert result.seats["first_places"].to_list() == pytest.approx(observed)
    assert result.largest_deviation_seat == 0 and result.largest_deviation == pytest.approx(0.42 - 1 / 3)
    assert result.verdict == S.VERDICT_UNSURE
    assert "shared first places counted as fractions (4 games)" in result.describe()


def test_seat_advantage_three_players_verdicts_need_every_seat():
    balanced = S.seat_advantage(three_player([10_000, 10_100, 9_900]))
    assert balanced.verdict == S.VERDICT_BALANCED and (balanced.seats["tost_p"] < 0.05).all()
    one_seat_off = S.seat_advantage(three_player([10_000, 11_000, 9_000]))
    assert one_seat_off.verdict == S.VERDICT_UNBALANCED and one_seat_off.largest_deviation_seat in (1, 2)


# ---------------------------------------------------------------- margins and length


def test_score_margin_by_hand():
    records = records_of([
        {"bots": "ab", "ranks": [1, 2], "scores": [10, 7]},  # 3
        {"bots": "ab", "ranks": [1, 1], "scores": [5, 5]},  # shared first: 0
        {"bots": "ab", "ranks": [1, 2], "scores": [4, 6]},  # won on a goal with fewer points: -2
        {"bots": "ab", "ranks": [2, 1], "scores": [7, 8]},  # 1
        {"bots": "ab", "ranks": [None, None], "scores": [3, 3]},  # stall: excluded
    ])
    margin = S.score_margin(records)
    assert (margin.games, margin.stalls_excluded) == (4, 1)
    assert margin.mean.mean == pytest.approx(0.5) and margin.smallest == 1.0
    assert (margin.smallest_share.k, margin.ties.k, margin.not_outscored.k) == (1, 1, 1)
    assert margin.distribution.rows() == [(-2.0, 1), (0.0, 1), (1.0, 1), (3.0, 1)]
    three = records_of([{"bots": "abc", "ranks": [1, 3, 2], "scores": [9, 6, 7]}])
    assert S.score_margin(three).mean.mean == 2.0
    assert "won by the smallest margin (1)" in margin.describe()


def test_game_length_and_end_reasons_by_hand():
    records = records_of([
        {"bots": "ab", "ranks": [1, 2], "scores": [1, 0], "turns": 10, "end": "goal"},
        {"bots": "ab", "ranks": [1, 2], "scores": [1, 0], "turns": 20, "end": "goal"},
        {"bots": "ab", "ranks": [2, 1], "scores": [1, 0], "turns": 30, "end": "flowers"},
        {"bots": "ab", "ranks": [None, None], "scores": [1, 0], "turns": 40, "end": "stall"},
    ])
    length = S.game_length(records)
    assert length.mean.mean == 25 and (length.q1, length.median, length.q3) == (17.5, 25, 32.5)
    assert (length.minimum, length.maximum) == (10, 40)
    assert length.histogram.rows() == [(10, 1), (20, 1), (30, 1), (40, 1)]
    assert length.stalls.k == 1 and (length.stalls.low, length.stalls.high) == pytest.approx(wilson_by_hand(1, 4))
    ends = S.end_reasons(records)
    assert ends.select("end", "games", "share").rows() == [("goal", 2, 0.5), ("flowers", 1, 0.25),
                                                          ("stall", 1, 0.25)]
    assert length.lead_changes is None and "not recorded" in length.describe()


def test_lead_changes_from_a_running_score():
    records = records_of([{"bots": "ab", "ranks": [1, 2], "scores": [5, 4]},
                          {"bots": "ab", "ranks": [2, 1], "scores": [1, 2]}])
    events = pl.DataFrame({
        # game 0: 0 leads, 1 leads, tie (1 keeps it), 0 leads: 2 changes. game 1: 1 leads throughout.
        "game": [0, 0, 0, 0, 0, 1, 1],
        "seat": [0, 1, 0, 1, 0, 1, 0],
        "score": [1, 2, 2, 2, 5, 2, 1],
    })
    changes = S.lead_changes(records, events)
    assert changes.per_game.rows() == [(0, 2), (1, 0)]
    assert changes.mean.mean == 1.0 and changes.with_change.k == 1
    assert S.lead_changes(records, events.drop("score")) is None


# ---------------------------------------------------------------- skill gradient


def rotated_pair(results: list[tuple[int, int]], bots=("a", "b")) -> pl.DataFrame:
    """2-player rotate-seats records: per deal, (winning seat in rotation 0, in rotation 1).

    Rotation 0 seats bots[0] first, rotation 1 seats bots[1] first; a winner None is a stall.
    """
    games = []
    for deal, winners in enumerate(results):
        for rotation, winner in enumerate(winners):
            lineup = list(bots) if rotation == 0 else list(bots[::-1])
            ranks = [None, None] if winner is None else [1 if s == winner else 2 for s in range(2)]
            games.append({"bots": lineup, "ranks": ranks, "scores": [0, 0], "deal": deal, "rotation": rotation})
    return records_of(games)


def test_skill_gradient_pairs_seat_swapped_games_by_deal():
    # Deals 0-1: a wins both games; deals 2-3: seat 0 wins both (a and b win one each).
    records = rotated_pair([(0, 1), (0, 1), (0, 0), (0, 0)])
    gradient = S.skill_gradient(records)
    row = gradient.pairwise.row(0, named=True)
    assert (row["bot_a"], row["bot_b"], row["deals"], row["games"]) == ("a", "b", 4, 8)
    shares = np.array([1, 1, 0.5, 0.5])  # per deal, not per game
    half = sps.t.ppf(0.975, 3) * shares.std(ddof=1) / 2
    assert row["share"] == 0.75
    assert (row["share_low"], row["share_high"]) == pytest.approx((0.75 - half, 1.0))  # clipped at 1
    assert row["p_value"] == pytest.approx(2 * sps.t.sf(0.25 / (shares.std(ddof=1) / 2), 3))
    # The same 8 results as 8 unrelated deals give another interval: the pairing is what is analysed.
    unpaired = records.with_columns(pl.col("game").alias("deal"))
    assert S.skill_gradient(unpaired).pairwise["share_low"][0] != pytest.approx(row["share_low"])


def test_bradley_terry_matches_the_closed_form_mle():
    # a first: a wins 30 of 40 (seat 0 wins 75%); b first: b wins 16 of 40 (seat 0 wins 40%).
    results = [(0 if d < 30 else 1, 0 if d < 16 else 1) for d in range(40)]
    gradient = S.skill_gradient(rotated_pair(results))
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    # logit P(seat 0 wins) = edge + r(seat 0's bot) - r(seat 1's bot), r(a) = 0: two cells, saturated.
    edge = (logit(0.75) + logit(0.40)) / 2
    b = (logit(0.40) - logit(0.75)) / 2
    # Standard errors are clustered by deal (a deal's two games share their shuffles): the sandwich
    # bread @ meat @ bread by hand, bread the inverse Hessian of the log-likelihood, meat the sum over deals of
    # the outer products of each deal's summed scores, times statsmodels' small-sample factor
    # G / (G - 1) * (N - 1) / (N - K).
    x = np.array([[1.0, -1.0], [1.0, 1.0]] * 40)  # per deal: rotation 0 (a first), rotation 1 (b first)
    y = np.array([float(w == 0) for pair in results for w in pair])
    p = 1 / (1 + np.exp(-(x @ np.array([edge, b]))))
    bread = np.linalg.inv(x.T @ (x * (p * (1 - p))[:, None]))
    deal_scores = (x * (y - p)[:, None]).reshape(40, 2, 2).sum(axis=1)
    meat = deal_scores.T @ deal_scores
    groups, n, k = 40, 80, 2
    clustered = bread @ meat @ bread * groups / (groups - 1) * (n - 1) / (n - k)
    edge_se, b_se = np.sqrt(np.diag(clustered))
    # Not the model-based (independent games) standard error of the saturated fit.
    naive = 0.5 * math.sqrt(1 / (40 * 0.75 * 0.25) + 1 / (40 * 0.40 * 0.60))
    assert abs(b_se - naive) > 0.01
    ratings = {r["bot"]: r for r in gradient.ratings.to_dicts()}
    assert gradient.reference == "a" and ratings["a"]["rating"] == 0.0
    assert ratings["b"]["rating"] == pytest.approx(b, abs=1e-6)
    assert ratings["b"]["se"] == pytest.approx(b_se, rel=1e-4)
    assert gradient.seat_edge == pytest.approx(edge, abs=1e-6)
    assert gradient.seat_edge_se == pytest.approx(edge_se, rel=1e-4)
    assert not gradient.separated
    assert gradient.strongest == "a" and gradient.weakest == "b"
    assert gradient.share("a", "b") == pytest.approx((30 + 24) / 80)
    assert not gradient.gradient_too_flat(0.05) and gradient.gradient_too_flat(0.2)
    assert "a vs b: 67.5% of points" in gradient.describe()


def test_skill_gradient_separation_and_three_player_comparisons():
    separated = S.skill_gradient(rotated_pair([(0, 1)] * 20))  # a always wins
    assert separated.separated and separated.strongest == "a"
    assert np.isfinite(separated.ratings["rating"].to_numpy()).all() and separated.ratings["rating"][1] < -1
    games = [{"bots": ["x", "y", "z"], "ranks": [1, 2, 3], "scores": [0, 0, 0], "deal": d} for d in range(10)]
    games += [{"bots": ["y", "z", "x"], "ranks": [3, 1, 2], "scores": [0, 0, 0], "deal": d} for d in range(10)]
    games += [{"bots": ["z", "x", "y"], "ranks": [1, 1, 3], "scores": [0, 0, 0], "deal": d} for d in range(10)]
    three = S.skill_gradient(records_of(games))
    assert three.comparisons == 30 * 3  # each pair of seats in a game is one comparison
    pairs = {(r["bot_a"], r["bot_b"]): r for r in three.pairwise.to_dicts()}
    assert pairs[("x", "y")]["points_a"] == 10 + 10 + 10  # x beats y in every game
    assert pairs[("x", "z")]["points_a"] == 10 + 0 + 5  # the shared first place is half
    assert three.strongest == "x" and three.weakest == "y"


# ---------------------------------------------------------------- seat designs


def test_fixed_mixed_lineup_is_not_measured_and_names_the_lineup_to_play():
    records = two_player(700, 300, ties=5, bots=("greedy", "random"))
    result = S.seat_advantage(records)
    assert result.design == S.DESIGN_CONFOUNDED and result.verdict == S.VERDICT_NOT_MEASURED
    assert not result.measured and result.more_games is None and math.isnan(result.p_value)
    assert "greedy,random" in result.lineup_note  # the lineup that was played
    assert "greedy,greedy" in result.lineup_note and "--rotate-seats" in result.lineup_note
    assert result.seats["share"].to_list() == pytest.approx([0.7, 0.3])  # raw shares, shown as the bots'
    assert "seat 0 (its bot) 70.0%" in result.describe()


def test_lopsided_rotated_lineup_is_not_measured():
    # a wins both games of 36 deals, b of 4, seat 0 of 2 and seat 1 of 2: seat 0 wins exactly half, a takes
    # 76 of 88 (86.4%) of its comparisons.
    result = S.seat_advantage(rotated_pair([(0, 1)] * 36 + [(1, 0)] * 4 + [(0, 0)] * 2 + [(1, 1)] * 2))
    assert result.design == S.DESIGN_ROTATED and result.verdict == S.VERDICT_NOT_MEASURED
    assert result.estimand == S.ESTIMAND_LINEUP and not result.can_show_balance
    assert result.p_value == pytest.approx(1.0) and result.seats["share"][0] == pytest.approx(0.5)
    assert "a takes 86.4% of its decided comparisons against b" in result.lineup_note
    assert "play a,a" in result.lineup_note
    never_lost = S.seat_advantage(rotated_pair([(0, 1)] * 40))  # every deal split by the bots, never the seats
    assert never_lost.verdict == S.VERDICT_NOT_MEASURED and "a takes 100.0%" in never_lost.lineup_note


def test_lopsided_lineup_is_never_balanced_even_when_its_seat_test_rejects():
    # 10,000 deals: a wins both games of 8,500 and b of 500 (a takes 90%); seat 0 wins both in 560, seat 1
    # in 440. The seat test is significant: "unbalanced"; a mixed lineup has no equivalence test at all.
    records = rotated_pair([(0, 1)] * 8500 + [(1, 0)] * 500 + [(0, 0)] * 560 + [(1, 1)] * 440)
    result = S.seat_advantage(records)
    assert result.p_value < 0.05 and math.isnan(result.tost_p) and "a takes 90.0%" in result.lineup_note
    assert result.verdict == S.VERDICT_UNBALANCED
    confounded = S.seat_advantage(two_player(70, 30, bots=("greedy", "random")))  # not in the family
    (verdict, p_holm, tost_holm), (other, _, _) = S.family_verdicts([result, confounded])
    assert math.isnan(tost_holm) and p_holm == pytest.approx(result.p_value)
    assert verdict == S.VERDICT_UNBALANCED and other == S.VERDICT_NOT_MEASURED
    even = S.seat_advantage(two_player(50, 50))
    # When Holm takes the seat test's evidence away, a mixed run is back to "not measured" (not "unsure").
    weaker = dataclasses.replace(result, p_value=0.03)
    (first, p_first, _), _ = S.family_verdicts([weaker, even])
    assert first == S.VERDICT_NOT_MEASURED and p_first == pytest.approx(0.06)  # Holm over both tested runs


def test_rotated_lineup_whose_bots_decided_every_deal_shows_no_seat_difference():
    # Every deal is won by the same bot in both rotations (a in 6, b in 4): each deal gives seat 0 exactly half.
    result = S.seat_advantage(rotated_pair([(0, 1)] * 6 + [(1, 0)] * 4))
    assert result.design == S.DESIGN_ROTATED
    assert result.seats["share"].to_list() == pytest.approx([0.5, 0.5])
    assert result.p_value == pytest.approx(1.0) and result.verdict == S.VERDICT_NOT_MEASURED
    assert result.more_games is None and "play a,a" in result.lineup_note
    assert S.family_verdicts([result])[0][0] == S.VERDICT_NOT_MEASURED


def test_rotated_two_player_lineup_share_is_the_mean_per_deal_share_with_a_t_test_by_hand():
    # a first (rotation 0): seat 0 wins 30 of 40 deals; b first (rotation 1): seat 0 wins 16 of 40.
    results = [(0 if d < 30 else 1, 0 if d < 16 else 1) for d in range(40)]
    result = S.seat_advantage(rotated_pair(results))
    assert result.design == S.DESIGN_ROTATED and result.estimand == S.ESTIMAND_LINEUP
    per_deal = np.array([((w0 == 0) + (w1 == 0)) / 2 for w0, w1 in results])  # seat 0's share of each deal
    t = (per_deal.mean() - 0.5) / (per_deal.std(ddof=1) / math.sqrt(40))
    assert result.p_value == pytest.approx(2 * sps.t.sf(abs(t), 39))
    half = sps.t.ppf(0.975, 39) * per_deal.std(ddof=1) / math.sqrt(40)
    seat0 = result.seats.row(0, named=True)
    assert seat0["share"] == pytest.approx(46 / 80)
    assert (seat0["share_low"], seat0["share_high"]) == pytest.approx((46 / 80 - half, 46 / 80 + half))
    assert result.seats["first_places"].to_list() == [46.0, 34.0]  # whole games, exactly
    assert result.unit == "deals" and result.units_tested == 40
    text = result.describe()
    assert "seat 0 (this lineup) wins 57.5%" in text and "no equivalence test" in text


def test_rotated_lineup_test_compares_each_bot_with_itself_across_seats():
    # A deal suits one bot in both rotations (a wins both games of 50 deals, b of 50), and in 20 more deals
    # the bot in seat 0 wins both: the only seat evidence. Pooled per game, seat 0 wins 120 of 240 (50%),
    # but per deal the contrast is 20 deals at 1 against 100 at 0.5.
    result = S.seat_advantage(rotated_pair([(0, 1)] * 50 + [(1, 0)] * 50 + [(0, 0)] * 20))
    per_deal = np.array([0.5] * 100 + [1.0] * 20)
    assert result.seats["share"][0] == pytest.approx(per_deal.mean())
    assert result.p_value == pytest.approx(sps.ttest_1samp(per_deal, 0.5).pvalue)
    assert result.verdict == S.VERDICT_UNBALANCED


def test_rotated_records_that_do_not_seat_every_bot_everywhere_are_not_measured():
    games = [{"bots": ["a", "b"], "ranks": [1, 2], "scores": [0, 0], "deal": d, "rotation": 0} for d in range(20)]
    games += [{"bots": ["b", "a"], "ranks": [1, 2], "scores": [0, 0], "deal": d, "rotation": 1} for d in range(10)]
    result = S.seat_advantage(records_of(games))
    assert result.verdict == S.VERDICT_NOT_MEASURED and "10 deals do not seat every bot" in result.lineup_note


def test_first_places_are_exact_counts():
    two = S.seat_advantage(two_player(150, 50, ties=7))
    assert two.seats["first_places"].to_list() == [150.0, 50.0]
    nothing = S.seat_advantage(two_player(0, 0, ties=3))  # no game counted: zero first places, not NaN
    assert nothing.seats["first_places"].to_list() == [0.0, 0.0]
    three = S.seat_advantage(three_player([40, 30, 26], shared01=3))
    assert three.seats["first_places"].to_list() == [41.5, 31.5, 26.0]


def test_equivalence_on_fractional_first_places_takes_the_worse_whole_count():
    from analysis.stats.seat_tests import _tost_p
    # 78.5 first places of 200 against 1/3 +- 0.025: the lower test uses 78, the upper 79.
    p = _tost_p(78.50000000000001, 200, 1 / 3, 0.025)
    lower = sps.binom.sf(77, 200, 1 / 3 - 0.025)  # P(X >= 78)
    upper = sps.binom.cdf(79, 200, 1 / 3 + 0.025)  # P(X <= 79)
    assert p == pytest.approx(max(lower, upper))
    assert _tost_p(100.0, 200, 0.5, 0.05) == pytest.approx(
        max(sps.binom.sf(99, 200, 0.45), sps.binom.cdf(100, 200, 0.55)))


def test_replayed_rotations_count_deals_not_games():
    # Old runs: same bot in both seats, rotation 1 an exact replay of rotation 0. Seat 0 wins 60 of 100 deals.
    games = []
    for deal in range(100):
        ranks = [1, 2] if deal < 60 else [2, 1]
        games += [{"bots": ["a", "a"], "ranks": ranks, "scores": [0, 0], "deal": deal, "rotation": r}
                  for r in range(2)]
    result = S.seat_advantage(records_of(games))
    assert (result.unit, result.units_tested, result.games_tested) == ("deals", 100, 200)
    values = np.array([1.0] * 60 + [0.0] * 40)
    t = (values.mean() - 0.5) / (values.std(ddof=1) / 10)
    assert result.p_value == pytest.approx(2 * sps.t.sf(t, 99))  # 100 values, not 200
    half = sps.t.ppf(0.975, 99) * values.std(ddof=1) / 10
    seat0 = result.seats.row(0, named=True)
    assert (seat0["share_low"], seat0["share_high"]) == pytest.approx((0.6 - half, 0.6 + half))
    assert result.test.startswith("t test on per-deal shares")
    assert "n = 100 deals (200 games)" in result.describe()


def test_three_player_rotations_use_hotelling_on_per_deal_shares():
    rng = np.random.default_rng(12)
    games = []
    for deal in range(30):
        for rotation in range(3):
            first = int(rng.choice(3, p=[0.5, 0.3, 0.2]))
            ranks = [2, 2, 2]
            ranks[first] = 1
            ranks[(first + 1) % 3] = 3
            games.append({"bots": ["a"] * 3, "ranks": ranks, "scores": [0, 0, 0], "deal": deal,
                          "rotation": rotation})
    records = records_of(games)
    result = S.seat_advantage(records)
    assert result.unit == "deals" and result.units_tested == 30 and result.test.startswith("Hotelling")
    wins = records.filter(pl.col("win")).group_by("deal", "seat").len().pivot(on="seat", index="deal",
                                                                                values="len").fill_null(0)
    shares = np.column_stack([wins[str(s)].to_numpy() if str(s) in wins.columns else np.zeros(30)
                              for s in range(3)]) / 3
    data, n, k = shares[:, :2], 30, 2
    gap = data.mean(axis=0) - 1 / 3
    t2 = n * gap @ np.linalg.inv(np.cov(data, rowvar=False)) @ gap
    f = (n - k) / (k * (n - 1)) * t2
    assert result.p_value == pytest.approx(sps.f.sf(f, k, n - k), rel=1e-9)
    assert result.statistic in (pytest.approx(t2), pytest.approx(f))
    assert result.seats["share"].to_list() == pytest.approx(shares.mean(axis=0).tolist())


# ---------------------------------------------------------------- components


def test_component_strength_by_hand():
    # 10 games, 20 seat-games. Seat 0 wins games 0-6, seat 1 games 7-9.
    records = records_of([{"bots": "ab", "ranks": [1, 2] if g < 7 else [2, 1], "scores": [0, 0]}
                          for g in range(10)])
    events = pl.DataFrame({
        "game": [0, 0, 1, 2, 3, 4, 7, 8, 8, 9, 5],
        "seat": [0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1],
        "kind": ["bloom", "bloom", "bloom", "bloom", "bloom", "bloom", "bloom", "bloom", "bloom", "bloom", "cut"],
    })
    table = S.component_strength(records, events, values=["bloom", "cut", "graft"])
    bloom = table.filter(pl.col("kind") == "bloom").row(0, named=True)
    # bloom used by (0,0) (1,0) (2,0) (3,0) (4,1) (7,1) (8,1) (8,0) (9,0): 9 seat-games, winners 0-3, 7, 8.
    assert (bloom["seat_games"], bloom["used"], bloom["wins_used"], bloom["events"]) == (20, 9, 6, 10)
    assert (bloom["not_used"], bloom["wins_not_used"]) == (11, 4)
    p1, p0 = 6 / 9, 4 / 11
    assert bloom["difference"] == pytest.approx(p1 - p0)
    # The deal (here the game) is the unit: the sandwich variance of the difference sums, per game, each
    # seat-game's influence, (win - p1) / 9 for a user and -(win - p0) / 11 for a non-user; with the small-sample
    # factor G / (G - 1) * (N - 1) / (N - 2). Its ratio to the independent variance is the design effect.
    used = {(0, 0), (1, 0), (2, 0), (3, 0), (4, 1), (7, 1), (8, 1), (8, 0), (9, 0)}
    influence = [sum(((1.0 if (g < 7) == (s == 0) else 0.0) - p1) / 9 if (g, s) in used
                     else -((1.0 if (g < 7) == (s == 0) else 0.0) - p0) / 11 for s in (0, 1)) for g in range(10)]
    sandwich = 10 / 9 * 19 / 18 * sum(u * u for u in influence)
    deff = max(1.0, sandwich / (p1 * (1 - p1) / 9 + p0 * (1 - p0) / 11))
    assert bloom["design_effect"] == pytest.approx(deff) and deff > 1  # users and non-users of a game move apart
    # Newcombe's hybrid score interval from the two Wilson intervals, on the counts divided by the design effect.
    l1, u1 = wilson_by_hand(6 / deff, 9 / deff)
    l0, u0 = wilson_by_hand(4 / deff, 11 / deff)
    assert bloom["diff_low"] == pytest.approx(p1 - p0 - math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2))
    assert bloom["diff_high"] == pytest.approx(p1 - p0 + math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2))
    # Score test of no difference: pooled variance with the Miettinen-Nurminen n / (n - 1) factor.
    pooled, n = 10 / 20, 20 / deff
    z = (p1 - p0) / math.sqrt(pooled * (1 - pooled) * (deff / 9 + deff / 11) * n / (n - 1))
    assert bloom["p_value"] == pytest.approx(2 * sps.norm.sf(abs(z)))
    cut = table.filter(pl.col("kind") == "cut").row(0, named=True)
    graft = table.filter(pl.col("kind") == "graft").row(0, named=True)
    assert (cut["used"], cut["wins_used"]) == (1, 0)
    assert graft["used"] == 0 and graft["unused"] and math.isnan(graft["p_value"])
    # Holm over the two components with a test.
    low, high = sorted([bloom["p_value"], cut["p_value"]])
    holm = {low: min(1, 2 * low), high: min(1, max(2 * low, high))}
    assert bloom["p_holm"] == pytest.approx(holm[bloom["p_value"]])
    assert not bloom["dominant"]  # far from significant on 20 seat-games
    by_bot = S.component_strength(records, events, by="bot")
    assert by_bot.columns[:2] == ["bot", "kind"] and by_bot["seat_games"].to_list() == [10, 10, 10, 10]
    assert "observational" in S.format_component_strength(table)


def test_component_strength_flags_a_dominant_component():
    records = records_of([{"bots": "ab", "ranks": [1, 2] if g % 2 else [2, 1], "scores": [0, 0]}
                          for g in range(400)])
    winners = records.filter(pl.col("win")).select("game", "seat")
    events = winners.with_columns(pl.lit("crown").alias("kind"))
    table = S.component_strength(records, events)
    crown = table.row(0, named=True)
    assert crown["difference"] == 1.0 and crown["dominant"] and not crown["unused"]


# ---------------------------------------------------------------- paired runs


def paired_runs(base_wins: list[bool], other_wins: list[bool]) -> tuple[pl.DataFrame, pl.DataFrame]:
    n = len(base_wins)
    key = {"deal": range(n), "rotation": [0] * n, "seat": [0] * n, "seed": range(n)}
    return (pl.DataFrame({**key, "win": base_wins, "score": [float(w) * 2 for w in base_wins]}),
            pl.DataFrame({**key, "win": other_wins, "score": [float(w) * 2 for w in other_wins]}))


def test_paired_difference_identical_runs_show_nothing():
    base, _ = paired_runs([True, False] * 100, [True] * 200)
    result = S.paired_difference(base, base)
    assert result.difference == 0 and (result.mean.low, result.mean.high) == (0, 0)
    assert result.p_value == 1.0 and result.base_only == result.other_only == 0
    assert S.paired_difference(base, base, "score").p_value == 1.0


def test_paired_difference_t_interval_and_t_test_by_hand_agree():
    # 50 pairs: 20 won in both, 3 only in base, 10 only in other, 17 in neither.
    base_wins = [True] * 20 + [True] * 3 + [False] * 10 + [False] * 17
    other_wins = [True] * 20 + [False] * 3 + [True] * 10 + [False] * 17
    base, other = paired_runs(base_wins, other_wins)
    result = S.paired_difference(base, other)
    assert result.difference == pytest.approx(7 / 50) and (result.base_only, result.other_only) == (3, 10)
    d = np.array(other_wins, dtype=float) - np.array(base_wins, dtype=float)
    se = d.std(ddof=1) / math.sqrt(50)
    t = d.mean() / se
    assert result.p_value == pytest.approx(2 * sps.t.sf(t, 49))
    half = sps.t.ppf(0.975, 49) * se
    assert (result.mean.low, result.mean.high) == pytest.approx((d.mean() - half, d.mean() + half))
    # One computation: the interval leaves out 0 exactly when p < 5%, at any level of evidence.
    for flips in range(0, 11):
        b, o = paired_runs(base_wins, other_wins[:23] + [True] * flips + [False] * (10 - flips) + other_wins[33:])
        r = S.paired_difference(b, o)
        assert (r.p_value < 0.05) == (not r.mean.low <= 0 <= r.mean.high)
    assert "t test p = " in result.describe() and "(3 won only in base, 10 only in other)" in result.describe()


def test_paired_difference_equivalence_is_judged_at_its_alpha():
    base, other = paired_runs([True, False] * 100, [True, False] * 95 + [False, False] * 5)
    loose = S.paired_difference(base, other, margin=0.05, alpha=0.2)
    strict = S.paired_difference(base, other, margin=0.05, alpha=0.001)
    assert loose.equivalence_p == strict.equivalence_p
    assert 0.001 < loose.equivalence_p < 0.2
    assert loose.equivalent and not strict.equivalent


def test_paired_difference_refuses_runs_that_do_not_pair():
    base, other = paired_runs([True] * 10, [False] * 10)
    with pytest.raises(S.StatsError, match="same deal, rotation, seat in both runs"):
        S.paired_difference(base, other.filter(pl.col("deal") < 9))
    with pytest.raises(S.StatsError, match="same seeds"):
        S.paired_difference(base, other.with_columns(pl.col("seed") + 1))
    with pytest.raises(S.StatsError, match="several rows for one key"):
        S.paired_difference(pl.concat([base, base]), other)


def test_paired_difference_averages_rotations_per_deal():
    # 2 rotations a deal: rows (deal, rotation). Per-deal differences are the unit.
    rng = np.random.default_rng(4)
    base_wins = rng.random(120) < 0.5
    other_wins = np.where(rng.random(120) < 0.8, base_wins, rng.random(120) < 0.7)
    key = {"deal": np.repeat(np.arange(60), 2), "rotation": np.tile([0, 1], 60), "seat": np.zeros(120, dtype=int)}
    base, other = pl.DataFrame({**key, "win": base_wins}), pl.DataFrame({**key, "win": other_wins})
    result = S.paired_difference(base, other)
    per_deal = (other_wins.astype(float) - base_wins).reshape(60, 2).mean(axis=1)
    assert (result.unit, result.units, result.pairs) == ("deals", 60, 120)
    assert result.difference == pytest.approx(per_deal.mean())
    assert result.base_only is None and result.test.startswith("t test on paired differences")
    assert result.p_value == pytest.approx(sps.ttest_1samp(per_deal, 0.0).pvalue)
    z = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)  # the normal approximation of the detectable difference
    assert result.detectable == pytest.approx(per_deal.std(ddof=1) * z / math.sqrt(60))
    assert "in 60 deals" in result.describe()
    one_a_deal = S.paired_difference(base.filter(pl.col("rotation") == 0), other.filter(pl.col("rotation") == 0))
    assert one_a_deal.unit == "pairs" and one_a_deal.base_only is not None


# ---------------------------------------------------------------- multiplicity, power, stopping


def test_correct_holm_and_benjamini_hochberg_by_hand():
    p = [0.01, 0.04, 0.03, 0.5]
    # Holm: sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1, then running maximum.
    assert S.correct(p, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.5])
    # BH: p * m / rank, then running minimum from the top.
    assert S.correct(p, "fdr_bh") == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5])
    with_nan = S.correct([0.01, float("nan"), 0.04], "holm")
    assert with_nan[0] == pytest.approx(0.02) and math.isnan(with_nan[1]) and with_nan[2] == pytest.approx(0.04)
    with pytest.raises(S.StatsError, match="holm, fdr_bh"):
        S.correct(p, "holm-sidak")


def test_games_needed_matches_stats_md_and_the_closed_form():
    for delta, rough in [(0.01, 19_600), (0.02, 4_900), (0.05, 780)]:
        n = S.games_needed(delta)
        assert abs(n - rough) / rough < 0.005
        h = 2 * math.asin(math.sqrt(0.5 + delta)) - 2 * math.asin(math.sqrt(0.5))
        assert n == math.ceil(((Z95 + sps.norm.ppf(0.8)) / h) ** 2)
        assert S.games_needed(delta, arms=2) == pytest.approx(2 * n, abs=2)
    assert S.games_needed(0.02) == 4_903
    with pytest.raises(S.StatsError, match="strictly between 0 and 1"):
        S.games_needed(0.6)


def test_max_half_width_and_half_width_reached():
    records = two_player(300, 200)  # seat 0 wins 300 of 500, seat 1 200 of 500
    halves = [(h - low) / 2 for low, h in (wilson_by_hand(300, 500), wilson_by_hand(200, 500))]
    assert S.max_half_width(records) == pytest.approx(max(halves))
    assert S.half_width_reached(records, 0.05) and not S.half_width_reached(records, 0.03)


def test_methods_used_names_every_method():
    text = "\n".join(S.methods_used())
    for method in ["Wilson", "ttest_1samp", "binomtest", "chisquare", "ttost_mean", "NormalIndPower", "Bradley-Terry",
                   "Logit", "newcomb", "Holm", "test_mvmean", "Waudby-Smith", "GSPRT", "Benjamini-Hochberg",
                   "pentanomial"]:
        assert method in text, method


# ---------------------------------------------------------------- command line


def test_plan_prints_games_needed():
    result = CliRunner().invoke(main, ["plan", "--delta", "0.02"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == (
        "detecting 52.0% vs 50.0% (two-sided alpha 0.05, power 0.80, Cohen's h 0.040): 4,903 games against a "
        "known 50.0%, 9,806 games per arm to compare two runs")
    four = CliRunner().invoke(main, ["plan", "--delta", "0.01", "--power", "0.9", "--base", "0.25"])
    assert four.exit_code == 0 and "detecting 26.0% vs 25.0%" in four.stdout
    bad = CliRunner().invoke(main, ["plan", "--delta", "0.6"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.output


# ---------------------------------------------------------------- a real run


def test_skill_gradient_on_overgrowth_says_greedy_beats_random(tmp_path):
    from sims.overgrowth import GAME
    from sims.runner import load_events, load_records, run
    from sims.runspec import RunSpec

    run(RunSpec("overgrowth", GAME.load_config(), ["greedy", "random"], 2, 11, rotate_seats=True), 200, tmp_path,
        progress=False)
    records = load_records(tmp_path)
    gradient = S.skill_gradient(records)
    pair = gradient.pairwise.row(0, named=True)
    assert (pair["bot_a"], pair["bot_b"], pair["deals"], pair["games"]) == ("greedy", "random", 200, 400)
    assert pair["share_low"] > 0.5 and gradient.strongest == "greedy"
    ratings = dict(gradient.ratings.select("bot", "rating").iter_rows())
    assert ratings["greedy"] > ratings["random"] and not gradient.gradient_too_flat(0.1)
    # The rest of the module runs on real records too.
    assert S.seat_advantage(records).games == 400
    assert S.game_length(records, load_events(tmp_path)).lead_changes is None
    assert "kind" in S.component_strength(records, load_events(tmp_path)).columns


@pytest.mark.parametrize("lineup, rotate", [("aa", False), ("aaa", True), ("xy", True), ("xyzz", True),
                                            ("xy", False)])
def test_seat_advantage_streams_a_lazy_run_a_block_of_deals_at_a_time(lineup, rotate):
    """The tally of a lazy frame read 7 deals at a time gives the analysis of the whole table, field by field."""
    from tests.test_calibration import STRENGTHS, draw

    records = draw(np.random.default_rng(len(lineup)), 60, list(lineup), STRENGTHS, rotate=rotate, deal_sd=0.7,
                   bot_sd=0.7, ties=0.1, stalls=0.05, seat_effect=[0.3] + [0.0] * (len(lineup) - 1))
    whole = S.seat_advantage(records)
    streamed = S.seat_advantage(S.seat_tally(records.lazy(), block_deals=7))
    assert streamed.describe() == whole.describe()
    assert streamed.seats.equals(whole.seats)
    assert (streamed.verdict, streamed.lineup_note, streamed.games) == (whole.verdict, whole.lineup_note, whole.games)
