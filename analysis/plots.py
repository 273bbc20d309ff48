"""The report's figures: one function per figure, each returning a matplotlib Figure.

Every function takes plain numbers (polars tables from :mod:`analysis.stats`,
or arrays) and draws them; none computes a statistic. One style for all of
them (:data:`STYLE`): a white background, light horizontal grid, no top or
right frame, 9-point text at the width of a printed A4 column
(:data:`WIDTH` inches), so the same figure reads the same in the HTML report
and in the PDF. Printed in grey, series still differ: the palette steps in
lightness (dark navy, orange, green, plum), and markers, line styles and
hatches differ too. Intervals are always drawn, never only the estimate.

The backend is Agg (no display needed).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from analysis.stats import ELO_PER_LOGIT  # noqa: E402

WIDTH = 6.8  # inches: the text width of an A4 page with 18 mm margins
INK = "#1d2433"
MUTED = "#5b6475"
GRID = "#d9dde5"
BAND = "#e3e7ee"
# Steps in lightness so that series stay apart in grey: navy, orange, green, plum, grey.
PALETTE = ("#1f3b73", "#e8932a", "#3c8d66", "#8c4f92", "#8a8f99", "#b8455a")
MARKERS = ("o", "s", "^", "D", "v", "P")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)))
HATCHES = ("", "///", "...", "xx", "\\\\", "++")
FAIR = "#b8455a"

STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.titlepad": 8,
    "axes.labelsize": 9,
    "axes.labelcolor": INK,
    "axes.edgecolor": MUTED,
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.axisbelow": True,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "grid.color": GRID,
    "grid.linewidth": 0.7,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "xtick.labelcolor": INK,
    "ytick.labelcolor": INK,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8.5,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "errorbar.capsize": 3,
    "hatch.color": "white",
    "hatch.linewidth": 0.8,
    "text.color": INK,
    "svg.fonttype": "path",
}

# Light (balanced) to dark (far from the fair share): monotonic in lightness, so it prints in grey.
GAP_CMAP = LinearSegmentedColormap.from_list("glade_gap", ["#f4f6fa", "#9fb3d1", "#3d5a8c", "#14244a"])


def _figure(height: float, ncols: int = 1, nrows: int = 1, width: float = WIDTH, **kwargs) -> tuple[Figure, np.ndarray]:
    with plt.rc_context(STYLE):
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False, **kwargs)
    fig.set_layout_engine("constrained", h_pad=0.06, w_pad=0.06)
    return fig, axes


def _styled(function):
    """Run a plotting function under :data:`STYLE` (rc parameters apply when artists are made)."""

    def wrapper(*args, **kwargs):
        with plt.rc_context(STYLE):
            return function(*args, **kwargs)

    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    wrapper.__wrapped__ = function
    return wrapper


def _tick_decimals(target) -> int:
    """Decimals that write every major tick of ``target`` (in percent) exactly: 2 for steps of 0.25 points, 1 for
    2.5, 0 for 5 or 20 (at most 4)."""
    ticks = np.asarray(target.get_majorticklocs(), dtype=float) * 100
    step = float(np.min(np.diff(ticks))) if ticks.size > 1 else 1.0
    for digits in range(5):
        if np.allclose(np.round(ticks, digits), ticks, rtol=0, atol=1e-6 * max(step, 1e-12)):
            return digits
    return 4


def _pct_axis(ax, axis: str = "x") -> None:
    """Percent ticks with as many decimals as the tick step needs (20%, 2.5% or 50.5%), never more."""
    target = ax.xaxis if axis == "x" else ax.yaxis

    def label(value: float, _position: int) -> str:
        return f"{100 * value:.{_tick_decimals(target)}f}%"

    target.set_major_formatter(matplotlib.ticker.FuncFormatter(label))


def _points_axis(ax, axis: str = "x") -> None:
    """Signed percentage points (a share 0.025 shows as +2.5), with as many decimals as the tick step needs."""
    target = ax.xaxis if axis == "x" else ax.yaxis

    def label(value: float, _position: int) -> str:
        text = f"{100 * value:+.{_tick_decimals(target)}f}"
        return "0" if float(text) == 0 else text

    target.set_major_formatter(matplotlib.ticker.FuncFormatter(label))


class _PlainLogFormatter(matplotlib.ticker.LogFormatter):
    """A log axis's labels as plain numbers with thousands separators (20, 300, 5,000), never 2x10^1; which
    ticks get a label is matplotlib's choice (minor ticks only when the axis spans few decades)."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        return f"{x:,.0f}" if x >= 1 else f"{x:g}"


def clipped_texts(figure: Figure, tolerance: float = 1.0) -> list[str]:
    """The visible texts of ``figure`` that reach outside it (by more than ``tolerance`` pixels): what a saved
    image would cut off, such as a note wider than the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = figure.canvas if hasattr(figure.canvas, "get_renderer") else FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    undrawn = set()  # tick labels of ticks outside the view: matplotlib keeps them but does not draw them
    for ax in figure.axes:
        for axis, coordinate in ((ax.xaxis, 0), (ax.yaxis, 1)):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1.0)
            undrawn |= {id(t) for t in axis.get_ticklabels(which="both")
                        if not low - slack <= t.get_position()[coordinate] <= high + slack}
    found = []
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in undrawn:
            continue
        box = text.get_window_extent(renderer)
        if box.x0 < -tolerance or box.y0 < -tolerance or box.x1 > width + tolerance or box.y1 > height + tolerance:
            found.append(text.get_text())
    return found


def fit_labels(figure: Figure, rounds: int = 3) -> Figure:
    """Wrap each axes' title and x label that would run past the figure's edge onto as many lines as it needs
    (a left-aligned title from where it starts, a centred label around its centre), then lay out again."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = figure.canvas if hasattr(figure.canvas, "get_renderer") else FigureCanvasAgg(figure)
    for _ in range(rounds):
        canvas.draw()
        renderer = canvas.get_renderer()
        width = figure.bbox.width
        changed = False
        for ax in figure.axes:
            for text in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label):
                content = text.get_text()
                if not content.strip() or not text.get_visible():
                    continue
                box = text.get_window_extent(renderer)
                if box.x0 >= -1 and box.x1 <= width + 1:
                    continue
                centre = (box.x0 + box.x1) / 2
                room = {"left": width - max(box.x0, 0.0), "right": box.x1 if box.x1 <= width else width,
                        "center": 2 * min(centre, width - centre)}[text.get_horizontalalignment()]
                longest = max(len(line) for line in content.split("\n"))
                chars = max(12, int(longest * 0.96 * room / max(box.width, 1.0)))
                text.set_text("\n".join(textwrap.fill(line, chars) for line in content.split("\n")))
                changed = True
        if not changed:
            break
    return figure


