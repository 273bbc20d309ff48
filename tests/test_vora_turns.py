"""Known positions for the Vora reference engine, one rule per test: whole turns,
combos and cascades, the specials, the forbidden rule, refill and the end,
scoring and the reference bots. Positions are drawn as in ``tests/vora_positions.py``.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from sims.core.play import play_reference
from sims.core.rng import game_seeds, uniform_one
from sims.vora import config as vora_config
from sims.vora.config import EAST, NORTH, SOUTH, WEST
from sims.vora.reference import (
    EMPTY,
    VoraGame,
    combo_of,
    fall_meadow,
    family_points,
    farm_score,
    find_formations,
    ranks,
)
from sims.vora.reference_bots import ReferenceGreedyBot, ReferenceRandomBot
from sims.vora.render import render_game
from tests.vora_positions import CONFIG, QUIET, K, cell, farm, load, meadow, picture, position, run_turn, same


# --- whole turns: combos, cascades, fall directions -------------------------------------------------

CASCADE = """
    p w d l s
    l d s p ~
    s g w ~ d
    c m m p s
    d c c m m
"""


def test_cascade_collects_a_line_made_by_the_fall_with_its_combo():
    game = position(CASCADE, farms=("c1 ~1", "p1"), bag="g ~ g ~ g ~ g ~")
    run_turn(game, CONFIG.encode_push(K("crow"), NORTH, 0))
    # c c c in row 4 collected; the fall (south) brings m m m m into row 4: an EXTRA
    assert game.phase == "extra" and game.to_move == 0
    same(game.meadow, """
        . . . l s
        c w d p ~
        p d s ~ d
        l g w p s
        s . . . .
    """)
    assert game.farms[0] == farm("~1 c3 m4") and game.farms[1] == farm("p1 d1")
    assert game.legal_actions() == [CONFIG.encode_pick(c) for c in range(25) if game.meadow[c] != EMPTY] + [
        CONFIG.encode_decline()]
    run_turn(game, CONFIG.encode_pick(cell(0, 3)))
    # the pick, then the fall south, then the refill row by row: exactly 8 empty cells, 8 cubes
    same(game.meadow, """
        g ~ g ~ g
        c ~ g ~ s
        p w d p ~
        l d s ~ d
        s g w p s
    """)
    assert game.farms[0] == farm("~1 c3 m4 l1")
    assert not game.done and game.bag_left() == 0 and game.to_move == 1 and game.turn == 7
    push, pick = game.events[-2:]
    assert (push["kind"], push["cube"], push["collected"], push["extras"], push["bigs"]) == ("push", "crow", 7, 1, 0)
    assert (pick["kind"], pick["cube"], pick["collected"]) == ("extra_pick", "ladybug", 0)
    columns = game.result()["seat_columns"]
    assert columns["collected"] == [7, 0] and columns["extras"] == [1, 0] and columns["picks"] == [1, 0]


def test_an_extra_may_be_declined_and_the_turn_goes_on():
    game = position(CASCADE, farms=("c1 ~1", "p1"), bag="g ~ g ~ g ~ g ~")
    run_turn(game, CONFIG.encode_push(K("crow"), NORTH, 0))
    assert game.phase == "extra" and CONFIG.encode_decline() in game.legal_actions()
    assert not game.is_legal(CONFIG.encode_steal(1, K("pig")))
    run_turn(game, CONFIG.encode_decline())
    # nothing taken: the fall south, then the refill of the 7 empty cells
    same(game.meadow, """
        g ~ g ~ g
        c ~ g l s
        p w d p ~
        l d s ~ d
        s g w p s
    """)
    assert game.farms[0] == farm("~1 c3 m4") and game.to_move == 1 and game.bag_left() == 1
    assert game.events[-1]["kind"] == "decline" and game.events[-1]["cube"] == ""
    columns = game.result()["seat_columns"]
    assert columns["extras"] == [1, 0] and columns["picks"] == [0, 0] and columns["declines"] == [1, 0]


def test_decline_is_offered_only_in_a_combo():
    game = position(QUIET, farms=("c1", "p1"))
    assert game.phase == "main" and not game.is_legal(CONFIG.encode_decline())
    assert CONFIG.encode_decline() not in game.legal_actions()


def test_push_fall_goes_in_the_push_direction():
    game = position("""
        p d s l s
        l d w p ~
        s g w ~ d
        c w m p s
        d c p m m
    """, players=3, farms=("g1 c1", "l1", "d1"), bag="m d m")
    run_turn(game, CONFIG.encode_push(K("grass"), WEST, 3))  # w w w down column 2; s falls to seat 1 (E)
    same(game.meadow, """
        p d s l s
        m l d p ~
        d s g ~ d
        m g c m p
        d c p m m
    """)  # rows 1 to 3 closed their gaps eastwards, the refill filled column 0
    assert game.farms[0] == farm("c1 w3") and game.farms[1] == farm("l1 s1")


def test_one_collection_queues_its_extra_before_its_big():
    game = position("""
        p l w s d
        w w m w ~
        s g c d g
        c c l c c
        d m s g p
    """, farms=("g1 p1", "l1"), bag="g " * 30)
    run_turn(game, CONFIG.encode_push(K("grass"), NORTH, 2))  # w w w w in row 1, c c c c c in row 3
    same(game.meadow, """
        p l g s d
        . . . . ~
        s g m d g
        . . . . .
        d m l g p
    """)
    assert game.farms[0] == farm("p1 w4 c5")
    assert game.phase == "extra" and game.bigs_pending == 1
    assert CONFIG.encode_steal(1, K("ladybug")) not in game.legal_actions()
    run_turn(game, CONFIG.encode_pick(cell(0, 0)))
    assert game.phase == "big" and game.to_move == 0
    run_turn(game, CONFIG.encode_pick(cell(0, 1)))
    assert game.phase == "main" and game.to_move == 1
    assert game.farms[0] == farm("p2 w4 c5 l1")
    assert [e["kind"] for e in game.events] == ["push", "extra_pick", "big_pick"]
    assert (game.events[0]["extras"], game.events[0]["bigs"]) == (1, 1)


def big_for_seat_0() -> VoraGame:
    """Seat 0 (of 3) pushes a duck into row 4 from E (d d d d d), gives itself the fallen mole: a BIG."""
    game = position("""
        p w d l s
        l d s p ~
        s g w ~ d
        c m c p s
        m d d d d
    """, players=3, farms=("d1 g1", "p1", "s2 l1"))
    run_turn(game, CONFIG.encode_push(K("duck"), EAST, 4))  # row 4 shifts west: d d d d d, m falls out at W
    assert game.phase == "recipient"
    run_turn(game, CONFIG.encode_recipient(0))
    assert game.phase == "big" and game.farms[0] == farm("g1 m1 d5")
    return game


def test_big_decision_offers_picks_and_steals_but_never_a_last_cube():
    game = big_for_seat_0()
    legal = game.legal_actions()
    steals = [CONFIG.decode(a)[1] for a in legal if CONFIG.decode(a)[0] == "steal"]
    assert steals == [(2, K("ladybug")), (2, K("sheep"))]  # seat 1 holds only its last cube
    assert [a for a in legal if CONFIG.decode(a)[0] == "pick"] == [CONFIG.encode_pick(c) for c in range(20)]
    with pytest.raises(ValueError):
        game.apply(CONFIG.encode_steal(1, K("pig")))
    run_turn(game, CONFIG.encode_steal(2, K("sheep")))
    assert game.farms[2] == farm("s1 l1") and game.farms[0] == farm("g1 m1 d5 s1")
    assert game.phase == "main" and game.to_move == 1
    columns = game.result()["seat_columns"]
    assert columns["bigs"] == [1, 0, 0] and columns["steals"] == [1, 0, 0] and columns["stolen"] == [0, 0, 1]
    assert game.events[-1]["kind"] == "steal" and game.events[-1]["target"] == 2
    assert game.events[-1]["cube"] == "sheep"


def test_a_combo_with_one_cube_to_take_is_still_asked_and_one_with_none_is_skipped():
    board = """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . w w w p
    """
    game = position(board, farms=("w1", "p1"), bag="g " * 30)
    game.meadow[cell(0, 0)] = K("grass")
    run_turn(game, CONFIG.encode_wolf(EAST, 4))  # the wolf eats the pig: w w w w, an EXTRA
    assert game.phase == "extra" and game.legal_actions() == [CONFIG.encode_pick(cell(0, 0)), CONFIG.encode_decline()]
    game = position(board, farms=("w1", "p1"), bag="g " * 30)
    run_turn(game, CONFIG.encode_wolf(EAST, 4))  # the meadow is empty: the EXTRA is skipped
    assert game.phase == "main" and game.to_move == 1
    assert game.farms[0] == farm("p1 w4") and game.result()["seat_columns"]["extras"] == [1, 0]
    game = position(board.replace(". w w w p", "w w w w p"), farms=("w1", "p1"), bag="g " * 30)
    run_turn(game, CONFIG.encode_wolf(EAST, 4))  # a BIG, empty meadow, seat 1 has its last cube only
    assert game.phase == "main" and game.to_move == 1 and game.result()["seat_columns"]["bigs"] == [1, 0]


def test_a_big_may_be_declined():
    game = big_for_seat_0()
    assert game.legal_actions()[-1] == CONFIG.encode_decline()
    run_turn(game, CONFIG.encode_decline())
    assert game.farms == [farm("g1 m1 d5"), farm("p1"), farm("s2 l1")]
    assert game.phase == "main" and game.to_move == 1
    assert game.result()["seat_columns"]["declines"] == [1, 0, 0]


def test_wolf_stays_in_place_while_the_rest_falls_away_from_its_side():
    game = position("""
        p w d l s
        l d s p ~
        d c s s s
        c m c p s
        d c p m m
    """, farms=("w1", "p1"), bag="g ~ g")
    # a sheep line the last refill left; the wolf enters from W and eats the duck at (2,0)
    run_turn(game, CONFIG.encode_wolf(WEST, 2))
    same(game.meadow, """
        p w d l s
        l d s p ~
        w g ~ g c
        c m c p s
        d c p m m
    """)  # the crow fell east to (2,4); the wolf kept (2,0); the refill filled (2,1)..(2,3)
    assert game.farms[0] == farm("d1 s3")
    assert game.result()["seat_columns"]["special_wolf"] == [1, 0]


def test_fall_compacts_on_each_side_of_the_fixed_wolf():
    row = meadow("""
        . . . . .
        . . . . .
        c . w . d
        . . . . .
        . . . . .
    """)
    fixed = cell(2, 2)
    same(fall_meadow(row, 5, EAST, fixed), """
        . . . . .
        . . . . .
        . c w . d
        . . . . .
        . . . . .
    """)
    same(fall_meadow(row, 5, WEST, fixed), """
        . . . . .
        . . . . .
        c . w d .
        . . . . .
        . . . . .
    """)
    same(fall_meadow(row, 5, EAST), """
        . . . . .
        . . . . .
        . . c w d
        . . . . .
        . . . . .
    """)


def test_wolf_needs_an_animal_on_the_edge_cell():
    game = position(QUIET, farms=("w1", "p1"))
    wolves = [CONFIG.decode(a)[1] for a in game.legal_actions() if CONFIG.decode(a)[0] == "wolf"]
    # E edge is column 4: s ~ d s m; water at (1,4) cannot be eaten
    assert wolves == [(side, line) for side in range(4) for line in range(5) if (side, line) != (EAST, 1)]


def test_crow_devours_any_animal_and_the_fall_goes_towards_the_mover():
    game = position(QUIET, farms=("p1", "c2"), to_move=1, bag="~ g ~")
    devours = [CONFIG.decode(a)[1][0] for a in game.legal_actions() if CONFIG.decode(a)[0] == "devour"]
    assert devours == [c for c in range(25) if c not in (cell(1, 4), cell(2, 1), cell(2, 3))]
    run_turn(game, CONFIG.encode_devour(cell(3, 1)))  # c c c in row 3, collected; seat 1 sits at S
    same(game.meadow, """
        ~ g ~ l s
        p w d p ~
        l d s ~ d
        s g w p s
        d c p m m
    """)
    assert game.farms[1] == farm("c4 m1")
    assert game.result()["seat_columns"]["special_devour"] == [0, 1]


def test_crow_may_devour_a_crow():
    game = position(QUIET, farms=("c1", "p1"))
    run_turn(game, CONFIG.encode_devour(cell(3, 0)))
    assert game.farms[0] == farm("c1") and game.meadow[cell(3, 0)] == K("crow")


LADYBUG = """
    p w d l s
    l d s p ~
    s g l ~ d
    c m c p s
    d c p m m
