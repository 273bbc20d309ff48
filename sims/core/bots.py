"""Bots every game can use as they are, through the engine contract alone."""

from __future__ import annotations

import numpy as np

from sims.core.engine import BatchedBot, BatchedState
from sims.core.rng import seat_uniforms


class RandomBot(BatchedBot):
    """Uniform among legal actions, for any engine: ``u = uniforms(seed, "bot/<seat>", decisions)[0]`` of the
    seat to move, then :meth:`BatchedEngine.choose_uniform` (legal action number ``min(floor(u * n), n - 1)``
    in ascending order). The plain counterpart is :class:`sims.core.reference_bots.ReferenceRandomBot`; one
    call chooses for every seat it plays."""

    plays_any_seat = True

    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        chosen = np.full(state.size, -1, dtype=np.int64)
        rows = np.flatnonzero(active & ~state.done)
        if rows.size:
            u = seat_uniforms(state.seeds[rows], state.to_move[rows], state.decisions[rows])
            chosen[rows] = self.engine.choose_uniform(state, rows, u)
        return chosen
