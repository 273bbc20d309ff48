"""Reports: what a run, a sweep, or the change between two runs says, as HTML and PDF.

One data model, rendered twice. A builder (:func:`build_run_report`,
:func:`build_sweep_report`, :func:`build_diff_report`, or :func:`build_report`
which tells a run directory from a sweep directory) reads the records, calls
:mod:`analysis.stats` for every number, and returns a :class:`Report`: sections
of blocks (paragraphs, flags, tables, figures, facts, code). Then
:func:`render_html` writes one self-contained HTML file (CSS inline, figures as
``data:`` SVG images, no script, no external URL) and :func:`render_pdf` an A4
PDF (fpdf2: real text, tables that carry their headings over page breaks,
figures as 200 dpi PNG).

Results are phrased as docs/statistics.md asks: estimate, interval with its
method, n, the test and its verdict. Flags are short sentences with that
evidence. Component strength is labelled observational wherever it appears.

The statistics come from :mod:`analysis.stats`; this module adds only what it
lacks, and the methods section says so:

* :func:`seat_tests`: per-seat exact binomial tests against the fair share,
  Holm-corrected across seats (3-4 players; with 2 players the one binomial
  test of :func:`analysis.stats.seat_advantage`);
* :func:`unpaired_change`: a difference of two independent proportions
  (Newcombe interval and score test, statsmodels), for runs on other seeds;
* the running seat-0 estimate of the convergence figure (pointwise Wilson).
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from scipy import stats as scipy_stats
from statsmodels.stats.power import NormalIndPower, TTestIndPower
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_effectsize,
    test_proportions_2indep,
    tost_proportions_2indep,
)
from statsmodels.stats.weightstats import ttost_ind

from analysis import plots
from analysis import stats
from sims.core.spec import ConfigError
from sims.records import Chunk, load_events, load_manifest, load_records, machine, now

DELTA = 0.025
ALPHA = 0.05
STALL_FLAG = 0.01  # flag runs where more than this share of games stall
FLAT_GRADIENT = 0.05  # the strongest bot within this of 50% against the weakest: too flat
COMPONENT_COLUMNS = ("kind", "card", "action", "objective", "tile", "component")
HTML_NAME = "report.html"
PDF_NAME = "report.pdf"
PNG_DPI = 200


# ================================================================ the data model


@dataclass
class Paragraph:
    text: str
    style: str = "body"  # body | lead | note


@dataclass
class Heading:
    text: str


@dataclass
class Flag:
    """One finding: ``warn`` (a problem), ``ok`` (a check passed) or ``info``; a title and its evidence."""

    level: str
    title: str
    evidence: str


@dataclass
class Flags:
    items: list[Flag]


@dataclass
class Column:
    name: str
    numeric: bool = False


@dataclass
class Table:
    columns: list[Column]
    rows: list[list[str]]
    caption: str = ""
    marked: list[bool] | None = None  # rows to highlight (flagged, or the baseline)

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table row of {len(row)} cells for {len(self.columns)} columns: {row}")


@dataclass
class Plot:
    id: str
    figure: Figure
    caption: str


@dataclass
class Facts:
    items: list[tuple[str, str]]


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Code:
    summary: str
    text: str


Block = Paragraph | Heading | Flags | Table | Plot | Facts | Bullets | Code


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Report:
    kind: str  # run | sweep | diff
    title: str
    subtitle: str
    sections: list[Section]
    generated: str

    def section(self, section_id: str) -> Section:
        return next(s for s in self.sections if s.id == section_id)

    def plots(self) -> list[Plot]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]

    def close(self) -> None:
        """Free the figures (matplotlib keeps them otherwise)."""
        for plot in self.plots():
            plot.figure.clear()


# ================================================================ formatting


def _finite(x: Any) -> bool:
    return x is not None and isinstance(x, (int, float, np.floating, np.integer)) and math.isfinite(float(x))


def _pct(x: Any, digits: int = 1) -> str:
    return f"{100 * float(x):.{digits}f}%" if _finite(x) else "n/a"


def _ci(low: Any, high: Any, digits: int = 1) -> str:
    return f"[{100 * float(low):.{digits}f}, {100 * float(high):.{digits}f}]" if _finite(low) and _finite(high) \
        else "n/a"


def _pts(x: Any, digits: int = 1) -> str:
    return f"{100 * float(x):+.{digits}f}" if _finite(x) else "n/a"


def _ci_pts(low: Any, high: Any, digits: int = 1) -> str:
    return f"[{100 * float(low):+.{digits}f}, {100 * float(high):+.{digits}f}]" if _finite(low) and _finite(high) \
        else "n/a"


def _p(p: Any) -> str:
    """``< 0.001`` or ``0.042`` for a table cell."""
    return stats.format_p(p).removeprefix("p ").removeprefix("= ")


def _num(x: Any, digits: int = 2) -> str:
    return f"{float(x):.{digits}f}" if _finite(x) else "n/a"


def _ci_num(low: Any, high: Any, digits: int = 2) -> str:
    return f"[{float(low):.{digits}f}, {float(high):.{digits}f}]" if _finite(low) and _finite(high) else "n/a"


def _int(n: Any) -> str:
    return f"{int(n):,}"


def _g(x: Any) -> str:
    return f"{float(x):g}" if _finite(x) else "n/a"


def _plain(text: str) -> str:
    """Library text with ASCII plus-minus made typographic."""
    return text.replace("+-", "\u00b1")


def _sentences(text: str) -> str:
    """A multi-line describe() as one run of text."""
    parts = [line.strip() for line in text.splitlines() if line.strip()]
    return _plain("; ".join(parts))


def _listing(items: Sequence[str], limit: int = 6) -> str:
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


# ================================================================ statistics this module adds


def seat_tests(advantage: stats.SeatAdvantage, alpha: float = ALPHA) -> pl.DataFrame:
    """Per seat: does it win more (or less) than its fair share? Holm-corrected across seats.

    Each seat's test is the one :func:`analysis.stats.seat_advantage` ran for
    its design (exact binomial per game, t per deal, or the clustered model's
    z test). Two players: one test (seat 1's share is one minus seat 0's), so
    Holm leaves it as it is. Columns: ``seat``, ``share``, ``share_low``,
    ``share_high``, ``p_value``, ``p_holm``, ``significant``.
    """
    seats = advantage.seats
    p = seats["p_value"].to_numpy()
    holm = p.copy() if advantage.players == 2 else stats.correct(p, "holm")
    return seats.select("seat", "share", "share_low", "share_high", "p_value").with_columns(
        pl.Series("p_holm", holm, dtype=pl.Float64),
    ).with_columns((pl.col("p_holm").fill_nan(None) < alpha).fill_null(False).alias("significant"))


@dataclass(frozen=True)
class Change:
    """``other - base`` for one metric: estimate, interval, test p-value and the methods."""

    base: float
    other: float
    difference: float
    low: float
    high: float
    p_value: float
    interval_method: str
    test: str
    n_base: int
    n_other: int
    equivalence_p: float | None = None  # TOST within +-margin
    effect_size: float = float("nan")  # Cohen's h (proportions) or d (means)
    detectable: float = float("nan")  # the smallest change these games detect (two-sided 5%, power 80%)


def unpaired_change(k_base: float, n_base: int, k_other: float, n_other: int,
                    confidence: float = stats.CONFIDENCE, margin: float | None = None) -> Change:
    """Two independent proportions: Newcombe hybrid score interval and score test (statsmodels); with
    ``margin``, the equivalence test within +-margin (``tost_proportions_2indep``); Cohen's h and the
    detectable change (``NormalIndPower``)."""
    if not n_base or not n_other:
        return Change(float("nan"), float("nan"), float("nan"), float("nan"), float("nan"), float("nan"),
                      "Newcombe", "score test", n_base, n_other)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = confint_proportions_2indep(k_other, n_other, k_base, n_base, method="newcomb", compare="diff",
                                               alpha=1 - confidence)
        p = test_proportions_2indep(k_other, n_other, k_base, n_base, method="score", compare="diff").pvalue
        tost = (float(tost_proportions_2indep(k_other, n_other, k_base, n_base, -margin, margin,
                                              compare="diff").pvalue) if margin else None)
    same = k_other / n_other == k_base / n_base
    base, other = k_base / n_base, k_other / n_other
    h = stats.solved(NormalIndPower().solve_power(nobs1=n_base, ratio=n_other / n_base, alpha=1 - confidence, power=0.8))
    return Change(base, other, other - base, float(low), float(high),
                  1.0 if same else float(p), f"Newcombe {stats.CONFIDENCE:.0%}",
                  "score test (statsmodels test_proportions_2indep)", n_base, n_other, tost,
                  float(proportion_effectsize(other, base)), stats.points_for_h(base, h))


def unpaired_mean_change(base: np.ndarray, other: np.ndarray, confidence: float = stats.CONFIDENCE,
                         margin: float | None = None) -> Change:
    """Two independent means: Welch's t test and its interval (``scipy.stats.ttest_ind(equal_var=False)``);
    with ``margin`` the equivalence test (statsmodels ``ttost_ind``, unequal variances); Cohen's d and the
    detectable change (``TTestIndPower``)."""
    base, other = np.asarray(base, dtype=float), np.asarray(other, dtype=float)
    if base.size < 2 or other.size < 2 or (base.std() == 0 and other.std() == 0):
        same = base.size and other.size and base.mean() == other.mean()
        d = float(other.mean() - base.mean()) if base.size and other.size else float("nan")
        tost = (0.0 if same else 1.0) if margin else None
        return Change(float(base.mean()), float(other.mean()), d, d, d, 1.0 if same else float("nan"),
                      "Welch t (no variation)", "Welch t test", base.size, other.size, tost)
    result = scipy_stats.ttest_ind(other, base, equal_var=False)
    interval = result.confidence_interval(confidence)
    sd = math.sqrt((base.var(ddof=1) + other.var(ddof=1)) / 2)
    tost = float(ttost_ind(other, base, -margin, margin, usevar="unequal")[0]) if margin else None
    d_min = stats.solved(TTestIndPower().solve_power(nobs1=base.size, ratio=other.size / base.size,
                                              alpha=1 - confidence, power=0.8))
    return Change(float(base.mean()), float(other.mean()), float(other.mean() - base.mean()), float(interval.low),
                  float(interval.high), float(result.pvalue), f"Welch t {confidence:.0%}",
                  "Welch's t test (scipy ttest_ind, equal_var=False)", base.size, other.size, tost,
                  float((other.mean() - base.mean()) / sd) if sd > 0 else float("nan"), d_min * sd)


def running_estimate(wins: np.ndarray, points: int = 160, start: int = 10) -> tuple[np.ndarray, ...]:
    """The running win rate after n games (n on a geometric grid) and its pointwise Wilson 95% interval."""
    wins = np.asarray(wins, dtype=float)
    total = wins.size
    if total == 0:
        empty = np.array([])
        return empty, empty, empty, empty
    start = min(start, total)
    n = np.unique(np.round(np.geomspace(start, total, num=min(points, total))).astype(int))
    cumulative = np.cumsum(wins)
    k = cumulative[n - 1]
    intervals = [stats.proportion(float(ki), int(ni)) for ki, ni in zip(k, n)]
    return (n.astype(float), k / n, np.array([p.low for p in intervals]), np.array([p.high for p in intervals]))


# ================================================================ shared pieces


def _versions_now() -> dict[str, str]:
    names = {"matplotlib": "matplotlib", "scipy": "scipy", "statsmodels": "statsmodels", "fpdf2": "fpdf2"}
    found = {}
    for label, package in names.items():
        try:
            found[label] = version(package)
        except PackageNotFoundError:
            found[label] = "not installed"
    return found


def _versions_text(held: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in held.items())


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)


def config_text(config: dict, prefix: str = "") -> str:
    """A config dict as TOML text (unset keys are left out, as in the config file)."""
    lines, tables = [], []
    for key, value in config.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    out = []
    if lines:
        if prefix:
            out.append(f"[{prefix}]")
        out.extend(lines)
    for key, value in tables:
        name = f"{prefix}.{key}" if prefix else key
        block = config_text(value, name)
        if block:
            if out:
                out.append("")
            out.append(block)
    return "\n".join(out)


def flatten(config: dict, prefix: str = "") -> dict[str, Any]:
    """Dotted keys of a nested config: ``{"board.rows": 7, ...}``."""
    flat = {}
    for key, value in config.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and value:
            flat.update(flatten(value, name))
        else:
            flat[name] = value
    return flat


def target_band(config: dict) -> tuple[float, float] | None:
    """``[report] target_turns`` of a config, if it has a two-number band."""
    band = (config.get("report") or {}).get("target_turns")
    if isinstance(band, (list, tuple)) and len(band) == 2 and all(isinstance(v, (int, float)) for v in band):
        return float(band[0]), float(band[1])
    return None


def _game_title(name: str) -> str:
    try:
        from sims.registry import get_game

        return get_game(name).title
    except Exception:  # a game not registered in this process: its name will do
        return name.capitalize()


def _score_note(table: pl.DataFrame) -> str:
    methods = sorted(set(table["score_method"].to_list()))
    return "Mean score interval: " + "; ".join(methods)


def _methods_section(added: list[str]) -> Section:
    return Section("methods", "Methods", [
        Paragraph("Every estimate is shown with its interval and the method that made it; every test names its "
                  "method, and where several tests are read together the correction is named. Intervals are 95%."),
        Heading("Statistics library (analysis.stats)"),
        Bullets([_plain(line) for line in stats.methods_used()]),
        Heading("Added by this report"),
        Bullets(added),
    ])


_RUN_METHODS = [
    "Seat advantage flag: with 2 players the exact binomial test above (seat 1 is the complement of seat 0 among "
    "decided games: one test, Holm over a family of one); with 3-4 players one exact binomial test per seat "
    "against 1/players (scipy.stats.binomtest, first places rounded to whole games), Holm-corrected across seats "
    "(statsmodels multipletests(method='holm')). Significant: Holm-adjusted p < 0.05.",
    f"Stall flag: more than {STALL_FLAG:.0%} of games stalled (hit the turn cap); the rate has a Wilson 95% interval.",
    "Game-length flag: the median turns outside the config's [report] target_turns band; the share of games inside "
    "the band has a Wilson 95% interval.",
    "Component flags (observational): dominant = Holm p < 0.05 and at least +10 points win rate when used; unused = "
    "used in under 1% of seat-games (analysis.stats.component_strength, split by bot). Use rates and the win rates "
    "when used and not used are drawn with Wilson 95% intervals.",
    f"Skill-gradient flag: the strongest bot's share of points against the weakest within {FLAT_GRADIENT:.0%} of 50% "
    "(SkillGradient.gradient_too_flat); measured only when seats rotate, so that bots and seats are not confounded.",
    "Convergence figure: seat 0's win rate (first places, shared ones included) after the first n games in game "
    "order, with a pointwise Wilson 95% interval at each n; pointwise, so not a sequential test (looking repeatedly "
    "is not corrected for).",
]


# ================================================================ run reports


@dataclass
class RunAnalysis:
    """Every number a run report shows, computed once."""

    path: Path
    manifest: dict
    records: pl.DataFrame
    events: pl.DataFrame | None
    delta: float
    players: int
    bots: tuple[str, ...]
    rotated: bool
    target: tuple[float, float] | None
    advantage: stats.SeatAdvantage | None  # None for solitaire runs (one seat: nothing to compare)
    tests: pl.DataFrame
    by_seat: pl.DataFrame
    by_bot: pl.DataFrame
    length: stats.GameLength
    margin: stats.Margin
    in_band: stats.Proportion | None
    gradient: stats.SkillGradient | None
    gradient_error: str | None
    component: str | None
    components: pl.DataFrame | None

    @property
    def games(self) -> int:
        return self.length.games


def component_column(events: pl.DataFrame | None) -> str | None:
    """The events column naming a component (card, action kind...), if the game records one."""
    if events is None:
        return None
    return next((c for c in COMPONENT_COLUMNS if c in events.columns), None)


def design_components(game_name: str | None, events: pl.DataFrame | None) -> tuple[str | None, tuple | None]:
    """The events column and values a game declares as its design components, else a guess by column name."""
    from sims.registry import get_game

    try:
        declared = get_game(game_name).components if game_name else None
    except ConfigError:
        declared = None
    if declared is not None and events is not None and declared[0] in events.columns:
        return declared
    return component_column(events), None


def analyse_run(path: str | Path, delta: float = DELTA) -> RunAnalysis:
    path = Path(path)
    manifest = load_manifest(path)
    records = load_records(path)
    events = load_events(path)
    try:
        return _analyse(path, manifest, records, events, delta)
    except stats.StatsError as error:
        raise ConfigError(str(path), "(records)", f"records a report can use ({error})", has_got=False) from None


def player_seats(manifest: dict, records: pl.DataFrame,
                 events: pl.DataFrame | None = None) -> tuple[int, pl.DataFrame, pl.DataFrame | None]:
    """The run's player count and its records and events restricted to the players' seats.

    A game's own seats beyond the players (the opponent of a solo mode, such as
    Vorex's weed) are not players: their results are the players' complement.
    """
    seats = int(records["seat"].max()) + 1 if records.height else 0
    players = int(manifest.get("players") or seats)
    if players < seats:
        records = records.filter(pl.col("seat") < players)
        if events is not None and "seat" in events.columns:
            events = events.filter(pl.col("seat") < players)
    return players, records, events


def _analyse(path: Path, manifest: dict, records: pl.DataFrame, events: pl.DataFrame | None,
             delta: float) -> RunAnalysis:
    players, records, events = player_seats(manifest, records, events)
    bots = tuple(records.sort("game", "seat")["bot"].unique(maintain_order=True).to_list())
    rotated = bool(manifest.get("rotate_seats"))
    target = target_band(manifest.get("config", {}))
    advantage = stats.seat_advantage(records, delta=delta) if players > 1 else None
    length = stats.game_length(records, events)
    in_band = None
    if target is not None:
        turns = records.group_by("game").agg(pl.col("turns").first())["turns"]
        in_band = stats.proportion(int(((turns >= target[0]) & (turns <= target[1])).sum()), turns.len())
    gradient, gradient_error = None, None
    if rotated and len(bots) > 1:
        try:
            gradient = stats.skill_gradient(records)
        except stats.StatsError as error:  # e.g. every game stalled: no comparison to fit
            gradient_error = str(error)
    component, values = design_components(manifest.get("game"), events)
    components = None
    if component is not None and events is not None and events.height:
        if values is not None:
            events = events.filter(pl.col(component).is_in(list(values)))
        elif events.schema[component] == pl.String:  # every named value (rows of other events hold "")
            events = events.filter(pl.col(component).is_not_null() & (pl.col(component) != ""))
        components = stats.component_strength(records, events, component, values=values, by="bot")
    return RunAnalysis(
        path=path, manifest=manifest, records=records, events=events, delta=delta, players=players, bots=bots,
        rotated=rotated, target=target, advantage=advantage,
        tests=seat_tests(advantage) if advantage is not None else pl.DataFrame(),
        by_seat=stats.proportion_table(records, "seat"), by_bot=stats.proportion_table(records, "bot"),
        length=length, margin=stats.score_margin(records), in_band=in_band, gradient=gradient,
        gradient_error=gradient_error, component=component, components=components,
    )


def _verdict_flag(advantage: stats.SeatAdvantage) -> Flag:
    delta = f"\u00b1{100 * advantage.delta:g} points"
    level = {stats.VERDICT_BALANCED: "ok", stats.VERDICT_UNBALANCED: "warn"}.get(advantage.verdict, "info")
    title = {
        stats.VERDICT_BALANCED: f"Seat balance: balanced within {delta}.",
        stats.VERDICT_UNBALANCED: "Seat balance: unbalanced.",
        stats.VERDICT_NOT_MEASURED: "Seat balance: not measured by this lineup.",
    }.get(advantage.verdict, "Seat balance: not enough games yet.")
    if advantage.verdict == stats.VERDICT_UNSURE and advantage.more_games is not None:
        title = (f"Seat balance: not enough games yet (about {advantage.more_games:,} more {advantage.unit} for "
                 f"the equivalence test within {delta}).")
    lines = [line.strip() for line in advantage.describe().splitlines() if line.strip()]
    # The headline and the equivalence lines; the per-seat lines are in the Seats section.
    kept = [lines[0]] + [line for line in lines[1:] if not line.startswith(("seat ", "largest deviation"))]
    return Flag(level, title, _plain("; ".join(kept)))


def _seat_flags(a: RunAnalysis) -> list[Flag]:
    flags = []
    adv = a.advantage
    fair = 1 / a.players
    if adv.games_tested == 0:
        return [Flag("info", "Seat advantage not tested: no game had a result to count.", adv.handling)]
    if not adv.measured:
        return []
    what = ("of decided games" if a.players == 2 else "of first places") + (
        " between equal players (model)" if adv.design == stats.DESIGN_ADJUSTED else "")
    correction = ("one test (2 seats), Holm leaves it unchanged" if a.players == 2
                  else f"Holm-corrected across {a.players} seats")
    test = {stats.DESIGN_ADJUSTED: "z test of the model's share", }.get(
        adv.design, "t test on per-deal shares" if adv.unit == "deals" else "exact binomial test")
    significant = a.tests.filter(pl.col("significant"))
    if a.players == 2 and significant.height:
        significant = significant.filter(pl.col("seat") == int(
            a.tests.with_columns((pl.col("share") - fair).abs().alias("gap")).sort("gap", descending=True)["seat"][0]))
    for row in significant.to_dicts():
        direction = "more" if row["share"] > fair else "less"
        flags.append(Flag("warn", f"Seat {row['seat']} wins {direction} than its fair share.",
                          f"seat {row['seat']} wins {_pct(row['share'])} {_ci(row['share_low'], row['share_high'])} "
                          f"{what} ({adv.share_method}), {adv.n_text}; {test} vs {_pct(fair)}: "
                          f"{stats.format_p(row['p_holm'])} ({correction})"))
    if not significant.height:
        finite = a.tests["p_holm"].drop_nans().drop_nulls()
        smallest = float(finite.min()) if finite.len() else float("nan")
        flags.append(Flag("ok", "No seat differs significantly from its fair share.",
                          f"smallest adjusted {stats.format_p(smallest)} ({correction}), {adv.n_text}"))
    return flags


def _stall_flag(stalls: stats.Proportion, cap: Any) -> Flag:
    cap_text = f" (the turn cap is {cap} turns)" if cap is not None else ""
    evidence = (f"stalls {_pct(stalls.rate, 2)} {_ci(stalls.low, stalls.high, 2)} (Wilson 95%), n = {stalls.n:,} "
                f"games" + cap_text)
    if stalls.rate > STALL_FLAG:
        return Flag("warn", f"High stall rate: {_pct(stalls.rate)} of games never finished.", evidence)
    return Flag("ok", f"Stall rate {_pct(stalls.rate)}, at most {STALL_FLAG:.0%}.", evidence)


def _length_flag(length: stats.GameLength, target: tuple[float, float] | None,
                 in_band: stats.Proportion | None) -> Flag:
    shape = (f"median {length.median:g} turns, quartiles {length.q1:g} / {length.q3:g}, n = {length.games:,} games; "
             f"mean {length.mean.mean:.1f} {_ci_num(length.mean.low, length.mean.high, 1)} ({length.mean.method})")
    if target is None:
        return Flag("info", f"Typical game {length.median:g} turns (median); the config sets no target band.",
                    shape + "; add [report] target_turns = [low, high] to the game's config to check it")
    band = f"{target[0]:g}\u2013{target[1]:g} turns"
    inside = ("; " + in_band.describe("games inside the band", "").strip()) if in_band is not None else ""
    if length.median < target[0]:
        return Flag("warn", f"Typical game too short: median {length.median:g} turns, below the target {band}.",
                    shape + _plain(inside))
    if length.median > target[1]:
        return Flag("warn", f"Typical game too long: median {length.median:g} turns, above the target {band}.",
                    shape + _plain(inside))
    return Flag("ok", f"Typical game {length.median:g} turns (median), inside the target {band}.",
                shape + _plain(inside))


def _component_flags(a: RunAnalysis) -> list[Flag]:
    """One flag per component that looks dominant (for any bot), one per component almost never used."""
    if a.components is None:
        return [Flag("info", "Component strength not measured: this game records no component events.", "")]
    flags = []
    table, c = a.components, a.component
    dominant = table.filter(pl.col("dominant"))
    for name in dominant[c].unique(maintain_order=True).to_list():
        rows = dominant.filter(pl.col(c) == name).to_dicts()
        bots = [r["bot"] for r in rows]
        evidence = "; ".join(
            f"{r['bot']}: seat-games that used it won {_pct(r['win_used'])} vs {_pct(r['win_not_used'])} when not, "
            f"{_pts(r['difference'])} points {_ci_pts(r['diff_low'], r['diff_high'])} (Newcombe 95%), Holm "
            f"{stats.format_p(r['p_holm'])}, used in {_pct(r['use_rate'])} of {r['seat_games']:,} seat-games"
            for r in rows)
        flags.append(Flag(
            "warn", f"Observational: {name} looks dominant for {' and '.join(bots)}.",
            evidence + ". Observational and biased (a seat may use it because it is winning): confirm with an "
                       "ablation on the same seeds"))
    unused = table.filter(pl.col("unused"))
    for name in unused[c].unique(maintain_order=True).to_list():
        rows = unused.filter(pl.col(c) == name).to_dicts()
        parts = []
        for r in rows:
            use = stats.proportion(r["used"], r["seat_games"])
            parts.append(f"{r['bot']} {_pct(use.rate, 2)} {_ci(use.low, use.high, 2)} of {r['seat_games']:,}")
        flags.append(Flag("warn", f"{name} is almost never used ({', '.join(r['bot'] for r in rows)}).",
                          "share of seat-games that used it: " + "; ".join(parts) + " (Wilson 95%), under 1%"))
    if not flags:
        count = table[c].n_unique()
        flags.append(Flag("ok", "No component looks dominant or unused (observational).",
                          f"{count} {c} values x {table['bot'].n_unique()} bots; dominant would need Holm "
                          "p < 0.05 and +10 points when used, unused under 1% of seat-games"))
    return flags


def _gradient_flag(a: RunAnalysis) -> Flag | None:
    if a.gradient is None:
        if a.gradient_error:
            return Flag("info", "Skill gradient could not be measured.", a.gradient_error)
        if len(a.bots) > 1:
            return Flag("info", "Skill gradient not measured: bots sit in fixed seats.",
                        "bots and seats are confounded; play with --rotate-seats to measure skill")
        return None
    g = a.gradient
    strong, weak = g.strongest, g.weakest
    row = g.pairwise.filter(((pl.col("bot_a") == strong) & (pl.col("bot_b") == weak))
                            | ((pl.col("bot_a") == weak) & (pl.col("bot_b") == strong)))
    evidence = ""
    if row.height:
        r = row.to_dicts()[0]
        flip = r["bot_a"] != strong
        share = 1 - r["share"] if flip else r["share"]
        low, high = (1 - r["share_high"], 1 - r["share_low"]) if flip else (r["share_low"], r["share_high"])
        evidence = (f"{strong} takes {_pct(share)} {_ci(low, high)} of points against {weak} ({r['method']}), "
                    f"n = {r['deals']:,} deals ({r['games']:,} games), {stats.format_p(r['p_value'])} vs 50%")
    else:
        evidence = f"{strong} vs {weak} never met; Bradley-Terry share {_pct(g.share(strong, weak))}"
    if g.gradient_too_flat(FLAT_GRADIENT):
        return Flag("warn", "Skill gradient too flat: the strongest bot barely beats the weakest.",
                    evidence + f"; within {FLAT_GRADIENT:.0%} of 50%")
    return Flag("ok", f"Skill matters: {strong} beats {weak}.", evidence)


def _stopping_text(manifest: dict) -> str:
    """How the run's size was chosen, and whether seat rotation was collapsed (from the manifest)."""
    from analysis.stopping import describe_stopping

    stopping = manifest.get("stopping")
    text = (describe_stopping(stopping, manifest.get("games")) if stopping
            else f"none: a fixed size of {manifest.get('games', 0):,} deals")
    if manifest.get("rotations_collapsed"):
        text += f"; --rotate-seats played one rotation ({manifest['rotations_collapsed']})"
    return text


