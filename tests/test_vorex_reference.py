"""Known positions for the Vorex reference engine, one rule per test.

Hexes are written in axial coordinates ``(q, r)``: E is ``(1, 0)``, SE
``(0, 1)``, SW ``(-1, 1)``, W ``(-1, 0)``, NW ``(0, -1)``, NE ``(1, -1)``.
Positions are built on a game past its setup whose map was cleared
(:func:`blank`): :func:`lay` puts a real tile by its shape, :func:`paint`
gives one hex the kind of a tile's hex (for small hand-made maps),
:func:`ruin` and :func:`flower` do what they say. Tile hexes used below, in
their shape's order::

    start_b   bee        light, arid, water[insect], arid
    l0_arch   arch       insect[water], arid, mushroom[insect], expand[mushroom]
    l1_bar    bar        mushroom[water], arid, points 2[insect water], water[mushroom insect]
    l1_bee    bee        insect[water], draw[mushroom], arid, water[insect]
    l1_propeller         mushroom[insect], points 1[mushroom], expand[water], arid
    l1_wave   wave       water[mushroom mushroom], bloom[insect], insect[mushroom], arid

    bee (0,0) (1,0) (0,1) (1,1)     bar (0,0) (1,0) (2,0) (3,0)     wave (0,0) (1,0) (1,1) (2,1)
    propeller (0,0) (1,0) (-1,1) (0,-1)     arch (0,0) (-1,1) (-2,1) (-2,0)
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sims.core.rng import shuffle_order
from sims.vorex import config as vc
from sims.vorex.config import rotate
from sims.vorex.reference import (
    ACTION,
    BONUS_BLOOM,
    BONUS_EXPAND,
    EMPTY,
    RUIN,
    SETUP,
    WEED_BLOOM,
    WEED_EXPAND,
    VorexGame,
    bloom_payment,
    ranks_by,
)
from sims.vorex.render import describe_action, render_game

CONFIG = vc.load()


def load(*overrides: str) -> vc.VorexConfig:
    return vc.load(overrides=list(overrides))


# --- helpers ----------------------------------------------------------------------------------

def H(q: int, r: int, config=CONFIG) -> int:
    return config.hex_number[(q, r)]


def tile_id(name: str, config=CONFIG) -> int:
    return config.tile_names.index(name)


def blank(players: int = 2, config=CONFIG, seed: int = 1) -> VorexGame:
    """A game past its setup with an empty map and no flowers: seat 0's first ACTION decision, no resources."""
    game = VorexGame(config, players, seed)
    window = config.window
    game.tile_at, game.part_at, game.flower_at = [EMPTY] * window, [EMPTY] * window, [EMPTY] * window
    game.placed_tiles, game.tile_hexes, game.ruins, game.settled = [], {}, [], set()
    game.setup_tiles = [[EMPTY] * 3 for _ in range(game.players)]
    game.in_setup_round = False
    game.phase, game.to_move, game.actions_left, game.turn = ACTION, 0, config.actions_per_turn, game.players
    game.resources = [[0, 0, 0, 0] for _ in range(game.players)]
    game.supply = list(config.supply)
    game.flowers_left = [config.weed_flowers if seat == game.weed else config.flowers for seat in range(game.players)]
    game.stats = {name: [0] * game.players for name in game.stats}
    game.forget_cached()
    return game


def lay(game: VorexGame, name: str, q: int, r: int, rotation: int = 0) -> tuple[int, ...]:
    tile = tile_id(name, game.config)
    cells = game.config.placement_hexes(tile, H(q, r, game.config), rotation)
    assert cells is not None
    for part, hex_ in enumerate(cells):
        assert game.tile_at[hex_] == EMPTY
        game.tile_at[hex_], game.part_at[hex_] = tile, part
    game.placed_tiles.append(tile)
    game.tile_hexes[tile] = cells
    game.forget_cached()
    return cells


def paint(game: VorexGame, q: int, r: int, name: str, part: int) -> None:
    game.tile_at[H(q, r)], game.part_at[H(q, r)] = tile_id(name), part
    game.forget_cached()


def ruin(game: VorexGame, q: int, r: int) -> None:
    game.tile_at[H(q, r)] = RUIN
    game.ruins.append(H(q, r))
    game.forget_cached()


def flower(game: VorexGame, seat: int, q: int, r: int) -> None:
    game.flower_at[H(q, r)] = seat
    game.flowers_left[seat] -= 1
    game.stats["flowers_placed"][seat] += 1
    game.forget_cached()


def bloom(q: int, r: int) -> int:
    return CONFIG.encode_bloom(H(q, r))


def place(slot: int, q: int, r: int, rotation: int) -> int:
    return CONFIG.encode_place(slot, H(q, r), rotation)


DRAW, DECLINE = CONFIG.draw_action, CONFIG.decline_action


def res(light=0, mushroom=0, water=0, insect=0) -> list[int]:
    return [light, mushroom, water, insect]


# --- placement --------------------------------------------------------------------------------

def test_the_first_tile_covers_the_centre_in_each_of_its_24_placements():
    game = blank()
    bar = tile_id("l1_bar")
    placements = game.legal_placements(bar)
    assert len(placements) == 4 * 6  # each of the 4 hexes on the centre, 6 rotations
    assert all(CONFIG.centre in game.placement_cells(bar, a, k) for a, k in placements)


