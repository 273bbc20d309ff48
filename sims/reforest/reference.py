"""Reforest, one game in plain Python: the rules oracle for ``glade verify``.

The rules and rulings are in ``docs/rules/reforest.md``; the action
numbering and the records are in :mod:`sims.reforest.config`. This module
follows the rules one small method per rule. A seat's region, space numbers::

              [5]            high row
           [3]   [4]         middle row
        [0]   [1]   [2]      low row

Each space holds a stack: ``regions[seat][space]`` lists its plants bottom to
top (the last one is the canopy plant) and ``energy[seat][space]`` counts its
face-down energy cards per species. Hands, the discard pile and the tucked
piles are counts per species; the deck is a list of species, top first.

A turn, as the engine runs it::

    MAIN   gather -> GATHER picks (take / stop) -> [solitaire: SOLO_DISCARD]
                     -> after-gather effects queued
           play   -> PAY one unit at a time -> place, cover, effects queued
    the queue: EFFECT (use / decline) each effect that can act; a used draw -> DRAW picks
    HAND_LIMIT discards, refill the nursery, turn += 1, game-end check, next seat

Every card taken from the deck goes through :meth:`ReforestGame.take_from_deck`:
the card reaches its destination, and if the deck is now empty while fewer
than 3 rounds have ended, the round ends there and then (award, reset, new
nursery, maybe a cascade); the interrupted action then simply goes on, since
a round end needs no decision.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sims.core.engine import STALL, ReferenceGame
from sims.core.rng import shuffle_order
from sims.reforest.config import (
    ADJACENT_PAIRS,
    DRAW_EFFECTS,
    LOW,
    PHASES,
    ROUNDS,
    ROW_SPACES,
    SEAT_COLUMNS,
    SPACE_ROW,
    SPACES,
    STORE_EFFECTS,
    Measure,
    ReforestConfig,
)

EMPTY = -1
COMPLETE = "complete"
MAIN, PAY, GATHER, SOLO_DISCARD, EFFECT, DRAW, HAND_LIMIT = PHASES
DRAW_KIND, STORE_KIND = "draw", "store"
HELD_COLUMNS = ("plants", "energy", "hand")  # seat columns read off the final position, not counted


# --- geometry ------------------------------------------------------------------------------

def _adjacent_spaces(space: int) -> tuple[int, ...]:
    """Rules §2.1, §2.2."""
    return tuple(sorted({b for a, b in ADJACENT_PAIRS if a == space} | {a for a, b in ADJACENT_PAIRS if b == space}))


ADJACENT: tuple[tuple[int, ...], ...] = tuple(_adjacent_spaces(space) for space in range(SPACES))
# Energy under the target stack or an adjacent stack may pay (a ruling: a stack is adjacent to itself for payment).
PAYMENT_SPACES: tuple[tuple[int, ...], ...] = tuple(tuple(sorted((space,) + ADJACENT[space])) for space in range(SPACES))


def ranks(scores: Sequence[float]) -> list[int]:
    """Rules §9.7: 1 + the number of seats with a strictly higher score (equal scores share a rank)."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


@dataclass
class QueuedEffect:
    """A triggered draw or store effect waiting in the queue: ``n`` cards, the plant it belongs to.

    ``space`` is where a store puts its energy (and where the effect's plant is or was).
    """

    kind: str  # DRAW_KIND or STORE_KIND
    n: int
    species: int
    space: int


def effect_family(kind: str) -> str | None:
    """Rules §1.2: DRAW_KIND, STORE_KIND or None for an effect kind of the config."""
    if kind in DRAW_EFFECTS:
        return DRAW_KIND
    if kind in STORE_EFFECTS:
        return STORE_KIND
    return None