"""


@pytest.mark.parametrize("seat, column_2, row_2", [
    (0, "d s c p g", "s g c ~ d"),  # N: column 2 slides up
    (1, "d s g c p", "g s g ~ d"),  # E: row 2 slides east
    (2, "g d s c p", "s g s ~ d"),  # S: column 2 slides down
    (3, "d s ~ c p", "s g ~ d g"),  # W: row 2 slides west
])
def test_ladybug_pick_up_falls_towards_the_mover(seat, column_2, row_2):
    game = position(LADYBUG, players=4, farms=("c1", "c1", "c1", "c1"), to_move=seat, bag="g")
    run_turn(game, CONFIG.encode_pick_up(cell(2, 2)))
    assert game.farms[seat] == farm("c1 l1")
    assert picture([game.meadow[cell(r, 2)] for r in range(5)] + [EMPTY] * 20).split("\n")[0] == column_2
    assert picture(game.meadow[10:15] + [EMPTY] * 20).split("\n")[0] == row_2
    assert game.to_move == (seat + 1) % 4 and game.result()["seat_columns"]["special_pick_up"][seat] == 1


def test_ladybug_pick_up_collects_nothing():
    game = position("""
        p w d l s
        l d s p ~
        c c l c d
        c m w p s
        d c p m m
    """, players=3, farms=("c1", "c1", "c1"), to_move=1, bag="g")
    run_turn(game, CONFIG.encode_pick_up(cell(2, 2)))  # row 2 slides east: g c c c d
    assert game.farms[1] == farm("c1 l1")
    assert [f.size for f in find_formations(CONFIG, game.meadow)] == [3]


def test_duck_swaps_with_water_or_grass_anywhere():
    game = position(QUIET, farms=("c1", "p1"))
    swaps = [CONFIG.decode(a)[1] for a in game.legal_actions() if CONFIG.decode(a)[0] == "fly_swap"]
    ducks = [cell(0, 2), cell(1, 1), cell(2, 4), cell(4, 0)]
    assert swaps == [(d, t) for d in ducks for t in (cell(1, 4), cell(2, 1), cell(2, 3))]
    game = position("""
        p w d l s
        l d s p ~
        s g w ~ d
        c m c p s
        d c p m ~
    """, farms=("c1", "p1"), bag="g g g")
    run_turn(game, CONFIG.encode_fly_swap(cell(2, 4), cell(4, 4)))  # ~ at (1,4), (2,3), (2,4): a group of 3
    same(game.meadow, """
        p w d l s
        l d s p s
        s g w p d
        c m c m g
        d c p g g
    """)
    assert game.farms[0] == farm("c1 ~3")
    assert game.result()["seat_columns"]["special_fly_swap"] == [1, 0]


def test_mole_digs_to_any_of_its_eight_neighbours_on_the_meadow():
    game = position(QUIET, farms=("c1", "p1"))
    digs = [CONFIG.decode(a)[1] for a in game.legal_actions() if CONFIG.decode(a)[0] == "dig"]
    assert digs == ([(cell(3, 1), d) for d in range(8)]
                    + [(cell(4, 3), d) for d in (0, 1, 2, 3, 4)]
                    + [(cell(4, 4), d) for d in (0, 1, 3)])


# --- the forbidden rule --------------------------------------------------------------------------

def test_push_of_the_last_cube_needs_a_cube_back():
    game = position("""
        p g g l s
        l d s p ~
        s g w ~ d
        c m c p s
        d c p m m
    """, farms=("g1", "p1"))
    pushes = {CONFIG.decode(a)[1][1:] for a in game.legal_actions() if CONFIG.decode(a)[0] == "push"}
    # from N the cube falls to seat 1 (S): legal only where the push makes g g g in row 0
    assert {line for side, line in pushes if side == NORTH} == {0, 3}
    # from S it falls on seat 0's own side; from E and W on an unseated side
    assert all({line for side, line in pushes if side == s} == set(range(5)) for s in (EAST, SOUTH, WEST))
    with pytest.raises(ValueError):
        game.apply(CONFIG.encode_push(K("grass"), NORTH, 1))
    game.farms[0] = farm("g2")
    assert CONFIG.encode_push(K("grass"), NORTH, 1) in game.legal_actions()


def test_fallen_cube_must_come_home_when_the_mover_would_be_left_empty():
    game = position(QUIET, players=3, farms=("c1", "g1", "l1"), to_move=1)
    run_turn(game, CONFIG.encode_push(K("grass"), EAST, 4))  # d falls out at W, no collection coming
    assert game.phase == "recipient" and game.legal_actions() == [CONFIG.encode_recipient(1)]
    with pytest.raises(ValueError):
        game.apply(CONFIG.encode_recipient(0))
    run_turn(game, CONFIG.encode_recipient(1))
    assert game.farms[1] == farm("d1")
    game = position(QUIET.replace("s g w ~ d", "s ~ w g g"), players=3, farms=("c1", "g1", "l1"), to_move=1)
    run_turn(game, CONFIG.encode_push(K("grass"), EAST, 2))  # g g g in row 2 is coming: any seat
    assert game.legal_actions() == [CONFIG.encode_recipient(s) for s in range(3)]
    run_turn(game, CONFIG.encode_recipient(0))
    assert game.farms[1] == farm("g3") and game.farms[0] == farm("c1 s1")


def test_double_push_of_the_last_pig_may_give_the_first_cube_away():
    game = position(QUIET, players=3, farms=("c1", "p1", "l1"), to_move=1)
    run_turn(game, CONFIG.encode_double(EAST, 4))  # d then c fall out at W
    assert game.legal_actions() == [CONFIG.encode_recipient(s) for s in range(3)]
    run_turn(game, CONFIG.encode_recipient(0))
    assert game.legal_actions() == [CONFIG.encode_recipient(1)]
    run_turn(game, CONFIG.encode_recipient(1))
    assert game.farms[0] == farm("c1 d1") and game.farms[1] == farm("c1")


# --- refill and the end ---------------------------------------------------------------------------

def test_short_refill_places_what_the_bag_has_and_ends_the_game():
    game = position(CASCADE, farms=("c1 ~1", "p1"), bag="g ~ g")
    run_turn(game, CONFIG.encode_push(K("crow"), NORTH, 0), CONFIG.encode_pick(cell(0, 3)))
    same(game.meadow, """
        g ~ g . .
        c . . . s
        p w d p ~
        l d s ~ d
        s g w p s
    """)
    assert game.done and game.end == "bag_empty" and game.turn == 7 and game.legal_actions() == []
    result = game.result()
    # seat 0: ~1 c3 m4 l1 -> -1 + 1 + 1 - 1 = 0; seat 1: p1 d1 -> -2
    assert result["score"] == [0.0, -2.0] and result["rank"] == [1, 2] and result["turns"] == 7
    assert result["seat_columns"]["farm_mole"] == [4, 0] and result["seat_columns"]["farm_pig"] == [0, 1]
    assert game.snapshot() == {"meadow": game.meadow, "farms": [farm("~1 c3 m4 l1"), farm("p1 d1")],
                               "bag_pointer": 3, "turn": 7, "phase": "main", "end": "bag_empty"}


def test_empty_bag_with_a_full_meadow_goes_on():
    game = position(QUIET, farms=("g1 c1", "p1"), bag="")
    run_turn(game, CONFIG.encode_push(K("grass"), NORTH, 1))
    assert not game.done and game.to_move == 1


def test_ladybug_with_an_empty_bag_ends_the_game():
    game = position(LADYBUG, farms=("c1", "c1 w1"), bag="")
    run_turn(game, CONFIG.encode_pick_up(cell(2, 2)))  # seat 0 sits at N: column 2 slides up
    assert game.done and game.end == "bag_empty" and game.meadow[cell(4, 2)] == EMPTY
    result = game.result()
    assert result["score"] == [-2.0, -2.0] and result["rank"] == [1, 1]  # a tie shares first place


# --- scoring --------------------------------------------------------------------------------------

@pytest.mark.parametrize("count, points", [(0, 0), (1, -1), (2, 0), (3, 1), (5, 1), (6, 3), (8, 3), (9, 9), (12, 9)])
def test_family_points(count, points):
    assert family_points(CONFIG, count) == points


def test_farm_score_sums_the_families():
    assert farm_score(CONFIG, farm("p1 c2 w3 l6 d9 ~12")) == -1 + 0 + 1 + 3 + 9 + 9


def test_scoring_table_comes_from_the_config():
    config = load("scoring.thresholds=[2,4]", "scoring.points=[-2,5]")
    assert [family_points(config, n) for n in range(6)] == [0, 0, -2, -2, 5, 5]


def test_ties_share_a_rank():
    assert ranks([3.0, 5.0, 5.0, 1.0]) == [3, 1, 1, 4]
    assert ranks([2.0, 2.0, 2.0]) == [1, 1, 1]


def test_stall_has_no_ranks():
    game = position(QUIET, players=3, farms=("c1", "g3", "l1"))
    game.stall()
    result = game.result()
    assert game.done and result["end"] == "stall" and result["rank"] == [0, 0, 0]
    assert result["score"] == [-1.0, 1.0, -1.0] and game.legal_actions() == []


# --- bots -------------------------------------------------------------------------------------------

def test_random_bot_draws_the_counter_based_number_of_each_decision():
    bot = ReferenceRandomBot(2)
    for decision in (0, 1, 7, 511, 512, 513, 1300, 3):
        assert bot.number(12345, decision) == uniform_one(12345, "bot/2", decision)[0]
    game = VoraGame(CONFIG, 3, 77)
    legal = game.legal_actions()
    u = uniform_one(77, "bot/0", 0)[0]
    assert ReferenceRandomBot(0).act(game, 77) == legal[min(int(u * len(legal)), len(legal) - 1)]


def test_greedy_bot_takes_the_best_score_change_against_the_best_opponent():
    game = position("""
        p g g l s
        l d s p ~
        s g w ~ d
        c m c p s
        d c p m m
    """, players=3, farms=("g1 p1", "l1", "d1"))
    seed = 4
    untouched = game.snapshot()
    chosen = ReferenceGreedyBot(0).act(game, seed)
    assert game.snapshot() == untouched  # the bot plays on clones
    before = [farm_score(CONFIG, f) for f in game.farms]
    values = {}
    for action in game.legal_actions():
        after = game.clone()
        after.apply(action)
        gains = [farm_score(CONFIG, f) - b for f, b in zip(after.farms, before)]
        values[action] = gains[0] - max(gains[1:])
    best = max(values.values())
    ties = [a for a in values if values[a] == best]
    noise = uniform_one(seed, "bot/0", game.decisions, slots=CONFIG.num_actions)
    assert chosen == max(ties, key=lambda a: noise[a])
    # the pig pushed up column 1: g falls home (g2: 0), c c c in row 3 (+1), then the fall
    # north makes p p p in row 3 (+1): from -2 to +2
    assert best == 4.0 and chosen == CONFIG.encode_push(K("pig"), SOUTH, 1)
    # grass from N into column 0 makes g g g (+2), but the fallen duck gives seat 2 (S) d2 (+1)
    assert values[CONFIG.encode_push(K("grass"), NORTH, 0)] == 2.0 - 1.0


@pytest.mark.parametrize("grass, declines", [("", True), (" g2", False)])
def test_greedy_bot_declines_a_combo_only_when_every_take_loses_points(grass, declines):
    board = """
        g . . . .
        . . . . .
        . . . . .
        . . . . .
        . w w w p
    """
    game = position(board, farms=("w1" + grass, "p1"), bag="g " * 30)
    run_turn(game, CONFIG.encode_wolf(EAST, 4))  # w w w w: an EXTRA; the one cube to take is grass
    ranked = ReferenceGreedyBot(0).explain(game, 5)
    # a first grass scores -1 (decline: 0); a third one +1
    expected = [(CONFIG.encode_decline(), 0.0), (CONFIG.encode_pick(0), -1.0)] if declines else [
        (CONFIG.encode_pick(0), 1.0), (CONFIG.encode_decline(), 0.0)]
    assert ranked == expected


def pushed_back_game() -> tuple[VoraGame, int]:
    """QUIET; seat 0 pushes a sheep into column 0 from N (the duck at (4,0) falls to seat 1, S), seat 1 pushes the
    duck back from S (allowed once: +2 one ply deep). Returns the game and seat 0's same push again."""
    game = position(QUIET, farms=("s1 g1", "p1"))
    push, back = CONFIG.encode_push(K("sheep"), NORTH, 0), CONFIG.encode_push(K("duck"), SOUTH, 0)
    run_turn(game, push)
    legal = game.legal_actions()
    values = dict(zip(legal, ReferenceGreedyBot(1).values(game, 3, legal)))
    assert values[back] == 2.0
    run_turn(game, back)
    assert game.meadow == game.meadows_before[1] == meadow(QUIET)
    return game, push