def _grid_x(ax) -> None:
    ax.grid(False, axis="y")
    ax.grid(True, axis="x")


def _empty(ax, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color=MUTED)
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def _interval_label(rate: float, low: float, high: float, digits: int = 1) -> str:
    if not np.isfinite(rate):
        return "n/a (no games)"
    return f"{100 * rate:.{digits}f}%  [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def _forest(ax, labels: Sequence[str], values, lows, highs, reference: float | None, colors=None,
            annotate: Sequence[str] | None = None, markers=None, unit: bool = False) -> None:
    """Horizontal estimates with intervals, the first label on top."""
    n = len(labels)
    y = np.arange(n)[::-1]
    values, lows, highs = (np.asarray(v, dtype=float) for v in (values, lows, highs))
    for i in range(n):
        color = colors[i] if colors is not None else PALETTE[0]
        marker = markers[i] if markers is not None else "o"
        if np.isfinite(lows[i]) and np.isfinite(highs[i]):
            ax.plot([lows[i], highs[i]], [y[i], y[i]], color=color, lw=2.2, solid_capstyle="butt")
            ax.plot([lows[i]] * 2, [y[i] - 0.15, y[i] + 0.15], color=color, lw=1.2)
            ax.plot([highs[i]] * 2, [y[i] - 0.15, y[i] + 0.15], color=color, lw=1.2)
        if np.isfinite(values[i]):
            ax.plot(values[i], y[i], marker=marker, color=color, markersize=6.5, markeredgecolor="white",
                    markeredgewidth=0.8, zorder=3)
    if reference is not None:
        ax.axvline(reference, color=FAIR, ls="--", lw=1.1, zorder=1)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, n - 0.3)
    _grid_x(ax)
    ax.tick_params(axis="y", length=0)
    if annotate is not None:
        finite = np.r_[highs[np.isfinite(highs)], values[np.isfinite(values)]]
        right = float(finite.max()) if finite.size else 1.0
        left = float(np.nanmin(np.r_[lows[np.isfinite(lows)], values[np.isfinite(values)], [right]]))
        if reference is not None:
            left, right = min(left, reference), max(right, reference)
        span = max(right - left, 1e-9)
        ax.set_xlim(left - 0.08 * span, right + 0.62 * span)
        for i in range(n):
            x = highs[i] if np.isfinite(highs[i]) else values[i]
            if np.isfinite(x):
                ax.text(x + 0.04 * span, y[i], annotate[i], va="center", fontsize=8, color=INK)
    if unit:  # a share: no tick beyond 0% or 100%, even where the axis runs on for the labels
        limits = ax.get_xlim()
        ax.set_xticks([t for t in ax.get_xticks() if -1e-9 <= t <= 1 + 1e-9])
        ax.set_xlim(limits)


# ---------------------------------------------------------------- runs


@_styled
def seat_win_rates(seats: pl.DataFrame, fair: float, what: str = "first-place share",
                   note: str | None = None, method: str = "Wilson 95%") -> Figure:
    """Per seat: ``share`` with ``share_low``/``share_high`` (their ``method``), and the fair share 1/players."""
    n = seats.height
    fig, axes = _figure(0.55 + 0.42 * n + (0.25 if note else 0))
    ax = axes[0, 0]
    labels = [f"seat {s}" for s in seats["seat"]]
    rates, lows, highs = (seats[c].to_numpy() for c in ("share", "share_low", "share_high"))
    _forest(ax, labels, rates, lows, highs, fair, colors=[PALETTE[i % len(PALETTE)] for i in range(n)],
            annotate=[_interval_label(r, lo, hi) for r, lo, hi in zip(rates, lows, highs)],
            markers=[MARKERS[i % len(MARKERS)] for i in range(n)], unit=True)
    _pct_axis(ax)
    ax.set_title(f"Win rate by seat ({what}), {method}")
    ax.set_xlabel(f"dashed line: fair share {100 * fair:.1f}%" + (f"; {note}" if note else ""), color=MUTED,
                  fontsize=8)
    return fig


@_styled
def convergence(games: np.ndarray, rate: np.ndarray, low: np.ndarray, high: np.ndarray, fair: float,
                label: str = "seat 0 win rate", reference_label: str = "fair share",
                xlabel: str = "games played (in game order)", band: str = "Wilson 95% (pointwise)") -> Figure:
    """The running estimate (and its pointwise interval) after each number of games."""
    fig, axes = _figure(2.8)
    ax = axes[0, 0]
    ax.fill_between(games, low, high, color=PALETTE[0], alpha=0.18, lw=0, label=band)
    ax.plot(games, rate, color=PALETTE[0], lw=1.6, label=label)
    ax.axhline(fair, color=FAIR, ls="--", lw=1.1, label=f"{reference_label} {100 * fair:.1f}%")
    if games.size and games.max() / max(games.min(), 1) > 20:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(_PlainLogFormatter())
        ax.xaxis.set_minor_formatter(_PlainLogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.4)))
    if games.size and games.max() > games.min():
        ax.set_xlim(games.min(), games.max())
    _pct_axis(ax, "y")
    ax.set_xlabel(xlabel)
    ax.set_title(f"Convergence of the {label}")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    top = max(float(np.nanmax(high)) if high.size else fair, fair)
    bottom = min(float(np.nanmin(low)) if low.size else fair, fair)
    pad = 0.08 * max(top - bottom, 0.02)
    ax.set_ylim(max(0.0, bottom - pad), min(1.0, top + pad))
    return fig


