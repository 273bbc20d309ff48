"""Text pictures of Reforest positions and actions, for ``glade replay`` and golden files.

A 2-player game during seat 1's turn::

    turn 4: seat 1 to move, phase pay (Douglas Fir on space 0, 2 owed)
    round 1: 0 rounds ended; deck 30, discard 3, tucked 8 | 8
    round-end visitors: Black Bear, Banana Slug, Mountain Goat; carried: -
    nursery: [0] Salal  [1] -  [2] Fireweed
    seat 0: hand 6 (Salal 2, Fireweed 1, ...); visitors -
         [5] -
         [3] -  [4] -
         [0] Step Moss < Salal (+1 energy)  [1] Bunchberry  [2] -

Stacks are written bottom to top, ``<`` between plants; ``+n energy`` is the
stack's face-down energy count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sims.reforest.config import ROW_SPACES, ROWS, ReforestConfig

if TYPE_CHECKING:
    from sims.reforest.reference import ReforestGame


def render_stack(config: ReforestConfig, plants: list[int], energy: int) -> str:
    """``Step Moss < Salal (+1 energy)``; ``-`` for an empty space."""
    text = " < ".join(config.species_names[p] for p in plants) or "-"
    if energy:
        text += f" (+{energy} energy)"
    return text


def render_counts(config: ReforestConfig, counts: list[int]) -> str:
    """``Salal 2, Fireweed 1``: the species held with their counts, ``-`` if none."""
    return ", ".join(f"{config.species_names[s]} {n}" for s, n in enumerate(counts) if n > 0) or "-"


def render_region(game: "ReforestGame", seat: int) -> list[str]:
    """The pyramid, high row on top."""
    config = game.config
    lines = []
    for row in reversed(range(len(ROWS))):
        cells = [f"[{space}] " + render_stack(config, game.regions[seat][space], sum(game.energy[seat][space]))
                 for space in ROW_SPACES[row]]
        lines.append(f"  {ROWS[row]:<6} " + "  ".join(cells))
    return lines


def render_game(game: "ReforestGame") -> str:
    """A header (turn, seat to move and phase, or the outcome), the shared cards, then every region."""
    config = game.config
    if game.done:
        result = game.result()
        scores = ", ".join(f"{s:g}" for s in result["score"])
        if game.end == "stall":
            outcome = "no ranks"
        elif game.solitaire:
            outcome = ("won" if result["rank"][0] == 1 else "lost") + f" against target {game.solo_target()}"
        else:
            winners = [str(s) for s, r in enumerate(result["rank"]) if r == 1]
            outcome = (f"seat {winners[0]} wins" if len(winners) == 1
                       else "tie between seats " + ", ".join(winners))
        header = f"turn {game.turn}: game over by {game.end}, {outcome} (scores {scores})"
    else:
        header = f"turn {game.turn}: seat {game.to_move} to move, phase {game.phase}"
        if game.play_species >= 0:
            header += (f" ({config.species_names[game.play_species]} on space {game.play_space}, "
                       f"{game.owed} owed)")
        if game.phase == "gather":
            header += f" ({game.gather_left} picks left)"
        if game.phase == "draw":
            header += f" ({game.draw_left} picks left)"
        if game.queue:
            header += " (queued: " + ", ".join(f"{config.species_names[e.species]} {e.kind} {e.n}"
                                               for e in game.queue) + ")"
    names = config.visitor_names
    lines = [
        header,
        f"rounds ended {game.rounds_ended}; deck {len(game.deck)}, discard {sum(game.discard)}, "
        f"tucked " + " | ".join(str(sum(pile)) for pile in game.tucked),
        "round-end visitors: " + ", ".join(names[v] for v in game.round_visitors)
        + "; carried: " + (", ".join(names[v] for v in game.carried) or "-"),
        "nursery: " + "  ".join(f"[{slot}] " + (config.species_names[card] if card >= 0 else "-")
                                for slot, card in enumerate(game.nursery)),
    ]
    for seat in range(game.players):
        won = ", ".join(names[v] for v in game.visitors_won[seat]) or "-"
        lines.append(f"seat {seat}: score {game.score(seat)}; hand {game.hand_size(seat)} "
                     f"({render_counts(config, game.hands[seat])}); visitors {won}")
        lines += render_region(game, seat)
    return "\n".join(lines)


def _source(config: ReforestConfig, source: int) -> str:
    return "the deck's top card" if source == config.deck_source else f"nursery slot {source}"


def describe_action(config: ReforestConfig, action: int) -> str:
    """One action in words, from the config alone: ``play Salal on space 3 (middle)``."""
    block, fields = config.decode(action)
    names = config.species_names
    if block == "gather":
        return "gather"
    if block == "play":
        species, space = fields
        row = next(r for r, spaces in enumerate(ROW_SPACES) if space in spaces)
        return f"play {names[species]} on space {space} ({ROWS[row]})"
    if block == "pay_hand":
        return f"pay with {names[fields[0]]} from the hand"
    if block == "pay_energy":
        return f"pay with an energy card from space {fields[0]}"
    if block == "take":
        return f"take {_source(config, fields[0])}"
    if block == "stop":
        return "stop gathering"
    if block == "use":
        return "use the effect"
    if block == "decline":
        return "decline the effect"
    if block == "discard":
        return f"discard {names[fields[0]]} (hand limit)"
    return f"solitaire discard: {_source(config, fields[0])}"


def compact(game: "ReforestGame") -> str:
    """A line of shared cards, then a line per seat: hand size, the plant on top of each space, visitors.

    ``rounds ended 0; deck 21; nursery Red Elderberry, Western Red Cedar, -``
    ``seat 0: hand 4; low Fireweed -  -, middle - -, high -; visitors -``
    """
    config = game.config
    names = config.species_names
    nursery = ", ".join(names[card] if card >= 0 else "-" for card in game.nursery)
    lines = [f"rounds ended {game.rounds_ended}; deck {len(game.deck)}; nursery {nursery}"]
    for seat in range(game.players):
        region = game.regions[seat]
        rows = ", ".join(ROWS[row] + " " + " / ".join(names[region[space][-1]] if region[space] else "-"
                                                      for space in ROW_SPACES[row]) for row in range(len(ROWS)))
        won = ", ".join(config.visitor_names[v] for v in game.visitors_won[seat]) or "-"
        lines.append(f"seat {seat}: hand {game.hand_size(seat)}; {rows}; visitors {won}")
    return "\n".join(lines)
