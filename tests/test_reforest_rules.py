"""Reforest's batched engine: known positions, invariants under random play, batch independence, verify."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.choice import choose_uniform
from sims.core.rng import game_seeds, uniforms
from sims.reforest import config as reforest
from sims.reforest.rules import DRAW, EFFECT, GATHER, HAND_LIMIT, MAIN, PAY, ReforestEngine, plays_at_end


@pytest.fixture(scope="module")
def cfg() -> reforest.ReforestConfig:
    return reforest.load()


def sp(cfg, name: str) -> int:
    return cfg.species_names.index(name)


def fresh(cfg, players: int = 2, seed: int = 3) -> tuple[ReforestEngine, object]:
    engine = ReforestEngine(cfg, players)
    return engine, engine.init(np.array([seed], dtype=np.uint64))


def set_hand(cfg, state, seat: int, names: list[str]) -> None:
    """Give a seat exactly these cards; the cards it held go to the discard pile (cards stay conserved)."""
    state.discard[0] += state.hand[0, seat]
    state.hand[0, seat] = 0
    for name in names:
        take_card(cfg, state, sp(cfg, name))
        state.hand[0, seat, sp(cfg, name)] += 1


def take_card(cfg, state, species: int) -> None:
    """Take one card of a species from the discard pile, else the tucked piles (for hand-built positions)."""
    for pile in (state.discard[0], state.tucked[0, 1], state.tucked[0, 0]):
        if pile[species] > 0:
            pile[species] -= 1
            return
    state.kept[0, species] += 1  # a card from the put-away cards: the game now holds it


def set_region(cfg, engine, state, seat: int, space: int, names: list[str], energy: dict[str, int] | None = None):
    for level, name in enumerate(names):
        s = sp(cfg, name)
        take_card(cfg, state, s)
        state.stack[0, seat, space, level] = s
        state.traits[0, seat] += engine.has_trait[s]
    state.stack_size[0, seat, space] = len(names)
    state.canopy[0, seat, space] = sp(cfg, names[-1]) if names else -1
    for name, count in (energy or {}).items():
        for _ in range(count):
            take_card(cfg, state, sp(cfg, name))
        state.energy[0, seat, space, sp(cfg, name)] += count
        state.stored[0, seat, space] += count


def legal(engine, state) -> set[int]:
    return set(np.nonzero(engine.legal_mask(state)[0])[0].tolist())


def step(engine, state, action: int) -> None:
    engine.step(state, np.array([action]))
    state.decisions[0] += 1


def check_invariants(engine, state) -> None:
    for name, ok in engine.invariants(state).items():
        assert ok.all(), name


def test_first_plant_goes_in_the_low_row(cfg):
    engine, state = fresh(cfg)
    set_hand(cfg, state, 0, ["Step Moss", "Deer Fern"])
    plays = {cfg.decode(a)[1] for a in legal(engine, state) if cfg.decode(a)[0] == "play"}
    # Deer Fern costs 1, paid with the other card; both may grow anywhere but only in the low row first
    assert plays == {(sp(cfg, n), x) for n in ("Step Moss", "Deer Fern") for x in (0, 1, 2)}
    check_invariants(engine, state)


def test_placement_adjacent_or_cover_a_shorter_plant(cfg):
    engine, state = fresh(cfg)
    set_region(cfg, engine, state, 0, 1, ["Deer Fern"])  # 0.7 m in the low middle space
    set_hand(cfg, state, 0, ["Bunchberry", "Salal", "Salal", "Salal"])
    plays = {cfg.decode(a)[1] for a in legal(engine, state) if cfg.decode(a)[0] == "play"}
    bunchberry, salal = sp(cfg, "Bunchberry"), sp(cfg, "Salal")
    # Bunchberry (0.2 m) may not cover the fern; it grows next to it: 0, 2 (low) and 3, 4 (middle)
    assert {x for s, x in plays if s == bunchberry} == {0, 2, 3, 4}
    # Salal (2.5 m, low and middle) also covers the fern
    assert {x for s, x in plays if s == salal} == {0, 1, 2, 3, 4}
    check_invariants(engine, state)


def test_succession_discount_and_adjacent_energy_pay(cfg):
    engine, state = fresh(cfg)
    set_region(cfg, engine, state, 0, 1, ["Salal"])  # cost 2, half-sun
    set_region(cfg, engine, state, 0, 4, ["Labrador Tea"], energy={"Deer Fern": 2})  # 4 is adjacent to 1
    set_hand(cfg, state, 0, ["Douglas Fir"])  # cost 4, the only card in hand
    fir = sp(cfg, "Douglas Fir")
    plays = {cfg.decode(a)[1] for a in legal(engine, state) if cfg.decode(a)[0] == "play"}
    # on the Salal: 4 - 2 = 2, paid by the 2 energy of space 4; on the empty space 0 (energy out of reach): no
    assert (fir, 1) in plays and (fir, 0) not in plays
    step(engine, state, cfg.encode_play(fir, 1))
    assert state.phase[0] == PAY and state.owed[0] == 2
    assert legal(engine, state) == {cfg.encode_pay_energy(4)}
    step(engine, state, cfg.encode_pay_energy(4))
    step(engine, state, cfg.encode_pay_energy(4))
    assert state.stack[0, 0, 1, :2].tolist() == [sp(cfg, "Salal"), fir]  # half-sun stays as understory
    assert state.discard[0, sp(cfg, "Deer Fern")] >= 2 and state.stored[0, 0, 4] == 0
    check_invariants(engine, state)


def test_covering_a_sun_plant_makes_energy_and_queues_its_effect_first(cfg):
    engine, state = fresh(cfg)
    set_region(cfg, engine, state, 0, 1, ["Fireweed"])  # sun, on_covered_store 2
    set_region(cfg, engine, state, 0, 0, ["Oregon Oxalis"])  # react_play_trait_draw tree 1
    set_hand(cfg, state, 0, ["Red Alder", "Deer Fern", "Deer Fern"])  # tree, cost 2
    step(engine, state, cfg.encode_play(sp(cfg, "Red Alder"), 1))
    assert state.owed[0] == 2
    step(engine, state, cfg.encode_pay_hand(sp(cfg, "Deer Fern")))
    step(engine, state, cfg.encode_pay_hand(sp(cfg, "Deer Fern")))
    assert state.stack[0, 0, 1, 0] == sp(cfg, "Red Alder") and state.stack_size[0, 0, 1] == 1
    assert state.energy[0, 0, 1, sp(cfg, "Fireweed")] == 1
    assert state.phase[0] == EFFECT
    queue = state.queue_species[0, : state.queue_len[0]].tolist()
    assert queue == [sp(cfg, "Fireweed"), sp(cfg, "Oregon Oxalis")]
    deck_before = int(state.deck_end[0] - state.deck_top[0])
    step(engine, state, cfg.encode_use())  # store 2 under space 1
    assert state.stored[0, 0, 1] == 3 and int(state.deck_end[0] - state.deck_top[0]) == deck_before - 2
    assert state.phase[0] == EFFECT
    step(engine, state, cfg.encode_use())  # the oxalis draws 1
    assert state.phase[0] == DRAW
    check_invariants(engine, state)


def test_gather_up_to_two_then_turn_passes(cfg):
    engine, state = fresh(cfg)
    step(engine, state, cfg.encode_gather())
    assert state.phase[0] == GATHER and cfg.encode_stop() not in legal(engine, state)  # at least one card
    hand = int(state.hand[0, 0].sum())
    step(engine, state, cfg.encode_take(0))
    assert cfg.encode_stop() in legal(engine, state)
    assert state.nursery[0, 0] == -1
    step(engine, state, cfg.encode_take(cfg.deck_source))
    assert int(state.hand[0, 0].sum()) == hand + 2
    assert state.to_move[0] == 1 and state.turn[0] == 1 and state.phase[0] == MAIN
    assert (state.nursery[0] >= 0).all()  # refilled between turns
    check_invariants(engine, state)


def test_hand_limit_discards_at_the_end_of_the_turn(cfg):
    engine, state = fresh(cfg)
    set_hand(cfg, state, 0, ["Deer Fern"] * 3 + ["Salal"] * 4)
    step(engine, state, cfg.encode_gather())
    step(engine, state, cfg.encode_take(0))
    step(engine, state, cfg.encode_stop())
    assert state.phase[0] == HAND_LIMIT and state.to_move[0] == 0
    step(engine, state, cfg.encode_discard(sp(cfg, "Salal")))
    assert state.phase[0] == MAIN and state.to_move[0] == 1
    check_invariants(engine, state)


def test_emptying_the_deck_ends_the_round_at_once(cfg):
    engine, state = fresh(cfg)
    # leave one card in the deck: the rest goes to the discard pile
    top, end = int(state.deck_top[0]), int(state.deck_end[0])
    for card in state.deck[0, top:end - 1]:
        state.discard[0, card] += 1
    state.deck_top[0] = end - 1
    set_region(cfg, engine, state, 1, 0, ["Salal"])
    pool = int(state.discard[0].sum()) + 3 + cfg.tucked(2)  # discard, nursery, first tucked pile
    step(engine, state, cfg.encode_gather())
    step(engine, state, cfg.encode_take(cfg.deck_source))
    assert state.rounds_ended[0] == 1 and state.resets[0] == 1
    assert state.tucked[0, 0].sum() == 0 and state.tucked[0, 1].sum() == cfg.tucked(2)
    assert int(state.deck_end[0] - state.deck_top[0]) == pool - 3  # the new nursery came from the new deck
    first = int(state.round_visitors[0, 0])
    won = state.won[0, :, 0].tolist()
    measure = engine.measures(state, np.array([0]))[0, :, first]
    if measure[0] != measure[1]:
        assert won[int(np.argmax(measure))] == first
    else:
        assert state.carried[0, 0] == first
    assert state.phase[0] == GATHER  # the gather resumes
    check_invariants(engine, state)


def test_scoring_parts_on_a_known_region(cfg):
    engine, state = fresh(cfg)
    set_region(cfg, engine, state, 0, 0, ["Deer Fern", "Western Red Cedar"], energy={"Fireweed": 1})
    set_region(cfg, engine, state, 0, 1, ["Sword Fern"])
    set_region(cfg, engine, state, 0, 2, ["Salal"])
    set_hand(cfg, state, 0, ["Salal", "Salal", "Salal"])
    parts = {k: int(v[0, 0]) for k, v in engine.score_parts(state).items()}
    assert parts["points_plants"] == 1 + 4 + 1 + 2
    assert parts["points_effects"] == 2  # the cedar: 1 per fern (two ferns)
    assert parts["points_energy"] == 1
    assert parts["points_elevation"] == 2 * 1  # low row 2,1,1 -> 1; middle and high empty
    assert parts["points_hand"] == 1  # 3 cards // 2


def test_solo_game_ends_one_turn_after_the_third_round(cfg):
    engine = ReforestEngine(cfg, 1)
    state = engine.init(game_seeds(5, np.arange(20)))
    play_random(engine, state, check=False)
    assert (state.end == 1).all()
    assert (state.turn == state.round3_turn + 2).all()


def play_random(engine, state, check: bool = True, max_turns: int = 600) -> None:
    while not state.done.all():
        capped = ~state.done & (state.turn >= max_turns)
        if capped.any():
            engine.stall(state, capped)
        live = ~state.done
        mask = engine.legal_mask(state)
        assert (mask.any(axis=1) == live).all()
        actions = choose_uniform(mask, uniforms(state.seeds, "test", state.decisions)[:, 0])
        engine.step(state, actions)
        state.decisions[live] += 1
        if check:
            for name, ok in engine.invariants(state).items():
                assert ok.all(), name


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_invariants_hold_under_random_play(cfg, players):
    engine = ReforestEngine(cfg, players)
    state = engine.init(game_seeds(11, np.arange(12)))
    play_random(engine, state)
    results = engine.results(state)
    assert (results.end == 1).all() and (results.game_columns["rounds_ended"] == 3).all()
    assert (results.score == sum(results.seat_columns[f"points_{p}"] for p in
                                 ("plants", "effects", "energy", "visitors", "elevation", "hand"))).all()


def test_batch_size_does_not_change_a_game(cfg):
    engine = ReforestEngine(cfg, 3)
    seeds = game_seeds(21, np.arange(16))
    together = engine.init(seeds)
    play_random(engine, together, check=False)
    for index in (0, 7, 15):
        alone = engine.init(seeds[index:index + 1])
        play_random(engine, alone, check=False)
        assert engine.snapshot(alone, 0) == engine.snapshot(together, index)


def test_events_follow_the_game(cfg):
    engine = ReforestEngine(cfg, 2)
    state = engine.init(game_seeds(2, np.arange(4)))
    play_random(engine, state, check=False)
    events = engine.events(state, None)
    plays = events["event"] == "play"
    results = engine.results(state)
    for game in range(4):
        mine = events["game"] == game
        for seat in range(2):
            assert ((mine & plays & (events["seat"] == seat)).sum()
                    == results.seat_columns["cards_played"][game, seat])
        assert (mine & (events["event"] == "round_end")).sum() == 3


@pytest.mark.parametrize("players", [1, 3])
def test_events_name_what_each_effect_gave_and_each_visitor_scored(cfg, players):
    """Per-item events: the cards the effects gave (``gave`` on effect rows, ``effect`` on the draw and store rows)
    add up to each seat's cards drawn and stored, and the visitors' ``points`` to its points_visitors."""
    engine = ReforestEngine(cfg, players)
    state = engine.init(game_seeds(5, np.arange(6)))
    play_random(engine, state, check=False)
    events = engine.events(state, None)
    results = engine.results(state)
    given = np.isin(events["event"], ["draw", "store"])
    assert (events["effect"][given] != "").all() and (events["effect"][events["event"] == "gather"] == "").all()
    for game in range(6):
        for seat in range(players):
            mine = (events["game"] == game) & (events["seat"] == seat)
            cards = results.seat_columns["cards_drawn"][game, seat] + results.seat_columns["cards_stored"][game, seat]
            assert events["gave"][mine].sum() == (mine & given).sum() == cards
            won = mine & (events["event"] == "visitor") & (events["amount"] == 1)
            assert events["points"][mine].sum() == events["points"][won].sum()
            assert events["points"][won].sum() == results.seat_columns["points_visitors"][game, seat]


def test_plays_at_end_follow_each_space_through_its_covers():
    """Space 0 of seat 0: A, then B covers A into energy, then C covers B, which stays (half-sun); seat 1 plays D on
    its space 0 between them. A is no plant at the end; C and D are the canopy; B is understory."""
    event = np.array(["play", "play", "pay_hand", "cover", "play", "play", "cover", "gather"])
    table = {"event": event, "game": np.zeros(8, np.int64), "seat": np.array([0, 0, 0, 0, 1, 0, 0, 0], np.int8),
             "space": np.array([0, 0, -1, 0, 0, 0, 0, -1], np.int8), "amount": np.array([0, 0, 0, 1, 0, 0, 0, 0])}
    face_up, canopy = plays_at_end(table)
    assert np.flatnonzero(face_up).tolist() == [1, 4, 5] and np.flatnonzero(canopy).tolist() == [4, 5]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_played_cards_points_add_up_to_its_seats_plants_and_scoring_effects(cfg, players):
    """card_points on play rows: the card's value while it is a plant plus its scoring effect if it ends in the
    canopy; per seat they add up to points_plants + points_effects (seeded random games)."""
    engine = ReforestEngine(cfg, players)
    state = engine.init(game_seeds(13, np.arange(8)))
    play_random(engine, state, check=False)
    events = engine.events(state, None)
    results = engine.results(state)
    plays = events["event"] == "play"
    assert not events["card_points"][~plays].any()
    face_up, canopy = plays_at_end(events)
    value = np.array(cfg.value)[[cfg.species_names.index(name) for name in events["played"][plays]]]
    assert (events["card_points"][plays & ~face_up] == 0).all() and (~face_up[plays]).any()
    assert (events["card_points"][plays] > np.where(face_up[plays], value, 0)).any()  # some scoring effects
    for game in range(8):
        for seat in range(players):
            mine = plays & (events["game"] == game) & (events["seat"] == seat)
            assert events["card_points"][mine].sum() == (results.seat_columns["points_plants"][game, seat]
                                                         + results.seat_columns["points_effects"][game, seat])


def test_verify_against_the_reference(cfg):
    pytest.importorskip("sims.reforest.reference")
    from sims.core.bots import RandomBot
    from sims.core.engine import BotSpec, GameDefinition
    from sims.reforest import bots, reference, reference_bots
    from sims.reforest.rules import describe_action
    from sims.registry import register
    from sims.verify import verify

    register(GameDefinition(
        name="reforest_batched_check", title="Reforest", player_counts=(1, 2, 3, 4), load_config=reforest.load,
        batched=lambda c, p: ReforestEngine(c, p), reference=lambda c, p, seed: reference.ReforestGame(c, p, seed),
        bots={"random": BotSpec("random", RandomBot, reference_bots.ReferenceRandomBot),
              "greedy": BotSpec("greedy", bots.GreedyBot, reference_bots.ReferenceGreedyBot)},
        render_reference=lambda game: str(game.snapshot()),
        describe_action=lambda game, action: describe_action(game.config, action),
        max_turns=lambda c: c.max_turns))
    for players in (1, 2, 3, 4):
        for labels, games in ((["random"] * players, 30), (["greedy"] + ["random"] * (players - 1), 8)):
            report = verify("reforest_batched_check", cfg, players, games, seed=players, bot_labels=labels)
            assert report.ok, report.format()


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_choose_uniform_picks_what_a_uniform_choice_over_the_legal_mask_picks(players):
    """The random bot's fast chooser counts legal actions per phase; it must agree with the full mask."""
    engine = ReforestEngine(reforest.load(), players)
    state = engine.init(game_seeds(11, np.arange(48)))
    for _ in range(400):
        rows = np.nonzero(~state.done)[0]
        if rows.size == 0:
            break
        u = uniforms(state.seeds[rows], "check", state.decisions[rows])[:, 0]
        fast = engine.choose_uniform(state, rows, u)
        assert np.array_equal(fast, choose_uniform(engine.legal_mask_rows(state, rows), u))
        actions = np.full(state.size, -1, dtype=np.int64)
        actions[rows] = fast
        engine.step(state, actions)
        state.decisions[rows] += 1


