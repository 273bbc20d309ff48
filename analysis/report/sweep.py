"""Sweep reports: analyse a sweep directory, then the sections of its report."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import plots
from analysis import stats
from analysis.drama import Course
from analysis.drama import course as drama_course
from analysis.report.methods import _methods_section, _versions_now, target_band
from analysis.report.model import (ALPHA, Block, Code, Column, DELTA, DETAIL_DEALS, Facts, Flag, Flags, Paragraph, Plot,
                                   Report, STALL_FLAG, Section, Table)
from analysis.report.run import Detail, _bot_rows, config_block, player_seats, turn_cap
from analysis.ablate import analyse_ablate, verdict_line
from analysis.report.ablate import (ABLATE_METHODS, ablation_flags, ablation_section, ablation_title, ablation_titles,
                                    is_ablation)
from analysis.report.effects import CURVES_METHOD, EFFECTS_METHOD, main_effects_section, response_section
from analysis.report.trace import DRAMA_METHOD, SKILL_TRACE_METHOD, drama_flags, trace_flags, trace_groups, trace_section
from analysis.report.trace import drama_section as trace_drama_section
from analysis.report.text import (_ci, _ci_num, _ci_pts, _g, _game_title, _int, _listing, _num, _p, _pct, _pts,
                                  _versions_text)
from analysis.summary import seat_headline, solo_headline
from analysis.sweep import cell_frame, cell_row, format_cell_table
from sims.core.spec import ConfigError
from analysis.run_tally import tally_run
from sims.records import (MANIFEST, Chunk, block_bounds, deal_ranges, first_deals, load_records, load_trajectories,
                          machine, now, record_blocks)


@dataclass(frozen=True, eq=False)
class CellAnalysis:
    """Every number the report shows about one cell, computed once (:func:`analyse_sweep`)."""

    id: str
    labels: dict[str, str]
    baseline: bool
    records: pl.DataFrame
    manifest: dict
    advantage: stats.SeatAdvantage | None  # None for a solitaire cell (one seat)
    length: stats.GameLength
    target: tuple[float, float] | None
    gap: float  # share of the worst seat minus the fair share (nan for a solitaire cell)
    gap_low: float
    gap_high: float
    worst: int
    players: int  # the cell's player count (a game's own seats, such as a solo weed, left out)
    solo: stats.Proportion | None = None  # a solitaire cell's win rate
    p_holm: float = float("nan")
    tost_holm: float = float("nan")
    verdict: str = ""  # the seat verdict, Holm-corrected across the sweep's cells (stats.family_verdicts)
    win_change: stats.PairedDifference | None = None
    turns_change: stats.PairedDifference | None = None
    win_holm: float = float("nan")
    turns_holm: float = float("nan")
    paired_note: str = ""
    drama: stats.Drama | None = None
    course: Course | None = None  # lead changes and comebacks, from the cell's trajectories
    band: stats.BandShare | None = None  # the share of games inside the target band, against the required share
    unfinished: stats.Unfinished | None = None  # stalls and blocked games
    path: Path | None = None  # the cell's run directory (None: ``records`` hold every deal, in memory)
    tally: Any = None  # the cell's tallies (analysis.run_tally.RunTally), every deal
    detail: Detail | None = None  # the deals of ``records``, which drama and the course of games read

    @property
    def games(self) -> int:
        return self.length.games

    @property
    def mean_score(self) -> float:
        """Seat 0's mean final score over every game (a solitaire cell's)."""
        if self.tally is None:
            return float(self.records.filter(pl.col("seat") == 0)["score"].mean())
        counts = self.tally.outcomes.rate_table("seat").filter(pl.col("seat") == 0)
        return float((counts["score"] * counts["games"]).sum() / counts["games"].sum())


def _gap(advantage: stats.SeatAdvantage) -> tuple[int, float, float, float]:
    """The seat furthest from the fair share and its gap with interval (with 2 players always seat 0:
    among decided games seat 1's share is one minus seat 0's, the same gap mirrored)."""
    fair = 1 / advantage.players
    seat = 0 if advantage.players == 2 else advantage.largest_deviation_seat
    row = advantage.seats.filter(pl.col("seat") == seat).to_dicts()[0]
    return seat, row["share"] - fair, row["share_low"] - fair, row["share_high"] - fair


def _common(base: pl.DataFrame, other: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Both runs restricted to the (deal, rotation) pairs they share."""
    keys = base.select("deal", "rotation").unique().join(other.select("deal", "rotation").unique(),
                                                         on=["deal", "rotation"])
    return base.join(keys, on=["deal", "rotation"]), other.join(keys, on=["deal", "rotation"])


@dataclass(frozen=True, eq=False)
class SweepAnalysis:
    """A sweep directory analysed: the sweep (``analysis.sweep.load_sweep``) and its analysed cells, in order."""

    sweep: Any
    cells: tuple[CellAnalysis, ...]
    delta: float


def analyse_sweep(path: str | Path, delta: float = DELTA, band_share: float = stats.BAND_SHARE,
                  titles: dict[str, str] | None = None, detail_deals: int = DETAIL_DEALS) -> SweepAnalysis:
    """Every cell with records: seat balance (or a solitaire win rate), game length, the verdicts
    Holm-corrected across cells, and the paired change against the baseline. ``titles`` renames cells by id
    (an ablation's cells by their change). Each cell is read a block of deals at a time (its tallies: every
    figure but drama, the course of games and the main effects, which read its first ``detail_deals`` deals),
    and the paired changes pair two cells' blocks deal by deal, so memory does not grow with the cells."""
    from analysis.sweep import load_sweep

    data = load_sweep(path)
    cells = [_analyse_cell(cell, delta, band_share, (titles or {}).get(cell.id), detail_deals)
             for cell in data.cells if cell.status != "pending"]
    if not cells:
        raise ConfigError(str(Path(path) / "cells"), "(files)", "cells with records (run glade sweep)",
                          has_got=False)
    return SweepAnalysis(data, tuple(_with_changes(_with_verdicts(cells))), delta)


