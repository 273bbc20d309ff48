"""Reference bots that value every legal action and play the best one, with their ranking as an explanation."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence

from sims.core.engine import ReferenceBot, ReferenceGame
from sims.core.rng import uniform_one


class OnePlyReferenceBot(ReferenceBot):
    """Values each legal action (``values``), ranks them best first (``explain``) and plays the first (``act``).

    The ranking is the bots' rule: the highest value, ties to the highest noise
    ``uniform_one(seed, f"bot/{seat}", game.decisions, slots=config.num_actions)[action]``,
    then to the lower action (legal actions ascending, a later one wins only when
    strictly better). ``act`` is the first of ``explain``, so the explanation is
    the choice. A lone legal action is played unvalued (value NaN).
    """

    @abstractmethod
    def values(self, game: ReferenceGame, seed: int, legal: Sequence[int]) -> list[float]:
        """One value per action of ``legal`` (ascending), for the seat to move."""

    def explain(self, game: ReferenceGame, seed: int) -> list[tuple[int, float]]:
        legal = game.legal_actions()
        if len(legal) == 1:
            return [(legal[0], math.nan)]
        noise = uniform_one(seed, f"bot/{self.seat}", game.decisions, slots=game.config.num_actions)
        values = self.values(game, seed, legal)
        order = sorted(range(len(legal)), key=lambda i: (-values[i], -noise[legal[i]]))
        return [(legal[i], values[i]) for i in order]

    def act(self, game: ReferenceGame, seed: int) -> int:
        return self.explain(game, seed)[0][0]
