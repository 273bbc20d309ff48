"""The methods section's lines: every test and interval the package uses."""

from __future__ import annotations

from analysis.report.text import _confidence
from analysis.stats.common import BOOTSTRAP_MAX_N, BOOTSTRAP_RESAMPLES, CONFIDENCE, SEED
from analysis.stats.seat_result import LOPSIDED_SHARE


# ---------------------------------------------------------------- methods


def methods_used() -> list[str]:
    """One line per test or interval this module uses, for a report's methods section."""
    level = _confidence(CONFIDENCE)
    return [
        f"Win rates and shares: Wilson score interval ({level}), statsmodels proportion_confint(method='wilson').",
        f"Mean scores, margins, turns and paired differences: percentile bootstrap ({level}, "
        f"{BOOTSTRAP_RESAMPLES:,} resamples, scipy.stats.bootstrap, seeded with {SEED}); above "
        f"{BOOTSTRAP_MAX_N:,} values a t interval on the standard error.",
        "The deal is the unit: games that share a deal (seat rotations, the same seed in two runs or cells) are "
        "not independent, so every test, interval and paired change that meets them counts deals.",
        "Seat advantage between equal players (the same bot in every seat), one game per deal: exact binomial test "
        "of seat 0's wins against 50% among games with a single winner (scipy.stats.binomtest), or with 3-4 players "
        "chi-square goodness of fit of first places (scipy.stats.chisquare, shared first places as fractions); "
        "Wilson intervals; per-seat exact binomial tests, Holm across seats.",
        "Seat advantage between equal players, several games per deal: per-deal seat shares; one-sample t test "
        "(scipy.stats.ttest_1samp) or with 3-4 players Hotelling's T-squared (statsmodels test_mvmean); t "
        "intervals; equivalence by DescrStatsW.ttost_mean.",
        "Seat advantage with mixed lineups and rotated seats: Bradley-Terry logistic regression with seat and bot "
        "terms on every pair of seats with different places (statsmodels Logit, covariance clustered by deal); the "
        "equal-player share of each seat is the softmax of the seat terms with a delta-method interval; joint "
        "clustered Wald test (F reference, deals - 1 degrees of freedom); equivalence by two one-sided t tests. A lineup whose bots are far apart in strength "
        f"(over {LOPSIDED_SHARE:.0%} of decided comparisons) or in fixed seats is 'not measured by this lineup'.",
        "Balance within +-delta: every seat's equivalence test must reject (intersection-union test): exact "
        "binomial TOST (statsmodels binom_tost) per game, t TOST per deal, z TOST on the model's shares.",
        "Sweeps: each cell's verdict and the headline use the same rule, the difference test and the equivalence "
        "test both Holm-corrected across the cells (family_verdicts).",
        "Games still needed: one-sample power on Cohen's h (statsmodels proportion_effectsize, "
        "NormalIndPower.solve_power, ratio=0).",
        "Skill gradient: games of one deal (all seat rotations, same seed) are one paired unit (fishtest's "
        "pentanomial idea); a bot's share of points against another (tie or stall = half) is the mean of per-deal "
        "shares with a t interval (scipy.stats.ttest_1samp), or Wilson on deal units when they do not vary.",
        "Bot ratings: Bradley-Terry by logistic regression on a +-1 design (statsmodels Logit, Newton; constant = "
        "first-seat edge; one bot fixed at 0); with 3-4 players each pair of seats in a game is one comparison; "
        "standard errors clustered by deal (cov_type='cluster'); under perfect separation a virtual-draw prior "
        "(two drawn comparisons per pairing).",
        "Component strength (observational, biased): win rate when used vs not used per seat-game, the deal as the "
        "unit: Newcombe hybrid score interval (statsmodels confint_proportions_2indep(method='newcomb')) and score "
        "test (test_proportions_2indep(method='score')) on counts divided by the design effect, the cluster-robust "
        "variance by deal (OLS win ~ used, cov_type='cluster') over the independent one, floored at 1; Holm "
        "correction across components.",
        "Paired runs on the same seeds: differences averaged per deal when a deal holds several games; Wilcoxon "
        "signed-rank test on them (scipy.stats.wilcoxon, zero_method='wilcox'); for win/loss with one game a deal "
        "McNemar's test (statsmodels mcnemar, exact binomial under 25 discordant pairs); effect size Cohen's h (or "
        "d_z), the detectable difference (normal approximation, z(1-alpha/2) + z(power) standard errors, 80% power) and the equivalence test within the "
        "margin (DescrStatsW.ttost_mean) behind every 'no change'.",
        "Independent runs: Newcombe interval and score test for two proportions (statsmodels), equivalence by "
        "tost_proportions_2indep; by deal (Welch t, ttost_ind) when a run rotates seats.",
        "Stopping (play --until-ci): every seat's win-rate interval by deal (Wilson with one game a deal, else a t "
        "interval of per-deal shares, DescrStatsW.tconfint_mean) checked after each step; with --anytime a "
        "normal-mixture confidence sequence (Robbins; Howard et al. 2021) valid at every look. The rule, its looks "
        "and the outcome are in the manifest and the report.",
        "Many comparisons: Holm (family-wise) or Benjamini-Hochberg (FDR) adjusted p-values "
        "(statsmodels multipletests, method named).",
        "Sample sizes: Cohen's h and normal power of a two-sided proportion test (statsmodels NormalIndPower).",
        "Main effects of a crossed sweep: one OLS of a per-game outcome on the cells (statsmodels, covariance "
        "clustered by deal, use_t=False); each level's marginal mean less the mean of all cells by results.t_test, "
        "each key's main effect and the interaction by joint Wald chi-square tests (results.wald_test); Holm across "
        "terms and across levels.",
        "Response curves of a numeric sweep key: each cell's own estimate and interval; a crossing of the target by "
        "linear interpolation between neighbouring cells (numpy.interp), its range where the interpolated 95% band "
        "holds the target (descriptive, no model).",
        "Seat gap per round: seat 0's score at each round end less the other seats' mean, averaged over the games "
        "still running, interval by deal (percentile bootstrap, or t above 2,000 units).",
        "Cards held (observational): win rate of seat-games that held a card at any point (dealt, gathered or "
        "drawn; 17lands' GIH WR) against those that never did (GNS WR); the difference (IWD) as component strength "
        "(Newcombe and score test on counts divided by the design effect by deal), Holm and Benjamini-Hochberg "
        "across cards.",
    ]