def test_all_six_rotations_turn_the_tile_clockwise_and_are_distinct_placements():
    game = blank()
    bar = tile_id("l1_bar")
    cell_sets = []
    for k in range(6):
        cells = game.placement_cells(bar, CONFIG.centre, k)
        assert cells == tuple(H(*rotate((i, 0), k)) for i in range(4))
        assert (CONFIG.centre, k) in game.legal_placements(bar)
        cell_sets.append(frozenset(cells))
    assert len(set(cell_sets)) == 6
    assert game.placement_cells(bar, CONFIG.centre, 1) == (H(0, 0), H(0, 1), H(0, 2), H(0, 3))  # E turns to SE


def test_a_tile_must_touch_the_forest_by_an_edge_and_may_not_overlap():
    game = blank()
    lay(game, "start_b", 0, 0)  # (0,0) (1,0) (0,1) (1,1)
    legal = set(game.legal_placements(tile_id("l1_bar")))
    assert (H(2, 0), 0) in legal  # (2,0) touches (1,0)
    assert (H(0, -1), 0) in legal  # (0,-1) touches (0,0)
    assert (H(3, 0), 0) not in legal  # one empty hex away
    assert (H(1, 0), 0) not in legal  # overlaps
    assert (H(-4, 0), 0) in legal  # its last hex (-1,0) touches (0,0)


def test_a_tile_may_not_leave_the_playable_area():
    game = blank()
    lay(game, "start_b", 0, 0)
    edge = H(CONFIG.radius, 0)
    assert game.placement_cells(tile_id("l1_bar"), edge, 0) is None
    assert (edge, 0) not in game.legal_placements(tile_id("l1_bar"))


def test_closing_a_one_hex_hole_makes_a_ruin():
    game = blank()
    lay(game, "l0_arch", 0, 1, rotation=1)  # (0,1) (-1,1) (-1,0) (0,-1): four sides of (0,0)
    game.face_up = [tile_id("l1_bee"), tile_id("l1_wave")]
    action = place(0, 1, -1, 0)  # the bee covers (1,-1) (2,-1) (1,0) (2,0): the last two sides
    assert action in game.legal_actions()
    game.apply(action)
    assert game.tile_at[H(0, 0)] == RUIN and game.ruins == [H(0, 0)]
    assert game.settled == set()  # stumps around it are still free
    assert game.events[-1]["ruins_formed"] == 1


def test_closing_a_hole_of_two_hexes_is_illegal():
    game = blank()
    lay(game, "l0_arch", 0, 1, rotation=1)  # four sides of (0,0)
    lay(game, "l1_bee", 1, -2)  # (1,-2) (2,-2) (1,-1) (2,-1)
    game.face_up = [tile_id("l1_bar"), tile_id("l1_wave")]
    # the bar turned SW from (2,0) covers (2,0) (1,1) (0,2) (-1,3): {(0,0), (1,0)} would be closed
    assert game.placement_cells(tile_id("l1_bar"), H(2, 0), 2) == (H(2, 0), H(1, 1), H(0, 2), H(-1, 3))
    assert game.placement_ruins((H(2, 0), H(1, 1), H(0, 2), H(-1, 3))) is None
    assert place(0, 2, 0, 2) not in game.legal_actions()
    # a bar on (1,1) .. (4,1) leaves the pair open through (2,0)
    assert place(0, 1, 1, 0) in game.legal_actions()


def test_expand_takes_the_beetles_and_refills_the_face_up_slot():
    game = blank()
    lay(game, "start_b", 0, 0)
    game.face_up = [tile_id("l1_bar"), tile_id("l1_wave")]  # the bar has an insect beetle
    game.pile_pointer = len(game.pile) - 1
    supply_insect = game.supply[3]
    game.apply(place(0, 2, 0, 0))
    assert game.resources[0] == res(insect=1) and game.supply[3] == supply_insect - 1
    assert game.face_up == [game.pile[-1], tile_id("l1_wave")] and game.pile_pointer == len(game.pile)
    assert game.stats["expands"][0] == 1 and game.stats["tiles_placed"][0] == 1
    game.apply(next(a for a in game.legal_actions() if a != DRAW and CONFIG.decode(a)[1][0] == 1
                    and CONFIG.decode(a)[0] == "place"))
    assert game.face_up[1] == EMPTY  # the pile is used up


# --- bloom: cost, reductions, payment -----------------------------------------------------------

def test_payment_of_the_rulebook_example_costs_one_water():
    # cost insect + water + water; connected insect and water production stumps
    assert bloom_payment((0, 2, 1), [0, 1, 1], 0, res(water=1)).kinds == (0, 1, 0)
    assert bloom_payment((0, 2, 1), [0, 1, 1], 0, res(water=1)).light == 0


def test_wild_reduction_goes_first_to_what_the_seat_is_short_of():
    # the spec's example: cost [1, 2, 0], a water and a light stump connected, holding water 1, light 2
    payment = bloom_payment((1, 2, 0), [0, 1, 0], 1, res(light=2, water=1))
    assert (payment.kinds, payment.light, payment.reduced) == ((0, 1, 0), 0, 2)
    # short of water, not of mushroom: the wild unit cancels the water
    payment = bloom_payment((1, 1, 0), [0, 0, 0], 1, res(light=1, mushroom=1))
    assert (payment.kinds, payment.light) == ((1, 0, 0), 0)
    # light pays whatever is still missing
    payment = bloom_payment((2, 0, 1), [0, 0, 0], 0, res(light=3, mushroom=1))
    assert (payment.kinds, payment.light) == ((1, 0, 0), 2)


def rulebook_position(*extra_overrides: str) -> VorexGame:
    config = load('tiles[8].hexes[2].cost=["insect", "water", "water"]', *extra_overrides)
    game = blank(config=config)
    lay(game, "l1_bar", 0, 0)  # (0,0) mushroom, (1,0) arid, (2,0) points [insect water water], (3,0) water
    lay(game, "l1_bee", 2, 1)  # (2,1) insect, (3,1) draw, (2,2) arid, (3,2) water
    return game


