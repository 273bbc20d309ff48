"""Play until sure enough: extend a run chunk by chunk until the seat question is answered.

``glade play ... --until-ci 0.01`` plays the run's first ``--games`` deals,
then adds ``--batch-size x --jobs`` deals at a time, and after each step (a
*look*) computes every seat's interval. It stops as soon as the widest
half-width is at most the target, or when the run holds ``--max-games`` deals.
``--until-decided 0.025`` instead plays until the seat verdict is decided:
balanced within +-0.025 of the fair share, or not. Every step extends the same
run directory, so the result is an ordinary run (resumed or extended like one).

What a look measures is the seat share of :func:`analysis.stats.seat_advantage`,
the one definition every command uses: each deal gives every seat its share of
the deal's counted games (2 players: games with a single winner; 3-4: first
places, a shared one split), and the deal is the unit. The shares stream in
deal order into running sums (:class:`SeatStream`), so a look costs the new
deals only and memory does not grow with the run.

The three rules (:class:`StoppingRule`):

- ``FIXED`` (``--until-ci``): each seat's 95% interval at the look, Wilson with
  one game a deal, else t over deals. It stops on the intervals' *widths*, which
  hardly depend on where the estimates fall, so at the stop each interval keeps
  close to its 95% (measured 94.5-95% in docs/statistics.md). It is not an
  interval valid at every look at once: that is ``ANYTIME``.
- ``ANYTIME`` (``--until-ci --anytime``): an empirical-Bernstein confidence
  sequence (Waudby-Smith and Ramdas 2023), valid at every look at once and
  adapted to the per-deal variance, so it costs a fixed factor over ``FIXED``
  (about 1.9 times the deals at 95%) whatever the variance.
- ``DECIDED`` (``--until-decided``): sequential probability ratio tests on the
  per-deal shares (fishtest's GSPRT), stopping at "balanced" or "unbalanced"
  with stated error rates.

The rule, its looks and the outcome are recorded in the run's manifest under
``stopping`` (:func:`stopping_record`).
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
from statsmodels.stats.proportion import proportion_confint

from analysis.stats import CONFIDENCE
from analysis.stats.seat_result import _counted_shares, _seat_matrix
from sims.core.spec import ConfigError
from sims.records import MANIFEST, MAX_DEALS, load_manifest, scan_records, set_manifest_key
from sims.runner import RunSummary, run
from sims.runspec import RunSpec

FIXED = "fixed-level"
ANYTIME = "anytime"
DECIDED = "until-decided"
SUB_GAUSSIAN_VARIANCE = 0.25  # Hoeffding's lemma: a variable in [0, 1] is sub-Gaussian with variance 1/4
LARGEST_BET = 0.5  # the empirical-Bernstein bet is capped below 1 (Waudby-Smith and Ramdas use 1/2 or 3/4)
READ_DEALS = 1 << 18  # deals read at a time when a look catches up with a run's earlier deals
_COLUMNS = ["game", "deal", "seat", "win"]


# ---------------------------------------------------------------- the shares


def deal_shares(records: pl.DataFrame, players: int | None = None) -> np.ndarray:
    """Per deal (rows, by deal) and seat (columns): the seat's share of the deal's counted games.

    Counted as :func:`analysis.stats.seat_advantage` counts: with 2 players
    the games with a single winner; with 3-4 the games with a first place, a
    shared one split between its seats. A deal without a counted game has no
    row. With one game a deal the shares are 0 or 1 (or 1/m); with ``r``
    rotations, averages of r such values.
    """
    players = int(records["seat"].max()) + 1 if players is None else players
    games = records.group_by("game").agg(pl.col("win").sum().alias("first_places"))
    return _seat_matrix(_counted_shares(records, games, players), players, "deal")


class SeatStream:
    """Running sums of per-deal seat shares, fed in deal order: all a look needs, in memory that does not grow.

    Per seat: the count, sum and sum of squares (intervals, the GSPRT), and the
    state of an empirical-Bernstein confidence sequence whose bets scale with
    ``target`` (see :meth:`anytime_interval`).
    """

    def __init__(self, players: int, target: float):
        self.players, self.target = players, target
        self.read_to = 0  # the run's deals fed so far (a deal without a counted game adds no share)
        self.deals = 0  # deals with a counted game: the units
        self.total = np.zeros(players)
        self.squares = np.zeros(players)
        self._eb_mean_sum = np.full(players, 0.5)  # 1/2 + sum of x: the running mean's numerator (one pseudo-value)
        self._eb_dev_sum = np.full(players, 0.25)  # 1/4 + sum of (x_i - mean_i)^2: the running variance's numerator
        self._eb_bets = np.zeros(players)
        self._eb_bet_values = np.zeros(players)
        self._eb_penalty = np.zeros(players)

    def add(self, shares: np.ndarray) -> None:
        """Take the next deals' shares (float ``[deals, players]``, in deal order).

        Every sum runs deal by deal from the state before (:func:`_running`), so the state after a run's deals is
        the same to the last bit however they were split into blocks (looks, resumes).
        """
        if not shares.size:
            return
        n0, k = self.deals, shares.shape[0]
        index = n0 + np.arange(1, k + 1, dtype=np.float64)[:, None]  # 1-based position of each deal
        running = _running(self._eb_mean_sum, shares)
        mean_after = running / (index + 1)
        mean_before = np.vstack([self._eb_mean_sum / (n0 + 1), mean_after[:-1]])
        dev_after = _running(self._eb_dev_sum, (shares - mean_after) ** 2)
        variance_before = np.vstack([self._eb_dev_sum / (n0 + 1), (dev_after / (index + 1))[:-1]])
        bet = np.minimum(self.target / variance_before, LARGEST_BET)
        psi = (-np.log1p(-bet) - bet) / 4
        self._eb_bets = _running(self._eb_bets, bet)[-1]
        self._eb_bet_values = _running(self._eb_bet_values, bet * shares)[-1]
        self._eb_penalty = _running(self._eb_penalty, 4 * (shares - mean_before) ** 2 * psi)[-1]
        self._eb_mean_sum, self._eb_dev_sum = running[-1], dev_after[-1]
        self.deals += k
        self.total = _running(self.total, shares)[-1]
        self.squares = _running(self.squares, shares ** 2)[-1]

    @property
    def mean(self) -> np.ndarray:
        return self.total / max(self.deals, 1)

    @property
    def variance(self) -> np.ndarray:
        """The per-deal shares' sample variance per seat (ddof 1; NaN under two deals)."""
        if self.deals < 2:
            return np.full(self.players, np.nan)
        return np.maximum(self.squares - self.total ** 2 / self.deals, 0.0) / (self.deals - 1)

    def fixed_interval(self, rotations: int, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
        """Each seat's interval at this look: Wilson (statsmodels ``proportion_confint``) with one game a deal,
        else the t interval of the mean per-deal share (``scipy.stats.t``)."""
        n = self.deals
        if n < 2:
            return np.zeros(self.players), np.ones(self.players)
        if rotations == 1:
            low, high = proportion_confint(self.total, n, alpha=1 - confidence, method="wilson")
            return np.asarray(low), np.asarray(high)
        half = stats.t.ppf(0.5 + confidence / 2, n - 1) * np.sqrt(self.variance / n)
        return self.mean - half, self.mean + half

    def anytime_interval(self, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
        """Each seat's empirical-Bernstein confidence sequence at this look, valid at every look at once.

        Method: the predictable plug-in empirical-Bernstein confidence
        sequence of Waudby-Smith and Ramdas (2023, "Estimating means of bounded
        random variables by betting", J. R. Stat. Soc. B 86(1), Theorem 2),
        for per-deal shares x_i in [0, 1] taken in deal order::

            centre = sum(l_i x_i) / sum(l_i)
            radius = (log(2 / alpha) + sum(v_i psi(l_i))) / sum(l_i)
            v_i = 4 (x_i - mean_(i-1))^2,  psi(l) = (-log(1 - l) - l) / 4

        with the running mean and variance shrunk by one pseudo-value (1/2
        and 1/4). The bets are predictable, ``l_i = min(target / var_(i-1),
        1/2)``: where the running variance held, the radius reaches the
        target after ``2 log(2/alpha) var / target^2`` deals, about 1.9 times
        what a fixed-level normal interval needs (``1.96^2 var / target^2``).
        """
        if not self.deals:
            return np.zeros(self.players), np.ones(self.players)
        alpha = 1 - confidence
        centre = self._eb_bet_values / self._eb_bets
        radius = (math.log(2 / alpha) + self._eb_penalty) / self._eb_bets
        return np.maximum(centre - radius, 0.0), np.minimum(centre + radius, 1.0)


def mixture_rho(target: float, confidence: float = CONFIDENCE) -> float:
    """The mixture precision of :func:`mixture_half_width`, tuned for a run that ends near ``target``.

    Any ``rho > 0`` gives a valid confidence sequence; ``rho`` only decides
    where it is tightest. It is tuned for the intrinsic time ``v* = n* / 4``
    of ``n*`` deals, the deals a fixed-level normal interval at the
    worst-case variance 1/4 needs for ``target``:
    ``rho = v* / (2 log(1/alpha) + log(1 + 2 log(1/alpha)))``, one step of
    the fixed point that minimises the radius at ``v*`` (Howard et al. 2021).
    It depends on the target and level only, never on the results.
    """
    alpha = 1 - confidence
    planned = (stats.norm.ppf(1 - alpha / 2) * math.sqrt(SUB_GAUSSIAN_VARIANCE) / target) ** 2
    log_term = 2 * math.log(1 / alpha)
    return SUB_GAUSSIAN_VARIANCE * planned / (log_term + math.log(1 + log_term))


def mixture_half_width(deals: int | np.ndarray, rho: float, confidence: float = CONFIDENCE) -> float | np.ndarray:
    """Half-width after ``deals`` deals of the two-sided normal-mixture confidence sequence for a mean in [0, 1]
    at the worst-case variance (``glade tune``'s drop rule; ``play --anytime`` uses the variance-adaptive
    :meth:`SeatStream.anytime_interval`).

    Method: Robbins' normal mixture (Robbins 1970; in the form of Howard,
    Ramdas, McAuliffe and Sekhon 2021, Ann. Statist. 49(2), two-sided
    normal-mixture boundary). Each deal's share lies in [0, 1], so its
    centred sum is sub-Gaussian with variance proxy ``v = n / 4``; with
    probability at least ``confidence``, at every n at once::

        |mean_n - mu| <= sqrt((v + rho) log((v + rho) / (rho alpha^2))) / n
    """
    alpha = 1 - confidence
    v = SUB_GAUSSIAN_VARIANCE * np.asarray(deals, dtype=np.float64)
    radius = np.sqrt((v + rho) * np.log((v + rho) / (rho * alpha**2))) / np.maximum(deals, 1)
    return float(radius) if np.ndim(radius) == 0 else radius


def _running(state: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``state + values[0]``, ``state + values[0] + values[1]``, ...: left to right, one deal at a time."""
    return np.cumsum(np.vstack([state[None, :], values]), axis=0)[1:]


# ---------------------------------------------------------------- the rules


@dataclass(frozen=True)
class StoppingRule:
    """When ``play --until-ci`` / ``--until-decided`` stops.

    ``FIXED`` and ``ANYTIME`` stop when every seat's interval is at most
    ``target`` wide on each side; ``DECIDED`` when its sequential tests decide
    seat balance within +-``target`` (the margin), with ``alpha`` the chance
    of "unbalanced" for a fair game and ``beta`` the chance of "balanced" for a
    game with a seat ``target`` off its fair share.
    """

    name: str
    target: float
    confidence: float = CONFIDENCE
    beta: float = 0.05

    @property
    def alpha(self) -> float:
        return 1 - self.confidence

    def look(self, stream: SeatStream, rotations: int, held: dict | None = None) -> dict:
        """The look at ``stream``'s deals: ``{"deals", "half_width"}``, or for ``DECIDED`` ``{"deals", "llr",
        "sides", "decision"}`` carrying the sides an earlier look ``held`` already decided."""
        if self.name == DECIDED:
            return sprt_look(stream, self.target, self.alpha, self.beta, held)
        low, high = (stream.anytime_interval(self.confidence) if self.name == ANYTIME
                     else stream.fixed_interval(rotations, self.confidence))
        return {"deals": stream.deals, "half_width": float(np.max((high - low) / 2))}

    def done(self, look: dict) -> bool:
        if self.name == DECIDED:
            return look["decision"] != "undecided"
        return look["half_width"] <= self.target

    def method(self, rotations: int) -> str:
        """The rule's method, as a report's methods section names it."""
        level = f"{100 * self.confidence:g}%"
        if self.name == ANYTIME:
            return (f"empirical-Bernstein confidence sequence {level} (Waudby-Smith and Ramdas 2023, predictable "
                    f"plug-in), valid at every look; per-deal seat shares in deal order")
        if self.name == DECIDED:
            return (f"GSPRT on per-deal seat shares (fishtest's normal approximation, variance estimated): for each "
                    f"seat tested, fair share against fair +-{self.target:g}; alpha {self.alpha:g} (Bonferroni over "
                    f"the one-sided tests), beta {self.beta:g}")
        if rotations == 1:
            return f"Wilson {level} per seat, one game a deal"
        return (f"t {level} of each seat's mean per-deal share (scipy.stats.t), {rotations} rotated games a deal")


def sprt_look(stream: SeatStream, delta: float, alpha: float, beta: float, held: dict | None = None) -> dict:
    """The GSPRT state after ``stream``'s deals: per tested seat and side, the log-likelihood ratio and the side's
    state (``open``, ``fair`` when it accepted the fair share, ``off`` when it accepted fair +- delta).

    Seats tested: seat 0 with 2 players (seat 1's share is the rest), every seat with 3-4. Each side is the
    sequential probability ratio test of mean ``fair`` against ``fair + delta`` (upper) or ``fair - delta``
    (lower) in fishtest's normal form, ``LLR = n (mu1 - mu0) (2 mean - mu0 - mu1) / (2 var)``, the variance
    estimated from the deals with one pseudo-deal at the worst case 1/4 (it never reads 0). Bounds
    ``log(beta / (1 - a))`` and ``log((1 - beta) / a)`` with ``a = alpha / (2 seats)``: a fair game is called
    "unbalanced" with chance at most about ``alpha``, a game with a tested seat ``delta`` off "balanced" with
    chance at most about ``beta``. A side stays decided once it crosses a bound. "Unbalanced" as soon as any
    side accepts its offset; "balanced" once every side accepted the fair share.
    """
    players = stream.players
    fair = 1 / players
    seats = [0] if players == 2 else list(range(players))
    a = alpha / (2 * len(seats))
    lower_bound, upper_bound = math.log(beta / (1 - a)), math.log((1 - beta) / a)
    n = stream.deals
    variance = ((np.nan_to_num(stream.variance) * max(n - 1, 0) + SUB_GAUSSIAN_VARIANCE) / max(n, 1))
    previous = (held or {}).get("sides") or {}
    llr, sides = {}, {}
    for seat in seats:
        for side, sign in (("lower", -1), ("upper", 1)):
            key = f"{seat}-{side}"
            mu1 = fair + sign * delta
            value = n * (mu1 - fair) * (2 * stream.mean[seat] - fair - mu1) / (2 * variance[seat]) if n else 0.0
            llr[key] = float(value)
            state = previous.get(key, "open")
            if state == "open" and n:
                state = "off" if value >= upper_bound else "fair" if value <= lower_bound else "open"
            sides[key] = state
    decision = ("unbalanced" if "off" in sides.values() else
                "balanced" if all(s == "fair" for s in sides.values()) else "undecided")
    return {"deals": n, "llr": llr, "sides": sides, "decision": decision,
            "bounds": [lower_bound, upper_bound], "means": [float(m) for m in stream.mean]}


# ---------------------------------------------------------------- the record


def stopping_record(rule: StoppingRule, rotations: int, max_games: int | None, step: int,
                    looks: Sequence[dict], earlier: Sequence[dict] = ()) -> dict:
    """The manifest's ``stopping`` object: the rule, its looks and the outcome.

    ``looks`` are the rule's looks in order (:meth:`StoppingRule.look`);
    ``max_games`` is the cap in deals (``--max-games``, None for none);
    ``outcome`` is ``"reached"`` (the last look is done: the target reached or
    the verdict decided), ``"max_games"`` (the cap came first) or
    ``"running"``. ``earlier`` holds the records of earlier calls with another
    rule or target.
    """
    last = looks[-1]
    reached = rule.done(last)
    capped = max_games is not None and last["deals"] >= max_games
    record = {
        "rule": rule.name,
        "method": rule.method(rotations),
        "confidence": rule.confidence,
        "unit": "deals",
        "max_games": max_games,
        "step": step,
        "looks": list(looks),
        "deals": last["deals"],
        "games": last["deals"] * rotations,
        "reached": reached,
        "outcome": "reached" if reached else "max_games" if capped else "running",
    }
    if rule.name == DECIDED:
        record.update(margin=rule.target, alpha=rule.alpha, beta=rule.beta, decision=last["decision"])
    else:
        record.update(target_half_width=rule.target, final_half_width=last["half_width"])
    if earlier:
        record["earlier"] = list(earlier)
    return record


def _same_rule(held: dict, rule: StoppingRule) -> bool:
    target = held.get("margin") if held.get("rule") == DECIDED else held.get("target_half_width")
    return (held.get("rule"), target, held.get("confidence")) == (rule.name, rule.target, rule.confidence)


def _held_looks(held: dict | None, rule: StoppingRule) -> tuple[list[dict], list[dict]]:
    """The looks an earlier call with the same rule took (they count), and earlier records of other rules."""
    if not held:
        return [], []
    earlier = list(held.get("earlier", []))
    if _same_rule(held, rule):
        return list(held.get("looks", [])), earlier
    return [], earlier + [{k: v for k, v in held.items() if k != "earlier"}]


def describe_stopping(stopping: dict, deals: int | None = None) -> str:
    """A line for a summary: how the run's size was chosen and exactly what holds at the stop.

    ``deals`` is what the run holds now: more than the rule stopped at means
    the run was extended afterwards, which the line says.
    """
    shown = f"{stopping['deals']:,} deals" + (
        f" ({stopping['games']:,} games)" if stopping.get("games", stopping["deals"]) != stopping["deals"] else "")
    looks = len(stopping.get("looks", []))
    how = f"({stopping['method']}; {looks} look{'s' if looks != 1 else ''})"
    if stopping["rule"] == DECIDED:
        line = _describe_decided(stopping, shown, how)
    else:
        width, target = stopping["final_half_width"], stopping["target_half_width"]
        level = f"{100 * stopping['confidence']:g}%"
        if stopping["outcome"] == "reached":
            line = f"until-ci: reached the target after {shown}: "
            if stopping["rule"] == ANYTIME:
                line += (f"every seat's {level} confidence sequence is at most +-{target:g} wide (largest "
                         f"{width:.4f}), and a confidence sequence holds at every look at once {how}")
            else:
                line += (f"every seat's {level} interval at this look is at most +-{target:g} wide (largest "
                         f"{width:.4f}) {how}; the rule stops on the intervals' widths, not on the estimates, so "
                         f"each interval keeps close to its {level} at the stop (not at every look at once: "
                         "--anytime gives that)")
        elif stopping["outcome"] == "max_games":
            line = (f"until-ci: stopped at --max-games {stopping['max_games']:,} after {shown} before reaching the "
                    f"target: largest seat half-width {width:.4f} > {target:g} {how}")
        else:
            line = f"until-ci: interrupted after {shown}: largest seat half-width {width:.4f} > {target:g} {how}"
    if deals is not None and deals > stopping["deals"]:
        line += f"; then extended to {deals:,} deals without the rule"
    return line


def _describe_decided(stopping: dict, shown: str, how: str) -> str:
    margin = f"+-{100 * stopping['margin']:g} points"
    if stopping["outcome"] == "reached":
        said = ("balanced: every tested seat's share is within " + margin + " of its fair share"
                if stopping["decision"] == "balanced" else
                "unbalanced: a seat's share is off its fair share by " + margin + " rather than 0")
        return (f"until-decided: {said}, decided after {shown}; a fair game is called unbalanced with chance at most "
                f"about {100 * stopping['alpha']:g}%, a game with a seat {margin} off called balanced with chance at "
                f"most about {100 * stopping['beta']:g}% {how}")
    if stopping["outcome"] == "max_games":
        return (f"until-decided: undecided at --max-games {stopping['max_games']:,} after {shown}: the seat shares "
                f"lie between fair and {margin} off {how}")
    return f"until-decided: interrupted after {shown}, undecided {how}"


# ---------------------------------------------------------------- the loop


@dataclass
class UntilResult:
    """What :func:`play_until` did."""

    run: RunSummary = field(repr=False)  # the last step's summary
    target: float
    half_width: float  # largest seat half-width at the end by the rule (NaN for DECIDED)
    reached: bool  # the rule is done: the target reached or the verdict decided
    deals: int  # deals in the run directory at the end
    games: int  # games (deals x seat rotations)
    max_games: int | None  # the deal cap
    played: int  # games played by this call
    seconds: float
    steps: list[tuple[int, float]]  # (deals, largest half-width) at each look of this call
    stopping: dict = field(repr=False)  # the manifest's ``stopping`` record
    decision: str | None = None  # DECIDED: "balanced", "unbalanced" or "undecided"

    @property
    def games_per_second(self) -> float | None:
        return self.played / self.seconds if self.played and self.seconds > 0 else None


def play_until(
    spec: RunSpec,
    games: int,
    out_dir: str | Path,
    target: float,
    *,
    max_games: int | None = None,
    batch_size: int = 4096,
    jobs: int = 1,
    progress: bool = True,
    backend: str = "loky",
    scheduler: str | None = None,
    anytime: bool = False,
    decide: bool = False,
) -> UntilResult:
    """Play ``games`` deals of ``spec``, then ``batch_size * jobs`` more at a time, until the rule is done or the
    run holds ``max_games`` deals. A run directory that already holds more deals starts from those.

    ``target`` is the half-width of ``--until-ci`` (``anytime``: the confidence
    sequence; else Wilson, or t over deals with rotated seats), or with
    ``decide`` the margin of ``--until-decided``. The manifest's ``stopping``
    record is rewritten after every look.
    """
    players, bots = spec.players, spec.bots[:spec.players]
    if decide:
        if not 0 < target < 1 / max(players, 2):
            raise ConfigError("--until-decided", str(target),
                              f"a margin between 0 and {1 / max(players, 2):g} (the fair share), such as 0.025",
                              has_got=False)
        if len(set(bots)) > 1:
            raise ConfigError("--until-decided", ",".join(bots),
                              f"the same bot in every seat (e.g. {','.join([bots[0]] * players)}): a mixed "
                              "lineup's seat shares are pulled toward fair by its bots' differences, so it cannot "
                              "show balance", has_got=False)
    elif not 0 < target < 1:
        raise ConfigError("--until-ci", str(target), "a half-width between 0 and 1, such as 0.01", has_got=False)
    if max_games is not None and max_games < games:
        raise ConfigError("--max-games", str(max_games), f"at least --games ({games})", has_got=False)
    rule = StoppingRule(DECIDED if decide else ANYTIME if anytime else FIXED, target)
    out = Path(out_dir)
    deals, held = games, None
    if (out / MANIFEST).exists():
        manifest = load_manifest(out)
        deals, held = max(deals, int(manifest.get("games", 0))), manifest.get("stopping")
    looks, earlier = _held_looks(held, rule)
    step = batch_size * jobs
    stream = SeatStream(players, target)
    steps: list[tuple[int, float]] = []
    played, seconds = 0, 0.0
    while True:
        summary = run(spec, deals, out, batch_size=batch_size, jobs=jobs, progress=None, backend=backend,
                      scheduler=scheduler)
        played += summary.played
        seconds += summary.seconds
        _catch_up(stream, out, deals)
        if looks and looks[-1]["deals"] == deals:
            look = looks[-1]  # the same deals looked at again (a rerun): the look they had
        else:
            look = rule.look(stream, summary.rotations, looks[-1] if looks else None)
            look["deals"] = deals
            looks.append(look)
        steps.append((deals, float(look.get("half_width", float("nan")))))
        stopping = stopping_record(rule, summary.rotations, max_games, step, looks, earlier)
        set_manifest_key(out, "stopping", stopping)
        if progress:
            click.echo(_progress_line(rule, look), err=True)
        cap = MAX_DEALS if max_games is None else max_games  # a run holds at most MAX_DEALS deals
        if rule.done(look) or deals >= cap:
            break
        deals = min(deals + step, cap)
    return UntilResult(
        run=summary, target=target, half_width=float(look.get("half_width", float("nan"))),
        reached=rule.done(look), deals=deals, games=summary.games, max_games=max_games, played=played,
        seconds=seconds, steps=steps, stopping=stopping, decision=look.get("decision"),
    )


def _progress_line(rule: StoppingRule, look: dict) -> str:
    if rule.name == DECIDED:
        return f"until-decided: {look['deals']:,} deals, {look['decision']} (margin +-{rule.target:g})"
    return (f"until-ci: {look['deals']:,} deals, largest seat half-width {look['half_width']:.4f} "
            f"(target {rule.target:g}, {rule.name})")


def _catch_up(stream: SeatStream, out: Path, deals: int) -> None:
    """Feed ``stream`` the run's deals it has not seen, up to ``deals``, in deal order and a block at a time:
    a look reads only the new deals, and a resumed run's earlier ones once."""
    while stream.read_to < deals:
        stop = min(stream.read_to + READ_DEALS, deals)
        block = scan_records(out, (stream.read_to, stop)).select(_COLUMNS).collect()
        if block.height:
            stream.add(deal_shares(block, stream.players))
        stream.read_to = stop