def _counted(group: np.ndarray | tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """A group of values, or of distinct values with how often each occurred, as (values, counts)."""
    if isinstance(group, tuple):
        return np.asarray(group[0], dtype=np.float64), np.asarray(group[1], dtype=np.float64)
    values, counts = np.unique(np.asarray(group, dtype=np.float64), return_counts=True)
    return values, counts.astype(np.float64)


def _distribution(ax, groups: Sequence[tuple[str, np.ndarray | tuple[np.ndarray, np.ndarray]]], xlabel: str,
                  panels: int = 1) -> None:
    counted = [(label, *_counted(group)) for label, group in groups]
    values = np.concatenate([v[c > 0] for _, v, c in counted]) if counted else np.array([])
    if values.size == 0:
        _empty(ax, "no games")
        return
    discrete = np.allclose(values, np.round(values)) and np.unique(values).size <= 80
    edges = None if discrete else np.histogram_bin_edges(values, bins=40)
    for i, (label, group, counts) in enumerate(counted):
        color, style = PALETTE[i % len(PALETTE)], LINESTYLES[i % len(LINESTYLES)]
        total = max(float(counts.sum()), 1.0)
        mean = float((group * counts).sum() / total)
        if discrete:
            ax.plot(group, counts / total, color=color, ls=style, marker=MARKERS[i % len(MARKERS)], markersize=3.2,
                    label=f"{label} (mean {mean:.2f})")
        else:
            histogram, _ = np.histogram(group, bins=edges, weights=counts)
            ax.stairs(histogram / total, edges, color=color, ls=style, lw=1.6, label=f"{label} (mean {mean:.2f})")
        ax.axvline(mean, color=color, ls=style, lw=0.9, alpha=0.8)
    _pct_axis(ax, "y")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of seat-games")
    if discrete:
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=7, integer=True))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=1 if len(groups) > 2 or panels > 1 else 2)


@_styled
def score_distributions(by_seat: Sequence[tuple[str, np.ndarray | tuple[np.ndarray, np.ndarray]]],
                        by_bot: Sequence[tuple[str, np.ndarray | tuple[np.ndarray, np.ndarray]]] | None = None
                        ) -> Figure:
    """Final scores per seat (and per bot, if there are several): share of seat-games at each score. A group is
    its scores, or (distinct scores, seat-games at each) as a run's tally holds them."""
    panels = [("by seat", by_seat)] + ([("by bot", by_bot)] if by_bot else [])
    fig, axes = _figure(3.1, ncols=len(panels), sharey=True)
    for ax, (title, groups) in zip(axes[0], panels):
        _distribution(ax, groups, "final score", len(panels))
        ax.set_title(f"Score distribution {title}")
    for ax in axes[0][1:]:
        ax.set_ylabel("")
    return fig


@_styled
def game_length(histogram: pl.DataFrame, target: Sequence[float] | None, median: float, q1: float,
                q3: float, turn_cap: float | None = None, players: int = 2) -> Figure:
    """Games per number of turns (every seat's turns counted), the designer's target band shaded, the median and
    quartiles marked."""
    fig, axes = _figure(2.9)
    ax = axes[0, 0]
    turns = histogram["turns"].to_numpy()
    share = histogram["games"].to_numpy() / max(int(histogram["games"].sum()), 1)
    if target is not None:
        ax.axvspan(target[0] - 0.5, target[1] + 0.5, color=BAND, lw=0, zorder=0,
                   label=f"target {target[0]:g}\u2013{target[1]:g} turns")
    inside = np.ones_like(turns, dtype=bool) if target is None else (turns >= target[0]) & (turns <= target[1])
    ax.bar(turns[inside], share[inside], width=0.85, color=PALETTE[0], lw=0, label="games" if target is None
           else "games inside the band")
    if target is not None and (~inside).any():
        ax.bar(turns[~inside], share[~inside], width=0.85, color=PALETTE[1], hatch="///", lw=0,
               label="games outside the band")
    ax.axvline(median, color=INK, lw=1.3, label=f"median {median:g}")
    ax.axvline(q1, color=INK, lw=0.9, ls=":", label=f"quartiles {q1:g} / {q3:g}")
    ax.axvline(q3, color=INK, lw=0.9, ls=":")
    _pct_axis(ax, "y")
    ax.set_xlabel({1: "turns", 2: "turns (both players' turns)"}.get(players, f"turns (all {players} players' turns)"))
    ax.set_ylabel("share of games")
    ax.set_title("Game length")
    cap = length_cap(histogram, turn_cap=turn_cap, keep=target[1] if target is not None else None)
    longest = turns.max() if cap is None else cap
    low = min(turns.min(), target[0] if target is not None else turns.min()) - 1.5
    high = max(longest, target[1] if target is not None else longest) + 1.5
    ax.set_xlim(low, high)
    ax.set_ylim(0, share.max() * 1.08 if share.size else 1)
    if cap is not None:
        ax.text(1.0, 1.0, f"cut at {cap:g} turns \u2192", transform=ax.transAxes, ha="right", va="bottom",
                fontsize=8, color=MUTED)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    handles, labels = ax.get_legend_handles_labels()
    if target is not None:
        handles[0] = Rectangle((0, 0), 1, 1, facecolor=BAND, edgecolor=MUTED, lw=0.6)
    fig.legend(handles, labels, loc="outside lower center", ncols=3)
    return fig


TAIL_QUANTILE = 0.99  # length figures cut their axis here when games run longer (a turn cap's stalls)


def length_cap(*histograms: pl.DataFrame, quantile: float = TAIL_QUANTILE, turn_cap: float | None = None,
               keep: float | None = None) -> float | None:
    """The turns at ``quantile`` of the games of ``histograms`` (``turns``, ``games``) together, or ``keep`` (a
    target band's end) if that is further, where a length figure cuts its axis; None when no game is longer
    (nothing to cut). Games at ``turn_cap`` (the config's turn limit: stalls, which end there) are left out of
    the quantile: a few percent of stalls would otherwise put it at the cap itself."""
    frames = [h for h in histograms if h is not None and h.height]
    if not frames:
        return None
    joined = pl.concat([h.select(pl.col("turns").cast(pl.Float64), pl.col("games").cast(pl.Float64))
                        for h in frames]).group_by("turns").agg(pl.col("games").sum()).sort("turns")
    longest = float(joined["turns"].max())
    if turn_cap is not None:
        joined = joined.filter(pl.col("turns") < turn_cap)
        if not joined.height:
            return None
    turns, games = joined["turns"].to_numpy(), joined["games"].to_numpy()
    cumulative = np.cumsum(games) / games.sum()
    cap = max(float(turns[min(int(np.searchsorted(cumulative, quantile)), turns.size - 1)]), keep or -np.inf)
    return cap if longest > cap else None