def played(game: VoraGame, action: int) -> VoraGame:
    after = game.clone()
    after.apply(action)
    return after


def test_greedy_bot_pushes_back_once_but_not_back_again():
    game, again = pushed_back_game()
    assert played(game, again).meadow == game.meadows_before[0]  # the meadow seat 1's push-back found
    legal = game.legal_actions()
    values = dict(zip(legal, ReferenceGreedyBot(0).values(game, 3, legal)))
    assert values[again] == -math.inf
    for action, value in values.items():  # the others ruled out leave the meadow as it is (digs of a mole)
        assert math.isfinite(value) or action == again or played(game, action).meadow == game.meadow
    assert ReferenceGreedyBot(0).act(game, 3) != again
    game.meadows_before = game.meadows_before[:1] + [[EMPTY] * CONFIG.cells] * (len(game.meadows_before) - 1)
    assert math.isfinite(ReferenceGreedyBot(0).values(game, 3, [again])[0])  # forgotten: no push-back


def test_greedy_bot_plays_the_loop_push_when_it_is_the_only_action(monkeypatch):
    game, again = pushed_back_game()
    assert ReferenceGreedyBot(0).values(game, 3, [again]) == [-math.inf]
    monkeypatch.setattr(game, "legal_actions", lambda: [again])
    assert ReferenceGreedyBot(0).act(game, 3) == again