def test_connected_insect_and_water_production_reduce_the_rulebook_stump_to_one_water():
    game = rulebook_position()
    flower(game, 0, 3, 0)  # water, next to the target
    flower(game, 0, 2, 1)  # insect, next to the target
    game.resources[0] = res(water=1)
    target = game.config.encode_bloom(H(2, 0))
    assert target in game.legal_actions()
    supply = list(game.supply)
    game.apply(target)
    assert game.resources[0] == res()
    assert game.supply == [supply[0], supply[1], supply[2] + 1, supply[3]]
    assert game.flower_at[H(2, 0)] == 0
    assert game.events[-1]["reduced"] == 2 and game.events[-1]["paid"] == 1


def test_without_the_water_to_pay_the_bloom_is_illegal():
    game = rulebook_position()
    flower(game, 0, 3, 0)
    flower(game, 0, 2, 1)
    assert game.config.encode_bloom(H(2, 0)) not in game.legal_actions()


def test_reduction_reaches_through_a_chain_of_own_flowers_only():
    game = rulebook_position()
    flower(game, 0, 3, 0)  # water next to the target
    flower(game, 0, 3, 2)  # water two steps away
    target = H(2, 0)
    assert game.payment_for(0, target, game.seat_groups(0)).reduced == 1  # (3,2) is not connected
    flower(game, 0, 3, 1)  # the draw stump links (3,0) and (3,2)
    assert game.payment_for(0, target, game.seat_groups(0)).reduced == 2
    flower(game, 1, 2, 1)  # another seat's insect gives seat 0 nothing
    assert game.payment_for(0, target, game.seat_groups(0)).reduced == 2


def light_position() -> VorexGame:
    config = load('tiles[8].hexes[2].cost=["mushroom", "water", "water"]')
    game = blank(config=config)
    lay(game, "start_b", 0, 0)  # (0,0) light, (0,1) water
    lay(game, "l1_bar", -2, 2)  # (0,2) points [mushroom water water], next to (0,1)
    flower(game, 0, 0, 1)
    game.resources[0] = res(light=2, water=1)
    return game


def test_a_connected_light_stump_is_a_wild_reduction():
    game = light_position()
    flower(game, 0, 0, 0)  # the light stump, linked to the target by the water flower
    game.apply(game.config.encode_bloom(H(0, 2)))
    assert game.resources[0] == res(light=2)  # paid one water, no light


def test_light_resources_pay_for_any_kind():
    game = light_position()  # the light stump holds no flower of seat 0
    game.apply(game.config.encode_bloom(H(0, 2)))
    assert game.resources[0] == res(light=1)  # one water, and one light for the mushroom


def test_a_seat_without_flowers_left_cannot_bloom():
    game = blank()
    lay(game, "start_b", 0, 0)
    game.resources[0] = res(light=4)
    assert bloom(0, 1) in game.legal_actions()
    game.flowers_left[0] = 0
    game.forget_cached()
    assert not any(CONFIG.decode(a)[0] == "bloom" for a in game.legal_actions())


# --- draw ------------------------------------------------------------------------------------

def draw_position() -> VorexGame:
    game = blank()
    lay(game, "start_b", 0, 0)  # (0,0) light, (0,1) water
    lay(game, "l1_bee", 2, 0)  # (2,0) insect, (3,0) draw, (3,1) water
    for q, r in ((0, 0), (0, 1), (2, 0), (3, 1), (3, 0)):
        flower(game, 0, q, r)
    return game


def test_draw_gains_one_resource_per_own_production_stump():
    game = draw_position()
    game.apply(DRAW)
    assert game.resources[0] == res(light=1, water=2, insect=1)
    assert game.actions_left == 1 and game.stats["draws"][0] == 1 and game.stats["resources_gained"][0] == 4


def test_draw_is_capped_by_the_supply():
    game = draw_position()
    game.supply[2] = 1
    game.apply(DRAW)
    assert game.resources[0] == res(light=1, water=1, insect=1) and game.supply[2] == 0


def test_draw_is_always_legal_even_when_it_gains_nothing():
    game = blank()
    assert game.legal_actions()[-1] == DRAW
    game.apply(DRAW)
    assert game.resources[0] == res()


# --- action stumps' bonus ------------------------------------------------------------------------

def test_a_draw_stump_draws_at_once():
    game = blank()
    lay(game, "start_b", 0, 0)
    lay(game, "l1_bee", 2, 0)  # (3,0) draw [mushroom]
    flower(game, 0, 0, 1)  # water
    game.resources[0] = res(mushroom=1)
    game.apply(bloom(3, 0))
    assert game.resources[0] == res(water=1)
    assert game.phase == ACTION and game.actions_left == 1 and game.stats["bonus_draws"][0] == 1


def expand_position() -> VorexGame:
    game = blank()
    lay(game, "l1_propeller", 0, 0)  # (0,0) mushroom, (1,0) points 1, (-1,1) expand [water], (0,-1) arid
    game.face_up = [tile_id("l1_bee"), tile_id("l1_wave")]
    game.resources[0] = res(water=1)
    return game


def test_an_expand_stump_offers_a_placement_that_may_be_declined():
    game = expand_position()
    game.apply(bloom(-1, 1))
    assert game.phase == BONUS_EXPAND and game.actions_left == 1
    legal = game.legal_actions()
    assert legal[-1] == DECLINE and all(game.config.decode(a)[0] == "place" for a in legal[:-1]) and len(legal) > 1
    game.apply(DECLINE)
    assert game.phase == ACTION and game.actions_left == 1 and game.stats["bonus_expands"][0] == 0
    assert game.events[-1]["kind"] == "decline"


