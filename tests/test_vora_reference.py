"""Known positions for the Vora reference engine, one rule per test: config, setup,
pushes and collections (whole turns, specials, the end, scoring and bots are in
``test_vora_turns.py``).

Meadows are drawn row 0 (side N) at the top, one symbol per cube: ``p`` pig,
``c`` crow, ``w`` wolf, ``l`` ladybug, ``d`` duck, ``m`` mole, ``s`` sheep,
``~`` water, ``g`` grass, ``.`` empty. Farms are written ``"c1 ~2"`` (symbol
and count). Seats: 2 players N,S; 3 players N,E,S (W unseated); 4 players
N,E,S,W.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from sims.core.rng import game_seeds, shuffle_order
from sims.core.spec import ConfigError, default_config_path
from sims.vora import config as vora_config
from sims.vora.config import EAST, NORTH, OPPOSITE, SOUTH, WEST
from sims.vora.reference import VoraGame, combo_of, find_formations, push_line
from sims.vora.render import describe_action
from tests.vora_positions import CONFIG, QUIET, K, cell, farm, kinds, load, meadow, position, run_turn, same


# --- config and action numbering ---------------------------------------------------------

def test_default_config_counts():
    assert CONFIG.kind_names == ("pig", "crow", "wolf", "ladybug", "duck", "mole", "sheep", "water", "grass")
    assert CONFIG.total_cubes == 108 and CONFIG.size == 5
    assert CONFIG.seats == {2: (NORTH, SOUTH), 3: (NORTH, EAST, SOUTH), 4: (NORTH, EAST, SOUTH, WEST)}
    assert (CONFIG.extra_size, CONFIG.big_size, CONFIG.min_line, CONFIG.min_group) == (4, 5, 3, 3)


def test_action_blocks_and_round_trip():
    config = CONFIG
    k, n, c = 9, 5, 25
    assert config.num_actions == k * 4 * n + 4 * n + c + 4 * n + c + c * c + c * 8 + 4 + c + 4 * k + 1 == 1161
    assert list(config.offsets) == ["push", "double", "devour", "wolf", "pick_up", "fly_swap", "dig",
                                    "recipient", "pick", "steal", "decline"]
    assert config.encode_push(0, 0, 0) == 0
    assert config.encode_push(6, SOUTH, 3) == (6 * 4 + 2) * 5 + 3
    assert config.encode_double(0, 0) == 180 and config.encode_steal(3, 8) == 1159
    assert config.encode_decline() == 1160 and config.decode(1160) == ("decline", ())
    seen = []
    for action in range(config.num_actions):
        block, fields = config.decode(action)
        encoder = getattr(config, "encode_" + block)
        assert encoder(*fields) == action
        seen.append(block)
    assert Counter(seen)["fly_swap"] == 625
    with pytest.raises(ValueError):
        config.decode(config.num_actions)


def test_describe_action():
    config = CONFIG
    assert describe_action(config, config.encode_push(K("sheep"), NORTH, 2)) == "push sheep from N into column 2"
    assert describe_action(config, config.encode_double(WEST, 3)) == "double push from W into row 3"
    assert describe_action(config, config.encode_dig(cell(2, 2), 2)) == "mole at (2,2) digs NE"
    assert describe_action(config, config.encode_fly_swap(0, 24)) == "duck at (0,0) swaps with (4,4)"
    assert describe_action(config, config.encode_steal(1, K("grass"))) == "steal grass from seat 1"
    assert describe_action(config, config.encode_wolf(EAST, 1)) == "wolf from E onto row 1"


@pytest.mark.parametrize("overrides, key", [
    (("formations.extra=5",), "formations.extra"),
    (("seats.3=[\"N\",\"S\"]",), "seats.3"),
    (("scoring.thresholds=[1,3,2,6,9]",), "scoring.thresholds"),
    (("scoring.points=[1,2]",), "scoring.points"),
    (("meadow.size=9",), "meadow.size"),
    (("formations.min_group=26",), "formations.min_group"),  # a group larger than the meadow: never collected
])
def test_config_errors_name_the_key(overrides, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load(*overrides)


def test_config_each_special_at_most_once(tmp_path):
    source = default_config_path("vora").read_text()
    path = tmp_path / "bad.toml"
    path.write_text(source.replace('special = "devour"', 'special = "double_push"'))
    with pytest.raises(ConfigError, match=r"kinds\[1\] \(crow\)\.special"):
        vora_config.load(path)


# --- setup --------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_meadow_without_formation_and_farm_sizes(players):
    for seed in game_seeds(11, np.arange(40)):
        game = VoraGame(CONFIG, players, int(seed))
        assert find_formations(CONFIG, game.meadow) == []
        assert [sum(f) for f in game.farms] == [2, 1, 1, 1][:players]
        assert game.bag_pointer == 25 + 2 + (players - 1)
        assert game.phase == "main" and game.to_move == 0 and game.turn == 0


def test_setup_draws_from_the_bag_stream_and_reshuffles_a_meadow_with_a_formation():
    cube_kinds = CONFIG.cube_kinds()
    for seed in game_seeds(12, np.arange(60)):
        game = VoraGame(CONFIG, 3, int(seed))
        if game.setup_attempt == 0:
            continue
        for attempt in range(game.setup_attempt + 1):
            order = shuffle_order(np.array([int(seed)], np.uint64), "bag", attempt, 108)[0]
            bag = [cube_kinds[i] for i in order]
            assert bool(find_formations(CONFIG, bag[:25])) == (attempt < game.setup_attempt)
        assert game.meadow == bag[:25]
        assert game.farms[0] == farm(" ".join(CONFIG.kinds[k].letter + "1" for k in bag[25:27]))
        assert game.farms[1] == farm(CONFIG.kinds[bag[27]].letter + "1")
        assert game.farms[2] == farm(CONFIG.kinds[bag[28]].letter + "1")
        break
    else:
        pytest.fail("no seed needed a reshuffle")


def test_setup_gives_up_after_max_attempts():
    config = load("setup.max_attempts=1")
    for seed in game_seeds(12, np.arange(60)):
        if VoraGame(CONFIG, 2, int(seed)).setup_attempt > 0:
            assert find_formations(config, VoraGame(config, 2, int(seed)).meadow) != []
            return
    pytest.fail("no seed needed a reshuffle")


def test_setup_is_determined_by_the_seed():
    a, b, c = VoraGame(CONFIG, 4, 99), VoraGame(CONFIG, 4, 99), VoraGame(CONFIG, 4, 100)
    assert a.snapshot() == b.snapshot() and a.bag == b.bag
    assert a.bag != c.bag
    assert a.snapshot()["bag_pointer"] == 25 + 5


# --- push and fallen cubes ------------------------------------------------------------------

def test_push_shifts_the_line_and_the_fallen_cube_goes_to_the_seated_side():
    game = position(QUIET, farms=("~1 g1", "p1"))
    run_turn(game, CONFIG.encode_push(K("water"), NORTH, 1))  # column 1 shifts down, c falls out at S
    same(game.meadow, """
        p ~ d l s
        l w s p ~
        s d w ~ d
        c g c p s
        d m p m m
    """)
    assert game.farms[0] == farm("g1") and game.farms[1] == farm("p1 c1")
    assert game.to_move == 1 and game.turn == 7 and game.phase == "main" and game.bag_pointer == 0
    assert game.result()["seat_columns"]["received"] == [0, 1]
    assert game.result()["seat_columns"]["pushes"] == [1, 0]


@pytest.mark.parametrize("side, line, entry, fallen", [
    (NORTH, 0, (0, 0), "d"), (SOUTH, 0, (4, 0), "p"), (WEST, 4, (4, 0), "m"), (EAST, 4, (4, 4), "d"),
])
def test_push_enters_at_the_edge_cell_of_its_side(side, line, entry, fallen):
    after, out = push_line(meadow(QUIET), 5, side, line, K("grass"))
    assert after[cell(*entry)] == K("grass")
    assert out == kinds(fallen)


def test_double_push_two_fallen_cubes_and_an_empty_edge_until_refill():
    after, fallen = push_line(meadow(QUIET), 5, NORTH, 1, K("pig"), double=True)
    same(after, """
        p . d l s
        l p s p ~
        s w w ~ d
        c d c p s
        d g p m m
    """)
    assert fallen == kinds("c m")  # the farthest first
    game = position(QUIET, farms=("p1 g1", "l1"), bag="~ g")
    run_turn(game, CONFIG.encode_double(NORTH, 1))
    assert game.farms[1] == farm("l1 c1 m1")
    same(game.meadow, """
        p ~ d l s
        l p s p ~
        s w w ~ d
        c d c p s
        d g p m m
    """)
    assert game.bag_pointer == 1 and not game.done
    assert game.result()["seat_columns"]["special_double_push"] == [1, 0]


def test_fallen_cube_on_an_unseated_side_is_a_recipient_decision():
    game = position(QUIET, players=3, farms=("c1", "g2", "l1"), to_move=1)
    run_turn(game, CONFIG.encode_push(K("grass"), EAST, 2))  # row 2 shifts west, s falls out at W
    assert game.phase == "recipient" and game.to_move == 1 and game.turn == 6
    assert game.legal_actions() == [CONFIG.encode_recipient(s) for s in range(3)]
    run_turn(game, CONFIG.encode_recipient(2))
    assert game.farms[2] == farm("l1 s1") and game.farms[1] == farm("g1")
    assert game.phase == "main" and game.to_move == 2 and game.turn == 7
    assert game.events[-1]["kind"] == "recipient" and game.events[-1]["target"] == 2


def test_double_push_onto_an_unseated_side_asks_twice():
    game = position(QUIET, players=3, farms=("c1", "p1 g1", "l1"), to_move=1)
    run_turn(game, CONFIG.encode_double(EAST, 0))  # row 0 shifts two cells west: p, then w fall out at W
    assert game.phase == "recipient" and game.recipients == kinds("p w")
    run_turn(game, CONFIG.encode_recipient(0), CONFIG.encode_recipient(1))
    assert game.farms[0] == farm("c1 p1") and game.farms[1] == farm("g1 w1")


# --- collection and combos --------------------------------------------------------------------

def formations_of(board: str):
    return find_formations(CONFIG, meadow(board))


def test_line_of_three_is_collected_without_combo():
    (only,) = formations_of("""
        . . . . .
        c c c . .
        . . . . .
        . . . . .
        . . . . .
    """)
    assert only.kind == K("crow") and only.size == 3 and combo_of(CONFIG, only) is None


def test_line_of_four_gives_an_extra():
    (only,) = formations_of("""
        . . . . .
        . w . . .
        . w . . .
        . w . . .
        . w . . .
    """)
    assert only.size == 4 and combo_of(CONFIG, only) == "extra"


def test_straight_five_gives_a_big():
    (only,) = formations_of("""
        d d d d d
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    assert only.size == 5 and combo_of(CONFIG, only) == "big"