class ReforestGame(ReferenceGame):
    """One game of Reforest for ``players`` seats (1 = solitaire), dealt from ``seed``."""

    def __init__(self, config: ReforestConfig, players: int, seed: int):
        if players not in config.player_counts:
            raise ValueError(f"Reforest is for {config.player_counts[0]} to {config.player_counts[-1]} players, "
                             f"not {players}")
        self.config = config
        self.players = players
        self.seed = int(seed)
        species_count = config.num_species

        self.hands: list[list[int]] = [[0] * species_count for _ in range(players)]
        self.regions: list[list[list[int]]] = [[[] for _ in range(SPACES)] for _ in range(players)]
        self.energy: list[list[list[int]]] = [[[0] * species_count for _ in range(SPACES)] for _ in range(players)]
        self.visitors_won: list[list[int]] = [[] for _ in range(players)]
        self.carried: list[int] = []
        self.unawarded: list[int] = []  # discarded after round 3, or removed in solitaire
        self.discard: list[int] = [0] * species_count
        self.tucked: list[list[int]] = [[0] * species_count for _ in range(ROUNDS - 1)]
        self.nursery: list[int] = [EMPTY] * config.nursery_size
        self.rounds_ended = 0
        self.resets = 0
        self.round3_turn = -1  # state.turn when round 3 ended (the solitaire end)

        self.to_move = 0
        self.turn = 0
        self.decisions = 0
        self.done = False
        self.end = ""
        self.phase = MAIN
        # the turn in progress
        self.play_species = EMPTY
        self.play_space = EMPTY
        self.owed = 0
        self.gather_left = 0
        self.draw_left = 0
        self.queue: list[QueuedEffect] = []
        # records
        self.stats: dict[str, list[int]] = {name: [0] * players for name in SEAT_COLUMNS
                                            if name not in HELD_COLUMNS and not name.startswith("points_")}
        self.events: list[dict[str, Any]] = []

        self.kept_cards, self.deck = self.shuffled_deck()
        self.round_visitors = self.visitor_layout()
        self.set_up()

    # --- setup --------------------------------------------------------------------------------

    def shuffled_deck(self) -> tuple[list[int], list[int]]:
        """Rules §3.1: The kept card ids (setup shuffle order) and their species, position 0 the top of the deck."""
        config = self.config
        order = shuffle_order(np.array([self.seed], dtype=np.uint64), "deck", 0, config.total_cards)[0]
        kept = [int(card) for card in order[: config.deck_size(self.players)]]
        return kept, [int(config.card_species[card]) for card in kept]

    def visitor_layout(self) -> list[int]:
        """Rules §3.4: The round-end visitors of rounds 1, 2, 3; the rest of the visitor deck is never used."""
        order = shuffle_order(np.array([self.seed], dtype=np.uint64), "visitors", 0, self.config.num_visitors)[0]
        return [int(v) for v in order[:ROUNDS]]

    def set_up(self) -> None:
        """Deal a block of hand cards per seat, lay out the nursery, tuck cards under the first two visitors.

        Rules §3.2, §3.3, §3.4.
        """
        config = self.config
        for seat in range(self.players):
            for _ in range(config.hand_size(seat)):
                card = self.deck.pop(0)
                self.hands[seat][card] += 1
                self.note("deal", seat=seat, species=card, source=self.deck_source, amount=1)
        for slot in range(config.nursery_size):
            self.nursery[slot] = self.deck.pop(0)
        for pile in self.tucked:
            for _ in range(config.tucked(self.players)):
                pile[self.deck.pop(0)] += 1

    def clone(self) -> "ReforestGame":
        """An independent copy (sharing the config)."""
        return copy.deepcopy(self, memo={id(self.config): self.config})

    # --- the region ---------------------------------------------------------------------------

    @property
    def solitaire(self) -> bool:
        return self.players == 1

    def canopy(self, seat: int, space: int) -> int:
        """Rules §2.3: The top plant of a space, EMPTY for an empty space."""
        stack = self.regions[seat][space]
        return stack[-1] if stack else EMPTY

    def canopy_plants(self, seat: int) -> list[tuple[int, int]]:
        """Rules §2.3: (space, species) of every canopy plant, spaces ascending."""
        return [(space, stack[-1]) for space, stack in enumerate(self.regions[seat]) if stack]

    def plants(self, seat: int) -> list[int]:
        """Rules §2.3: Every face-up plant of the region, canopy and understory."""
        return [plant for stack in self.regions[seat] for plant in stack]

    def has_trait(self, species: int, trait: int) -> bool:
        """Rules §1.1."""
        return trait in self.config.species[species].traits

    def plants_with_trait(self, seat: int, trait: int) -> int:
        return sum(self.has_trait(plant, trait) for plant in self.plants(seat))

    def energy_cards(self, seat: int) -> int:
        """Rules §2.4."""
        return sum(sum(counts) for counts in self.energy[seat])

    def energy_in(self, seat: int, space: int) -> int:
        """Rules §2.4."""
        return sum(self.energy[seat][space])

    def region_is_empty(self, seat: int) -> bool:
        return not any(self.regions[seat])

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def hand_limit(self, seat: int) -> int:
        """Rules §4.4, §6.4: ``hand.limit`` plus every canopy ``passive_hand_limit`` (automatic)."""
        raise_by = sum(self.config.species[plant].effect.n for _, plant in self.canopy_plants(seat)
                       if self.config.species[plant].effect.kind == "passive_hand_limit")
        return self.config.hand_limit + raise_by

    def measure(self, seat: int, goal: Measure) -> float:
        """Rules §1.3: A visitor goal's measure of a seat's region."""
        if goal.kind == "plants":
            return len(self.plants(seat))
        if goal.kind == "trait":
            return self.plants_with_trait(seat, goal.arg)
        if goal.kind == "row":
            return sum(len(self.regions[seat][space]) for space in ROW_SPACES[goal.arg])
        if goal.kind == "energy":
            return self.energy_cards(seat)
        heights = [self.config.species[plant].height for plant in self.plants(seat)]
        return max(heights, default=0.0)

    # --- sources: the nursery and the deck ----------------------------------------------------

    @property
    def deck_source(self) -> int:
        return self.config.nursery_size

    def sources(self) -> list[int]:
        """Rules §4.2: Non-empty nursery slots, then the deck (source N) if it holds a card."""
        found = [slot for slot, card in enumerate(self.nursery) if card != EMPTY]
        if self.deck:
            found.append(self.deck_source)
        return found

    def take_from(self, source: int, place: Callable[[int], None]) -> int:
        """Take a nursery slot's card or the deck's top card to where ``place`` puts it; returns the species.

        Rules §6.3.
        """
        if source == self.deck_source:
            return self.take_from_deck(place)
        card = self.nursery[source]
        self.nursery[source] = EMPTY
        place(card)
        return card

    def take_from_deck(self, place: Callable[[int], None]) -> int:
        """The deck's top card goes where ``place`` puts it; a take that empties the deck ends the round.

        Rules §7.1, §7.5.
        """
        card = self.deck.pop(0)
        # Spec question: the card reaches its destination before the round ends (a stored card counts
        # for the award, a solitaire-discarded card joins the reset pool), as the cascade rule's
        # "the slots already laid are swept into that next reset" does for the nursery.
        place(card)
        if not self.deck and self.rounds_ended < ROUNDS:
            self.end_round()
        return card

    def refill_nursery(self) -> None:
        """Rules §4.3: Each empty slot, ascending, takes the deck's top card while the deck holds cards."""
        for slot in range(self.config.nursery_size):
            if self.nursery[slot] == EMPTY and self.deck:
                self.take_from_deck(self.into_slot(slot))

    def into_slot(self, slot: int) -> Callable[[int], None]:
        def place(card: int) -> None:
            self.nursery[slot] = card
        return place

    def into_hand(self, seat: int) -> Callable[[int], None]:
        def place(card: int) -> None:
            self.hands[seat][card] += 1
        return place

    def into_discard(self, card: int) -> None:
        self.discard[card] += 1

    def into_energy(self, seat: int, space: int) -> Callable[[int], None]:
        """Rules §2.4."""
        def place(card: int) -> None:
            self.energy[seat][space][card] += 1
        return place

    # --- rounds ----------------------------------------------------------------------------------

    def end_round(self) -> None:
        """Rules §7.1: The deck is empty: award the visitors, reset the deck, lay out a new nursery."""
        round_number = self.rounds_ended + 1
        self.note("round_end", amount=round_number)
        self.award_visitors(round_number)
        self.rounds_ended += 1
        if self.rounds_ended == ROUNDS:
            self.round3_turn = self.turn
        pool_size = self.reset_deck()
        if pool_size == 0 and self.rounds_ended < ROUNDS:
            self.end_round()  # nothing to deal: the next round ends at once
            return
        self.lay_out_nursery()

    def award_visitors(self, round_number: int) -> None:
        """Rules §7.2: The carried visitors, then this round's round-end visitor, each to its goal's winner."""
        contenders = self.carried + [self.round_visitors[round_number - 1]]
        self.carried = []
        for visitor in contenders:
            if self.solitaire:
                self.award_solo(visitor, round_number)
            else:
                self.award_multiplayer(visitor, round_number)

    def award_multiplayer(self, visitor: int, round_number: int) -> None:
        """Rules §7.2: The single seat with the greatest measure wins; a tie carries it on (discarded after round 3)."""
        goal = self.config.visitors[visitor].goal
        measures = [self.measure(seat, goal) for seat in range(self.players)]
        best = max(measures)
        if measures.count(best) == 1:
            winner = measures.index(best)
            self.visitors_won[winner].append(visitor)
            self.stats["visitors_won"][winner] += 1
            self.note("visitor", seat=winner, visitor=visitor, amount=1)
        elif round_number < ROUNDS:
            self.carried.append(visitor)
            self.note("visitor", seat=EMPTY, visitor=visitor, amount=0)
        else:
            self.unawarded.append(visitor)
            self.note("visitor", seat=EMPTY, visitor=visitor, amount=-1)

    def award_solo(self, visitor: int, round_number: int) -> None:
        """Rules §10.3: Earned iff the solitaire goal's measure reaches this round's threshold; otherwise removed."""
        spec = self.config.visitors[visitor]
        if self.measure(0, spec.solo_goal) >= spec.solo_thresholds[round_number - 1]:
            self.visitors_won[0].append(visitor)
            self.stats["visitors_won"][0] += 1
            self.note("visitor", seat=0, visitor=visitor, amount=1)
        else:
            self.unawarded.append(visitor)
            self.note("visitor", seat=EMPTY, visitor=visitor, amount=-1)

    def reset_deck(self) -> int:
        """Discard pile, nursery and the just-ended round's tucked cards, shuffled, become the deck; the pool size.

        Rules §7.3.
        """
        pool_counts = list(self.discard)
        for card in self.nursery:
            if card != EMPTY:
                pool_counts[card] += 1
        if self.rounds_ended <= len(self.tucked):
            tucked = self.tucked[self.rounds_ended - 1]
            pool_counts = [a + b for a, b in zip(pool_counts, tucked)]
            self.tucked[self.rounds_ended - 1] = [0] * self.config.num_species
        self.discard = [0] * self.config.num_species
        self.nursery = [EMPTY] * self.config.nursery_size
        self.resets += 1  # an empty pool is a reset too: it uses up its stream counter
        pool = [species for species, count in enumerate(pool_counts) for _ in range(count)]
        if pool:
            perm = shuffle_order(np.array([self.seed], dtype=np.uint64), "deck", self.resets, len(pool))[0]
            self.deck = [pool[int(i)] for i in perm]
        else:
            self.deck = []
        return len(pool)

    def lay_out_nursery(self) -> None:
        """Rules §3.3, §7.3."""
        self.refill_nursery()

    # --- cost and placement -------------------------------------------------------------------

    def play_cost(self, seat: int, species: int, space: int) -> int:
        """Printed cost minus succession, passive and when-played discounts, on the region before placement.

        Rules §5.2, §6.4.
        """
        card = self.config.species[species]
        covered = self.canopy(seat, space)
        succession = self.config.species[covered].cost if covered != EMPTY else 0
        passive = 0
        for _, plant in self.canopy_plants(seat):
            effect = self.config.species[plant].effect
            if effect.kind == "passive_discount_trait" and effect.trait in card.traits:
                passive += effect.n
        when_played = 0
        if card.effect.kind == "on_play_discount_per_trait":
            counted = self.plants_with_trait(seat, card.effect.trait) + (card.effect.trait in card.traits)
            when_played = card.effect.n * counted
        return max(0, card.cost - succession - passive - when_played)

    def may_place(self, seat: int, species: int, space: int) -> bool:
        """Row allowed; the first plant in the low row; else next to a plant, or over a strictly shorter one.

        Rules §5.1.
        """
        card = self.config.species[species]
        if SPACE_ROW[space] not in card.rows:
            return False
        if self.region_is_empty(seat):
            return SPACE_ROW[space] == LOW
        top = self.canopy(seat, space)
        if top == EMPTY:
            return any(self.canopy(seat, other) != EMPTY for other in ADJACENT[space])
        return card.height > self.config.species[top].height

    def payment_energy(self, seat: int, space: int) -> int:
        """Rules §2.2: Energy cards that may pay for a plant on ``space``."""
        return sum(self.energy_in(seat, other) for other in PAYMENT_SPACES[space])

    def may_play(self, seat: int, species: int, space: int) -> bool:
        """Rules §5.1."""
        if self.hands[seat][species] == 0 or not self.may_place(seat, species, space):
            return False
        budget = self.hand_size(seat) - 1 + self.payment_energy(seat, space)
        return self.play_cost(seat, species, space) <= budget

    # --- legality -----------------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """Rules §4.1."""
        if self.done:
            return []
        config, me = self.config, self.to_move
        if self.phase == MAIN:
            return [config.encode_gather()] + [
                config.encode_play(species, space)
                for species in range(config.num_species) if self.hands[me][species] > 0
                for space in range(SPACES) if self.may_play(me, species, space)]
        if self.phase == PAY:
            return ([config.encode_pay_hand(s) for s in range(config.num_species) if self.hands[me][s] > 0]
                    + [config.encode_pay_energy(space) for space in PAYMENT_SPACES[self.play_space]
                       if self.energy_in(me, space) > 0])
        if self.phase == GATHER:
            takes = [config.encode_take(source) for source in self.sources()]
            first_card = self.gather_left == config.gather_cards
            return takes + ([] if first_card and takes else [config.encode_stop()])
        if self.phase == DRAW:
            return [config.encode_take(source) for source in self.sources()]
        if self.phase == SOLO_DISCARD:
            return [config.encode_solo_discard(source) for source in self.sources()]
        if self.phase == EFFECT:
            return [config.encode_use(), config.encode_decline()]
        return [config.encode_discard(s) for s in range(config.num_species) if self.hands[me][s] > 0]

    # --- a decision ---------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Rules §4.1."""
        if action not in self.legal_actions():
            raise ValueError(f"action {action} is not legal (turn {self.turn}, seat {self.to_move}, "
                             f"phase {self.phase})")
        block, fields = self.config.decode(action)
        if block == "gather":
            self.start_gather()
        elif block == "play":
            self.start_play(*fields)
        elif block == "pay_hand":
            self.pay_from_hand(fields[0])
        elif block == "pay_energy":
            self.pay_from_energy(fields[0])
        elif block == "take" and self.phase == GATHER:
            self.gather_pick(fields[0])
        elif block == "take":
            self.draw_pick(fields[0])
        elif block == "stop":
            self.finish_gather()
        elif block in ("use", "decline"):
            self.resolve_effect(use=block == "use")
        elif block == "discard":
            self.discard_for_hand_limit(fields[0])
        else:
            self.solo_discard(fields[0])

    def note(self, event: str, *, seat: int | None = None, species: int = EMPTY, space: int = EMPTY,
             source: int = EMPTY, amount: int = 0, visitor: int = EMPTY) -> None:
        """One row of the events table (the spec's columns, without ``game``)."""
        names = self.config.species_names
        self.events.append({
            "decision": self.decisions, "turn": self.turn,
            "seat": self.to_move if seat is None else seat, "event": event,
            "species": names[species] if species != EMPTY else "",
            "played": names[species] if event == "play" else "",
            "space": space, "source": source, "amount": amount,
            "visitor": self.config.visitor_names[visitor] if visitor != EMPTY else "",
        })

    def count(self, stat: str, amount: int = 1) -> None:
        self.stats[stat][self.to_move] += amount

    # --- gather -------------------------------------------------------------------------------

    def start_gather(self) -> None:
        """Rules §4.2: Gather: up to ``gather.cards`` picks from the nursery and/or the deck."""
        self.count("gathers")
        self.gather_left = self.config.gather_cards
        self.phase = GATHER

    def gather_pick(self, source: int) -> None:
        """Rules §4.2."""
        self.note("gather", source=source)
        self.take_from(source, self.into_hand(self.to_move))
        self.count("cards_gathered")
        self.gather_left -= 1
        if self.gather_left == 0:
            self.finish_gather()

    def finish_gather(self) -> None:
        """Rules §4.2, §10.2: After the picks (or a stop): the solitaire discard, then the after-gather effects."""
        self.gather_left = 0
        if self.solitaire and self.sources():
            self.phase = SOLO_DISCARD
            return
        self.queue_after_gather_effects()

    def solo_discard(self, source: int) -> None:
        """Rules §10.2: Solitaire: after gathering, a nursery card or the deck's top card goes to the discard pile."""
        self.note("solo_discard", source=source)
        self.take_from(source, self.into_discard)
        self.count("solo_discards")
        self.queue_after_gather_effects()

    def queue_after_gather_effects(self) -> None:
        """Rules §6.2."""
        me = self.to_move
        for space, plant in self.canopy_plants(me):
            effect = self.config.species[plant].effect
            if effect.kind in ("after_gather_draw", "after_gather_store"):
                self.queue.append(QueuedEffect(effect_family(effect.kind), effect.n, plant, space))
        self.continue_turn()

    # --- play ---------------------------------------------------------------------------------

    def start_play(self, species: int, space: int) -> None:
        """Rules §5.3: The card leaves the hand; pay its effective cost, then place it."""
        me = self.to_move
        cost = self.play_cost(me, species, space)
        self.hands[me][species] -= 1
        self.play_species, self.play_space, self.owed = species, space, cost
        self.count("cards_played")
        self.count("cost_paid", cost)
        self.note("play", species=species, space=space, amount=cost)
        if cost > 0:
            self.phase = PAY
        else:
            self.place_plant()

    def pay_from_hand(self, species: int) -> None:
        """Rules §5.3."""
        self.hands[self.to_move][species] -= 1
        self.discard[species] += 1
        self.count("paid_from_hand")
        self.note("pay_hand", species=species)
        self.paid_one()

    def pay_from_energy(self, space: int) -> None:
        """Rules §5.3: One energy card of ``space``: the lowest species id there (face-down energy is worth 1)."""
        counts = self.energy[self.to_move][space]
        card = next(species for species, count in enumerate(counts) if count > 0)
        counts[card] -= 1
        self.discard[card] += 1
        self.count("paid_from_energy")
        self.note("pay_energy", species=card, space=space)
        self.paid_one()

    def paid_one(self) -> None:
        """Rules §5.3."""
        self.owed -= 1
        if self.owed == 0:
            self.place_plant()

    def place_plant(self) -> None:
        """The plant goes on top; a covered sun plant becomes energy; the triggered effects are queued.

        Rules §5.4, §5.5, §6.2.
        """
        me, species, space = self.to_move, self.play_species, self.play_space
        config = self.config
        stack = self.regions[me][space]
        covered = stack[-1] if stack else EMPTY
        if covered != EMPTY:
            self.count("plants_covered")
            if config.species[covered].sun:
                stack.pop()
                self.energy[me][space][covered] += 1
                self.count("energy_from_cover")
            self.note("cover", species=covered, space=space, amount=int(config.species[covered].sun))
        stack.append(species)
        self.play_species = self.play_space = EMPTY

        if covered != EMPTY:
            self.queue_effect(config.species[covered].effect.kind, ("on_covered_draw", "on_covered_store"),
                              covered, space)
        for other, plant in self.canopy_plants(me):
            effect = config.species[plant].effect
            if other != space and effect.kind in ("react_play_trait_draw", "react_play_trait_store") \
                    and self.has_trait(species, effect.trait):
                self.queue_effect(effect.kind, (effect.kind,), plant, other)
        self.queue_effect(config.species[species].effect.kind, ("on_play_draw", "on_play_store"), species, space)
        self.continue_turn()

    def queue_effect(self, kind: str, kinds: tuple[str, ...], species: int, space: int) -> None:
        """Rules §5.5."""
        if kind in kinds:
            self.queue.append(QueuedEffect(effect_family(kind), self.config.species[species].effect.n,
                                           species, space))

    # --- the effect queue ------------------------------------------------------------------------

    def effect_can_act(self, effect: QueuedEffect) -> bool:
        """Rules §6.1: A draw needs a card in the deck or the nursery; a store needs a card in the deck."""
        if effect.kind == DRAW_KIND:
            return bool(self.sources())
        return bool(self.deck)

    def resolve_effect(self, use: bool) -> None:
        """Rules §6.1."""
        effect = self.queue.pop(0)
        self.note("effect", species=effect.species, space=effect.space, amount=int(use))
        self.count("effects_used" if use else "effects_declined")
        if use and effect.kind == STORE_KIND:
            self.store(effect.n, effect.space)
        elif use:
            self.draw_left = effect.n
        self.continue_turn()

    def store(self, n: int, space: int) -> None:
        """``n`` times the deck's top card goes face down under ``space``; stops early only on an empty deck.

        Rules §6.3.
        """
        me = self.to_move
        for _ in range(n):
            if not self.deck:
                break
            self.note("store", space=space)
            self.take_from_deck(self.into_energy(me, space))
            self.count("cards_stored")

    def draw_pick(self, source: int) -> None:
        """Rules §6.3."""
        self.note("draw", source=source)
        self.take_from(source, self.into_hand(self.to_move))
        self.count("cards_drawn")
        self.draw_left -= 1
        self.continue_turn()

    # --- the rest of the turn -------------------------------------------------------------------

    def continue_turn(self) -> None:
        """Rules §7.4: Carry the turn on until the mover has a decision: draw picks, the queue, the hand limit."""
        if self.draw_left > 0 and self.sources():
            self.phase = DRAW
            return
        self.draw_left = 0  # nothing left to draw: the remaining picks are dropped
        while self.queue:
            if self.effect_can_act(self.queue[0]):
                self.phase = EFFECT
                return
            self.queue.pop(0)  # cannot act: skipped without a decision
        if self.hand_size(self.to_move) > self.hand_limit(self.to_move):
            self.phase = HAND_LIMIT
            return
        self.end_turn()

    def discard_for_hand_limit(self, species: int) -> None:
        """Rules §4.4."""
        self.hands[self.to_move][species] -= 1
        self.discard[species] += 1
        self.count("hand_discards")
        self.note("discard", species=species)
        self.continue_turn()

    def end_turn(self) -> None:
        """Rules §4.4, §8.1: Refill the nursery, count the turn, check the end, pass to the next seat."""
        self.refill_nursery()
        self.turn += 1
        if self.game_over():
            self.done, self.end = True, COMPLETE
        self.to_move = (self.to_move + 1) % self.players
        self.phase = MAIN

    def game_over(self) -> bool:
        """Multiplayer: round 3 over and seat 0 would move next. Solitaire: one more turn after round 3's.

        Rules §8.1, §10.4.
        """
        if self.rounds_ended < ROUNDS:
            return False
        if self.solitaire:
            return self.turn >= self.round3_turn + 2
        return (self.to_move + 1) % self.players == 0

    def stall(self) -> None:
        """Rules §8.2."""
        self.done, self.end = True, STALL

    # --- scoring --------------------------------------------------------------------------------

    def points_plants(self, seat: int) -> int:
        """Rules §9.1."""
        return sum(self.config.species[plant].value for plant in self.plants(seat))

    def points_effects(self, seat: int) -> int:
        """Rules §9.2: The canopy plants' scoring effects."""
        total = 0
        for _, plant in self.canopy_plants(seat):
            effect = self.config.species[plant].effect
            if effect.kind == "scoring_per_trait":
                total += effect.n * self.plants_with_trait(seat, effect.trait)
            elif effect.kind == "scoring_per_energy":
                total += effect.n * self.energy_cards(seat)
            elif effect.kind == "scoring_per_row_stack":
                tall_stacks = sum(len(self.regions[seat][space]) >= effect.k for space in ROW_SPACES[effect.row])
                total += effect.n * tall_stacks
        return total

    def points_energy(self, seat: int) -> int:
        """Rules §9.3."""
        return self.config.energy_points * self.energy_cards(seat)

    def points_visitors(self, seat: int) -> int:
        """Rules §9.4."""
        return sum(self.config.visitors[v].points for v in self.visitors_won[seat])

    def points_elevation(self, seat: int) -> int:
        """Per row: ``elevation_per_plant`` x the plant count of its smallest stack (energy never counts).

        Rules §9.5.
        """
        return sum(self.config.elevation_per_plant * min(len(self.regions[seat][space]) for space in spaces)
                   for spaces in ROW_SPACES)

    def points_hand(self, seat: int) -> int:
        """Rules §9.6."""
        return self.hand_size(seat) // self.config.hand_cards_per_point

    def points(self, seat: int) -> dict[str, int]:
        return {
            "points_plants": self.points_plants(seat),
            "points_effects": self.points_effects(seat),
            "points_energy": self.points_energy(seat),
            "points_visitors": self.points_visitors(seat),
            "points_elevation": self.points_elevation(seat),
            "points_hand": self.points_hand(seat),
        }

    def score(self, seat: int) -> int:
        return sum(self.points(seat).values())

    def solo_target(self) -> int:
        """Standard: the value of the kept cards; hard: plus the points of round-end visitors not earned.

        Rules §10.1.
        """
        config = self.config
        target = sum(config.species[int(config.card_species[card])].value for card in self.kept_cards)
        if config.difficulty == "hard":
            # Spec question: in a stall, the visitors of rounds not yet ended count as not earned too.
            target += sum(config.visitors[v].points for v in self.round_visitors if v not in self.visitors_won[0])
        return target

    # --- outcome --------------------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """Rules §9.7."""
        scores = [self.score(seat) for seat in range(self.players)]
        if self.end != COMPLETE:
            rank = [0] * self.players
        elif self.solitaire:
            rank = [1 if scores[0] > self.solo_target() else 2]
        else:
            rank = ranks(scores)
        columns: dict[str, list[int]] = {}
        for name in SEAT_COLUMNS:
            if name.startswith("points_"):
                columns[name] = [self.points(seat)[name] for seat in range(self.players)]
            elif name == "plants":
                columns[name] = [len(self.plants(seat)) for seat in range(self.players)]
            elif name == "energy":
                columns[name] = [self.energy_cards(seat) for seat in range(self.players)]
            elif name == "hand":
                columns[name] = [self.hand_size(seat) for seat in range(self.players)]
            else:
                columns[name] = list(self.stats[name])
        game_columns = {
            "rounds_ended": self.rounds_ended,
            "deck_resets": self.resets,
            "visitors_unawarded": len(self.unawarded),
            "solo_target": self.solo_target() if self.solitaire else 0,
        }
        return {"score": scores, "rank": rank, "end": self.end, "turns": self.turn,
                "seat_columns": columns, "game_columns": game_columns}

    def snapshot(self) -> dict[str, Any]:
        return {
            "hands": [list(hand) for hand in self.hands],
            "regions": [[list(stack) for stack in region] for region in self.regions],
            "energy": [[list(counts) for counts in region] for region in self.energy],
            "visitors_won": [list(won) for won in self.visitors_won],
            "round_visitors": list(self.round_visitors),
            "carried": list(self.carried),
            "nursery": list(self.nursery),
            "deck": list(self.deck),
            "discard": list(self.discard),
            "tucked": [list(pile) for pile in self.tucked],
            "rounds_ended": self.rounds_ended,
            "turn": self.turn,
            "to_move": self.to_move,
            "phase": self.phase,
            "end": self.end,
        }

    def cards_in_game(self) -> int:
        """Every kept card wherever it is (hands, regions, energy, nursery, deck, discard, tucked, in play).

        Rules §1.4.
        """
        in_play = 1 if self.play_species != EMPTY else 0
        return (sum(map(sum, self.hands)) + sum(len(self.plants(s)) for s in range(self.players))
                + sum(self.energy_cards(s) for s in range(self.players)) + sum(c != EMPTY for c in self.nursery)
                + len(self.deck) + sum(self.discard) + sum(map(sum, self.tucked)) + in_play)