def _run_notes(a: RunAnalysis) -> list[Flag]:
    """What a reader must know about how the run was played: its stopping rule, a collapsed seat rotation."""
    notes = []
    if a.manifest.get("stopping"):
        notes.append(Flag("info", "The run's size was chosen by a stopping rule (play --until-ci).",
                          _stopping_text(a.manifest)))
    elif a.manifest.get("rotations_collapsed"):
        notes.append(Flag("info", "Seat rotation played one rotation: the same bot sits in every seat.",
                          a.manifest["rotations_collapsed"]))
    return notes


def run_flags(a: RunAnalysis) -> list[Flag]:
    """The summary's findings, warnings first, then the checks that passed."""
    cap = ((a.manifest.get("config") or {}).get("limits") or {}).get("max_turns")
    seats = [_verdict_flag(a.advantage), *_seat_flags(a)] if a.advantage is not None else [_solo_flag(a)]
    flags = [*seats, _stall_flag(a.length.stalls, cap),
             _length_flag(a.length, a.target, a.in_band), *_component_flags(a), *_run_notes(a)]
    gradient = _gradient_flag(a)
    if gradient is not None:
        flags.append(gradient)
    order = {"warn": 0, "info": 1, "ok": 2}
    return [flags[0]] + sorted(flags[1:], key=lambda f: order[f.level])