def test_a_bonus_expand_places_a_tile_and_counts_as_a_bonus():
    game = expand_position()
    game.apply(bloom(-1, 1))
    game.apply(game.legal_actions()[0])
    assert game.phase == ACTION and game.stats["bonus_expands"][0] == 1 and game.stats["expands"][0] == 0
    assert len(game.placed_tiles) == 2 and game.events[-1]["kind"] == "bonus_expand"


def test_a_bonus_with_nothing_but_decline_is_skipped():
    game = expand_position()
    game.face_up = [EMPTY, EMPTY]
    game.apply(bloom(-1, 1))
    assert game.phase == ACTION and game.actions_left == 1


def test_a_bonus_bloom_on_an_action_stump_gives_that_stump_bonus_too():
    game = blank()
    lay(game, "l1_wave", 0, 0)  # (0,0) water, (1,0) bloom [insect], (1,1) insect
    lay(game, "l1_bee", 2, -1)  # (2,-1) insect, (3,-1) draw [mushroom], (3,0) water
    flower(game, 0, 3, 0)
    game.resources[0] = res(mushroom=1, insect=1)
    game.apply(bloom(1, 0))
    assert game.phase == BONUS_BLOOM
    assert bloom(3, -1) in game.legal_actions() and game.legal_actions()[-1] == DECLINE
    game.apply(bloom(3, -1))
    assert game.resources[0] == res(water=1)  # the draw stump's draw: the water flower
    assert game.phase == ACTION and game.actions_left == 1
    assert [game.stats[k][0] for k in ("blooms", "bonus_blooms", "bonus_draws")] == [1, 1, 1]


# --- ruins ----------------------------------------------------------------------------------------

def ruin_position(four_stumps: bool = False) -> VorexGame:
    """A ruin on (0,0); around it stumps E insect, SW water, NW bloom [insect] (and NE draw)."""
    game = blank()
    ruin(game, 0, 0)
    paint(game, 1, 0, "l1_bee", 0)  # insect
    paint(game, 0, 1, "l1_bee", 2)  # arid
    paint(game, -1, 1, "l1_bee", 3)  # water
    paint(game, -1, 0, "start_b", 1)  # arid
    paint(game, 0, -1, "l1_wave", 1)  # bloom
    if four_stumps:
        paint(game, 1, -1, "l1_bee", 1)  # draw
    else:
        paint(game, 1, -1, "start_b", 3)  # arid
    game.resources[0] = res(insect=1)
    return game


def test_the_last_stump_bloomed_around_a_ruin_gives_it_to_the_seat_with_most_flowers():
    game = ruin_position()
    flower(game, 1, 1, 0)
    flower(game, 0, -1, 1)
    game.apply(bloom(0, -1))
    assert game.flower_at[H(0, 0)] == 0 and game.settled == {H(0, 0)}
    assert game.stats["flowers_ruins"][0] == 1 and game.stats["flowers_placed"][0] == 3
    assert game.events[-1]["ruin_flowers"] == 1


def test_a_ruin_is_not_settled_while_a_stump_around_is_free():
    game = ruin_position(four_stumps=True)
    flower(game, 1, 1, 0)
    flower(game, 0, -1, 1)
    game.apply(bloom(0, -1))
    assert game.flower_at[H(0, 0)] == EMPTY and game.settled == set()


def test_a_tie_around_a_ruin_gives_nobody_the_ruin():
    game = ruin_position(four_stumps=True)
    flower(game, 1, 1, 0)
    flower(game, 1, 1, -1)
    flower(game, 0, -1, 1)
    game.apply(bloom(0, -1))
    assert game.flower_at[H(0, 0)] == EMPTY and game.settled == {H(0, 0)}
    flower(game, 1, 2, 2)  # a settled ruin is never checked again
    game.resolve_ruins()
    assert game.flower_at[H(0, 0)] == EMPTY


@pytest.mark.parametrize("flowers_left, phase", [(3, BONUS_BLOOM), (2, ACTION)])
def test_the_ruin_flower_comes_before_the_action_stump_bonus(flowers_left, phase):
    game = ruin_position()
    paint(game, 3, 3, "start_b", 2)  # a free water stump costing an insect, for the bonus bloom
    flower(game, 1, 1, 0)
    flower(game, 0, -1, 1)
    game.flowers_left[0] = flowers_left
    game.resources[0] = res(insect=2)
    game.apply(bloom(0, -1))
    assert game.flower_at[H(0, 0)] == 0 and game.flowers_left[0] == flowers_left - 2
    assert game.phase == phase  # with 2 flowers the ruin takes the last one: no bonus bloom is possible


def test_the_winner_of_a_ruin_without_flowers_left_gets_nothing():
    game = ruin_position()
    flower(game, 1, 1, 0)
    flower(game, 0, -1, 1)
    game.flowers_left[0] = 1
    game.apply(bloom(0, -1))
    assert game.flower_at[H(0, 0)] == EMPTY and game.settled == {H(0, 0)}


def test_a_ruin_without_stumps_around_settles_at_once_with_nothing():
    game = blank()
    ruin(game, 0, 0)
    for q, r in ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)):
        paint(game, q, r, "start_b", 1)
    game.resolve_ruins()
    assert game.settled == {H(0, 0)} and game.flower_at[H(0, 0)] == EMPTY


# --- objectives ---------------------------------------------------------------------------------

