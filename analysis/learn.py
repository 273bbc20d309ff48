"""``glade train``: fit a game's greedy weights to game outcomes, by phase, and store them for the ``learned`` bots.

What is fitted. A game's greedy values an action by a weighted sum of terms
of the position it leads to (``[bots.greedy]``: Vora's score, rival, cubes...).
Every term is public: the game's own scoring, resources, board and hand
counts, never the hidden order. The fit keeps those terms and learns their
weights, one set per phase of the game (phases start at fixed turns, so
both engines find the same phase):

1. Records. A policy bot (default ``greedy``; ``learned`` for a later
   generation) plays ``games`` deals of ``seed``. At each decision a game is
   sampled with chance ``sample`` (its own stream ``learn/sample``, so the
   records do not depend on the batch); there the mover's candidates are the
   policy's best ``top`` actions and ``extra`` others drawn at random
   (stream ``learn/extra``). Each candidate's terms are read from the game's
   own greedy kernel, once per term with that term's weight 1 and the
   others 0 (a greedy value is linear in its weights), and each candidate
   is played on to the game's end by the policy in every seat, on the real
   deal. Its outcome (``target``): the mover's final score minus the
   opponents' mean (``margin``), or its pairwise rank share (``share``: a
   win over an opponent 1, a tie or stall 1/2).
2. Fit. Within a decision only the differences between candidates matter to
   a greedy bot, so the weights come from an ordinary least-squares fit of
   the outcome on the terms with a fixed effect per decision (both demeaned
   within the decision), one block of weights per phase; standard errors
   clustered by deal (statsmodels ``OLS``, ``cov_type="cluster"``). Phases
   start at the quantiles of the sampled decisions' turns. Each phase's
   weights are scaled so the largest is 1 (a greedy choice and a planner's
   comparison of rollouts from one decision do not change with the scale).
3. Held out. Every fifth deal (deal % 5 == 4) is left out of the fit. On
   its decisions, each pair of candidates with different outcomes is ordered
   by the learned weights and by the policy's: the pairwise accuracy, the
   share of pairs put in the order of their outcomes (equal values 1/2), a
   mean per deal with a 95% t interval over deals, and the difference of the
   two on the same pairs.
4. Check. The learned weights play the policy on ``check`` fresh deals
   (deals ``games`` to ``games + check - 1`` of the seed, seats split and
   rotated as in ``glade ladder``): the learned bot's pair share with its
   95% t interval over deals (:func:`analysis.stats.skill_gradient`); and the
   fitted greedy, then the policy, fill every seat on the same deals. The file
   is written only when the interval lies above 50% (a generation is kept only
   when it beats the last) and the fit's self-play leaves no more games
   unfinished (stalls) than the policy's.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import statsmodels.api as sm
from scipy import stats as scipy_stats

from sims.core.choice import top_per_group
from sims.core.engine import BatchedBot, BatchedEngine, BatchedState
from sims.core.learned import HORIZON, LEARNED, PHASES, TURN, is_phased, phase_key, phase_of, phase_weights, rounded
from sims.core.planner import RolloutPlanner
from sims.core.play import BotChoice, batched_bots, check_players, play_batch, resolve_bot, seat_groups
from sims.core.rng import game_seeds, uniforms, uniforms_at
from sims.core.spec import ConfigError
from sims.registry import get_game

TARGETS = ("margin", "share")
HELD_OUT = 5  # deal % HELD_OUT == HELD_OUT - 1 is held out of the fit
TERMINAL = 1e5  # values this large are a finished game's, not the evaluation's: such candidates are left out


@dataclass
class Records:
    """The sampled candidates, one row each, sorted by deal, decision and action."""

    deal: np.ndarray  # int64
    decision: np.ndarray  # int64: the game's decision counter at the sampled decision
    turn: np.ndarray  # int64: the decision's turn
    action: np.ndarray  # int64
    terms: np.ndarray  # float64 [n, W]: each greedy term of the candidate (its weight 1, the others 0)
    policy: np.ndarray  # float64: the policy's value of the candidate
    margin: np.ndarray  # float64: mover's final score minus the opponents' mean
    share: np.ndarray  # float64: mover's final pairwise rank share
    horizon: np.ndarray  # float64 [n, W]: the terms of the planner's worth at its horizon (NaN: the game ended)
    planned: np.ndarray  # float64: the planner's own worth there (NaN likewise)
    linear: int = 0  # candidates whose policy value is the weighted sum of their terms
    checked: int = 0  # candidates where that could be checked (a plain or learned greedy policy)

    @property
    def size(self) -> int:
        return int(self.deal.size)

    def rows(self, keep: np.ndarray) -> "Records":
        return Records(*(getattr(self, name)[keep] for name in _COLUMNS), linear=self.linear, checked=self.checked)

    def groups(self) -> np.ndarray:
        """int64 ``[n]``: each row's decision (deal and counter) as a group number."""
        return np.unique(np.stack([self.deal, self.decision], axis=1), axis=0, return_inverse=True)[1].reshape(-1)