# --- rendering ----------------------------------------------------------------------------------------

def test_render_shows_the_meadow_seats_farms_bag_and_legend():
    game = position(QUIET, players=3, farms=("c1 ~2", "g1", "l1"), to_move=1, bag="g g g")
    text = render_game(game)
    assert "turn 6: seat 1 (E) to move, phase main" in text
    assert " 0  p w d l s" in text and "E: seat 1" in text and "W: -" in text
    assert "farms: seat 0 (N) c1 ~2 | seat 1 (E) g1 | seat 2 (S) l1" in text
    assert "bag: 3 cubes" in text and "~ water" in text
    game.stall()
    assert "game over by stall" in render_game(game)


# --- whole games ---------------------------------------------------------------------------------------

def cubes_in_play(game: VoraGame) -> int:
    """Cubes in the meadow, the farms, the bag and waiting for a RECIPIENT decision."""
    return sum(k != EMPTY for k in game.meadow) + sum(map(sum, game.farms)) + game.bag_left() + len(game.recipients)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_and_conserve_cubes(players):
    ends = Counter()
    for seed in game_seeds(21, np.arange(200)):
        seed = int(seed)
        game = VoraGame(CONFIG, players, seed)
        bots = [ReferenceRandomBot(s) for s in range(players)]
        play_reference(game, bots, seed, CONFIG.max_turns)
        ends[game.end] += 1
        assert cubes_in_play(game) == CONFIG.total_cubes
        assert min(sum(f) for f in game.farms) >= 1
        assert len(game.events) == game.decisions and game.phase == "main"
        result = game.result()
        assert all(len(v) == players for v in result["seat_columns"].values())
        if game.end == "bag_empty":
            assert 1 in result["rank"] and EMPTY in game.meadow and game.bag_left() == 0
    assert set(ends) <= {"bag_empty", "stall"} and ends["bag_empty"] > 150