def _analyse_cell(cell: Any, delta: float, band_share: float = stats.BAND_SHARE, title: str | None = None,
                  detail_deals: int = DETAIL_DEALS) -> CellAnalysis:
    """One cell on its own: seat advantage (or the solitaire win rate), game length, the worst seat's gap (every
    deal, tallied); drama and the course of games (its first ``detail_deals`` deals)."""
    manifest = cell.manifest()
    target = target_band(manifest.get("config") or {})
    try:
        tally = tally_run(cell.path, int(manifest["players"]), target, delta, points=0)
        below = first_deals(deal_ranges(cell.path), detail_deals)
        players, records, _ = player_seats(manifest, load_records(cell.path, below))
        length = stats.game_length(tally.outcomes)
        band = stats.band_share(tally.outcomes, target, band_share) if target is not None else None
        unfinished = stats.unfinished(tally.outcomes)
        advantage = stats.seat_advantage(tally.seats, delta=delta) if players != 1 else None
        drama = stats.drama(records)
        trajectories = load_trajectories(cell.path, below)
        course = (drama_course(records, trajectories.filter(pl.col("seat") < players), gap=False)
                  if trajectories is not None and players > 1 else None)
    except stats.StatsError as error:
        raise ConfigError(str(cell.path), "(records)", f"records a report can use ({error})",
                          has_got=False) from None
    if advantage is None:
        worst, gap, low, high = 0, float("nan"), float("nan"), float("nan")
        seat0 = tally.outcomes.rate_table("seat").filter(pl.col("seat") == 0)
        solo = stats.proportion(int(seat0["wins"].sum()), int(seat0["games"].sum()))
    else:
        worst, gap, low, high = _gap(advantage)
        solo = None
    return CellAnalysis(title or cell.title, dict(cell.labels), cell.baseline, records, manifest, advantage, length,
                        target, gap, low, high, worst, players, solo, drama=drama, course=course, band=band,
                        unfinished=unfinished, path=cell.path, tally=tally,
                        detail=Detail(min(detail_deals, tally.deals), tally.deals))


def _with_verdicts(cells: list[CellAnalysis]) -> list[CellAnalysis]:
    """The seat verdicts of the multiplayer cells, Holm-corrected across them (``stats.family_verdicts``)."""
    multiplayer = [i for i, c in enumerate(cells) if c.advantage is not None]
    verdicts = stats.family_verdicts([cells[i].advantage for i in multiplayer], ALPHA)
    cells = list(cells)
    for i, (verdict, p_holm, tost_holm) in zip(multiplayer, verdicts):
        cells[i] = replace(cells[i], verdict=verdict, p_holm=p_holm, tost_holm=tost_holm)
    return cells


def _with_changes(cells: list[CellAnalysis]) -> list[CellAnalysis]:
    """Every cell but the baseline paired against its reference cell, Holm-corrected across the cells."""
    base = next((c for c in cells if c.baseline), cells[0])
    cells = [c if c is base else replace(c, **_paired_change(c, base, cells)) for c in cells]
    others = [i for i, c in enumerate(cells) if c.win_change is not None]  # the base has none
    win = stats.correct([cells[i].win_change.p_value for i in others], "holm")
    turns = stats.correct([cells[i].turns_change.p_value for i in others], "holm")
    for i, w, t in zip(others, win, turns):
        cells[i] = replace(cells[i], win_holm=float(w), turns_holm=float(t))
    return cells


PAIRED_COLUMNS = ("game", "deal", "rotation", "seed", "seat", "win", "turns")


def _paired_change(cell: CellAnalysis, base: CellAnalysis, cells: list[CellAnalysis]) -> dict[str, Any]:
    """The fields of ``cell`` that compare it with its reference: win and turns changes, and a note. The two cells
    are read side by side a block of deals at a time, restricted to the deals (and rotations) both hold, into
    the tallies of the paired comparisons (``stats.ShareTally``, ``stats.PairTally``)."""
    reference = _paired_reference(cell, base, cells)
    if reference is None:
        return {"paired_note": f"not paired: no cell with {cell.players} players and the baseline's other settings"}
    if reference is cell:
        return {"paired_note": f"the reference cell for {cell.players} players"}
    key = ("deal", "rotation", "seat")
    found: dict[str, Any] = {"win_change": None, "turns_change": None, "paired_note": ""}
    share, wins, turns = stats.ShareTally(), stats.PairTally(), stats.PairTally()
    try:
        for base_block, cell_block in _side_by_side(reference, cell):
            base_all, cell_all = _common(base_block, cell_block)
            a, b = base_all.filter(pl.col("seat") == 0), cell_all.filter(pl.col("seat") == 0)
            if not a.height:
                continue
            if cell.players > 1:
                share.add(base_all, cell_all, 0, key)
            else:
                wins.add(a, b, "win", key)
            turns.add(a, b, "turns", key)
        found["win_change"] = (stats.share_change_from_tally(share) if cell.players > 1 else
                               stats.paired_from_tally(wins, "win"))
        found["turns_change"] = stats.paired_from_tally(turns, "turns")
    except stats.StatsError as error:
        found["paired_note"] = str(error)
    if found["win_change"] is not None and turns.pairs < max(_seat0_games(reference), _seat0_games(cell)):
        found["paired_note"] = f"paired on the {turns.pairs:,} deals both cells hold"
    if reference is not base:
        found["paired_note"] = "; ".join(filter(None, [f"against {reference.id} (same player count)",
                                                       found["paired_note"]]))
    return found


def _seat0_games(cell: CellAnalysis) -> int:
    """The cell's games (its seat-0 rows), every deal."""
    return cell.tally.games if cell.tally is not None else cell.records.filter(pl.col("seat") == 0).height


