"""Vorex's batched engine: known positions, invariants, batch independence, agreement with the reference."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.bots import RandomBot
from sims.core.engine import BotSpec, GameDefinition, Trace
from sims.core.play import batched_bots, play_batch, resolve_bot, seat_labels
from sims.core.rng import game_seeds
from sims.registry import register
from sims.vorex import bots, config, kernels, reference_bots, render, rules
from sims.vorex.columns import columns
from sims.vorex.tables import group_labels
from sims.vorex.rules import ACTION, RUIN, SETUP, WEED_BLOOM, VorexEngine

CONFIG = config.load()
NAME = "vorex_batched_test"
_ENGINES: dict[int, VorexEngine] = {}


def engine_for(players: int) -> VorexEngine:
    """One engine per player count for the whole module (the tables take a moment to build)."""
    if players not in _ENGINES:
        _ENGINES[players] = VorexEngine(CONFIG, players)
    return _ENGINES[players]


def definition() -> GameDefinition:
    from sims.vorex import reference

    return GameDefinition(
        name=NAME, title="Vorex", player_counts=(1, 2, 3, 4), load_config=config.load,
        batched=lambda cfg, players: engine_for(players) if cfg is CONFIG else VorexEngine(cfg, players),
        reference=lambda cfg, players, seed: reference.VorexGame(cfg, players, seed),
        bots={"random": BotSpec("random", RandomBot, reference_bots.ReferenceRandomBot),
              "greedy": BotSpec("greedy", bots.GreedyBot, reference_bots.ReferenceGreedyBot)},
        render_reference=lambda game: "", describe_action=lambda game, a: render.describe_action(game.config, a),
        max_turns=lambda cfg: cfg.max_turns, bot_weights=lambda cfg, kind: cfg.bot_weights.get(kind, {}),
        seats=lambda players: 2 if players == 1 else players, house_bot="random")


def legal(engine: VorexEngine, state) -> np.ndarray:
    """The legal mask after a position was changed by hand."""
    engine.forget_cache(state)
    return engine.legal_mask(state)


def last_logged(state, name: str, game: int = 0) -> int:
    """What the last step logged of field ``name`` in ``game``."""
    return int(state.events.stacked(name)[game, -1])


def hexes(*coords: tuple[int, int]) -> list[int]:
    return [CONFIG.hex_number[c] for c in coords]


def paint(engine: VorexEngine, state, game: int, hex_numbers, tile: int, part: int) -> None:
    """Put hex ``part`` of ``tile`` on each of ``hex_numbers`` (a test position, not a real placement)."""
    for h in hex_numbers:
        state.tile[game, h] = tile
        state.part[game, h] = part
        state.kind[game, h] = CONFIG.tile_hex_kind[tile, part]
    state.tiles_on_map[game] = max(int(state.tiles_on_map[game]), 1)
    state.cache_valid[game] = False


def flowers(engine: VorexEngine, state, game: int, seat: int, hex_numbers) -> None:
    for h in hex_numbers:
        state.flower[game, h] = seat
        state.flowers_left[game, seat] -= 1
    state.group[game] = group_labels(state.flower[game:game + 1], engine.board.neighbours_ext)[0]


def empty_action_position(players: int = 2):
    """A game at seat 0's first ACTION decision on an empty map (the setup undone)."""
    engine = engine_for(players)
    state = engine.init(game_seeds(3, np.arange(1)))
    for array, value in ((state.tile, -1), (state.part, -1), (state.kind, -1), (state.flower, -1),
                         (state.group, -1)):
        array[0, :engine.H + 1] = value
    state.tiles_on_map[0] = 0
    state.phase[0], state.to_move[0], state.actions_left[0] = ACTION, 0, 2
    state.setup_tiles[0] = -1
    state.cache_valid[0] = False
    state.offered[0] = True
    return engine, state


