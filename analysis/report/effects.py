"""Sweep report sections over the whole grid: main effects of each key (one model over all cells) and the
response curves of each numeric key (analysis.stats.effects)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from analysis import plots
from analysis import stats
from analysis.report.model import ALPHA, STALL_FLAG, Block, Column, Paragraph, Plot, Section, Table
from analysis.report.text import _ci, _ci_num, _ci_pts, _num, _p, _pct, _pts
from analysis.stats.effects import MainEffects, crossing, is_crossed, main_effects, numeric_keys

_SHARE, _TURNS = "_seat0_share", "_turns"

EFFECTS_METHOD = (
    "Main effects (sweeps whose cells cross two or more keys): one linear model of a per-game outcome on the cells "
    "(statsmodels OLS y ~ C(cell) - 1, covariance clustered by deal: the cells play the same deals); a level's "
    "marginal mean is the unweighted mean of its cells' means, its effect that less the mean of all cells, with a "
    "Wald interval and test (results.t_test); a key's main effect is the joint Wald chi-square test that its "
    "marginal means are equal, the interaction the joint test that the cell means are additive (results.wald_test); "
    "Holm (multipletests(method='holm')) across the terms and across the levels of each outcome. Outcomes: seat 0's "
    "share of first places (shared ones split, a stall 1/players; less 1/players when cells differ in players; a "
    "solitaire cell's win) and the game's turns.")
CURVES_METHOD = (
    "Response curves (numeric keys): each cell's own estimate and interval against the key's value, one line per "
    "combination of the other keys; a line's crossing of its target (the fair share, the target band's edges, the "
    f"{STALL_FLAG:.0%} stall flag) is the linear interpolation between the two neighbouring cells (numpy.interp), and "
    "its range the values where the pointwise 95% band holds the target: a description of the cells, not a fitted "
    "model.")


def _kind(cells: Sequence[Any]) -> str:
    """``solitaire`` (every cell one seat), ``mixed`` (player counts differ) or ``seats``."""
    if all(c.advantage is None for c in cells):
        return "solitaire"
    return "mixed" if len({c.players for c in cells}) > 1 else "seats"


def _share_words(kind: str) -> str:
    return {"solitaire": "the player's win rate",
            "mixed": "seat 0's share of first places less the fair share 1/players",
            "seats": "seat 0's share of first places"}[kind]


def effect_games(cells: Sequence[Any], keys: Sequence[str]) -> pl.DataFrame:
    """One row per game of every cell: its deal, each key's level, seat 0's share of first places (shared ones
    split, a stall 1/players; less 1/players when the cells' player counts differ; a solitaire cell's win) and
    its turns."""
    kind = _kind(cells)
    frames = []
    for c in cells:
        if c.advantage is None:
            rows = c.records.select("deal", pl.col("win").cast(pl.Float64).alias(_SHARE), "turns")
        else:
            shift = 1 / c.players if kind == "mixed" else 0.0
            rows = (stats.first_place_share(c.records, 1 / c.players).filter(pl.col("seat") == 0)
                    .select("deal", (pl.col("share") - shift).alias(_SHARE), "turns"))
        frames.append(rows.with_columns(pl.col("turns").cast(pl.Float64).alias(_TURNS),
                                        *[pl.lit(c.labels[k]).alias(k) for k in keys]).drop("turns"))
    return pl.concat(frames, how="vertical")


def effects_of(data: Any, cells: Sequence[Any]) -> tuple[MainEffects, MainEffects] | None:
    """The main effects on seat 0's share and on turns, or None when the cells do not cross the sweep's keys
    (or mix solitaire and multiplayer cells)."""
    keys = list(data.axes)
    if not cells or not is_crossed([c.labels for c in cells], keys) or (
            0 < sum(c.advantage is None for c in cells) < len(cells)):
        return None
    levels = {k: list(dict.fromkeys(c.labels[k] for c in cells)) for k in keys}
    games = effect_games(cells, keys)
    return main_effects(games, keys, _SHARE, levels), main_effects(games, keys, _TURNS, levels)


def _term_sentence(share: MainEffects, turns: MainEffects, key: str, kind: str) -> str:
    term = share.terms.filter(pl.col("term") == key).to_dicts()[0]
    top = share.strongest(key)
    what = _share_words(kind)
    length_term = turns.terms.filter(pl.col("term") == key).to_dicts()[0]
    if length_term["p_holm"] < ALPHA:
        length = turns.strongest(key)
        on_length = (f"on length {length['level']} moves most, {length['effect']:+.1f} turns "
                     f"{_ci_num(length['low'], length['high'], 1)}")
    else:
        on_length = f"no main effect on length shown (Holm {stats.format_p(length_term['p_holm'])})"
    if term["p_holm"] < ALPHA:
        return (f"{key} moves {what} (Wald \u03c7\u00b2({term['df']}) = {term['chi2']:.1f}, Holm "
                f"{stats.format_p(term['p_holm'])}): furthest from the mean of all cells is {top['level']}, "
                f"{_pts(top['effect'])} points {_ci_pts(top['low'], top['high'])} (Holm "
                f"{stats.format_p(top['p_holm'])}); {on_length}.")
    return (f"{key}: no main effect on {what} shown (Wald \u03c7\u00b2({term['df']}) = {term['chi2']:.1f}, Holm "
            f"{stats.format_p(term['p_holm'])}; its largest level effect, {top['level']}, is {_pts(top['effect'])} "
            f"points {_ci_pts(top['low'], top['high'])}); {on_length}.")


def main_effects_section(data: Any, cells: Sequence[Any]) -> Section | None:
    """Which key (and which of its levels) moves seat 0's share and the game's length, from one model over all
    cells; None when the cells do not cross the keys."""
    found = effects_of(data, cells)
    if found is None:
        keys = list(data.axes)
        if len(keys) < 2:
            return None
        return Section("effects", "Main effects of the sweep's keys", [Paragraph(
            f"Not measured: the cells do not cross {', '.join(keys)} (every combination of their levels played, as a "
            "[grid] plays them), so no one model separates the keys; compare the cells themselves.", "note")])
    share, turns = found
    kind = _kind(cells)
    keys = list(share.keys)
    blocks: list[Block] = [Paragraph(" ".join(_term_sentence(share, turns, k, kind) for k in keys), "lead")]
    interaction = share.terms.filter(pl.col("term") == "interaction").to_dicts()
    if interaction:
        i = interaction[0]
        blocks.append(Paragraph(
            (f"The keys interact on {_share_words(kind)} (Wald \u03c7\u00b2({i['df']}) = {i['chi2']:.1f}, Holm "
             f"{stats.format_p(i['p_holm'])}): a level's effect depends on the other keys' levels, so read the cells too."
             if i["p_holm"] < ALPHA else
             f"No interaction on {_share_words(kind)} shown (Wald \u03c7\u00b2({i['df']}) = {i['chi2']:.1f}, Holm "
             f"{stats.format_p(i['p_holm'])}): the levels' effects add up."), "body"))
    by_term = {r["term"]: r for r in turns.terms.to_dicts()}
    term_rows = [[r["term"], f"{r['chi2']:.1f} ({r['df']})", _p(r["p_holm"]),
                  f"{by_term[r['term']]['chi2']:.1f} ({by_term[r['term']]['df']})", _p(by_term[r["term"]]["p_holm"])]
                 for r in share.terms.to_dicts()]
    share_pct = _pct if kind != "mixed" else (lambda v: _pts(v))
    length_rows = {(r["key"], r["level"]): r for r in turns.levels.to_dicts()}
    level_rows, marked = [], []
    for r in share.levels.to_dicts():
        t = length_rows[(r["key"], r["level"])]
        level_rows.append([r["key"], r["level"], str(r["cells"]), share_pct(r["marginal"]), _pts(r["effect"]),
                           _ci_pts(r["low"], r["high"]), _p(r["p_holm"]), _num(t["marginal"], 1),
                           f"{t['effect']:+.2f}", _ci_num(t["low"], t["high"]), _p(t["p_holm"])])
        marked.append(r["p_holm"] < ALPHA)
    unit = f"{share.games:,} games, {share.deals:,} deals"
    blocks += [
        Table([Column("Term"), Column("Share: \u03c7\u00b2 (df)", True), Column("Holm p", True),
               Column("Length: \u03c7\u00b2 (df)", True), Column("Holm p", True)], term_rows,
              caption=f"Wald chi-square tests of each key's main effect and of their interaction, on {_share_words(kind)} "
                      f"and on the game's turns; one model over all cells each ({share.method}; {unit})."),
        Table([Column("Key"), Column("Level"), Column("Cells", True),
               Column("Seat 0 share" if kind != "solitaire" else "Win rate", True),
               Column("Effect (points)", True), Column("95% interval", True), Column("Holm p", True),
               Column("Mean turns", True), Column("Effect (turns)", True), Column("95% interval", True),
               Column("Holm p", True)], level_rows, marked=marked,
              caption=(f"Each level's marginal mean (the unweighted mean over its cells) of {_share_words(kind)} "
                       "and of the turns, and its effect: the marginal mean less the mean of all cells "
                       f"({_pts(share.grand)} points share, {turns.grand:.1f} turns"
                       if kind == "mixed" else
                       f"Each level's marginal mean (the unweighted mean over its cells) of {_share_words(kind)} "
                       "and of the turns, and its effect: the marginal mean less the mean of all cells "
                       f"({_pct(share.grand)} share, {turns.grand:.1f} turns")
                      + f"). Wald 95% intervals, covariance clustered by deal; Holm across the {share.levels.height} "
                        "levels of each outcome. Highlighted: a Holm-significant effect on the share. Not "
                        "observational: the cells are the experiment (every level played on the same deals)."),
    ]
    labels = [f"{r['key']}: {r['level']}" for r in share.levels.to_dicts()]
    figure = plots.main_effects(labels, [
        (f"Effect on {'win rate' if kind == 'solitaire' else 'seat 0 share'} (points)", share.levels, "pts"),
        ("Effect on length (turns)", turns.levels, "num")])
    blocks.append(Plot("main-effects", figure,
                       "Each level's effect (its marginal mean less the mean of all cells) with its Wald 95% interval "
                       "(clustered by deal); dashed: no effect. Highlighted: Holm-significant (across the levels of "
                       "that outcome)."))
    return Section("effects", "Main effects of the sweep's keys", blocks)


# ---------------------------------------------------------------- response curves


def _curve_values(cell: Any, kind: str) -> list[tuple[float, float, float]]:
    """Per measure (share, mean turns, stall rate): the cell's estimate and interval."""
    if cell.advantage is None:
        share = (cell.solo.rate, cell.solo.low, cell.solo.high)
    else:
        row = cell.advantage.seats.filter(pl.col("seat") == 0).to_dicts()[0]
        shift = 1 / cell.players if kind == "mixed" else 0.0
        share = (row["share"] - shift, row["share_low"] - shift, row["share_high"] - shift)
    mean, stalls = cell.length.mean, cell.length.stalls
    return [share, (mean.mean, mean.low, mean.high), (stalls.rate, stalls.low, stalls.high)]