def objectives_position() -> VorexGame:
    """start_b (0,0) L, (1,0) a, (0,1) w, (1,1) a; l1_bee (2,0) i, (3,0) D, (2,1) a, (3,1) w;
    ruins on the four other sides of (0,0); seat 0 on (0,0) (0,1) (2,0); seat 1 on (3,0) (3,1), ruin (-1,0)."""
    game = blank()
    lay(game, "start_b", 0, 0)
    lay(game, "l1_bee", 2, 0)
    for q, r in ((-1, 1), (-1, 0), (0, -1), (1, -1)):
        ruin(game, q, r)
    for q, r in ((0, 0), (0, 1), (2, 0)):
        flower(game, 0, q, r)
    for q, r in ((3, 0), (3, 1), (-1, 0)):
        flower(game, 1, q, r)
    return game


@pytest.mark.parametrize("objective, seat0, seat1", [
    ("G1", 2, 3),  # (0,0) is surrounded by tiles and ruins; the ruin flower (-1,0) is on the edge
    ("G2", 2, 0),  # start_b: both stumps seat 0's; l1_bee is shared
    ("G3", 2, 0),  # (0,1) and (2,0) touch 2+ arid hexes
    ("G4", 4, 2),  # seat 1: the ruins next to (-1,0), not the ruin it stands on
    ("G5", 2, 1),
    ("none", 0, 0),
])
def test_green_objectives(objective, seat0, seat1):
    game = objectives_position()
    game.green = objective
    assert [game.green_points(0), game.green_points(1)] == [seat0, seat1]


def meadow_game(kind=("l1_bee", 1)) -> VorexGame:
    """Every hex within distance 3 of the centre is a draw stump (no production)."""
    game = blank()
    for q, r in CONFIG.hex_number:
        if vc.distance(q, r) <= 3:
            paint(game, q, r, *kind)
    return game


def test_b1_counts_groups_and_gives_2_to_the_most_groups():
    game = meadow_game()
    game.brown = "B1"
    for q, r in ((-3, 0), (0, 0), (1, 0), (3, 0)):
        flower(game, 0, q, r)  # three groups
    flower(game, 1, 0, 2)
    assert [game.brown_points(0), game.brown_points(1)] == [3 + 2, 1]
    flower(game, 1, 0, -2)
    flower(game, 1, 2, -3)
    assert [game.brown_points(0), game.brown_points(1)] == [5, 5]  # a tie: both get the +2


def test_b2_scores_flowers_next_to_two_opposing_flowers():
    game = meadow_game()
    game.brown = "B2"
    flower(game, 0, 0, 0)
    flower(game, 1, 1, 0)
    flower(game, 1, -1, 0)  # (0,0) touches two of seat 1's
    flower(game, 0, 3, -1)  # touches one opposing flower only
    flower(game, 1, 2, -1)
    assert game.brown_points(0) == 2
    assert game.brown_points(1) == 0  # each of seat 1's touches one of seat 0's


def test_b3_scores_groups_holding_a_production_stump():
    game = meadow_game()
    game.brown = "B3"
    paint(game, 0, 0, "l1_bee", 3)  # water
    paint(game, 3, 0, "start_b", 0)  # light counts as production
    flower(game, 0, 0, 0)
    flower(game, 0, 1, 0)
    flower(game, 0, 3, 0)
    flower(game, 0, -3, 0)  # a group without production
    assert game.brown_points(0) == 4


def test_b4_scores_flowers_touching_at_most_two_own_flowers():
    game = meadow_game()
    game.brown = "B4"
    for q, r in ((0, 0), (1, 0), (-1, 1), (0, -1)):  # (0,0) and three pairwise apart neighbours
        flower(game, 0, q, r)
    assert game.brown_points(0) == 3
    flower(game, 0, 1, 1)  # touches (1,0) only; (1,0) now touches two: both count
    assert game.brown_points(0) == 4


def test_b5_scores_groups_of_three_or_more():
    game = meadow_game()
    game.brown = "B5"
    for q, r in ((0, 0), (1, 0), (2, 0), (-3, 0), (-3, 1), (3, -3)):
        flower(game, 0, q, r)
    assert game.brown_points(0) == 3


def test_score_sums_flowers_stumps_and_both_objectives():
    game = objectives_position()
    game.green, game.brown = "G5", "B5"
    lay(game, "l1_bar", -4, 3)  # (-2,3) points 2
    flower(game, 0, -2, 3)
    sheet = game.score_sheet(0)
    assert sheet == {"points_flowers": 4, "points_stumps": 2, "points_green": 3, "points_brown": 0}


# --- end of the game ------------------------------------------------------------------------------

def test_the_last_flower_lets_the_round_finish():
    game = blank()
    lay(game, "start_b", 0, 0)
    game.flowers_left[0] = 1
    game.resources[0] = res(light=1)
    game.apply(bloom(0, 1))  # its last flower
    assert game.last_flower and not game.done and game.to_move == 0
    game.apply(DRAW)
    assert game.to_move == 1 and not game.done
    game.apply(DRAW)
    game.apply(DRAW)
    assert game.done and game.end == "last_flower" and game.turn == 4


def test_the_last_flower_of_a_middle_seat_ends_after_the_last_seat():
    game = blank(players=3)
    lay(game, "start_b", 0, 0)
    game.apply(DRAW)
    game.apply(DRAW)
    game.flowers_left[1] = 1
    game.resources[1] = res(light=1)
    game.apply(bloom(0, 1))
    game.apply(DRAW)
    assert game.to_move == 2 and not game.done
    game.apply(DRAW)
    game.apply(DRAW)
    assert game.done and game.end == "last_flower"