def length_cap_note(cap: float | None, *histograms: pl.DataFrame) -> str:
    """The caption's sentence on a cut axis: where, and how many games lie beyond it (up to the longest)."""
    if cap is None:
        return ""
    frames = [h for h in histograms if h is not None and h.height]
    games = sum(float(h["games"].sum()) for h in frames)
    beyond = sum(float(h.filter(pl.col("turns") > cap)["games"].sum()) for h in frames)
    longest = max(float(h["turns"].max()) for h in frames)
    return (f" The turns axis is cut at {cap:g} turns (the {100 * TAIL_QUANTILE:g}th percentile of the games that "
            f"did not stall, or further to keep the target band and a sweep's quartiles in view): {100 * beyond / games:.1f}% of the games "
            f"are longer, up to {longest:g}.")


@_styled
def end_reasons(ends: pl.DataFrame) -> Figure:
    """Share of games per end reason (``end``, ``share``, ``share_low``, ``share_high``), Wilson intervals."""
    n = ends.height
    fig, axes = _figure(0.6 + 0.36 * max(n, 1))
    ax = axes[0, 0]
    if n == 0:
        _empty(ax, "no games")
        return fig
    y = np.arange(n)[::-1]
    share = ends["share"].to_numpy()
    low, high = ends["share_low"].to_numpy(), ends["share_high"].to_numpy()
    colors = [FAIR if str(e) == "stall" else PALETTE[0] for e in ends["end"]]
    hatches = ["///" if str(e) == "stall" else "" for e in ends["end"]]
    bars = ax.barh(y, share, height=0.6, color=colors, lw=0)
    for bar, hatch in zip(bars, hatches):
        bar.set_hatch(hatch)
    ax.errorbar(share, y, xerr=np.clip([share - low, high - share], 0, None), fmt="none", ecolor=INK, elinewidth=1, capsize=3)
    for yi, s, lo, hi in zip(y, share, low, high):
        ax.text(hi + 0.015, yi, _interval_label(s, lo, hi), va="center", fontsize=8)
    ax.set_yticks(y, [str(e) for e in ends["end"]])
    ax.tick_params(axis="y", length=0)
    ax.set_xlim(0, 1.32)
    ax.set_xticks(np.linspace(0, 1, 6))
    _pct_axis(ax)
    _grid_x(ax)
    ax.set_title("Why games ended (share of games, Wilson 95%)")
    return fig


@_styled
def component_strength(table: pl.DataFrame, component: str, use_low: np.ndarray, use_high: np.ndarray,
                       used_low: np.ndarray, used_high: np.ndarray, not_low: np.ndarray,
                       not_high: np.ndarray) -> Figure:
    """Per component (and bot): use rate, and win rate when used vs not used, each with a Wilson interval.

    ``table`` is :func:`analysis.stats.component_strength`'s (with a ``bot``
    column if it was split by bot); the intervals are passed in, in its order.
    """
    n = table.height
    fig, axes = _figure(1.2 + 0.3 * max(n, 1), ncols=2, sharey=True, width_ratios=[1, 1.35])
    left, right = axes[0]
    if n == 0:
        _empty(left, "no components recorded")
        _empty(right, "")
        return fig
    has_bot = "bot" in table.columns and table["bot"].n_unique() > 1
    labels = [f"{row['bot']}: {row[component]}" if has_bot else str(row[component]) for row in table.to_dicts()]
    y = np.arange(n)[::-1].astype(float)
    bots = table["bot"].to_list() if "bot" in table.columns else ["" for _ in range(n)]
    order = {b: i for i, b in enumerate(dict.fromkeys(bots))}
    colors = [PALETTE[order[b] % len(PALETTE)] for b in bots]
    use = table["use_rate"].to_numpy()
    left.barh(y, use, height=0.62, color=colors, lw=0)
    left.errorbar(use, y, xerr=np.clip([use - use_low, use_high - use], 0, None), fmt="none", ecolor=INK, elinewidth=0.9, capsize=2)
    left.set_xlim(0, 1.02)
    left.set_xlabel("share of seat-games (Wilson 95%)")
    _pct_axis(left)
    _grid_x(left)
    left.set_yticks(y, labels)
    left.tick_params(axis="y", length=0)
    left.set_title("Use rate")
    for rate, lo, hi, offset, marker, fill, name in (
        (table["win_used"].to_numpy(), used_low, used_high, 0.17, "o", True, "when used"),
        (table["win_not_used"].to_numpy(), not_low, not_high, -0.17, "s", False, "when not used"),
    ):
        for i in range(n):
            if not np.isfinite(rate[i]):
                continue
            right.plot([lo[i], hi[i]], [y[i] + offset] * 2, color=colors[i], lw=1.6)
            right.plot(rate[i], y[i] + offset, marker=marker, color=colors[i], markersize=5.5,
                       markerfacecolor=colors[i] if fill else "white", markeredgewidth=1.2)
        right.plot([], [], marker=marker, color=INK, markerfacecolor=INK if fill else "white", ls="none",
                   label=f"win rate {name}")
    for i in range(n):
        if table["dominant"][i] or table["unused"][i]:
            right.text(1.01, y[i], "dominant?" if table["dominant"][i] else "unused", transform=right.get_yaxis_transform(),
                       va="center", fontsize=7.5, color=FAIR, fontweight="bold")
    right.set_xlim(-0.02, 1.02)
    right.set_xlabel("win rate of those seat-games (Wilson 95%)")
    _pct_axis(right)
    _grid_x(right)
    right.tick_params(axis="y", length=0)
    right.set_title("Win rate: used vs not used")
    fig.legend(*right.get_legend_handles_labels(), loc="outside lower center", ncols=2)
    left.set_ylim(-0.7, n - 0.3)
    return fig