def _side_by_side(one: CellAnalysis, other: CellAnalysis) -> Iterator[tuple[pl.DataFrame, pl.DataFrame]]:
    """The two cells' records (their players' seats) a block of the same deals at a time."""
    stop = max(_deal_stop(one), _deal_stop(other))
    bounds = block_bounds(0, stop)
    for (_, _, a), (_, _, b) in zip(_cell_blocks(one, bounds), _cell_blocks(other, bounds)):
        yield a, b


def _deal_stop(cell: CellAnalysis) -> int:
    if cell.path is None:
        return int(cell.records["deal"].max()) + 1 if cell.records.height else 0
    return max((stop for _, stop in deal_ranges(cell.path)), default=0)


def _cell_blocks(cell: CellAnalysis, bounds: Sequence[int]) -> Iterator[tuple[int, int, pl.DataFrame]]:
    """Every block of ``bounds`` of the cell's records (empty where it holds none of the deals)."""
    if cell.path is not None:
        blocks = record_blocks(cell.path, bounds, PAIRED_COLUMNS, empty=True)
    else:
        frame = cell.records.select([c for c in PAIRED_COLUMNS if c in cell.records.columns])
        blocks = ((start, stop, frame.filter(pl.col("deal").is_between(start, stop, closed="left")))
                  for start, stop in zip(bounds[:-1], bounds[1:]))
    for start, stop, block in blocks:
        yield start, stop, block.filter(pl.col("seat") < cell.players)


def _paired_reference(cell: CellAnalysis, base: CellAnalysis, cells: list[CellAnalysis]) -> CellAnalysis | None:
    """The cell ``cell`` is paired against: the baseline, or with another player count the cell that
    differs from the baseline only in players (paired games need the same seats)."""
    if cell.players == base.players:
        return base
    wanted = {**base.labels, "players": cell.labels.get("players")}
    return next((c for c in cells if c.labels == wanted), None)


def _rank(cells: list[CellAnalysis]) -> list[CellAnalysis]:
    """Most balanced first; cells whose lineup cannot measure seat balance last."""
    return sorted(cells, key=lambda c: (not np.isfinite(c.gap), abs(c.gap) if np.isfinite(c.gap) else 0.0,
                                        max(abs(c.gap_low), abs(c.gap_high)) if np.isfinite(c.gap) else 0.0))


def _tested(players: int) -> str:
    """What the seat-advantage test counts: with 2 players decided games, else first places."""
    return "decided games" if players == 2 else "first places"


def sweep_flags(data: Any, cells: list[CellAnalysis], delta: float, ablation: bool = False) -> list[Flag]:
    """The sweep's findings; an ablation's (``ablation``) leave out the ranking by balance and the verdict counts
    (its question is the item's, answered by the findings before these)."""
    ranked = _rank(cells)
    flags = []

    def gap_text(c: CellAnalysis) -> str:
        row = c.advantage.seats.filter(pl.col("seat") == c.worst).to_dicts()[0]
        return (f"seat {c.worst} wins {_pct(row['share'])} {_ci(row['share_low'], row['share_high'])} of "
                f"{_tested(c.advantage.players)} "
                f"({c.advantage.share_method}), {c.advantage.n_text}: {_pts(c.gap)} points "
                f"{_ci_pts(c.gap_low, c.gap_high)} from the fair share; {c.advantage.test.split(' (')[0]} "
                f"Holm {stats.format_p(c.p_holm)} across {len(cells)} cells; verdict {c.verdict}")

    best, worst = ranked[0], ranked[-1]
    if not ablation:
        flags.append(Flag("ok" if best.verdict == stats.VERDICT_BALANCED else "info",
                          f"Most balanced cell: {best.id}.", gap_text(best)))
    if len(ranked) > 1 and not ablation:
        flags.append(Flag("warn" if worst.p_holm < ALPHA else "info", f"Least balanced cell: {worst.id}.",
                          gap_text(worst)))
    significant = [c.id for c in cells if c.p_holm < ALPHA]
    if significant:
        flags.append(Flag("warn", f"Significant seat advantage in {len(significant)} of {len(cells)} cells.",
                          f"Holm-adjusted p < {ALPHA} across cells: {_listing(significant)}"))
    else:
        flags.append(Flag("ok", "No cell shows a significant seat advantage.",
                          f"Holm across {len(cells)} cells; smallest adjusted "
                          f"{stats.format_p(_smallest([c.p_holm for c in cells]))}"))
    counts = {v: sum(c.verdict == v for c in cells)
              for v in (stats.VERDICT_BALANCED, stats.VERDICT_UNBALANCED, stats.VERDICT_UNSURE,
                        stats.VERDICT_NOT_MEASURED)}
    if not ablation:
        flags.append(Flag("info", "Verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + ".",
                          f"balanced = the equivalence test within \u00b1{100 * delta:g} points passes; unbalanced = "
                          f"the difference test rejects; both Holm-corrected across the {len(cells)} cells, as the "
                          "headline above; otherwise not enough games yet"))
    base = next((c for c in cells if c.baseline), cells[0])
    flags += _win_change_flag(cells, f"change seat 0's share ({_tested(base.players)}, the headline's) against the "
                                     f"baseline {base.id}")
    return flags + length_flags(cells)


