"""The ablation section of a sweep report written by ``glade ablate`` (``ablate.json`` beside ``sweep.json``).

The paired changes of every ablation against the baseline (a table and a
figure), and the items the ablation confirmed: the observational content
table of the baseline run against the causal change for the item's users.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis import plots
from analysis.ablate import ABLATE_JSON, METRIC_TEXT, AblateResult, analyse_ablate
from analysis.report.model import Block, Column, Paragraph, Plot, Section, Table
from analysis.report.text import _ci_num, _ci_pts, _num, _p, _pct, _pts

ABLATE_METHODS = [
    "Ablations (glade ablate): the baseline and each ablation play the same deals (common random numbers). Per "
    "ablation and seat, the paired change (ablated minus baseline) of the seat's share of first places (a shared "
    "first place split) and of its score, and of the game's length, by analysis.stats.paired_difference: a deal's "
    "rotations averaged first (the deal is the unit), the mean difference's t interval and the t test it inverts "
    "(scipy ttest_1samp); Holm across the ablations, per seat and measure. An item "
    "is confirmed when the baseline's observational table and the causal change agree in sign (removing or "
    "weakening an item that its users win more with lowers its users' share) and the causal interval excludes 0; "
    "the users are the seats that used the item in the baseline, paired with the same seats of the same deals in "
    "the ablation.",
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
        ("Share of first places (points)", *(100 * np.array(v) for v in panels["share"])),
        ("Mean score (game points)", *(np.array(v) for v in panels["score"])),
        ("Game length (turns)", *(np.array(v) for v in panels["turns"]))])
    return Plot("ablation-changes", figure, "Paired change (ablated minus baseline) per ablation and seat with its "
                                            "95% interval by deal; game length once per ablation. The dashed line is "
                                            "no change.")


def _confirmed(result: AblateResult) -> list[Block]:
    if not result.users:
        return [Paragraph("No ablation names an item (a [Name] in its key, or a list item with a name), so none is "
                          "held against the content tables.", "note")]
    rows = []
    for u in result.users:
        obs = u.observed
        rows.append([u.ablation, str(u.item), u.family or "(in no table)",
                     f"{_pts(obs['difference'])} {_ci_pts(obs['diff_low'], obs['diff_high'])}" if obs else "n/a",
                     f"{_pts(u.change.difference)} {_ci_pts(u.change.mean.low, u.change.mean.high)}"
                     if u.change is not None else "n/a", u.verdict])
    return [Table([Column("Ablation"), Column("Item"), Column("Family"), Column("Observational (points)", True),
                   Column("Causal: users' change (points)", True), Column("Verdict")], rows,
                  marked=[u.verdict == "confirmed" for u in result.users],
                  caption="Observational: the baseline run's content table (win rate of seat-games that used the item "
                          "minus the others', 95% by deal). Causal: the paired change of the share of first places of "
                          "the seats that used the item in the baseline, on the same deals with the ablation. "
                          "Confirmed: opposite signs (weakening a strong item costs its users) and the causal "
                          "interval excludes 0. The users are chosen by the baseline's play, so where the ablation "
                          "changes the course of play their share falls back towards the average even for a "
                          "neutral item: read a confirmation beside a placebo (an item the table calls neutral).")]


def ablation_title(game_title: str, path: str | Path) -> str:
    """The report's title: the game and the ablations as given (a sweep's title would list the keys they set)."""
    from analysis.ablate import load_ablations

    return f"{game_title} ablation: " + "; ".join(a.text for a in load_ablations(path))


def ablation_section(path: str | Path) -> Section:
    """The ablations' paired changes, their figure and the items they confirmed."""
    result = analyse_ablate(path)
    rows, marked = _change_rows(result)
    blocks: list[Block] = [
        Paragraph(f"{len(result.ablations)} ablation(s), each played on the same {result.deals:,} deals as the "
                  "baseline: the paired change is what the change itself does (causal), unlike the content "
                  "tables.", "lead"),
        Table([Column("Ablation"), Column("Who"), Column("Measure"), Column("Baseline", True),
               Column("Ablated", True), Column("Change [95% by deal]", True), Column("Holm p", True)], rows,
              marked=marked, caption="Highlighted: Holm-adjusted p < 0.05 across the ablations."),
        _figure(result),
        *_confirmed(result),
    ]
    return Section("ablation", "Ablations", blocks)


__all__ = ["ABLATE_METHODS", "ablation_section", "is_ablation"]
