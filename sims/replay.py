"""One game of a run, turn by turn, as text (``glade replay`` and golden playthroughs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sims.core.play import batched_bots, play_batch, resolve_bot, seat_labels
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game
from sims.runner import lineup, seat_rotations


def replay_text(
    game_name: str,
    config: Any,
    players: int,
    seed: int,
    game_id: int,
    bot_labels: Sequence[str],
    rotate_seats: bool = False,
) -> str:
    """The game ``game_id`` of a run with these options, played batched, shown on the reference engine.

    The batched engine plays the game exactly as ``glade play`` did; its
    actions are then stepped through a reference game, which draws each
    position, so the text also checks the two engines agree on this game.
    """
    game = get_game(game_name)
    choices = [resolve_bot(game, config, label) for label in seat_labels(game, players, bot_labels)]
    rotations, _ = seat_rotations(choices, players, rotate_seats)
    deal, rotation = divmod(game_id, rotations)
    seats = lineup(choices, rotation, players)
    game_seed = int(game_seeds(seed, np.array([deal]))[0])
    max_turns = game.max_turns(config)
    engine = game.batched(config, players)
    _, trace = play_batch(engine, batched_bots(game, engine, seats), np.array([game_seed], np.uint64), max_turns)

    lines = [f"{game.name} game {game_id}: deal {deal}, rotation {rotation}, seed {game_seed}",
             "seats: " + ", ".join(f"{s} {c.label}" for s, c in enumerate(seats))]
    reference = game.reference(config, players, game_seed)
    lines.append(game.render_reference(reference))
    for action in trace.game_actions(0):
        if not reference.done and reference.turn >= max_turns:
            break
        seat = reference.to_move
        lines.append(f"\nturn {reference.turn}  seat {seat} ({seats[seat].label}): "
                     f"{game.describe_action(reference, action)}")
        try:
            reference.apply(action)
        except ValueError as error:
            raise ConfigError(f"replay {game.name}", f"game {game_id}",
                              f"actions the reference engine accepts; it refuses {action} ({error}); "
                              f"run glade verify {game.name}", has_got=False) from None
        reference.decisions += 1
        lines.append(game.render_reference(reference))
    if not reference.done and reference.turn >= max_turns:
        reference.stall()
    outcome = reference.result()
    lines.append(f"\nresult: {outcome['end']} after {outcome['turns']} turns")
    for seat, choice in enumerate(seats):
        rank = outcome["rank"][seat]
        place = f"rank {rank}" if rank else "no rank (stall)"
        lines.append(f"  seat {seat} ({choice.label}): score {outcome['score'][seat]:g}, {place}")
    return "\n".join(lines)
