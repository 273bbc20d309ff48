"""Known positions for the batched Vora engine, one rule per test.

Meadows are drawn row 0 (side N) on top with the kinds' letters (``p`` pig,
``c`` crow, ``w`` wolf, ``l`` ladybug, ``d`` duck, ``m`` mole, ``s`` sheep,
``~`` water, ``g`` grass) and ``.`` for an empty cell, and loaded into a batch
of one game. Farms are written as strings of letters, one per cube.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from sims.core.engine import Trace
from sims.core.rng import game_seeds, shuffle_order
from sims.vora import config as vora_config
from sims.vora.config import EAST, NORTH, SOUTH, WEST
from sims.vora.rules import END_REASONS, VoraEngine, find_formations, has_formation

# No two equal kinds side by side in a row or a column: nothing to collect.
QUIET = """
    p c w l d
    m s g p c
    w l d m s
    g p c w l
    d m s g p
"""


def load(*overrides: str):
    return vora_config.load(overrides=list(overrides))


def letters(config) -> dict[str, int]:
    return {kind.letter: index for index, kind in enumerate(config.kinds)}


def cells_of(config, picture: str) -> np.ndarray:
    symbols = letters(config)
    rows = [line.split() for line in textwrap.dedent(picture).strip().splitlines()]
    assert len(rows) == config.size and all(len(row) == config.size for row in rows)
    return np.array([[-1 if s == "." else symbols[s] for row in rows for s in row]], dtype=np.int8)


def position(players: int, picture: str, farms: dict[int, str] | None = None, *, to_move: int = 0,
             bag: str | None = None, config=None, turn: int = 6) -> tuple[VoraEngine, object]:
    """One game with the drawn meadow and farms; ``bag`` is what is left in the bag, next cube first."""
    config = config or load()
    engine = VoraEngine(config, players)
    state = engine.init(game_seeds(0, np.arange(1)))
    state.meadow[:] = engine.meadow_of_cells(cells_of(config, picture))
    state.farms[:] = 0
    symbols = letters(config)
    for seat, text in (farms or {}).items():
        for letter in text:
            state.farms[0, seat, symbols[letter]] += 1
    if bag is not None:
        total = state.bag.shape[1]
        state.bag[0, total - len(bag):] = [symbols[s] for s in bag]
        state.bag_pointer[0] = total - len(bag)
    state.to_move[0] = to_move
    state.turn[0] = turn
    return engine, state


def picture(engine, state) -> str:
    config = engine.config
    symbol = {index: kind.letter for index, kind in enumerate(config.kinds)}
    cells = engine.cells_of_meadow(state.meadow[:1])[0]
    rows = [" ".join("." if c < 0 else symbol[int(c)] for c in cells[r * config.size:(r + 1) * config.size])
            for r in range(config.size)]
    return "\n".join(rows)


def drawn(text: str) -> str:
    return "\n".join(line.strip() for line in textwrap.dedent(text).strip().splitlines())


def farm(engine, state, seat: int) -> str:
    """A farm as sorted letters."""
    config = engine.config
    return "".join(config.kinds[k].letter * int(n) for k, n in enumerate(state.farms[0, seat]))


def legal(engine, state) -> list[int]:
    return [int(a) for a in np.nonzero(engine.legal_mask(state)[0])[0]]


def legal_of(engine, state, block: str) -> set[tuple[int, ...]]:
    config = engine.config
    return {fields for b, fields in map(config.decode, legal(engine, state)) if b == block}


def play(engine, state, action: int) -> None:
    assert action in legal(engine, state), engine.describe_action(action)
    engine.step(state, np.array([action]))


def phase(engine, state) -> str:
    return engine.snapshot(state, 0)["phase"]


def kind(config, letter: str) -> int:
    return letters(config)[letter]


# --- setup -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_is_deterministic_and_deals_the_farms(players):
    config = load()
    engine = VoraEngine(config, players)
    seeds = game_seeds(11, np.arange(50))
    one, two = engine.init(seeds), engine.init(seeds)
    assert np.array_equal(one.meadow, two.meadow) and np.array_equal(one.bag, two.bag)
    assert np.array_equal(engine.init(seeds[7:9]).meadow, one.meadow[7:9]), "a game's deal depends on its seed only"
    assert not has_formation(engine.geo, one.meadow.T).any()
    assert (one.farms.sum(axis=2) == [2] + [1] * (players - 1)).all()
    assert (one.bag_pointer == 25 + 2 + (players - 1)).all()
    assert (engine.cells_of_meadow(one.meadow) == one.bag[:, :25]).all()
    farm0 = np.zeros((50, 9), dtype=int)
    for i in range(50):
        for cube in one.bag[i, 25:27]:
            farm0[i, cube] += 1
    assert np.array_equal(farm0, one.farms[:, 0])


def test_setup_redraws_a_meadow_holding_a_formation():
    config = load()
    engine = VoraEngine(config, 2)
    cube_kinds = np.array(config.cube_kinds(), dtype=np.int8)
    seeds = game_seeds(3, np.arange(200))
    first = cube_kinds[shuffle_order(seeds, "bag", 0, config.total_cubes)]
    redrawn = np.nonzero(has_formation(engine.geo, engine.meadow_of_cells(first[:, :25]).T))[0]
    assert redrawn.size > 0
    state = engine.init(seeds[redrawn])
    second = cube_kinds[shuffle_order(seeds[redrawn], "bag", 1, config.total_cubes)]
    clear = ~has_formation(engine.geo, engine.meadow_of_cells(second[:, :25]).T)
    assert clear.any()
    assert np.array_equal(state.bag[clear], second[clear])


# --- push -------------------------------------------------------------------------------


def test_push_shifts_the_line_and_the_far_cube_goes_to_the_seated_side():
    engine, state = position(2, QUIET, {0: "cc", 1: "p"})
    config = engine.config
    play(engine, state, config.encode_push(kind(config, "c"), NORTH, 0))
    assert picture(engine, state) == drawn("""
        c c w l d
        p s g p c
        m l d m s
        w p c w l
        g m s g p
    """)
    assert farm(engine, state, 0) == "c" and farm(engine, state, 1) == "pd"
    assert engine.snapshot(state, 0)["turn"] == 7 and state.to_move[0] == 1 and phase(engine, state) == "main"


def test_push_onto_an_unseated_side_asks_who_gets_the_cube():
    engine, state = position(2, QUIET, {0: "cc", 1: "p"})
    config = engine.config
    play(engine, state, config.encode_push(kind(config, "c"), EAST, 0))  # row 0 shifts west, p falls out at W
    assert phase(engine, state) == "recipient" and state.to_move[0] == 0
    assert legal_of(engine, state, "recipient") == {(0,), (1,)}
    assert len(legal(engine, state)) == 2
    play(engine, state, config.encode_recipient(1))
    assert farm(engine, state, 1) == "pp" and farm(engine, state, 0) == "c"
    assert phase(engine, state) == "main" and state.to_move[0] == 1


def test_four_players_sit_on_every_side_so_no_cube_needs_a_recipient():
    engine, state = position(4, QUIET, {0: "cc", 1: "p", 2: "p", 3: "p"})
    config = engine.config
    play(engine, state, config.encode_push(kind(config, "c"), EAST, 0))
    assert farm(engine, state, 3) == "pp" and state.to_move[0] == 1


def test_double_push_shifts_two_cells_and_leaves_the_edge_empty_until_refill():
    engine, state = position(2, QUIET, {0: "pc", 1: "c"}, bag="ggg")
    config = engine.config
    assert (NORTH, 1) in legal_of(engine, state, "double")
    play(engine, state, config.encode_double(NORTH, 1))
    assert picture(engine, state) == drawn("""
        p g w l d
        m p g p c
        w c d m s
        g s c w l
        d l s g p
    """)  # column 1 was c s l p m: the pig lands on row 1, m and p fall out at S, g refills row 0
    assert farm(engine, state, 1) == "pcm" and farm(engine, state, 0) == "c"
    assert state.bag_pointer[0] == state.bag.shape[1] - 2


def test_double_push_onto_an_unseated_side_asks_twice_farthest_cube_first():
    engine, state = position(3, QUIET, {0: "pc", 1: "c", 2: "c"})
    config = engine.config
    play(engine, state, config.encode_double(EAST, 0))  # row 0 shifts two cells west: p then c fall out at W
    assert state.fallen[0].tolist() == [kind(config, "p"), kind(config, "c")]
    play(engine, state, config.encode_recipient(2))
    assert phase(engine, state) == "recipient"
    play(engine, state, config.encode_recipient(1))
    assert farm(engine, state, 2) == "pc" and farm(engine, state, 1) == "cc"
    assert picture(engine, state).splitlines()[0].split()[:4] == ["w", "l", "d", "p"]


# --- the forbidden rule ----------------------------------------------------------------------


def test_a_last_cube_may_not_be_pushed_onto_another_players_side_without_a_collection():
    meadow = """
        p c w l d
        m s g p c
        w l d m s
        g p c w l
        d m d g p
    """  # a duck pushed from S into column 1 makes d d d in row 4
    engine, state = position(2, meadow, {0: "cc", 1: "d"}, to_move=1)
    config = engine.config
    pushes = legal_of(engine, state, "push")
    duck = kind(config, "d")
    assert {(duck, NORTH, line) for line in range(5)} <= pushes  # falls on S, its own side
    assert {(duck, side, line) for side in (EAST, WEST) for line in range(5)} <= pushes  # unseated sides
    from_south = {line for k, side, line in pushes if side == SOUTH}
    assert from_south == {1}  # only the push that collects d d d in row 4 may send a cube to seat 0


def test_a_last_cube_fallen_on_an_unseated_side_must_come_home_unless_something_is_collected():
    engine, state = position(3, QUIET, {0: "cc", 1: "c", 2: "c"}, to_move=1)
    config = engine.config
    play(engine, state, config.encode_push(kind(config, "c"), EAST, 2))  # row 2 shifts west, w falls at W
    assert legal_of(engine, state, "recipient") == {(1,)}


def test_with_a_double_push_the_first_fallen_cube_may_go_away_if_the_second_can_come_home():
    engine, state = position(3, QUIET, {0: "cc", 1: "p", 2: "c"}, to_move=1)
    config = engine.config
    play(engine, state, config.encode_double(EAST, 2))
    assert legal_of(engine, state, "recipient") == {(0,), (1,), (2,)}
    play(engine, state, config.encode_recipient(0))
    assert legal_of(engine, state, "recipient") == {(1,)}


# --- collection and combos ---------------------------------------------------------------------

CASCADE = """
    p c s s m
    m s g p d
    w l d d c
    g p c w l
    d m s g p
