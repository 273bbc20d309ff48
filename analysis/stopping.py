"""Play until sure enough: extend a run chunk by chunk until every seat's win rate is pinned down.

``glade play ... --until-ci 0.01`` plays the run's first ``--games`` deals,
then adds ``--batch-size x --jobs`` deals at a time, and after each step (a
*look*) computes every seat's win-rate interval. It stops as soon as the
largest half-width is at most the target, or when the run holds
``--max-games`` deals. Every step extends the same run directory, so the
result is an ordinary run (and can be resumed or extended like one).

The unit is the deal. Without seat rotation a deal is one game and a seat's
win rate is a proportion: Wilson interval (:func:`analysis.stats.max_half_width`).
With ``--rotate-seats`` the games of one deal share a seed and are not
independent: each deal gives every seat its share of the deal's games' first
places (the records' ``win``, shared first places included, as
``analysis.stats`` counts them), and the interval is a t interval of the mean
share over deals (:func:`t_half_width`).

Repeated looks at a fixed-level interval inflate its error: the chance that
*some* look excludes the true rate is well above 5%. ``--anytime`` stops on
a confidence sequence instead, valid at every look at once
(:func:`mixture_half_width`). Either way the rule, its looks and the outcome
are recorded in the run's manifest under ``stopping`` (:func:`stopping_record`).

Every interval is per seat at its level (95%), as the summary's are; the rule
stops when the widest is narrow enough, it does not make them simultaneous.
A seat whose per-deal share never varies (a bot that wins every game it
plays, in every rotation) has a t interval of width 0: the fixed-level rule
then stops at its first look, which is what those deals say.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click
import numpy as np
import polars as pl
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

from analysis.stats import CONFIDENCE, max_half_width
from sims.core.engine import GameConfig
from sims.core.spec import ConfigError
from sims.records import MANIFEST, MAX_DEALS, RECORDS, load_manifest, load_records, set_manifest_key
from sims.runner import RunSummary, run

FIXED = "fixed-level"
ANYTIME = "anytime"
SUB_GAUSSIAN_VARIANCE = 0.25  # Hoeffding's lemma: a variable in [0, 1] is sub-Gaussian with variance 1/4
_COLUMNS = ["deal", "seat", "win"]


# ---------------------------------------------------------------- the intervals


def deal_shares(records: pl.DataFrame) -> np.ndarray:
    """Per deal (rows, by deal) and seat (columns): the seat's share of the deal's games' first places.

    A first place is the records' ``win`` (shared ones included). With one
    game a deal the shares are 0 or 1; with ``r`` rotations, multiples of 1/r.
    """
    table = records.group_by("deal", "seat").agg(pl.col("win").cast(pl.Float64).mean()).sort("deal", "seat")
    seats = table["seat"].n_unique()
    return table["win"].to_numpy().reshape(-1, seats)


def t_half_width(shares: np.ndarray, confidence: float = CONFIDENCE) -> float:
    """The largest half-width over seats of the t interval of the mean per-deal share.

    ``statsmodels.stats.weightstats.DescrStatsW(shares).tconfint_mean``: one
    interval per column (seat), deals as independent observations. Fewer than
    two deals give infinity.
    """
    if shares.shape[0] < 2:
        return math.inf
    low, high = DescrStatsW(shares).tconfint_mean(alpha=1 - confidence)
    return float(np.max((np.asarray(high) - np.asarray(low)) / 2))


def mixture_rho(target: float, confidence: float = CONFIDENCE) -> float:
    """The mixture precision of :func:`mixture_half_width`, tuned for a run that ends near ``target``.

    Any ``rho > 0`` gives a valid confidence sequence; ``rho`` only decides
    where it is tightest. It is tuned for the intrinsic time ``v* = n* / 4``
    of ``n*`` deals, the deals a fixed-level normal interval at the
    worst-case variance 1/4 needs for ``target``:
    ``rho = v* / (2 log(1/alpha) + log(1 + 2 log(1/alpha)))``, one step of
    the fixed point that minimises the radius at ``v*`` (as confseq's
    ``best_rho``, Howard et al. 2021). It depends on the target and level
    only, never on the results.
    """
    alpha = 1 - confidence
    planned = (stats.norm.ppf(1 - alpha / 2) * math.sqrt(SUB_GAUSSIAN_VARIANCE) / target) ** 2
    log_term = 2 * math.log(1 / alpha)
    return SUB_GAUSSIAN_VARIANCE * planned / (log_term + math.log(1 + log_term))


def mixture_half_width(deals: int | np.ndarray, rho: float, confidence: float = CONFIDENCE) -> float | np.ndarray:
    """Half-width after ``deals`` deals of the two-sided normal-mixture confidence sequence for a mean in [0, 1].

    Method: Robbins' normal mixture (Robbins 1970, "Statistical methods
    related to the law of the iterated logarithm", Ann. Math. Statist. 41;
    in the form of Howard, Ramdas, McAuliffe and Sekhon 2021, "Time-uniform,
    nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2),
    two-sided normal-mixture boundary; confseq's conjugate-mixture Hoeffding
    confidence sequence). Each deal's share lies in [0, 1], so its centred
    sum ``S_n`` is sub-Gaussian with variance proxy ``v = n / 4`` (Hoeffding's
    lemma); mixing ``exp(l S_n - l^2 v / 2)`` over ``l ~ N(0, 1 / rho)`` gives
    a nonnegative supermartingale, and Ville's inequality bounds the chance
    that it ever exceeds ``1 / alpha``. Hence, with probability at least
    ``confidence``, at *every* n at once::

        |mean_n - mu| <= sqrt((v + rho) log((v + rho) / (rho alpha^2))) / n

    The width does not depend on the results (the worst-case variance is
    used), so it is conservative when rotated deals vary less than a coin
    flip; what it buys is an interval valid at whichever look the run stops.
    """
    alpha = 1 - confidence
    v = SUB_GAUSSIAN_VARIANCE * np.asarray(deals, dtype=np.float64)
    radius = np.sqrt((v + rho) * np.log((v + rho) / (rho * alpha**2))) / np.maximum(deals, 1)
    return float(radius) if np.ndim(radius) == 0 else radius


@dataclass(frozen=True)
class StoppingRule:
    """When ``play --until-ci`` stops: ``FIXED`` (Wilson, or t over deals) or ``ANYTIME`` (confidence sequence)."""

    name: str
    target: float
    confidence: float = CONFIDENCE

    @property
    def rho(self) -> float:
        return mixture_rho(self.target, self.confidence)

    def half_width(self, results: pl.DataFrame, rotations: int) -> float:
        """The largest seat half-width on ``results`` (columns deal, seat, win) of a run with ``rotations``."""
        if self.name == ANYTIME:
            return mixture_half_width(results["deal"].n_unique(), self.rho, self.confidence)
        if rotations == 1:
            return max_half_width(results, self.confidence)
        return t_half_width(deal_shares(results), self.confidence)

    def method(self, rotations: int) -> str:
        """The interval, as a report's methods section names it."""
        level = f"{100 * self.confidence:g}%"
        if self.name == ANYTIME:
            return (f"normal-mixture confidence sequence {level} (Robbins 1970; Howard et al. 2021), valid at every "
                    f"look: per-deal seat shares in [0, 1], sub-Gaussian variance 1/4, rho {self.rho:.4g}")
        if rotations == 1:
            return f"Wilson {level} per seat, one game a deal"
        return (f"t {level} of each seat's per-deal share of first places over deals "
                f"(statsmodels DescrStatsW.tconfint_mean), {rotations} rotated games a deal")


