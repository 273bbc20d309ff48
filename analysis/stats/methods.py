"""The methods section's lines: every test and interval the package uses."""

from __future__ import annotations

from analysis.report.text import _confidence
from analysis.stats.common import CONFIDENCE
from analysis.stats.seat_result import LOPSIDED_SHARE


# ---------------------------------------------------------------- methods


def methods_used() -> list[str]:
    """One line per test or interval this module uses, for a report's methods section."""
    level = _confidence(CONFIDENCE)
    return [
        f"Win rates and shares: Wilson score interval ({level}), statsmodels proportion_confint(method='wilson').",
        f"Mean scores, margins, turns and paired differences: t interval ({level}, "
        "scipy.stats.ttest_1samp(...).confidence_interval; from a run's tally of distinct values, the same interval "
        "by statsmodels DescrStatsW(values, weights).tconfint_mean, each value repeated as often as it occurred).",
        "The deal is the unit: games that share a deal (seat rotations, the same seed in two runs or cells) are "
        "not independent, so every test, interval and paired change that meets them counts deals.",
        "Seat advantage between equal players (the same bot in every seat), one game per deal: exact binomial test "
        "of seat 0's wins against 50% among games with a single winner (scipy.stats.binomtest), or with 3-4 players "
        "chi-square goodness of fit of first places (scipy.stats.chisquare, shared first places as fractions); "
        "Wilson intervals; per-seat exact binomial tests, Holm across seats; equivalence by two one-sided exact "
        "binomial tests (scipy.stats.binomtest; a fractional count at its worse whole count for each side).",
        "Seat advantage between equal players, several games per deal: per-deal seat shares; one-sample t test "
        "(scipy.stats.ttest_1samp) or with 3-4 players Hotelling's T-squared (statsmodels test_mvmean); t "
        "intervals; equivalence by DescrStatsW.ttost_mean.",
        "Seat advantage with mixed lineups and rotated seats: this lineup's per-deal seat shares (each bot in every "
        "seat of a deal, so the deal's effect on each bot cancels within the deal), the same t test or Hotelling's "
        "T-squared and t intervals; exact under 'no seat effect'. The shares are the lineup's, pulled toward fair "
        "by the bots' differences, so a mixed lineup shows 'unbalanced' or 'not measured by this lineup', never "
        f"'balanced'; a lineup whose bots are far apart (one over {LOPSIDED_SHARE:.0%} of decided comparisons) is "
        "named as such. Fixed mixed seats: 'not measured by this lineup'.",
        "Balance within +-delta (equal players only): every seat's equivalence test must reject (intersection-union "
        "test): two one-sided exact binomial tests per game, t TOST (DescrStatsW.ttost_mean) per deal.",
        "Sweeps: each cell's verdict and the headline use the same rule, the difference test and the equivalence "
        "test both Holm-corrected across the cells (family_verdicts).",
        "Games still needed: one-sample power on Cohen's h (statsmodels proportion_effectsize, "
        "NormalIndPower.solve_power, ratio=0).",
        "Skill gradient: games of one deal (all seat rotations, same seed) are one paired unit (fishtest's "
        "pentanomial idea); a bot's share of points against another (tie or stall = half) is the mean of per-deal "
        "shares with a t interval (scipy.stats.ttest_1samp), or Wilson on deal units when they do not vary.",
        "Bot ratings: Bradley-Terry by logistic regression on a +-1 design (statsmodels Logit, Newton; constant = "
        "first-seat edge; one bot fixed at 0); with 3-4 players each pair of seats in a game is one comparison; "
        "standard errors clustered by deal (cov_type='cluster') with t intervals on deals - 1 degrees of freedom; "
        "under perfect separation a virtual-draw prior (two drawn comparisons per pairing).",
        "Component strength (observational, biased): win rate when used vs not used per seat-game, the deal as the "
        "unit: Newcombe hybrid score interval (statsmodels confint_proportions_2indep(method='newcomb')) and score "
        "test (test_proportions_2indep(method='score')) on counts divided by the design effect, the cluster-robust "
        "variance by deal (OLS win ~ used, cov_type='cluster') over the independent one, floored at 1; Holm "
        "correction across components.",
        "Paired runs on the same seeds: differences averaged per deal when a deal holds several games; the t "
        "interval of their mean and the one-sample t test it inverts (scipy.stats.ttest_1samp), so interval and p "
        "agree; effect size Cohen's h (or d_z), the detectable difference (normal approximation, z(1-alpha/2) + "
        "z(power) standard errors, 80% power) and the equivalence test within the margin (DescrStatsW.ttost_mean) "
        "behind every 'no change'.",
        "Independent runs: Newcombe interval and score test for two proportions (statsmodels), equivalence by "
        "tost_proportions_2indep; by deal (Welch t, ttost_ind) when a run rotates seats.",
        "Stopping (play --until-ci): every seat's interval of the headline's share by deal (Wilson with one game a "
        "deal, else a t interval of per-deal shares) checked after each step, stopping on the widths; with "
        "--anytime an empirical-Bernstein confidence sequence (Waudby-Smith and Ramdas 2023) valid at every look. "
        "play --until-decided: GSPRT on per-deal shares (fishtest's normal form), fair share against fair +-margin "
        "per seat and side, Bonferroni over the sides for alpha, beta for 'balanced' at the margin. The rule, its "
        "looks and the outcome are in the manifest and the report.",
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
        "still running, t interval by deal.",
        "Cards held (observational): win rate of seat-games that held a card at any point (dealt, gathered or "
        "drawn; 17lands' GIH WR) against those that never did (GNS WR); the difference (IWD) as component strength "
        "(Newcombe and score test on counts divided by the design effect by deal), Holm and Benjamini-Hochberg "
        "across cards.",
    ]
