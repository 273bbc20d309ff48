"""The ablation section of a sweep report written by ``glade ablate`` (``ablate.json`` beside ``sweep.json``).

The paired changes of every ablation against the baseline (a table and a
figure), and the items the ablation confirmed: the observational content
table of the baseline run against the causal change for the item's users.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis import plots
from analysis.ablate import ABLATE_JSON, METRIC_TEXT, AblateResult, Users, analyse_ablate, load_ablations, verdict_line
from analysis.report.model import Block, Column, Flag, Paragraph, Plot, Section, Table
from analysis.report.text import _ci, _ci_num, _ci_pts, _num, _p, _pct, _plain, _pts

ABLATE_METHODS = [
    "Ablations (glade ablate): the baseline, each ablation and a placebo play the same deals (common random "
    "numbers). Per ablation and seat, the change (ablated minus baseline) of the seat's share as the headline counts "
    "it (analysis.stats.seat_share_change: decided games with 2 players, first places with 3-4) and, paired by deal "
    "(analysis.stats.paired_difference), of its score and of the game's length; a deal's rotations together (the "
    "deal is the unit); t intervals and the t tests they invert (scipy ttest_1samp; the share's on delta-method "
    "pseudo-values by deal); Holm across the ablations, per seat and measure.",
    "The verdict on an item: its users are the seats that used it in the baseline. Chosen by the baseline's "
    "play, their share falls back towards the average whenever the course of play changes, even for a neutral "
    "change; the placebo measures that drift: the baseline played again on the same deals with every bot's "
    "tie-breaks drawn from other random streams (RunSpec.bot_streams in sims.runspec, no rule changed), taken in the "
    "games the ablation changed (the baseline's elsewhere). The verdict's measure is the users' share with the "
    "ablation minus with the placebo, paired by deal. Confirmed: its interval excludes 0 the way the observational "
    "difference predicts for a weakened item (users of a strong item lose); not confirmed: a move that way larger "
    "than 2.5 points is ruled out; otherwise undecided (also with fewer than 20 deals with a user, or without a "
    "placebo run). The placebo redraws a game from its first tie, the ablation from the item's first use, so the "
    "placebo's drift is if anything the larger one: a confirmation is not drift, a 'not confirmed' may hide a small "
    "effect. A removal or a swap changes the deck and so re-deals more than the placebo does: read its "
    "confirmation with that in mind.",
]


def is_ablation(path: str | Path) -> bool:
    return (Path(path) / ABLATE_JSON).is_file()


def _change_rows(result: AblateResult) -> tuple[list[list[str]], list[bool]]:
    rows, marked = [], []
    for c in result.changes:
        p = c.paired
        share = c.metric == "share"
        value = _pct if share else _num
        change = (f"{_pts(p.difference)} {_ci_pts(p.mean.low, p.mean.high)}" if share
                  else f"{p.difference:+.2f} {_ci_num(p.mean.low, p.mean.high)}")
        rows.append([c.ablation, f"seat {c.seat}" if c.seat is not None else "game", METRIC_TEXT[c.metric],
                     value(p.base_mean), value(p.other_mean), change, _p(c.p_holm)])
        marked.append(bool(np.isfinite(c.p_holm) and c.p_holm < 0.05))
    return rows, marked


def _figure(result: AblateResult) -> Plot:
    labels, panels = [], {m: ([], [], []) for m in ("share", "score", "turns")}
    for a in result.ablations:
        seats = sorted({c.seat for c in result.changes if c.ablation == a.text and c.seat is not None})
        turns = next(c.paired for c in result.changes if c.ablation == a.text and c.metric == "turns")
        for i, seat in enumerate(seats):
            labels.append(f"{a.text} \u00b7 seat {seat}")
            for metric in ("share", "score"):
                p = next(c.paired for c in result.changes
                         if c.ablation == a.text and c.seat == seat and c.metric == metric)
                for target, x in zip(panels[metric], (p.difference, p.mean.low, p.mean.high)):
                    target.append(x)
            for target, x in zip(panels["turns"], (turns.difference, turns.mean.low, turns.mean.high)):
                target.append(x if i == 0 else np.nan)
    figure = plots.ablation_changes(labels, [
        ("Seat share (points)", *(100 * np.array(v) for v in panels["share"])),
        ("Mean score (game points)", *(np.array(v) for v in panels["score"])),
        ("Game length (turns)", *(np.array(v) for v in panels["turns"]))])
    return Plot("ablation-changes", figure, "Paired change (ablated minus baseline) per ablation and seat with its "
                                            "95% interval by deal; game length once per ablation. The dashed line is "
                                            "no change.")


def _verdict_table(result: AblateResult) -> list[Block]:
    """The answer first: per ablation with a named item, the verdict, its measure, the drift, the use rates."""
    if not result.users:
        return [Paragraph("No ablation names an item (a [Name] in its key, or a list item with a name), so none is "
                          "held against the content tables.", "note")]
    rows = []
    for u in result.users:
        obs = u.observed

        def change(p) -> str:
            return f"{_pts(p.difference)} {_ci_pts(p.mean.low, p.mean.high)}" if p is not None else "n/a"

        use = " \u2192 ".join(f"{_pct(p.rate)} {_ci(p.low, p.high)}" if p is not None else "n/a" for p in u.use[:2])
        rows.append([u.ablation, str(u.item), u.verdict, change(u.effect if u.placebo is not None else u.change),
                     change(u.change), change(u.placebo), use,
                     f"{_pts(obs['difference'])} {_ci_pts(obs['diff_low'], obs['diff_high'])}" if obs else "n/a"])
    return [Table([Column("Ablation"), Column("Item"), Column("Verdict"),
                   Column("Users' share beyond the placebo (points)", True),
                   Column("Users' share, the change (points)", True), Column("Users' share, the placebo (points)", True),
                   Column("Use rate: baseline \u2192 ablated", True), Column("Observational (points)", True)], rows,
                  marked=[u.verdict == "confirmed" for u in result.users],
                  caption="Users: the seats that used the item in the baseline. Their share (of decided games, as "
                          "the headline counts it) with the ablation and with the placebo, each minus the baseline, "
                          "and the verdict's measure: with the ablation minus with the placebo, 95% on delta-method "
                          "pseudo-values by deal. Confirmed: that interval excludes 0 the way the observational "
                          "difference (the baseline's content table: win rate of seat-games that used the item minus "
                          "the others', 95% by deal) predicts for a weakened item; not confirmed: a move that way "
                          "larger than 2.5 points is ruled out; else undecided. Use rate: the share of seat-games "
                          "that used the item (Wilson, or by deal). " + result.placebo + ".")]


def ablation_flags(result: AblateResult) -> list[Flag]:
    """The report's first findings: one per ablation with a named item, the verdict and why."""
    flags = []
    for u in result.users:
        level = {"confirmed": "ok", "not confirmed": "info"}.get(u.verdict, "info")
        m = u.effect if u.placebo is not None else u.change
        measure = (f" (its users' share {_pts(m.difference)} {_ci_pts(m.mean.low, m.mean.high)} points "
                   f"{'beyond the placebo' if u.placebo is not None else 'with the change'})" if m is not None else "")
        title = f"{u.ablation}: {u.verdict}{measure}."
        flags.append(Flag(level, title, _plain(verdict_line(u).split(": ", 2)[2]) + f". Placebo: {result.placebo}"))
    return flags