def _solo_flag(a: RunAnalysis) -> Flag:
    """A solitaire run: how often the player wins (beats the game's target), with its interval."""
    row = a.by_seat.to_dicts()[0]
    return Flag("info", f"Solitaire: the player wins {_pct(row['win_rate'])} of games.",
                f"{_pct(row['win_rate'])} {_ci(row['win_low'], row['win_high'])} (Wilson 95%), n = {row['games']:,} "
                f"games; mean score {_num(row['mean_score'])} {_ci_num(row['score_low'], row['score_high'])}")


def _solo_section(a: RunAnalysis) -> Section:
    """The seat section of a solitaire run: one seat, its win rate and how the estimate converged."""
    row = a.by_seat.to_dicts()[0]
    table = Table(
        [Column("Seat"), Column("Bot"), Column("Games", True), Column("Win rate", True), Column("Wilson 95%", True),
         Column("Stalls", True), Column("Mean score", True), Column("95% interval", True)],
        [["seat 0", a.bots[0], _int(row["games"]), _pct(row["win_rate"]), _ci(row["win_low"], row["win_high"]),
          _pct(row["stall_rate"]), _num(row["mean_score"]), _ci_num(row["score_low"], row["score_high"])]],
        caption=f"A solitaire game is won or lost against the game's own target. {_score_note(a.by_seat)}.")
    wins = a.records.sort("game")["win"].cast(pl.Float64).to_numpy()
    n, rate, low, high = running_estimate(wins)
    return Section("seats", "Solitaire result", [
        table,
        Plot("convergence", plots.convergence(n, rate, low, high, float(row["win_rate"]), label="win rate",
                                              reference_label="final estimate"),
             "The player's win rate after each number of games, in game order, with a pointwise Wilson 95% "
             "interval; the dashed line is the estimate over all games."),
    ])


def _run_title(manifest: dict) -> str:
    bots = manifest.get("bots", [])
    players = int(manifest.get("players") or len(bots))
    title = " vs ".join(bots[:players])
    if len(bots) > players:
        title += " vs the game's seat (" + ", ".join(bots[players:]) + ")"
    return f"{_game_title(manifest.get('game', '?'))}: {title}"


def _solo_kind(a: RunAnalysis) -> str:
    """What a one-player run is played against: the game's target, or the game's own seats."""
    house = a.manifest.get("bots", [])[a.players:]
    if house:
        return f"A solo run: the player against the game's own seat{'s' if len(house) > 1 else ''} (played by " \
               f"{', '.join(house)}); the player's win is the game's own win condition. "
    return "A solitaire run: one seat against the game's target. "


def _run_subtitle(a: RunAnalysis) -> str:
    m = a.manifest
    rotations = m.get("rotations", 1)
    rot = f" \u00d7 {rotations} seat rotations" if rotations > 1 else ""
    overrides = m.get("config_overrides") or []
    sets = f"; --set {' '.join(overrides)}" if overrides else ""
    house = len(m.get("bots", [])) > a.players
    players = ("solo against the game's seat" if house else "solitaire") if a.players == 1 else f"{a.players} players"
    return (f"{a.games:,} games ({m.get('games', 0):,} deals{rot}), {players}, seed {m.get('seed')}, "
            f"config {m.get('config_hash')}{sets}. Run directory {a.path}")


def _seat_section(a: RunAnalysis) -> Section:
    fair = 1 / a.players
    lineups = a.manifest.get("lineups") or []
    shares = {row["seat"]: row for row in a.advantage.seats.to_dicts()}
    tested = "decided games" if a.players == 2 else "first places"
    rows, marked = [], []
    significant = set(a.tests.filter(pl.col("significant"))["seat"].to_list())
    for row in a.by_seat.to_dicts():
        seat = row["seat"]
        bot = "rotates" if a.rotated else (lineups[0][seat] if lineups else "")
        share = shares[seat]
        rows.append([
            f"seat {seat}", bot, _int(row["games"]), _pct(row["win_rate"]), _ci(row["win_low"], row["win_high"]),
            _pct(share["share"]), _ci(share["share_low"], share["share_high"]), _pct(row["tie_rate"]),
            _pct(row["stall_rate"]), _num(row["mean_score"]), _ci_num(row["score_low"], row["score_high"]),
        ])
        marked.append(seat in significant)
    equal = " between equal players" if a.advantage.design == stats.DESIGN_ADJUSTED else ""
    table = Table(
        [Column("Seat"), Column("Bot"), Column("Games", True), Column("Win rate", True), Column("Wilson 95%", True),
         Column(f"Share of {tested}{equal}", True), Column("95% interval", True), Column("Ties", True),
         Column("Stalls", True), Column("Mean score", True), Column("95% interval", True)],
        rows,
        caption=(f"Win rate counts first places, shared ones included, over all games. The share of {tested} is what "
                 f"the seat-advantage test uses (fair share {_pct(fair)}; {a.advantage.share_method}; "
                 f"{a.advantage.n_text}); {a.advantage.handling}. "
                 f"{_score_note(a.by_seat)}. Highlighted: a seat whose share differs from the fair share "
                 "(Holm-corrected)."),
        marked=marked,
    )
    wins = a.records.filter(pl.col("seat") == 0).sort("game")["win"].cast(pl.Float64).to_numpy()
    n, rate, low, high = running_estimate(wins)
    lines = [_plain(line.strip()) for line in a.advantage.describe().splitlines() if line.strip()]
    return Section("seats", "Seats", [
        Paragraph(lines[0], "lead"),
        Bullets(lines[1:]),
        table,
        Plot("seat-win-rates", plots.seat_win_rates(
            a.advantage.seats, fair, what="share of decided games" if a.players == 2 else "share of first places",
            note=f"n = {a.advantage.games_tested:,} games"),
            f"First-place share per seat with Wilson 95% intervals; the dashed line is the fair share "
            f"{_pct(fair)}; {a.advantage.handling}."),
        Plot("convergence", plots.convergence(n, rate, low, high, fair),
             "Seat 0's win rate (first places, shared ones included) after each number of games, in game order, "
             "with a pointwise Wilson 95% interval: the estimate settles as games accumulate."),
    ])


def _bot_section(a: RunAnalysis) -> Section:
    rows = [[str(row["bot"]), _int(row["games"]), _pct(row["win_rate"]), _ci(row["win_low"], row["win_high"]),
             _pct(row["tie_rate"]), _pct(row["stall_rate"]), _num(row["mean_score"]),
             _ci_num(row["score_low"], row["score_high"])] for row in a.by_bot.to_dicts()]
    blocks: list[Block] = [Table(
        [Column("Bot"), Column("Seat-games", True), Column("Win rate", True), Column("Wilson 95%", True),
         Column("Ties", True), Column("Stalls", True), Column("Mean score", True), Column("95% interval", True)],
        rows, caption=("One row per bot; a seat-game is one bot in one game. " + _score_note(a.by_bot) + "."
                       + ("" if a.rotated or len(a.bots) == 1 else
                          " Seats do not rotate, so each bot's rate is also its seat's.")))]
    g = a.gradient
    if g is not None:
        blocks.append(Heading("Skill gradient"))
        blocks.append(Paragraph(
            "Does skill matter? The games of one deal (every seat rotation, same seed) are one paired unit; a "
            "bot's share of points against another counts a tie or stall as half. Ratings are Bradley-Terry "
            f"({_plain(g.rating_method)}), {g.reference} fixed at 0."))
        blocks.append(Table(
            [Column("Bot A"), Column("Bot B"), Column("Deals", True), Column("Games", True),
             Column("A's share of points", True), Column("95% interval", True), Column("p vs 50%", True),
             Column("Interval method")],
            [[r["bot_a"], r["bot_b"], _int(r["deals"]), _int(r["games"]), _pct(r["share"]),
              _ci(r["share_low"], r["share_high"]), _p(r["p_value"]), r["method"]] for r in g.pairwise.to_dicts()],
            caption="Pairwise shares, paired by deal (never games as independent units)."))
        blocks.append(Table(
            [Column("Bot"), Column("Rating (logit)", True), Column("SE", True), Column("Elo", True),
             Column("Elo 95%", True), Column("Comparisons", True)],
            [[r["bot"], f"{r['rating']:+.2f}", "reference" if r["bot"] == g.reference else _num(r["se"]),
              f"{r['elo']:+.0f}", "reference" if r["bot"] == g.reference else
              f"[{r['low'] * stats.ELO_PER_LOGIT:+.0f}, {r['high'] * stats.ELO_PER_LOGIT:+.0f}]",
              _int(r["comparisons"])] for r in g.ratings.sort("rating", descending=True).to_dicts()],
            caption=(f"Normal 95% intervals on the logit scale, 400/ln 10 Elo per logit. First-seat edge "
                     f"{g.seat_edge:+.3f} \u00b1 {g.seat_edge_se:.3f} logit."
                     + (" Perfect separation: ratings use a virtual-draw prior." if g.separated else ""))))
        blocks.append(Plot("skill-gradient", plots.skill_gradient(g.pairwise, g.ratings, g.reference),
                           "Left: each pairing's share of points with its paired interval; the dashed line is 50%. "
                           "Right: Bradley-Terry ratings in Elo with normal 95% intervals."))
    elif a.gradient_error:
        blocks.append(Paragraph(f"Skill gradient: could not be measured ({a.gradient_error}).", "note"))
    elif len(a.bots) > 1:
        blocks.append(Paragraph("Skill gradient: not measured, because bots sit in fixed seats (a bot's results "
                                "are its seat's). Play with --rotate-seats to measure it.", "note"))
    return Section("bots", "Bots", blocks)