# ---------------------------------------------------------------- the record


def stopping_record(rule: StoppingRule, rotations: int, max_games: int | None, step: int,
                    looks: Sequence[dict], earlier: Sequence[dict] = ()) -> dict:
    """The manifest's ``stopping`` object: the rule, its looks and the outcome.

    ``looks`` are ``{"deals", "half_width"}`` after each step, in order;
    ``max_games`` is the cap in deals (``--max-games``, None for none);
    ``outcome`` is ``"reached"`` (the last look is at most the target),
    ``"max_games"`` (the cap was hit first) or ``"running"``. ``earlier``
    holds the records of earlier ``--until-ci`` calls with another rule or target.
    """
    last = looks[-1]
    reached = last["half_width"] <= rule.target
    capped = max_games is not None and last["deals"] >= max_games
    record = {
        "rule": rule.name,
        "method": rule.method(rotations),
        "confidence": rule.confidence,
        "unit": "deals",
        "target_half_width": rule.target,
        "max_games": max_games,
        "step": step,
        "looks": list(looks),
        "deals": last["deals"],
        "games": last["deals"] * rotations,
        "final_half_width": last["half_width"],
        "reached": reached,
        "outcome": "reached" if reached else "max_games" if capped else "running",
    }
    if rule.name == ANYTIME:
        record["rho"] = rule.rho
    if earlier:
        record["earlier"] = list(earlier)
    return record