@_styled
def skill_gradient(pairwise: pl.DataFrame, ratings: pl.DataFrame, reference: str) -> Figure:
    """Pairwise points shares (per-deal t intervals) and Bradley-Terry ratings (Elo, t 95%)."""
    n_pairs, n_bots = pairwise.height, ratings.height
    rows = max(n_pairs, n_bots)
    fig, axes = _figure(1.2 + 0.42 * rows, ncols=2, width_ratios=[1.3, 1])
    left, right = axes[0]
    labels = [f"{a} vs {b}" for a, b in zip(pairwise["bot_a"], pairwise["bot_b"])]
    share, low, high = (pairwise[c].to_numpy() for c in ("share", "share_low", "share_high"))
    _forest(left, labels, share, low, high, 0.5, annotate=[_interval_label(s, lo, hi) for s, lo, hi in
                                                          zip(share, low, high)], unit=True)
    _pct_axis(left)
    left.set_title("Bot A's share of points vs bot B")
    left.set_xlabel("dashed line: 50% (no skill difference)", color=MUTED, fontsize=8)
    ordered = ratings.sort("rating", descending=True)
    elo = ordered["elo"].to_numpy()
    low_e, high_e = ordered["low"].to_numpy() * ELO_PER_LOGIT, ordered["high"].to_numpy() * ELO_PER_LOGIT
    _forest(right, [f"{b} (reference)" if b == reference else f"{b}  {e:+.0f}" for b, e in zip(ordered["bot"], elo)],
            elo, low_e, high_e, 0.0, colors=[PALETTE[i % len(PALETTE)] for i in range(n_bots)])
    right.set_title("Rating (Elo, 95%)")
    right.set_xlabel(f"Elo relative to {reference}")
    return fig


# ---------------------------------------------------------------- sweeps


@_styled
def cell_balance(cells: Sequence[str], share: np.ndarray, low: np.ndarray, high: np.ndarray, fair: float | None,
                 diff: np.ndarray, diff_low: np.ndarray, diff_high: np.ndarray, baseline: str,
                 seat: int = 0, relative: bool = False, solitaire: bool = False) -> Figure:
    """Per cell: seat ``seat``'s first-place share (Wilson) and its paired change against the baseline.

    ``relative``: the shares are given less each cell's fair share (cells of different player counts).
    ``solitaire``: the shares are the player's win rates (no fair share).
    """
    n = len(cells)
    fig, axes = _figure(1.0 + 0.34 * n, ncols=2, sharey=True, width_ratios=[1, 1])
    left, right = axes[0]
    colors = [FAIR if c == baseline else PALETTE[0] for c in cells]
    markers = ["D" if c == baseline else "o" for c in cells]
    _forest(left, [f"{c}{' (baseline)' if c == baseline else ''}" for c in cells], share, low, high, fair,
            colors=colors, markers=markers)
    if solitaire:
        _pct_axis(left)
        left.set_title("Solitaire win rate", fontsize=9.5)
        left.set_xlabel("Wilson 95%", color=MUTED, fontsize=8)
    elif relative:
        _points_axis(left)
        left.set_title(f"Seat {seat} share less the fair share", fontsize=9.5)
        left.set_xlabel("points; Wilson 95%; fair share = 1 / players of the cell", color=MUTED, fontsize=8)
    else:
        _pct_axis(left)
        left.set_title(f"Seat {seat} share", fontsize=9.5)
        left.set_xlabel(f"Wilson 95%; dashed: fair share {100 * fair:.0f}%", color=MUTED, fontsize=8)
    _forest(right, [c for c in cells], diff, diff_low, diff_high, 0.0, colors=colors, markers=markers)
    _points_axis(right)
    right.set_title("Change vs baseline", fontsize=9.5)
    right.set_xlabel("points, paired 95% interval", color=MUTED, fontsize=8)
    return fig


def _text_color(rgba) -> str:
    r, g, b = rgba[:3]
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.55 else INK


def _wrapped(label: str, width: int = 14) -> str:
    """A long tick label broken at its separators (or every ``width`` characters) onto short lines."""
    label = str(label)
    if len(label) <= width:
        return label
    parts, line = [], ""
    for piece in label.replace(",", ", ").replace("+", "+ ").split(" "):
        if line and len(line) + len(piece) > width:
            parts.append(line)
            line = ""
        line += piece
    parts.append(line)
    return "\n".join(p if len(p) <= 2 * width else p[: 2 * width - 1] + "\u2026" for p in parts)


@_styled
def sweep_heatmap(values: np.ndarray, annotations: Sequence[Sequence[str]], row_labels: Sequence[str],
                  col_labels: Sequence[str], row_axis: str, col_axis: str, baseline: tuple[int, int] | None,
                  colorbar_label: str) -> Figure:
    """A two-key grid: cell colour = |gap| from the fair share (light = balanced), annotated with the values."""
    rows, cols = values.shape
    fig, axes = _figure(1.3 + 0.72 * rows, width=min(WIDTH, 2.4 + 1.5 * cols))
    ax = axes[0, 0]
    vmax = max(float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 0.05, 0.05)
    image = ax.imshow(np.abs(values), cmap=GAP_CMAP, vmin=0, vmax=vmax, aspect="auto")
    for i in range(rows):
        for j in range(cols):
            color = _text_color(image.cmap(image.norm(abs(values[i, j])))) if np.isfinite(values[i, j]) else INK
            ax.text(j, i, annotations[i][j], ha="center", va="center", fontsize=8, color=color, linespacing=1.35)
    if baseline is not None:
        ax.add_patch(Rectangle((baseline[1] - 0.5, baseline[0] - 0.5), 1, 1, fill=False, lw=2.4, ec=FAIR))
    # The axis names once, the values on the ticks: "objectives.brown=B1" on every column overlapped.
    ax.set_xticks(range(cols), [_wrapped(c) for c in col_labels], rotation=0 if cols <= 6 else 45,
                  ha="center" if cols <= 6 else "left")
    ax.set_yticks(range(rows), [_wrapped(r) for r in row_labels])
    ax.xaxis.tick_top()
    ax.set_title(col_axis, fontsize=9, color=MUTED)
    ax.set_ylabel(row_axis, fontsize=9, color=MUTED)
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    bar = fig.colorbar(image, ax=ax, shrink=0.85, pad=0.02)
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{100 * v:.0f}"))
    bar.set_label(colorbar_label, fontsize=8)
    bar.outline.set_visible(False)
    if baseline is not None:
        ax.set_xlabel("outlined: the baseline cell", color=MUTED, fontsize=8)
    return fig