def _score_section(a: RunAnalysis) -> Section:
    by_seat = [(f"seat {s}", a.records.filter(pl.col("seat") == s)["score"].to_numpy()) for s in range(a.players)]
    by_bot = ([(b, a.records.filter(pl.col("bot") == b)["score"].to_numpy()) for b in a.bots]
              if len(a.bots) > 1 else None)
    m = a.margin
    if a.players == 1:
        scores = a.records["score"]
        return Section("scores", "Scores", [
            Facts([("Final score", f"mean {_num(float(scores.mean()))}, median {scores.median():g}, "
                                   f"min {scores.min():g}, max {scores.max():g}; n = {scores.len():,} games")]),
            Plot("score-distributions", plots.score_distributions(by_seat, None),
                 "Share of games at each final score; the vertical line marks the mean."),
        ])
    facts = [("Score margin (first minus second)",
              f"{_num(m.mean.mean)} {_ci_num(m.mean.low, m.mean.high)} ({m.mean.method}), n = {m.games:,} games, "
              f"{m.stalls_excluded:,} stalls excluded")]
    if m.smallest is not None:
        facts.append((f"Won by the smallest margin ({m.smallest:g})",
                      f"{_pct(m.smallest_share.rate)} {_ci(m.smallest_share.low, m.smallest_share.high)} (Wilson 95%)"))
    facts.append(("Shared first places", f"{_pct(m.ties.rate)} {_ci(m.ties.low, m.ties.high)} (Wilson 95%)"))
    if m.not_outscored.k:
        facts.append(("Won without outscoring second place",
                      f"{_pct(m.not_outscored.rate)} {_ci(m.not_outscored.low, m.not_outscored.high)} (Wilson 95%): "
                      "the game ends on a goal, not on points"))
    return Section("scores", "Scores", [
        Facts(facts),
        Plot("score-distributions", plots.score_distributions(by_seat, by_bot),
             "Share of seat-games at each final score; vertical lines mark the means."),
    ])


def _length_section(a: RunAnalysis) -> Section:
    L = a.length
    facts = [
        ("Turns", f"mean {L.mean.mean:.1f} {_ci_num(L.mean.low, L.mean.high, 1)} ({L.mean.method}); median "
                  f"{L.median:g}, quartiles {L.q1:g} / {L.q3:g}, min {L.minimum:g}, max {L.maximum:g}; "
                  f"n = {L.games:,} games"),
        ("Target band", f"{a.target[0]:g}\u2013{a.target[1]:g} turns (config [report] target_turns)"
         if a.target else "none set (config [report] target_turns)"),
    ]
    if a.in_band is not None:
        facts.append(("Games inside the band", f"{_pct(a.in_band.rate)} {_ci(a.in_band.low, a.in_band.high)} "
                                               f"(Wilson 95%)"))
    facts.append(("Stalls", f"{_pct(L.stalls.rate, 2)} {_ci(L.stalls.low, L.stalls.high, 2)} (Wilson 95%), "
                            f"{int(L.stalls.k):,} games"))
    if L.lead_changes is not None:
        facts.append(("Lead changes", _plain(L.lead_changes.describe())))
    ends = Table(
        [Column("End"), Column("Games", True), Column("Share", True), Column("Wilson 95%", True)],
        [[str(r["end"]), _int(r["games"]), _pct(r["share"]), _ci(r["share_low"], r["share_high"])]
         for r in L.ends.to_dicts()],
        caption="Why games ended (stall: the turn cap was reached).",
        marked=[str(r["end"]) == "stall" for r in L.ends.to_dicts()])
    return Section("length", "Game length and endings", [
        Facts(facts),
        Plot("game-length", plots.game_length(L.histogram, a.target, L.median, L.q1, L.q3),
             "Share of games per number of turns" + (", the target band shaded; games outside it hatched."
                                                     if a.target else ".")),
        ends,
        Plot("end-reasons", plots.end_reasons(L.ends), "Share of games per end reason with Wilson 95% intervals."),
    ])


def _component_section(a: RunAnalysis) -> Section:
    if a.components is None:
        return Section("components", "Components (observational)", [
            Paragraph("This game records no component events (cards, action kinds...), so component strength is "
                      "not measured.", "note")])
    t, c = a.components, a.component
    rows, marked, intervals = [], [], {k: [] for k in ("use", "used", "not")}
    for r in t.to_dicts():
        use = stats.proportion(r["used"], r["seat_games"])
        used = stats.proportion(r["wins_used"], r["used"]) if r["used"] else None
        not_used = stats.proportion(r["wins_not_used"], r["not_used"]) if r["not_used"] else None
        for key, p in (("use", use), ("used", used), ("not", not_used)):
            intervals[key].append((p.low, p.high) if p is not None else (np.nan, np.nan))
        flag = "dominant?" if r["dominant"] else "unused" if r["unused"] else ""
        rows.append([str(r["bot"]), str(r[c]), _pct(r["use_rate"]), _pct(r["win_used"]), _pct(r["win_not_used"]),
                     _pts(r["difference"]), _ci_pts(r["diff_low"], r["diff_high"]), _p(r["p_holm"]), flag])
        marked.append(bool(flag))
    arrays = {k: (np.array([v[0] for v in vals]), np.array([v[1] for v in vals])) for k, vals in intervals.items()}
    return Section("components", "Components (observational)", [
        Paragraph(f"Win rate of seat-games that used each {c} against those that did not, per bot. This is "
                  "observational and biased: strong seats and long games use more, and a component may be used "
                  "because a seat is already winning. Confirm a finding with an ablation on the same seeds (the "
                  "component removed or forced, compared with a paired difference), and say which bots it holds "
                  "for.", "lead"),
        Table([Column("Bot"), Column(c.capitalize()), Column("Use rate", True), Column("Win when used", True),
               Column("Win when not", True), Column("Difference (points)", True), Column("Newcombe 95%", True),
               Column("Holm p", True), Column("Flag")], rows,
              caption="n/a: used in every seat-game (or none), so there is nothing to compare. Holm across all rows.",
              marked=marked),
        Plot("component-strength", plots.component_strength(t, c, *arrays["use"], *arrays["used"], *arrays["not"]),
             "Left: how often each component is used. Right: win rate when used (filled) and when not (open), with "
             "Wilson 95% intervals. Observational."),
    ])


def _bot_rows(manifest: dict) -> list[list[str]]:
    rows = []
    for bot in manifest.get("bot_kinds", []):
        weights = ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                            for k, v in (bot.get("weights") or {}).items()) or "(none)"
        rows.append([bot.get("label", ""), bot.get("kind", ""), weights])
    return rows


def _run_manifest_blocks(path: Path, manifest: dict, games: int, label: str = "") -> list[Block]:
    rotations = manifest.get("rotations", 1)
    speed = manifest.get("games_per_second")
    speed_text = (f"{float(speed):,.0f} games/s" if _finite(speed)
                  else "n/a (not stored in the run's manifest)")
    lineups = manifest.get("lineups") or []
    seed = manifest.get("seed")
    facts = [
        ("Game", f"{_game_title(manifest.get('game', '?'))} ({manifest.get('game')})"),
        ("Run directory", str(path)),
        ("Config", f"hash {manifest.get('config_hash')}, from {manifest.get('config_source')}"),
        ("Overrides (--set)", " ".join(manifest.get("config_overrides") or []) or "none"),
        ("Seeds", f"root seed {seed}; deal d is played on game seed game_seeds({seed}, d)"
                  + (", the same seed in every seat rotation" if rotations > 1 else "")),
        ("Games", f"{games:,} in the records: {manifest.get('games', 0):,} deals \u00d7 {rotations} rotation"
                  f"{'s' if rotations > 1 else ''}; {len(manifest.get('chunks') or [])} chunk files"),
        ("Stopping rule", _stopping_text(manifest)),
        ("Players and seating", f"{manifest.get('players')} players; "
                                + "; ".join(f"rotation {i}: {', '.join(l)}" for i, l in enumerate(lineups))),
        ("Games per second", speed_text),
        ("Versions (run)", _versions_text(manifest.get("versions") or {})),
        ("Versions (report)", _versions_text(_versions_now())),
        ("Machine", str(manifest.get("machine")) if manifest.get("machine")
         else f"{machine()} (the machine that wrote this report; the manifest does not record the run's)"),
        ("Dates", f"run created {manifest.get('created', 'n/a')}, updated {manifest.get('updated', 'n/a')}"),
    ]
    return [
        Facts(facts),
        Table([Column("Bot"), Column("Kind"), Column("Weights")], _bot_rows(manifest),
              caption="Bots and personas with the evaluation weights they played with."),
        Code(f"Config{label} ({manifest.get('config_hash')})", config_text(manifest.get("config") or {})),
    ]


def build_run_report(path: str | Path, delta: float = DELTA) -> Report:
    """The report of one run directory (``manifest.json``, ``records/``, ``events/``)."""
    a = analyse_run(path, delta)
    flags = run_flags(a)
    warnings = sum(f.level == "warn" for f in flags)
    summary = Section("summary", "Summary", [
        Paragraph(f"{a.games:,} games of {_game_title(a.manifest.get('game', '?'))}, bots "
                  f"{', '.join(a.manifest.get('bots', []))}"
                  + (", seats rotated (every deal played once per seat order)" if a.rotated else ", seats fixed")
                  + (f". Verdict on seat balance within \u00b1{100 * delta:g} points: {a.advantage.verdict}. "
                     if a.advantage is not None else ". " + _solo_kind(a))
                  + f"{warnings} finding{'s' if warnings != 1 else ''} to look at.", "lead"),
        Flags(flags),
    ])
    seats = _seat_section(a) if a.advantage is not None else _solo_section(a)
    sections = [summary, seats, _bot_section(a), _score_section(a), _length_section(a),
                _component_section(a), _methods_section(_RUN_METHODS),
                Section("manifest", "Run manifest", _run_manifest_blocks(a.path, a.manifest, a.games))]
    return Report("run", _run_title(a.manifest), _run_subtitle(a), sections, now())


# ================================================================ sweep reports


@dataclass
class CellAnalysis:
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

    @property
    def games(self) -> int:
        return self.length.games


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