"""


def test_lines_fall_in_the_push_direction_and_cascade_with_sheep_grazing():
    engine, state = position(2, CASCADE, {0: "dd", 1: "c"}, bag="lllllll")
    config = engine.config
    assert not has_formation(engine.geo, state.meadow.T).any()
    play(engine, state, config.encode_push(kind(config, "d"), NORTH, 4))
    # column 4 shifts south (p falls to seat 1 at S) and row 2 holds d d d: collected; columns 2-4 fall
    # south and s s s forms in row 1: collected with the grass below it (it does not make a combo of 4);
    # the crow in column 1 falls, then the seven empty cells refill row by row.
    assert picture(engine, state) == drawn("""
        p l l l l
        m c l l d
        w l l p m
        g p c w c
        d m s g l
    """)
    assert farm(engine, state, 0) == "ddddsssg" and farm(engine, state, 1) == "pc"
    assert state.stats[0, 0, 0] == 7  # collected
    assert state.extra_left[0] == 0 and state.to_move[0] == 1


def swap_position(row2: str, players: int = 2, farms=None):
    """QUIET-like meadow with row 2 drawn and a duck on (0, 4) ready to fly onto the grass on (2, 2)."""
    meadow = f"""
        p c w l d
        m s ~ p c
        {row2}
        g p c w l
        w m s g p
    """
    return position(players, meadow, farms or {0: "cc", 1: "pp"})


def fly(engine, state) -> None:
    play(engine, state, engine.config.encode_fly_swap(4, 12))


def test_a_line_of_three_is_collected_without_a_combo():
    engine, state = swap_position("m d g d c")
    fly(engine, state)
    assert farm(engine, state, 0) == "ccddd" and phase(engine, state) == "main" and state.to_move[0] == 1


def test_events_name_the_special_used_and_the_kinds_collected():
    """The duck's fly collects a line of three ducks: the event names the duck's special and the ducks; the pick
    of the EXTRA combo after a line of four uses no special and collects nothing."""
    engine, state = swap_position("m d g d c")
    fly(engine, state)
    events = engine.events(state, Trace(actions=np.array([[engine.config.encode_fly_swap(4, 12)]])))
    assert (events["block"].tolist(), events["special"].tolist(), events["collected_kinds"].tolist()) == (
        ["fly_swap"], ["duck"], ["duck"])
    engine, state = swap_position("d d g d c")
    actions = [engine.config.encode_fly_swap(4, 12), engine.config.encode_pick(0)]
    for action in actions:
        play(engine, state, action)
    events = engine.events(state, Trace(actions=np.array([actions])))
    assert events["special"].tolist() == ["duck", ""] and events["collected_kinds"].tolist() == ["duck", ""]


def test_events_give_the_points_a_decision_brought_its_mover():
    """Points are the mover's family-score change: the fly's three ducks beside two crows score +1 (0 -> 1); the
    pick after a line of four ducks takes a lone pig, -1."""
    engine, state = swap_position("m d g d c")
    fly(engine, state)
    events = engine.events(state, Trace(actions=np.array([[engine.config.encode_fly_swap(4, 12)]])))
    assert events["points"].tolist() == [1.0] and events["passive"].tolist() == [""]
    engine, state = swap_position("d d g d c")
    actions = [engine.config.encode_fly_swap(4, 12), engine.config.encode_pick(0)]
    for action in actions:
        play(engine, state, action)
    events = engine.events(state, Trace(actions=np.array([actions])))
    assert farm(engine, state, 0) == "pccdddd" and events["points"].tolist() == [1.0, -1.0]


def test_each_decisions_points_are_its_movers_score_change_in_seeded_random_games():
    engine = VoraEngine(load(), 3)
    state = engine.init(game_seeds(4, np.arange(5)))
    actions, changes = [], []
    rng = np.random.default_rng(4)
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        step = np.full(state.size, -1, dtype=np.int64)
        step[live] = engine.choose_uniform(state, live, rng.random(live.size))
        mover = state.to_move.astype(np.int64).copy()
        before = engine.geo.scores(state.farms.astype(np.int64))[np.arange(state.size), mover]
        engine.step(state, step)
        after = engine.geo.scores(state.farms.astype(np.int64))[np.arange(state.size), mover]
        actions.append(step)
        changes.append(np.where(step >= 0, after - before, np.nan))
    trace = Trace(actions=np.stack(actions, axis=1))
    events = engine.events(state, trace)
    expected = np.stack(changes, axis=1)[events["game"], events["decision"]]
    assert len(events["game"]) > 300 and np.array_equal(events["points"], expected)
    assert np.unique(events["points"]).size > 3  # gains and losses of several sizes, not a constant


def dug(picture: str, mole: int, direction: int) -> dict:
    """The event of seat 0 (farm ``cc``) digging the mole on cell ``mole`` towards ``direction``."""
    engine, state = position(2, picture, {0: "cc", 1: "pp"})
    action = engine.config.encode_dig(mole, direction)
    play(engine, state, action)
    return engine.events(state, Trace(actions=np.array([[action]])))


def test_events_name_a_passive_special_when_it_shapes_a_collection():
    """Water's liquid special shows when water is taken in a shape a line would not take (an L of three, +1
    point); a straight line of three water is no liquid effect. The sheep's grazer shows when a sheep line takes
    grass beside it (three sheep +1, one grass -1: 0 points)."""
    liquid = dug("""
        p c w l d
        m ~ ~ p c
        w l m d s
        g p c ~ l
        d m s g p
    """, 12, 7)  # the mole (2, 2) digs south-east: the water (3, 3) joins (1, 1) and (1, 2)
    assert (liquid["collected_kinds"].tolist(), liquid["passive"].tolist()) == (["water"], ["water"])
    assert liquid["points"].tolist() == [1.0]
    line = dug("""
        p c w l d
        m ~ ~ m c
        w l d m ~
        g p c w l
        d m s g p
    """, 8, 7)  # the mole (1, 3) digs south-east: the water (2, 4) makes the row ~ ~ ~ of (1, 1) to (1, 3)
    assert (line["collected_kinds"].tolist(), line["passive"].tolist()) == (["water"], [""])
    grazed = dug("""
        p c w l d
        m s s g c
        s l d m s
        g p c w l
        d m s g p
    """, 5, 6)  # the mole (1, 0) digs south: s s s in row 1 grazes the grass (1, 3)
    assert (grazed["collected_kinds"].tolist(), grazed["passive"].tolist()) == (["sheep,grass"], ["sheep"])
    assert grazed["points"].tolist() == [0.0]


def test_a_line_of_four_gives_an_extra_pick_from_the_meadow():
    engine, state = swap_position("d d g d c")
    config = engine.config
    fly(engine, state)
    assert phase(engine, state) == "extra" and state.to_move[0] == 0
    assert len(legal_of(engine, state, "pick")) == 21 and legal_of(engine, state, "steal") == set()
    play(engine, state, config.encode_pick(0))  # the pig on (0, 0)
    assert farm(engine, state, 0) == "pccdddd" and phase(engine, state) == "main" and state.to_move[0] == 1


def test_a_combo_may_be_declined_and_only_a_combo():
    engine, state = swap_position("d d g d c")
    config = engine.config
    assert legal_of(engine, state, "decline") == set()
    fly(engine, state)
    assert phase(engine, state) == "extra" and legal_of(engine, state, "decline") == {()}
    play(engine, state, config.encode_decline())
    assert farm(engine, state, 0) == "ccdddd" and phase(engine, state) == "main" and state.to_move[0] == 1
    declines = engine.results(state).seat_columns["declines"][0]
    assert declines.tolist() == [1, 0] and engine.results(state).seat_columns["picks"][0].tolist() == [0, 0]


def test_a_line_of_five_gives_a_big_combo_pick_or_steal_never_a_last_cube():
    engine, state = swap_position("d d g d d", players=3, farms={0: "cc", 1: "ppw", 2: "s"})
    config = engine.config
    fly(engine, state)
    assert phase(engine, state) == "big"
    assert legal_of(engine, state, "steal") == {(1, kind(config, "p")), (1, kind(config, "w"))}
    assert len(legal_of(engine, state, "pick")) == 20 and legal_of(engine, state, "decline") == {()}
    play(engine, state, config.encode_steal(1, kind(config, "w")))
    assert farm(engine, state, 0) == "ccwddddd" and farm(engine, state, 1) == "pp"
    assert state.stats[0, 0, 4] == 1 and state.stats[0, 1, 5] == 1  # steals, stolen


def test_two_lines_sharing_a_cube_are_one_big_formation():
    engine, state = position(2, """
        p c w l d
        m s ~ p c
        d d g l m
        g p d w l
        w m d g p
    """, {0: "cc", 1: "pp"})
    fly(engine, state)  # row 2 d d d and column 2 d d d share (2, 2): an L of 5
    assert phase(engine, state) == "big" and farm(engine, state, 0) == "ccddddd"


@pytest.mark.parametrize("shape, sizes", [
    (". . . . .|. d d d .|. . d . .|. . d . .|. . . . .", (0, 1)),  # T
    (". . d . .|. d d d .|. . d . .|. . . . .|. . . . .", (0, 1)),  # +
    ("d d d d .|. . . . .|. . . . .|. . . . .|. . . . .", (1, 0)),  # 4
    ("d d d . d|. . . . d|. . . . d|. . . . .|. . . . .", (0, 0)),  # two lines of 3 apart
    ("d d d d d|. . . . .|d d d d .|. . . . .|. . . . .", (1, 1)),  # a 5 and a 4
    ("~ ~ . . .|. ~ ~ . .|. . . . .|. . . . .|. . . . .", (1, 0)),  # water of 4 in a zigzag
])
def test_formation_sizes_and_combos(shape, sizes):
    config = load()
    engine = VoraEngine(config, 2)
    meadow = engine.meadow_of_cells(cells_of(config, shape.replace("|", "\n")))
    collected, extras, bigs = find_formations(engine.geo, meadow.T)
    assert (extras[0], bigs[0]) == sizes
    assert int(np.bitwise_count(collected[:, 0]).sum()) == shape.count("d") + shape.count("~")


def test_two_parallel_touching_lines_are_two_formations_without_a_combo():
    meadow = """
        p c w l d
        s s s p c
        s s s l d
        l p c w l
        d m m g p
    """  # as a refill may leave it; the mole digs into the other mole (a swap that changes nothing)
    engine, state = position(2, meadow, {0: "cc", 1: "pp"})
    config = engine.config
    _, extras, bigs = find_formations(engine.geo, state.meadow.T)
    assert (extras[0], bigs[0]) == (0, 0)
    play(engine, state, config.encode_dig(21, 4))  # mole (4, 1) east: the mole (4, 2)
    assert farm(engine, state, 0) == "ccssssss" and phase(engine, state) == "main" and state.to_move[0] == 1


@pytest.mark.parametrize("fifth, combo", [("l", "extra"), ("~", "big")])
def test_water_is_collected_in_any_shape_four_gives_extra_five_big(fifth, combo):
    meadow = f"""
        ~ c w l d
        m s ~ p c
        p ~ d {fifth} s
        g p ~ w l
        d m s g p
    """  # single waters; the duck (2, 2) swaps with the water (0, 0) and joins them
    engine, state = position(2, meadow, {0: "cc", 1: "pp"})
    config = engine.config
    play(engine, state, config.encode_fly_swap(12, 0))
    assert phase(engine, state) == combo
    assert farm(engine, state, 0).count("~") == (4 if combo == "extra" else 5)


def test_three_water_in_an_l_are_collected():
    meadow = """
        ~ c w l d
        m s ~ p c
        w l d ~ s
        g p c w l
        d m s g p
    """
    engine, state = position(2, meadow, {0: "cc", 1: "pp"})
    config = engine.config
    play(engine, state, config.encode_fly_swap(12, 0))
    assert farm(engine, state, 0) == "cc~~~" and phase(engine, state) == "main"


def test_sheep_graze_only_the_grass_next_to_their_line():
    meadow = """
        p g w l d
        m g s g c
        s s m d ~
        g l c w l
        d m s g p
    """  # the mole (2, 2) digs north: s s s in row 2 grazes (1, 1) and (3, 0), not (0, 1) nor (1, 3)
    engine, state = position(2, meadow, {0: "cc", 1: "pp"})
    config = engine.config
    play(engine, state, config.encode_dig(12, 1))
    assert farm(engine, state, 0) == "ccsssgg" and phase(engine, state) == "main"


def big_on_an_empty_meadow(opponent: str):
    config = load("meadow.size=3")
    engine, state = position(2, """
        s s m
        s s s
        s s s
    """, {0: "ss", 1: opponent}, config=config)  # two lines as a refill may leave them
    play(engine, state, config.encode_push(kind(config, "s"), WEST, 0))
    play(engine, state, config.encode_recipient(0))  # the mole fell out at E (unseated)
    return engine, state


def test_a_big_combo_on_an_empty_meadow_may_only_steal():
    engine, state = big_on_an_empty_meadow("pp")
    assert farm(engine, state, 0) == "m" + "s" * 10 and phase(engine, state) == "big"
    assert legal_of(engine, state, "pick") == set() and legal_of(engine, state, "steal") == {(1, 0)}


def test_a_big_combo_with_nothing_to_take_is_skipped():
    engine, state = big_on_an_empty_meadow("p")
    assert phase(engine, state) == "main" and state.to_move[0] == 1
    assert picture(engine, state).count(".") == 0  # refilled


# --- falls and specials ----------------------------------------------------------------------------


def test_a_special_makes_the_cubes_fall_towards_the_active_player():
    meadow = """
        p c w l d
        m s g p c
        c c w m s
        g p d w l
        d m s g p
    """
    engine, state = position(2, meadow, {0: "cc", 1: "cc"}, to_move=1, bag="gpg")
    config = engine.config
    play(engine, state, config.encode_devour(12))  # seat 1's crow takes the wolf's cell: c c c in row 2
    assert farm(engine, state, 1) == "ccccw"
    assert picture(engine, state) == drawn("""
        g p g l d
        p c w p c
        m s g m s
        g p d w l
        d m s g p
    """)  # seat 1 sits at S: columns 0-2 fell south


def test_the_wolf_enters_from_a_side_devours_the_edge_animal_and_stays_during_the_fall():
    meadow = """
        p c w l d
        m c s p c
        p l s m ~
        g p s w l
        d m c g p
    """  # column 2 rows 1-3: s s s, as a refill may leave it
    engine, state = position(2, meadow, {0: "ww", 1: "pp"}, bag="ggg")
    config = engine.config
    assert (WEST, 2) in legal_of(engine, state, "wolf") and (EAST, 2) not in legal_of(engine, state, "wolf")
    play(engine, state, config.encode_wolf(WEST, 2))  # devours the pig on (2, 0); falls go east
    assert farm(engine, state, 0) == "pwsss"
    assert picture(engine, state) == drawn("""
        p c w l d
        g m c p c
        w g l m ~
        g g p w l
        d m c g p
    """)  # rows 1 and 3 slid east; in row 2 the wolf kept (2, 0) and l slid next to m


def test_the_ladybug_goes_to_the_farm_and_nothing_is_collected_this_turn():
    meadow = """
        p c w l d
        m s l p c
        w d m d s
        g p d w l
        d m s g p
    """
    engine, state = position(2, meadow, {0: "cc", 1: "pp"}, bag="g")
    config = engine.config
    play(engine, state, config.encode_pick_up(7))  # seat 0 sits at N: column 2 rises
    assert picture(engine, state) == drawn("""
        p c w l d
        m s m p c
        w d d d s
        g p s w l
        d m g g p
    """)  # d d d in row 2 stays for the next player: a pick-up collects nothing
    assert farm(engine, state, 0) == "ccl" and state.to_move[0] == 1
    assert has_formation(engine.geo, state.meadow.T)[0]
    play(engine, state, config.encode_push(kind(config, "p"), SOUTH, 0))  # seat 1's push collects it
    assert farm(engine, state, 1) == "pddd" and farm(engine, state, 0) == "pccl"


def test_the_crow_devours_animals_only():
    meadow = QUIET.replace("g p c w l", "g ~ c w l")
    engine, state = position(2, meadow, {0: "cc", 1: "pp"})
    config = engine.config
    targets = {cell for (cell,) in legal_of(engine, state, "devour")}
    cubes = engine.cells_of_meadow(state.meadow)[0]
    assert targets == {c for c in range(25) if config.kinds[cubes[c]].animal}
    assert 16 not in targets and 7 not in targets  # water and grass


def test_the_duck_swaps_with_water_or_grass_and_the_mole_with_its_eight_neighbours():
    engine, state = position(2, QUIET, {0: "pp", 1: "pp"})
    cubes = engine.cells_of_meadow(state.meadow)[0]
    ducks = [c for c in range(25) if cubes[c] == 4]
    plants = [c for c in range(25) if cubes[c] in (7, 8)]
    assert legal_of(engine, state, "fly_swap") == {(d, t) for d in ducks for t in plants}
    digs = legal_of(engine, state, "dig")
    assert {(m, d) for m, d in digs if m == 5} == {(5, d) for d in (1, 2, 4, 6, 7)}  # (1, 0): nothing west
    assert {(m, d) for m, d in digs if m == 13} == {(13, d) for d in range(8)}
    assert legal_of(engine, state, "pick_up") == {(c,) for c in range(25) if cubes[c] == 3}
    assert legal_of(engine, state, "devour") == set() and legal_of(engine, state, "wolf") == set()


# --- refill, end and score --------------------------------------------------------------------------


def test_a_short_refill_places_what_the_bag_has_and_ends_the_game():
    engine, state = position(2, CASCADE, {0: "dd", 1: "c"}, bag="lll")
    config = engine.config
    play(engine, state, config.encode_push(kind(config, "d"), NORTH, 4))
    assert picture(engine, state).splitlines()[:2] == ["p l l l .", "m c . . d"]
    assert state.done[0] and END_REASONS[state.end[0]] == "bag_empty" and state.to_move[0] == 1
    assert not engine.legal_mask(state).any()
    results = engine.results(state)
    # seat 0: d x4 (+1), s x3 (+1), g x1 (-1) = 1; seat 1: p (-1), c (-1) = -2
    assert results.score[0].tolist() == [1.0, -2.0] and results.rank[0].tolist() == [1, 2]
    assert results.seat_columns["farm_duck"][0].tolist() == [4, 0]


def test_an_exact_refill_keeps_the_game_going():
    engine, state = position(2, CASCADE, {0: "dd", 1: "c"}, bag="lllllll")
    config = engine.config
    play(engine, state, config.encode_push(kind(config, "d"), NORTH, 4))
    assert not state.done[0] and state.bag_pointer[0] == state.bag.shape[1]


def test_family_scores_and_shared_first_place():
    engine, state = position(3, QUIET, {0: "ppp", 1: "cccccc", 2: ""})
    state.farms[0, 0, 3] = 9  # seat 0: p x3 +1, l x9 +9
    state.farms[0, 2, :5] = [9, 1, 2, 0, 3]  # seat 2: +9 -1 +0 +1
    state.done[0] = True
    state.end[0] = END_REASONS.index("bag_empty")
    results = engine.results(state)
    assert results.score[0].tolist() == [10.0, 3.0, 9.0] and results.rank[0].tolist() == [1, 3, 2]
    state.farms[0, 2, 7] = 6  # +3
    results = engine.results(state)
    assert results.score[0].tolist() == [10.0, 3.0, 12.0] and results.rank[0].tolist() == [2, 3, 1]
    state.farms[0, 0, 7:9] = 3  # +1 +1: a shared first place
    results = engine.results(state)
    assert results.score[0].tolist() == [12.0, 3.0, 12.0] and results.rank[0].tolist() == [1, 3, 1]


def test_a_stalled_game_has_no_ranks():
    engine, state = position(2, QUIET, {0: "cc", 1: "pp"})
    engine.stall(state, np.array([True]))
    assert engine.results(state).rank[0].tolist() == [0, 0]
    assert END_REASONS[state.end[0]] == "stall"


# --- records and events ----------------------------------------------------------------------------


def test_events_add_up_to_the_records():
    from sims.core.play import play_batch
    from sims.core.bots import RandomBot
    from sims.vora.bots import GreedyBot

    config = load()
    engine = VoraEngine(config, 3)
    lineup = [GreedyBot(engine, 0), RandomBot(engine, 1), GreedyBot(engine, 2)]
    state, trace = play_batch(engine, lineup, game_seeds(2, np.arange(12)), config.max_turns)
    events = engine.events(state, trace)
    results = engine.results(state)
    assert len(events["game"]) == int((trace.actions >= 0).sum())
    assert set(events["block"]) <= set(vora_config.BLOCKS) and set(events["phase"]) <= set(vora_config.PHASES)
    for name in ("collected", "extras", "bigs"):
        total = np.zeros((12, 3), dtype=np.int64)
        np.add.at(total, (events["game"], events["seat"].astype(np.int64)), events[name])
        assert np.array_equal(total, results.seat_columns[name]), name
    steals = events["block"] == "steal"
    assert steals.sum() == results.seat_columns["steals"].sum() == results.seat_columns["stolen"].sum()
    assert np.array_equal(events["collected_kinds"] != "", events["collected"] > 0)
    kinds_taken = np.char.count(events["collected_kinds"].astype(str), ",") + (events["collected_kinds"] != "")
    assert (kinds_taken <= events["collected"]).all()
    for i, special in enumerate(vora_config.ACTION_SPECIALS):  # each action special's block names its kind
        block = vora_config.BLOCKS[i + 1]
        used = events["block"] == block
        assert used.sum() == results.seat_columns[f"special_{special}"].sum()
        assert set(events["special"][used]) <= {config.kind_names[config.kind_with(special)]}
    assert (events["special"][~np.isin(events["block"], vora_config.BLOCKS[1:7])] == "").all()
    passive = events["passive"] != ""
    assert (events["collected"][passive] > 0).all() and set(events["passive"]) <= {"", "water", "sheep"}
    kinds = np.array(config.kind_names)
    held = results.seat_columns
    for i, name in enumerate(kinds):
        assert np.array_equal(held[f"farm_{name}"], state.farms[:, :, i])


def test_a_duck_that_is_no_animal_may_swap_with_another_duck_but_not_itself(tmp_path):
    text = vora_config.load().loaded.source
    toml = Path(text).read_text().replace('name = "duck"\ncount = 12\nanimal = true', 'name = "duck"\ncount = 12\nanimal = false')
    path = tmp_path / "vora.toml"
    path.write_text(toml)
    engine, state = position(2, QUIET, {0: "cc", 1: "pp"}, config=vora_config.load(path))
    cubes = engine.cells_of_meadow(state.meadow)[0]
    ducks = [c for c in range(25) if cubes[c] == 4]
    plants = [c for c in range(25) if cubes[c] in (4, 7, 8)]
    assert legal_of(engine, state, "fly_swap") == {(d, t) for d in ducks for t in plants if t != d}
