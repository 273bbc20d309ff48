"""Vora bots, batched: random, greedy (one ply) and planner (greedy rollouts)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sims.core.choice import ScoredBot
from sims.core.engine import BatchedBot
from sims.core.planner import WIN_BONUS, RolloutPlanner, reshuffle_unseen
from sims.core.rng import seat_uniforms, uniforms_at
from sims.vora.config import MAX_PLAYERS
from sims.vora.rules import BIG, MAIN, RECIPIENT, VoraEngine, VoraState, nth_bit, popcount


class RandomBot(BatchedBot):
    """Uniform among legal actions: legal action number ``min(floor(u * n), n - 1)`` in ascending order.

    Legal actions are counted block by block from bitboards and the chosen one
    decoded, without listing them (the same actions as the engine's legal mask).
    It plays any seat: in each game it draws from the stream of the seat to move
    (``bot/<seat>``), so the play loop asks it once for all random seats.
    """

    engine: VoraEngine
    plays_any_seat = True

    def act(self, state: VoraState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = (active & ~state.done).nonzero()[0]
        if rows.size:
            u = seat_uniforms(state.seeds[rows], state.to_move[rows], state.decisions[rows])
            main = state.phase[rows] == MAIN
            if np.count_nonzero(main) == main.size:
                chosen[rows] = self._main(state, rows, u)
            else:
                chosen[rows[main]] = self._main(state, rows[main], u[main])
                chosen[rows[~main]] = self._sub_decision(state, rows[~main], u[~main])
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
        if np.count_nonzero(asks):
            first[asks] = engine.recipient_flags(state, rows[asks], me[asks])
        picks = ~asks
        width = MAX_PLAYERS  # the seats of a recipient decision; meadow cells for picks
        if np.count_nonzero(picks):
            width = max(engine.geo.c, MAX_PLAYERS)
            first[picks] = engine.geo.occupied(engine.kinds(state).take(rows[picks], axis=1))
            big = (phase == BIG).nonzero()[0]
            if big.size:
                second[big] = engine.steal_flags(state, rows[big], me[big])
        n_first = popcount(first).astype(np.int64)
        total = n_first + popcount(second)
        k = np.minimum((u * total).astype(np.int64), total - 1)
        in_first = k < n_first
        bit = nth_bit(first, k, width=width)
        steal = (~in_first).nonzero()[0]
        if steal.size:
            bit[steal] = nth_bit(second[steal], k[steal] - n_first[steal], width=MAX_PLAYERS * engine.geo.k)
        base = np.where(asks, offsets["recipient"], np.where(in_first, offsets["pick"], offsets["steal"]))
        return base + bit

    def _main(self, state: VoraState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Main actions, blocks in action order: push, double, devour, wolf, pick_up, fly_swap, dig.

        With one farm cube the pushes are the lines the forbidden rule leaves
        open (``push_lines``, ``double_lines``); otherwise every line.
        """
        engine, geo = self.engine, self.engine.geo
        kinds = engine.kinds(state).take(rows, axis=1)
        size = rows.size
        me = state.to_move[rows].astype(np.int64)
        farm = engine.farms_of(state, rows, me)
        has = farm >= 1
        present = (has.astype(np.float32) @ geo.kind_weights).astype(np.uint64)  # engine.kinds_present
        push_lines = np.full(size, geo.all_lines, dtype=np.uint64)
        double_lines = push_lines.copy()
        last = (engine.farm_totals(farm) == 1).nonzero()[0]
        if last.size:
            push_lines[last], double_lines[last] = engine.last_cube_pushes(kinds.take(last, axis=1), farm[last],
                                                                           me[last])
        n_push = popcount(push_lines).astype(np.int64)
        animals = geo.union(kinds, geo.animal_kinds)
        plants = geo.union(kinds, geo.plant_kinds)  # a duck's targets: these but itself
        absent = np.zeros(size, dtype=np.uint64)
        ducks = kinds[geo.duck] if geo.duck >= 0 else absent
        ladybugs = kinds[geo.ladybug] if geo.ladybug >= 0 else absent
        moles = kinds[geo.mole] if geo.mole >= 0 else absent
        n_targets = popcount(plants).astype(np.int64) - int(geo.duck >= 0 and not geo.animal[geo.duck])
        counts = np.zeros((7, size), dtype=np.int64)
        counts[0] = popcount(present) * n_push
        if geo.pig >= 0:
            counts[1] = has[:, geo.pig] * popcount(double_lines)
        if geo.crow >= 0:
            counts[2] = has[:, geo.crow] * popcount(animals)
        if geo.wolf >= 0:
            counts[3] = has[:, geo.wolf] * (popcount(animals & geo.border) + popcount(animals & geo.corners))
        counts[4] = popcount(ladybugs)
        counts[5] = popcount(ducks) * n_targets
        if geo.mole >= 0:
            for count, cells in geo.dig_classes:
                counts[6] += count * popcount(moles & cells).astype(np.int64)
        running = counts.copy()  # row by row: np.cumsum over this axis is several times slower
        for block in range(1, 7):
            running[block] += running[block - 1]
        total = running[-1]
        k = np.minimum((u * total).astype(np.int64), total - 1)
        block = (running <= k).view(np.uint8).sum(axis=0, dtype=np.int64)
        flat = block * size + np.arange(size)
        k -= running.reshape(-1).take(flat) - counts.reshape(-1).take(flat)
        # first the kind pushed, the double line, the cell devoured or picked up, or the duck; then the
        # line of a push or the target of a duck
        n_targets = np.maximum(n_targets, 1)
        words = np.stack([present, double_lines, animals, absent, ladybugs, ducks, absent])
        first = nth_bit(words.reshape(-1).take(flat),
                        np.where(block == 0, k // n_push, np.where(block == 5, k // n_targets, k)),
                        width=max(geo.c, geo.lines, geo.k))
        # the second field: a push's line (the k-th line when all are open), a duck's target
        second = np.where(block == 0, k % n_push, 0)
        if last.size:
            narrow = last[block[last] == 0]
            second[narrow] = nth_bit(push_lines[narrow], k[narrow] % n_push[narrow], width=geo.lines)
        fly = (block == 5).nonzero()[0]
        if fly.size:
            targets = plants[fly] & ~geo.cell_bit[first[fly]]
            second[fly] = nth_bit(targets, k[fly] % n_targets[fly], width=geo.c)
        action = geo.main_block_base[block] + first * geo.main_block_stride[block] + second
        wolf = (block == 3).nonzero()[0]
        if wolf.size:
            action[wolf] = engine.config.offsets["wolf"] + nth_bit(engine.wolf_lines(animals[wolf]), k[wolf],
                                                                   width=geo.lines)
        dig = (block == 6).nonzero()[0]
        if dig.size:
            action[dig] = self._dig(moles[dig], k[dig])
        return action

    def _dig(self, moles: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The ``k``-th dig action of each meadow's moles, moles in cell order, directions in order."""
        geo = self.engine.geo
        n, size = geo.n, moles.size
        patterns = ((moles[None, :] >> geo.row_shift[:, None]) & ((1 << n) - 1)).astype(np.intp)  # [n, m]
        first = geo.dig_row_first[:, None] + patterns  # rows of the tables by (row, pattern)
        running = geo.dig_row_total.reshape(-1).take(first)  # digs up to each row, inclusive
        for r in range(1, n):
            running[r] += running[r - 1]
        row = (running <= k).view(np.uint8).sum(axis=0, dtype=np.intp)
        index = row * size + np.arange(size)
        chosen = first.reshape(-1).take(index)  # (row, pattern) of the row holding the k-th dig
        rank = k - running.reshape(-1).take(index) + geo.dig_row_total.reshape(-1).take(chosen)  # within the row
        return self.engine.config.offsets["dig"] + geo.dig_row_code.reshape(-1).take(chosen * (8 * n) + rank)


class GreedyBot(ScoredBot):
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
        rows = (active & ~state.done).nonzero()[0]
        games, actions = engine.legal_pairs(state, rows)
        branch = engine.branch(state, games)
        engine.advance(branch, actions, refill=False)
        before = geo.scores(state.farms[rows])[np.searchsorted(rows, games)]
        change = geo.scores(branch.farms) - before
        me = state.to_move[games].astype(np.int64)
        index = np.arange(games.size)
        mine = change[index, me]
        change[index, me] = -np.inf
        value = mine - change.max(axis=1)
        noise = uniforms_at(state.seeds[games], self.stream, state.decisions[games], actions)
        return games, actions, value, noise


class PlannerBot(RolloutPlanner, GreedyBot):
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

    default_candidates = 6
    default_depth = 12
    rollout_bot_class = GreedyBot
    turn_phase = MAIN

    def worth(self, branch: VoraState) -> np.ndarray:
        """My family score minus the best opponent's; a finished game's result counts first."""
        scores = self.engine.geo.scores(branch.farms.astype(np.int64))
        mine = scores[:, self.seat].copy()
        scores[:, self.seat] = -np.inf
        margin = mine - scores.max(axis=1)
        return np.where(branch.done, np.sign(margin) * WIN_BONUS, 0.0) + margin

    def hide_unseen(self, branch: VoraState) -> None:
        """Shuffle the cubes not yet drawn (their kinds are public, their order is not)."""
        branch.bag = reshuffle_unseen(branch.bag, branch.bag_pointer, branch.seeds, f"plan/{self.seat}/bag",
                                       branch.decisions)
