"""Overgrowth's bots for the reference engine, choice for choice the same as the batched bots.

Both draw their random numbers from :mod:`sims.core.rng` with purpose
``"bot/<seat>"`` and the game's decision counter, and list legal actions in
ascending order, so they pick what the batched bots pick.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

from sims.core.directions import KING, ORTHOGONAL
from sims.core.ranking import OnePlyReferenceBot
from sims.core.reference_bots import ReferenceRandomBot  # noqa: F401 (the game's random bot)
from sims.overgrowth.config import OvergrowthConfig
from sims.overgrowth.reference import EMPTY, OvergrowthGame

WIN_SCORE = 1e9
TIE_SCORE = 0.0


def connection_distance(config: OvergrowthConfig, board: Sequence[int], seat: int) -> int:
    """Fewest empty cells ``seat`` must still fill to join shaded[0] to shaded[1].

    A path runs from a cell of shaded[0] to a cell of shaded[1] through
    adjacent cells (8 neighbours, 4 with ``orthogonal_connection``), each
    holding a flower of ``seat`` (cost 0) or empty (cost 1) and not inside a
    shaded area where ``seat`` already has a flower. ``cells + 1`` if no path.
    """
    columns = config.columns
    directions = ORTHOGONAL if config.orthogonal_connection else KING
    blocked_areas = [set(area) for area in config.shaded if any(board[c] == seat for c in area)]

    def passable(cell: int) -> bool:
        if board[cell] == seat:
            return True
        return board[cell] == EMPTY and not any(cell in area for area in blocked_areas)

    def cost(cell: int) -> int:
        return 0 if board[cell] == seat else 1

    unreached = config.cells + 1
    distance = [unreached] * config.cells
    frontier: deque[int] = deque()
    for cell in config.shaded[0]:
        if passable(cell):
            distance[cell] = cost(cell)
            frontier.append(cell)
    # 0-1 BFS: zero-cost steps go to the front, so cells leave in order of distance
    while frontier:
        cell = frontier.popleft()
        row, col = divmod(cell, columns)
        for dr, dc in directions:
            r, c = row + dr, col + dc
            if not (0 <= r < config.rows and 0 <= c < columns):
                continue
            nxt = r * columns + c
            if not passable(nxt):
                continue
            step = cost(nxt)
            if distance[cell] + step < distance[nxt]:
                distance[nxt] = distance[cell] + step
                if step == 0:
                    frontier.appendleft(nxt)
                else:
                    frontier.append(nxt)
    return min(distance[c] for c in config.shaded[1])


class ReferenceGreedyBot(OnePlyReferenceBot):
    """One ply: an immediate win, else the best of connection distances and flower count.

    A position after my action is worth ``opponent_distance * d_opponent -
    own_distance * d_me + flowers * (my flowers - opponent flowers)``; an
    action that ends the game is worth +1e9 (win), 0 (tie) or -1e9 (loss).
    Equal scores are broken by the highest noise of the action's index.
    """

    def __init__(self, seat: int, weights: Mapping[str, float] | None = None):
        super().__init__(seat, weights)
        self.own_distance = float(self.weights["own_distance"])
        self.opponent_distance = float(self.weights["opponent_distance"])
        self.flowers = float(self.weights["flowers"])

    def values(self, game: OvergrowthGame, seed: int, legal: Sequence[int]) -> list[float]:
        return [self.score(self.after(game, action)) for action in legal]

    @staticmethod
    def after(game: OvergrowthGame, action: int) -> OvergrowthGame:
        """A copy of ``game`` with ``action`` played."""
        after = game.clone()
        after.apply(action)
        return after

    def score(self, game: OvergrowthGame) -> float:
        """Worth of the position ``game`` (just after this bot's action) to this bot."""
        me, opponent = self.seat, 1 - self.seat
        if game.done:
            if game.winner is None:
                return TIE_SCORE
            return WIN_SCORE if game.winner == me else -WIN_SCORE
        d_me = float(connection_distance(game.config, game.board, me))
        d_opp = float(connection_distance(game.config, game.board, opponent))
        diff = float(game.flower_count(me) - game.flower_count(opponent))
        return ((self.opponent_distance * d_opp) - (self.own_distance * d_me)) + (self.flowers * diff)
