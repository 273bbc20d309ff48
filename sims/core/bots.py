"""Bots every game can use as they are, through the engine contract alone."""

from __future__ import annotations

import numpy as np

from sims.core.engine import BatchedBot, BatchedState
from sims.core.kernels import kernel, noise, noise_stream
from sims.core.rng import purpose_key


@kernel
def seat_draws(seeds, seats, counters, rows, keys):
    """float64 ``[len(rows)]``: ``rng.seat_uniforms`` of games ``rows`` read in place (no gathered copies):
    the slot-0 number of ``(seeds[r], keys[seats[r]], counters[r])``."""
    out = np.empty(rows.size, dtype=np.float64)
    for i in range(rows.size):
        r = rows[i]
        out[i] = noise(noise_stream(seeds[r], keys[seats[r]], counters[r]), 0)
    return out


class RandomBot(BatchedBot):
    """Uniform among legal actions, for any engine: ``u = uniforms(seed, "bot/<seat>", decisions)[0]`` of the
    seat to move, then :meth:`BatchedEngine.choose_uniform` (legal action number ``min(floor(u * n), n - 1)``
    in ascending order). The plain counterpart is :class:`sims.core.reference_bots.ReferenceRandomBot`; one
    call chooses for every seat it plays."""

    plays_any_seat = True
    _keys: np.ndarray | None = None

    def __init__(self, engine, seat: int, weights=None, stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream  # None: each seat's own "bot/<seat>"; a name: this one stream, for this seat only
        if stream is not None:
            self.plays_any_seat = False

    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.flatnonzero(active & ~state.done)
        if rows.size:
            u = seat_draws(state.seeds, state.to_move, state.decisions, rows, self.keys(state))
            chosen[rows] = self.engine.choose_uniform(state, rows, u)
        return chosen

    def keys(self, state: BatchedState) -> np.ndarray:
        """uint64: the purpose key of each seat's stream ``bot/<seat>`` (hashed once; more when a house seat
        beyond the players moves)."""
        seats = int(state.to_move.max()) + 1
        if self._keys is None or self._keys.size < seats:
            self._keys = np.array([purpose_key(self.stream or f"bot/{seat}")
                                   for seat in range(max(seats, self.engine.players))], dtype=np.uint64)
        return self._keys