def blocked_position() -> VorexGame:
    game = blank()
    lay(game, "start_b", 0, 0)
    flower(game, 0, 0, 0)
    flower(game, 1, 0, 1)
    game.face_up = [EMPTY, EMPTY]
    return game


def test_a_round_where_nobody_can_bloom_or_place_ends_the_game():
    game = blocked_position()
    for _ in range(3):
        assert game.legal_actions() == [DRAW]
        game.apply(DRAW)
    assert not game.done
    game.apply(DRAW)
    assert game.done and game.end == "blocked"


def test_a_round_where_a_bloom_was_offered_does_not_block():
    game = blocked_position()
    game.flower_at[H(0, 1)] = EMPTY
    game.resources[0] = res(light=1)
    game.forget_cached()
    assert bloom(0, 1) in game.legal_actions()
    for _ in range(4):
        game.apply(DRAW)  # seat 1 has no light: only seat 0 was offered the bloom
    assert not game.done and game.to_move == 0


def last_stump_position(players: int, supply: list[int]) -> VorexGame:
    """One stump left, (0, 1) water [insect], which seat 0's light flower beside it makes free for seat 0; no tile
    to lay; the supply as given (rules §7.3)."""
    game = blank(players)
    lay(game, "start_b", 0, 0)  # (0,0) light, (0,1) water [insect]
    flower(game, 0, 0, 0)
    game.face_up, game.pile_pointer = [EMPTY, EMPTY], len(game.pile)
    game.supply = list(supply)
    return game


@pytest.mark.parametrize("players, supply, ends, ranks", [
    (2, [0, 0, 0, 0], True, [1, 2]), (2, [0, 3, 0, 3], True, [1, 2]),  # nobody produces mushroom or insect
    (2, [1, 0, 0, 0], False, [1, 2]), (2, [0, 0, 1, 0], False, [1, 2]),  # seat 0 would draw light, or water
    (3, [0, 0, 0, 0], True, [1, 2, 2]), (1, [0, 0, 0, 0], True, [2, 1])])  # solo: the weed could bloom no more
def test_the_last_stump_bloomed_with_nothing_to_draw_ends_blocked_at_once(players, supply, ends, ranks):
    game = last_stump_position(players, supply)
    game.apply(bloom(0, 1))
    assert game.done is ends and game.turn == game.players  # blocked in the middle of seat 0's turn
    if ends:
        result = game.result()
        assert result["end"] == "blocked" and result["rank"] == ranks and result["turns"] == game.players
    else:
        assert game.phase == "action" and game.actions_left == 1 and DRAW in game.legal_actions()


@pytest.mark.parametrize("last_flower", [True, False])
def test_a_seat_with_no_turn_left_does_not_keep_the_game_going(last_flower):
    # 3 players, seat 0's last action: only seat 0 can still bloom; after a last flower the round ends with
    # seat 2, so seat 0 never plays again and the game is blocked as soon as seat 1's turn starts
    game = last_stump_position(3, [0, 0, 0, 0])
    game.actions_left, game.last_flower = 1, last_flower
    assert bloom(0, 1) in game.legal_actions()
    game.apply(DRAW)
    assert game.to_move == 1 and game.done is last_flower
    assert game.end == ("blocked" if last_flower else "")


def test_ties_are_broken_by_resources_left_then_shared():
    assert ranks_by([(10, 2), (10, 1)]) == [1, 2]
    assert ranks_by([(10, 1), (10, 1), (12, 0)]) == [2, 2, 1]
    game = blank()
    game.green, game.brown = "none", "B5"
    game.stats["flowers_placed"] = [3, 3]
    game.resources = [res(light=1), res(water=2)]
    game.done, game.end = True, "last_flower"
    assert game.result()["rank"] == [2, 1] and game.result()["score"] == [3.0, 3.0]
    game.resources = [res(light=2), res(water=2)]
    assert game.result()["rank"] == [1, 1]


def test_a_stall_has_no_ranks():
    game = blank()
    game.stall()
    assert game.done and game.result()["rank"] == [0, 0] and game.legal_actions() == []


# --- setup ------------------------------------------------------------------------------------------

def test_setup_deals_tiles_objectives_and_the_pile_from_the_random_streams():
    seed = 77
    game = VorexGame(CONFIG, 3, seed)
    seeds = np.array([seed], dtype=np.uint64)
    order = shuffle_order(seeds, "setup/level0", 0, 4)[0]
    assert [game.setup_tiles[s][1] for s in range(3)] == [CONFIG.level0_tiles[order[s]] for s in range(3)]
    assert [game.setup_tiles[s][0] for s in range(3)] == list(CONFIG.starting_tiles[:3])
    assert game.green == vc.GREEN[shuffle_order(seeds, "objectives/green", 0, 5)[0][0]]
    levels = [CONFIG.tiles[t].level for t in game.pile]
    assert len(game.pile) == 15 and levels == sorted(levels)
    level1 = CONFIG.pile_levels(3)[0]
    assert game.pile[:len(level1)] == [level1[i] for i in shuffle_order(seeds, "pile/level1", 0, len(level1))[0]]
    assert game.face_up == game.pile[:2] and game.pile_pointer == 2
    assert game.supply == list(CONFIG.initial_supply(3)) and game.resources[0] == res(light=4)