def analyse_sweep(path: str | Path, delta: float = DELTA) -> tuple[Any, list[CellAnalysis]]:
    from analysis.sweep import load_sweep

    data = load_sweep(path)
    cells = []
    for cell in data.cells:
        if cell.status == "pending":
            continue
        manifest = cell.manifest()
        players, records, _ = player_seats(manifest, cell.records())
        try:
            length = stats.game_length(records)
            advantage = stats.seat_advantage(records, delta=delta) if players != 1 else None
        except stats.StatsError as error:
            raise ConfigError(str(cell.path), "(records)", f"records a report can use ({error})",
                              has_got=False) from None
        if advantage is None:
            worst, gap, low, high = 0, float("nan"), float("nan"), float("nan")
            solo = stats.proportion(int(records["win"].sum()), records.height)
        else:
            worst, gap, low, high = _gap(advantage)
            solo = None
        cells.append(CellAnalysis(cell.title, dict(cell.labels), cell.baseline, records, manifest, advantage, length,
                                  target_band(manifest.get("config") or {}), gap, low, high, worst, players, solo))
    if not cells:
        raise ConfigError(str(Path(path) / "cells"), "(files)", "cells with records (run glade sweep)",
                          has_got=False)
    multiplayer = [c for c in cells if c.advantage is not None]
    for cell, (verdict, p_holm, tost_holm) in zip(multiplayer, stats.family_verdicts(
            [c.advantage for c in multiplayer], ALPHA)):
        cell.verdict, cell.p_holm, cell.tost_holm = verdict, p_holm, tost_holm
    base = next((c for c in cells if c.baseline), cells[0])
    for cell in cells:
        if cell is base:
            continue
        reference = _paired_reference(cell, base, cells)
        if reference is None:
            cell.paired_note = (f"not paired: no cell with {cell.players} players and the baseline's "
                                "other settings")
            continue
        if reference is cell:
            cell.paired_note = f"the reference cell for {cell.players} players"
            continue
        base0 = reference.records.filter(pl.col("seat") == 0)
        a, b = _common(base0, cell.records.filter(pl.col("seat") == 0))
        key = ("deal", "rotation", "seat")
        try:
            cell.win_change = stats.paired_difference(a, b, "win", key=key)
            cell.turns_change = stats.paired_difference(a, b, "turns", key=key)
        except stats.StatsError as error:
            cell.paired_note = str(error)
        if cell.win_change is not None and a.height < max(base0.height, cell.records.filter(pl.col("seat") == 0).height):
            cell.paired_note = f"paired on the {a.height:,} deals both cells hold"
        if reference is not base:
            cell.paired_note = "; ".join(filter(None, [f"against {reference.id} (same player count)",
                                                       cell.paired_note]))
    others = [c for c in cells if c is not base and c.win_change is not None]
    for name, attr, p_of in (("win", "win_holm", lambda c: c.win_change.p_value),
                             ("turns", "turns_holm", lambda c: c.turns_change.wilcoxon_p)):
        adjusted = stats.correct([p_of(c) for c in others], "holm")
        for c, p in zip(others, adjusted):
            setattr(c, attr, float(p))
    return data, cells


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


def sweep_flags(data: Any, cells: list[CellAnalysis], delta: float) -> list[Flag]:
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
    flags.append(Flag("ok" if best.verdict == stats.VERDICT_BALANCED else "info",
                      f"Most balanced cell: {best.id}.", gap_text(best)))
    if len(ranked) > 1:
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
    flags.append(Flag("info", "Verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + ".",
                      f"balanced = the equivalence test within \u00b1{100 * delta:g} points passes; unbalanced = "
                      f"the difference test rejects; both Holm-corrected across the {len(cells)} cells, as the "
                      "headline above; otherwise not enough games yet"))
    base = next((c for c in cells if c.baseline), cells[0])
    flags += _win_change_flag(cells, f"change seat 0's win rate against the baseline {base.id}")
    stalled = [c for c in cells if c.length.stalls.rate > STALL_FLAG]
    if stalled:
        flags.append(Flag("warn", f"High stall rate in {len(stalled)} cells.",
                          "; ".join(f"{c.id}: {_pct(c.length.stalls.rate)} {_ci(c.length.stalls.low, c.length.stalls.high)}"
                                    for c in stalled[:5]) + f" (over {STALL_FLAG:.0%}, Wilson 95%)"))
    outside = [c for c in cells if c.target and not c.target[0] <= c.length.median <= c.target[1]]
    if outside:
        flags.append(Flag("warn", f"Typical game outside the target band in {len(outside)} cells.",
                          "; ".join(f"{c.id}: median {c.length.median:g} turns (target {c.target[0]:g}\u2013"
                                    f"{c.target[1]:g})" for c in outside[:6])
                          + ("" if len(outside) <= 6 else f"; and {len(outside) - 6} more")))
    elif any(c.target for c in cells):
        flags.append(Flag("ok", "Every cell's typical game is inside the target band.",
                          "; ".join(f"{c.id}: {c.length.median:g}" for c in cells[:9]) + " turns (median)"))
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
                                        ", the dashed line the fair share") + ". Right: the paired change of seat 0's win rate against the baseline "
                                     f"{base.id} (mean paired difference with its interval)."),
    ])


def _share_methods(cells: list[CellAnalysis]) -> str:
    return "; ".join(dict.fromkeys(c.advantage.share_method for c in cells if c.advantage is not None))


def _test_names(cells: list[CellAnalysis]) -> str:
    return "; ".join(dict.fromkeys(c.advantage.test for c in cells if c.advantage is not None))


def _smallest(values: Sequence[float]) -> float:
    finite = [v for v in values if np.isfinite(v)]
    return min(finite) if finite else float("nan")