@_styled
def cell_turns(cells: Sequence[str], median: np.ndarray, q1: np.ndarray, q3: np.ndarray,
               minimum: np.ndarray, maximum: np.ndarray, target: Sequence[float] | None, baseline: str,
               cap: float | None = None) -> Figure:
    """Per cell: the median game length with its quartiles and range, over the target band; ``cap`` cuts the axis
    (the range lines run to its edge)."""
    n = len(cells)
    fig, axes = _figure(0.9 + 0.3 * n)
    ax = axes[0, 0]
    y = np.arange(n)[::-1]
    if target is not None:
        ax.axvspan(target[0], target[1], color=BAND, lw=0, zorder=0)
        ax.text(target[0], 1.0, f" target {target[0]:g}\u2013{target[1]:g}", transform=ax.get_xaxis_transform(),
                va="bottom", fontsize=8, color=MUTED)
    for i in range(n):
        color = FAIR if cells[i] == baseline else PALETTE[0]
        ax.plot([minimum[i], maximum[i]], [y[i]] * 2, color=color, lw=0.8, alpha=0.7)
        ax.plot([q1[i], q3[i]], [y[i]] * 2, color=color, lw=5, solid_capstyle="butt", alpha=0.55)
        ax.plot(median[i], y[i], marker="|", color=INK, markersize=12, markeredgewidth=2)
    if cap is not None and np.nanmax(maximum) > cap:
        ax.set_xlim(right=cap * 1.03 + 1)
        ax.text(1.0, 1.0, f"cut at {cap:g} turns \u2192", transform=ax.transAxes, ha="right", va="bottom",
                fontsize=8, color=MUTED)
    ax.set_yticks(y, [f"{c}{' (baseline)' if c == baseline else ''}" for c in cells])
    ax.tick_params(axis="y", length=0)
    _grid_x(ax)
    ax.set_xlabel("turns: median (tick), quartiles (bar), min to max (line)")
    ax.set_title("Game length per cell", pad=14)
    return fig


# ---------------------------------------------------------------- diffs


@_styled
def diff_seats(seats: Sequence[int], a: tuple[np.ndarray, np.ndarray, np.ndarray],
               b: tuple[np.ndarray, np.ndarray, np.ndarray], label_a: str, label_b: str, fair: float) -> Figure:
    """Per seat, run A's and run B's win rate with Wilson intervals, side by side."""
    n = len(seats)
    fig, axes = _figure(1.2 + 0.55 * n)
    ax = axes[0, 0]
    y = np.arange(n)[::-1].astype(float)
    for offset, (rate, low, high), label, color, marker in ((0.14, a, label_a, PALETTE[0], "o"),
                                                            (-0.14, b, label_b, PALETTE[1], "s")):
        for i in range(n):
            ax.plot([low[i], high[i]], [y[i] + offset] * 2, color=color, lw=2)
            ax.plot(rate[i], y[i] + offset, marker=marker, color=color, markersize=6, markeredgecolor="white")
        ax.plot([], [], marker=marker, color=color, label=label, lw=2)
    ax.axvline(fair, color=FAIR, ls="--", lw=1.1, label=f"fair share {100 * fair:.1f}%")
    ax.set_yticks(y, [f"seat {s}" for s in seats])
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(-0.7, n - 0.3)
    _grid_x(ax)
    _pct_axis(ax)
    ax.set_title("Win rate by seat, run A and run B (Wilson 95%)")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


@_styled
def diff_turns(hist_a: pl.DataFrame, hist_b: pl.DataFrame, label_a: str, label_b: str,
               target: Sequence[float] | None, turn_cap: float | None = None) -> Figure:
    """Game-length distributions of two runs (share of games per number of turns)."""
    fig, axes = _figure(2.9)
    ax = axes[0, 0]
    if target is not None:
        ax.axvspan(target[0] - 0.5, target[1] + 0.5, color=BAND, lw=0, zorder=0,
                   label=f"target {target[0]:g}\u2013{target[1]:g}")
    for i, (hist, label) in enumerate(((hist_a, label_a), (hist_b, label_b))):
        turns = hist["turns"].to_numpy()
        share = hist["games"].to_numpy() / max(int(hist["games"].sum()), 1)
        ax.plot(turns, share, color=PALETTE[i], ls=LINESTYLES[i], marker=MARKERS[i], markersize=3, label=label)
    cap = length_cap(hist_a, hist_b, turn_cap=turn_cap, keep=target[1] if target is not None else None)
    if cap is not None:
        low = min(float(hist_a["turns"].min()), float(hist_b["turns"].min()))
        high = max(cap, target[1] if target is not None else cap)
        ax.set_xlim(min(low, target[0] if target is not None else low) - 1.5, high + 1.5)
        ax.text(1.0, 1.0, f"cut at {cap:g} turns \u2192", transform=ax.transAxes, ha="right", va="bottom",
                fontsize=8, color=MUTED)
    _pct_axis(ax, "y")
    ax.set_xlabel("turns")
    ax.set_ylabel("share of games")
    ax.set_title("Game length, run A and run B")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


__all__ = [
    "STYLE", "TAIL_QUANTILE", "WIDTH", "ablation_changes", "length_cap", "length_cap_note", "cell_balance", "cell_turns", "component_strength", "convergence", "diff_seats",
    "diff_turns", "end_reasons", "game_length", "score_distributions", "seat_win_rates", "skill_gradient",
    "sweep_heatmap",
]


# ---------------------------------------------------------------- designer sections


