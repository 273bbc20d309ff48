"""Vora's bots for the reference engine; the batched bots must choose exactly the same actions.

Both draw their random numbers from :mod:`sims.core.rng` with purpose
``"bot/<seat>"`` and the game's decision counter (``game.decisions``, which
counts every decision of the game: main actions and sub-decisions alike), and
list legal actions in ascending order. They play every decision, the
sub-decisions (RECIPIENT, EXTRA, BIG) included.
"""

from __future__ import annotations

from collections.abc import Sequence

import math

from sims.core.ranking import OnePlyReferenceBot
from sims.core.reference_bots import ReferenceRandomBot  # noqa: F401 (the game's random bot)
from sims.vora.reference import MAIN, VoraGame, farm_score

# Main actions that leave an empty cell for the refill even when they collect nothing.
EMPTYING = ("double", "pick_up")


class ReferenceGreedyBot(OnePlyReferenceBot):
    """One ply on every decision: the action that most improves my family score against the best opponent.

    For each legal action ``a`` the game is cloned and ``a`` applied (the
    clone runs on to its next decision or the end of the turn: collections,
    falls, refill). With ``S_s`` the family score of seat ``s``'s farm
    (:func:`farm_score`: the sum over kinds, in kind order, of the points of
    each count, as float64), before and after::

        value(a) = (S_me_after - S_me_before) - max over opponents o of (S_o_after - S_o_before)

    The highest value wins; equal values go to the action with the highest
    noise ``uniform_one(seed, f"bot/{seat}", game.decisions, slots=config.num_actions)[a]``
    (actions are scanned in ascending order and a later action replaces the
    best only if its value is strictly higher, or equal with strictly higher
    noise). Farms are public and the refill changes no farm, so the value uses
    nothing hidden.

    No repeats: a main action that leaves the meadow (before any refill) exactly
    as the previous turn's main action found it is worth -inf
    (:func:`repeats_previous`), so it is played only when every legal action
    repeats. Without this rule two greedy players can push one cube back and
    forth until the turn cap.
    """

    def values(self, game: VoraGame, seed: int, legal: Sequence[int]) -> list[float]:
        me = game.to_move
        before = [farm_score(game.config, farm) for farm in game.farms]
        values = []
        for action in legal:
            after = game.clone()
            after.apply(action)
            values.append(-math.inf if repeats_previous(game, action, after) else self.value(after, me, before))
        return values

    @staticmethod
    def value(after: VoraGame, me: int, before: list[float]) -> float:
        """My score change minus the largest score change of an opponent."""
        changes = [farm_score(after.config, farm) - old for farm, old in zip(after.farms, before)]
        rival = max(change for seat, change in enumerate(changes) if seat != me)
        return changes[me] - rival


def repeats_previous(game: VoraGame, action: int, after: VoraGame) -> bool:
    """The bots' no-repeat rule: does main ``action`` (``game`` before it, ``after`` once applied) leave the meadow,
    before any refill, exactly as the previous turn's main action found it (``game.previous_meadow``)?

    Only an action that collects nothing and empties no cell can (a refill then has nothing to fill), so for
    the others the meadow after the refill is not compared.
    """
    if game.phase != MAIN or game.config.decode(action)[0] in EMPTYING or after.events[-1]["collected"]:
        return False
    return after.meadow == game.previous_meadow