def length_flags(cells: list[CellAnalysis]) -> list[Flag]:
    """Stalls and blocked games over 1% per cell; the game length against the target band by the share of games
    inside it (analysis.stats.band_share): OK only when every cell shows the required share inside."""
    flags = []
    stalled = [c for c in cells if c.unfinished is not None and c.unfinished.above_limit]
    if stalled:
        flags.append(Flag("warn", f"High stall rate in {len(stalled)} cell{'s' if len(stalled) > 1 else ''}: "
                                  f"over {STALL_FLAG:.0%} of games stalled or ended blocked.",
                          "; ".join(f"{c.id}: {c.unfinished.rates_text()}" for c in stalled[:5])
                          + ("" if len(stalled) <= 5 else f"; and {len(stalled) - 5} more")))
    banded = [c for c in cells if c.band is not None]
    if not banded:
        return flags
    required = _pct(banded[0].band.required, 0)
    outside = [c for c in banded if c.band.verdict == "outside"]
    open_ = [c for c in banded if c.band.verdict == "undecided"]

    def inside(c: CellAnalysis) -> str:
        share = c.band.share
        return f"{c.id}: {_pct(share.rate)} {_ci(share.low, share.high)} inside {c.band.band_text}"

    if outside:
        flags.append(Flag("warn", f"Game length off target in {len(outside)} of {len(banded)} cells: fewer than "
                                  f"{required} of games inside the target band.",
                          "; ".join(inside(c) for c in outside[:6])
                          + ("" if len(outside) <= 6 else f"; and {len(outside) - 6} more")
                          + f" ({banded[0].band.test})"))
    if open_:
        flags.append(Flag("info", f"Game length undecided in {len(open_)} cells: {required} of games inside the "
                                  "band is shown neither way.", "; ".join(inside(c) for c in open_[:6])))
    if not outside and not open_:
        flags.append(Flag("ok", f"Every cell holds at least {required} of its games inside the target band.",
                          "; ".join(inside(c) for c in banded[:9]) + f" ({banded[0].band.test})"))
    return flags


def _sweep_section_cells(data: Any, cells: list[CellAnalysis], delta: float) -> Section:
    counts = sorted({c.advantage.players for c in cells})
    mixed = len(counts) > 1
    fair = 1 / counts[0]
    what = "first places (decided games at 2 players)" if mixed else _tested(counts[0])
    fair_text = "1 / players of the cell" if mixed else _pct(fair)
    rows, marked = [], []
    for rank, c in enumerate(_rank(cells), 1):
        row = c.advantage.seats.filter(pl.col("seat") == c.worst).to_dicts()[0]
        rows.append([str(rank), c.id + (" *" if c.baseline else ""), _int(c.advantage.games), f"seat {c.worst}",
                     _pct(row["share"]), _ci(row["share_low"], row["share_high"]), _pts(c.gap),
                     _ci_pts(c.gap_low, c.gap_high), _p(c.p_holm), c.verdict, _g(c.length.median),
                     _pct(c.length.stalls.rate)])
        marked.append(c.baseline)
    table = Table(
        [Column("Rank", True), Column("Cell"), Column("Games", True), Column("Seat"), Column("Share", True),
         Column("95% interval", True), Column("Gap (points)", True), Column("Gap 95%", True), Column("Holm p", True),
         Column("Verdict"), Column("Median turns", True), Column("Stalls", True)],
        rows,
        caption=(f"Cells ranked by balance: the seat furthest from the fair share {fair_text} (its share of {what}, "
                 f"{_share_methods(cells)}; the gap is that interval less the fair share). Holm p: the seat-advantage "
                 f"test ({_test_names(cells)}) Holm-corrected across the {len(cells)} cells. Verdict: equivalence "
                 f"within \u00b1{100 * delta:g} points and the difference test, both Holm-corrected across the cells "
                 "(analysis.stats.family_verdicts). * and highlighted: the baseline cell."),
        marked=marked)
    ordered = cells  # sweep order for the figure
    base = next((c for c in cells if c.baseline), cells[0])
    seat0 = [c.advantage.seats.filter(pl.col("seat") == 0).to_dicts()[0] for c in ordered]
    diff = np.array([c.win_change.difference if c.win_change else (0.0 if c is base else np.nan) for c in ordered])
    dlow = np.array([c.win_change.mean.low if c.win_change else (0.0 if c is base else np.nan) for c in ordered])
    dhigh = np.array([c.win_change.mean.high if c.win_change else (0.0 if c is base else np.nan) for c in ordered])
    shift = np.array([1 / c.advantage.players if mixed else 0.0 for c in ordered])
    figure = plots.cell_balance([c.id for c in ordered], np.array([r["share"] for r in seat0]) - shift,
                                np.array([r["share_low"] for r in seat0]) - shift,
                                np.array([r["share_high"] for r in seat0]) - shift,
                                0.0 if mixed else fair, diff, dlow, dhigh, base.id, relative=mixed)
    return Section("cells", "Cells ranked by balance", [
        table,
        Plot("cell-balance", figure, f"Left: seat 0's share of {what} per cell ({_share_methods(cells)})"
                                     + (", less the cell's fair share 1 / players" if mixed else
                                        ", the dashed line the fair share") + ". Right: the paired change of the same "
                                     f"share against the baseline {base.id} (the difference of the two shares with its "
                                     "interval on delta-method pseudo-values by deal)."),
    ])


def _share_methods(cells: list[CellAnalysis]) -> str:
    return "; ".join(dict.fromkeys(c.advantage.share_method for c in cells if c.advantage is not None))


def _test_names(cells: list[CellAnalysis]) -> str:
    return "; ".join(dict.fromkeys(c.advantage.test for c in cells if c.advantage is not None))


def _smallest(values: Sequence[float]) -> float:
    finite = [v for v in values if np.isfinite(v)]
    return min(finite) if finite else float("nan")


PAIRED_SHARE = ("Seat 0's share as each cell's headline counts it (of decided games with 2 players, ties and stalls left "
                "out; of first places with 3-4, a shared one split, stalls left out; a solitaire cell's win rate)")


def _pairing_gain(cells: list[CellAnalysis]) -> str:
    """What pairing saved, measured: the variance of paired differences over that of two independent runs."""
    ratios = [c.win_change.variance_ratio for c in cells if c.win_change is not None]
    ratios = [r for r in ratios if np.isfinite(r)]
    if not ratios:
        return ""
    ratio = float(np.median(ratios))
    return (f"Measured here: the paired seat-share comparison needs {ratio:.0%} of the games two independent runs would "
            "need for the same precision (median over cells of the variance of paired differences over the sum of "
            "the two cells' variances).")


