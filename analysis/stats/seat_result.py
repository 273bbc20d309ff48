"""The seat-advantage result, its context and the per-seat matrix of first-place shares."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from statsmodels.stats.proportion import proportion_effectsize

from analysis.report.text import _interval_pct, _pct, format_p
from analysis.stats.common import (
    CONFIDENCE,
    VERDICT_BALANCED,
    VERDICT_NOT_MEASURED,
    VERDICT_UNBALANCED,
    VERDICT_UNSURE,
)


# ---------------------------------------------------------------- seat advantage

DESIGN_EQUAL = "equal players"
DESIGN_ROTATED = "mixed lineups, seats rotated: each bot in every seat of a deal"
DESIGN_CONFOUNDED = "mixed lineups, seats fixed: bots and seats confounded"
LOPSIDED_SHARE = 0.8  # a bot taking more than this share of decided comparisons against another
ESTIMAND_EQUAL = "equal players"  # the shares are what the same bot in every seat takes
ESTIMAND_LINEUP = "this lineup"  # the shares are this lineup's (bots and seats mixed), not equal players'
ESTIMAND_BOTS = "the seat's bot"  # fixed mixed seats: a seat's share is its bot's
_SHORT_TEST_NAMES = {
    "exact binomial test": "binomial",
    "chi-square goodness of fit": "chi-square",
    "t test on per-deal shares": "t test",
    "Hotelling's T-squared on per-deal shares": "Hotelling's T-squared",
    "clustered Wald test of the seat terms": "clustered Wald",
}


@dataclass(frozen=True)
class SeatAdvantage:
    """Does seat order matter between equal players? Shares per seat, a difference test and an equivalence test.

    The estimate depends on the lineups (``design``):

    - :data:`DESIGN_EQUAL`, the same bot in every seat: first-place shares.
      With one game per deal, per game (Wilson intervals, exact tests); when
      deals hold several games (seat rotations of one deal), per deal: the deal
      is the unit, its games are not independent.
    - :data:`DESIGN_ROTATED`, different bots with seats rotated: this
      lineup's per-deal seat shares (each bot in every seat of a deal), whose
      test is exact under "no seat effect"; the shares are pulled toward fair
      by the bots' differences, so they can show "unbalanced", never
      "balanced".
    - :data:`DESIGN_CONFOUNDED`, different bots in fixed seats: a seat's share
      is also its bot's, so no seat verdict (:data:`VERDICT_NOT_MEASURED`).

    ``seats`` columns: ``seat``, ``games``, ``first_places``, ``share``,
    ``share_low``, ``share_high``, ``p_value`` (that seat against its fair
    share, unadjusted), ``tost_p`` (that seat's equivalence p-value).
    ``verdict``: :data:`VERDICT_BALANCED` (every seat's equivalence test
    rejects at ``alpha``), :data:`VERDICT_UNBALANCED` (the difference test
    rejects), :data:`VERDICT_UNSURE`, or :data:`VERDICT_NOT_MEASURED` (the
    lineup cannot tell; ``lineup_note`` says why and which lineup would).
    ``more_games``: games (deals when deals are the unit) the equivalence test
    would still need with ``power`` if the estimates held.
    """

    players: int
    games: int  # all games of the records
    games_tested: int  # games the shares and tests are of
    ties: int  # games with a shared first place
    stalls: int  # games without a result
    seats: pl.DataFrame
    test: str
    statistic: float
    p_value: float
    tost_p: float
    delta: float
    alpha: float
    power: float
    largest_deviation: float  # largest |share - 1/players|
    largest_deviation_seat: int
    verdict: str
    more_games: int | None
    handling: str  # how ties and stalls were counted
    design: str = DESIGN_EQUAL
    unit: str = "games"  # what n counts: "games" or "deals"
    units_tested: int = 0  # independent units behind the tests (games, or deals)
    share_method: str = f"Wilson {int(100 * CONFIDENCE)}%"
    equivalence_method: str = "TOST (statsmodels binom_tost)"
    lineup_note: str = ""
    detectable: float = float("nan")  # the smallest seat gap (share points) these units detect, two-sided, at power
    estimand: str = ESTIMAND_EQUAL  # whose shares ``seats`` holds: equal players', this lineup's, or the bots'
    blocked: int = 0  # games that ended blocked (no seat could move again): scored, so counted like any other

    @property
    def effect_size(self) -> float:
        """Cohen's h of the furthest seat's share against the fair share."""
        share = float(self.seats["share"][self.largest_deviation_seat])
        if not np.isfinite(share):
            return float("nan")
        return float(proportion_effectsize(share, 1 / self.players))

    @property
    def methods(self) -> list[str]:
        return [self.test, self.equivalence_method, self.share_method, self.handling]

    @property
    def measured(self) -> bool:
        """False when the lineup cannot tell seat balance between equal players."""
        return self.verdict != VERDICT_NOT_MEASURED

    @property
    def tested(self) -> bool:
        """True when a difference test ran (its p-value belongs in a family of tests)."""
        return bool(np.isfinite(self.p_value))

    @property
    def can_show_balance(self) -> bool:
        """True when the shares are equal players' and an equivalence test ran: only then can "balanced" follow."""
        return self.estimand == ESTIMAND_EQUAL and bool(np.isfinite(self.seats["tost_p"].to_numpy()).any())

    @property
    def test_name(self) -> str:
        """The difference test's short name, as a headline quotes it."""
        full = self.test.split(" (")[0]
        return _SHORT_TEST_NAMES.get(full, full)

    @property
    def n_text(self) -> str:
        if self.unit == "deals":
            return f"n = {self.units_tested:,} deals ({self.games_tested:,} games)"
        return f"n = {self.games_tested:,}"

    def describe(self) -> str:
        """Fishtest-style lines: the headline with its test and verdict, then the equivalence test."""
        delta = f"+-{100 * self.delta:g} points"
        rows = self.seats.to_dicts()
        lines = []
        if self.design != DESIGN_EQUAL:
            lines.append(f"{self.design}: {self.lineup_note}" if self.lineup_note else self.design)
        whose = "" if self.estimand == ESTIMAND_EQUAL else " (this lineup)"
        if not np.isfinite(self.seats["share"].to_numpy()).any():
            lines.append(f"seat balance between equal players: {self.verdict}, {self.n_text}")
            return "\n".join(lines)
        if self.design == DESIGN_CONFOUNDED:
            for row in rows:
                lines.append(f"  seat {row['seat']} (its bot) {_pct(row['share'])} "
                             f"{_interval_pct(row['share_low'], row['share_high'])} ({self.share_method})")
            return "\n".join(lines)
        if self.players == 2:
            seat0 = rows[0]
            lines.append(f"seat 0{whose} wins {_pct(seat0['share'])} "
                         f"{_interval_pct(seat0['share_low'], seat0['share_high'])} ({self.share_method}), "
                         f"{self.n_text}, {self.test_name} {format_p(self.p_value)} vs 50%: {self.verdict}")
            if self.can_show_balance:
                lines.append(f"  equivalence within {delta}: {self.equivalence_method.split(' (')[0]} "
                             f"{format_p(self.tost_p)}; {self.handling}")
            else:
                lines.append(f"  no equivalence test: {self.equivalence_method}; {self.handling}")
        else:
            fair = 1 / self.players
            lines.append(f"seat shares{whose} vs {_pct(fair)} each: {self.test_name} {self.statistic:.2f}, "
                         f"{format_p(self.p_value)}, {self.n_text}: {self.verdict}")
            for row in rows:
                equivalence = f", equivalence {format_p(row['tost_p'])}" if self.can_show_balance else ""
                lines.append(f"  seat {row['seat']} {_pct(row['share'])} "
                             f"{_interval_pct(row['share_low'], row['share_high'])} "
                             f"({self.share_method}){equivalence}")
            balance = (f"balanced within {delta} needs every seat's equivalence test to reject (largest "
                       f"{format_p(self.tost_p)})" if self.can_show_balance
                       else f"no equivalence test: {self.equivalence_method}")
            lines.append(f"  largest deviation: seat {self.largest_deviation_seat}, "
                         f"{100 * self.largest_deviation:.2f} points; {balance}; {self.handling}")
        if np.isfinite(self.detectable):
            lines.append(f"  effect size: Cohen's h {self.effect_size:+.3f} (seat {self.largest_deviation_seat}); "
                         f"these {self.unit} detect a seat gap of about {100 * self.detectable:.1f} points "
                         f"({100 * self.power:g}% power, two-sided {100 * self.alpha:g}%)")
        if self.verdict not in (VERDICT_BALANCED, VERDICT_NOT_MEASURED):
            if self.more_games is None:
                lines.append(f"  balance within {delta} cannot be shown while the estimates hold "
                             f"(a seat is {100 * self.largest_deviation:.2f} points off)")
            else:
                lines.append(f"  about {self.more_games:,} more {self.unit} for the equivalence test to pass with "
                             f"{100 * self.power:g}% power if the estimates held")
        return "\n".join(lines)

@dataclass(frozen=True)
class _SeatContext:
    players: int
    games: int
    stalls: int
    ties: int
    delta: float
    alpha: float
    power: float
    blocked: int = 0

    @property
    def fair(self) -> float:
        return 1 / self.players

    @property
    def handling(self) -> str:
        if self.players == 2:
            return f"ties ({self.ties:,}) and stalls ({self.stalls:,}) excluded"
        return (f"shared first places counted as fractions ({self.ties:,} games), stalls ({self.stalls:,}) "
                "excluded")


def _counted_shares(records: pl.DataFrame, games: pl.DataFrame, players: int) -> pl.DataFrame:
    """The counted games, one row per game and seat: ``game, deal, seat, bot, fraction`` (first-place share)."""
    keep = (pl.col("first_places") == 1) if players == 2 else (pl.col("first_places") > 0)
    return (records.join(games.select("game", "first_places"), on="game").filter(keep)
            .with_columns(pl.when(pl.col("win")).then(1.0 / pl.col("first_places")).otherwise(0.0)
                          .alias("fraction"))
            .select("game", "deal", "seat", *(["bot"] if "bot" in records.columns else []), "fraction"))

def _seat_matrix(counted: pl.DataFrame, players: int, unit: str) -> np.ndarray:
    """float ``[units, players]``: each unit's mean first-place share per seat (units sorted)."""
    per_unit = (counted.group_by(unit, "seat").agg(pl.col("fraction").mean())
                .sort(unit, "seat").pivot(on="seat", index=unit, values="fraction", sort_columns=True))
    return np.column_stack([per_unit[str(s)].fill_null(0.0).to_numpy() if str(s) in per_unit.columns
                            else np.zeros(per_unit.height) for s in range(players)])

def _equal_lineup(bot_wins: dict[str, list[int]], players: int) -> str:
    """The lineup that measures seat balance: the strongest bot (the largest share of first places over its
    seat-games; the first seen on a tie) in every seat."""
    strongest = max(bot_wins, key=lambda bot: bot_wins[bot][0] / max(bot_wins[bot][1], 1))
    return ",".join([strongest] * players)


def _seat_result(c: _SeatContext, tested: int, units: int, unit: str, share, low, high, seat_p, tost, test: str,
                 statistic: float, p_value: float, more: int | None, handling: str, design: str, share_method: str,
                 equivalence_method: str, note: str = "", verdict: str | None = None,
                 first: np.ndarray | None = None, detectable: float = float("nan"),
                 estimand: str = ESTIMAND_EQUAL) -> SeatAdvantage:
    share, low, high, seat_p, tost = (np.asarray(x, dtype=np.float64) for x in (share, low, high, seat_p, tost))
    deviation = np.nan_to_num(np.abs(share - c.fair), nan=0.0)
    worst = int(np.argmax(deviation))
    tost_p = float(np.nanmax(tost)) if np.isfinite(tost).any() else float("nan")
    if verdict is None:
        verdict = (VERDICT_BALANCED if tost_p < c.alpha else
                   VERDICT_UNBALANCED if p_value < c.alpha else VERDICT_UNSURE)
    if verdict == VERDICT_BALANCED:
        more = 0
    elif verdict == VERDICT_NOT_MEASURED:
        more = None
    first = np.zeros(c.players) if first is None else first
    seats = pl.DataFrame({
        "seat": pl.Series(range(c.players), dtype=pl.Int8),
        "games": pl.Series([tested] * c.players, dtype=pl.Int64),
        "first_places": pl.Series(first, dtype=pl.Float64),
        "share": pl.Series(share, dtype=pl.Float64),
        "share_low": pl.Series(low, dtype=pl.Float64),
        "share_high": pl.Series(high, dtype=pl.Float64),
        "p_value": pl.Series(seat_p, dtype=pl.Float64),
        "tost_p": pl.Series(tost, dtype=pl.Float64),
    })
    return SeatAdvantage(
        players=c.players, games=c.games, games_tested=tested, ties=c.ties, stalls=c.stalls, seats=seats, test=test,
        statistic=statistic, p_value=p_value, tost_p=tost_p, delta=c.delta, alpha=c.alpha, power=c.power,
        largest_deviation=float(deviation[worst]), largest_deviation_seat=worst, verdict=verdict, more_games=more,
        handling=handling, design=design, unit=unit, units_tested=units, share_method=share_method,
        equivalence_method=equivalence_method, lineup_note=note, detectable=detectable, estimand=estimand,
        blocked=c.blocked,
    )
