"""The designer's sections of a sweep report: drama per cell, and the skill trace of a sweep over bot strengths.

A *skill-trace study* is a sweep whose cells differ in the bot that fills
every seat (a ``bots`` axis, one bot per cell) and are played on the same
deals (common random numbers): the seat advantage measured at each strength,
so a designer sees whether a first-player edge grows or vanishes with skill.
``configs/sweeps/*-skill-trace.toml`` are ready studies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from analysis import plots
from analysis.report.designer import NO_TRAJECTORIES
from analysis.report.model import Block, Column, Flag, Paragraph, Plot, Section, Table
from analysis.report.text import _ci, _ci_num, _g, _int, _num, _pct, _pts

DRAMA_METHOD = (
    "Drama per cell (analysis.stats.drama): the final margin's quartiles and mean (interval as the mean score's), "
    "shared first places (Wilson 95%) and the standard deviation of turns (seeded percentile bootstrap 95%), the "
    "deal as the unit when a cell rotates seats (per-deal means; whole deals resampled). Lead changes per game and "
    "the comeback rate (the winner trailed at half time) per cell come from the cell's trajectories "
    "(analysis.drama.course, by deal as in a run report); the most and least swingy cells are named by lead changes.")
SKILL_TRACE_METHOD = (
    "Skill trace: in a sweep whose cells differ only in the bot that fills every seat, each cell's seat shares "
    "(the seat-advantage analysis of the cell, its interval method named in the table) drawn against bot strength "
    "in sweep order; the cells play the same first deals (common random numbers), so the paired changes against "
    "the baseline (section Paired differences) compare strengths deal by deal. A cell may cap its deals (games = "
    "N in the sweep file): it then shares the first N deals with the others.")


def _lineup(cell: Any) -> tuple[str, ...]:
    return tuple(cell.records.sort("game", "seat")["bot"].unique(maintain_order=True).to_list())


def trace_groups(axes: Sequence[str], cells: Sequence[Any]) -> list[list[Any]]:
    """The skill traces of a sweep: cells with one bot in every seat, grouped by their labels other than
    ``bots`` and the bots' settings; a group counts when it has two or more strengths. Empty when the sweep
    has no ``bots`` axis."""
    if "bots" not in axes:
        return []
    groups: dict[tuple, list[Any]] = {}
    for cell in cells:
        if cell.advantage is None or len(_lineup(cell)) != 1:
            continue
        key = tuple(sorted((k, v) for k, v in cell.labels.items() if not _bot_setting(k)))
        groups.setdefault(key, []).append(cell)
    return [group for group in groups.values() if len({_lineup(c) for c in group}) > 1]


def _bot_setting(key: str) -> bool:
    """A label that is part of a bot's strength: the lineup, or a bot's or persona's weights
    (``bots.planner.depth``)."""
    return key == "bots" or key.startswith(("bots.", "personas."))


def _strength(cell: Any) -> str:
    """The bot's name, or the cell's id where the cell also changes the bot's settings (a deeper planner)."""
    if any(_bot_setting(k) and k != "bots" for k in cell.labels):
        return cell.id
    return cell.labels.get("bots") or _lineup(cell)[0]


def trace_flags(groups: list[list[Any]]) -> list[Flag]:
    """One finding per trace: seat 0's share at the weakest and the strongest bot (sweep order)."""
    flags = []
    for group in groups:
        first, last = group[0], group[-1]
        row0 = first.advantage.seats.filter(pl.col("seat") == 0).to_dicts()[0]
        row1 = last.advantage.seats.filter(pl.col("seat") == 0).to_dicts()[0]
        change = last.win_change if last.win_change is not None else None
        evidence = (f"{_strength(first)}: {_pct(row0['share'])} {_ci(row0['share_low'], row0['share_high'])}; "
                    f"{_strength(last)}: {_pct(row1['share'])} {_ci(row1['share_low'], row1['share_high'])} "
                    f"(fair {_pct(1 / first.players)})")
        if change is not None:
            evidence += (f"; paired change of seat 0's win rate {_pts(change.difference)} points on "
                         f"{change.pairs:,} common deals")
        flags.append(Flag("info", f"Skill trace: seat 0's share goes from {_pct(row0['share'])} ({_strength(first)}) "
                                  f"to {_pct(row1['share'])} ({_strength(last)}).", evidence))
    return flags