@pytest.mark.parametrize("board", [
    """
        m m m . .
        . m . . .
        . m . . .
        . . . . .
        . . . . .
    """,  # T
    """
        . . . . .
        . p . . .
        . p . . .
        . p p p .
        . . . . .
    """,  # L
    """
        . . . . .
        . . l . .
        . l l l .
        . . l . .
        . . . . .
    """,  # +
    """
        . . . . .
        . c . . .
        c c c c .
        . c . . .
        . . . . .
    """,  # a longer cross
])
def test_crossing_runs_are_one_formation_and_one_big(board):
    (only,) = formations_of(board)
    assert only.runs == 2 and only.size >= 5 and combo_of(CONFIG, only) == "big"


def test_parallel_touching_runs_are_not_a_cross():
    found = formations_of("""
        . . . . .
        c c c c .
        c c c c .
        . . . . .
        . . . . .
    """)
    assert [f.size for f in found] == [4, 4]
    assert [combo_of(CONFIG, f) for f in found] == ["extra", "extra"]


def test_two_of_a_kind_side_by_side_under_three_are_nothing():
    assert formations_of("""
        c c . . .
        c c . . .
        . . . . .
        . . . . .
        . . . . .
    """) == []


def test_water_collects_in_any_connected_shape():
    found = formations_of("""
        ~ ~ . . .
        . ~ ~ . .
        . . . . ~
        ~ . . ~ ~
        ~ ~ ~ . ~
    """)
    sizes = sorted((f.size, combo_of(CONFIG, f)) for f in found)
    assert sizes == [(4, "extra"), (4, "extra"), (4, "extra")]
    found = formations_of("""
        ~ . ~ . .
        ~ ~ ~ . .
        . . . . .
        . ~ . . .
        ~ . ~ . .
    """)  # a U of 5; the lone and diagonal cubes are nothing
    assert [(f.size, combo_of(CONFIG, f)) for f in found] == [(5, "big")]
    found = formations_of("""
        ~ ~ ~ . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    assert [(f.size, f.runs, combo_of(CONFIG, f)) for f in found] == [(3, 0, None)]


def test_sheep_line_grazes_orthogonally_adjacent_grass_only():
    (only,) = formations_of("""
        g . g . g
        s s s g g
        g g . . .
        . . . . .
        g . . . .
    """)
    assert only.kind == K("sheep")
    # above (0,0), (0,2); right (1,3); below (2,0), (2,1); not (0,4), (1,4) (chained) or (4,0)
    assert only.grazed == {cell(0, 0), cell(0, 2), cell(1, 3), cell(2, 0), cell(2, 1)}
    assert only.size == 3 and combo_of(CONFIG, only) is None  # grazed grass does not count


def test_dig_makes_a_sheep_line_that_grazes():
    game = position("""
        p w d l s
        l d g s ~
        s s m c d
        c m g p s
        d c p m m
    """, farms=("c1", "p1"), bag="w w w w w w w w")
    run_turn(game, CONFIG.encode_dig(cell(2, 2), 2))  # mole (2,2) <-> sheep (1,3): s s s in row 2
    assert game.farms[0] == farm("c1 s3 g2")  # grass (1,2) and (3,2) grazed
    assert game.result()["seat_columns"]["collected"] == [5, 0]


# --- nobody is ever blocked (rules §7.3) ----------------------------------------------------------

def home_pushes(game: VoraGame, kind: int) -> list[int]:
    """The pushes of ``kind`` into every line from the side facing the mover: the cube falls back to it."""
    side = OPPOSITE[game.seat_sides[game.to_move]]
    return [game.config.encode_push(kind, side, line) for line in range(game.config.size)]


def changes(game: VoraGame, action: int) -> bool:
    after = game.clone()
    after.apply(action)
    return (after.meadow, after.farms) != (game.meadow, game.farms)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_main_decision_has_a_legal_push_that_changes_the_position(players):
    for seed in range(2):
        game = VoraGame(CONFIG, players, 50 + seed)
        choose = random.Random(seed)
        while not game.done and game.turn < 80:
            if game.phase == "main":
                kind = next(k for k, n in enumerate(game.farms[game.to_move]) if n)
                pushes = home_pushes(game, kind)
                assert set(pushes) <= set(game.legal_actions())
                assert any(changes(game, action) for action in pushes)
            game.apply(choose.choice(game.legal_actions()))


@pytest.mark.parametrize("kind", ["sheep", "water"])
def test_a_push_into_a_meadow_all_of_its_kind_collects(kind):
    # the one way a push could leave the meadow as it was: every line uniform in the pushed kind; then the
    # meadow is a formation (a line of 5 >= formations.min_line; water: a group of 25 >= formations.min_group)
    symbol = CONFIG.kinds[K(kind)].letter
    game = position("\n".join([" ".join([symbol] * 5)] * 5), farms=(f"{symbol}1", "p1"))
    for action in home_pushes(game, K(kind)):
        assert action in game.legal_actions()
        after = game.clone()
        after.apply(action)
        assert after.farms[0][K(kind)] > 1  # the fallen cube came home and the formation was collected