def _sweep_section_paired(data: Any, cells: list[CellAnalysis]) -> Section:
    base = next((c for c in cells if c.baseline), cells[0])
    rows, notes = [], []
    for c in cells:
        if c is base:
            continue
        w, t = c.win_change, c.turns_change
        if w is None:
            rows.append([c.id] + ["n/a"] * 9)
            notes.append(f"{c.id}: {c.paired_note}")
            continue
        rows.append([c.id, _int(w.pairs), f"{_pct(w.base_mean)} \u2192 {_pct(w.other_mean)}", _pts(w.difference),
                     _ci_pts(w.mean.low, w.mean.high), _p(w.p_value), _p(c.win_holm),
                     f"{t.difference:+.2f}", _ci_num(t.mean.low, t.mean.high), _p(c.turns_holm)])
        if c.paired_note:
            notes.append(f"{c.id}: {c.paired_note}")
    methods = sorted({c.win_change.mean.method for c in cells if c.win_change} |
                     {c.turns_change.mean.method for c in cells if c.turns_change})
    blocks: list[Block] = [
        Paragraph(f"Every cell plays the same deals on the same game seeds (common random numbers), so each game is "
                  f"compared with the same deal in the baseline cell {base.id}: paired differences. "
                  + _pairing_gain(cells), "lead"),
        Table([Column("Cell"), Column("Pairs", True), Column("Seat 0 share: baseline \u2192 cell", True),
               Column("Change (points)", True), Column("95% interval", True), Column("Test p", True),
               Column("Holm p", True), Column("Turns change", True), Column("95% interval", True),
               Column("Holm p", True)], rows,
              caption=(f"{PAIRED_SHARE} and the game's turns, cell minus baseline, paired by deal (a deal's seat "
                       f"rotations together: the deal is the unit). Intervals: {'; '.join(methods) or 'n/a'}, each "
                       "tested by the t test it inverts (scipy ttest_1samp), so the interval and the p never "
                       "disagree. Seat share: the difference of the two cells' shares (the same figures as the cells "
                       "table), on its per-deal delta-method pseudo-values (a deal tied or stalled in one cell counts "
                       "in the other's share only, so no deal is selected by an outcome the cell changes); turns: "
                       "the mean per-deal difference; both Holm-corrected across the "
                       f"{max(len(cells) - 1, 0)} cells compared.")),
    ]
    if notes:
        blocks.append(Paragraph("Notes: " + "; ".join(notes), "note"))
    return Section("paired", "Paired differences against the baseline", blocks)


def _sweep_heatmap(data: Any, cells: list[CellAnalysis], solitaire: bool = False) -> Section | None:
    axes = list(data.axes)
    if len(axes) != 2 or not all(set(axes) <= set(c.labels) for c in cells):
        return None
    rows = list(dict.fromkeys(c.labels[axes[0]] for c in data.cells))
    cols = list(dict.fromkeys(c.labels[axes[1]] for c in data.cells))
    values = np.full((len(rows), len(cols)), np.nan)
    notes = [["not played"] * len(cols) for _ in rows]
    base_pos = None
    for c in cells:
        i, j = rows.index(c.labels[axes[0]]), cols.index(c.labels[axes[1]])
        if solitaire:
            values[i, j] = c.solo.rate
            notes[i][j] = f"{_pct(c.solo.rate)}\n{_ci(c.solo.low, c.solo.high)}"
        else:
            values[i, j] = c.gap
            seat = f"seat {c.worst}: " if c.players > 2 else ""
            notes[i][j] = f"{seat}{_pts(c.gap)}\n{_ci_pts(c.gap_low, c.gap_high)}"
        if c.baseline:
            base_pos = (i, j)
    if solitaire:
        figure = plots.sweep_heatmap(values, notes, rows, cols, axes[0], axes[1], base_pos, "win rate")
        return Section("solitaire-heatmap", f"Win rate over {axes[0]} \u00d7 {axes[1]}", [
            Plot("solitaire-heatmap", figure,
                 f"Each cell of the grid: the player's solitaire win rate with the Wilson 95% interval; darker wins "
                 f"more. Rows: {axes[0]}; columns: {axes[1]}.")])
    figure = plots.sweep_heatmap(values, notes, rows, cols, axes[0], axes[1], base_pos, "|gap| (points)")
    return Section("heatmap", f"Balance over {axes[0]} \u00d7 {axes[1]}", [
        Plot("sweep-heatmap", figure,
             ("Each cell of the grid: seat 0's gap from the fair share in points"
              if all(c.players == 2 for c in cells) else
              "Each cell of the grid: the seat furthest from the fair share and its gap in points")
             + f" with the Wilson 95% interval (shifted by the fair share); darker is less balanced. Rows: {axes[0]}; "
               f"columns: {axes[1]}."),
    ])