_COLUMNS = ("deal", "decision", "turn", "action", "terms", "policy", "margin", "share", "horizon", "planned")


def outcomes(engine: BatchedEngine, state: BatchedState, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each finished game's ``(margin, share)`` for seat ``movers[i]``: its score minus the opponents' mean, and
    its pairwise rank share (better rank 1, same rank or a stall 1/2)."""
    results = engine.results(state)
    score, rank = results.score.astype(np.float64), results.rank.astype(np.int64)
    rows = np.arange(state.size)
    players = score.shape[1]
    mine = score[rows, movers]
    margin = mine - (score.sum(axis=1) - mine) / max(players - 1, 1)
    my_rank = rank[rows, movers][:, None]
    beats = np.where((my_rank == 0) | (rank == 0), 0.5, np.where(my_rank < rank, 1.0,
                                                                  np.where(my_rank == rank, 0.5, 0.0)))
    others = np.arange(players)[None, :] != movers[:, None]
    share = (beats * others).sum(axis=1) / max(players - 1, 1)
    return margin, share


def play_on(engine: BatchedEngine, bots: Sequence[BatchedBot], state: BatchedState, max_turns: int,
            before: Callable[[BatchedState, np.ndarray], None] | None = None) -> None:
    """Play every game of ``state`` to its end (or the turn cap) with ``bots``, as :func:`play_batch` does;
    ``before(state, active)`` is called before each step."""
    groups = seat_groups(bots)
    while True:
        if state.size and state.turn.max() >= max_turns:
            capped = ~state.done & (state.turn >= max_turns)
            if capped.any():
                engine.stall(state, capped)
        active = ~state.done
        if not active.any():
            return
        if before is not None:
            before(state, active)
        actions = np.full(state.size, -1, dtype=np.int64)
        for group in groups:
            movers = group.movers(state, active)
            if movers is active or movers.any():
                np.copyto(actions, group.bot.act(state, movers), where=movers)
        engine.step(state, actions)
        state.decisions += active


def scored(bot: BatchedBot, state: BatchedState, active: np.ndarray) -> tuple[np.ndarray, ...]:
    """``games, actions, values`` of every action ``bot`` scores in the active games (flat, by game)."""
    games, actions, values = bot.scored_actions(state, active)[:3]
    return np.asarray(games, dtype=np.int64), np.asarray(actions, dtype=np.int64), np.asarray(values, np.float64)


@dataclass
class Collector:
    """Plays the records of :func:`collect` (module docstring, step 1)."""

    engine: BatchedEngine
    policy: Sequence[BatchedBot]  # the policy in every seat
    units: Sequence[BatchedBot]  # the game's greedy with one term's weight 1, one per term
    planners: Sequence[Sequence[RolloutPlanner]]  # per seat: the game's planner, then one per term (its weight 1)
    weights: Callable[[np.ndarray], np.ndarray] | None  # the policy's term weights at each turn, for the check
    max_turns: int
    sample: float
    top: int
    extra: int
    parts: list[dict] = field(default_factory=list)
    linear: int = 0
    checked: int = 0

    def decisions(self, state: BatchedState, deals: np.ndarray, picked: np.ndarray) -> None:
        """Sample, score, roll out and keep the candidates of the games ``picked`` (their decision now)."""
        engine = self.engine
        snap = engine.branch(state, picked)
        every = np.ones(snap.size, dtype=bool)
        games, actions, values = scored(self.policy[0], snap, every)
        terms = []
        for unit in self.units:
            unit_games, unit_actions, unit_values = scored(unit, snap, every)
            if not (np.array_equal(unit_games, games) and np.array_equal(unit_actions, actions)):
                raise RuntimeError("train: the greedy's scored actions differ between weights")
            terms.append(unit_values)
        terms = np.stack(terms, axis=1) if terms else np.zeros((games.size, 0))
        usable = np.isfinite(values) & (np.abs(values) < TERMINAL) & np.isfinite(terms).all(axis=1)
        usable &= (np.abs(terms) < TERMINAL).all(axis=1)
        if self.weights is not None and usable.any():
            expect = (self.weights(snap.turn[games[usable]]) * terms[usable]).sum(axis=1)
            self.linear += int(np.isclose(expect, values[usable], rtol=1e-9, atol=1e-9).sum())
            self.checked += int(usable.sum())
        index = np.flatnonzero(usable)
        best = index[top_per_group(games[index], values[index], k=self.top)]
        rest = np.setdiff1d(index, best)
        order = uniforms_at(snap.seeds[games[rest]], "learn/extra", snap.decisions[games[rest]], actions[rest])
        extra = rest[top_per_group(games[rest], order, k=self.extra)] if rest.size and self.extra else rest[:0]
        keep = np.sort(np.concatenate([best, extra]))
        keep = keep[np.bincount(games[keep], minlength=snap.size)[games[keep]] > 1]
        if keep.size == 0:
            return
        branch = engine.branch(snap, games[keep])
        movers = snap.to_move[games[keep]].astype(np.int64)
        engine.step(branch, actions[keep])
        branch.decisions += 1
        horizon, planned = self.at_horizon(branch, movers, snap.turn[games[keep]].astype(np.int64))
        play_on(engine, self.policy, branch, self.max_turns)
        margin, share = outcomes(engine, branch, movers)
        self.parts.append({"deal": deals[picked[games[keep]]], "decision": snap.decisions[games[keep]].astype(np.int64),
                           "turn": snap.turn[games[keep]].astype(np.int64), "action": actions[keep],
                           "terms": terms[keep], "policy": values[keep], "margin": margin, "share": share,
                           "horizon": horizon, "planned": planned})

    def at_horizon(self, branch: BatchedState, movers: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, ...]:
        """Play each game of ``branch`` on with the policy to the horizon of a planner in the mover's seat (or its
        decision limit), the others frozen; the worth terms there (one per term, :attr:`planners`) and the
        planner's own worth, NaN for games that ended."""
        seats = np.unique(movers)
        limit = self.planners[0][0].max_rollout_decisions()
        taken = 0
        while limit is None or taken < limit:
            live = ~branch.done
            for seat in seats:
                mine = movers == seat
                live[mine] &= ~self.planners[seat][0].at_horizon(branch, start)[mine]
            if not live.any():
                break
            self.planners[0][0]._rollout_step(branch, live, self.policy)
            taken += 1
        terms = np.full((branch.size, len(self.planners[0]) - 1), np.nan)
        planned = np.full(branch.size, np.nan)
        for seat in seats:
            mine = (movers == seat) & ~branch.done
            planned[mine] = self.planners[seat][0].worth(branch)[mine]
            for j, unit in enumerate(self.planners[seat][1:]):
                terms[mine, j] = unit.worth(branch)[mine]
        return terms, planned

    def play(self, seeds: np.ndarray, deals: np.ndarray) -> None:
        """Play the deals ``deals`` (seeds ``seeds``) with the policy, sampling decisions on the way."""

        def sample(state: BatchedState, active: np.ndarray) -> None:
            draws = uniforms(state.seeds, "learn/sample", state.decisions, 1)[:, 0]
            picked = np.flatnonzero(active & (draws < self.sample))
            if picked.size:
                self.decisions(state, deals, picked)

        play_on(self.engine, self.policy, self.engine.init(seeds), self.max_turns, sample)

    def records(self) -> Records:
        if not self.parts:
            raise ConfigError("--games", "", "enough deals to sample some decisions (raise --games or --sample)",
                              has_got=False)
        columns = {name: np.concatenate([part[name] for part in self.parts]) for name in _COLUMNS}
        order = np.lexsort((columns["action"], columns["decision"], columns["deal"]))
        return Records(*(columns[name][order] for name in _COLUMNS), linear=self.linear, checked=self.checked)