@pytest.mark.parametrize("players, extra", [(1, None), (2, None), (3, "[0, 2, 1, 0]"), (4, "[1, 0, 0, 2]")])
def test_deal_events_name_each_starting_hand_card_in_both_engines(players, extra):
    """Each card dealt into a starting hand is a ``deal`` row (seat, species, source the deck, amount 1) before any
    decision, in deck order, the same rows in the batched and the reference engine; they add up to the hands."""
    from sims.reforest import GAME
    from sims.reforest.reference import ReforestGame

    config = GAME.load_config(None, [f"hand.start_extra={extra}"] if extra else [])
    engine = ReforestEngine(config, players)
    seeds = game_seeds(8, np.arange(5))
    state = engine.init(seeds)
    hands = state.hand.copy()
    play_random(engine, state, check=False)
    events = engine.events(state, None)
    names = np.array(config.species_names)
    for game in range(seeds.size):
        mine = np.flatnonzero(events["game"] == game)
        dealt = mine[events["event"][mine] == "deal"]
        assert (dealt == mine[:dealt.size]).all()  # the deal rows come first
        reference = ReforestGame(config, players, int(seeds[game]))
        logged = [e for e in reference.events if e["event"] == "deal"]
        assert len(logged) == dealt.size == sum(config.hand_size(p) for p in range(players))
        for row, expected in zip(dealt, logged):
            assert {k: (events[k][row].item() if isinstance(events[k][row], np.generic) else events[k][row])
                    for k in expected} == expected
        for seat in range(players):
            held = events["species"][dealt][events["seat"][dealt] == seat]
            assert sorted(held) == sorted(np.repeat(names, hands[game, seat]))