@pytest.mark.parametrize("players", [2, 4])
def test_legal_actions_match_the_single_action_check(players):
    seed = int(game_seeds(22, np.arange(1))[0])
    game = VoraGame(CONFIG, players, seed)
    bots = [ReferenceRandomBot(s) for s in range(players)]
    phases = Counter()
    while not game.done and game.turn < CONFIG.max_turns:
        legal = game.legal_actions()
        assert legal and legal == sorted(legal)
        if game.decisions % 3 == 0 or game.phase != "main":
            assert legal == [a for a in range(CONFIG.num_actions) if game.is_legal(a)]
        assert min(sum(f) for f in game.farms) >= (0 if game.phase == "recipient" else 1)
        phases[game.phase] += 1
        game.apply(bots[game.to_move].act(game, seed))
        game.decisions += 1
        assert cubes_in_play(game) == CONFIG.total_cubes
    assert phases["main"] > 50


def test_greedy_games_end():
    for players in (2, 4):
        seed = int(game_seeds(23, np.arange(1))[0])
        game = VoraGame(CONFIG, players, seed)
        bots = [ReferenceGreedyBot(0)] + [ReferenceRandomBot(s) for s in range(1, players)]
        play_reference(game, bots, seed, CONFIG.max_turns)
        assert game.end == "bag_empty" and cubes_in_play(game) == CONFIG.total_cubes