def term_weights(choice: BotChoice, names: Sequence[str], players: int) -> Callable[[np.ndarray], np.ndarray] | None:
    """The policy's weight of each term at each turn (``[n, W]``), where its value is their weighted sum (a greedy
    or learned greedy); None for another kind."""
    if choice.kind != "greedy":
        return None
    if not is_phased(choice.weights):
        row = np.array([float(choice.weights[name]) for name in names])
        return lambda turn: np.broadcast_to(row, (np.size(turn), row.size))
    phases = phase_weights(choice.weights, players)
    table = np.array([[float(own[name]) for name in names] for _, own in phases])
    starts = [start for start, _ in phases]
    return lambda turn: table[phase_of(turn, starts)]


def collect(game_name: str, players: int, policy: str, games: int, seed: int, sample: float = 0.05, top: int = 6,
            extra: int = 2, batch_size: int = 512, progress: Callable[[int], None] | None = None) -> Records:
    """The records of ``games`` deals of ``seed`` played by ``policy`` (module docstring, step 1)."""
    game = get_game(game_name)
    check_players(game, players)
    config = game.load_config()
    engine = game.batched(config, players)
    choice = resolve_bot(game, config, policy)
    names = tuple(game.bot_weights(config, "greedy"))
    base = dict(game.bot_weights(config, "greedy"))
    greedy = game.bots["greedy"].batched
    units = [greedy(engine, 0, base | {name: float(name == term) for name in names}) for term in names]
    planner, plan = game.bots["planner"].batched, dict(game.bot_weights(config, "planner"))
    planners = [[planner(engine, seat, plan)] + [planner(engine, seat, plan | {name: float(name == term)
                                                                              for name in names}) for term in names]
                for seat in range(engine.players)]
    collector = Collector(engine, batched_bots(game, engine, [choice] * engine.players), units, planners,
                          term_weights(choice, names, players), game.max_turns(config), sample, top, extra)
    for start in range(0, games, batch_size):
        deals = np.arange(start, min(games, start + batch_size), dtype=np.int64)
        collector.play(game_seeds(seed, deals), deals)
        if progress is not None:
            progress(int(deals.size))
    return collector.records()