def _held_looks(held: dict | None, rule: StoppingRule) -> tuple[list[dict], list[dict]]:
    """The looks an earlier call with the same rule took (they count), and earlier records of other rules."""
    if not held:
        return [], []
    earlier = list(held.get("earlier", []))
    same = (held.get("rule"), held.get("target_half_width"), held.get("confidence")) == (
        rule.name, rule.target, rule.confidence)
    if same:
        return list(held.get("looks", [])), earlier
    return [], earlier + [{k: v for k, v in held.items() if k != "earlier"}]


def describe_stopping(stopping: dict, deals: int | None = None) -> str:
    """A line for a summary: how the run's size was chosen (``stopping`` from the manifest).

    ``deals`` is what the run holds now: more than the rule stopped at means
    the run was extended afterwards, which the line says.
    """
    shown = f"{stopping['deals']:,} deals" + (
        f" ({stopping['games']:,} games)" if stopping.get("games", stopping["deals"]) != stopping["deals"] else "")
    looks = len(stopping.get("looks", []))
    how = f"({stopping['method']}; {looks} look{'s' if looks != 1 else ''})"
    width, target = stopping["final_half_width"], stopping["target_half_width"]
    if stopping["outcome"] == "reached":
        line = (f"until-ci: reached the target after {shown}: largest seat win-rate half-width "
                f"{width:.4f} <= {target:g} {how}")
    elif stopping["outcome"] == "max_games":
        line = (f"until-ci: stopped at --max-games {stopping['max_games']:,} after {shown} before reaching the "
                f"target: largest seat win-rate half-width {width:.4f} > {target:g} {how}")
    else:
        line = (f"until-ci: interrupted after {shown}: largest seat win-rate half-width {width:.4f} > "
                f"{target:g} {how}")
    if stopping["rule"] == FIXED and looks > 1:
        line += (f"; a fixed-level interval checked at {looks} looks covers less than "
                 f"{100 * stopping['confidence']:g}% (--anytime gives one valid at every look)")
    if deals is not None and deals > stopping["deals"]:
        line += f"; then extended to {deals:,} deals without the rule"
    return line


# ---------------------------------------------------------------- the loop


@dataclass
class UntilResult:
    """What :func:`play_until` did."""

    run: RunSummary = field(repr=False)  # the last step's summary
    target: float
    half_width: float  # largest seat half-width at the end, by the rule
    reached: bool  # half_width <= target
    deals: int  # deals in the run directory at the end
    games: int  # games (deals x seat rotations)
    max_games: int | None  # the deal cap
    played: int  # games played by this call
    seconds: float
    steps: list[tuple[int, float]]  # (deals, largest half-width) at each look of this call
    stopping: dict = field(repr=False)  # the manifest's ``stopping`` record

    @property
    def games_per_second(self) -> float | None:
        return self.played / self.seconds if self.played and self.seconds > 0 else None