def _sweep_section_length(data: Any, cells: list[CellAnalysis]) -> Section:
    base = next((c for c in cells if c.baseline), cells[0])
    target = base.target
    limits = [c for c in (turn_cap(c.manifest) for c in cells) if c is not None]
    cap = plots.length_cap(*(c.length.histogram for c in cells), turn_cap=min(limits) if limits else None,
                           keep=max([c.length.q3 for c in cells] + ([target[1]] if target else [])))
    figure = plots.cell_turns([c.id for c in cells], np.array([c.length.median for c in cells]),
                              np.array([c.length.q1 for c in cells]), np.array([c.length.q3 for c in cells]),
                              np.array([c.length.minimum for c in cells]), np.array([c.length.maximum for c in cells]),
                              target, base.id, cap)
    banded = any(c.band is not None for c in cells)
    rows = [[c.id + (" *" if c.baseline else ""), _int(c.length.games), _num(c.length.mean.mean, 1),
             _ci_num(c.length.mean.low, c.length.mean.high, 1), _g(c.length.median),
             f"{c.length.q1:g} / {c.length.q3:g}",
             *([f"{_pct(c.band.share.rate)} {_ci(c.band.share.low, c.band.share.high)}: {c.band.verdict}"
                if c.band is not None else "n/a"] if banded else []),
             _pct(c.length.stalls.rate, 2),
             ", ".join(f"{r['end']} {_pct(r['share'], 0)}" for r in c.length.ends.to_dicts())] for c in cells]
    band_column = [Column("Inside the target band", True)] if banded else []
    required = next((c.band.required for c in cells if c.band is not None), stats.BAND_SHARE)
    return Section("cell-length", "Game length per cell", [
        Table([Column("Cell"), Column("Games", True), Column("Mean turns", True), Column("95% interval", True),
               Column("Median", True), Column("Quartiles", True), *band_column, Column("Stalls", True),
               Column("Ends")], rows,
              caption=f"Mean turns with {cells[0].length.mean.method} intervals. * baseline."
              + (f" Inside the target band: the share of games inside the config's target_turns with its 95% interval "
                 f"and the verdict against {_pct(required, 0)} (analysis.stats.band_share)." if banded else "")
              + " Ends: every end reason's share (stall: the turn cap, no result; blocked: no seat could move, "
                "scored)."),
        Plot("cell-turns", figure, "Median game length per cell with quartiles and range"
             + (f"; the shaded band is the target {target[0]:g}\u2013{target[1]:g} turns." if target else ".")
             + plots.length_cap_note(cap, *(c.length.histogram for c in cells))),
    ])


def _sweep_speed(data: Any) -> str:
    """Games per second over the cells' latest invocations (each cell's run manifest), and the machine."""
    games = seconds = 0.0
    machines = []
    for cell in data.cells:
        if cell.status == "pending":
            continue
        manifest = cell.manifest()
        rate = manifest.get("games_per_second")
        if rate:
            played = sum(Chunk.parse(name).deals for name in manifest.get("chunks", []) if Chunk.parse(name))
            games, seconds = games + played, seconds + played / rate
            machines.append(manifest.get("machine"))
    if not seconds:
        return "n/a (no cell recorded its speed)"
    machine = next((m for m in machines if m), None)
    where = f" on {machine}" if machine else ""
    return f"{games / seconds:,.0f} games per second over the cells (latest invocation of each){where}"


def _capped_text(data: Any) -> str:
    """The cells that play only the first deals (a ``games`` cap in the sweep file), if any."""
    caps = [(e["id"], e["deal_cap"]) for e in data.manifest.get("cells", [])
            if e.get("deal_cap") and e["deal_cap"] < data.games_per_cell]
    return (" (" + ", ".join(f"{cell} the first {cap:,}" for cell, cap in caps) + ")") if caps else ""


def _lineups_text(data: Any) -> str:
    """The sweep's lineups: one line if every cell plays the same, else per player count and lineup."""
    lineups = list(dict.fromkeys((c.players, c.bots) for c in data.cells))
    return "; ".join(f"{players} players: {', '.join(bots)}" for players, bots in lineups)


def _sweep_manifest(data: Any, cells: list[CellAnalysis]) -> Section:
    m = data.manifest
    facts = [
        ("Game", f"{_game_title(data.game)} ({data.game})"),
        ("Sweep directory", str(data.out_dir)),
        ("Sweep file", f"{m.get('sweep_file')} (hash {m.get('sweep_hash')})"),
        ("Description", data.description or "none"),
        ("Bots", _lineups_text(data) + "; seats " + ("rotated" if data.rotate_seats else "fixed")),
        ("Seeds", f"root seed {data.seed} in every cell: deal d has game seed game_seeds({data.seed}, d) in every cell "
                  "(common random numbers)"),
        ("Games per cell", f"{data.games_per_cell:,} deals asked for"),
        ("Base overrides", " ".join(m.get("base") or []) or "none"),
        ("Axes", ", ".join(data.axes) or "none"),
        ("Baseline", m.get("baseline") or cells[0].id),
        ("Games per second", _sweep_speed(data)),
        ("Versions (sweep)", _versions_text(m.get("versions") or {})),
        ("Versions (report)", _versions_text(_versions_now())),
        ("Machine", f"{machine()} (the machine that wrote this report)"),
        ("Dates", f"sweep created {m.get('created', 'n/a')}, updated {m.get('updated', 'n/a')}"),
    ]
    entries = {e["id"]: e for e in m.get("cells", [])}
    rows = []
    for cell in data.cells:
        entry = entries.get(cell.id, {})
        overrides = " ".join(entry.get("overrides", []))
        rows.append([cell.title + (" *" if cell.baseline else ""), overrides, cell.config_hash, cell.status,
                     _int(next((c.games for c in cells if c.id == cell.title), 0))])
    first = cells[0]
    base = next((c for c in cells if c.baseline), first)
    base_dir = next(cell.path for cell in data.cells if cell.title == base.id)
    return Section("manifest", "Sweep manifest", [
        Facts(facts),
        Table([Column("Cell"), Column("Overrides"), Column("Config hash"), Column("Status"), Column("Games", True)],
              rows, caption="Cells in sweep order. * baseline."),
        Table([Column("Bot"), Column("Kind"), Column("Weights")], _bot_rows(first.manifest),
              caption="Bots and personas (the same in every cell)."),
        Code("Sweep file", m.get("sweep_text", "")),
        config_block(base.manifest, base_dir / MANIFEST, " of the baseline cell"),
    ])