def _share_text(x: np.ndarray, measure: tuple, target: float, shown: str) -> tuple[str, float]:
    """Where a share line crosses its target, and the range where the cells' intervals hold it."""
    found = crossing(x, *measure, target)
    if np.isfinite(found.value):
        text = f"crosses {shown} at {found.value:.3g}"
    else:
        text = f"{'above' if np.nanmin(measure[0]) > target else 'below'} {shown} everywhere"
    if np.isfinite(found.low):
        before = "\u2264 " if found.open_low else ""
        after = " or beyond" if found.open_high else ""
        text += (f"; the intervals hold {shown} over the whole range" if found.open_low and found.open_high else
                 f"; the intervals hold {shown} from {before}{found.low:.3g} to {found.high:.3g}{after}")
    return text, found.value


def _band_text(x: np.ndarray, measure: tuple, band: Sequence[float] | None) -> tuple[str, float]:
    """How a mean-turns line meets the target band: inside or outside everywhere, or where it crosses an end."""
    if band is None:
        return "n/a (no target band)", float("nan")
    y = measure[0]
    side = np.where(y < band[0], -1, np.where(y > band[1], 1, 0))
    if (side == 0).all():
        return "inside the band everywhere", float("nan")
    if (side == -1).all() or (side == 1).all():
        return (f"{'below' if side[0] < 0 else 'above'} the band everywhere ({np.nanmin(y):.1f}\u2013"
                f"{np.nanmax(y):.1f} turns)"), float("nan")
    parts, first = [], float("nan")
    for edge, name in ((band[0], "low"), (band[1], "high")):
        found = crossing(x, y, y, y, edge)
        if np.isfinite(found.value):
            parts.append(f"crosses the band's {name} end ({edge:g}) at {found.value:.3g}")
            first = found.value if not np.isfinite(first) else first
    return "; ".join(parts) or "touches the band", first


