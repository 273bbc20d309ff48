"""Known positions for the Reforest reference engine, one rule per test.

Positions are built by setting the fields of a freshly dealt game: ``blank()``
empties every pile, then a test lays out hands (``counts("Salal", "Salal")``),
stacks (``regions[seat][space]``, bottom to top), energy, the nursery and the
deck (top first). Spaces::

              [5]            high
           [3]   [4]         middle
        [0]   [1]   [2]      low
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sims.core.engine import ReferenceBot
from sims.core.play import play_reference
from sims.core.rng import shuffle_order
from sims.reforest import config as reforest_config
from sims.reforest.reference import EMPTY, PAYMENT_SPACES, ReforestGame, ranks
from sims.reforest.render import describe_action, render_game

CONFIG = reforest_config.load()
FILLER = "Deer Fern"  # no effect: the default deck card


def sp(name: str, config=CONFIG) -> int:
    return config.species_names.index(name)


def vis(name: str, config=CONFIG) -> int:
    return config.visitor_names.index(name)


def counts(*names: str, config=CONFIG) -> list[int]:
    held = [0] * config.num_species
    for name in names:
        held[sp(name, config)] += 1
    return held


def blank(players: int = 2, seed: int = 1, config=CONFIG, deck_cards: int = 20) -> ReforestGame:
    """A dealt game with empty hands, regions, nursery, discard and tucked piles; a deck of filler cards."""
    game = ReforestGame(config, players, seed)
    n = config.num_species
    game.hands = [[0] * n for _ in range(players)]
    game.regions = [[[] for _ in range(6)] for _ in range(players)]
    game.energy = [[[0] * n for _ in range(6)] for _ in range(players)]
    game.nursery = [EMPTY] * config.nursery_size
    game.discard = [0] * n
    game.tucked = [[0] * n, [0] * n]
    game.deck = [sp(FILLER, config)] * deck_cards
    return game


def stack(game: ReforestGame, seat: int, space: int, *names: str) -> None:
    game.regions[seat][space] = [sp(name, game.config) for name in names]


def act(game: ReforestGame, block: str, *fields: int) -> None:
    game.apply(game.config.encode(block, fields))


def legal_plays(game: ReforestGame, name: str) -> list[int]:
    """Spaces where ``name`` may be played now."""
    config = game.config
    return sorted(fields[1] for block, fields in map(config.decode, game.legal_actions())
                  if block == "play" and fields[0] == sp(name, config))


def blocks(game: ReforestGame) -> list[tuple[str, tuple[int, ...]]]:
    return [game.config.decode(a) for a in game.legal_actions()]


# --- setup ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_deals_hands_nursery_and_tucked_cards_from_the_kept_deck(players):
    game = ReforestGame(CONFIG, players, 42)
    order = shuffle_order(np.array([42], dtype=np.uint64), "deck", 0, CONFIG.total_cards)[0]
    kept = [int(CONFIG.card_species[c]) for c in order[: CONFIG.deck_size(players)]]
    hand = CONFIG.hand_start
    assert game.hands[0] == counts(*[CONFIG.species_names[s] for s in kept[:hand]])
    assert game.hands[-1] == counts(*[CONFIG.species_names[s] for s in kept[(players - 1) * hand:players * hand]])
    dealt = players * hand
    assert game.nursery == kept[dealt:dealt + 3]
    tucked = CONFIG.tucked(players)
    assert [sum(pile) for pile in game.tucked] == [tucked, tucked]
    assert game.deck == kept[dealt + 3 + 2 * tucked:]
    assert len(set(game.round_visitors)) == 3
    assert game.cards_in_game() == CONFIG.deck_size(players)
    assert (game.phase, game.to_move, game.turn) == ("main", 0, 0)


def test_four_players_leave_43_cards_in_the_round_one_deck():
    game = ReforestGame(CONFIG, 4, 3)
    assert len(game.deck) == 90 - 20 - 3 - 24 == 43


# --- placement -----------------------------------------------------------------------------

def test_the_first_plant_goes_in_the_low_row():
    game = blank()
    game.hands[0] = counts("Bunchberry", "Salal")
    assert legal_plays(game, "Bunchberry") == [0, 1, 2]


def test_later_plants_go_next_to_a_plant_or_over_a_shorter_one():
    game = blank()
    stack(game, 0, 0, "Bunchberry")
    game.hands[0] = counts("Step Moss", "Deer Fern", "Salal")
    assert legal_plays(game, "Step Moss") == [1, 3]  # 0.1 m may not cover 0.2 m
    assert legal_plays(game, "Deer Fern") == [0, 1, 3]  # 0.7 m covers the Bunchberry


def test_a_plant_covers_only_a_strictly_shorter_plant():
    game = blank()
    stack(game, 0, 0, "Salal")
    stack(game, 0, 1, "Red Huckleberry")
    game.hands[0] = counts("Salal", "Red Huckleberry", "Red Huckleberry", "Thimbleberry")
    assert 0 not in legal_plays(game, "Salal")  # same height
    assert 0 not in legal_plays(game, "Thimbleberry")  # shorter
    assert legal_plays(game, "Red Huckleberry") == [0, 2, 3, 4]  # covers Salal, not another Huckleberry


def test_a_species_is_played_only_in_its_rows():
    game = blank()
    stack(game, 0, 0, "Bunchberry")
    stack(game, 0, 1, "Bunchberry")
    stack(game, 0, 3, "Bunchberry")
    game.hands[0] = counts("Salmonberry", "Noble Fir", "Salal", "Salal", "Salal")
    assert legal_plays(game, "Salmonberry") == [0, 1, 2]
    assert legal_plays(game, "Noble Fir") == [5]


# --- payment -------------------------------------------------------------------------------

def test_payment_spaces_are_the_stack_itself_and_its_neighbours():
    assert PAYMENT_SPACES[0] == (0, 1, 3)
    assert PAYMENT_SPACES[1] == (0, 1, 2, 3, 4)
    assert PAYMENT_SPACES[5] == (3, 4, 5)


def test_affordability_counts_the_hand_and_energy_in_payment_spaces_only():
    game = blank()
    stack(game, 0, 0, "Bunchberry")
    stack(game, 0, 2, "Bunchberry")
    game.energy[0][2][sp("Fireweed")] = 5  # space 2 is not a payment space of 3
    game.energy[0][0][sp("Fireweed")] = 2
    game.hands[0] = counts("Douglas Fir", "Salal")
    assert 3 not in legal_plays(game, "Douglas Fir")  # 4 > 1 hand + 2 energy
    stack(game, 0, 1, "Bunchberry")
    game.energy[0][1][sp("Lady Fern")] = 1
    assert 3 in legal_plays(game, "Douglas Fir")  # 4 <= 1 + 2 + 1


def test_paying_with_hand_and_energy_discards_each_card_and_then_places():
    game = blank()
    stack(game, 0, 0, "Bunchberry")
    stack(game, 0, 1, "Bunchberry")
    stack(game, 0, 2, "Bunchberry")
    game.energy[0][0] = counts("Lady Fern", "Fireweed")  # lowest species id first: Fireweed (4), Lady Fern (7)
    game.energy[0][1] = counts("Bracken Fern")
    game.energy[0][2] = counts("Salal")  # not a payment space of 3
    game.hands[0] = counts("Douglas Fir", "Salal")
    act(game, "play", sp("Douglas Fir"), 3)
    assert game.phase == "pay" and game.owed == 4 and game.hands[0] == counts("Salal")
    assert game.legal_actions() == [CONFIG.encode_pay_hand(sp("Salal")), CONFIG.encode_pay_energy(0),
                                    CONFIG.encode_pay_energy(1)]
    act(game, "pay_energy", 0)
    assert game.energy[0][0] == counts("Lady Fern") and game.discard == counts("Fireweed")
    act(game, "pay_hand", sp("Salal"))
    act(game, "pay_energy", 0)
    assert game.phase == "pay" and game.owed == 1
    assert game.legal_actions() == [CONFIG.encode_pay_energy(1)]
    act(game, "pay_energy", 1)
    assert game.regions[0][3] == [sp("Douglas Fir")]
    assert game.discard == counts("Fireweed", "Lady Fern", "Salal", "Bracken Fern")
    assert game.energy[0][2] == counts("Salal")
    assert game.stats["paid_from_hand"][0] == 1 and game.stats["paid_from_energy"][0] == 3
    assert game.stats["cost_paid"][0] == 4 and game.turn == 1


def test_energy_under_the_covered_stack_pays_for_its_cover():
    game = blank()
    stack(game, 0, 0, "Salal")
    game.energy[0][0] = counts("Fireweed", "Fireweed")
    game.hands[0] = counts("Douglas Fir")  # 4 - 2 succession = 2, paid from the same stack
    assert legal_plays(game, "Douglas Fir") == [0]
    act(game, "play", sp("Douglas Fir"), 0)
    act(game, "pay_energy", 0)
    act(game, "pay_energy", 0)
    assert game.regions[0][0] == [sp("Salal"), sp("Douglas Fir")]


def test_a_covered_sun_plant_cannot_pay_for_its_own_cover():
    game = blank()
    stack(game, 0, 0, "Thimbleberry")  # sun, cost 1
    game.hands[0] = counts("Douglas Fir", "Salal")  # 4 - 1 = 3 > 1 card in hand
    assert legal_plays(game, "Douglas Fir") == []


# --- cost ------------------------------------------------------------------------------------

def test_succession_discount_is_the_cost_of_the_top_plant_only():
    game = blank()
    stack(game, 0, 0, "Bunchberry", "Salal")  # costs 1 then 2
    assert game.play_cost(0, sp("Douglas Fir"), 0) == 4 - 2
    assert game.play_cost(0, sp("Red Huckleberry"), 0) == 0
    assert game.play_cost(0, sp("Douglas Fir"), 1) == 4


def test_on_play_discount_counts_the_region_and_the_plant_itself():
    game = blank()
    stack(game, 0, 0, "Oregon Grape", "Salal")  # two berries plants (understory included)
    stack(game, 0, 1, "Deer Fern")
    # Red Elderberry: cost 3, 1 off per berries plant, itself berries: 3 - (2 + 1) = 0
    assert game.play_cost(0, sp("Red Elderberry"), 2) == 0
    # Western Hemlock: cost 3, 1 off per moss plant, itself not moss
    assert game.play_cost(0, sp("Western Hemlock"), 2) == 3
    stack(game, 0, 2, "Step Moss")
    assert game.play_cost(0, sp("Western Hemlock"), 4) == 2
    # the covered plant still counts (region before placement), and its cost is the succession discount
    assert game.play_cost(0, sp("Western Hemlock"), 2) == 3 - 1 - 0


def test_passive_discount_from_canopy_plants_never_from_itself():
    game = blank()
    stack(game, 0, 0, "Oregon Grape")  # berries plants cost 1 less
    assert game.play_cost(0, sp("Red Huckleberry"), 1) == 1
    assert game.play_cost(0, sp("Deer Fern"), 1) == 1  # not berries
    assert game.play_cost(0, sp("Oregon Grape"), 1) == 0  # another grape is discounted by this one
    # the plant about to be covered still discounts, on top of succession: 2 - 1 - 1
    assert game.play_cost(0, sp("Red Huckleberry"), 0) == 0
    stack(game, 0, 0, "Oregon Grape", "Pacific Yew")  # covered: no more discount
    assert game.play_cost(0, sp("Red Huckleberry"), 1) == 2
    game2 = blank()
    assert game2.play_cost(0, sp("Oregon Grape"), 0) == 1  # no discount from itself


def test_a_zero_cost_play_is_placed_at_once():
    game = blank()
    game.hands[0] = counts("Oregon Oxalis")
    act(game, "play", sp("Oregon Oxalis"), 1)
    assert game.regions[0][1] == [sp("Oregon Oxalis")] and game.turn == 1 and game.to_move == 1


# --- covering ----------------------------------------------------------------------------------

def test_covering_a_sun_plant_turns_it_into_energy():
    game = blank()
    stack(game, 0, 0, "Thimbleberry")
    game.hands[0] = counts("Red Huckleberry", "Salal")
    act(game, "play", sp("Red Huckleberry"), 0)
    act(game, "pay_hand", sp("Salal"))
    assert game.regions[0][0] == [sp("Red Huckleberry")]
    assert game.energy[0][0] == counts("Thimbleberry")
    assert game.stats["plants_covered"][0] == 1 and game.stats["energy_from_cover"][0] == 1
    assert game.points(0)["points_energy"] == 1


def test_covering_a_half_sun_plant_keeps_it_without_its_effect():
    game = blank()
    stack(game, 0, 0, "Salal", "Red Huckleberry")  # Salal: after_gather_store, now understory
    assert game.points_plants(0) == 4
    assert game.plants_with_trait(0, CONFIG.traits.index("berries")) == 2
    assert game.points_effects(0) == 2  # the Huckleberry counts the Salal's berries
    act(game, "gather")
    act(game, "take", 3)
    act(game, "stop")
    assert game.queue == [] and game.phase == "main" and game.to_move == 1  # no after-gather store


def test_covering_a_half_sun_plant_records_a_cover_without_energy():
    game = blank()
    stack(game, 0, 0, "Deer Fern")
    game.hands[0] = counts("Salal", "Salal")
    act(game, "play", sp("Salal"), 0)  # 2 - 1 = 1
    act(game, "pay_hand", sp("Salal"))
    assert game.regions[0][0] == [sp("Deer Fern"), sp("Salal")] and sum(game.energy[0][0]) == 0
    assert game.stats["plants_covered"][0] == 1 and game.stats["energy_from_cover"][0] == 0


# --- effects, each alone ---------------------------------------------------------------------

def test_on_play_draw_offers_picks_from_the_nursery_or_deck():
    game = blank()
    game.nursery = [sp("Salal"), EMPTY, sp("Fireweed")]
    game.hands[0] = counts("Thimbleberry", "Bunchberry")
    act(game, "play", sp("Thimbleberry"), 0)
    act(game, "pay_hand", sp("Bunchberry"))
    assert game.phase == "effect" and game.legal_actions() == [CONFIG.encode_use(), CONFIG.encode_decline()]
    act(game, "use")
    assert game.phase == "draw"
    assert game.legal_actions() == [CONFIG.encode_take(0), CONFIG.encode_take(2), CONFIG.encode_take(3)]
    act(game, "take", 0)
    assert game.hands[0] == counts("Salal") and game.stats["cards_drawn"][0] == 1
    assert game.nursery[0] == sp(FILLER)  # refilled at the end of the turn
    assert game.turn == 1


def test_declining_an_effect_does_nothing():
    game = blank()
    game.hands[0] = counts("Thimbleberry", "Bunchberry")
    act(game, "play", sp("Thimbleberry"), 0)
    act(game, "pay_hand", sp("Bunchberry"))
    act(game, "decline")
    assert game.hands[0] == [0] * CONFIG.num_species and game.turn == 1
    assert game.stats["effects_declined"][0] == 1 and game.stats["effects_used"][0] == 0


def test_on_play_store_puts_the_deck_top_under_the_played_plant():
    game = blank()
    game.deck = [sp("Salal"), sp(FILLER), sp(FILLER)]
    game.hands[0] = counts("Bracken Fern")
    act(game, "play", sp("Bracken Fern"), 2)
    act(game, "use")
    assert game.energy[0][2] == counts("Salal") and game.stats["cards_stored"][0] == 1


def test_reaction_draw_when_playing_another_plant_with_the_trait():
    game = blank()
    stack(game, 0, 0, "Oregon Oxalis")  # tree played: draw 1
    game.hands[0] = counts("Pacific Yew", "Salal", "Salal", "Salal", "Deer Fern")
    act(game, "play", sp("Deer Fern"), 1)
    act(game, "pay_hand", sp("Salal"))
    assert game.turn == 1  # a fern triggers nothing
    game.to_move = 0
    act(game, "play", sp("Pacific Yew"), 2)
    act(game, "pay_hand", sp("Salal"))
    act(game, "pay_hand", sp("Salal"))
    assert [(e.kind, e.species, e.space) for e in game.queue] == [("draw", sp("Oregon Oxalis"), 0)]
    act(game, "use")
    act(game, "take", 3)
    assert game.hands[0] == counts(FILLER)


def test_reaction_store_goes_under_the_reacting_plant_and_never_triggers_itself():
    game = blank()
    stack(game, 0, 0, "Sword Fern")
    game.hands[0] = counts("Sword Fern", "Bunchberry", "Deer Fern", "Salal")
    act(game, "play", sp("Sword Fern"), 1)
    act(game, "pay_hand", sp("Bunchberry"))
    # only the Sword Fern on space 0 reacts, not the one just played
    assert [(e.kind, e.space) for e in game.queue] == [("store", 0)]
    act(game, "use")
    assert game.energy[0][0] == counts(FILLER) and sum(game.energy[0][1]) == 0


def test_after_gather_store_and_draw_follow_every_gather_in_space_order():
    game = blank()
    stack(game, 0, 0, "Salal")
    stack(game, 0, 3, "Snowbrush")
    act(game, "gather")
    act(game, "take", 3)
    act(game, "stop")  # a gather of 1 card triggers them too
    assert [(e.kind, e.space) for e in game.queue] == [("store", 0), ("draw", 3)]
    act(game, "use")
    assert game.energy[0][0] == counts(FILLER)
    act(game, "use")
    act(game, "take", 3)
    assert game.hands[0] == counts(FILLER, FILLER) and game.stats["cards_gathered"][0] == 1
    assert game.stats["cards_drawn"][0] == 1 and game.turn == 1


def test_on_covered_draw_of_the_covered_plant():
    game = blank()
    stack(game, 0, 0, "Step Moss")
    game.hands[0] = counts("Bunchberry", "Salal")
    act(game, "play", sp("Bunchberry"), 0)  # 1 - 0 succession
    act(game, "pay_hand", sp("Salal"))
    assert game.regions[0][0] == [sp("Step Moss"), sp("Bunchberry")]  # half-sun: stays
    assert [(e.kind, e.species, e.space) for e in game.queue] == [("draw", sp("Step Moss"), 0)]
    act(game, "use")
    act(game, "take", 3)
    assert game.hands[0] == counts(FILLER)


def test_on_covered_store_of_a_covered_sun_plant_goes_under_the_stack():
    game = blank()
    stack(game, 0, 0, "Fireweed")  # sun, on_covered_store 2
    game.hands[0] = counts("Salal", "Salal", "Salal")
    act(game, "play", sp("Salal"), 0)  # 2 - 0 = 2
    act(game, "pay_hand", sp("Salal"))
    act(game, "pay_hand", sp("Salal"))
    assert game.energy[0][0] == counts("Fireweed")
    assert [(e.kind, e.n, e.species, e.space) for e in game.queue] == [("store", 2, sp("Fireweed"), 0)]
    act(game, "use")
    assert game.energy[0][0] == counts("Fireweed", FILLER, FILLER)
    assert game.stats["cards_stored"][0] == 2


def test_passive_hand_limit_raises_the_limit_only_from_the_canopy():
    game = blank()
    stack(game, 0, 3, "Labrador Tea")  # +2
    assert game.hand_limit(0) == 9
    stack(game, 0, 3, "Labrador Tea", "Subalpine Fir")  # covered tea; fir +1
    assert game.hand_limit(0) == 8


def test_scoring_effects_of_canopy_plants():
    game = blank()
    stack(game, 0, 0, "Bunchberry", "Red Huckleberry")  # berries 1 each: 2 berries plants
    assert game.points_effects(0) == 2
    game = blank()
    stack(game, 0, 0, "Douglas Fir")
    game.energy[0][0] = counts("Fireweed", "Fireweed")
    game.energy[0][1] = counts("Salal")
    assert game.points_effects(0) == 3 and game.points_energy(0) == 3
    game = blank()
    stack(game, 0, 3, "Step Moss", "Vine Maple")  # 2 per middle stack with 2+ plants
    stack(game, 0, 4, "Deer Fern")
    assert game.points_effects(0) == 2
    stack(game, 0, 4, "Step Moss", "Deer Fern")
    assert game.points_effects(0) == 4
    stack(game, 0, 3, "Vine Maple", "Western Hemlock")  # covered: no scoring effect
    assert game.points_effects(0) == 0


# --- effect order ------------------------------------------------------------------------------

def test_effects_queue_covered_then_reactions_by_space_then_the_played_plant():
    game = blank()
    stack(game, 0, 1, "Step Moss")  # on_covered_draw 1
    stack(game, 0, 0, "Oregon Oxalis")  # reacts to tree: draw 1
    stack(game, 0, 2, "Salmonberry")  # reacts to berries: draw 1
    game.hands[0] = counts("Pacific Dogwood", "Salal", "Salal")  # tree, berries; on_play_draw 2
    act(game, "play", sp("Pacific Dogwood"), 1)
    act(game, "pay_hand", sp("Salal"))
    act(game, "pay_hand", sp("Salal"))
    assert [(e.species, e.n) for e in game.queue] == [
        (sp("Step Moss"), 1), (sp("Oregon Oxalis"), 1), (sp("Salmonberry"), 1), (sp("Pacific Dogwood"), 2)]
    assert game.regions[0][1] == [sp("Step Moss"), sp("Pacific Dogwood")]


def test_an_effect_that_cannot_act_is_skipped():
    game = blank()
    game.rounds_ended = 3
    game.deck = []
    game.hands[0] = counts("Bracken Fern")
    act(game, "play", sp("Bracken Fern"), 0)  # store with an empty deck after round 3
    assert game.turn == 1 and game.stats["effects_used"][0] == game.stats["effects_declined"][0] == 0


def test_draw_picks_are_dropped_when_nothing_is_left():
    game = blank()
    game.rounds_ended = 3
    game.deck = []
    game.nursery = [EMPTY, sp("Salal"), EMPTY]
    game.hands[0] = counts("Pacific Dogwood", "Bunchberry", "Bunchberry")
    act(game, "play", sp("Pacific Dogwood"), 0)
    act(game, "pay_hand", sp("Bunchberry"))
    act(game, "pay_hand", sp("Bunchberry"))
    act(game, "use")
    assert game.legal_actions() == [CONFIG.encode_take(1)]
    act(game, "take", 1)
    assert game.turn == 1 and game.hands[0] == counts("Salal")


# --- gather and the hand limit ----------------------------------------------------------------

def test_gather_from_the_nursery_and_the_deck_then_refill():
    game = blank()
    game.nursery = [sp("Salal"), sp("Fireweed"), sp("Douglas Fir")]
    game.deck = [sp("Bunchberry"), sp("Step Moss"), sp(FILLER), sp(FILLER)]
    act(game, "gather")
    assert game.legal_actions() == [CONFIG.encode_take(s) for s in range(4)]  # no gather of 0 cards
    act(game, "take", 1)
    assert CONFIG.encode_stop() in game.legal_actions()
    assert game.nursery[1] == EMPTY  # stays empty until the end of the turn
    act(game, "take", 3)
    assert game.hands[0] == counts("Fireweed", "Bunchberry")
    assert game.nursery == [sp("Salal"), sp("Step Moss"), sp("Douglas Fir")]
    assert game.stats["gathers"][0] == 1 and game.stats["cards_gathered"][0] == 2 and game.to_move == 1


def test_hand_limit_discards_at_the_end_of_the_turn():
    game = blank()
    game.hands[0] = counts(*["Salal"] * 7)
    game.nursery = [sp("Douglas Fir"), sp("Fireweed"), EMPTY]
    act(game, "gather")
    act(game, "take", 0)
    act(game, "take", 1)
    assert game.phase == "hand_limit"
    assert game.legal_actions() == [CONFIG.encode_discard(s) for s in sorted([sp("Salal"), sp("Fireweed"),
                                                                               sp("Douglas Fir")])]
    act(game, "discard", sp("Fireweed"))
    act(game, "discard", sp("Salal"))
    assert game.hand_size(0) == 7 and game.turn == 1
    assert game.discard == counts("Fireweed", "Salal") and game.stats["hand_discards"][0] == 2


# --- rounds --------------------------------------------------------------------------------------

def end_round_now(game: ReforestGame) -> None:
    """End the round as if the deck had just emptied, with a discard pile to rebuild the deck from."""
    game.deck = []
    game.discard = counts(*[FILLER] * 5)
    game.end_round()


def round_end_position() -> ReforestGame:
    """Seat 0 leads on plants; the deck holds one card; known discard, nursery and tucked piles."""
    game = blank(players=2, seed=5)
    game.round_visitors = [vis("Roosevelt Elk"), vis("Black Bear"), vis("Mountain Goat")]
    stack(game, 0, 0, "Deer Fern")
    stack(game, 0, 1, "Deer Fern")
    stack(game, 1, 0, "Bunchberry")
    game.deck = [sp("Salal")]
    game.nursery = [sp("Fireweed"), sp("Step Moss"), sp("Bunchberry")]
    game.discard = counts("Douglas Fir", "Douglas Fir")
    game.tucked = [counts("Sitka Spruce", "Noble Fir", "Salal"), counts("Pacific Yew")]
    return game


def test_the_round_ends_mid_gather_and_the_gather_resumes():
    game = round_end_position()
    act(game, "gather")
    act(game, "take", 3)  # the last deck card
    assert game.hands[0] == counts("Salal")
    assert game.rounds_ended == 1 and game.visitors_won == [[vis("Roosevelt Elk")], []]
    pool = sorted(sp(n) for n in ("Douglas Fir", "Douglas Fir", "Fireweed", "Step Moss", "Bunchberry",
                                  "Sitka Spruce", "Noble Fir", "Salal"))
    perm = shuffle_order(np.array([5], dtype=np.uint64), "deck", 1, len(pool))[0]
    shuffled = [pool[i] for i in perm]
    assert game.nursery == shuffled[:3] and game.deck == shuffled[3:]
    assert game.tucked == [[0] * CONFIG.num_species, counts("Pacific Yew")]
    assert game.discard == [0] * CONFIG.num_species
    assert game.phase == "gather" and game.gather_left == 1  # the action resumes
    act(game, "take", 3)
    assert game.hand_size(0) == 2 and game.turn == 1


def test_a_store_that_empties_the_deck_counts_for_the_award():
    game = round_end_position()
    game.round_visitors = [vis("Banana Slug"), vis("Black Bear"), vis("Mountain Goat")]
    game.energy[1][0] = counts("Fireweed")  # seat 1 leads on energy until seat 0 stores
    game.energy[0][0] = counts("Fireweed")
    game.hands[0] = counts("Bracken Fern")
    act(game, "play", sp("Bracken Fern"), 2)
    act(game, "use")
    assert game.rounds_ended == 1 and game.visitors_won == [[vis("Banana Slug")], []]


def test_visitor_ties_carry_over_and_are_awarded_first_next_round():
    game = round_end_position()
    stack(game, 1, 1, "Deer Fern")  # 2 plants each: the Elk is tied
    end_round_now(game)
    assert game.carried == [vis("Roosevelt Elk")] and game.visitors_won == [[], []]
    stack(game, 1, 2, "Deer Fern")  # seat 1: 3 plants; berries: seat 1 has the Bunchberry
    end_round_now(game)
    assert game.visitors_won == [[], [vis("Roosevelt Elk"), vis("Black Bear")]] and game.carried == []
    assert game.rounds_ended == 2


def test_an_all_zero_measure_is_a_tie_and_ties_after_round_three_are_discarded():
    game = round_end_position()
    game.rounds_ended = 2
    game.carried = [vis("Black Bear")]
    game.round_visitors = [vis("Roosevelt Elk"), vis("Black Bear"), vis("Banana Slug")]
    game.regions = [[[] for _ in range(6)] for _ in range(2)]
    end_round_now(game)
    assert game.unawarded == [vis("Black Bear"), vis("Banana Slug")] and game.carried == []
    assert game.result()["game_columns"]["visitors_unawarded"] == 2


def test_an_empty_pool_cascades_into_the_next_round_end():
    game = blank(players=2)
    game.deck = [sp("Salal")]
    game.nursery = [EMPTY, EMPTY, EMPTY]
    act(game, "gather")
    act(game, "take", 3)
    # round 1 reset: pool empty -> round 2 ends at once; its tucked pile is empty too -> round 3
    assert game.rounds_ended == 3 and game.resets == 3 and game.deck == []
    assert game.phase == "gather" and game.legal_actions() == [CONFIG.encode_stop()]


# --- elevation, end and ranks ---------------------------------------------------------------

def test_elevation_bonus_examples_of_the_rulebook():
    game = blank()
    stack(game, 0, 5, "Deer Fern")  # a row with one stack of 1 card: 2
    stack(game, 0, 4, "Deer Fern")  # stacks of 0 and 1: 0
    stack(game, 0, 0, "Step Moss", "Bunchberry", "Deer Fern")  # 3, 2, 3: 4
    stack(game, 0, 1, "Step Moss", "Deer Fern")
    stack(game, 0, 2, "Step Moss", "Bunchberry", "Deer Fern")
    game.energy[0][3] = counts("Fireweed")  # energy never counts
    assert game.points_elevation(0) == 2 + 0 + 4


def test_hand_points_are_one_per_two_cards():
    game = blank()
    game.hands[0] = counts("Salal", "Salal", "Salal")
    assert game.points_hand(0) == 1


@pytest.mark.parametrize("players, starter, turns_after", [(3, 0, 3), (3, 1, 2), (3, 2, 1), (2, 1, 1)])
def test_the_game_ends_when_seat_zero_would_move_after_round_three(players, starter, turns_after):
    game = blank(players=players)
    game.rounds_ended = 2
    game.to_move = starter
    game.deck = [sp("Salal")]
    game.nursery = [sp(FILLER)] * 3
    act(game, "gather")
    act(game, "take", 3)  # round 3 ends during this turn
    assert game.rounds_ended == 3
    act(game, "stop")
    for _ in range(turns_after - 1):
        assert not game.done
        act(game, "gather")
        takes = [a for a in game.legal_actions() if CONFIG.decode(a)[0] == "take"]
        if takes:  # a gather takes at least one card when there is one
            game.apply(takes[0])
        act(game, "stop")
    assert game.done and game.end == "complete" and game.to_move == 0
    assert game.result()["rank"] != [0] * players


def test_ties_in_final_scores_share_a_rank():
    assert ranks([5, 5, 3]) == [1, 1, 3]
    game = blank(players=2)
    game.done, game.end = True, "complete"
    stack(game, 0, 0, "Salal")
    stack(game, 1, 2, "Salal")
    assert game.result()["rank"] == [1, 1]


def test_a_stall_has_no_ranks():
    game = blank(players=2)
    game.stall()
    assert game.done and game.result()["rank"] == [0, 0] and game.result()["end"] == "stall"


# --- solitaire -------------------------------------------------------------------------------------

def test_solitaire_discards_a_nursery_or_deck_card_after_gathering():
    game = blank(players=1)
    stack(game, 0, 0, "Salal")  # after_gather_store comes after the solo discard
    game.nursery = [sp("Douglas Fir"), EMPTY, sp("Fireweed")]
    act(game, "gather")
    act(game, "take", 0)
    act(game, "stop")
    assert game.phase == "solo_discard"
    assert game.legal_actions() == [CONFIG.encode_solo_discard(2), CONFIG.encode_solo_discard(3)]
    act(game, "solo_discard", 2)
    assert game.discard == counts("Fireweed") and game.phase == "effect"
    act(game, "decline")
    assert game.turn == 1 and game.to_move == 0 and game.stats["solo_discards"][0] == 1


def test_solitaire_visitors_are_earned_by_threshold_or_removed():
    game = blank(players=1)
    game.round_visitors = [vis("Roosevelt Elk"), vis("Black Bear"), vis("Douglas Squirrel")]
    for space in (0, 1, 2):
        stack(game, 0, space, "Bunchberry")  # 3 plants, 3 berries
    end_round_now(game)  # Elk, round 1: 3 plants >= 3
    assert game.visitors_won == [[vis("Roosevelt Elk")]]
    end_round_now(game)  # Bear, round 2: 3 berries < 4
    assert game.unawarded == [vis("Black Bear")] and game.carried == []
    stack(game, 0, 3, "Douglas Fir")
    stack(game, 0, 4, "Douglas Fir")
    stack(game, 0, 5, "Douglas Fir")
    end_round_now(game)  # Squirrel, round 3: 3 conifers < 4
    assert game.unawarded == [vis("Black Bear"), vis("Douglas Squirrel")]


def first_card(name: str) -> int:
    return int(np.flatnonzero(CONFIG.card_species == sp(name))[0])


def test_solitaire_targets_standard_and_hard():
    game = blank(players=1)
    game.kept_cards = [first_card("Douglas Fir"), first_card("Step Moss"), first_card("Salal")]
    game.round_visitors = [vis("Roosevelt Elk"), vis("Black Bear"), vis("Pacific Wren")]
    game.visitors_won = [[vis("Black Bear")]]
    assert game.solo_target() == 5 + 0 + 2
    hard = blank(players=1, config=reforest_config.load(overrides=["solitaire.difficulty=hard"]))
    hard.kept_cards = list(game.kept_cards)
    hard.round_visitors, hard.visitors_won = list(game.round_visitors), [[vis("Black Bear")]]
    assert hard.solo_target() == 7 + 4 + 3  # the Elk and the Wren were not earned


def test_solitaire_win_needs_a_score_above_the_target():
    game = blank(players=1)
    game.kept_cards = [first_card("Douglas Fir")]  # target 5
    game.done, game.end = True, "complete"
    stack(game, 0, 0, "Pacific Yew")  # 3 + elevation 0
    game.hands[0] = counts("Salal", "Salal", "Salal", "Salal")  # 2 points: 5 = target, a loss
    assert game.score(0) == 5 and game.result()["rank"] == [2]
    game.hands[0] = counts(*["Salal"] * 6)
    assert game.result()["rank"] == [1] and game.result()["game_columns"]["solo_target"] == 5


def test_solitaire_plays_one_more_turn_after_round_three():
    game = blank(players=1)
    game.rounds_ended = 2
    game.deck = [sp("Salal")]
    game.nursery = [sp(FILLER)] * 3
    act(game, "gather")
    act(game, "take", 3)
    assert game.rounds_ended == 3 and game.round3_turn == 0
    act(game, "stop")
    act(game, "solo_discard", 0)
    assert not game.done and game.turn == 1
    act(game, "gather")
    act(game, "take", 2)
    act(game, "stop")
    act(game, "solo_discard", 1)
    assert game.done and game.turn == 2


# After round 3 with no card left to take; seat 0 plays its Bracken Fern (cost 0), then the next turn starts.
# Salal costs 2: one or two of them alone cannot be paid for, three can.
AFTER_ROUND_THREE = [
    (1, [["Bracken Fern", "Salal"]], True),  # solitaire: its one more turn could change nothing
    (2, [["Bracken Fern"], ["Salal"]], True),
    (2, [["Bracken Fern"], ["Salal"] * 3], False),
    (3, [["Bracken Fern"] * 2, ["Salal"], ["Salal"] * 2], True),  # seat 0 could play, but has no turn left
    (3, [["Bracken Fern"], ["Salal"], ["Bracken Fern"]], False),  # seat 2 can still play
]


@pytest.mark.parametrize("players, hands, ends", AFTER_ROUND_THREE)
def test_after_round_three_a_turn_nobody_can_use_ends_the_game_blocked(players, hands, ends):
    game = blank(players=players)
    game.rounds_ended, game.round3_turn, game.deck = 3, 0, []
    game.hands = [counts(*names) for names in hands]
    act(game, "play", sp("Bracken Fern"), 0)
    assert game.turn == 1 and game.to_move == 1 % players and game.done is ends
    result = game.result()
    if ends:
        scores = [game.score(seat) for seat in range(players)]
        expected = [1 if scores[0] > game.solo_target() else 2] if players == 1 else ranks(scores)
        assert result["end"] == "blocked" and result["turns"] == 1 and result["rank"] == expected
    else:
        assert result["end"] == "" and blocks(game)[0] == ("gather", ())


def test_a_card_left_in_the_nursery_keeps_the_game_going():
    game = blank(players=2)
    game.rounds_ended, game.deck = 3, []
    game.nursery = [EMPTY, sp("Salal"), EMPTY]
    game.hands = [counts("Bracken Fern"), counts("Salal")]
    act(game, "play", sp("Bracken Fern"), 0)
    assert not game.done and game.to_move == 1  # seat 1 can gather the Salal


# --- whole games ---------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_end_with_every_card_accounted_for(players):
    for game_number in range(6):
        game = ReforestGame(CONFIG, players, 1000 * players + game_number)
        total = game.cards_in_game()
        choose = random.Random(game_number)
        while not game.done:
            assert game.turn < CONFIG.max_turns
            legal = game.legal_actions()
            assert legal and legal == sorted(set(legal))
            game.apply(choose.choice(legal))
            game.decisions += 1
            assert game.cards_in_game() == total
        result = game.result()
        assert result["end"] == "complete" and game.rounds_ended == 3
        assert result["score"] == [sum(result["seat_columns"][c][s] for c in result["seat_columns"]
                                       if c.startswith("points_")) for s in range(players)]
        assert set(game.snapshot()) == {"hands", "regions", "energy", "visitors_won", "round_visitors", "carried",
                                        "nursery", "deck", "discard", "tucked", "rounds_ended", "turn", "to_move",
                                        "phase", "end"}


def test_an_illegal_action_raises():
    game = ReforestGame(CONFIG, 2, 7)
    with pytest.raises(ValueError):
        game.apply(CONFIG.encode_stop())


def test_render_and_describe():
    game = ReforestGame(CONFIG, 2, 7)
    text = render_game(game)
    assert text.startswith("turn 0: seat 0 to move, phase main") and "seat 1:" in text
    assert describe_action(CONFIG, CONFIG.encode_play(sp("Salal"), 3)) == "play Salal on space 3 (middle)"
    assert describe_action(CONFIG, CONFIG.encode_take(3)) == "take the deck's top card"


def test_the_play_loop_stalls_a_game_at_the_turn_cap():
    class FirstLegal(ReferenceBot):
        def act(self, game, seed):
            return game.legal_actions()[0]

    game = play_reference(ReforestGame(CONFIG, 3, 11), [FirstLegal(s) for s in range(3)], 11, max_turns=4)
    result = game.result()
    assert game.end == "stall" and game.turn == 4 and result["rank"] == [0, 0, 0]


def test_every_action_has_a_description():
    assert len({describe_action(CONFIG, a) for a in range(CONFIG.num_actions)}) == CONFIG.num_actions
