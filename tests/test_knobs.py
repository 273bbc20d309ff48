"""The balancing variants (docs/rules/<game>.md, "Variants for balancing"): each knob's
starting position is the documented one in both engines, the engines' snapshots agree at
the start, the default is the rulebook's game, and a bad value is one ConfigError naming
the key and its range."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.registry import get_game

SEEDS = game_seeds(21, np.arange(3))


def start_positions(name: str, players: int, overrides: list[str]) -> tuple[object, object, list]:
    """(config, batched state, reference games) at the start of three seeded games."""
    game = get_game(name)
    config = game.load_config(None, overrides)
    state = game.batched(config, players).init(SEEDS)
    references = [game.reference(config, players, int(seed)) for seed in SEEDS]
    return config, state, references


def assert_snapshots_agree(name: str, players: int, overrides: list[str]) -> None:
    game = get_game(name)
    config, state, references = start_positions(name, players, overrides)
    engine = game.batched(config, players)
    for index, reference in enumerate(references):
        assert engine.snapshot(state, index) == reference.snapshot()


# --- Overgrowth: seat 1's head start --------------------------------------------------------


def test_overgrowth_head_start_puts_seat_1_flowers_on_the_middle_column():
    config, state, references = start_positions("overgrowth", 2, ["setup.head_start=2"])
    assert config.head_start == (5 * 7 + 3, 4 * 7 + 3)  # cells (5, 3) and (4, 3) of the 7x7 board
    expected = np.uint64((1 << 38) | (1 << 31))
    assert (state.stones[:, 1] == expected).all() and (state.stones[:, 0] == 0).all()
    assert (state.supply == [25, 23]).all() and (state.placed == [0, 2]).all()
    board = references[0].board
    assert [c for c, owner in enumerate(board) if owner == 1] == [31, 38]
    assert references[0].supply == [25, 23] and references[0].flowers_placed(1) == 2
    assert references[0].legal_actions() == [2, 3, 4]  # seat 0's first turn is unchanged: its shaded area


def test_overgrowth_head_start_snapshots_agree_and_default_is_empty():
    assert_snapshots_agree("overgrowth", 2, ["setup.head_start=4", "rules.flowers=30"])
    config, state, _ = start_positions("overgrowth", 2, [])
    assert config.head_start == () and (state.stones == 0).all() and (state.supply == 25).all()


def test_overgrowth_head_start_follows_the_board_shape():
    config = get_game("overgrowth").load_config(None, ["board.rows=9", "board.columns=5", "setup.head_start=3"])
    assert config.head_start == (7 * 5 + 2, 6 * 5 + 2, 5 * 5 + 2)


def test_overgrowth_head_start_cells_are_placed_as_listed_in_both_engines():
    overrides = ["setup.head_start_cells=[[3, 0], [6, 1]]"]
    config, state, references = start_positions("overgrowth", 2, overrides)
    assert config.head_start == (21, 43)
    assert (state.stones[:, 1] == np.uint64((1 << 21) | (1 << 43))).all() and (state.supply == [25, 23]).all()
    assert [c for c, owner in enumerate(references[0].board) if owner == 1] == [21, 43]
    assert_snapshots_agree("overgrowth", 2, overrides)


@pytest.mark.parametrize("overrides, expected", [
    (["setup.head_start_cells=[[7, 0]]"], "setup.head_start_cells: expected cells inside the 7x7 board"),
    (["setup.head_start_cells=[[6, 2]]"], "setup.head_start_cells: expected cells outside the shaded areas"),
    (["setup.head_start_cells=[[3, 0], [3, 0]]"], "setup.head_start_cells: expected distinct cells"),
    (["setup.head_start_cells=[[3, 0]]", "setup.head_start=1"],
     "setup.head_start: expected 0 when setup.head_start_cells lists the cells, got 1"),
    (["setup.head_start=5"], "setup.head_start: expected an integer from 0 to 4 (board.rows - 3), got 5"),
    (["setup.head_start=-1"], "setup.head_start: expected an integer from 0 to 14, got -1"),
    (["setup.head_start=3", "rules.flowers=3"], "setup.head_start: expected fewer than rules.flowers (3) flowers, got 3"),
    (["setup.head_start=1", "board.shaded_cells=[[[0, 3]], [[5, 3]]]"],
     "setup.head_start: expected cells outside the shaded areas"),
])
def test_overgrowth_head_start_bad_values(overrides, expected):
    with pytest.raises(ConfigError, match=expected.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        get_game("overgrowth").load_config(None, overrides)


# --- Vorex: extra starting light by seat ----------------------------------------------------


def test_vorex_extra_light_by_seat_in_both_engines():
    config, state, references = start_positions("vorex", 3, ["resources.start_light_extra=[0, 1, 2, 3]"])
    assert config.seat_start_light(3) == (4, 5, 6)
    assert (state.resources[:, :, 0] == [4, 5, 6]).all()
    assert (state.supply[:, 0] == 24 - 15).all()  # the extra light comes from the supply
    assert [r[0] for r in references[0].resources] == [4, 5, 6] and references[0].supply[0] == 9
    assert_snapshots_agree("vorex", 3, ["resources.start_light_extra=[0, 1, 2, 3]"])


def test_vorex_extra_light_in_solo_goes_to_the_player_not_the_weed():
    config, state, references = start_positions("vorex", 1, ["resources.start_light_extra=[2, 5, 0, 0]"])
    assert config.seat_start_light(1) == (6, 0)
    assert (state.resources[:, :, 0] == [6, 0]).all() and references[0].resources[1] == [0, 0, 0, 0]
    assert_snapshots_agree("vorex", 1, ["resources.start_light_extra=[2, 5, 0, 0]"])


def test_vorex_default_light_is_the_rulebook_and_bad_values_are_refused():
    assert get_game("vorex").load_config().seat_start_light(4) == (4, 4, 4, 4)
    with pytest.raises(ConfigError, match=r"resources\.start_light_extra: expected a list of 4 items, each an "
                                          r"integer from 0 to 20, got \[0, 1\]"):
        get_game("vorex").load_config(None, ["resources.start_light_extra=[0, 1]"])
    with pytest.raises(ConfigError, match=r"resources\.supply\.light: expected at least 28 \(the starting light "
                                          r"of every player, resources\.start_light_extra included\), got 24"):
        get_game("vorex").load_config(None, ["resources.start_light_extra=[0, 1, 1, 10]"])


# --- Reforest: starting hand by seat --------------------------------------------------------


def test_reforest_hand_by_seat_deals_blocks_in_seat_order():
    overrides = ["hand.start_extra=[0, 2, 1, 0]"]
    config, state, references = start_positions("reforest", 3, overrides)
    assert [config.hand_size(p) for p in range(3)] == [5, 7, 6]
    assert (state.hand.sum(axis=2) == [5, 7, 6]).all()
    assert (state.deck_top == 5 + 7 + 6 + 3 + 2 * config.tucked(3)).all()
    reference = references[0]
    kept, species = reference.shuffled_deck()
    expected = [np.bincount(species[a:b], minlength=config.num_species).tolist() for a, b in ((0, 5), (5, 12), (12, 18))]
    assert reference.hands == expected and reference.nursery == species[18:21]
    assert_snapshots_agree("reforest", 3, overrides)


def test_reforest_default_hand_is_the_rulebook_and_bad_values_are_refused():
    config = get_game("reforest").load_config()
    assert [config.hand_size(p) for p in range(4)] == [5, 5, 5, 5]
    with pytest.raises(ConfigError, match=r"hand\.start_extra\[2\]: expected an integer from 0 to 20, got 21"):
        get_game("reforest").load_config(None, ["hand.start_extra=[0, 0, 21, 0]"])
    with pytest.raises(ConfigError, match=r"deck\.size\[0\]: expected at least 31 cards \(1 players: hands of "
                                          r"\[15\]"):
        get_game("reforest").load_config(None, ["hand.start_extra=[10, 0, 0, 0]"])


# --- Vora: extra farm cubes by seat ---------------------------------------------------------


def test_vora_extra_farm_cubes_by_seat_in_both_engines():
    overrides = ["setup.farm_extra=[0, 1, 3, 0]"]
    config, state, references = start_positions("vora", 3, overrides)
    assert [config.farm_size(p) for p in range(3)] == [2, 2, 4]
    assert (state.farms.sum(axis=2) == [2, 2, 4]).all()
    assert (state.bag_pointer == config.cells + 8).all()
    reference = references[0]
    drawn = reference.bag[config.cells:config.cells + 8]
    expected = [np.bincount(drawn[a:b], minlength=config.num_kinds).tolist() for a, b in ((0, 2), (2, 4), (4, 8))]
    assert reference.farms == expected
    assert_snapshots_agree("vora", 3, overrides)


def test_vora_default_farm_is_the_rulebook_and_bad_values_are_refused():
    config = get_game("vora").load_config()
    assert [config.farm_size(p) for p in range(4)] == [2, 1, 1, 1]
    with pytest.raises(ConfigError, match=r"setup\.farm_extra: expected a list of 4 items, each an integer from 0 "
                                          r"to 16"):
        get_game("vora").load_config(None, ["setup.farm_extra=[1, 1, 1]"])
    with pytest.raises(ConfigError, match=r"kinds: expected at least 133 cubes in all \(meadow and farms at "
                                          r"setup\), got 108"):  # 64 meadow cells + 2 + 1 + 1 + 1 + 4 x 16
        get_game("vora").load_config(None, ["setup.farm_extra=[16, 16, 16, 16]", "meadow.size=8"])


# --- the ready studies that search these knobs ----------------------------------------------


@pytest.mark.parametrize("name, candidates, overrides", [
    ("overgrowth-compensation", 10, ("setup.head_start_cells=[[3, 0]]",)),
    ("overgrowth-head-start-flowers", 8, ("rules.flowers=35", "setup.head_start_cells=[[3, 0]]")),
    ("vorex-later-seats", 3, ("resources.start_light_extra[1]=1",)),
    ("reforest-hand-by-seat", 3, ("hand.start_extra[1]=1",)),
    ("vora-farm", 3, ("setup.farm_extra[1]=1",)),
])
def test_the_knob_studies_build_their_candidates(name, candidates, overrides):
    from analysis import tune

    settings = tune.read_tune_file(f"configs/tune/{name}.toml")
    study = tune.make_study(settings.pop("game"), settings.pop("bots"), settings.pop("players", None),
                            settings.pop("params"), settings.pop("seed"), **settings)
    assert len(study.candidates) == candidates
    assert overrides in [c.overrides for c in study.candidates]
    assert len(tune.candidate_configs(study)) == candidates  # every candidate's config loads