def test_first_setup_decision_places_a_tile_on_the_centre():
    engine = engine_for(2)
    state = engine.init(game_seeds(11, np.arange(4)))
    assert (state.phase == SETUP).all() and (state.to_move == 0).all()
    assert (state.pile_pointer == 2).all() and (state.face_up == state.pile[:, :2]).all()
    assert (state.resources[:, :, 0] == CONFIG.start_light).all()
    mask = legal(engine, state)
    for game in range(4):
        for action in np.nonzero(mask[game])[0]:
            block, (slot, anchor, rotation) = CONFIG.decode(int(action))
            assert block == "place" and slot in (0, 1)
            tile = int(state.setup_tiles[game, 0, slot])
            assert CONFIG.centre in CONFIG.placement_hexes(tile, anchor, rotation)
    expected = sum(CONFIG.placement_hexes(int(state.setup_tiles[0, 0, slot]), a, k) is not None
                   and CONFIG.centre in CONFIG.placement_hexes(int(state.setup_tiles[0, 0, slot]), a, k)
                   for slot in (0, 1) for a in range(CONFIG.playable) for k in range(6))
    assert mask[0].sum() == expected


def test_closing_a_single_hex_makes_a_ruin():
    engine, state = empty_action_position()
    x = CONFIG.hex_number[(0, 0)]
    paint(engine, state, 0, hexes((1, 0), (0, 1), (-1, 1), (-1, 0)), tile=4, part=2)  # arid hexes
    bar = CONFIG.tile_names.index("l1_bar")
    state.face_up[0] = [bar, -1]
    action = CONFIG.encode_place(0, CONFIG.hex_number[(0, -1)], 0)
    assert legal(engine, state)[0, action]
    engine.step(state, np.array([action]))
    assert state.tile[0, x] == RUIN
    assert not state.settled[0, x]  # the bar's mushroom stump next to it is still open
    assert state.flower[0, x] == -1
    assert last_logged(state, "ruins_formed") == 1
    assert state.face_up[0, 0] == state.pile[0, 2] and state.pile_pointer[0] == 3


def test_closing_two_hexes_is_illegal():
    engine, state = empty_action_position()
    around_pair = hexes((0, 1), (-1, 1), (-1, 0), (1, -1), (2, 0), (1, 1), (2, -1))  # all but (0, -1)
    paint(engine, state, 0, around_pair, tile=4, part=2)
    state.face_up[0] = [CONFIG.tile_names.index("l1_bar"), -1]
    mask = legal(engine, state)
    assert not mask[0, CONFIG.encode_place(0, CONFIG.hex_number[(-3, -1)], 0)]  # closes {(0,0), (1,0)}
    assert mask[0, CONFIG.encode_place(0, CONFIG.hex_number[(-4, -1)], 0)]  # touches, closes nothing


def test_bloom_payment_follows_the_spec_example():
    engine, state = empty_action_position()
    light, water, target = hexes((0, 0), (1, 0), (2, 0))
    paint(engine, state, 0, [light], tile=0, part=0)  # light stump
    paint(engine, state, 0, [water], tile=0, part=2)  # water stump
    l3_bee = CONFIG.tile_names.index("l3_bee")
    paint(engine, state, 0, [target], tile=l3_bee, part=1)  # points 3, cost mushroom, water, water
    assert tuple(CONFIG.tile_hex_cost[l3_bee, 1]) == (1, 2, 0)
    flowers(engine, state, 0, 0, [light, water])
    supply = state.supply[0].copy()
    state.resources[0, 0] = [2, 0, 1, 0]
    action = CONFIG.encode_bloom(target)
    assert legal(engine, state)[0, action]
    engine.step(state, np.array([action]))
    assert list(state.resources[0, 0]) == [2, 0, 0, 0]
    assert state.supply[0, 2] == supply[2] + 1
    assert [last_logged(state, name) for name in ("paid", "light_paid", "reduced", "stump_points")] == [1, 0, 2, 3]
    assert state.flower[0, target] == 0 and state.group[0, target] == min(light, water, target)