def ablation_title(game_title: str, path: str | Path) -> str:
    """The report's title: the game and the ablations as given (a sweep's title would list the keys they set)."""
    from analysis.ablate import load_ablations

    return f"{game_title} ablation: " + "; ".join(a.text for a in load_ablations(path))


def ablation_section(path: str | Path, result: AblateResult | None = None) -> Section:
    """The verdict per item first, then the ablations' paired changes and their figure."""
    result = result if result is not None else analyse_ablate(path)
    rows, marked = _change_rows(result)
    blocks: list[Block] = [
        Paragraph(f"{len(result.ablations)} ablation(s), each played on the same {result.deals:,} deals as the "
                  "baseline and a placebo: the paired change is what the change itself does (causal), unlike the "
                  "content tables.", "lead"),
        *_verdict_table(result),
        Table([Column("Ablation"), Column("Who"), Column("Measure"), Column("Baseline", True),
               Column("Ablated", True), Column("Change [95% by deal]", True), Column("Holm p", True)], rows,
              marked=marked, caption="Seat share: the seat's share as its headline counts it (decided games with 2 "
                                     "players, first places with 3-4). Highlighted: Holm-adjusted p < 0.05 across "
                                     "the ablations."),
        _figure(result),
    ]
    return Section("ablation", "Ablations", blocks)


def ablation_titles(path: str | Path) -> dict[str, str]:
    """Cell id -> the ablation as given (``remove Douglas Fir``), for naming an ablation's cells."""
    return {a.id: a.text for a in load_ablations(path)}


__all__ = ["ABLATE_METHODS", "ablation_flags", "ablation_section", "ablation_titles", "is_ablation"]