SMALL_GAME = """
[meadow]
size = 4

[[kinds]]
name = "fox"
count = 10
animal = true
special = "devour"

[[kinds]]
name = "hare"
count = 10
animal = true
special = "dig"

[[kinds]]
name = "hay"
count = 10
animal = false
special = "pasture"

[[kinds]]
name = "goat"
count = 10
animal = true
special = "grazer"

[[kinds]]
name = "stone"
count = 10
animal = false
special = "none"

[seats]
2 = ["W", "E"]
3 = ["S", "W", "N"]

[setup]
first_farm = 1
other_farm = 2
max_attempts = 50

[formations]
min_line = 3
min_group = 3
extra = 3
big = 4

[scoring]
thresholds = [1, 4]
points = [-1, 2]

[limits]
max_turns = 200

[report]
target_turns = [10, 40]
"""


def test_kinds_seats_and_sizes_come_from_the_config(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL_GAME)
    config = vora_config.load(path)
    assert config.kind_names == ("fox", "hare", "hay", "goat", "stone")
    assert [k.letter for k in config.kinds] == ["f", "h", "a", "g", "s"]
    assert config.num_actions == 5 * 4 * 4 + 4 * 4 + 16 + 4 * 4 + 16 + 256 + 16 * 8 + 4 + 16 + 4 * 5 + 1
    assert config.kind_with("double_push") == -1 and config.kind_with("liquid") == -1
    (only,) = find_formations(config, meadow("""
        f f f .
        . . . .
        . . . .
        . . . .
    """, config))
    assert combo_of(config, only) == "extra"  # extra = 3 here
    for players in (2, 3):
        for seed in range(6):
            game = VoraGame(config, players, seed)
            assert [sum(f) for f in game.farms] == [1] + [2] * (players - 1)
            assert find_formations(config, game.meadow) == []
            play_reference(game, [ReferenceRandomBot(s) for s in range(players)], seed, config.max_turns)
            assert game.end in ("bag_empty", "stall") and cubes_in_play(game) == 50
            assert set(game.result()["seat_columns"]) >= {"farm_fox", "farm_stone", "special_dig"}