_SWEEP_METHODS = [
    "Ranking: per cell, the seat whose first-place share is furthest from 1/players (analysis.stats.seat_advantage: "
    "decided games with 2 players, shared first places as fractions with 3-4); its gap is the Wilson 95% interval "
    "of that share less 1/players. Cells are ranked by the absolute gap, then by the interval's far end.",
    "Seat advantage across cells: each cell's seat-advantage p-value (exact binomial, or chi-square with 3-4 "
    "players) Holm-corrected across the cells (statsmodels multipletests(method='holm')).",
    "Paired differences against the baseline: cells share their deals and game seeds (common random numbers). "
    "Seat 0's share, the headline's (analysis.stats.seat_share_change: each cell's share of decided games, or of "
    "first places with 3-4 players, the same figure as the cells table), is compared as the difference of the two "
    "shares: a deal decided in one cell and tied or stalled in the other counts in the first cell's share only, "
    "so every common deal is used and none is selected by an outcome; its interval and t test are on per-deal "
    "delta-method pseudo-values (a t interval and the t test it inverts). A solitaire cell's win and each game's "
    "turns are paired deal by deal (analysis.stats.paired_difference: the mean per-deal difference, its t interval "
    "and t test). p-values Holm-corrected across the cells compared.",
    f"Stall and game-length flags per cell as in a run report (stalls and blocked games over {STALL_FLAG:.0%}; the "
    "share of games inside the config's [report] target_turns against the required share, glade report "
    "--band-share, default 75%, by analysis.stats.band_share).",
    "Which deals each figure reads: every cell's seat shares, verdicts, game length, stalls, target band and the "
    "paired changes cover all its deals, read a block of deals at a time into tallies (two cells side by side for "
    "a paired change), so memory does not grow with the cells; drama, the course of games and the main effects "
    f"read each cell's first deals, at most {DETAIL_DEALS:,} by default (glade report --detail-deals), and say so "
    "when a cell holds more.",
]


_SOLITAIRE_METHOD = ("Solitaire cells (one seat, nothing to compare between seats): the player's win rate against "
                     "the game's target with its Wilson 95% interval (statsmodels proportion_confint); its change "
                     "against the baseline paired by deal as below.")


def solitaire_flags(cells: list[CellAnalysis]) -> list[Flag]:
    """Findings over a sweep's solitaire cells: the best and worst win rates and the changes against the baseline."""
    ranked = sorted(cells, key=lambda c: c.solo.rate)

    def rate_text(c: CellAnalysis) -> str:
        return f"{_pct(c.solo.rate)} {_ci(c.solo.low, c.solo.high)} (Wilson 95%), n = {c.games:,} games"

    flags = [Flag("info", f"Solitaire: the highest win rate is {_pct(ranked[-1].solo.rate)} ({ranked[-1].id}).",
                  rate_text(ranked[-1]))]
    if len(ranked) > 1:
        flags.append(Flag("info", f"Solitaire: the lowest win rate is {_pct(ranked[0].solo.rate)} ({ranked[0].id}).",
                          rate_text(ranked[0])))
    return flags + _win_change_flag(cells, "change the player's win rate against the baseline", "solitaire ")


def _win_change_flag(cells: list[CellAnalysis], what: str, kind: str = "") -> list[Flag]:
    """One flag listing the cells whose paired win-rate change against the baseline is significant (Holm)."""
    changed = [c for c in cells if c.win_change is not None and c.win_holm < ALPHA]
    if not changed:
        return []
    return [Flag("info", f"{len(changed)} {kind}cell{'s' if len(changed) > 1 else ''} {what}.",
                 "; ".join(f"{c.id}: {_pts(c.win_change.difference)} points "
                           f"{_ci_pts(c.win_change.mean.low, c.win_change.mean.high)}, {c.win_change.test} Holm "
                           f"{stats.format_p(c.win_holm)}" for c in changed[:4])
                 + ("" if len(changed) <= 4 else f"; and {len(changed) - 4} more")
                 + " (paired on common random numbers)")]


def _sweep_section_solitaire(data: Any, cells: list[CellAnalysis]) -> Section:
    """Solitaire cells: the player's win rate per cell (there is no seat to compare) and its paired change."""
    base = next((c for c in cells if c.baseline), None)
    rows = [[c.id + (" *" if c.baseline else ""), _int(c.games), _pct(c.solo.rate), _ci(c.solo.low, c.solo.high),
             (_pts(c.win_change.difference) + " " + _ci_pts(c.win_change.mean.low, c.win_change.mean.high)
              if c.win_change is not None else ("baseline" if c.baseline else "n/a")),
             _num(c.mean_score), _g(c.length.median), _pct(c.length.stalls.rate)]
            for c in cells]
    zero = [0.0 if c.baseline else np.nan for c in cells]
    diff = np.array([c.win_change.difference if c.win_change else z for c, z in zip(cells, zero)])
    dlow = np.array([c.win_change.mean.low if c.win_change else z for c, z in zip(cells, zero)])
    dhigh = np.array([c.win_change.mean.high if c.win_change else z for c, z in zip(cells, zero)])
    figure = plots.cell_balance([c.id for c in cells], np.array([c.solo.rate for c in cells]),
                                np.array([c.solo.low for c in cells]), np.array([c.solo.high for c in cells]),
                                None, diff, dlow, dhigh, base.id if base else "", solitaire=True)
    blocks: list[Block] = [
        Table([Column("Cell"), Column("Games", True), Column("Win rate", True), Column("Wilson 95%", True),
               Column("Change vs baseline (points)", True), Column("Mean score", True), Column("Median turns", True),
               Column("Stalls", True)], rows,
              caption="A solitaire game is won or lost against the game's own target. Change: the paired "
                      "difference of the win rate against the baseline cell on the same deals (95% interval). "
                      "* baseline.", marked=[c.baseline for c in cells]),
        Plot("solitaire-cells", figure, "Left: the player's win rate per cell (Wilson 95%). Right: the paired "
                                        "change against the baseline (mean paired difference with its interval)."),
    ]
    heatmap = _sweep_heatmap(data, cells, solitaire=True)
    if heatmap is not None:
        blocks += heatmap.blocks
    return Section("solitaire", "Solitaire cells", blocks)