def test_the_setup_turn_places_both_tiles_then_a_free_flower_on_the_light_stump():
    game = VorexGame(CONFIG, 2, 5)
    assert game.phase == SETUP and game.to_move == 0 and game.actions_left == 0
    assert game.snapshot()["setup_left"] == [game.setup_tiles[0][0], game.setup_tiles[0][1], EMPTY]
    legal = game.legal_actions()
    assert {CONFIG.decode(a)[1][0] for a in legal} == {0, 1}  # either tile first
    first = next(a for a in legal if CONFIG.decode(a)[1][0] == 1)  # the level-0 tile first
    game.apply(first)
    assert all(CONFIG.decode(a)[1][0] == 0 for a in game.legal_actions())
    game.apply(game.legal_actions()[0])
    light = next(h for h in game.tile_hexes[CONFIG.starting_tiles[0]] if game.hex_kind(h) == "light")
    assert game.flower_at[light] == 0 and game.flowers_left[0] == CONFIG.flowers - 1
    assert game.resources[0] == res(light=4)  # the first player's beetles give nothing in the setup turn
    assert game.to_move == 1 and game.phase == SETUP and game.turn == 1
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[-1])
    assert (game.phase, game.to_move, game.turn, game.actions_left) == (ACTION, 0, 2, 2)
    assert game.snapshot()["setup_left"] == [EMPTY] * 3


def test_setup_beetles_when_the_config_says_so():
    game = VorexGame(load("rules.setup_beetles=true"), 2, 5)
    game.apply(next(a for a in game.legal_actions() if CONFIG.decode(a)[1][0] == 0))
    assert game.resources[0] == res(light=4, mushroom=1, insect=1)


def test_solo_setup_places_three_tiles_and_the_weed_places_nothing():
    game = VorexGame(CONFIG, 1, 9)
    assert game.players == 2 and game.weed == 1
    assert {CONFIG.decode(a)[1][0] for a in game.legal_actions()} == {0, 1, 2}
    for _ in range(3):
        game.apply(game.legal_actions()[0])
    assert (game.phase, game.to_move, game.turn) == (ACTION, 0, 1)
    assert game.resources == [res(light=4), res()] and game.flowers_left == [CONFIG.flowers - 1, CONFIG.weed_flowers]
    assert len(game.placed_tiles) == 3
    assert VorexGame(load("solo.easy=true"), 1, 9).resources[0] == res(light=6)


# --- solo: the weed --------------------------------------------------------------------------------

def weed_turn() -> VorexGame:
    game = blank(players=1)
    game.to_move, game.phase, game.actions_left = 1, WEED_BLOOM, 2
    return game


def test_the_weed_blooms_any_free_stump_for_free():
    game = weed_turn()
    lay(game, "l1_bar", 0, 0)  # (0,0) mushroom, (2,0) points, (3,0) water
    assert game.legal_actions() == sorted([bloom(0, 0), bloom(2, 0), bloom(3, 0)])
    supply = list(game.supply)
    game.apply(bloom(2, 0))
    assert game.resources[1] == res() and game.supply == supply and game.flower_at[H(2, 0)] == 1
    assert game.phase == WEED_BLOOM and game.actions_left == 1


def test_a_weed_bloom_on_a_bloom_stump_blooms_once_more():
    game = weed_turn()
    lay(game, "l1_wave", 0, 0)  # (0,0) water, (1,0) bloom, (1,1) insect
    lay(game, "l1_bar", 0, 3)
    game.apply(bloom(1, 0))
    assert game.phase == WEED_BLOOM and game.actions_left == 1  # the extra bloom is not one of the two
    assert game.snapshot()["actions_left"] == 1
    game.apply(bloom(0, 0))
    assert game.phase == WEED_BLOOM and game.actions_left == 1
    game.apply(bloom(1, 1))
    assert (game.to_move, game.phase, game.actions_left) == (0, ACTION, 2)


def test_a_weed_bloom_on_an_expand_stump_places_a_tile_without_beetles():
    game = weed_turn()
    lay(game, "l1_propeller", 0, 0)  # (-1,1) expand
    game.face_up = [tile_id("l1_bar"), tile_id("l1_wave")]  # the bar's beetle is an insect
    supply = list(game.supply)
    game.apply(bloom(-1, 1))
    assert game.phase == WEED_EXPAND
    legal = game.legal_actions()
    assert DECLINE not in legal and all(CONFIG.decode(a)[0] == "place" for a in legal)
    pointer = game.pile_pointer
    game.apply(next(a for a in legal if CONFIG.decode(a)[1][0] == 0))
    assert game.resources[1] == res() and game.supply == supply
    assert game.face_up[0] == game.pile[pointer] and game.stats["tiles_placed"][1] == 1
    assert game.phase == WEED_BLOOM and game.actions_left == 1


def test_the_weed_placing_its_last_flower_ends_the_game_and_the_player_loses():
    game = weed_turn()
    lay(game, "l1_bar", 0, 0)
    game.flowers_left[1] = 1
    game.apply(bloom(0, 0))
    assert game.done and game.end == "weed_last_flower" and game.result()["rank"] == [2, 1]


def test_the_weed_without_a_free_stump_ends_the_game_and_the_player_loses():
    game = blank(players=1)
    lay(game, "start_b", 0, 0)
    flower(game, 0, 0, 0)
    game.actions_left = 1
    game.resources[0] = res(light=1)
    game.apply(bloom(0, 1))  # the player's last action takes the last free stump
    assert game.done and game.end == "weed_no_stump" and game.to_move == 1
    assert game.result()["rank"] == [2, 1] and game.result()["score"][1] == 0.0


def test_the_weed_extra_bloom_without_a_free_stump_ends_the_game():
    game = weed_turn()
    lay(game, "l1_wave", 0, 0)
    for q, r in ((0, 0), (1, 1)):
        flower(game, 0, q, r)
    game.apply(bloom(1, 0))
    assert game.done and game.end == "weed_no_stump"