def play_until(
    game_name: str,
    config: GameConfig,
    bot_labels: Sequence[str],
    players: int,
    seed: int,
    games: int,
    out_dir: str | Path,
    target: float,
    max_games: int | None = None,
    batch_size: int = 4096,
    jobs: int = 1,
    rotate_seats: bool = False,
    progress: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
    anytime: bool = False,
    trajectories: bool = False,
) -> UntilResult:
    """Play ``games`` deals, then ``batch_size * jobs`` more at a time, until the largest
    per-seat win-rate half-width is at most ``target`` or the run holds ``max_games``
    deals. A run directory that already holds more deals starts from those.

    The half-width is that of :class:`StoppingRule` (``anytime``: the
    confidence sequence; else Wilson, or t over deals with rotated seats). The
    manifest's ``stopping`` record is rewritten after every look.
    """
    if not 0 < target < 1:
        raise ConfigError("--until-ci", str(target), "a half-width between 0 and 1, such as 0.01", has_got=False)
    if max_games is not None and max_games < games:
        raise ConfigError("--max-games", str(max_games), f"at least --games ({games})", has_got=False)
    rule = StoppingRule(ANYTIME if anytime else FIXED, target)
    out = Path(out_dir)
    deals, held = games, None
    if (out / MANIFEST).exists():
        manifest = load_manifest(out)
        deals, held = max(deals, int(manifest.get("games", 0))), manifest.get("stopping")
    looks, earlier = _held_looks(held, rule)
    step = batch_size * jobs
    results: list[pl.DataFrame] = []  # (deal, seat, win) of every game so far
    steps: list[tuple[int, float]] = []
    played, seconds = 0, 0.0
    while True:
        new_chunks = []
        summary = run(game_name, config, bot_labels, players, seed, deals, out, batch_size=batch_size, jobs=jobs,
                      rotate_seats=rotate_seats, progress=False, on_chunk=lambda chunk, count: new_chunks.append(chunk),
                      backend=backend, scheduler=scheduler, trajectories=trajectories)
        played += summary.played
        seconds += summary.seconds
        results = _extend(results, out, new_chunks)
        half_width = rule.half_width(results[0], summary.rotations)
        steps.append((deals, half_width))
        if looks and looks[-1]["deals"] == deals:
            looks.pop()  # the same deals looked at again: one look
        looks.append({"deals": deals, "half_width": half_width})
        stopping = stopping_record(rule, summary.rotations, max_games, step, looks, earlier)
        set_manifest_key(out, "stopping", stopping)
        if progress:
            click.echo(f"until-ci: {deals:,} deals, largest seat half-width {half_width:.4f} "
                       f"(target {target:g}, {rule.name})", err=True)
        reached = half_width <= target
        cap = MAX_DEALS if max_games is None else max_games  # a run holds at most MAX_DEALS deals
        if reached or deals >= cap:
            break
        deals = min(deals + step, cap)
    return UntilResult(
        run=summary, target=target, half_width=half_width, reached=reached, deals=deals, games=summary.games,
        max_games=max_games, played=played, seconds=seconds, steps=steps, stopping=stopping,
    )


def _extend(results: list[pl.DataFrame], out: Path, new_chunks: Sequence) -> list[pl.DataFrame]:
    """Whatever the directory held, read once; then only the new chunks: no look rereads the whole run."""
    if not results:
        return [load_records(out).select(_COLUMNS)]
    parts = results + [pl.read_parquet(out / RECORDS / chunk.name, columns=_COLUMNS, glob=False)
                       for chunk in new_chunks]
    return [pl.concat(parts, how="vertical")]