def test_a_draw_logs_what_each_production_kind_produced():
    """Rules §4.2: a light stump and two water stumps under the mover's flowers, one water left in the supply:
    the draw takes 1 light and 1 water (the supply's cap), and the events name the kinds that produced."""
    engine, state = empty_action_position()
    light, water, water2 = hexes((0, 0), (1, 0), (2, 0))
    paint(engine, state, 0, [light], tile=0, part=0)
    paint(engine, state, 0, [water, water2], tile=0, part=2)
    flowers(engine, state, 0, 0, [light, water, water2])
    state.supply[0, config.RESOURCES.index("water")] = 1
    assert legal(engine, state)[0, CONFIG.draw_action]
    engine.step(state, np.array([CONFIG.draw_action]))
    assert [last_logged(state, name) for name in config.PRODUCED_COLUMNS] == [1, 0, 1, 0]
    assert last_logged(state, "gained") == 2
    events = engine.events(state, Trace(actions=np.array([[CONFIG.draw_action]])))
    assert events["produced"].tolist() == ["light,water"] and events["produced_water"].tolist() == [1]


def test_bloom_without_enough_light_is_illegal():
    engine, state = empty_action_position()
    light, water, target = hexes((0, 0), (1, 0), (2, 0))
    paint(engine, state, 0, [light], tile=0, part=0)
    paint(engine, state, 0, [water], tile=0, part=2)
    paint(engine, state, 0, [target], tile=CONFIG.tile_names.index("l3_bee"), part=1)
    flowers(engine, state, 0, 0, [light, water])
    state.resources[0, 0] = [0, 0, 0, 0]  # need mushroom 1 (wild covers it), water 1: 1 light short
    assert not legal(engine, state)[0, CONFIG.encode_bloom(target)]
    state.resources[0, 0] = [1, 0, 0, 0]
    assert legal(engine, state)[0, CONFIG.encode_bloom(target)]


