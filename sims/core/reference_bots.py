"""Bots every reference engine shares: plain one-game code, no batched module.

The reference side of a game (``reference.py``, ``reference_bots.py``) imports
only its config, :mod:`sims.core.rng`, the contract types of
:mod:`sims.core.engine` and plain modules such as this one.
"""

from __future__ import annotations

import numpy as np

from sims.core.engine import ReferenceBot, ReferenceGame
from sims.core.rng import uniforms


class ReferenceRandomBot(ReferenceBot):
    """Uniform among a reference game's legal actions, as :func:`choose_uniform` with the batched random bots'
    numbers: with ``n`` legal actions in ascending order and ``u = uniform_one(seed, f"bot/{seat}",
    game.decisions)[0]``, legal action number ``min(floor(u * n), n - 1)``."""

    explains = "chance"
    BLOCK = 512  # decisions whose numbers are drawn in one call (the same numbers, fewer numpy calls)

    def __init__(self, seat: int, weights=None):
        super().__init__(seat, weights)
        self._seed: int | None = None
        self._first = 0
        self._numbers: list[float] = []

    def act(self, game: ReferenceGame, seed: int) -> int:
        legal = game.legal_actions()
        u = self.number(seed, game.decisions)
        return legal[min(int(u * len(legal)), len(legal) - 1)]

    def explain(self, game: ReferenceGame, seed: int) -> list[tuple[int, float]]:
        """Every legal action with its chance ``1/n``, the one drawn first, then the others ascending."""
        legal = game.legal_actions()
        drawn = self.act(game, seed)
        return [(drawn, 1 / len(legal))] + [(a, 1 / len(legal)) for a in legal if a != drawn]

    def number(self, seed: int, decision: int) -> float:
        """``uniform_one(seed, f"bot/{seat}", decision)[0]``, drawn for a block of decisions at a time."""
        if self._seed != seed or not self._first <= decision < self._first + len(self._numbers):
            self._seed, self._first = seed, decision
            counters = np.arange(decision, decision + self.BLOCK, dtype=np.int64)
            seeds = np.full(self.BLOCK, seed, dtype=np.uint64)
            self._numbers = [float(u) for u in uniforms(seeds, f"bot/{self.seat}", counters)[:, 0]]
        return self._numbers[decision - self._first]