def _trace_blocks(group: list[Any], index: int) -> list[Block]:
    players = group[0].players
    seats = list(range(players))
    share = np.full((players, len(group)), np.nan)
    low, high = share.copy(), share.copy()
    rows = []
    for j, cell in enumerate(group):
        by_seat = {r["seat"]: r for r in cell.advantage.seats.to_dicts()}
        for s in seats:
            r = by_seat.get(s)
            if r is not None:
                share[s, j], low[s, j], high[s, j] = r["share"], r["share_low"], r["share_high"]
        rows.append([_strength(cell), cell.id, _int(cell.advantage.games)]
                    + [f"{_pct(share[s, j])} {_ci(low[s, j], high[s, j])}" for s in seats]
                    + [cell.verdict, cell.advantage.share_method, _g(cell.length.median)])
    what = "share of decided games" if players == 2 else "share of first places"
    others = {k: v for k, v in group[0].labels.items() if not _bot_setting(k)}
    where = (" (" + ", ".join(f"{k} = {v}" for k, v in others.items()) + ")") if others else ""
    table = Table(
        [Column("Bot"), Column("Cell"), Column("Games", True)] + [Column(f"Seat {s}", True) for s in seats]
        + [Column("Verdict"), Column("Interval"), Column("Median turns", True)],
        rows, caption=(f"Each seat's {what} at each bot strength{where}, with its 95% interval; the verdict is the "
                       "cell's, Holm-corrected across the sweep's cells. The cells play the same first deals."))
    figure = plots.skill_trace([_strength(c) for c in group], seats, share, low, high, 1 / players, what)
    return [table, Plot(f"skill-trace-{index}", figure,
                        f"Each seat's {what} per bot strength{where} (sweep order) with 95% intervals; the dashed "
                        "line is the fair share. A seat edge that grows to the right grows with skill.")]


def trace_section(groups: list[list[Any]]) -> Section:
    blocks: list[Block] = [Paragraph(
        "Does the seat advantage hold under stronger play? Each cell seats the same bot everywhere and plays the same "
        "deals as the others (common random numbers), so the cells differ only in skill.", "lead")]
    for i, group in enumerate(groups):
        blocks += _trace_blocks(group, i)
    return Section("skill-trace", "Skill trace", blocks)


def drama_section(cells: Sequence[Any], baseline: str) -> Section:
    """Per cell: decisiveness, drawishness and the spread of game length, with a figure to compare cells."""
    rows = []
    for c in cells:
        d = c.drama
        m = d.margin.mean
        rows.append([c.id + (" *" if c.baseline else ""), _int(d.games),
                     f"{d.margin_median:g} ({d.margin_q1:g} / {d.margin_q3:g})", _num(m.mean),
                     _ci_num(m.low, m.high), _pct(d.close.rate), _pct(d.ties.rate), _ci(d.ties.low, d.ties.high),
                     _num(d.turns_sd), _ci_num(d.turns_sd_low, d.turns_sd_high), _num(d.turns_cv)])
    figure = plots.cell_drama(
        [c.id for c in cells],
        tuple(np.array([getattr(c.drama.margin.mean, k) for c in cells]) for k in ("mean", "low", "high")),
        tuple(np.array([getattr(c.drama.ties, k) for c in cells]) for k in ("rate", "low", "high")),
        tuple(np.array([getattr(c.drama, k) for c in cells]) for k in ("turns_sd", "turns_sd_low", "turns_sd_high")),
        baseline, _course_metric(cells, "lead_changes", ("mean", "low", "high")),
        _course_metric(cells, "comeback", ("rate", "low", "high")))
    missing = "" if all(c.course is not None or c.players == 1 for c in cells) else (
        " Lead changes and comebacks of cells without trajectories (n/a): " + NO_TRAJECTORIES + ".")
    seated = any(c.players > 1 for c in cells)
    course = Table([Column("Cell"), Column("Lead changes a game", True), Column("95% interval", True),
                    Column("Comebacks", True), Column("95% interval", True), Column("Wire to wire", True),
                    Column("95% interval", True)], [[c.id + (" *" if c.baseline else ""), *_course_cells(c)]
                                                    for c in cells],
                   caption="The course of each cell's games (from its trajectories): lead changes per game, "
                           "comebacks (the one winner trailed at half time) and wire-to-wire wins (the winner never "
                           "trailed), of games with one winner; intervals by deal when deals hold several games. "
                           "* baseline.", marked=[c.baseline for c in cells])
    return Section("cell-drama", "How each cell feels", [
        Paragraph("Which cell is decisive, drawish or swingy: the final margin (first place's score minus second's), "
                  "shared first places, how much game length varies, how often the lead changes and how often the "
                  "winner came from behind." + missing, "lead"),
        Table([Column("Cell"), Column("Games", True), Column("Margin median (quartiles)", True),
               Column("Mean margin", True), Column("95% interval", True), Column("Close games", True),
               Column("Ties", True), Column("Wilson 95%", True), Column("Turns sd", True),
               Column("Bootstrap 95%", True), Column("CV", True)], rows,
              caption="Close games: won by the smallest margin seen in the cell. CV: turns sd over mean turns. "
                      "* baseline.", marked=[c.baseline for c in cells]),
        *([course] if seated else [Paragraph("Every cell has one seat: there is no lead to change, so no lead "
                                             "changes or comebacks.", "note")]),
        Plot("cell-drama", figure, "Per cell: the mean final margin, the share of shared first places, the "
                                   "standard deviation of game length" + (
                                       ", lead changes per game and comebacks (the share of games with one winner "
                                       "whose winner trailed at half time), by deal when deals hold several games "
                                       "(n/a: no trajectories)" if any(c.course is not None for c in cells) else "")
             + ", each with its 95% interval; the baseline is the red diamond."),
    ])


