"""Vora bots, batched: random, greedy (one ply) and planner (greedy rollouts)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.choice import top_per_group
from sims.core.engine import BatchedBot, take_games
from sims.core.rng import uniforms, uniforms_at
from sims.vora.rules import BIG, MAIN, ONE, RECIPIENT, U64, ZERO, VoraEngine, VoraState, nth_bit, popcount


class RandomBot(BatchedBot):
    """Uniform among legal actions: legal action number ``min(floor(u * n), n - 1)`` in ascending order.

    Legal actions are counted block by block from bitboards and the chosen one
    decoded, without listing them (the same actions as the engine's legal mask).
    """

    engine: VoraEngine

    def act(self, state: VoraState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.nonzero(active & ~state.done)[0]
        if rows.size == 0:
            return chosen
        u = uniforms(state.seeds[rows], f"bot/{self.seat}", state.decisions[rows])[:, 0]
        main = state.phase[rows] == MAIN
        if main.all():
            chosen[rows] = self._main(state, rows, u)
        else:
            if main.any():
                chosen[rows[main]] = self._main(state, rows[main], u[main])
            other = ~main
            chosen[rows[other]] = self._sub_decision(state, rows[other], u[other])
        return chosen

    def _sub_decision(self, state: VoraState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """RECIPIENT (seats), EXTRA (picks) and BIG (picks, then steals) decisions."""
        engine = self.engine
        offsets = engine.config.offsets
        phase = state.phase[rows]
        me = state.to_move[rows].astype(np.int64)
        first = np.zeros(rows.size, dtype=np.uint64)
        second = np.zeros(rows.size, dtype=np.uint64)
        asks = phase == RECIPIENT
        if asks.any():
            first[asks] = engine.recipient_flags(state, rows[asks], me[asks])
        picks = ~asks
        if picks.any():
            first[picks] = engine.geo.occupied(np.take(engine.kinds(state), rows[picks], axis=1))
            big = np.nonzero(phase == BIG)[0]
            if big.size:
                second[big] = engine.steal_flags(state, rows[big], me[big])
        n_first = popcount(first).astype(np.int64)
        total = n_first + popcount(second)
        k = np.minimum((u * total).astype(np.int64), total - 1)
        in_first = k < n_first
        bit = nth_bit(np.where(in_first, first, second), np.where(in_first, k, k - n_first))
        base = np.where(asks, offsets["recipient"], np.where(in_first, offsets["pick"], offsets["steal"]))
        return base + bit

    def _main(self, state: VoraState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Main actions, blocks in action order: push, double, devour, wolf, pick_up, fly_swap, dig.

        With one farm cube the pushes are the lines the forbidden rule leaves
        open (``push_lines``, ``double_lines``); otherwise every line.
        """
        engine, geo = self.engine, self.engine.geo
        offsets = engine.config.offsets
        kinds = np.take(engine.kinds(state), rows, axis=1)
        size = rows.size
        me = state.to_move[rows].astype(np.int64)
        farm = state.farms[rows, me]
        has = farm >= 1
        push_lines = np.full(size, geo.all_lines, dtype=np.uint64)
        double_lines = push_lines.copy()
        last = np.nonzero(farm.sum(axis=1) == 1)[0]
        if last.size:
            push_lines[last], double_lines[last] = engine.last_cube_pushes(np.take(kinds, last, axis=1), farm[last],
                                                                           me[last])
        n_push = popcount(push_lines).astype(np.int64)
        present = np.packbits(has, axis=1, bitorder="little")
        present = present[:, 0].astype(np.uint64) | (present[:, 1].astype(np.uint64) << U64(8) if present.shape[1] > 1
                                                      else ZERO)
        zero = np.zeros(size, dtype=np.int64)
        animals = np.bitwise_or.reduce(kinds[geo.animal_kinds], axis=0)
        ducks = kinds[geo.duck] if geo.duck >= 0 else np.zeros(size, dtype=np.uint64)
        plants = np.bitwise_or.reduce(kinds[geo.plant_kinds], axis=0)  # a duck's targets: these but itself
        ladybugs = kinds[geo.ladybug] if geo.ladybug >= 0 else np.zeros(size, dtype=np.uint64)
        moles = kinds[geo.mole] if geo.mole >= 0 else np.zeros(size, dtype=np.uint64)
        n_targets = popcount(plants).astype(np.int64) - int(geo.duck >= 0 and not geo.animal[geo.duck])
        counts = np.stack([  # [7, n]
            popcount(present).astype(np.int64) * n_push,
            has[:, geo.pig] * popcount(double_lines) if geo.pig >= 0 else zero,
            has[:, geo.crow] * popcount(animals).astype(np.int64) if geo.crow >= 0 else zero,
            has[:, geo.wolf] * (popcount(animals & geo.border).astype(np.int64)
                                + popcount(animals & geo.corners)) if geo.wolf >= 0 else zero,
            popcount(ladybugs).astype(np.int64),
            popcount(ducks).astype(np.int64) * n_targets,
            sum(count * popcount(moles & cells).astype(np.int64) for count, cells in geo.dig_classes),
        ])
        running = np.cumsum(counts, axis=0)
        total = running[-1]
        k = np.minimum((u * total).astype(np.int64), total - 1)
        block = (running <= k).sum(axis=0)
        index = np.arange(size)
        k -= running[block, index] - counts[block, index]
        # first the kind pushed, the double line, the cell devoured or picked up, or the duck; then the
        # line of a push or the target of a duck
        n_targets = np.maximum(n_targets, 1)
        words = np.stack([present, double_lines, animals, ZERO * animals, ladybugs, ducks, ZERO * animals])
        first = nth_bit(words[block, index], np.where(block == 0, k // n_push, np.where(block == 5, k // n_targets, k)),
                        width=max(geo.c, geo.lines, geo.k))
        # the second field: a push's line (the k-th line when all are open), a duck's target
        second = np.where(block == 0, k % n_push, 0)
        if last.size:
            narrow = last[block[last] == 0]
            second[narrow] = nth_bit(push_lines[narrow], k[narrow] % n_push[narrow], width=geo.lines)
        fly = np.nonzero(block == 5)[0]
        if fly.size:
            targets = plants[fly] & ~geo.cell_bit[first[fly]]
            second[fly] = nth_bit(targets, k[fly] % n_targets[fly], width=geo.c)
        action = geo.main_block_base[block] + first * geo.main_block_stride[block] + second
        wolf = np.nonzero(block == 3)[0]
        if wolf.size:
            action[wolf] = offsets["wolf"] + nth_bit(engine.wolf_lines(animals[wolf]), k[wolf], width=geo.lines)
        dig = np.nonzero(block == 6)[0]
        if dig.size:
            action[dig] = self._dig(moles[dig], k[dig])
        return action

    def _dig(self, moles: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The ``k``-th dig action of each meadow's moles, moles in cell order, directions in order."""
        geo = self.engine.geo
        flags = ((moles[:, None] >> np.arange(geo.c, dtype=np.uint64)) & ONE).astype(bool)
        running = np.cumsum(np.where(flags, geo.dig_count, 0), axis=1)
        cell = (running <= k[:, None]).sum(axis=1)
        before = running[np.arange(moles.size), cell] - geo.dig_count[cell]
        return self.engine.config.offsets["dig"] + cell * 8 + nth_bit(geo.dig_dirs[cell], k - before, width=8)


class GreedyBot(BatchedBot):
    """One ply on every decision: my family-score change minus the best opponent's.

    Every legal (game, action) is branched, played on to its next decision or
    the end of the turn (without the refill, which changes no farm), and
    valued ``(S_me_after - S_me_before) - max over opponents (S_o_after - S_o_before)``;
    the highest value wins, equal values go to the highest noise
    ``uniforms_at(seed, "bot/<seat>", decisions, action)``. The same choice as
    ``reference_bots.ReferenceGreedyBot``.
    """

    engine: VoraEngine

    def __init__(self, engine: VoraEngine, seat: int, weights: Mapping[str, float] | None = None,
                 stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream or f"bot/{seat}"

    def scored_actions(self, state: VoraState, active: np.ndarray):
        """Flat arrays ``game, action, value, noise`` over every legal action of the active games, by game."""
        engine, geo = self.engine, self.engine.geo
        rows = np.nonzero(active & ~state.done)[0]
        games, actions = engine.legal_pairs(state, rows)
        branch = engine.branch(state, games)
        engine.advance(branch, actions, refill=False)
        before = geo.scores(state.farms[rows].astype(np.int64))[np.searchsorted(rows, games)]
        change = geo.scores(branch.farms.astype(np.int64)) - before
        me = state.to_move[games].astype(np.int64)
        index = np.arange(games.size)
        mine = change[index, me]
        change[index, me] = -np.inf
        value = mine - change.max(axis=1)
        noise = uniforms_at(state.seeds[games], self.stream, state.decisions[games], actions)
        return games, actions, value, noise

    def act(self, state: VoraState, active: np.ndarray) -> np.ndarray:
        games, actions, value, noise = self.scored_actions(state, active)
        chosen = np.full(state.size, -1, dtype=np.int64)
        best = best_per_game(games, value, noise)
        chosen[games[best]] = actions[best]
        return chosen


def best_per_game(games: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """Index of each game's best item: highest first key, then the next...; the first such item in order.

    ``games`` must be sorted (items of a game together), as the reference bots
    scan actions in ascending order and keep the first best one.
    """
    if games.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
    segment = np.cumsum(np.r_[False, games[1:] != games[:-1]])
    best = np.ones(games.size, dtype=bool)
    for key in keys:
        masked = np.where(best, key, -np.inf)
        top = np.maximum.reduceat(masked, starts)
        best &= masked == top[segment]
    first = np.flatnonzero(best)
    return first[np.r_[True, segment[first][1:] != segment[first][:-1]]]


class PlannerBot(GreedyBot):
    """Rollouts: the best ``candidates`` greedy actions, each played on by greedy bots.

    A rollout continues until this bot's next main decision (every other seat
    has played its turn) or ``depth`` decisions, whichever comes first; the
    bag's unseen part is reshuffled first with the planner's own stream, so the
    planner never reads the real order of the bag. Every seat in a rollout
    plays greedy with the stream ``plan/<my seat>/<seat>``. A candidate is worth
    my family score minus the best opponent's at the rollout's end (a finished
    game: the result first, then that margin); ties go to the greedy value,
    then the noise.
    """

    def act(self, state: VoraState, active: np.ndarray) -> np.ndarray:
        engine = self.engine
        games, actions, value, noise = self.scored_actions(state, active)
        chosen = np.full(state.size, -1, dtype=np.int64)
        if games.size == 0:
            return chosen
        keep = top_per_group(games, value, noise, k=int(self.weights.get("candidates", 6)))
        games, actions, value, noise = games[keep], actions[keep], value[keep], noise[keep]
        branch = take_games(state, games)
        branch.logging = False
        self._reshuffle_bag(branch)
        start_turn = branch.turn.copy()
        engine.step(branch, actions)
        branch.decisions += 1
        rollout = [GreedyBot(engine, seat, stream=f"plan/{self.seat}/{seat}") for seat in range(engine.players)]
        for _ in range(int(self.weights.get("depth", 12))):
            live = ~branch.done & ~((branch.to_move == self.seat) & (branch.phase == MAIN)
                                    & (branch.turn > start_turn))
            if not live.any():
                break
            replies = np.full(branch.size, -1, dtype=np.int64)
            for seat in np.unique(branch.to_move[live]):
                movers = live & (branch.to_move == seat)
                replies[movers] = rollout[int(seat)].act(branch, movers)[movers]
            frozen = ~live & ~branch.done
            branch.done |= frozen  # games that reached the horizon sit out the step
            engine.step(branch, replies)
            branch.done &= ~frozen
            branch.decisions[live] += 1
        best = top_per_group(games, self.worth(branch), value, noise)  # few candidates: the general sort
        chosen[games[best]] = actions[best]
        return chosen

    def worth(self, branch: VoraState) -> np.ndarray:
        """My family score minus the best opponent's; a finished game's result counts first."""
        scores = self.engine.geo.scores(branch.farms.astype(np.int64))
        mine = scores[:, self.seat].copy()
        scores[:, self.seat] = -np.inf
        margin = mine - scores.max(axis=1)
        return np.where(branch.done, np.sign(margin) * 1e6, 0.0) + margin

    def _reshuffle_bag(self, branch: VoraState) -> None:
        """Shuffle the cubes not yet drawn (their kinds are public, their order is not)."""
        total = branch.bag.shape[1]
        keys = uniforms(branch.seeds, f"plan/{self.seat}/bag", branch.decisions, total)
        drawn = np.arange(total)[None, :] < branch.bag_pointer[:, None]
        keys = np.where(drawn, -1.0, keys)
        order = np.argsort(keys, axis=1, kind="stable")
        branch.bag = np.take_along_axis(branch.bag, order, axis=1)