def test_min_line_comes_from_the_config():
    config = load("formations.min_line=4")
    assert find_formations(config, meadow("""
        c c c . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """, config)) == []


def test_a_formation_left_by_the_refill_waits_for_the_next_collection():
    board = QUIET.replace("p w d l s", "g g g l s")
    game = position(board, farms=("c1", "p1"), bag="d m d")
    run_turn(game, CONFIG.encode_dig(cell(4, 4), 3))  # the mole swaps with the mole on its W: no change
    assert game.farms[0] == farm("c1 g3")  # but the turn collects the grass line
    same(game.meadow, """
        l d s l s
        s g w p ~
        c m c ~ d
        d c p p s
        d m d m m
    """)  # columns 0 to 2 slid up towards seat 0 (N), the refill filled row 4
    game = position(board, farms=("c1", "p1"), bag="d m d")
    run_turn(game, CONFIG.encode_pick_up(cell(0, 3)))  # a ladybug pick-up never collects
    assert game.farms[0] == farm("c1 l1") and find_formations(CONFIG, game.meadow) != []


def test_render_shows_the_waiting_sub_decisions():
    game = position(QUIET, players=3, farms=("c1", "p1 g1", "l1"), to_move=1)
    run_turn(game, CONFIG.encode_double(EAST, 0))
    assert "phase recipient (waiting: fallen p w)" in render_game(game)