def ruin_ring_position():
    """A ruin at the centre inside a ring of water stumps (cost insect): seat 0's flowers on its first 3, seat 1's
    on the next 2, the last one free; seat 0 holds 5 insects. Returns engine, state, the ruin, the ring."""
    engine, state = empty_action_position()
    x = CONFIG.hex_number[(0, 0)]
    ring = hexes((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
    paint(engine, state, 0, ring, tile=9, part=3)
    state.tile[0, x] = RUIN
    flowers(engine, state, 0, 0, ring[:3])
    flowers(engine, state, 0, 1, ring[3:5])
    state.resources[0, 0] = [0, 0, 0, 5]
    return engine, state, x, ring


def test_completed_ruin_goes_to_the_unique_majority():
    engine, state, x, ring = ruin_ring_position()
    engine.step(state, np.array([CONFIG.encode_bloom(ring[5])]))  # seat 0 fills the last stump: 4 to 2
    assert state.flower[0, x] == 0 and state.settled[0, x]
    assert last_logged(state, "ruin_flowers") == 1
    assert state.stats[0, 0, rules.STAT["flowers_ruins"]] == 1


def test_tied_ruin_gives_nothing():
    engine, state = empty_action_position()
    x = CONFIG.hex_number[(0, 0)]
    ring = hexes((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
    paint(engine, state, 0, ring, tile=9, part=3)
    state.tile[0, x] = RUIN
    flowers(engine, state, 0, 0, ring[:2])
    flowers(engine, state, 0, 1, ring[2:5])
    state.resources[0, 0] = [0, 0, 0, 5]
    engine.step(state, np.array([CONFIG.encode_bloom(ring[5])]))  # 3 to 3
    assert state.flower[0, x] == -1 and state.settled[0, x]


def play_until_done(engine, state, prefer=("draw", "decline")) -> None:
    while not state.done[0]:
        options = np.nonzero(legal(engine, state)[0])[0]
        choice = options[0]
        for block in prefer:
            number = CONFIG.draw_action if block == "draw" else CONFIG.decline_action
            if number in options:
                choice = number
                break
        engine.step(state, np.array([choice]))


def test_last_flower_finishes_the_round():
    engine = engine_for(3)
    state = engine.init(game_seeds(5, np.arange(1)))
    while state.phase[0] == SETUP:  # setup: first legal placements
        engine.step(state, np.array([np.nonzero(legal(engine, state)[0])[0][0]]))
    assert state.turn[0] == 3 and state.to_move[0] == 0 and state.actions_left[0] == 2
    assert (state.flowers_left[0] == CONFIG.flowers - 1).all()
    state.resources[0, 1] = [9, 9, 9, 9]
    state.flowers_left[0, 1] = 1
    engine.step(state, np.array([CONFIG.draw_action]))
    engine.step(state, np.array([CONFIG.draw_action]))  # seat 1's turn now
    blooms = np.nonzero(legal(engine, state)[0, :CONFIG.playable])[0]
    assert blooms.size
    engine.step(state, np.array([CONFIG.encode_bloom(int(blooms[0]))]))
    assert state.last_flower[0] and not state.done[0]
    play_until_done(engine, state)
    assert rules.END_REASONS[state.end[0]] == "last_flower"
    assert state.turn[0] == 6  # the round finished: seat 2 played its turn


def test_a_round_without_blooms_or_tiles_is_blocked():
    engine = engine_for(2)
    state = engine.init(game_seeds(5, np.arange(1)))
    while state.phase[0] == SETUP:
        engine.step(state, np.array([np.nonzero(legal(engine, state)[0])[0][0]]))
    state.face_up[0] = -1
    state.pile_pointer[0] = state.pile.shape[1]
    state.flowers_left[0] = 0
    state.offered[0] = False
    play_until_done(engine, state)
    assert rules.END_REASONS[state.end[0]] == "blocked"
    assert state.turn[0] == 4


def last_stump_state(players: int, supply: list[int]):
    """As ``last_stump_position`` of the reference tests: one stump left, (0, 1) water [insect], free for seat 0
    (its light flower beside it); no tile to lay; the supply as given (rules §7.3)."""
    engine, state = empty_action_position(players)
    start = CONFIG.tile_names.index("start_b")
    paint(engine, state, 0, hexes((0, 0)), start, 0)  # light
    paint(engine, state, 0, hexes((0, 1)), start, 2)  # water [insect]
    flowers(engine, state, 0, 0, hexes((0, 0)))
    state.face_up[0] = -1
    state.pile_pointer[0] = state.pile.shape[1]
    state.supply[0] = supply
    state.resources[0] = 0
    engine.forget_cache(state)
    return engine, state


@pytest.mark.parametrize("players, supply, ends, ranks", [
    (2, [0, 0, 0, 0], True, [1, 2]), (2, [0, 3, 0, 3], True, [1, 2]), (2, [1, 0, 0, 0], False, None),
    (2, [0, 0, 1, 0], False, None), (3, [0, 0, 0, 0], True, [1, 2, 2]), (1, [0, 0, 0, 0], True, [2, 1])])
def test_the_last_stump_bloomed_with_nothing_to_draw_ends_blocked_at_once(players, supply, ends, ranks):
    engine, state = last_stump_state(players, supply)
    target = CONFIG.encode_bloom(CONFIG.hex_number[(0, 1)])
    assert legal(engine, state)[0, target]
    engine.step(state, np.array([target]))
    assert state.done[0] == ends and state.turn[0] == 0  # in the middle of seat 0's turn
    if ends:
        assert rules.END_REASONS[state.end[0]] == "blocked"
        assert engine.results(state).rank[0].tolist() == ranks
    else:
        assert state.phase[0] == ACTION and state.actions_left[0] == 1


@pytest.mark.parametrize("last_flower", [True, False])
def test_a_seat_with_no_turn_left_does_not_keep_the_game_going(last_flower):
    engine, state = last_stump_state(3, [0, 0, 0, 0])
    state.actions_left[0], state.last_flower[0] = 1, last_flower
    engine.step(state, np.array([CONFIG.draw_action]))  # seat 0 could bloom, but draws
    assert state.to_move[0] == 1 and state.done[0] == last_flower
    assert rules.END_REASONS[state.end[0]] == ("blocked" if last_flower else "")


def test_solo_weed_blooms_for_free_and_loses_with_no_stump():
    engine = engine_for(1)
    assert engine.players == 2
    state = engine.init(game_seeds(8, np.arange(1)))
    while state.phase[0] == SETUP:
        engine.step(state, np.array([np.nonzero(legal(engine, state)[0])[0][0]]))
    assert state.to_move[0] == 0 and state.phase[0] == ACTION and state.turn[0] == 1
    assert state.flowers_left[0, 1] == CONFIG.weed_flowers and (state.resources[0, 1] == 0).all()
    engine.step(state, np.array([CONFIG.draw_action]))
    engine.step(state, np.array([CONFIG.draw_action]))
    assert state.to_move[0] == 1 and state.phase[0] == WEED_BLOOM
    open_stumps = (state.kind[0, :CONFIG.playable] > 0) & (state.flower[0, :CONFIG.playable] < 0)
    assert (legal(engine, state)[0, :CONFIG.playable] == open_stumps).all()
    # the player's next turn: every stump gets a flower, so the weed has nowhere to bloom
    while state.to_move[0] == 1:
        engine.step(state, np.array([np.nonzero(legal(engine, state)[0])[0][0]]))
    stumps = np.nonzero((state.kind[0, :CONFIG.playable] > 0) & (state.flower[0, :CONFIG.playable] < 0))[0]
    state.flower[0, stumps] = 0
    state.group[0] = group_labels(state.flower[0:1], engine.board.neighbours_ext)[0]
    engine.forget_cache(state)
    engine.step(state, np.array([CONFIG.draw_action]))
    engine.step(state, np.array([CONFIG.draw_action]))
    assert rules.END_REASONS[state.end[0]] == "weed_no_stump"
    assert list(engine.results(state).rank[0]) == [2, 1]


def test_kept_arrays_are_checked_against_the_map():
    engine = engine_for(2)
    state = engine.init(game_seeds(4, np.arange(3)))
    while state.phase[0] == SETUP:
        engine.step(state, np.argmax(engine.legal_mask(state), axis=1))
    check = "kept arrays match the map"
    assert engine.invariants(state)[check].all()
    stump = np.nonzero((state.kind[1] > 0) & (state.flower[1] < 0))[0][0]
    flowers(engine, state, 1, 0, [stump])  # by hand: the production is now stale in game 1
    assert list(engine.invariants(state)[check]) == [True, False, True]
    engine.forget_cache(state)
    assert engine.invariants(state)[check].all()


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_invariants_hold_under_random_play(players):
    engine = engine_for(players)
    state = engine.init(game_seeds(21, np.arange(24)))
    players_bots = [RandomBot(engine, seat) for seat in range(engine.players)]
    taken = []
    while not state.done.all():
        mask = legal(engine, state)
        assert (mask.any(axis=1) == ~state.done).all()
        actions = np.full(state.size, -1)
        for seat in range(engine.players):
            movers = ~state.done & (state.to_move == seat)
            actions[movers] = players_bots[seat].act(state, movers)[movers]
        assert mask[~state.done, actions[~state.done]].all()
        active = ~state.done
        taken.append(np.where(active, actions, -1))
        engine.step(state, actions)
        state.decisions[active] += 1
        for name, ok in engine.invariants(state).items():
            assert ok.all(), name
    results = engine.results(state)
    assert set(results.seat_columns) == set(config.SEAT_COLUMNS)
    assert set(results.game_columns) == set(config.GAME_COLUMNS)
    events = engine.events(state, Trace(actions=np.stack(taken, axis=1)))
    assert events["game"].size == int(state.decisions.sum())
    assert list(events) == [column.name for column in columns(CONFIG).events]


@pytest.mark.parametrize("players", [1, 3])
def test_events_equal_the_references_row_by_row(players):
    """Every events column (the points each decision brought its seat included) equals the reference's row for
    the same decision, on seeded random games replayed on the reference."""
    from sims.vorex.reference import VorexGame

    engine = engine_for(players)
    seeds = game_seeds(33, np.arange(6))
    state, trace = play_batch(engine, [RandomBot(engine, s) for s in range(engine.players)], seeds, CONFIG.max_turns)
    events = engine.events(state, trace)
    assert (events["points"] != 0).any() and (events["points_brown"] != 0).any()
    produced = np.stack([events[name] for name in config.PRODUCED_COLUMNS], axis=1)
    draws = np.isin(events["kind"], ("draw", "bloom", "bonus_bloom"))  # a bloom's own draw is its bonus draw
    assert (produced[draws].sum(axis=1) == events["gained"][draws]).all() and not produced[~draws].any()
    assert (events["produced"] != "").any() == (players > 1)  # random solo games here never draw
    assert all(kinds == ",".join(np.array(config.RESOURCES)[amounts > 0])
               for kinds, amounts in zip(events["produced"], produced))
    for game in range(seeds.size):
        reference = VorexGame(CONFIG, players, int(seeds[game]))
        for action in trace.game_actions(game):
            reference.apply(action)
            reference.decisions += 1  # as the play loop counts them
        rows = np.flatnonzero(events["game"] == game)
        assert rows.size == len(reference.events)
        for row, logged in zip(rows, reference.events):
            batched = {name: events[name][row] for name in logged}  # numpy scalars, or str from a decoded label
            assert logged == {name: value.item() if isinstance(value, np.generic) else value
                              for name, value in batched.items()}


def test_games_do_not_depend_on_the_batch():
    engine = engine_for(2)
    seeds = game_seeds(4, np.arange(12))
    seat_bots = [RandomBot(engine, 0), RandomBot(engine, 1)]
    together, trace = play_batch(engine, seat_bots, seeds, CONFIG.max_turns)
    for game in (0, 5, 11):
        alone, single = play_batch(engine, seat_bots, seeds[game:game + 1], CONFIG.max_turns)
        assert single.game_actions(0) == trace.game_actions(game)
        assert engine.snapshot(alone, 0) == engine.snapshot(together, game)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_reference_agrees_with_random_games(players):
    pytest.importorskip("sims.vorex.reference")
    from sims.verify import verify

    register(definition())
    report = verify(NAME, CONFIG, players, 8, 13, bot_labels=["random"] * (2 if players == 1 else players))
    assert report.ok, report.format()


def test_reference_agrees_with_greedy_solo_games():
    pytest.importorskip("sims.vorex.reference")
    from sims.verify import verify

    register(definition())
    report = verify(NAME, CONFIG, 1, 3, 17, bot_labels=["greedy", "random"])
    assert report.ok, report.format()


def test_seat_labels_seat_the_weed():
    game = definition()
    choices = [resolve_bot(game, CONFIG, label) for label in seat_labels(game, 1, ["random"])]
    engine = game.batched(CONFIG, 1)
    state, _ = play_batch(engine, batched_bots(game, engine, choices), game_seeds(2, np.arange(4)), CONFIG.max_turns)
    assert state.done.all()


@pytest.mark.parametrize("walk, legal", [
    ("b.CC.b", True),  # the gap the walk starts in wraps round to its end: one bad gap, counted once
    ("bC.Cb", True),
    (".CbC.", True),
    ("bCbC", False),  # two gaps holding a bad hex
    ("CbCb", False),
    ("b.CbC.b", False),
    ("C..C..", True),
])
def test_boundary_walk_counts_the_gaps_holding_a_bad_hex(walk, legal):
    """The one-lap boundary walk (kernels._closes_one_region) on walks given as C (covered), b (an empty hex that
    does not become a single enclosed hex) and . (one that does: its covered neighbours make 6)."""
    code = {"C": kernels.COVERED, "b": 2, ".": 6}
    states = np.array([code[c] for c in walk], dtype=np.int64)
    touch = np.zeros(len(walk), dtype=np.int64)
    assert kernels._closes_one_region(states, 0, np.arange(len(walk), dtype=np.int64), touch) == legal


def test_around_shifts_name_the_around_hexes_of_every_placement():
    """Board.around_shift and around_touches (what the greedy's bitboard filter reads) give, from each placement's
    anchor on the grid, the hexes and cell counts of Board.around and around_touch (hexes outside the window: OPEN)."""
    board = engine_for(2).board
    S, placements, M = board.around.shape
    s, p = np.nonzero((board.cells < board.SHUT).all(axis=2))
    k, x = p % 6, board.hex_grid[p // 6]
    for j in range(M):
        touches = board.around_touches[s, k, j]
        at = board.grid_hex[x + board.around_shift[s, k, j]]
        hexes = np.where(touches > 0, np.where(at < 0, board.OPEN, at), board.SHUT)
        assert np.array_equal(hexes, board.around[s, p, j])
        assert np.array_equal(np.where(touches > 0, touches, -1), board.around_touch[s, p, j])