def test_the_player_placing_its_last_flower_wins_at_once_and_names_the_subspecies():
    game = blank(players=1)
    game.green, game.brown = "G5", "B5"
    lay(game, "start_b", 0, 0)
    flower(game, 0, 0, 0)
    game.flowers_left[0] = 1
    game.resources[0] = res(light=1)
    game.apply(bloom(0, 1))
    assert game.done and game.end == "solo_win" and game.actions_left == 1
    result = game.result()
    assert result["rank"] == [1, 2] and result["score"] == [3.0, 0.0]  # 2 flowers + 1 tile with a flower
    assert result["game_columns"]["solo_name"] == "Small Dandelion Common of the meadows"
    easy = blank(players=1, config=load("solo.easy=true"))
    easy.done, easy.end = True, "solo_win"
    assert easy.result()["game_columns"]["solo_name"].endswith("of grandma's")


def test_solo_b1_always_gives_the_player_the_bonus():
    game = blank(players=1)
    game.brown = "B1"
    lay(game, "start_b", 0, 0)
    flower(game, 0, 0, 0)
    flower(game, 1, 1, 1)
    flower(game, 1, 0, 1)
    assert game.brown_points(0) == 3


# --- whole games ------------------------------------------------------------------------------------

def open_to_the_ring(game: VorexGame) -> bool:
    """Every empty hex of the window reaches the ring (a full flood fill from the ring)."""
    config = game.config
    ring = range(config.playable, config.window)
    seen, frontier = set(ring), list(ring)
    while frontier:
        hex_ = frontier.pop()
        for other in config.neighbours[hex_]:
            if other >= 0 and other not in seen and game.tile_at[other] == EMPTY:
                seen.add(other)
                frontier.append(other)
    return all(game.tile_at[h] != EMPTY or h in seen for h in range(config.playable))


def naive_legal_placements(game: VorexGame, tile: int) -> list[tuple[int, int]]:
    """The placement rules by full flood fills of the window after each candidate placement."""
    config = game.config
    found = []
    for anchor in range(config.playable):
        for rotation in range(6):
            cells = config.placement_hexes(tile, anchor, rotation)
            if cells is None or any(game.tile_at[c] != EMPTY for c in cells):
                continue
            if game.placed_tiles:
                if not any(n >= 0 and game.tile_at[n] != EMPTY for c in cells for n in config.neighbours[c]):
                    continue
            elif config.centre not in cells:
                continue
            empty = {h for h in range(config.window) if game.tile_at[h] == EMPTY} - set(cells)
            legal, seen = True, set()
            for start in sorted(empty):
                if start in seen:
                    continue
                region, frontier = {start}, [start]
                while frontier:
                    hex_ = frontier.pop()
                    for other in config.neighbours[hex_]:
                        if other in empty and other not in region:
                            region.add(other)
                            frontier.append(other)
                seen |= region
                if not any(h >= config.playable for h in region) and len(region) >= 2:
                    legal = False
            if legal:
                found.append((anchor, rotation))
    return found


END_REASONS = {1: {"solo_win", "weed_last_flower", "weed_no_stump"}, 2: {"last_flower", "blocked"},
               3: {"last_flower", "blocked"}, 4: {"last_flower", "blocked"}}


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_end_and_conserve_flowers_resources_and_the_open_forest(players):
    for seed in range(3):
        game = VorexGame(CONFIG, players, 100 + seed)
        choose = random.Random(seed)
        checked_naive = False
        while not game.done:
            assert game.turn < CONFIG.max_turns
            legal = game.legal_actions()
            assert legal and legal == sorted(set(legal))
            if not checked_naive and len(game.placed_tiles) >= 8 and game.face_up[0] != EMPTY:
                assert game.legal_placements(game.face_up[0]) == naive_legal_placements(game, game.face_up[0])
                checked_naive = True
            action = choose.choice(legal)
            assert describe_action(CONFIG, action)
            game.apply(action)
            game.decisions += 1
            reminders = (1 if players == 1 else players) * CONFIG.reminders_from_supply
            held = [sum(game.resources[s][k] for s in range(game.players)) for k in range(4)]
            assert [game.supply[k] + held[k] + (reminders if k else 0) for k in range(4)] == list(CONFIG.supply)
            for seat in range(game.players):
                on_map = sum(f == seat for f in game.flower_at)
                assert on_map == game.stats["flowers_placed"][seat]
                start = CONFIG.weed_flowers if seat == game.weed else CONFIG.flowers
                assert on_map + game.flowers_left[seat] == start
            assert open_to_the_ring(game)
            for hex_ in game.ruins:
                assert all(game.tile_at[n] >= 0 for n in game.geo.neighbours[hex_])
        assert game.end in END_REASONS[players]
        assert checked_naive or players == 1  # solo games may end before the forest grows
        result = game.result()
        assert len(result["score"]) == game.players and set(result["seat_columns"]) == set(vc.SEAT_COLUMNS)
        assert set(result["game_columns"]) == set(vc.GAME_COLUMNS)
        assert sorted(game.snapshot()) == sorted([
            "tile", "part", "flower", "settled", "resources", "supply", "flowers_left", "face_up", "pile_pointer",
            "setup_left", "phase", "to_move", "turn", "actions_left", "last_flower", "end"])
        assert "game over" in render_game(game)


def test_a_copy_plays_on_without_touching_the_original():
    import copy

    game = VorexGame(CONFIG, 2, 3)
    while game.phase == SETUP:
        game.apply(game.legal_actions()[0])
    before = game.snapshot()
    other = copy.deepcopy(game)
    assert other.config is game.config
    while not other.done:
        other.apply(other.legal_actions()[0])
    assert game.snapshot() == before and not game.done
