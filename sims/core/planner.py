"""Rollout planning over a greedy bot, shared by the games' ``planner`` bots.

A planner takes its greedy bot's best ``candidates`` actions in each game,
plays each on a copy (hidden information reshuffled with the planner's own
stream, so it never reads the real order), lets greedy bots play every seat
until a horizon, and chooses the candidate worth most there. Ties go to the
greedy value, then the greedy noise. A game supplies only the hooks: what is
hidden, where the horizon is, and what a position is worth.

Weights of a planner (a game's ``[bots.planner]``, or the ``strong`` bot's
``strong_weights`` on top of them, :mod:`sims.core.play`):

* ``candidates``, ``depth``: greedy's actions kept, the rollout's limit;
* ``samples`` (default 1): rollouts per candidate, each with its own
  reshuffle of the hidden information and its own rollout noise; a candidate
  is worth their mean (with a finished game's :data:`WIN_BONUS`, its win
  share first);
* ``replies`` (default 0): the next decision's best greedy actions played
  each before the rollout; a candidate is then worth the least of the
  opponent's replies, or the most of its own follow-ups (2 plies, rollouts
  at the leaves);
* ``prune`` (default none, or the class's ``default_prune``): candidates more than this below their game's
  best greedy value are not rolled out (0: rollouts only break greedy's
  ties);
* ``turns`` (default 0: the game's horizon): rollouts stop once this many
  turns are over, the candidate's own counted (1: the end of the planner's
  own turn, its sub-decisions and what the turn's end draws included);
* ``halving`` (default 0: off): sequential halving over the candidates. In
  round ``r`` every surviving candidate gets ``samples * 2**r`` more
  rollouts, then each game keeps the better half (rounded up) by mean worth
  so far, until one candidate is left; with 8 candidates and ``samples`` 1
  that is 8 + 4 x 2 + 2 x 4 = 24 rollouts, most of them spent telling the
  best few apart. Rollout ``k`` of every candidate draws from sample ``k``'s
  streams (the same reshuffle and noise), so candidates are compared on
  common random numbers;
* ``final_replies`` (default 0: ``replies``): with ``halving``, the replies
  of the rounds between a game's last two candidates (a 2-ply final);
* ``iterations`` (default 0: off): information-set tree search instead
  (:mod:`sims.core.search`, weights ``walkers``, ``tree_depth``, ``widen``, ``observe``,
  ``uct`` there): that many determinizations of the hidden information, the
  first rolling out every candidate, each later one ``walkers`` paths per game
  down a tree over every seat's decisions;
* ``budget`` (default 0: off): UCB allocation of ``budget`` rollouts per game (at least ``samples`` per
  candidate first), ``walkers`` (default 4) candidates per game and round chosen by UCB1 (mean worth plus
  ``uct`` (default 0.5) times the game's range of running worths times ``sqrt(ln n / n_c)``); a candidate's
  ``j``-th rollout draws from sample ``j``'s streams whenever it is played, so candidates are compared on
  common random numbers. The most rolled-out candidate is played, ties to the higher mean worth;
* ``reply_planner`` (default 0: off): with 1, each rollout's first decision of another seat is chosen by the
  planner itself in that seat (the class's defaults for the search weights, one sample, drawing from this
  planner's streams ``plan/<seat>/model/<that seat>``, never the real opponent's) instead of greedy; the
  planner's own decisions before it and the rest of the rollout are greedy's;
* ``explore`` (default 0): the chance that a seat of a rollout played by
  :meth:`RolloutPlanner.roll_out` plays a uniformly random legal action
  instead of greedy's (a game whose rollouts run in a compiled kernel
  ignores it).

A weight named ``<name>_<P>p`` (``samples_4p``) replaces ``<name>`` at ``P``
players, so one set of weights can differ by player count.

Sample ``k > 0`` draws from streams named ``plan/<seat>/<name>/s<k>``, sample
0 from ``plan/<seat>/<name>``: with the defaults the planner is exactly the
one-rollout planner, and every choice depends only on each game's seed and
counters, never on the batch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sims.core.choice import take_best, top_per_group
from sims.core.engine import BatchedBot, BatchedState, branch_games, take_games  # noqa: F401 (branch_games: its old home)
from sims.core.rng import purpose_key, uniforms
from sims.core.search import TERMINAL, search_choices
from sims.core.spec import weight_at

WIN_BONUS = 1e6  # a finished game's result counts before any evaluation
# search weights a reply model (weight ``reply_planner``) leaves to its class's defaults
MODEL_DROPS = frozenset({"candidates", "samples", "replies", "halving", "final_replies", "iterations", "walkers",
                         "tree_depth", "widen", "uct", "observe", "budget", "reply_planner"})


class Candidates(NamedTuple):
    """The greedy bot's scored actions, flat and ordered by game.

    ``played``: copies of the games with each action already applied (row i
    for item i), when the greedy scoring made them anyway; None to have the
    planner apply them.
    """

    games: np.ndarray
    actions: np.ndarray
    value: np.ndarray
    noise: np.ndarray
    played: BatchedState | None = None


def reshuffle_unseen(items: np.ndarray, first_unseen: np.ndarray, seeds: np.ndarray, purpose: str,
                     counter: np.ndarray) -> np.ndarray:
    """``items [n, k]`` (a bag, a pile) with positions from ``first_unseen`` on shuffled by the stream
    ``purpose``; the seen positions before it keep their place."""
    total = items.shape[1]
    if total == 0:
        return items
    keys = uniforms(seeds, purpose, counter, total)
    seen = np.arange(total)[None, :] < first_unseen[:, None]
    order = np.argsort(np.where(seen, -1.0, keys), axis=1, kind="stable")
    return np.take_along_axis(items, order, axis=1)


def better_half(groups: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """bool ``[n]``: the items in the better half (rounded up) of their group, ranked by the first key, ties by
    the next (higher is better)."""
    order = np.lexsort(tuple(-key for key in reversed(keys)) + (groups,))
    ranked = groups[order]
    first = np.r_[True, ranked[1:] != ranked[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(ranked.size), 0))
    rank = np.arange(ranked.size) - start
    size = np.bincount(ranked)[ranked]
    keep = np.empty(groups.size, dtype=bool)
    keep[order] = rank < (size + 1) // 2
    return keep


class RolloutPlanner(BatchedBot):
    """Mixin that turns a greedy bot into a rollout planner: ``class PlannerBot(RolloutPlanner, GreedyBot)``.

    Weights ``candidates`` and ``depth`` override the class defaults; ``samples`` and ``explore``: the module
    docstring. A game implements :meth:`hide_unseen` (drawing from :meth:`plan_stream`) and :meth:`worth`, sets
    :attr:`rollout_bot_class` (the greedy bot playing every seat in a rollout), and either sets
    :attr:`turn_phase` (rollouts stop at this seat's next decision in that phase of a later turn) or implements
    :meth:`at_horizon`. A game's own :meth:`roll_out` takes its seats' noise streams from :meth:`rollout_keys`.
    """

    default_candidates: int = 6
    default_depth: int = 12
    default_prune: float | None = None  # the ``prune`` weight's default (None: no pruning)
    rollout_bot_class: type[BatchedBot]
    turn_phase: int | None = None  # the state's ``phase`` in which a seat starts its turn
    strong_weights: dict[str, float] = {"samples": 4.0}  # set on the weights of the game's ``strong`` bot
    sample: int = 0  # the rollout sample being played (its streams: :meth:`plan_stream`)
    plan_root: str | None = None  # the streams' prefix (None: ``plan/<seat>``); a reply model's are its planner's
    _rollout_bots: dict[int, list[BatchedBot]] | None = None
    _reply_models: dict[int, list[BatchedBot]] | None = None
    horizon: "RolloutPlanner | None" = None  # a planner whose worth values the rollouts' ends instead (learned)

    def weight(self, name: str, default: float | None) -> float | None:
        """The weight ``name``: its ``<name>_<players>p`` entry at this player count, else ``name``, else
        ``default``."""
        return self.weights.get(weight_at(name, self.engine.players), self.weights.get(name, default))

    @property
    def candidate_count(self) -> int:
        return int(self.weight("candidates", self.default_candidates))

    @property
    def depth(self) -> int:
        return int(self.weight("depth", self.default_depth))

    @property
    def sample_count(self) -> int:
        return max(1, int(self.weight("samples", 1)))

    @property
    def reply_count(self) -> int:
        return int(self.weight("replies", 0))

    @property
    def horizon_turns(self) -> int:
        """The ``turns`` weight: turns a rollout plays, the candidate's own counted (0: the game's horizon)."""
        return int(self.weight("turns", 0))

    @property
    def explore(self) -> float:
        return float(self.weight("explore", 0.0))

    def plan_stream(self, name: str) -> str:
        """The purpose of this planner's stream ``name`` in the current :attr:`sample`: ``plan/<seat>/<name>``,
        with ``/s<k>`` appended in sample ``k > 0``."""
        root = self.plan_root or f"plan/{self.seat}"
        return f"{root}/{name}" + (f"/s{self.sample}" if self.sample else "")

    # --- hooks --------------------------------------------------------------------------------

    def candidates(self, state: BatchedState, active: np.ndarray, chosen: np.ndarray) -> Candidates:
        """The greedy bot's scored legal actions of the active games; may settle forced games in ``chosen``."""
        games, actions, value, noise = self.scored_actions(state, active)[:4]
        return Candidates(games, actions, value, noise)

    def hide_unseen(self, branch: BatchedState) -> None:
        """Reshuffle what the planner may not see (a pile's order) with its own stream."""

    def at_horizon(self, branch: BatchedState, start_turn: np.ndarray) -> np.ndarray:
        """bool ``[n]``: rollouts that stop here; ``start_turn`` is the turn the candidate was chosen in.

        With the ``turns`` weight: ``turns`` turns over; by default: this seat's next decision in
        :attr:`turn_phase` of a later turn.
        """
        if self.horizon_turns:
            return branch.turn >= start_turn + self.horizon_turns
        if self.turn_phase is None:
            raise NotImplementedError("set turn_phase or implement at_horizon")
        return (branch.to_move == self.seat) & (branch.phase == self.turn_phase) & (branch.turn > start_turn)

    def max_rollout_decisions(self) -> int | None:
        """Decisions a rollout may take at most (None: only the horizon stops it)."""
        return self.depth

    def worth(self, branch: BatchedState) -> np.ndarray:
        """float ``[n]``: what each rollout's final position is worth to this planner's seat."""
        raise NotImplementedError

    def end_worth(self, branch: BatchedState, worth: np.ndarray | None = None) -> np.ndarray:
        """What the rollouts' ends of ``branch`` are worth: ``worth`` (default :meth:`worth`), or the worth of
        :attr:`horizon` where it is set (a learned value of the horizon, :mod:`sims.core.learned`)."""
        if self.horizon is not None:
            return self.horizon.worth(branch)
        return self.worth(branch) if worth is None else worth

    # --- the plan -----------------------------------------------------------------------------

    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        found = self.candidates(state, active, chosen)
        if found.games.size == 0:
            return chosen
        keep = self.kept_candidates(found)
        games, actions, value, noise = (found.games[keep], found.actions[keep],
                                        found.value[keep], found.noise[keep])
        if self.weight("iterations", 0):
            search_choices(self, state, found, keep, chosen)
            return chosen
        if self.weight("budget", 0):
            mean, played = self.ucb_worth(state, found, keep)
            take_best(chosen, games, actions, played.astype(np.float64), mean, value, noise)
            return chosen
        if self.weight("halving", 0):
            mean, alive = self.halving_worth(state, found, keep)
            take_best(chosen, games[alive], actions[alive], mean[alive], value[alive], noise[alive])
            return chosen
        worth = self.sampled_worth(state, found, keep, range(self.sample_count))
        take_best(chosen, games, actions, worth / self.sample_count, value, noise)
        return chosen

    def sampled_worth(self, state: BatchedState, found: Candidates, keep: np.ndarray, samples: range,
                      replies: int | None = None) -> np.ndarray:
        """float ``[keep.size]``: the summed worth of the candidates ``found[keep]`` over the rollout ``samples``,
        each a 2-ply one with ``replies`` (default :attr:`reply_count`) replies."""
        replies = self.reply_count if replies is None else replies
        start_turn = state.turn[found.games[keep]]
        worth = np.zeros(keep.size, dtype=np.float64)
        for self.sample in samples:
            branch = self.candidate_branch(state, found, keep)
            if self.weight("reply_planner", 0):
                self.plan_first_reply(branch, start_turn)
            worth += self.reply_worth(branch, start_turn, replies) if replies else self.roll_out(branch, start_turn)
        self.sample = 0
        return worth

    def halving_worth(self, state: BatchedState, found: Candidates, keep: np.ndarray) -> tuple[np.ndarray, ...]:
        """Sequential halving over the candidates ``found[keep]`` (weight ``halving``, the module docstring):
        each candidate's mean worth over its rollouts, and bool ``alive``, the candidates of the last round."""
        games = found.games[keep]
        total = np.zeros(keep.size, dtype=np.float64)
        played = np.zeros(keep.size, dtype=np.int64)  # rollouts of each candidate so far
        alive = np.ones(keep.size, dtype=bool)
        batch = self.sample_count
        final_replies = int(self.weight("final_replies", 0)) or self.reply_count
        while True:
            rivals = np.bincount(games[alive], minlength=int(games.max()) + 1)
            racing = np.flatnonzero(alive & (rivals[games] > 1))
            if racing.size == 0:
                break
            first = int(played[racing[0]])  # every racing candidate has played as many
            final = rivals[games[racing]] == 2
            for part, replies in ((racing[~final], self.reply_count), (racing[final], final_replies)):
                if part.size:
                    total[part] += self.sampled_worth(state, found, keep[part], range(first, first + batch), replies)
            played[racing] += batch
            mean = total[racing] / played[racing]
            alive[racing] = better_half(games[racing], mean, found.value[keep[racing]], found.noise[keep[racing]])
            batch *= 2
        return total / np.maximum(played, 1), alive

    def ucb_worth(self, state: BatchedState, found: Candidates, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """UCB allocation of each game's ``budget`` rollouts among the candidates ``found[keep]`` (weight
        ``budget``, the module docstring): each candidate's mean worth and its number of rollouts."""
        games = found.games[keep]
        size = int(games.max()) + 1
        low, high = np.full(size, np.inf), np.full(size, -np.inf)

        def widen(rows: np.ndarray, worth: np.ndarray) -> None:
            running = np.abs(worth) < TERMINAL
            np.minimum.at(low, games[rows[running]], worth[running])
            np.maximum.at(high, games[rows[running]], worth[running])

        total = np.zeros(keep.size)
        for sample in range(self.sample_count):
            worth = self.sampled_worth(state, found, keep, range(sample, sample + 1))
            total += worth
            widen(np.arange(keep.size), worth)
        played = np.full(keep.size, self.sample_count, dtype=np.int64)
        budget = float(self.weight("budget", 0))
        walkers = int(self.weight("walkers", 4))
        scale = float(self.weight("uct", 0.5))
        rivals = np.bincount(games)[games]
        while True:
            spent = np.bincount(games, weights=played, minlength=size)[games]
            open_ = (spent < budget) & (rivals > 1)
            if not open_.any():
                break
            spread = np.where(high > low, high - low, 1.0)[games]
            score = total / played + scale * spread * np.sqrt(np.log(spent) / played)
            pick = np.sort(top_per_group(games, np.where(open_, score, -np.inf), found.value[keep],
                                         found.noise[keep], k=walkers))
            pick = pick[open_[pick]]
            for index in np.unique(played[pick]):
                part = pick[played[pick] == index]
                worth = self.sampled_worth(state, found, keep[part], range(int(index), int(index) + 1))
                total[part] += worth
                widen(part, worth)
            played[pick] += 1
        return total / played, played

    def kept_candidates(self, found: Candidates) -> np.ndarray:
        """Indices of ``found`` that are rolled out: each game's best :attr:`candidate_count` by greedy value,
        without those more than the ``prune`` weight below their game's best greedy value."""
        keep = np.sort(top_per_group(found.games, found.value, found.noise, k=self.candidate_count))
        prune = self.weight("prune", self.default_prune)
        if prune is None or keep.size == 0:
            return keep
        best = np.full(int(found.games.max()) + 1, -np.inf)
        np.maximum.at(best, found.games[keep], found.value[keep])
        return keep[found.value[keep] >= best[found.games[keep]] - prune]

    def candidate_branch(self, state: BatchedState, found: Candidates, keep: np.ndarray) -> BatchedState:
        """Copies of the games with the kept candidates ``found[keep]`` played, hidden information reshuffled
        (before the move, which may draw) with the current sample's stream."""
        return self._play(state, found, keep, hide=True)

    def _play(self, state: BatchedState, found: Candidates, keep: np.ndarray, hide: bool) -> BatchedState:
        """Copies of games ``found.games[keep]`` of ``state`` with ``found.actions[keep]`` played (``found.played``
        rows where the scoring made them); ``hide``: :meth:`hide_unseen` first."""
        if found.played is not None:
            branch = self.engine.branch(found.played, keep)
            if hide:
                self.hide_unseen(branch)
            return branch
        branch = self.engine.branch(state, found.games[keep])
        if hide:
            self.hide_unseen(branch)
        self.engine.step(branch, found.actions[keep])
        branch.decisions += 1
        return branch

    def reply_worth(self, branch: BatchedState, start_turn: np.ndarray, replies: int | None = None) -> np.ndarray:
        """float ``[n]``: each candidate of ``branch`` worth the least of its best ``replies`` (default
        :attr:`reply_count`) opponent replies (the most, where this seat decides next), each rolled out; a
        candidate at its horizon or the end, or with no reply, is rolled out as it is."""
        ahead = ~branch.done & ~self.at_horizon(branch, start_turn)
        found = self.candidates(branch, ahead, np.full(branch.size, -1, dtype=np.int64))
        keep = np.sort(top_per_group(found.games, found.value, found.noise, k=replies or self.reply_count))
        parents = found.games[keep]
        worth = np.full(branch.size, -np.inf)
        least = np.full(branch.size, np.inf)
        if parents.size:
            leaf = self.roll_out(self._play(branch, found, keep, hide=False), start_turn[parents])
            mine = branch.to_move[parents] == self.seat
            np.maximum.at(worth, parents, np.where(mine, leaf, -np.inf))
            np.minimum.at(least, parents, np.where(mine, np.inf, leaf))
        worth = np.where(branch.to_move == self.seat, worth, least)
        alone = np.setdiff1d(np.arange(branch.size), parents)
        if alone.size:
            worth[alone] = self.roll_out(self.engine.branch(branch, alone), start_turn[alone])
        return worth

    def plan_first_reply(self, branch: BatchedState, start_turn: np.ndarray) -> None:
        """Play ``branch`` on to each game's first decision of another seat (this seat's decisions before it
        greedy's) and play that decision by :meth:`reply_models` (weight ``reply_planner``)."""
        bots = self.rollout_bots()
        limit = self.max_rollout_decisions()
        for _ in range(limit if limit is not None else 1 << 30):
            mine = ~branch.done & ~self.at_horizon(branch, start_turn) & (branch.to_move == self.seat)
            if not mine.any():
                break
            self._rollout_step(branch, mine, bots)
        theirs = ~branch.done & ~self.at_horizon(branch, start_turn) & (branch.to_move != self.seat)
        if theirs.any():
            self._rollout_step(branch, theirs, self.reply_models())

    def reply_models(self) -> list[BatchedBot]:
        """The planner of each seat that models an opponent's first reply in the current sample (made once):
        this planner's class and weights without the search weights of :data:`MODEL_DROPS`, its greedy noise
        and rollouts drawing from ``plan/<my seat>/model/<seat>`` (with this sample's suffix)."""
        if self._reply_models is None:
            self._reply_models = {}
        if self.sample not in self._reply_models:
            weights = {name: value for name, value in self.weights.items()
                       if name.rsplit("_", 1)[0] not in MODEL_DROPS and name not in MODEL_DROPS}
            models = []
            for seat in range(self.engine.players):
                root = self.plan_stream(f"model/{seat}")
                model = type(self)(self.engine, seat, weights, stream=root)
                model.plan_root = root
                models.append(model)
            self._reply_models[self.sample] = models
        return self._reply_models[self.sample]

    def rollout_bots(self) -> list[BatchedBot]:
        """The greedy bot of each seat in this planner's rollouts of the current sample (made once), drawing
        its noise from ``plan/<my seat>/<seat>`` (:meth:`plan_stream`)."""
        if self._rollout_bots is None:
            self._rollout_bots = {}
        if self.sample not in self._rollout_bots:
            self._rollout_bots[self.sample] = [
                self.rollout_bot_class(self.engine, seat, self.weights, stream=self.plan_stream(str(seat)))
                for seat in range(self.engine.players)]
        return self._rollout_bots[self.sample]

    def rollout_keys(self) -> np.ndarray:
        """uint64 ``[players]``: the noise purpose key of each seat's rollout bot in the current sample."""
        return np.array([purpose_key(bot.stream) for bot in self.rollout_bots()], dtype=np.uint64)

    def roll_out(self, branch: BatchedState, start_turn: np.ndarray) -> np.ndarray:
        """Greedy bots in every seat play ``branch`` on until the horizon, the end or the decision limit;
        returns each rollout's :meth:`worth`.

        Once at most half the games still play, the stopped ones are valued and
        the rest go on in a smaller copy, so each step costs what plays.
        """
        bots = self.rollout_bots()
        limit = self.max_rollout_decisions()
        worth = np.empty(branch.size, dtype=np.float64)
        rows = np.arange(branch.size)  # the rollout each game of ``branch`` is
        taken = 0
        while True:
            live = ~branch.done
            if limit is None or taken < limit:
                live &= ~self.at_horizon(branch, start_turn)
            else:
                live[:] = False
            playing = np.flatnonzero(live)
            if playing.size == 0:
                break
            if 2 * playing.size <= branch.size:
                stopped = np.flatnonzero(~live)
                worth[rows[stopped]] = self.end_worth(branch)[stopped]
                branch, rows, start_turn = take_games(branch, playing), rows[playing], start_turn[playing]
                live = np.ones(branch.size, dtype=bool)
            self._rollout_step(branch, live, bots)
            taken += 1
        worth[rows] = self.end_worth(branch)
        return worth

    def _rollout_step(self, branch: BatchedState, live: np.ndarray, bots: list[BatchedBot]) -> None:
        """Every ``live`` game takes one decision; the others sit it out."""
        replies = np.full(branch.size, -1, dtype=np.int64)
        for seat in np.unique(branch.to_move[live]):
            movers = live & (branch.to_move == seat)
            replies[movers] = bots[int(seat)].act(branch, movers)[movers]
        if self.explore > 0:
            self._explore(branch, live, replies)
        frozen = ~live & ~branch.done
        if frozen.any():
            branch.done |= frozen  # games at the horizon sit out the step
            self.engine.step(branch, replies)
            branch.done &= ~frozen
        else:
            self.engine.step(branch, replies)
        branch.decisions[live] += 1

    def _explore(self, branch: BatchedState, live: np.ndarray, replies: np.ndarray) -> None:
        """Replace the replies of the ``live`` games whose draw of the stream ``explore`` falls below
        :attr:`explore` with a uniformly random legal action (drawn from the same stream)."""
        draws = uniforms(branch.seeds, self.plan_stream("explore"), branch.decisions, 2)
        rows = np.flatnonzero(live & (draws[:, 0] < self.explore))
        if rows.size:
            replies[rows] = self.engine.choose_uniform(branch, rows, draws[rows, 1])
