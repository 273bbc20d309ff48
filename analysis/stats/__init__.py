"""Statistics over a run's records: seat advantage, skill, components, game length, paired cells.

Game-independent: every function reads the records table (one row per game and
seat: ``game, deal, rotation, seed, seat, bot, score, rank, win, tie, turns,
end`` plus game columns; ``rank`` null means a stall) and, where it needs one,
the events table (keyed by ``game``, with ``seat`` and a component column such
as ``kind``).

Nothing is hand-rolled that scipy or statsmodels has (docs/statistics.md), and
every library call names its method, because the defaults are traps
(``binomtest().proportion_ci`` is Clopper-Pearson, ``proportion_confint`` is
Wald, ``multipletests`` is Holm-Sidak). Each result is a small frozen
dataclass or a polars DataFrame with explicit columns, carries the names of the
methods it used, and has a ``describe()`` (or a ``format_*`` helper) that
writes it fishtest-style::

    seat 0 wins 53.1% [52.4, 53.8] (Wilson 95%), n = 20,000, binomial p < 0.001 vs 50%: unbalanced

:func:`methods_used` lists every test and interval for a report's methods
section. Bootstraps are seeded (:data:`SEED`), so a report is reproducible.
"""

from __future__ import annotations

from analysis.report.text import format_p  # read as stats.format_p by the reports
from analysis.stats.common import (
    BAND_SHARE,
    BLOCKED,
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    CORRECTIONS,
    ELO_PER_LOGIT,
    SEED,
    STALL,
    StatsError,
    UNFINISHED_LIMIT,
    VERDICT_BALANCED,
    VERDICT_NOT_MEASURED,
    VERDICT_UNBALANCED,
    VERDICT_UNSURE,
    _per_game,
)
from analysis.stats.intervals import (
    MeanInterval,
    Proportion,
    clustered_mean,
    clustered_proportion,
    format_proportion_table,
    mean_interval,
    proportion,
    proportion_table,
)
from analysis.stats.power import (
    cohens_h,
    detectable_z,
    games_needed,
    points_for_h,
    solved,
)
from analysis.stats.seat_result import (
    DESIGN_CONFOUNDED,
    DESIGN_EQUAL,
    DESIGN_ROTATED,
    ESTIMAND_BOTS,
    ESTIMAND_EQUAL,
    ESTIMAND_LINEUP,
    LOPSIDED_SHARE,
    SeatAdvantage,
    _counted_shares,
    _seat_matrix,
)
from analysis.stats.seat_tally import SeatTally, seat_tally
from analysis.stats.seats import (
    half_width_reached,
    max_half_width,
    seat_advantage,
)
from analysis.stats.outcomes import (
    BandShare,
    GameLength,
    Unfinished,
    band_share,
    unfinished,
    LeadChanges,
    Margin,
    end_reasons,
    game_length,
    lead_changes,
    score_margin,
)
from analysis.stats.skill import (
    SkillGradient,
    skill_gradient,
)
from analysis.stats.components import (
    ClusteredDifference,
    clustered_difference,
    component_strength,
    format_component_strength,
    item_strength,
)
from analysis.stats.paired import (
    PairTally,
    PairedDifference,
    ShareTally,
    correct,
    family_verdicts,
    first_place_share,
    pair_tally,
    paired_difference,
    paired_from_tally,
    seat_fractions,
    seat_share_change,
    share_change_from_tally,
    share_tally,
)
from analysis.stats.outcome_tally import OutcomeTally, outcome_tally
from analysis.stats.designer import (
    Drama,
    POINTS_PREFIX,
    ScoreSources,
    Tempo,
    UNATTRIBUTED,
    drama,
    points_columns,
    score_sources,
    tempo,
)
from analysis.stats.methods import (
    methods_used,
)

__all__ = [
    "format_p",
    "BAND_SHARE",
    "BLOCKED",
    "BOOTSTRAP_RESAMPLES",
    "CONFIDENCE",
    "CORRECTIONS",
    "ELO_PER_LOGIT",
    "SEED",
    "STALL",
    "UNFINISHED_LIMIT",
    "StatsError",
    "VERDICT_BALANCED",
    "VERDICT_NOT_MEASURED",
    "VERDICT_UNBALANCED",
    "VERDICT_UNSURE",
    "_per_game",
    "MeanInterval",
    "Proportion",
    "clustered_mean",
    "clustered_proportion",
    "format_proportion_table",
    "half_width_reached",
    "max_half_width",
    "mean_interval",
    "proportion",
    "proportion_table",
    "cohens_h",
    "detectable_z",
    "games_needed",
    "points_for_h",
    "solved",
    "DESIGN_ROTATED",
    "SeatTally",
    "seat_tally",
    "ESTIMAND_BOTS",
    "ESTIMAND_EQUAL",
    "ESTIMAND_LINEUP",
    "DESIGN_CONFOUNDED",
    "DESIGN_EQUAL",
    "LOPSIDED_SHARE",
    "SeatAdvantage",
    "_counted_shares",
    "_seat_matrix",
    "seat_advantage",
    "BandShare",
    "GameLength",
    "Unfinished",
    "band_share",
    "unfinished",
    "LeadChanges",
    "Margin",
    "end_reasons",
    "game_length",
    "lead_changes",
    "score_margin",
    "SkillGradient",
    "skill_gradient",
    "ClusteredDifference",
    "clustered_difference",
    "component_strength",
    "format_component_strength",
    "item_strength",
    "PairTally",
    "PairedDifference",
    "ShareTally",
    "OutcomeTally",
    "outcome_tally",
    "pair_tally",
    "paired_from_tally",
    "share_change_from_tally",
    "share_tally",
    "correct",
    "family_verdicts",
    "first_place_share",
    "paired_difference",
    "seat_fractions",
    "seat_share_change",
    "Drama",
    "POINTS_PREFIX",
    "ScoreSources",
    "Tempo",
    "UNATTRIBUTED",
    "drama",
    "points_columns",
    "score_sources",
    "tempo",
    "methods_used",
]