@_styled
def score_sources(per_seat: pl.DataFrame, lead: pl.DataFrame | None, leader: int | None) -> Figure:
    """Left: each seat's mean points stacked by source. Right: the leader's lead per source with its interval.

    ``per_seat``: ``seat``, ``source``, ``mean``; ``lead``: ``source``, ``mean``, ``low``, ``high``.
    """
    seats = sorted(per_seat["seat"].unique().to_list())
    sources = list(dict.fromkeys(per_seat["source"].to_list()))
    panels = 2 if lead is not None else 1
    fig, axes = _figure(1.2 + 0.3 * max(len(seats), len(sources)), ncols=panels)
    ax = axes[0, 0]
    y = np.arange(len(seats))[::-1]
    left = np.zeros(len(seats))
    negative = np.zeros(len(seats))
    for i, source in enumerate(sources):
        part = per_seat.filter(pl.col("source") == source)
        values = np.array([float(part.filter(pl.col("seat") == s)["mean"][0]) for s in seats])
        start = np.where(values >= 0, left, negative + values)
        ax.barh(y, np.abs(values), left=start, color=PALETTE[i % len(PALETTE)],
                hatch=HATCHES[(i // len(PALETTE)) % len(HATCHES)],
                edgecolor="white", lw=0.5, label=source)
        left = left + np.where(values >= 0, values, 0)
        negative = negative + np.where(values < 0, values, 0)
    ax.set_yticks(y, [f"seat {s}" for s in seats])
    ax.axvline(0, color=MUTED, lw=0.8)
    _grid_x(ax)
    ax.set_title("Mean points per game by source")
    ax.set_xlabel("points", color=MUTED, fontsize=8)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncols=min(3, len(sources)), fontsize=7.5)
    if lead is not None:
        right = axes[0, 1]
        _forest(right, lead["source"].to_list(), lead["mean"], lead["low"], lead["high"], 0.0)
        right.set_title(f"Seat {leader}'s lead by source")
        right.set_xlabel("points a game over the others' mean, 95%", color=MUTED, fontsize=8)
    return fig


@_styled
def margin_distribution(distribution: pl.DataFrame) -> Figure:
    """Share of games per final margin (first place minus second; 0 = shared first place)."""
    fig, axes = _figure(2.5)
    ax = axes[0, 0]
    if not distribution.height:
        _empty(ax, "no game with a result")
        return fig
    margins = distribution["margin"].to_numpy()
    share = distribution["games"].to_numpy() / max(int(distribution["games"].sum()), 1)
    ax.bar(margins, share, width=0.85 * (np.min(np.diff(margins)) if margins.size > 1 else 1.0),
           color=[PALETTE[1] if m <= 0 else PALETTE[0] for m in margins], lw=0)
    _pct_axis(ax, "y")
    ax.set_xlabel("final margin: first place's score minus second place's (0: shared first place)")
    ax.set_ylabel("share of games")
    ax.set_title("Decisiveness: final margins")
    return fig


@_styled
def score_trajectories(bands: pl.DataFrame, what: str = "score", by: str = "seat") -> Figure:
    """Each seat's (``by="bot"``: each bot's) median ``what`` (line) and 25-75% band (shade) against the round
    (``bands`` of :func:`analysis.drama.score_bands` or :func:`analysis.drama.bot_bands`)."""
    fig, axes = _figure(2.6)
    ax = axes[0, 0]
    if not bands.height:
        _empty(ax, "no trajectories recorded")
        return fig
    for i, key in enumerate(bands[by].unique(maintain_order=True).to_list()):
        part = bands.filter(pl.col(by) == key).sort("round")
        rounds = part["round"].to_numpy()
        color = PALETTE[i % len(PALETTE)]
        ax.fill_between(rounds, part["q25"].to_numpy(), part["q75"].to_numpy(), color=color, alpha=0.18, lw=0)
        ax.plot(rounds, part["median"].to_numpy(), color=color, ls=LINESTYLES[i % len(LINESTYLES)],
                marker=MARKERS[i % len(MARKERS)], ms=3, label=f"seat {key}" if by == "seat" else str(key))
    ax.set_xlabel("round (a round ends when seat 0 is to move again; the last point of a game is its end)")
    ax.set_ylabel(what)
    ax.set_title(f"Score trajectories: median and 25-75% band per {by}")
    ax.legend(fontsize=8, frameon=False, ncol=min(4, bands[by].n_unique()))
    return fig


@_styled
def cell_drama(cells: Sequence[str], margin: tuple[np.ndarray, np.ndarray, np.ndarray],
               ties: tuple[np.ndarray, np.ndarray, np.ndarray], spread: tuple[np.ndarray, np.ndarray, np.ndarray],
               baseline: str, lead_changes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
               comebacks: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Figure:
    """Per cell: mean final margin, tie rate, the standard deviation of game length and (when the cells have
    trajectories) lead changes per game and the comeback rate, each with its interval; cells are named as the
    report names them."""
    n = len(cells)
    panels = [(margin, "Mean final margin", "points; 95%"), (ties, "Shared first places", "Wilson 95%"),
              (spread, "Game length sd", "turns; bootstrap 95%")]
    if lead_changes is not None:
        panels.append((lead_changes, "Lead changes a game", "95%, by deal"))
    if comebacks is not None:
        panels.append((comebacks, "Comebacks", "share of won games; 95%, by deal"))
    fig, axes = _figure(1.0 + 0.34 * n, ncols=len(panels), sharey=True)
    colors = [FAIR if c == baseline else PALETTE[0] for c in cells]
    markers = ["D" if c == baseline else "o" for c in cells]
    narrow = len(panels) > 3  # five panels share the width: titles and notes wrap, ticks shrink
    for k, (values, title, note) in enumerate(panels):
        ax = axes[0, k]
        _forest(ax, list(cells), *values, None, colors=colors, markers=markers)
        ax.set_title(textwrap.fill(title, 12) if narrow else title, fontsize=9.5)
        ax.set_xlabel(textwrap.fill(note, 14) if narrow else note, color=MUTED, fontsize=8)
        if narrow:
            ax.tick_params(axis="x", labelsize=7.5)
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(3))
    _pct_axis(axes[0, 1])
    if comebacks is not None:
        _pct_axis(axes[0, len(panels) - 1])
    return fig


@_styled
def skill_trace(strengths: Sequence[str], seats: Sequence[int], share: np.ndarray, low: np.ndarray,
                high: np.ndarray, fair: float, what: str) -> Figure:
    """Each seat's share (rows: seats, columns: strengths) with its interval against bot strength."""
    fig, axes = _figure(3.0)
    ax = axes[0, 0]
    x = np.arange(len(strengths), dtype=float)
    width = 0.5 / max(len(seats), 1)
    for i, seat in enumerate(seats):
        offset = (i - (len(seats) - 1) / 2) * width
        color = PALETTE[i % len(PALETTE)]
        ax.errorbar(x + offset, share[i], yerr=[share[i] - low[i], high[i] - share[i]], color=color,
                    marker=MARKERS[i % len(MARKERS)], ls=LINESTYLES[i % len(LINESTYLES)], capsize=3, lw=1.4,
                    label=f"seat {seat}")
    ax.axhline(fair, color=FAIR, ls="--", lw=1.1, label=f"fair share {100 * fair:.1f}%")
    ax.set_xticks(x, list(strengths))
    ax.grid(False, axis="x")
    _pct_axis(ax, "y")
    ax.set_xlabel("bot strength (every seat the same bot, the same deals)")
    ax.set_ylabel(what)
    ax.set_title("Skill trace: seat shares by bot strength")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncols=min(5, len(seats) + 1))
    return fig