def _pairing_gain(cells: list[CellAnalysis]) -> str:
    """What pairing saved, measured: the variance of paired differences over that of two independent runs."""
    ratios = [c.win_change.variance_ratio for c in cells if c.win_change is not None]
    ratios = [r for r in ratios if np.isfinite(r)]
    if not ratios:
        return ""
    ratio = float(np.median(ratios))
    return (f"Measured here: the paired win comparison needs {ratio:.0%} of the games two independent runs would "
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
        Table([Column("Cell"), Column("Pairs", True), Column("Seat 0 wins: baseline \u2192 cell", True),
               Column("Change (points)", True), Column("95% interval", True), Column("Test p", True),
               Column("Holm p", True), Column("Turns change", True), Column("95% interval", True),
               Column("Holm p (Wilcoxon)", True)], rows,
              caption=("Seat 0's win (first place, ties included) and the game's turns, cell minus baseline, paired "
                       f"by deal (a deal's seat rotations averaged first: the deal is the unit). Intervals: "
                       f"{'; '.join(methods) or 'n/a'} on the paired differences. Win: McNemar's test with one game "
                       "a deal, else Wilcoxon signed-rank on per-deal differences; turns: Wilcoxon signed-rank (zero differences dropped); both Holm-corrected across the "
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
    figure = plots.cell_turns([c.id for c in cells], np.array([c.length.median for c in cells]),
                              np.array([c.length.q1 for c in cells]), np.array([c.length.q3 for c in cells]),
                              np.array([c.length.minimum for c in cells]), np.array([c.length.maximum for c in cells]),
                              target, base.id)
    rows = [[c.id + (" *" if c.baseline else ""), _int(c.length.games), _num(c.length.mean.mean, 1),
             _ci_num(c.length.mean.low, c.length.mean.high, 1), _g(c.length.median),
             f"{c.length.q1:g} / {c.length.q3:g}", _pct(c.length.stalls.rate, 2),
             ", ".join(f"{r['end']} {_pct(r['share'], 0)}" for r in c.length.ends.to_dicts())] for c in cells]
    return Section("cell-length", "Game length per cell", [
        Table([Column("Cell"), Column("Games", True), Column("Mean turns", True), Column("95% interval", True),
               Column("Median", True), Column("Quartiles", True), Column("Stalls", True), Column("Ends")], rows,
              caption=f"Mean turns with {cells[0].length.mean.method} intervals. * baseline."),
        Plot("cell-turns", figure, "Median game length per cell with quartiles and range"
             + (f"; the shaded band is the target {target[0]:g}\u2013{target[1]:g} turns." if target else ".")),
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
    return Section("manifest", "Sweep manifest", [
        Facts(facts),
        Table([Column("Cell"), Column("Overrides"), Column("Config hash"), Column("Status"), Column("Games", True)],
              rows, caption="Cells in sweep order. * baseline."),
        Table([Column("Bot"), Column("Kind"), Column("Weights")], _bot_rows(first.manifest),
              caption="Bots and personas (the same in every cell)."),
        Code("Sweep file", m.get("sweep_text", "")),
        Code(f"Config of the baseline cell ({next((c for c in cells if c.baseline), first).manifest.get('config_hash')})",
             config_text(next((c for c in cells if c.baseline), first).manifest.get("config") or {})),
    ])


_SWEEP_METHODS = [
    "Ranking: per cell, the seat whose first-place share is furthest from 1/players (analysis.stats.seat_advantage: "
    "decided games with 2 players, shared first places as fractions with 3-4); its gap is the Wilson 95% interval "
    "of that share less 1/players. Cells are ranked by the absolute gap, then by the interval's far end.",
    "Seat advantage across cells: each cell's seat-advantage p-value (exact binomial, or chi-square with 3-4 "
    "players) Holm-corrected across the cells (statsmodels multipletests(method='holm')).",
    "Paired differences against the baseline: cells share their deals and game seeds (common random numbers), so "
    "seat 0's win and each game's turns are compared deal by deal (analysis.stats.paired_difference); McNemar "
    "(wins) and Wilcoxon signed-rank (turns) p-values Holm-corrected across the cells compared.",
    f"Stall and game-length flags per cell as in a run report (stalls over {STALL_FLAG:.0%}; median outside the "
    "config's [report] target_turns).",
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
             _num(float(c.records["score"].mean())), _g(c.length.median), _pct(c.length.stalls.rate)]
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


def build_sweep_report(path: str | Path, delta: float = DELTA) -> Report:
    """The report of a sweep directory (``sweep.json``, ``cells/<id>/``).

    Cells with one seat (solitaire) are reported by the player's win rate, the others by seat balance.
    """
    data, everything = analyse_sweep(path, delta)
    cells = [c for c in everything if c.advantage is not None]
    solitaire = [c for c in everything if c.advantage is None]
    flags = (sweep_flags(data, cells, delta) if cells else []) + (solitaire_flags(solitaire) if solitaire else [])
    total = sum(c.games for c in everything)
    summary = Section("summary", "Summary", [
        Paragraph(f"{len(everything)} cells of {_game_title(data.game)} ({total:,} games), bots {', '.join(data.bots)}"
                  + (", seats rotated" if data.rotate_seats else ", seats fixed")
                  + f"; every cell plays the same {data.games_per_cell:,} deals. "
                  + (data.description + "." if data.description else ""), "lead"),
        Flags(flags),
    ])
    sections = [summary]
    if cells:
        sections.append(_sweep_section_cells(data, cells, delta))
    if solitaire:
        sections.append(_sweep_section_solitaire(data, solitaire))
    sections.append(_sweep_section_paired(data, everything))
    heatmap = _sweep_heatmap(data, cells) if cells else None
    if heatmap is not None:
        sections.append(heatmap)
    methods = _SWEEP_METHODS + ([_SOLITAIRE_METHOD] if solitaire else [])
    sections += [_sweep_section_length(data, everything), _methods_section(methods),
                 _sweep_manifest(data, everything)]
    title = f"{_game_title(data.game)} sweep: {', '.join(data.axes) or 'cells'}"
    subtitle = (f"{len(everything)} cells \u00d7 {data.games_per_cell:,} deals, bots {', '.join(data.bots)}, seed "
                f"{data.seed}; baseline {data.baseline.id}. Sweep directory {data.out_dir}")
    return Report("sweep", title, subtitle, sections, now())


# ================================================================ diff reports


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


def _unpaired_win_change(a_seat: pl.DataFrame, b_seat: pl.DataFrame, delta: float) -> Change:
    """One seat's win rate in two independent runs; by deal (Welch t on per-deal rates) when a run rotates seats,
    since the games of one deal are not independent."""
    if a_seat["deal"].n_unique() < a_seat.height or b_seat["deal"].n_unique() < b_seat.height:
        per_deal = [frame.group_by("deal").agg(pl.col("win").cast(pl.Float64).mean())["win"].to_numpy()
                    for frame in (a_seat, b_seat)]
        return unpaired_mean_change(per_deal[0], per_deal[1], margin=delta)
    return unpaired_change(float(a_seat["win"].sum()), a_seat.height, float(b_seat["win"].sum()), b_seat.height,
                           margin=delta)


def _diff_config(ma: dict, mb: dict) -> list[list[str]]:
    fa, fb = flatten(ma.get("config") or {}), flatten(mb.get("config") or {})
    rows = []
    for key in sorted(set(fa) | set(fb)):
        va, vb = fa.get(key, "(unset)"), fb.get(key, "(unset)")
        if va != vb:
            rows.append([key, _toml_value(va) if va is not None else "(none)",
                         _toml_value(vb) if vb is not None else "(none)"])
    return rows


def _diff_settings(ma: dict, mb: dict) -> list[list[str]]:
    rows = []
    for key in ("game", "players", "bots", "seed", "rotate_seats", "games"):
        if ma.get(key) != mb.get(key):
            rows.append([key, json.dumps(ma.get(key)), json.dumps(mb.get(key))])
    return rows


def build_diff_report(run_a: str | Path, run_b: str | Path, delta: float = DELTA) -> Report:
    """What changed from run A to run B: config keys, seat win rates, turns, end reasons."""
    pa, pb = Path(run_a), Path(run_b)
    ma, mb = load_manifest(pa), load_manifest(pb)
    ra, rb = load_records(pa), load_records(pb)
    paired, why, ca, cb = _pairing(ma, mb, ra, rb)
    config_rows = _diff_config(ma, mb)
    setting_rows = _diff_settings(ma, mb)
    players = int(max(ra["seat"].max(), rb["seat"].max())) + 1
    key = ("deal", "rotation", "seat")
    try:
        seat_changes = []
        for seat in range(players):
            a_seat, b_seat = ca.filter(pl.col("seat") == seat), cb.filter(pl.col("seat") == seat)
            if paired:
                d = stats.paired_difference(a_seat, b_seat, "win", key=key, margin=delta)
                seat_changes.append(("paired", d.difference, d.mean.low, d.mean.high, d.p_value, d.base_mean,
                                     d.other_mean, d.pairs, f"{d.mean.method}; {d.test}", d, d.equivalence_p,
                                     d.effect_size, d.detectable))
            else:
                c = _unpaired_win_change(a_seat, b_seat, delta)
                seat_changes.append(("unpaired", c.difference, c.low, c.high, c.p_value, c.base, c.other,
                                     f"{c.n_base:,} + {c.n_other:,}", f"{c.interval_method}; {c.test}", c,
                                     c.equivalence_p, c.effect_size, c.detectable))
        holm = stats.correct([s[4] for s in seat_changes], "holm")
        a0, b0 = ca.filter(pl.col("seat") == 0), cb.filter(pl.col("seat") == 0)
        if paired:
            turns = stats.paired_difference(a0, b0, "turns", key=key)
            turns_row = [f"{turns.base_mean:.2f}", f"{turns.other_mean:.2f}", f"{turns.difference:+.2f}",
                         _ci_num(turns.mean.low, turns.mean.high), _p(turns.wilcoxon_p),
                         f"paired, {turns.mean.method}; Wilcoxon signed-rank", _int(turns.pairs) + " pairs"]
            turns_p, turns_diff = turns.wilcoxon_p, turns.difference
        else:
            t = unpaired_mean_change(a0["turns"].to_numpy(), b0["turns"].to_numpy())
            turns_row = [f"{t.base:.2f}", f"{t.other:.2f}", f"{t.difference:+.2f}", _ci_num(t.low, t.high),
                         _p(t.p_value), f"unpaired, {t.interval_method}; {t.test}", f"{t.n_base:,} + {t.n_other:,}"]
            turns_p, turns_diff = t.p_value, t.difference
        la, lb = stats.game_length(ca), stats.game_length(cb)
        reasons = sorted(set(a0["end"].unique().to_list()) | set(b0["end"].unique().to_list()))
        end_rows, end_p, end_shift = [], [], {}
        for reason in reasons:
            ia = a0.with_columns((pl.col("end") == reason).alias("is_end"))
            ib = b0.with_columns((pl.col("end") == reason).alias("is_end"))
            if paired:
                d = stats.paired_difference(ia, ib, "is_end", key=key)
                end_rows.append([reason, _pct(d.base_mean), _pct(d.other_mean), _pts(d.difference),
                                 _ci_pts(d.mean.low, d.mean.high)])
                end_p.append(d.p_value)
                end_shift[reason] = d.difference
            else:
                c = unpaired_change(float(ia["is_end"].sum()), ia.height, float(ib["is_end"].sum()), ib.height)
                end_rows.append([reason, _pct(c.base), _pct(c.other), _pts(c.difference), _ci_pts(c.low, c.high)])
                end_p.append(c.p_value)
                end_shift[reason] = c.difference
        end_holm = stats.correct(end_p, "holm")
        for row, p, q in zip(end_rows, end_p, end_holm):
            row.extend([_p(p), _p(q)])
        ta, tb = stats.proportion_table(ca, "seat"), stats.proportion_table(cb, "seat")
    except stats.StatsError as error:
        raise ConfigError(f"{pa} / {pb}", "(records)", f"records a diff can use ({error})", has_got=False) from None

    identical_results = paired and _same_results(ca, cb)
    identical = identical_results and not config_rows and not setting_rows
    significant_seats = [s for s, q in zip(range(players), holm) if _finite(q) and q < ALPHA]
    significant_ends = [r for r, q in zip(reasons, end_holm) if _finite(q) and q < ALPHA]
    mode = (f"paired on common random numbers: {ca['deal'].n_unique():,} common deals, each compared with itself "
            "(same game seed) in the other run" if paired else f"unpaired (independent runs): {why}")
    if identical:
        headline = Flag("ok", "No change: the two runs have the same config, bots and seeds, and every paired game "
                              "has the same result.", mode)
    elif identical_results:
        headline = Flag("ok", "No change in the results: every paired game has the same result.",
                        mode + "; the configs differ only in the keys listed below")
    elif not significant_seats and not significant_ends and not (_finite(turns_p) and turns_p < ALPHA):
        equivalence = [ch[10] for ch in seat_changes]
        detectable = max((ch[12] for ch in seat_changes if _finite(ch[12])), default=float("nan"))
        shown = all(p is not None and p < ALPHA for p in equivalence)
        largest = max((p for p in equivalence if p is not None), default=float("nan"))
        if shown:
            headline = Flag("ok", f"No change: every seat's win rate is within \u00b1{100 * delta:g} points of run "
                                  "A's.", mode + f"; equivalence (TOST) for every seat, largest {stats.format_p(largest)}"
                                  f"; no significant change in turns or end reasons (Holm at {ALPHA})")
        else:
            headline = Flag("info", "Undecided: no significant change, but no equivalence shown either.",
                            mode + f"; no seat, turns or end-reason change is significant (Holm at {ALPHA}), and "
                            f"the equivalence test within \u00b1{100 * delta:g} points does not pass (largest TOST "
                            f"{stats.format_p(largest)}); these games detect a change of about "
                            f"{100 * detectable:.1f} points (80% power)")
    else:
        parts = [f"seat {s}'s win rate {_pts(seat_changes[s][1])} points "
                 f"{_ci_pts(seat_changes[s][2], seat_changes[s][3])} (Holm {stats.format_p(holm[s])})"
                 for s in significant_seats]
        if _finite(turns_p) and turns_p < ALPHA:
            parts.append(f"mean turns {turns_diff:+.2f} ({stats.format_p(turns_p)})")
        if significant_ends:
            shifts = ", ".join(f"{r} {_pts(end_shift[r])} points" for r in significant_ends)
            parts.append(f"end reasons shift ({shifts}; Holm p < {ALPHA})")
        headline = Flag("warn", "Changed: " + "; ".join(parts) + ".", mode)
    flags = [headline]
    if config_rows:
        flags.append(Flag("info", f"{len(config_rows)} config key{'s differ' if len(config_rows) > 1 else ' differs'}: "
                                  + _listing([r[0] for r in config_rows], 5) + ".",
                          "; ".join(f"{r[0]}: {r[1]} \u2192 {r[2]}" for r in config_rows[:5])))
    elif not setting_rows:
        flags.append(Flag("ok", "Same config (no key differs).", f"config hash {ma.get('config_hash')}"))
    if setting_rows:
        flags.append(Flag("info", "Run settings differ: " + ", ".join(r[0] for r in setting_rows) + ".",
                          "; ".join(f"{r[0]}: {r[1]} \u2192 {r[2]}" for r in setting_rows)))

    label_a, label_b = f"A: {pa.name}", f"B: {pb.name}"
    seat_table = Table(
        [Column("Seat"), Column("A win rate", True), Column("B win rate", True), Column("Change (points)", True),
         Column("95% interval", True), Column("p", True), Column("Holm p", True), Column("Cohen's h", True),
         Column("Detectable (points)", True), Column(f"TOST \u00b1{100 * delta:g} p", True), Column("n", True)],
        [[f"seat {s}", _pct(ch[5]), _pct(ch[6]), _pts(ch[1]), _ci_pts(ch[2], ch[3]), _p(ch[4]), _p(q),
          f"{ch[11]:+.3f}" if _finite(ch[11]) else "n/a", f"{100 * ch[12]:.1f}" if _finite(ch[12]) else "n/a",
          _p(ch[10]) if ch[10] is not None else "n/a",
          (_int(ch[7]) + " pairs") if paired else ch[7]] for s, (ch, q) in enumerate(zip(seat_changes, holm))],
        caption=("Win = first place, ties included. " + (
            f"Paired by deal, rotation and seat, the deal the unit: interval {seat_changes[0][8]}." if paired else
            f"Unpaired: {seat_changes[0][8]}.") + " Holm across seats. Cohen's h: the effect size; detectable: the "
            "change these games find with 80% power (two-sided 5%); TOST: the equivalence test within the margin "
            "that a 'no change' needs."),
        marked=[s in significant_seats for s in range(players)])
    fair = 1 / players
    figure_seats = plots.diff_seats(
        list(range(players)),
        tuple(ta[c].to_numpy() for c in ("win_rate", "win_low", "win_high")),
        tuple(tb[c].to_numpy() for c in ("win_rate", "win_low", "win_high")), label_a, label_b, fair)
    target = target_band(mb.get("config") or {}) or target_band(ma.get("config") or {})
    sections = [
        Section("summary", "Summary", [
            Paragraph(f"Run A: {pa} ({ra['game'].n_unique():,} games, config {ma.get('config_hash')}). Run B: {pb} "
                      f"({rb['game'].n_unique():,} games, config {mb.get('config_hash')}). Changes are B minus A.",
                      "lead"),
            Flags(flags)]),
        Section("changes", "What changed in the setup", [
            Table([Column("Config key"), Column("Run A"), Column("Run B")], config_rows,
                  caption="Config keys whose values differ (dotted keys, as for --set).")
            if config_rows else Paragraph("No config key differs.", "note"),
            *([Table([Column("Setting"), Column("Run A"), Column("Run B")], setting_rows,
                     caption="Run settings that differ.")] if setting_rows else []),
            Facts([("Overrides A", " ".join(ma.get("config_overrides") or []) or "none"),
                   ("Overrides B", " ".join(mb.get("config_overrides") or []) or "none"),
                   ("Comparison", mode)]),
        ]),
        Section("seats", "Seat win rates", [
            seat_table,
            Plot("diff-seats", figure_seats, "Win rate per seat in each run with Wilson 95% intervals; the dashed line "
                                             "is the fair share."),
        ]),
        Section("length", "Game length and endings", [
            Table([Column("Metric"), Column("Run A", True), Column("Run B", True), Column("Change", True),
                   Column("95% interval", True), Column("p", True), Column("Method"), Column("n", True)],
                  [["mean turns", *turns_row],
                   ["median turns", _g(la.median), _g(lb.median), f"{lb.median - la.median:+g}", "", "", "", ""]]),
            Table([Column("End"), Column("Run A", True), Column("Run B", True), Column("Change (points)", True),
                   Column("95% interval", True), Column("p", True), Column("Holm p", True)], end_rows,
                  caption=("Share of games per end reason. " + (
                      "Paired: the per-game indicator compared deal by deal (paired_difference; McNemar)."
                      if paired else "Unpaired: Newcombe interval and score test.") + " Holm across end reasons."),
                  marked=[r in significant_ends for r in reasons]),
            Plot("diff-turns", plots.diff_turns(la.histogram, lb.histogram, label_a, label_b, target),
                 "Share of games per number of turns in each run"
                 + (f"; the shaded band is the target {target[0]:g}\u2013{target[1]:g}." if target else ".")),
        ]),
        _methods_section([
            "Paired comparison (same game, players, bots, seed and seat rotation; the same game seed on every common "
            "deal): analysis.stats.paired_difference per seat on the win flag (McNemar), on the turns (Wilcoxon "
            "signed-rank) and on each end reason's indicator (McNemar), keyed by deal, rotation and seat.",
            "Unpaired comparison (otherwise): difference of two independent proportions with the Newcombe hybrid "
            "score interval (statsmodels confint_proportions_2indep(method='newcomb', compare='diff')) and the score "
            "test (test_proportions_2indep(method='score')); mean turns by Welch's t test and interval (scipy "
            "ttest_ind(equal_var=False)).",
            "Seats and end reasons are each a family: p-values Holm-corrected within it (statsmodels "
            "multipletests(method='holm')).",
            "\"No change\" means the same config and settings and identical results on every paired game; \"no "
            "significant change\" means no Holm-adjusted p-value below 0.05.",
        ]),
        Section("manifest", "Run manifests", [
            Heading("Run A"), *_run_manifest_blocks(pa, ma, ra["game"].n_unique(), " of run A"),
            Heading("Run B"), *_run_manifest_blocks(pb, mb, rb["game"].n_unique(), " of run B"),
        ]),
    ]
    title = f"{_game_title(ma.get('game', '?'))}: {pa.name} vs {pb.name}"
    subtitle = f"What changed from run A ({pa}) to run B ({pb})."
    return Report("diff", title, subtitle, sections, now())


def _same_results(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    columns = ["deal", "rotation", "seat", "score", "rank", "win", "turns", "end"]
    if a.height != b.height:
        return False
    left = a.select(columns).sort("deal", "rotation", "seat")
    right = b.select(columns).sort("deal", "rotation", "seat")
    return left.equals(right)


# ================================================================ dispatch


def kind_of(path: str | Path) -> str:
    """``"run"`` (has manifest.json) or ``"sweep"`` (has sweep.json); anything else is a ConfigError."""
    path = Path(path)
    if (path / "sweep.json").is_file():
        return "sweep"
    if (path / "manifest.json").is_file():
        return "run"
    what = "does not exist" if not path.exists() else "holds neither manifest.json nor sweep.json"
    raise ConfigError(str(path), "(directory)", f"a run directory (manifest.json, from glade play) or a sweep "
                      f"directory (sweep.json, from glade sweep); it {what}", has_got=False)


def build_report(path: str | Path, delta: float = DELTA) -> Report:
    return build_sweep_report(path, delta) if kind_of(path) == "sweep" else build_run_report(path, delta)


# ================================================================ HTML


_CSS = """
:root { --ink:#1d2433; --muted:#5b6475; --line:#dde1e8; --soft:#f5f6f9; --accent:#1f3b73;
        --warn:#b4541a; --warn-bg:#fdf2e6; --ok:#2d7651; --ok-bg:#edf6f0; --info:#4a5568; --info-bg:#f1f3f7; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff;
       font: 15px/1.55 "Inter", "Segoe UI", "Helvetica Neue", "DejaVu Sans", Arial, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 36px 36px 72px; }
header { border-bottom: 3px solid var(--accent); padding-bottom: 14px; margin-bottom: 10px; }
.kicker { text-transform: uppercase; letter-spacing: .12em; font-size: 12px; color: var(--accent); font-weight: 700; }
h1 { font-size: 30px; line-height: 1.2; margin: 4px 0 8px; letter-spacing: -.01em; }
.subtitle { color: var(--muted); margin: 0; font-size: 14px; }
nav { margin: 14px 0 6px; font-size: 13.5px; display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a { color: var(--accent); text-decoration: none; white-space: nowrap; }
nav a:hover { text-decoration: underline; }
section { margin-top: 34px; }
h2 { font-size: 21px; margin: 0 0 12px; padding-top: 10px; border-top: 1px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 8px; }
p { margin: 8px 0 12px; max-width: 78ch; }
p.lead { font-size: 15.5px; }
p.note { color: var(--muted); font-size: 14px; }
ul.flags { list-style: none; padding: 0; margin: 14px 0; }
ul.flags li { border-left: 5px solid var(--info); background: var(--info-bg); padding: 9px 14px 10px;
              margin: 0 0 8px; border-radius: 0 6px 6px 0; }
ul.flags li.warn { border-left-color: var(--warn); background: var(--warn-bg); }
ul.flags li.ok { border-left-color: var(--ok); background: var(--ok-bg); }
.badge { display: inline-block; min-width: 46px; text-align: center; font-size: 11px; font-weight: 700;
         letter-spacing: .06em; padding: 1px 6px; border-radius: 4px; margin-right: 8px; color: #fff;
         background: var(--info); vertical-align: 1px; }
li.warn .badge { background: var(--warn); }
li.ok .badge { background: var(--ok); }
.flag-title { font-weight: 650; }
.evidence { display: block; color: #39414f; font-size: 13.5px; margin-top: 3px;
            font-variant-numeric: tabular-nums; }
.table-wrap { overflow-x: auto; margin: 10px 0 4px; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums lining-nums; }
th { text-align: left; font-weight: 650; padding: 6px 7px; border-bottom: 2px solid var(--ink);
     vertical-align: bottom; line-height: 1.25; }
td { padding: 4px 7px; border-bottom: 1px solid var(--line); vertical-align: top; }
th:first-child, td:first-child { padding-left: 4px; }
th.num, td.num { text-align: right; }
td.nw { white-space: nowrap; }
section:first-of-type h2 { border-top: 0; padding-top: 0; }
tbody tr:nth-child(even) td { background: #fafbfc; }
tbody tr.marked td { background: var(--warn-bg); }
tbody tr.marked td:first-child { box-shadow: inset 4px 0 0 var(--warn); }
.caption { color: var(--muted); font-size: 13px; margin: 4px 0 16px; max-width: 92ch; }
figure { margin: 16px 0 22px; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 6px; max-width: 92ch; }
dl.facts { display: grid; grid-template-columns: minmax(160px, max-content) 1fr; gap: 5px 18px; margin: 10px 0 16px;
           font-size: 14px; }
dl.facts dt { font-weight: 650; color: #39414f; }
dl.facts dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
ul.bullets { padding-left: 20px; font-size: 14px; }
ul.bullets li { margin-bottom: 5px; }
details { margin: 10px 0 16px; border: 1px solid var(--line); border-radius: 6px; }
details summary { cursor: pointer; padding: 8px 12px; font-weight: 600; background: var(--soft); }
pre { margin: 0; padding: 12px 14px; overflow-x: auto; font: 12.5px/1.5 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
footer { margin-top: 48px; color: var(--muted); font-size: 12.5px; border-top: 1px solid var(--line); padding-top: 10px; }
@media print {
  main { max-width: none; padding: 0; }
  nav { display: none; }
  section, figure, table, ul.flags li { break-inside: avoid; }
  h2 { break-after: avoid; }
  details > * { display: block; }
}
"""

_BADGES = {"warn": "FLAG", "ok": "OK", "info": "NOTE"}


def _figure_data(figure: Figure, fmt: str, dpi: int = PNG_DPI) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=dpi, metadata={"Date": None} if fmt == "svg" else None)
    return buffer.getvalue()


def _cell_class(column: Column, value: str) -> str:
    classes = (["num"] if column.numeric else []) + (["nw"] if len(value) <= 26 else [])
    return " ".join(classes)


def _html_block(block: Block) -> str:
    e = html.escape
    if isinstance(block, Paragraph):
        return f'<p class="{block.style}">{e(block.text)}</p>'
    if isinstance(block, Heading):
        return f"<h3>{e(block.text)}</h3>"
    if isinstance(block, Flags):
        items = []
        for flag in block.items:
            evidence = f'<span class="evidence">{e(flag.evidence)}</span>' if flag.evidence else ""
            items.append(f'<li class="{flag.level}"><span class="badge">{_BADGES[flag.level]}</span>'
                         f'<span class="flag-title">{e(flag.title)}</span>{evidence}</li>')
        return '<ul class="flags">' + "".join(items) + "</ul>"
    if isinstance(block, Table):
        head = "".join(f'<th class="num">{e(c.name)}</th>' if c.numeric else f"<th>{e(c.name)}</th>"
                       for c in block.columns)
        body = []
        for i, row in enumerate(block.rows):
            marked = block.marked is not None and block.marked[i]
            cells = "".join(f'<td class="{_cell_class(c, v)}">{e(v)}</td>' for c, v in zip(block.columns, row))
            body.append(f'<tr class="marked">{cells}</tr>' if marked else f"<tr>{cells}</tr>")
        caption = f'<div class="caption">{e(block.caption)}</div>' if block.caption else ""
        return (f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
                f"</table></div>{caption}")
    if isinstance(block, Plot):
        data = base64.b64encode(_figure_data(block.figure, "svg")).decode("ascii")
        width = block.figure.get_figwidth()
        share = min(100.0, 100 * width / plots.WIDTH)
        alt = e(block.caption)
        return (f'<figure id="fig-{e(block.id)}"><img style="width:{share:.1f}%" alt="{alt}" '
                f'src="data:image/svg+xml;base64,{data}"><figcaption>{alt}</figcaption></figure>')
    if isinstance(block, Facts):
        items = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in block.items)
        return f'<dl class="facts">{items}</dl>'
    if isinstance(block, Bullets):
        return '<ul class="bullets">' + "".join(f"<li>{e(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Code):
        return f"<details><summary>{e(block.summary)}</summary><pre>{e(block.text)}</pre></details>"
    raise TypeError(f"unknown report block {type(block).__name__}")


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (inline CSS and images, no script, no external URL)."""
    e = html.escape
    kicker = {"run": "Glade run report", "sweep": "Glade sweep report", "diff": "Glade comparison"}[report.kind]
    nav = "".join(f'<a href="#{e(s.id)}">{e(s.title)}</a>' for s in report.sections)
    sections = "\n".join(
        f'<section id="{e(s.id)}"><h2>{e(s.title)}</h2>\n' + "\n".join(_html_block(b) for b in s.blocks)
        + "</section>" for s in report.sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body><main>"
            f'<header><div class="kicker">{kicker}</div><h1>{e(report.title)}</h1>'
            f'<p class="subtitle">{e(report.subtitle)}</p><nav>{nav}</nav></header>\n{sections}\n'
            f"<footer>Written by Glade on {e(report.generated)}. Estimates carry 95% intervals with their method; "
            f"see Methods.</footer></main></body></html>\n")


# ================================================================ PDF


def _font_dir() -> Path:
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


_RGB = {
    "ink": (29, 36, 51), "muted": (91, 100, 117), "line": (214, 219, 227), "accent": (31, 59, 115),
    "warn": (180, 84, 26), "warn_bg": (253, 242, 230), "ok": (45, 118, 81), "ok_bg": (237, 246, 240),
    "info": (74, 85, 104), "info_bg": (241, 243, 247), "zebra": (250, 251, 252), "soft": (245, 246, 249),
}


def _pdf_class():
    from fpdf import FPDF

    class ReportPDF(FPDF):
        report_title = ""

        def footer(self) -> None:
            self.set_y(-12)
            self.set_font("Sans", "", 7.5)
            self.set_text_color(*_RGB["muted"])
            self.cell(0, 5, f"{self.report_title}", align="L")
            self.set_x(self.l_margin)
            self.cell(0, 5, f"page {self.page_no()} of {{nb}}", align="R")

    return ReportPDF


class _PdfWriter:
    MARGIN = 18.0
    BODY = 9.5

    def __init__(self, report: Report):
        from fpdf.fonts import FontFace

        self.FontFace = FontFace
        self.report = report
        pdf = _pdf_class()(orientation="portrait", unit="mm", format="A4")
        pdf.report_title = f"Glade \u00b7 {report.title}"
        fonts = _font_dir()
        pdf.add_font("Sans", "", fonts / "DejaVuSans.ttf")
        pdf.add_font("Sans", "B", fonts / "DejaVuSans-Bold.ttf")
        pdf.add_font("Sans", "I", fonts / "DejaVuSans-Oblique.ttf")
        pdf.add_font("Sans", "BI", fonts / "DejaVuSans-BoldOblique.ttf")
        pdf.add_font("Mono", "", fonts / "DejaVuSansMono.ttf")
        pdf.set_margins(self.MARGIN, self.MARGIN, self.MARGIN)
        pdf.set_auto_page_break(True, margin=18)
        pdf.set_title(report.title)
        pdf.set_author("Glade")
        pdf.set_creator("Glade (fpdf2)")
        pdf.set_creation_date(datetime.now(timezone.utc))
        self.pdf = pdf

    @property
    def width(self) -> float:
        return self.pdf.w - 2 * self.MARGIN

    def room(self) -> float:
        return self.pdf.h - self.pdf.b_margin - self.pdf.get_y()

    def need(self, height: float) -> None:
        if self.room() < height:
            self.pdf.add_page()

    def color(self, name: str) -> None:
        self.pdf.set_text_color(*_RGB[name])

    def text(self, text: str, size: float | None = None, style: str = "", color: str = "ink",
             height: float | None = None, indent: float = 0.0) -> None:
        pdf = self.pdf
        size = size or self.BODY
        pdf.set_font("Sans", style, size)
        self.color(color)
        pdf.set_x(self.MARGIN + indent)
        pdf.multi_cell(self.width - indent, height or size * 0.5, text, new_x="LMARGIN", new_y="NEXT", align="L")

    def write(self) -> bytes:
        pdf = self.pdf
        pdf.add_page()
        kicker = {"run": "GLADE RUN REPORT", "sweep": "GLADE SWEEP REPORT", "diff": "GLADE COMPARISON"}
        self.text(kicker[self.report.kind], 8.5, "B", "accent")
        pdf.ln(1)
        self.text(self.report.title, 19, "B", height=8.5)
        pdf.ln(1)
        self.text(self.report.subtitle, 9, color="muted", height=4.6)
        pdf.ln(2)
        pdf.set_draw_color(*_RGB["accent"])
        pdf.set_line_width(0.8)
        pdf.line(self.MARGIN, pdf.get_y(), self.MARGIN + self.width, pdf.get_y())
        pdf.ln(3)
        self.text("Contents: " + " \u00b7 ".join(s.title for s in self.report.sections), 8.5, color="muted",
                  height=4.4)
        for number, section in enumerate(self.report.sections):
            self.section(section, first=number == 0)
        self.text(f"Written by Glade on {self.report.generated}.", 7.5, color="muted")
        return bytes(pdf.output())

    def section(self, section: Section, first: bool) -> None:
        pdf = self.pdf
        big = section.id in ("methods", "manifest")
        if big or (not first and self.room() < 90):
            pdf.add_page()
        else:
            pdf.ln(5)
        pdf.start_section(section.title, level=0)
        self.text(section.title, 14, "B", height=7)
        pdf.set_draw_color(*_RGB["line"])
        pdf.set_line_width(0.3)
        pdf.line(self.MARGIN, pdf.get_y() + 0.5, self.MARGIN + self.width, pdf.get_y() + 0.5)
        pdf.ln(3)
        for block in section.blocks:
            self.block(block)

    def block(self, block: Block) -> None:
        pdf = self.pdf
        if isinstance(block, Paragraph):
            size, color, style = {"lead": (10, "ink", ""), "note": (8.5, "muted", "I")}.get(
                block.style, (self.BODY, "ink", ""))
            self.text(block.text, size, style, color, height=size * 0.5)
            pdf.ln(2)
        elif isinstance(block, Heading):
            self.need(30)
            pdf.ln(2)
            self.text(block.text, 11, "B", height=5.5)
            pdf.ln(1)
        elif isinstance(block, Flags):
            for flag in block.items:
                self.flag(flag)
            pdf.ln(2)
        elif isinstance(block, Table):
            self.table(block)
        elif isinstance(block, Plot):
            self.plot(block)
        elif isinstance(block, Facts):
            self.facts(block)
        elif isinstance(block, Bullets):
            for item in block.items:
                self.need(10)
                y = pdf.get_y()
                pdf.set_font("Sans", "", 8.5)
                self.color("accent")
                pdf.set_xy(self.MARGIN + 1, y)
                pdf.cell(4, 4.3, "\u2022")
                self.text(item, 8.5, height=4.3, indent=5)
                pdf.ln(1)
            pdf.ln(2)
        elif isinstance(block, Code):
            self.need(20)
            self.text(block.summary, 9.5, "B", height=5)
            pdf.set_font("Mono", "", 7)
            self.color("ink")
            pdf.set_fill_color(*_RGB["soft"])
            pdf.multi_cell(self.width, 3.4, block.text or "(empty)", fill=True, new_x="LMARGIN", new_y="NEXT",
                           padding=2)
            pdf.ln(3)
        else:
            raise TypeError(f"unknown report block {type(block).__name__}")

    def flag(self, flag: Flag) -> None:
        pdf = self.pdf
        inner = self.width - 22
        pdf.set_font("Sans", "B", 9)
        title_lines = len(pdf.multi_cell(inner, 4.4, flag.title, dry_run=True, output="LINES"))
        pdf.set_font("Sans", "", 8)
        ev_lines = len(pdf.multi_cell(inner, 3.9, flag.evidence, dry_run=True, output="LINES")) if flag.evidence else 0
        height = title_lines * 4.4 + ev_lines * 3.9 + 4
        self.need(height + 2)
        x, y = self.MARGIN, pdf.get_y()
        pdf.set_fill_color(*_RGB[f"{flag.level}_bg"])
        pdf.rect(x, y, self.width, height, style="F")
        pdf.set_fill_color(*_RGB[flag.level])
        pdf.rect(x, y, 1.4, height, style="F")
        pdf.set_xy(x + 3.5, y + 2.2)
        pdf.set_font("Sans", "B", 6.5)
        pdf.set_text_color(255, 255, 255)
        pdf.cell(14, 3.6, _BADGES[flag.level], align="C", fill=True)
        pdf.set_xy(x + 20, y + 2)
        pdf.set_font("Sans", "B", 9)
        self.color("ink")
        pdf.multi_cell(inner, 4.4, flag.title, new_x="LEFT", new_y="NEXT", align="L")
        if flag.evidence:
            pdf.set_font("Sans", "", 8)
            pdf.set_text_color(57, 65, 79)
            pdf.multi_cell(inner, 3.9, flag.evidence, new_x="LEFT", new_y="NEXT", align="L")
        pdf.set_xy(self.MARGIN, y + height + 1.6)

    def _widths(self, table: Table, size: float) -> tuple[list[float], float] | None:
        """Column widths in mm at font ``size``, or None if the table cannot fit the page at that size.

        A column needs its longest unbreakable word (header or cell; numbers
        never wrap), would like its widest cell on one line, and best its
        whole header too. Spare room goes to those wishes in that order.
        """
        pdf = self.pdf
        pad = 2.5
        least, natural, wish = [], [], []
        for i, column in enumerate(table.columns):
            pdf.set_font("Sans", "B", size)
            word = max(pdf.get_string_width(w) for w in column.name.split()) + pad
            whole = pdf.get_string_width(column.name) + pad
            pdf.set_font("Sans", "", size)
            cells = max((pdf.get_string_width(row[i]) for row in table.rows), default=0) + pad
            words = max((pdf.get_string_width(w) for row in table.rows for w in row[i].split()), default=0) + pad
            if column.numeric:
                least.append(max(word, cells))
            else:
                least.append(max(word, words, min(cells, 24)))
            natural.append(max(least[-1], min(cells, 75)))
            wish.append(max(natural[-1], min(whole, 30)))
        if sum(least) > self.width:
            return None
        for goal, floor in ((wish, natural), (natural, least)):
            if sum(floor) <= self.width:
                if sum(goal) <= self.width:
                    return goal, sum(goal)
                spare = self.width - sum(floor)
                extra = [g - f for g, f in zip(goal, floor)]
                widths = [f + spare * e / sum(extra) for f, e in zip(floor, extra)]
                return widths, self.width
        return least, sum(least)

    def _widths_raw(self, table: Table, size: float) -> list[float]:
        self.pdf.set_font("Sans", "", size)
        return [max([self.pdf.get_string_width(c.name)] + [self.pdf.get_string_width(r[i]) for r in table.rows])
                for i, c in enumerate(table.columns)]

    def table(self, table: Table) -> None:
        from fpdf.enums import TableBordersLayout, TableCellFillMode

        pdf = self.pdf
        FontFace = self.FontFace
        if not table.rows:
            self.text("(no rows)", 8.5, "I", "muted")
            return
        size = 8 if len(table.columns) <= 6 else 7.4 if len(table.columns) <= 9 else 7.0
        fitted = self._widths(table, size)
        while fitted is None and size > 5.6:
            size = round(size - 0.3, 1)
            fitted = self._widths(table, size)
        if fitted is None:  # still too wide: share the page in proportion
            least = self._widths_raw(table, size)
            fitted = [w * self.width / sum(least) for w in least], self.width
        widths, total = fitted
        self.need(min(8 + 5 * min(len(table.rows), 4), 40))
        pdf.set_font("Sans", "", size)
        self.color("ink")
        pdf.set_draw_color(*_RGB["line"])
        pdf.set_line_width(0.2)
        heading = FontFace(emphasis="BOLD", color=_RGB["ink"], fill_color=_RGB["soft"], size_pt=size)
        marked_face = FontFace(fill_color=_RGB["warn_bg"])
        pdf.set_fill_color(255, 255, 255)
        with pdf.table(col_widths=widths, width=total, align="LEFT", cell_fill_mode=TableCellFillMode.EVEN_ROWS,
                       cell_fill_color=_RGB["zebra"],
                       text_align=tuple("RIGHT" if c.numeric else "LEFT" for c in table.columns),
                       borders_layout=TableBordersLayout.HORIZONTAL_LINES, headings_style=heading,
                       line_height=size * 0.46, padding=(0.9, 1.25, 0.9, 1.25), repeat_headings=1,
                       v_align="TOP") as t:
            header = t.row()
            for column in table.columns:
                header.cell(column.name, align="RIGHT" if column.numeric else "LEFT")
            for i, values in enumerate(table.rows):
                marked = table.marked is not None and table.marked[i]
                row = t.row(style=marked_face if marked else None)
                for value in values:
                    row.cell(value)
        pdf.ln(1.2)
        if table.caption:
            self.text(table.caption, 7.5, "I", "muted", height=3.6)
        pdf.ln(3)

    def plot(self, plot: Plot) -> None:
        pdf = self.pdf
        figure = plot.figure
        width_in, height_in = figure.get_size_inches()
        width = min(self.width, width_in * 25.4)
        height = height_in * 25.4 * width / (width_in * 25.4)
        pdf.set_font("Sans", "I", 7.5)
        caption_lines = len(pdf.multi_cell(self.width, 3.6, plot.caption, dry_run=True, output="LINES"))
        self.need(height + caption_lines * 3.6 + 4)
        from PIL import Image

        image = Image.open(io.BytesIO(_figure_data(figure, "png"))).convert("RGB")  # opaque: no soft mask
        pdf.image(image, x=self.MARGIN, w=width, h=height)
        pdf.ln(1)
        self.text(plot.caption, 7.5, "I", "muted", height=3.6)
        pdf.ln(3)

    def facts(self, facts: Facts) -> None:
        pdf = self.pdf
        key_width, line = 46, 4.2
        for key, value in facts.items:
            pdf.set_font("Sans", "B", 8.5)
            key_lines = len(pdf.multi_cell(key_width - 3, line, key, dry_run=True, output="LINES"))
            pdf.set_font("Sans", "", 8.5)
            value_lines = len(pdf.multi_cell(self.width - key_width, line, value, dry_run=True, output="LINES"))
            height = max(key_lines, value_lines) * line
            self.need(height + 1)
            y = pdf.get_y()
            pdf.set_xy(self.MARGIN, y)
            pdf.set_font("Sans", "B", 8.5)
            pdf.set_text_color(57, 65, 79)
            pdf.multi_cell(key_width - 3, line, key, new_x="LMARGIN", new_y="NEXT", align="L")
            pdf.set_xy(self.MARGIN + key_width, y)
            pdf.set_font("Sans", "", 8.5)
            self.color("ink")
            pdf.multi_cell(self.width - key_width, line, value, new_x="LMARGIN", new_y="NEXT", align="L")
            pdf.set_y(y + height + 1.0)
        pdf.ln(2)


def render_pdf(report: Report) -> bytes:
    """The report as an A4 PDF (fpdf2): the same sections, tables and figures as the HTML."""
    return _PdfWriter(report).write()


# ================================================================ writing


def default_out(path: str | Path, other: str | Path | None = None) -> Path:
    """``reports/NAME``: the run or sweep directory's name (``A-vs-B`` for a diff)."""
    name = Path(path).resolve().name
    if other is not None:
        name = f"{name}-vs-{Path(other).resolve().name}"
    return Path("reports") / name


def write_report(report: Report, out_dir: str | Path, html_file: bool = True, pdf_file: bool = True) -> list[Path]:
    """Write ``OUT/report.html`` and/or ``OUT/report.pdf``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        if html_file:
            target = out / HTML_NAME
            target.write_text(render_html(report), encoding="utf-8")
            written.append(target)
        if pdf_file:
            target = out / PDF_NAME
            target.write_bytes(render_pdf(report))
            written.append(target)
    finally:
        report.close()
    return written


__all__ = [
    "Block", "Bullets", "Change", "Code", "Column", "Facts", "Flag", "Flags", "Heading", "Paragraph", "Plot",
    "Report", "Section", "Table", "analyse_run", "analyse_sweep", "build_diff_report", "build_report",
    "build_run_report", "build_sweep_report", "config_text", "default_out", "flatten", "kind_of", "render_html",
    "render_pdf", "running_estimate", "seat_tests", "target_band", "unpaired_change", "unpaired_mean_change",
    "write_report",
]