# ---------------------------------------------------------------- the fit


@dataclass(frozen=True)
class Fit:
    """Fitted weights by phase: ``weights[k]`` (scaled, largest 1) from turn ``starts[k]``, their standard errors
    on the same scale, the within-decision R^2 and the rows used."""

    names: tuple[str, ...]
    starts: tuple[int, ...]
    weights: np.ndarray  # [K, W]
    errors: np.ndarray  # [K, W]
    r2: float
    candidates: int
    decisions: int
    deals: int


def phase_starts(turns: np.ndarray, phases: int) -> tuple[int, ...]:
    """Phase starts: turn 0, then the sampled decisions' turn quantiles ``k / phases`` (duplicates dropped)."""
    inner = [int(np.quantile(turns, k / phases)) for k in range(1, phases)] if turns.size else []
    return tuple(sorted({0, *(turn for turn in inner if turn > 0)}))


def within(records: Records, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` (``[n]`` or ``[n, W]``) minus their decision's mean, and the decision groups."""
    groups = records.groups()
    count = np.bincount(groups)
    flat = values.reshape(values.shape[0], -1)
    means = np.stack([np.bincount(groups, flat[:, j], minlength=count.size) / count for j in range(flat.shape[1])],
                     axis=1)
    return (flat - means[groups]).reshape(values.shape), groups


def fit(records: Records, names: Sequence[str], starts: Sequence[int], target: str, column: str = "terms") -> Fit:
    """The weights of each phase starting at turns ``starts`` (module docstring, step 2), for the terms of
    ``column`` (``terms``: after the candidate, greedy's; ``horizon``: at the planner's horizon, its worth's);
    candidates without them (a game that ended) left out."""
    records = records.rows(np.isfinite(getattr(records, column)).all(axis=1))
    phase = phase_of(records.turn, starts)
    terms, groups = within(records, getattr(records, column))
    outcome, _ = within(records, getattr(records, target))
    width = len(names)
    design = np.zeros((records.size, len(starts) * width))
    for k in range(len(starts)):
        design[phase == k, k * width:(k + 1) * width] = terms[phase == k]
    result = sm.OLS(outcome, design).fit(cov_type="cluster", cov_kwds={"groups": records.deal})
    params = np.asarray(result.params).reshape(len(starts), width)
    errors = np.asarray(result.bse).reshape(len(starts), width)
    scale = np.abs(params).max(axis=1, keepdims=True)
    scale[scale == 0] = 1.0
    weights = np.vectorize(rounded)(params / scale)
    return Fit(tuple(names), tuple(starts), weights, errors / scale, float(result.rsquared), records.size,
               int(groups.max()) + 1 if groups.size else 0, int(np.unique(records.deal).size))


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float
    units: int

    def text(self, scale: float = 100.0, sign: bool = False) -> str:
        fmt = "+.1f" if sign else ".1f"
        return f"{scale * self.value:{fmt}}% [{scale * self.low:{fmt}}, {scale * self.high:{fmt}}]"

    def as_dict(self) -> dict[str, float]:
        return {"value": round(self.value, 4), "low": round(self.low, 4), "high": round(self.high, 4),
                "deals": self.units}


def t_interval(values: np.ndarray) -> Interval:
    """The mean of per-deal ``values`` with its 95% t interval (``scipy.stats.ttest_1samp``)."""
    if values.size < 2 or np.all(values == values[0]):
        value = float(values.mean()) if values.size else float("nan")
        return Interval(value, value, value, int(values.size))
    interval = scipy_stats.ttest_1samp(values, 0.0).confidence_interval(0.95)
    return Interval(float(values.mean()), float(interval.low), float(interval.high), int(values.size))


def pair_accuracy(records: Records, predicted: np.ndarray, target: str) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of ``records``: the deals, and the share of candidate pairs of a decision with different
    outcomes that ``predicted`` orders as the outcomes (equal predictions 1/2); deals without such pairs left
    out."""
    outcome = getattr(records, target)
    groups = records.groups()
    correct = np.zeros(records.size)
    pairs = np.zeros(records.size)
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    ends = np.r_[starts[1:], groups.size]
    for a, b in zip(starts, ends):
        y, p = outcome[a:b], predicted[a:b]
        dy = np.sign(y[:, None] - y[None, :])
        dp = np.sign(p[:, None] - p[None, :])
        upper = np.triu(dy != 0, 1)
        if upper.any():
            agree = np.where(dp == 0, 0.5, (dp == dy).astype(np.float64))
            correct[a] = agree[upper].sum()
            pairs[a] = upper.sum()
    deals, index = np.unique(records.deal, return_inverse=True)
    total = np.bincount(index, correct, minlength=deals.size)
    count = np.bincount(index, pairs, minlength=deals.size)
    has = count > 0
    return deals[has], total[has] / count[has]


def predicted(records: Records, result: Fit, column: str = "terms") -> np.ndarray:
    """The learned value (by phase) of every candidate of ``records`` from its terms in ``column``."""
    phase = phase_of(records.turn, result.starts)
    return (result.weights[phase] * getattr(records, column)).sum(axis=1)


@dataclass(frozen=True)
class HeldOut:
    learned: Interval
    policy: Interval
    difference: Interval


def held_out(records: Records, result: Fit, target: str, column: str = "terms") -> HeldOut:
    """Pairwise accuracy of the learned weights and of the policy's values (at the horizon: the planner's worth)
    on the held-out records (module docstring, step 3)."""
    records = records.rows(np.isfinite(getattr(records, column)).all(axis=1))
    _, learned = pair_accuracy(records, predicted(records, result, column), target)
    _, policy = pair_accuracy(records, records.policy if column == "terms" else records.planned, target)
    return HeldOut(t_interval(learned), t_interval(policy), t_interval(learned - policy))


# ---------------------------------------------------------------- check and file


def learned_choice_of(result: Fit, players: int, base: Mapping[str, float], label: str = LEARNED,
                      worth: Fit | None = None, kind: str = "greedy") -> BotChoice:
    """A :class:`BotChoice` of ``kind`` with the fitted phases at ``players`` players on top of ``base`` (and the
    horizon's weights of ``worth``)."""
    weights = dict(base) | {f"{PHASES}_{players}p": float(len(result.starts))}
    for k, start in enumerate(result.starts):
        weights[phase_key(TURN, k, players)] = float(start)
        for name, value in zip(result.names, result.weights[k]):
            weights[phase_key(name, k, players)] = float(value)
        if worth is not None:
            for name, value in zip(worth.names, worth.weights[k]):
                weights[phase_key(HORIZON + name, k, players)] = float(value)
    return BotChoice(label, kind, weights)


def check(game_name: str, players: int, policy: str, candidate: BotChoice, deals: np.ndarray, seed: int,
          batch_size: int = 512) -> Interval:
    """The candidate's pair share against ``policy`` on ``deals`` of ``seed``: seats split (the policy in the first
    half, rounded up) and every rotation played; a 95% t interval over deals (module docstring, step 4)."""
    from analysis.ladder import pair_lineup

    game = get_game(game_name)
    config = game.load_config()
    engine = game.batched(config, players)
    choices = {policy: resolve_bot(game, config, policy), candidate.label: candidate}
    lineup = pair_lineup(policy, candidate.label, players)
    frames = []
    for rotation in range(players):
        labels = [lineup[(seat + rotation) % players] for seat in range(players)]
        for start in range(0, deals.size, batch_size):
            part = deals[start:start + batch_size]
            state, _ = play_batch(engine, batched_bots(game, engine, [choices[label] for label in labels]),
                                  game_seeds(seed, part), game.max_turns(config))
            rank = engine.results(state).rank
            frames.append(pl.DataFrame({
                "game": np.repeat(rotation * (1 << 40) + part, players), "deal": np.repeat(part, players),
                "seat": np.tile(np.arange(players), part.size), "bot": np.tile(labels, part.size),
                "rank": rank[:, :players].reshape(-1).astype(np.int64)}))
    share = pair_share(pl.concat(frames), policy, candidate.label)
    return share


def self_play_stalls(game_name: str, players: int, choice: BotChoice, deals: np.ndarray, seed: int,
                     batch_size: int = 512) -> int:
    """Games without a result (stalls at the turn cap) when ``choice`` fills every seat on ``deals`` of ``seed``."""
    game = get_game(game_name)
    config = game.load_config()
    engine = game.batched(config, players)
    stalls = 0
    for start in range(0, deals.size, batch_size):
        part = deals[start:start + batch_size]
        state, _ = play_batch(engine, batched_bots(game, engine, [choice] * engine.players), game_seeds(seed, part),
                              game.max_turns(config))
        stalls += int((engine.results(state).rank[:, 0] == 0).sum())
    return stalls


def pair_share(records: pl.DataFrame, lower: str, upper: str) -> Interval:
    """The upper bot's pair share against the lower one in ``records`` (:func:`analysis.stats.skill_gradient`)."""
    from analysis import stats

    gradient = stats.skill_gradient(records, reference=lower)
    row = gradient.pairwise.filter((pl.col("bot_a") == upper) & (pl.col("bot_b") == lower))
    if row.height:
        r = row.row(0, named=True)
        return Interval(r["share"], r["share_low"], r["share_high"], int(r["deals"]))
    r = gradient.pairwise.filter((pl.col("bot_a") == lower) & (pl.col("bot_b") == upper)).row(0, named=True)
    return Interval(1 - r["share"], 1 - r["share_high"], 1 - r["share_low"], int(r["deals"]))


@dataclass
class Training:
    """What ``glade train`` found and whether it kept it."""

    game: str
    players: int
    policy: str
    target: str
    fit: Fit
    held: HeldOut
    worth: Fit | None
    held_worth: HeldOut | None
    checked: Interval | None
    kept: bool
    linear: float
    out: Path
    test_decisions: int
    games: int
    stalls: tuple[int, int] = (0, 0)  # the check's deals in self-play: games the fit, and the policy, left unfinished

    def describe(self) -> str:
        """What ``glade train`` prints."""
        result, held = self.fit, self.held
        lines = [f"{self.game}, {self.players} players: {self.games:,} deals played by {self.policy}; the fit: "
                 f"{result.decisions:,} sampled decisions of {result.deals:,} deals, {result.candidates:,} candidates "
                 f"each played to the end (target: {self.target}; within-decision R^2 {result.r2:.3f})"]
        if np.isfinite(self.linear):
            lines.append(f"  the policy's values are the weighted sum of the terms in {100 * self.linear:.1f}% of "
                         "the candidates")
        for k, start in enumerate(result.starts):
            weights = ", ".join(f"{name} {value:.3g} (se {error:.2g})"
                                for name, value, error in zip(result.names, result.weights[k], result.errors[k]))
            lines.append(f"  phase {k + 1} from turn {start}: {weights}")
        lines.append(f"  held out ({held.learned.units:,} deals, {self.test_decisions:,} decisions): pairwise "
                     f"accuracy {held.learned.text()}, {self.policy}'s {held.policy.text()}, difference "
                     f"{held.difference.text(sign=True)}")
        if self.worth is not None and self.held_worth is not None:
            for k, start in enumerate(self.worth.starts):
                weights = ", ".join(f"{name} {value:.3g} (se {error:.2g})" for name, value, error
                                    in zip(self.worth.names, self.worth.weights[k], self.worth.errors[k]))
                lines.append(f"  the planner's horizon, phase {k + 1}: {weights}")
            lines.append(f"  held out at the horizon ({self.worth.candidates:,} candidates in the fit): pairwise "
                         f"accuracy {self.held_worth.learned.text()}, the planner's worth "
                         f"{self.held_worth.policy.text()}, difference {self.held_worth.difference.text(sign=True)}")
        if self.checked is not None:
            lines.append(f"  check on {self.checked.units:,} fresh deals (seats rotated): the fit beats "
                         f"{self.policy} {self.checked.text()}; in self-play on those deals the fit stalls in "
                         f"{self.stalls[0]:,} games, {self.policy} in {self.stalls[1]:,}")
        reason = ("the check's interval does not lie above 50%" if self.checked is not None
                  and self.checked.low <= 0.5 else f"the fit stalls more often than {self.policy} in self-play")
        lines.append(f"  written to {self.out}" if self.kept else f"  not written: {reason} ({self.out} unchanged)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "policy": self.policy, "target": self.target,
                "starts": list(self.fit.starts),
                "weights": [dict(zip(self.fit.names, map(float, row))) for row in self.fit.weights],
                "errors": [dict(zip(self.fit.names, map(float, row))) for row in self.fit.errors],
                "r2": self.fit.r2, "candidates": self.fit.candidates, "decisions": self.fit.decisions,
                "deals": self.fit.deals, "held_out": {name: getattr(self.held, name).as_dict()
                                                      for name in ("learned", "policy", "difference")},
                "worth": None if self.worth is None else [dict(zip(self.worth.names, map(float, row)))
                                                          for row in self.worth.weights],
                "held_out_worth": None if self.held_worth is None else {
                    name: getattr(self.held_worth, name).as_dict() for name in ("learned", "policy", "difference")},
                "check": None if self.checked is None else self.checked.as_dict(), "kept": self.kept,
                "self_play_stalls": {"fit": self.stalls[0], "policy": self.stalls[1]},
                "linear": self.linear, "out": str(self.out)}


def train(game_name: str, players: int, games: int, seed: int, out: str | Path, policy: str = "greedy",
          phases: int = 2, target: str = "margin", sample: float = 0.05, top: int = 6, extra: int = 2,
          check_games: int = 200, batch_size: int = 512, command: str = "",
          progress: Callable[[int], None] | None = None) -> Training:
    """Records, fit, held-out accuracy and check (module docstring); writes ``out`` when the check is passed."""
    if players < 2:
        raise ConfigError("--players", str(players), "at least 2 (the outcome is a result against opponents)",
                          has_got=False)
    if target not in TARGETS:
        raise ConfigError("--target", target, "one of " + ", ".join(TARGETS), has_got=False)
    game = get_game(game_name)
    config = game.load_config()
    names = tuple(game.bot_weights(config, "greedy"))
    records = collect(game.name, players, policy, games, seed, sample, top, extra, batch_size, progress)
    test = records.deal % HELD_OUT == HELD_OUT - 1
    starts = phase_starts(records.rows(~test).turn, phases)
    result = fit(records.rows(~test), names, starts, target)
    held = held_out(records.rows(test), result, target)
    worth = held_worth = None
    if np.isfinite(records.horizon).all(axis=1).sum() > 2 * len(names) * len(starts):
        worth = fit(records.rows(~test), names, starts, target, "horizon")
        held_worth = held_out(records.rows(test), worth, target, "horizon")
    candidate = learned_choice_of(result, players, game.bot_weights(config, "greedy"),
                                  label=LEARNED if policy != LEARNED else f"{LEARNED}_next")
    checked = None
    stalls = (0, 0)
    if check_games:
        deals = np.arange(games, games + check_games)
        checked = check(game.name, players, policy, candidate, deals, seed, batch_size)
        stalls = (self_play_stalls(game.name, players, candidate, deals, seed, batch_size),
                  self_play_stalls(game.name, players, resolve_bot(game, config, policy), deals, seed, batch_size))
    kept = checked is None or (checked.low > 0.5 and stalls[0] <= stalls[1])
    linear = records.linear / records.checked if records.checked else float("nan")
    training = Training(game.name, players, policy, target, result, held, worth, held_worth, checked, kept,
                        linear, Path(out),
                        int(np.unique(records.rows(test).groups()).size), games, stalls)
    if kept:
        write_learned(training, seed, command)
    return training


def write_learned(training: Training, seed: int, command: str) -> None:
    """The learned file (:mod:`sims.core.learned`): header, fit record and the phases' weights."""
    result = training.fit
    lines = [f"# The learned evaluation of {training.game} at {training.players} players: greedy's weights fitted",
             "# to game outcomes, one set per phase (analysis/learn.py, docs/bots.md). Written by glade train;",
             "# the bots `learned` and `learned_planner` read it.",
             f"game = {json.dumps(training.game)}",
             f"players = {training.players}",
             f"seed = {seed}",
             f"date = {json.dumps(datetime.date.today().isoformat())}",
             f"command = {json.dumps(command)}",
             f"policy = {json.dumps(training.policy)}",
             f"target = {json.dumps(training.target)}",
             'method = "OLS of the outcome on the greedy terms within decisions (fixed effects), by phase; '
             'standard errors clustered by deal (statsmodels)"',
             "",
             "[fit]",
             f"candidates = {result.candidates}",
             f"decisions = {result.decisions}",
             f"deals = {result.deals}",
             f"r2_within = {result.r2:.4f}",
             f"linear_share = {training.linear:.4f}" if np.isfinite(training.linear) else "linear_share = nan",
             f"held_out_decisions = {training.test_decisions}"]
    held = [("held_out", training.held), ("horizon_held_out", training.held_worth)]
    for prefix, part in held:
        for name in ("learned", "policy", "difference") if part is not None else ():
            values = getattr(part, name).as_dict()
            lines.append(f"{prefix}_{name} = {{ " + ", ".join(f"{k} = {v}" for k, v in values.items()) + " }")
    if training.checked is not None:
        part = training.checked.as_dict()
        lines += ["", "[check]", f"against = {json.dumps(training.policy)}"]
        lines += [f"{k} = {v}" for k, v in part.items()]
        lines += [f"self_play_stalls = {training.stalls[0]}", f"policy_self_play_stalls = {training.stalls[1]}"]
    for k, start in enumerate(result.starts):
        lines += ["", "[[phases]]", f"from_turn = {start}"]
        for name, value, error in zip(result.names, result.weights[k], result.errors[k]):
            lines.append(f"{name} = {float(value)!r}  # se {error:.3g}")
        if training.worth is not None:
            lines += ["[phases.worth]  # the planner's value of a rollout's end in this phase"]
            for name, value, error in zip(training.worth.names, training.worth.weights[k], training.worth.errors[k]):
                lines.append(f"{name} = {float(value)!r}  # se {error:.3g}")
    path = training.out
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