def _course_metric(cells: Sequence[Any], name: str,
                   fields: tuple[str, str, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One figure of each cell's course (``lead_changes`` or ``comeback``: the estimate and its interval ends;
    NaN for a cell without trajectories), or None when no cell has trajectories."""
    if all(c.course is None for c in cells):
        return None
    return tuple(np.array([getattr(getattr(c.course, name), k) if c.course is not None else np.nan for c in cells])
                 for k in fields)


def _course_cells(cell: Any) -> list[str]:
    course = cell.course
    if cell.players == 1:
        return ["one seat: no lead to change"] + ["\u2014"] * 5
    if course is None:
        return ["n/a"] * 6
    lc, cb, wire = course.lead_changes, course.comeback, course.wire_to_wire
    return [_num(lc.mean), _ci_num(lc.low, lc.high), _pct(cb.rate), _ci(cb.low, cb.high), _pct(wire.rate),
            _ci(wire.low, wire.high)]


def swing_flags(cells: Sequence[Any]) -> list[Flag]:
    """The most and least swingy cells by lead changes per game."""
    measured = [c for c in cells if c.course is not None and np.isfinite(c.course.lead_changes.mean)]
    if len(measured) < 2:
        return []
    ranked = sorted(measured, key=lambda c: c.course.lead_changes.mean)
    calm, swingy = ranked[0], ranked[-1]

    def text(c: Any) -> str:
        lc, cb = c.course.lead_changes, c.course.comeback
        return f"{_num(lc.mean)} lead changes a game {_ci_num(lc.low, lc.high)}, comebacks {_pct(cb.rate)}"

    return [Flag("info", f"Most swingy: {swingy.id}; steadiest: {calm.id}.",
                 f"{swingy.id}: {text(swingy)}; {calm.id}: {text(calm)}")]


def drama_flags(cells: Sequence[Any]) -> list[Flag]:
    """The most and least decisive cells by mean final margin, and the most and least swingy by lead changes."""
    measured = [c for c in cells if c.drama.margin.games and np.isfinite(c.drama.margin.mean.mean)]
    if len(measured) < 2:
        return []
    ranked = sorted(measured, key=lambda c: c.drama.margin.mean.mean)
    close, wide = ranked[0], ranked[-1]

    def text(c: Any) -> str:
        m = c.drama.margin.mean
        return (f"mean margin {_num(m.mean)} {_ci_num(m.low, m.high)}, ties {_pct(c.drama.ties.rate)}, turns sd "
                f"{_num(c.drama.turns_sd)}")

    return [Flag("info", f"Closest games: {close.id}; most decisive: {wide.id}.",
                 f"{close.id}: {text(close)}; {wide.id}: {text(wide)}")] + swing_flags(cells)
