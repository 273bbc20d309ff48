"""Component strength: win rate when a component is used against not, the deal as the unit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.proportion import confint_proportions_2indep, test_proportions_2indep

from analysis.report.text import _confidence, _interval_pct, _pct, _signed_points, format_p
from analysis.stats.common import CONFIDENCE, _require, by_games, columns_of
from analysis.stats.paired import correct


# ---------------------------------------------------------------- components


@dataclass(frozen=True)
class ClusteredDifference:
    """A difference of two win rates whose rows come in clusters (the seat-games of one deal).

    ``design_effect`` is the cluster-robust variance of the difference over the
    variance it would have if every row were independent (at least 1);
    ``low``/``high`` and ``p_value`` are Newcombe's interval and the score test
    on the counts divided by it (effective counts, Rao and Scott's adjustment).
    """

    difference: float
    low: float
    high: float
    p_value: float
    design_effect: float
    clusters: int


def clustered_difference(win: np.ndarray, used: np.ndarray, cluster: np.ndarray,
                         confidence: float = CONFIDENCE) -> ClusteredDifference:
    """Win rate of the ``used`` rows minus the others', the ``cluster`` (deal) as the unit.

    The seat-games of one deal are not independent: its games share their
    shuffles (seat rotations), and in one game one seat's win is another's loss,
    which makes an item's users and non-users of one deal move in opposite
    directions. The variance of the difference is therefore the cluster-robust
    (sandwich) variance of the slope of ``win ~ 1 + used`` (statsmodels OLS,
    ``cov_type="cluster"`` by ``cluster``: the slope is exactly the difference of the
    two rates). Its ratio to the independent-rows variance, floored at 1, is the
    design effect; the counts of both arms are divided by it and Newcombe's
    hybrid score interval (``confint_proportions_2indep(method="newcomb")``) and
    the score test (``test_proportions_2indep(method="score")``) run on those
    effective counts, which keeps Newcombe's good behaviour near 0% and 100%.
    When neither arm varies (every user won, no one else did) the variance
    cannot be estimated and the design effect is the mean rows per cluster
    (as if a deal's rows were copies: the cautious choice). Either arm empty:
    NaN everything.
    """
    win = np.asarray(win, dtype=np.float64)
    used = np.asarray(used, dtype=bool)
    clusters = int(np.unique(cluster).size)
    n1, n0 = int(used.sum()), int((~used).sum())
    if not n1 or not n0:
        return ClusteredDifference(*(float("nan"),) * 5, clusters)
    k1, k0 = float(win[used].sum()), float(win[~used].sum())
    p1, p0 = k1 / n1, k0 / n0
    independent = p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0
    deff = float("nan")
    if independent > 0 and clusters > 1:
        _, codes = np.unique(cluster, return_inverse=True)
        fit = OLS(win, np.column_stack([np.ones(win.size), used.astype(np.float64)])).fit(
            cov_type="cluster", cov_kwds={"groups": codes})
        deff = float(fit.cov_params()[1, 1]) / independent
    if not np.isfinite(deff) or deff <= 0:
        deff = win.size / clusters
    deff = max(1.0, deff)
    # statsmodels also computes the ratio of the rates, which divides by zero when one is 0%.
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = confint_proportions_2indep(k1 / deff, n1 / deff, k0 / deff, n0 / deff, method="newcomb",
                                               compare="diff", alpha=1 - confidence)
        p = test_proportions_2indep(k1 / deff, n1 / deff, k0 / deff, n0 / deff, method="score",
                                    compare="diff").pvalue
    return ClusteredDifference(p1 - p0, float(low), float(high), float(p), deff, clusters)


def component_strength(records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame, component: str = "kind", *,
                       values: Sequence[str] | None = None, by: str | None = None, alpha: float = 0.05,
                       dominant_gap: float = 0.10, unused_below: float = 0.01,
                       confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Win rate of seat-games that used a component (card, action kind...) against those that did not.

    OBSERVATIONAL AND BIASED (docs/statistics.md): strong players and long games use
    more components, and a component may be used *because* a seat is winning.
    Report it beside an ablation on the same seeds (the component removed or
    forced), which is causal: compare those runs with :func:`paired_difference`.
    The bot matters too: pass ``by="bot"`` to get one row per bot and component.

    Unit: a seat in a game (seat-game), used if ``events`` has at least one
    row of that component for it. Per component value (and ``by`` group):
    ``seat_games``, ``used``, ``use_rate``, ``events`` (rows), ``wins_used``,
    ``win_used`` (rate), ``not_used``, ``wins_not_used``, ``win_not_used``,
    ``difference`` (used minus not used) with ``diff_low``/``diff_high``
    (Newcombe hybrid score, ``confint_proportions_2indep(method="newcomb")``),
    ``p_value`` (``test_proportions_2indep(method="score")``), both on counts
    divided by ``design_effect``: the deal is the unit (the game when the
    records have no ``deal``), see :func:`clustered_difference`; ``p_holm``
    (Holm across all rows, ``multipletests(method="holm")``), ``dominant``
    (``p_holm < alpha`` and ``difference >= dominant_gap``) and ``unused``
    (``use_rate < unused_below``). A component used in every seat-game (or in
    none) has no comparison: NaN difference and p. ``values`` lists the
    components that could be used, so that ones never used get a row.
    ``events`` may be a lazy frame (a run's events): it is counted per
    seat-game a block of games at a time, never loaded whole.
    """
    _require(records, ["game", "seat", "win"], "component_strength")
    _require(events, ["game", "seat", component], "component_strength events")
    groups = [by] if by else []
    if by:
        _require(records, [by], "component_strength")
    cluster = "deal" if "deal" in records.columns else "game"
    seat_games = records.select("game", pl.col("seat").cast(pl.Int64), "win", pl.col(cluster).alias("_cluster"),
                                *groups).with_row_index("_row")
    totals = seat_games.group_by(groups or pl.lit(0).alias("_all")).agg(
        pl.len().cast(pl.Int64).alias("seat_games"), pl.col("win").sum().cast(pl.Int64).alias("wins"))
    index = seat_games.select("game", "seat", "_row", "win", *groups).lazy()

    def uses(e: pl.LazyFrame) -> list[pl.LazyFrame]:
        """Per group and component of a block of games: its seat-games' rows, wins and events; its components."""
        counted = (e.select("game", pl.col("seat").cast(pl.Int64), pl.col(component).cast(pl.String))
                   .group_by("game", "seat", component).agg(pl.len().alias("events")))
        return [counted.join(index, on=["game", "seat"], how="inner").group_by(*groups, component).agg(
                    pl.col("win").sum().cast(pl.Int64).alias("wins_used"), pl.col("events").sum().cast(pl.Int64),
                    pl.col("_row")),
                counted.select(pl.col(component).unique())]

    blocks, found = by_games(events, uses)
    used = blocks.group_by(*groups, component).agg(pl.col("wins_used", "events").sum(), pl.col("_row").list.explode(keep_nulls=False, empty_as_null=False))
    used = used.with_columns(pl.col("_row").list.len().cast(pl.Int64).alias("used"))
    names = sorted(set(found[component].to_list()) | set(values or ()))
    grid = pl.DataFrame({component: names}, schema={component: pl.String})
    if by:
        grid = totals.select(by).join(grid, how="cross")
        table = grid.join(totals, on=by)
    else:
        table = grid.join(totals.drop("_all"), how="cross")
    table = (table.join(used, on=[*groups, component], how="left")
             .with_columns(pl.col("used", "wins_used", "events").fill_null(0))
             .with_columns((pl.col("seat_games") - pl.col("used")).alias("not_used"),
                           (pl.col("wins") - pl.col("wins_used")).alias("wins_not_used"))
             .sort(*groups, component))
    win = seat_games["win"].cast(pl.Float64).to_numpy()
    clusters = seat_games["_cluster"].to_numpy()
    members = {None: np.arange(seat_games.height)} if not by else {
        key[0]: part["_row"].to_numpy() for key, part in seat_games.group_by(by)}
    rows = []
    members_of = table[by].to_list() if by else [None] * table.height
    for group, used_rows in zip(members_of, table["_row"]):  # each row's seat-games as an array, never a Python list
        rows_of = members[group]
        flags = np.zeros(seat_games.height, dtype=bool)
        if used_rows is not None:
            flags[used_rows.to_numpy().astype(np.int64)] = True
        d = clustered_difference(win[rows_of], flags[rows_of], clusters[rows_of], confidence)
        rows.append((d.difference, d.low, d.high, d.p_value, d.design_effect))
    difference, low, high, p, deff = (np.array(column, dtype=np.float64) for column in zip(*rows)) if rows else (
        np.array([]),) * 5
    table = table.drop("_row")
    p_holm = correct(p, "holm")
    table = table.with_columns(
        (pl.col("used") / pl.col("seat_games")).alias("use_rate"),
        (pl.col("wins_used") / pl.col("used")).alias("win_used"),
        (pl.col("wins_not_used") / pl.col("not_used")).alias("win_not_used"),
        pl.Series("difference", difference, dtype=pl.Float64),
        pl.Series("diff_low", low, dtype=pl.Float64),
        pl.Series("diff_high", high, dtype=pl.Float64),
        pl.Series("p_value", p, dtype=pl.Float64),
        pl.Series("p_holm", p_holm, dtype=pl.Float64),
        pl.Series("design_effect", deff, dtype=pl.Float64),
    ).with_columns(
        ((pl.col("p_holm") < alpha) & (pl.col("difference") >= dominant_gap)).fill_null(False).alias("dominant"),
        (pl.col("use_rate") < unused_below).alias("unused"),
    )
    return table.select(*groups, component, "seat_games", "used", "use_rate", "events", "wins_used", "win_used",
                        "not_used", "wins_not_used", "win_not_used", "difference", "diff_low", "diff_high",
                        "p_value", "p_holm", "design_effect", "dominant", "unused")


def format_component_strength(table: pl.DataFrame, component: str = "kind") -> str:
    """One line per row of :func:`component_strength`, with its caveat."""
    lines = ["observational (biased: strong and long-playing seats use more); confirm with an ablation"]
    by = [c for c in table.columns[: table.columns.index(component)]]
    for row in table.to_dicts():
        label = " ".join(str(row[c]) for c in [*by, component])
        flags = [flag for flag in ("dominant", "unused") if row[flag]]
        gap = (f"{_signed_points(row['difference'])} {_interval_pct(row['diff_low'], row['diff_high'])} "
               f"(Newcombe {_confidence(CONFIDENCE)}), Holm {format_p(row['p_holm'])}"
               if np.isfinite(row["difference"]) else "no comparison (used by all or none)")
        lines.append(f"  {label}: used in {_pct(row['use_rate'])} of {row['seat_games']:,} seat-games; wins "
                     f"{_pct(row['win_used'])} when used vs {_pct(row['win_not_used'])}: {gap}"
                     + (f" [{', '.join(flags)}]" if flags else ""))
    return "\n".join(lines)

def item_strength(records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame, item: str, *, points: str | None = None,
                  values: Sequence[str] | None = None, alpha: float = 0.05,
                  confidence: float = CONFIDENCE) -> pl.DataFrame:
    """One row per item of a component family, sorted by effect: :func:`component_strength` plus
    ``p_bh`` (Benjamini-Hochberg across the items), ``holm``/``bh`` flags (adjusted p < ``alpha``) and,
    with ``points`` (an events column), ``mean_points``: the mean points an event of that item scored.

    OBSERVATIONAL AND BIASED, as :func:`component_strength`. Sorted by ``difference``, largest first;
    items without a comparison (used by every seat-game or none) last.
    """
    table = component_strength(records, events, item, values=values, alpha=alpha, confidence=confidence)
    table = table.with_columns(pl.Series("p_bh", correct(table["p_value"].to_numpy(), "fdr_bh"), dtype=pl.Float64))
    table = table.with_columns((pl.col("p_holm") < alpha).fill_null(False).alias("holm"),
                               (pl.col("p_bh") < alpha).fill_null(False).alias("bh"))
    if points is not None and points in columns_of(events):
        sums = by_games(events, lambda e: e.group_by(pl.col(item).cast(pl.String)).agg(
            pl.col(points).cast(pl.Float64).sum().alias("total"), pl.col(points).count().alias("scored")))
        scored = sums.group_by(item).agg(pl.when(pl.col("scored").sum() > 0)
                                         .then(pl.col("total").sum() / pl.col("scored").sum()).alias("mean_points"))
        table = table.join(scored, on=item, how="left")
    else:
        table = table.with_columns(pl.lit(None, dtype=pl.Float64).alias("mean_points"))
    return table.sort(pl.col("difference").fill_nan(None), item, descending=[True, False], nulls_last=True)
