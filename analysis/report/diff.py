"""Diff reports: what changed from run A to run B."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import polars as pl

from analysis import plots
from analysis import stats
from analysis.report.methods import (Change, _methods_section, config_changes, target_band, unpaired_change,
                                     unpaired_mean_change)
from analysis.report.model import (ALPHA, Column, DELTA, Facts, Flag, Flags, Heading, Paragraph, Plot, Report,
                                   Section, Table)
from analysis.report.run import _run_manifest_blocks, turn_cap
from analysis.report.sweep import _common
from analysis.report.text import (_ci, _ci_num, _ci_pts, _finite, _g, _game_title, _int, _listing, _p, _pct,
                                  _pts)
from sims.core.spec import ConfigError
from sims.records import load_manifest, load_records, now


def _pairing(ma: dict, mb: dict, ra: pl.DataFrame, rb: pl.DataFrame) -> tuple[bool, str, pl.DataFrame, pl.DataFrame]:
    for key in ("game", "players", "seed", "rotate_seats", "bots"):
        if ma.get(key) != mb.get(key):
            return False, f"the runs differ in {key} ({ma.get(key)} vs {mb.get(key)})", ra, rb
    a, b = _common(ra, rb)
    if a.height == 0:
        return False, "the runs share no deal", ra, rb
    seeds = a.select("deal", "rotation", "seed").unique().join(
        b.select("deal", "rotation", pl.col("seed").alias("seed_b")).unique(), on=["deal", "rotation"])
    if (seeds["seed"] != seeds["seed_b"]).any():
        return False, "the runs play different game seeds", ra, rb
    return True, "", a, b


def _by_deal(a_seat: pl.DataFrame, b_seat: pl.DataFrame) -> bool:
    """Whether a run holds several games of one deal (rotated seats): the deal is then the unit."""
    return a_seat["deal"].n_unique() < a_seat.height or b_seat["deal"].n_unique() < b_seat.height


def _per_deal(frame: pl.DataFrame, column: str) -> np.ndarray:
    return frame.group_by("deal").agg(pl.col(column).cast(pl.Float64).mean())[column].to_numpy()


def _unpaired_share_change(a_seat: pl.DataFrame, b_seat: pl.DataFrame, delta: float) -> Change:
    """One seat's share of decided games (first places with 3-4 players, as the headline counts it) in two
    independent runs: Newcombe on first places over counted games with one game a deal; by deal (Welch t on the
    per-deal shares of the deals with a counted game, as the headline's by-deal share) when a run rotates seats."""
    a_seat, b_seat = a_seat.filter(pl.col("counted")), b_seat.filter(pl.col("counted"))
    if _by_deal(a_seat, b_seat):
        return unpaired_mean_change(_per_deal(a_seat, "fraction"), _per_deal(b_seat, "fraction"), margin=delta)
    return unpaired_change(float(a_seat["fraction"].sum()), a_seat.height, float(b_seat["fraction"].sum()),
                           b_seat.height, margin=delta)


def _unpaired_score_change(a_seat: pl.DataFrame, b_seat: pl.DataFrame) -> Change:
    """One seat's mean score in two independent runs: Welch t on the games, or on per-deal means when a run
    rotates seats."""
    if _by_deal(a_seat, b_seat):
        return unpaired_mean_change(_per_deal(a_seat, "score"), _per_deal(b_seat, "score"))
    return unpaired_mean_change(a_seat["score"].cast(pl.Float64).to_numpy(),
                                b_seat["score"].cast(pl.Float64).to_numpy())


def _diff_config(ma: dict, mb: dict) -> list[list[str]]:
    """``[key, A, B]`` per config value of the two manifests that differs (:func:`config_changes`)."""
    return config_changes(ma.get("config") or {}, mb.get("config") or {})


def _diff_settings(ma: dict, mb: dict) -> list[list[str]]:
    rows = []
    for key in ("game", "players", "bots", "seed", "rotate_seats", "games"):
        if ma.get(key) != mb.get(key):
            rows.append([key, json.dumps(ma.get(key)), json.dumps(mb.get(key))])
    return rows


@dataclass(frozen=True)
class MetricChange:
    """One metric from run A to run B (B minus A): a seat's share, the mean turns, or an end reason's share."""

    name: str
    base: float  # run A
    other: float  # run B
    difference: float
    low: float
    high: float
    p_value: float
    method: str  # the interval's method and the test
    n_text: str  # "1,000 pairs" (paired) or "1,000 + 1,000" (unpaired)
    equivalence_p: float | None = None  # TOST within +-delta
    effect_size: float = float("nan")  # Cohen's h (proportions) or d (means)
    detectable: float = float("nan")  # the smallest change these games detect (two-sided 5%, power 80%)
    p_holm: float = float("nan")  # within its family (seats, end reasons)


@dataclass(frozen=True, eq=False)
class DiffAnalysis:
    """Every number a diff report shows, computed once (:func:`analyse_diff`)."""

    path_a: Path
    path_b: Path
    manifest_a: dict
    manifest_b: dict
    records_a: pl.DataFrame
    records_b: pl.DataFrame
    paired: bool
    why_unpaired: str
    common_a: pl.DataFrame  # the games compared (with pairing, the deals both runs hold)
    common_b: pl.DataFrame
    config_rows: list[list[str]]
    setting_rows: list[list[str]]
    players: int
    seats: tuple[MetricChange, ...]  # per seat's share (the headline's), Holm across seats
    scores: tuple[MetricChange, ...]  # per seat's mean score, Holm across seats
    turns: MetricChange  # mean turns of seat 0's rows (one per game)
    ends: tuple[MetricChange, ...]  # per end reason's share, Holm across reasons
    length_a: stats.GameLength
    length_b: stats.GameLength
    advantage_a: stats.SeatAdvantage  # each run's seat analysis (its headline's shares), on the games compared
    advantage_b: stats.SeatAdvantage
    unfinished_a: stats.Unfinished  # stalls and blocked games
    unfinished_b: stats.Unfinished
    delta: float

    @property
    def identical_results(self) -> bool:
        return self.paired and _same_results(self.common_a, self.common_b)

    @property
    def identical(self) -> bool:
        return self.identical_results and not self.config_rows and not self.setting_rows

    @property
    def significant_seats(self) -> list[int]:
        return [s for s, ch in enumerate(self.seats) if _finite(ch.p_holm) and ch.p_holm < ALPHA]

    @property
    def significant_scores(self) -> list[int]:
        return [s for s, ch in enumerate(self.scores) if _finite(ch.p_holm) and ch.p_holm < ALPHA]

    @property
    def significant_ends(self) -> list[str]:
        return [ch.name for ch in self.ends if _finite(ch.p_holm) and ch.p_holm < ALPHA]

    @property
    def turns_changed(self) -> bool:
        return _finite(self.turns.p_value) and self.turns.p_value < ALPHA

    @property
    def mode(self) -> str:
        if self.paired:
            return (f"paired on common random numbers: {self.common_a['deal'].n_unique():,} common deals, each "
                    "compared with itself (same game seed) in the other run")
        return f"unpaired (independent runs): {self.why_unpaired}"


_KEY = ("deal", "rotation", "seat")


def analyse_diff(run_a: str | Path, run_b: str | Path, delta: float = DELTA) -> DiffAnalysis:
    """Read two runs and compare them: paired on their common deals when they can be, else unpaired."""
    pa, pb = Path(run_a), Path(run_b)
    ma, mb = load_manifest(pa), load_manifest(pb)
    if ma["game"] != mb["game"]:
        raise ConfigError(str(pb / "manifest.json"), "game", f"{ma['game']}, the game of {pa} (a diff compares two "
                          "runs of one game; another config of it is fine)", mb["game"])
    ra, rb = load_records(pa), load_records(pb)
    paired, why, ca, cb = _pairing(ma, mb, ra, rb)
    players = int(max(ra["seat"].max(), rb["seat"].max())) + 1
    try:
        fa, fb = stats.seat_fractions(ca, players), stats.seat_fractions(cb, players)
        seats = _holm([_seat_change(fa, fb, seat, paired, delta) for seat in range(players)])
        scores = _holm([_score_change(ca, cb, seat, paired) for seat in range(players)])
        a0, b0 = ca.filter(pl.col("seat") == 0), cb.filter(pl.col("seat") == 0)
        turns = _turns_change(a0, b0, paired)
        reasons = sorted(set(a0["end"].unique().to_list()) | set(b0["end"].unique().to_list()))
        ends = _holm([_end_change(a0, b0, reason, paired) for reason in reasons])
        lengths = stats.game_length(ca), stats.game_length(cb)
        advantages = stats.seat_advantage(ca, delta=delta), stats.seat_advantage(cb, delta=delta)
        unfinished = stats.unfinished(ca), stats.unfinished(cb)
    except stats.StatsError as error:
        raise ConfigError(f"{pa} / {pb}", "(records)", f"records a diff can use ({error})", has_got=False) from None
    return DiffAnalysis(pa, pb, ma, mb, ra, rb, paired, why, ca, cb, _diff_config(ma, mb), _diff_settings(ma, mb),
                        players, tuple(seats), tuple(scores), turns, tuple(ends), *lengths, *advantages, *unfinished,
                        delta)


def _holm(changes: list[MetricChange]) -> list[MetricChange]:
    adjusted = stats.correct([ch.p_value for ch in changes], "holm")
    return [replace(ch, p_holm=float(q)) for ch, q in zip(changes, adjusted)]


def _seat_change(fa: pl.DataFrame, fb: pl.DataFrame, seat: int, paired: bool, delta: float) -> MetricChange:
    """One seat's share as the headline counts it (``analysis.stats.seat_share_change`` when the runs pair, else
    two independent shares), B minus A. ``fa``, ``fb``: the records with ``stats.seat_fractions``' columns."""
    name = f"seat {seat}"
    if paired:
        d = stats.seat_share_change(fa, fb, seat, key=_KEY, margin=delta)
        n_text = _int(d.pairs) + " pairs" + (f" in {d.units:,} deals" if d.unit == "deals" else "")
        return MetricChange(name, d.base_mean, d.other_mean, d.difference, d.mean.low, d.mean.high, d.p_value,
                            f"{d.mean.method}; {d.test}", n_text, d.equivalence_p, d.effect_size, d.detectable)
    a_seat, b_seat = fa.filter(pl.col("seat") == seat), fb.filter(pl.col("seat") == seat)
    c = _unpaired_share_change(a_seat, b_seat, delta)
    return MetricChange(name, c.base, c.other, c.difference, c.low, c.high, c.p_value,
                        f"{c.interval_method}; {c.test}", f"{c.n_base:,} + {c.n_other:,}", c.equivalence_p,
                        c.effect_size, c.detectable)


def _score_change(ca: pl.DataFrame, cb: pl.DataFrame, seat: int, paired: bool) -> MetricChange:
    """One seat's mean score from run A to run B: paired by deal (t test on the paired differences) or Welch."""
    a_seat, b_seat = ca.filter(pl.col("seat") == seat), cb.filter(pl.col("seat") == seat)
    name = f"seat {seat}"
    if paired:
        d = stats.paired_difference(a_seat, b_seat, "score", key=_KEY)
        return MetricChange(name, d.base_mean, d.other_mean, d.difference, d.mean.low, d.mean.high, d.p_value,
                            f"paired, {d.mean.method}; {d.test}", _int(d.pairs) + " pairs"
                            + (f" in {d.units:,} deals" if d.unit == "deals" else ""), effect_size=d.effect_size)
    c = _unpaired_score_change(a_seat, b_seat)
    unit = " (per-deal means)" if _by_deal(a_seat, b_seat) else ""
    return MetricChange(name, c.base, c.other, c.difference, c.low, c.high, c.p_value,
                        f"unpaired, {c.interval_method}{unit}; {c.test}", f"{c.n_base:,} + {c.n_other:,}",
                        effect_size=c.effect_size)


def _turns_change(a0: pl.DataFrame, b0: pl.DataFrame, paired: bool) -> MetricChange:
    if paired:
        t = stats.paired_difference(a0, b0, "turns", key=_KEY)
        return MetricChange("mean turns", t.base_mean, t.other_mean, t.difference, t.mean.low, t.mean.high,
                            t.p_value, f"paired, {t.mean.method}; {t.test}", _int(t.pairs) + " pairs")
    t = unpaired_mean_change(a0["turns"].to_numpy(), b0["turns"].to_numpy())
    return MetricChange("mean turns", t.base, t.other, t.difference, t.low, t.high, t.p_value,
                        f"unpaired, {t.interval_method}; {t.test}", f"{t.n_base:,} + {t.n_other:,}")


def _end_change(a0: pl.DataFrame, b0: pl.DataFrame, reason: str, paired: bool) -> MetricChange:
    ia = a0.with_columns((pl.col("end") == reason).alias("is_end"))
    ib = b0.with_columns((pl.col("end") == reason).alias("is_end"))
    if paired:
        d = stats.paired_difference(ia, ib, "is_end", key=_KEY)
        return MetricChange(reason, d.base_mean, d.other_mean, d.difference, d.mean.low, d.mean.high, d.p_value,
                            f"{d.mean.method}; {d.test}", _int(d.pairs) + " pairs")
    c = unpaired_change(float(ia["is_end"].sum()), ia.height, float(ib["is_end"].sum()), ib.height)
    return MetricChange(reason, c.base, c.other, c.difference, c.low, c.high, c.p_value,
                        f"{c.interval_method}; {c.test}", f"{c.n_base:,} + {c.n_other:,}")


def _headline(a: DiffAnalysis) -> Flag:
    """The verdict: no change, no change in the results, undecided, or what changed."""
    if a.identical:
        return Flag("ok", "No change: the two runs have the same config, bots and seeds, and every paired game "
                          "has the same result.", a.mode)
    if a.identical_results:
        return Flag("ok", "No change in the results: every paired game has the same result.",
                    a.mode + "; the configs differ only in the keys listed below")
    if not a.significant_seats and not a.significant_scores and not a.significant_ends and not a.turns_changed:
        return _no_significant_change(a)
    what = _share_what(a)
    parts = [f"seat {s}'s share {what} {_pct(a.seats[s].base)} \u2192 {_pct(a.seats[s].other)}, "
             f"{_pts(a.seats[s].difference)} points {_ci_pts(a.seats[s].low, a.seats[s].high)} "
             f"(Holm {stats.format_p(a.seats[s].p_holm)})" for s in a.significant_seats
             if a.players > 2 or s == 0]  # with 2 players seat 1's share is the rest of seat 0's
    parts += [f"seat {s}'s mean score {a.scores[s].difference:+.2f} {_ci_num(a.scores[s].low, a.scores[s].high)} "
              f"(Holm {stats.format_p(a.scores[s].p_holm)})" for s in a.significant_scores]
    if a.turns_changed:
        parts.append(f"mean turns {a.turns.difference:+.2f} ({stats.format_p(a.turns.p_value)})")
    if a.significant_ends:
        shift = {ch.name: ch.difference for ch in a.ends}
        shifts = ", ".join(f"{r} {_pts(shift[r])} points" for r in a.significant_ends)
        parts.append(f"end reasons shift ({shifts}; Holm p < {ALPHA})")
    return Flag("warn", "Changed: " + "; ".join(parts) + ".", a.mode)


def _no_significant_change(a: DiffAnalysis) -> Flag:
    """No significant change: equivalence shown for every seat (no change), or not (undecided)."""
    delta = a.delta
    equivalence = [ch.equivalence_p for ch in a.seats]
    detectable = max((ch.detectable for ch in a.seats if _finite(ch.detectable)), default=float("nan"))
    shown = all(p is not None and p < ALPHA for p in equivalence)
    largest = max((p for p in equivalence if p is not None), default=float("nan"))
    if shown:
        return Flag("ok", f"No change: every seat's share {_share_what(a)} is within \u00b1{100 * delta:g} points "
                          "of run A's.", a.mode + f"; equivalence (TOST) for every seat, largest {stats.format_p(largest)}"
                          f"; no significant change in mean scores, turns or end reasons (Holm at {ALPHA})")
    return Flag("info", "Undecided: no significant change, but no equivalence shown either.",
                a.mode + f"; no seat share, mean score, turns or end-reason change is significant (Holm at {ALPHA}), and "
                f"the equivalence test within \u00b1{100 * delta:g} points does not pass (largest TOST "
                f"{stats.format_p(largest)}); these games detect a change of about "
                f"{100 * detectable:.1f} points (80% power)")


def _share_what(a: DiffAnalysis) -> str:
    """What the seat shares are of, as the headline (glade play, glade report) says it."""
    from analysis.summary import shares_counted

    return shares_counted(a.advantage_a)


def _stall_flag(a: DiffAnalysis) -> Flag | None:
    """Stalls and blocked games, each run's rates, when either run has more than 1% of its games so."""
    if not (a.unfinished_a.above_limit or a.unfinished_b.above_limit):
        return None
    return Flag("warn", f"Stalls and blocked games over {stats.UNFINISHED_LIMIT:.0%} of games: run A "
                        f"{_pct(a.unfinished_a.either.rate)}, run B {_pct(a.unfinished_b.either.rate)}.",
                f"run A: {a.unfinished_a.rates_text()}; run B: {a.unfinished_b.rates_text()}; stalled games have no "
                "result and are left out of the seat shares, blocked games (no seat could move) are scored")


def diff_headline(a: DiffAnalysis) -> str:
    """The line ``glade report --diff`` prints: the verdict, each seat's share in both runs (as each run's headline
    counts it), and the stall and blocked rates when either run is over 1%."""
    flag = _headline(a)
    seats = "; ".join(f"seat {ch.name.removeprefix('seat ')} {_pct(ch.base)} \u2192 {_pct(ch.other)}"
                      for ch in a.seats[:1 if a.players == 2 else a.players])
    line = f"{flag.title} Seat shares {_share_what(a)}, A \u2192 B: {seats}"
    if _stall_flag(a) is not None:
        line += "; stalled or blocked games, over 1% in " + " and ".join(
            f"{name} {_pct(u.either.rate)} {_ci(u.either.low, u.either.high)} (stalls {_pct(u.stalls.rate)}, "
            f"blocked {_pct(u.blocked.rate)})" for name, u in (("A", a.unfinished_a), ("B", a.unfinished_b))
            if u.above_limit)
    return line


def diff_flags(a: DiffAnalysis) -> list[Flag]:
    """The headline, the stall and blocked rates when over 1%, then what differs in the setup."""
    flags = [_headline(a)]
    stalls = _stall_flag(a)
    if stalls is not None:
        flags.append(stalls)
    config_rows, setting_rows = a.config_rows, a.setting_rows
    if config_rows:
        flags.append(Flag("info", f"{len(config_rows)} config key{'s differ' if len(config_rows) > 1 else ' differs'}: "
                                  + _listing([r[0] for r in config_rows], 5) + ".",
                          "; ".join(f"{r[0]}: {r[1]} \u2192 {r[2]}" for r in config_rows[:5])))
    elif not setting_rows:
        flags.append(Flag("ok", "Same config (no key differs).", f"config hash {a.manifest_a.get('config_hash')}"))
    if setting_rows:
        flags.append(Flag("info", "Run settings differ: " + ", ".join(r[0] for r in setting_rows) + ".",
                          "; ".join(f"{r[0]}: {r[1]} \u2192 {r[2]}" for r in setting_rows)))
    return flags


def _labels(a: DiffAnalysis) -> tuple[str, str]:
    return f"A: {a.path_a.name}", f"B: {a.path_b.name}"


def _summary_section(a: DiffAnalysis) -> Section:
    ma, mb = a.manifest_a, a.manifest_b
    return Section("summary", "Summary", [
        Paragraph(f"Run A: {a.path_a} ({a.records_a['game'].n_unique():,} games, config {ma.get('config_hash')}). "
                  f"Run B: {a.path_b} ({a.records_b['game'].n_unique():,} games, config {mb.get('config_hash')}). "
                  "Changes are B minus A.", "lead"),
        Flags(diff_flags(a))])


def _setup_section(a: DiffAnalysis) -> Section:
    ma, mb = a.manifest_a, a.manifest_b
    return Section("changes", "What changed in the setup", [
        Table([Column("Config key"), Column("Run A"), Column("Run B")], a.config_rows,
              caption="Config keys whose values differ (dotted keys, as for --set).")
        if a.config_rows else Paragraph("No config key differs.", "note"),
        *([Table([Column("Setting"), Column("Run A"), Column("Run B")], a.setting_rows,
                 caption="Run settings that differ.")] if a.setting_rows else []),
        Facts([("Overrides A", " ".join(ma.get("config_overrides") or []) or "none"),
               ("Overrides B", " ".join(mb.get("config_overrides") or []) or "none"),
               ("Comparison", a.mode)]),
    ])


def _seat_row(ch: MetricChange) -> list[str]:
    return [ch.name, _pct(ch.base), _pct(ch.other), _pts(ch.difference), _ci_pts(ch.low, ch.high), _p(ch.p_value),
            _p(ch.p_holm), f"{ch.effect_size:+.3f}" if _finite(ch.effect_size) else "n/a",
            f"{100 * ch.detectable:.1f}" if _finite(ch.detectable) else "n/a",
            _p(ch.equivalence_p) if ch.equivalence_p is not None else "n/a", ch.n_text]


def _seat_section(a: DiffAnalysis) -> Section:
    method = a.seats[0].method
    what = _share_what(a)
    table = Table(
        [Column("Seat"), Column("A share", True), Column("B share", True), Column("Change (points)", True),
         Column("95% interval", True), Column("p", True), Column("Holm p", True), Column("Cohen's h", True),
         Column("Detectable (points)", True), Column(f"TOST \u00b1{100 * a.delta:g} p", True), Column("n", True)],
        [_seat_row(ch) for ch in a.seats],
        caption=(f"Share: the seat's share {what}, as each run's headline (glade play, glade report) counts it: "
                 f"{a.advantage_a.handling} in run A. " + (
            f"Paired by deal, rotation and seat, the deal the unit: interval {method}." if a.paired else
            f"Unpaired: {method}.") + " Holm across seats. Cohen's h: the effect size; detectable: the "
            "change these games find with 80% power (two-sided 5%); TOST: the equivalence test within the margin "
            "that a 'no change' needs."),
        marked=[s in a.significant_seats for s in range(a.players)])
    columns = ("share", "share_low", "share_high")
    figure = plots.diff_seats(list(range(a.players)), tuple(a.advantage_a.seats[c].to_numpy() for c in columns),
                              tuple(a.advantage_b.seats[c].to_numpy() for c in columns), *_labels(a), 1 / a.players)
    return Section("seats", "Seat shares and scores", [
        table,
        Plot("diff-seats", figure, f"Each seat's share {what} in each run with its headline's 95% interval "
                                   f"({a.advantage_a.share_method}); the dashed line is the fair share."),
        _score_table(a),
    ])


def _score_table(a: DiffAnalysis) -> Table:
    """The change in mean score per seat (points of the game's score), B minus A."""
    rows = [[ch.name, f"{ch.base:.2f}", f"{ch.other:.2f}", f"{ch.difference:+.2f}", _ci_num(ch.low, ch.high),
             _p(ch.p_value), _p(ch.p_holm), ch.method, ch.n_text] for ch in a.scores]
    return Table(
        [Column("Seat"), Column("A mean score (points)", True), Column("B mean score (points)", True),
         Column("Change (points)", True), Column("95% interval", True), Column("p", True), Column("Holm p", True),
         Column("Method"), Column("n", True)], rows,
        caption=("Mean final score per seat in the game's own points (stalled games included with their score), "
                 "B minus A. " + ("Paired by deal, rotation and seat (a deal's rotations averaged first: the deal "
                                  "is the unit), t test on the paired differences." if a.paired else
                                  "Unpaired: Welch's t on the games, or on per-deal means when a run rotates "
                                  "seats.") + " Holm across seats."),
        marked=[s in a.significant_scores for s in range(a.players)])


def _length_section(a: DiffAnalysis) -> Section:
    la, lb, t = a.length_a, a.length_b, a.turns
    caps = [c for c in (turn_cap(a.manifest_a), turn_cap(a.manifest_b)) if c is not None]
    cap = min(caps) if caps else None
    target = target_band(a.manifest_b.get("config") or {}) or target_band(a.manifest_a.get("config") or {})
    turns_row = [f"{t.base:.2f}", f"{t.other:.2f}", f"{t.difference:+.2f}", _ci_num(t.low, t.high), _p(t.p_value),
                 t.method, t.n_text]
    end_rows = [[ch.name, _pct(ch.base), _pct(ch.other), _pts(ch.difference), _ci_pts(ch.low, ch.high),
                 _p(ch.p_value), _p(ch.p_holm)] for ch in a.ends]
    return Section("length", "Game length and endings", [
        Table([Column("Metric"), Column("Run A", True), Column("Run B", True), Column("Change", True),
               Column("95% interval", True), Column("p", True), Column("Method"), Column("n", True)],
              [["mean turns", *turns_row],
               ["median turns", _g(la.median), _g(lb.median), f"{lb.median - la.median:+g}", "", "", "", ""]]),
        Table([Column("End"), Column("Run A", True), Column("Run B", True), Column("Change (points)", True),
               Column("95% interval", True), Column("p", True), Column("Holm p", True)], end_rows,
              caption=("Share of games per end reason. " + (
                  "Paired: the per-game indicator compared deal by deal (paired_difference; t test on the "
                  "paired differences)."
                  if a.paired else "Unpaired: Newcombe interval and score test.") + " Holm across end reasons."),
              marked=[ch.name in a.significant_ends for ch in a.ends]),
        Plot("diff-turns", plots.diff_turns(la.histogram, lb.histogram, *_labels(a), target, cap),
             "Share of games per number of turns in each run"
             + (f"; the shaded band is the target {target[0]:g}\u2013{target[1]:g}." if target else ".")
             + plots.length_cap_note(plots.length_cap(la.histogram, lb.histogram, turn_cap=cap,
                                                      keep=target[1] if target else None), la.histogram, lb.histogram)),
    ])


_DIFF_METHODS = [
    "Seat shares: each seat's share of decided games (2 players; ties and stalls left out) or of first places "
    "(3-4 players, a shared first place split, stalls left out), as analysis.stats.seat_advantage and every "
    "headline count it (blocked games are scored, so they count). Paired runs: analysis.stats.seat_share_change, "
    "the difference of the two runs' shares with an interval and a t test on per-deal delta-method pseudo-values "
    "(equivalence by DescrStatsW.ttost_mean); a mixed lineup in rotated seats compares its per-deal seat shares "
    "(the lineup's, as its headline).",
    "Paired comparison (same game, players, bots, seed and seat rotation; the same game seed on every common "
    "deal): analysis.stats.paired_difference per seat on the score, on the turns and on each end reason's "
    "indicator, keyed by deal, rotation and seat: the mean paired difference (a deal's rotations averaged first) "
    "with its t interval and the t test that interval inverts (scipy ttest_1samp).",
    "Unpaired comparison (otherwise): seat shares and end reasons as the difference of two independent "
    "proportions (first places over counted games) with the Newcombe hybrid score interval (statsmodels "
    "confint_proportions_2indep(method='newcomb', compare='diff')) and the score "
    "test (test_proportions_2indep(method='score')); mean turns and each seat's mean score by Welch's t test "
    "and interval (scipy ttest_ind(equal_var=False)), on per-deal means when a run rotates seats.",
    "Seat shares, seat mean scores and end reasons are each a family: p-values Holm-corrected within it (statsmodels "
    "multipletests(method='holm')).",
    "\"No change\" means the same config and settings and identical results on every paired game; \"no "
    "significant change\" means no Holm-adjusted p-value below 0.05.",
]


def _manifest_section(a: DiffAnalysis) -> Section:
    return Section("manifest", "Run manifests", [
        Heading("Run A"), *_run_manifest_blocks(a.path_a, a.manifest_a, a.records_a["game"].n_unique(), " of run A"),
        Heading("Run B"), *_run_manifest_blocks(a.path_b, a.manifest_b, a.records_b["game"].n_unique(), " of run B"),
    ])


def build_diff_report(run_a: str | Path, run_b: str | Path, delta: float = DELTA) -> Report:
    """What changed from run A to run B: config keys, seat shares, scores, turns, end reasons."""
    a = analyse_diff(run_a, run_b, delta)
    sections = [_summary_section(a), _setup_section(a), _seat_section(a), _length_section(a),
                _methods_section(_DIFF_METHODS), _manifest_section(a)]
    title = f"{_game_title(a.manifest_a.get('game', '?'))}: {a.path_a.name} vs {a.path_b.name}"
    subtitle = f"What changed from run A ({a.path_a}) to run B ({a.path_b})."
    return Report("diff", title, subtitle, sections, now(), headline=diff_headline(a))


def _same_results(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    columns = ["deal", "rotation", "seat", "score", "rank", "win", "turns", "end"]
    if a.height != b.height:
        return False
    left = a.select(columns).sort("deal", "rotation", "seat")
    right = b.select(columns).sort("deal", "rotation", "seat")
    return left.equals(right)