@_styled
def ablation_changes(labels: Sequence[str], panels: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]]
                     ) -> Figure:
    """Paired changes (ablated minus baseline) with intervals, one panel per metric, one row per label."""
    fig, axes = _figure(1.0 + 0.45 * len(labels), ncols=len(panels), sharey=True)
    for ax, (title, value, low, high) in zip(axes[0], panels):
        _forest(ax, [textwrap.fill(label, 26) for label in labels], value, low, high, 0.0)
        ax.set_title(textwrap.fill(title, 16), fontsize=9.5)
        ax.tick_params(axis="x", labelsize=7.5)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
    return fig


# ---------------------------------------------------------------- sweep effects


@_styled
def response_curves(key: str, lines: Sequence[tuple[str, np.ndarray, Sequence[tuple[np.ndarray, np.ndarray,
                                                                                       np.ndarray]]]],
                    panels: Sequence[tuple[str, str, str, float | tuple[float, float] | None]],
                    crossings: Sequence[Sequence[float]] | None = None) -> Figure:
    """One panel per measure against a numeric sweep key: each line (a combination of the other keys) its cells'
    estimates with their intervals; the target dashed (a number) or shaded (a band); a crossing marked by a tick.

    ``lines``: ``(label, x, [(y, low, high) per panel])``; ``panels``: ``(title, axis note, format, target)``
    with format ``pct`` (shares), ``pts`` (shares less the fair share, in points) or ``num``; ``crossings``:
    per line, per panel, the crossing's value (NaN: none)."""
    fig, axes = _figure(2.9, ncols=len(panels))
    for k, (title, note, fmt, target) in enumerate(panels):
        ax = axes[0, k]
        if isinstance(target, tuple):
            ax.axhspan(target[0], target[1], color=BAND, lw=0, zorder=0)
        elif target is not None:
            ax.axhline(target, color=FAIR, ls="--", lw=1.1, zorder=1)
        for i, (label, x, values) in enumerate(lines):
            y, low, high = (np.asarray(v, dtype=float) for v in values[k])
            color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
            offset = (i - (len(lines) - 1) / 2) * 0.012 * (np.ptp(x) or 1.0)  # intervals side by side, not on top
            ax.errorbar(np.asarray(x, dtype=float) + offset, y,
                        yerr=np.clip([y - low, high - y], 0, None), color=color, marker=marker,
                        ls=LINESTYLES[i % len(LINESTYLES)], capsize=2.5, lw=1.3, ms=4.5,
                        label=label if k == 0 else None)
            value = crossings[i][k] if crossings is not None else float("nan")
            if np.isfinite(value):
                ax.axvline(value, color=color, ls=":", lw=1.0, ymax=0.12)
        ax.set_title(textwrap.fill(title, 24), fontsize=9.5)
        ax.set_xlabel(textwrap.fill(f"{key}; {note}", 30), color=MUTED, fontsize=8)
        ax.set_xticks(sorted({float(v) for _, x, _ in lines for v in x}))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        if fmt == "pct":
            _pct_axis(ax, "y")
        elif fmt == "pts":
            _points_axis(ax, "y")
    if len(lines) > 1:
        longest = max(len(label) for label, _, _ in lines)
        fits = max(1, int(WIDTH * 72 / (longest * 4.6 + 40)))  # an entry: about 4.6 pt a character, 40 pt of key
        fig.legend(loc="outside lower center", ncols=min(3, len(lines), fits), fontsize=8)
    return fit_labels(fig)


@_styled
def main_effects(labels: Sequence[str], panels: Sequence[tuple[str, pl.DataFrame, str]],
                 alpha: float = 0.05) -> Figure:
    """Each key's levels (``labels``, ``key: level``): their effect on each outcome with its interval, 0 dashed
    (the mean of all cells); ``panels``: ``(title, levels, format)`` where ``levels`` has ``effect``, ``low``,
    ``high``, ``p_holm`` in the labels' order and format is ``pts`` or ``num``; a level with ``p_holm < alpha`` is
    drawn in the accent colour."""
    n = len(labels)
    fig, axes = _figure(1.0 + 0.3 * n, ncols=len(panels), sharey=True)
    for ax, (title, levels, fmt) in zip(axes[0], panels):
        colors = [FAIR if p < alpha else PALETTE[0] for p in levels["p_holm"].to_numpy()]
        _forest(ax, list(labels), levels["effect"].to_numpy(), levels["low"].to_numpy(), levels["high"].to_numpy(),
                0.0, colors=colors)
        ax.set_title(textwrap.fill(title, 30), fontsize=9.5)
        if fmt == "pts":
            _points_axis(ax)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(5))
    return fit_labels(fig)


@_styled
def seat_gap(gap: pl.DataFrame, seat: int = 0, first: int | None = None) -> Figure:
    """Seat ``seat``'s mean lead over the other seats' mean at each round end (``gap`` of
    :func:`analysis.stats.trajectory.seat_gap`) with its 95% band; 0 dashed; ``first``: the first round whose
    interval excludes 0, marked."""
    fig, axes = _figure(2.5)
    ax = axes[0, 0]
    if not gap.height:
        _empty(ax, "no trajectories recorded")
        return fig
    rounds = gap["round"].to_numpy()
    ax.fill_between(rounds, gap["low"].to_numpy(), gap["high"].to_numpy(), color=PALETTE[0], alpha=0.2, lw=0,
                    label="95% by deal")
    ax.plot(rounds, gap["mean"].to_numpy(), color=PALETTE[0], marker="o", ms=3, label="mean gap")
    ax.axhline(0, color=FAIR, ls="--", lw=1.1)
    if first is not None:
        ax.axvline(first, color=MUTED, ls=":", lw=1.0)
        ax.annotate(f"round {first}: first clear", (first, 0), xytext=(4, 6), textcoords="offset points",
                    fontsize=8, color=MUTED)
    ax.set_xlabel("round (a round ends when seat 0 is to move again; the last point of a game is its end)")
    ax.set_ylabel("points")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_title(f"Seat gap: seat {seat}'s score less the other seats' mean, per round")
    ax.legend(fontsize=8, frameon=False, loc="upper left")
    return fit_labels(fig)