def build_sweep_report(path: str | Path, delta: float = DELTA, band_share: float = stats.BAND_SHARE,
                       detail_deals: int = DETAIL_DEALS) -> Report:
    """The report of a sweep directory (``sweep.json``, ``cells/<id>/``).

    Cells with one seat (solitaire) are reported by the player's win rate, the others by seat balance.
    """
    ablated = is_ablation(path)
    result = analyse_ablate(path) if ablated else None
    analysis = analyse_sweep(path, delta, band_share, ablation_titles(path) if ablated else None, detail_deals)
    data, everything = analysis.sweep, list(analysis.cells)
    cells = [c for c in everything if c.advantage is not None]
    solitaire = [c for c in everything if c.advantage is None]
    groups = trace_groups(data.axes, cells)
    flags = ((ablation_flags(result) if ablated else [])
             + (sweep_flags(data, cells, delta, ablated) if cells else [])
             + (solitaire_flags(solitaire) if solitaire else []) + trace_flags(groups) + drama_flags(everything))
    total = sum(c.games for c in everything)
    lead = (f"{len(everything)} cells of {_game_title(data.game)} ({total:,} games), bots {', '.join(data.bots)}"
            + (", seats rotated" if data.rotate_seats else ", seats fixed")
            + f"; every cell plays the same {data.games_per_cell:,} deals{_capped_text(data)}. "
            + (data.description + "." if data.description else ""))
    if ablated:
        lead = (f"{len(result.ablations)} ablation{'s' if len(result.ablations) > 1 else ''} of "
                f"{_game_title(data.game)}, bots {', '.join(data.bots)}, each played on the same "
                f"{data.games_per_cell:,} deals as the baseline and a placebo: does each named item do what the "
                "content tables say? The findings first answer that, one per item; then what each change does to "
                "the seats, the length and the stalls.")
    summary = Section("summary", "Summary", [Paragraph(lead, "lead"), Flags(flags)])
    sections = [summary]
    if ablated:
        sections.append(ablation_section(path, result))
    if groups:
        sections.append(trace_section(groups))
    if cells:
        sections.append(_sweep_section_cells(data, cells, delta))
    if solitaire:
        sections.append(_sweep_section_solitaire(data, solitaire))
    sections.append(_sweep_section_paired(data, everything))
    heatmap = _sweep_heatmap(data, cells) if cells else None
    if heatmap is not None:
        sections.append(heatmap)
    note = _detail_note(everything)
    grid = [s for s in (_noted(main_effects_section(data, cells or solitaire), note),
                        response_section(data, cells or solitaire)) if s is not None]
    sections += grid
    methods = (_SWEEP_METHODS + ([_SOLITAIRE_METHOD] if solitaire else [])
               + [m for s, m in (("effects", EFFECTS_METHOD), ("curves", CURVES_METHOD)) if any(g.id == s for g in grid)]
               + [DRAMA_METHOD]
               + ([SKILL_TRACE_METHOD] if groups else []) + (ABLATE_METHODS if ablated else []))
    base = next((c for c in everything if c.baseline), everything[0])
    sections += [_sweep_section_length(data, everything), _noted(trace_drama_section(everything, base.id), note),
                 _methods_section(methods),
                 _sweep_manifest(data, everything)]
    title = (ablation_title(_game_title(data.game), path) if ablated else
             f"{_game_title(data.game)} sweep: {', '.join(data.axes) or 'cells'}")
    subtitle = (f"{len(everything)} cells \u00d7 {data.games_per_cell:,} deals, bots {', '.join(data.bots)}, seed "
                f"{data.seed}; baseline {data.baseline.id}. Sweep directory {data.out_dir}")
    table = format_cell_table(cell_frame([_cell_row(c) for c in everything]))
    if ablated and result.users:  # the item's verdicts first, the baseline's headline after them
        verdicts = [f"verdict: {verdict_line(u)}" for u in result.users]
        return Report("sweep", title, subtitle, sections, now(), headline=verdicts[0].removeprefix("verdict: "),
                      terminal="\n".join([*verdicts[1:], f"baseline: {_sweep_headline(everything)}", table]))
    return Report("sweep", title, subtitle, sections, now(), headline=_sweep_headline(everything), terminal=table)


def _detail_note(cells: list[CellAnalysis]) -> Paragraph | None:
    """What a section that reads each cell's first deals says, when some cell holds more (None otherwise)."""
    cut = [c.detail for c in cells if c.detail is not None and not c.detail.whole]
    if not cut:
        return None
    return Paragraph(f"The figures of this section are from each cell's first {cut[0].deals:,} deals (of up to "
                     f"{max(d.of for d in cut):,} a cell; deals are independent draws, so the first ones are a random "
                     "sample of a cell's; glade report --detail-deals sets how many). Every other section covers all "
                     "deals.", "note")


def _noted(section: Section | None, note: Paragraph | None) -> Section | None:
    """``section`` with ``note`` first (as it is without one)."""
    if section is None or note is None:
        return section
    return Section(section.id, section.title, [note, *section.blocks])


def _cell_headline(cell: CellAnalysis) -> str:
    """The cell's headline as ``glade play`` would say it of the cell's run."""
    return seat_headline(cell.advantage) if cell.advantage is not None else solo_headline(cell.solo)


def _sweep_headline(cells: list[CellAnalysis]) -> str:
    """The baseline cell's headline (its verdict of the cell alone; the report's are Holm-corrected)."""
    base = next((c for c in cells if c.baseline), cells[0])
    note = (f" (this cell alone; the report's verdicts are Holm-corrected across the {len(cells)} cells)"
            if len(cells) > 1 and base.advantage is not None else "")
    return f"baseline cell {base.id}: {_cell_headline(base)}{note}"


def _cell_row(cell: CellAnalysis) -> dict[str, Any]:
    return cell_row(cell.id, cell.id, cell.baseline, cell.players, _cell_headline(cell), cell.advantage, cell.solo,
                    cell.games, cell.length.mean.mean, cell.length.stalls.rate,
                    cell.unfinished.blocked.rate if cell.unfinished is not None else 0.0)