def _stall_text(x: np.ndarray, measure: tuple) -> tuple[str, float]:
    """Where a stall-rate line crosses the report's stall flag."""
    found = crossing(x, measure[0], measure[0], measure[0], STALL_FLAG)
    if np.isfinite(found.value):
        return f"crosses {STALL_FLAG:.0%} at {found.value:.3g}", found.value
    return f"{'over' if np.nanmin(measure[0]) > STALL_FLAG else 'under'} {STALL_FLAG:.0%} everywhere", float("nan")


def response_section(data: Any, cells: Sequence[Any]) -> Section | None:
    """Per numeric key: seat 0's share, the mean turns and the stall rate against the key's value with the cells'
    intervals, and where each line crosses its target; None when no key is numeric."""
    keys = numeric_keys([c.labels for c in cells], data.axes)
    if not keys:
        return None
    kind = _kind(cells)
    base = next((c for c in cells if c.baseline), cells[0])
    band = base.target
    share_target = None if kind == "solitaire" else (0.0 if kind == "mixed" else 1 / cells[0].players)
    share_title = {"solitaire": "Win rate", "mixed": "Seat 0 share less fair (points)",
                   "seats": "Seat 0 share"}[kind]
    share_note = {"solitaire": "Wilson 95%", "mixed": "95% as the cell's headline",
                  "seats": f"95% as the cell's headline; dashed: fair {_pct(share_target, 0) if share_target else ''}"}[kind]
    panels = [(share_title, share_note, "pts" if kind == "mixed" else "pct", share_target),
              ("Mean turns", "95% by deal" + ("; shaded: the target band" if band else ""), "num",
               tuple(band) if band else None),
              ("Stall rate", f"Wilson 95%; dashed: the {STALL_FLAG:.0%} flag", "pct", STALL_FLAG)]
    blocks: list[Block] = [Paragraph(
        f"Each numeric key as a line: {_share_words(kind)}, the mean game length and the stall rate at each of its "
        "values, one line per combination of the other keys, with each cell's own 95% interval; the table says where "
        "a line crosses its target.", "lead")]
    rows = []
    for key in keys:
        others = [k for k in data.axes if k != key]
        groups: dict[tuple[str, ...], list[Any]] = {}
        for c in cells:
            groups.setdefault(tuple(c.labels.get(k, "") for k in others), []).append(c)
        lines, marks = [], []
        for combo, members in groups.items():
            members = sorted(members, key=lambda c: float(c.labels[key]))
            x = np.array([float(c.labels[key]) for c in members])
            values = [_curve_values(c, kind) for c in members]
            measures = [tuple(np.array([v[m][i] for v in values]) for i in range(3)) for m in range(3)]
            label = ", ".join(f"{k}={v}" for k, v in zip(others, combo)) or key
            lines.append((label, x, measures))
            if share_target is None:
                share_text, share_at = "n/a (no target)", float("nan")
            else:
                shown = _pct(share_target) if kind == "seats" else "fair"
                share_text, share_at = _share_text(x, measures[0], share_target, shown)
            turns_text, turns_at = _band_text(x, measures[1], band)
            stall_text, stall_at = _stall_text(x, measures[2])
            rows.append([key, label if others else "all cells", share_text, turns_text, stall_text])
            marks.append([share_at, turns_at, stall_at])
        figure = plots.response_curves(key, lines, panels, marks)
        blocks.append(Plot(f"response-{_slug(key)}", figure,
                           f"{key}: each cell's estimate with its own 95% interval, one line per combination of the "
                           "other keys (drawn a little apart so the intervals do not overlap); a dotted tick at the "
                           "foot marks where a line crosses its target."))
    blocks.append(Table([Column("Key"), Column("Line"), Column(share_title), Column("Mean turns"),
                         Column("Stall rate")], rows,
                        caption="Where each line crosses its target: the linear interpolation between the two "
                                "neighbouring cells; where the cells' pointwise 95% intervals (interpolated the same "
                                "way) hold the target, no crossing is established there. The target band of turns is "
                                + (f"the config's [report] target_turns, {band[0]:g}\u2013{band[1]:g}" if band else
                                   "not set (config [report] target_turns)")
                                + f"; the stall target is the report's {STALL_FLAG:.0%} flag."))
    return Section("curves", "Response curves of the numeric keys", blocks)


def _slug(key: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in key).strip("-")


__all__ = ["CURVES_METHOD", "EFFECTS_METHOD", "effect_games", "effects_of", "main_effects_section",
           "response_section"]
