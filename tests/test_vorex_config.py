"""Vorex config: the shipped content, every cross-check, the hex geometry and the action numbering."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sims.core.spec import ConfigError, LoadedConfig, default_config_path, read_toml, validate
from sims.vorex import config as vc


@pytest.fixture(scope="module")
def cfg() -> vc.VorexConfig:
    return vc.load()


def test_shipped_content_follows_the_rulebook_counts(cfg):
    starting = [t for t in cfg.tiles if t.starting]
    assert len(starting) == 4 and sum(t.first_player for t in starting) == 1
    first = next(t for t in starting if t.first_player)
    assert sum(first.beetles) > 0
    others = [t for t in starting if not t.first_player]
    assert len({(t.shape, t.hexes, t.beetles) for t in others}) == 1  # three identical
    assert all(sum(h.kind == "light" for h in t.hexes) == 1 for t in starting)
    assert len(cfg.level0_tiles) == 4
    for level in (1, 2, 3):
        marks = sorted(t.players for t in cfg.tiles if t.level == level)
        assert marks == [2, 2, 2, 2, 3, 4]
    assert [cfg.pile_size(p) for p in (1, 2, 3, 4)] == [12, 12, 15, 18]
    assert cfg.supply == (24, 19, 19, 19) and cfg.start_light == 4 and cfg.easy_start_light == 6
    assert cfg.flowers == 13 and cfg.weed_flowers == 13
    assert all(len(t.hexes) == 4 and len(t.beetles) == 4 and sum(t.beetles) <= 3 for t in cfg.tiles)


def test_costs_grow_with_level(cfg):
    def mean_cost(level):
        costs = [sum(h.cost) for t in cfg.tiles if t.level == level and not t.starting for h in t.hexes
                 if h.kind != "arid"]
        return sum(costs) / len(costs)

    assert mean_cost(0) < mean_cost(1) < mean_cost(2) < mean_cost(3)


def test_setup_takes_reminders_and_starting_light_from_the_supply(cfg):
    assert cfg.initial_supply(4) == (24 - 16, 15, 15, 15)
    assert cfg.initial_supply(1) == (20, 18, 18, 18)  # one board: the weed has none
    easy = vc.load(overrides=["solo.easy=true"])
    assert easy.initial_supply(1)[0] == 18 and easy.initial_supply(2)[0] == 16
    assert cfg.seats(1) == 2 and cfg.seats(3) == 3


def test_starting_tiles_first_player_tile_first(cfg):
    assert cfg.tiles[cfg.starting_tiles[0]].first_player
    assert [t for t in cfg.starting_tiles[1:]] == sorted(cfg.starting_tiles[1:])


def test_solo_name_words_and_boundaries(cfg):
    assert cfg.solo_name(29, 4, 0, 0) == "Small Dandelion Common of the meadows"
    assert cfg.solo_name(30, 5, 5, 2) == "Large Thistle Creeping of the thickets"
    assert cfg.solo_name(38, 10, 12, 7) == "Monstrous Bramble Invasive of the devil"
    easy = vc.load(overrides=["solo.easy=true"])
    assert easy.solo_name(35, 9, 9, 5) == "Formidable Thistle Creeping of the witches of grandma's"


# --- geometry ----------------------------------------------------------------------


def _canonical(cells) -> tuple:
    """A shape's cells up to translation, rotation and reflection."""
    best = None
    for mirrored in (False, True):
        base = [(r, q) if mirrored else (q, r) for q, r in cells]
        for turns in range(6):
            turned = [vc.rotate(c, turns) for c in base]
            mq, mr = min(q for q, _ in turned), min(r for _, r in turned)
            key = tuple(sorted((q - mq, r - mr) for q, r in turned))
            best = key if best is None or key < best else best
    return best


def test_the_seven_shapes_are_the_seven_tetrahexes(cfg):
    assert len(cfg.shapes) == 7
    assert len({_canonical(cells) for cells in cfg.shapes.values()}) == 7


def test_rotations_are_six_distinct_or_symmetric_placements(cfg):
    expected_distinct = {"bar": 3, "bee": 3, "propeller": 2, "arch": 6, "pistol": 6, "wave": 3, "worm": 6}
    for s, name in enumerate(cfg.shape_names):
        sets = set()
        for k in range(6):
            cells = [tuple(int(x) for x in c) for c in cfg.shape_offsets[s, k]]
            assert cells[0] == (0, 0)
            mq, mr = min(q for q, _ in cells), min(r for _, r in cells)
            sets.add(frozenset((q - mq, r - mr) for q, r in cells))
        assert len(sets) == expected_distinct[name], name
        assert vc.rotate((2, -1), 6) == (2, -1)


def test_rotation_turns_each_direction_into_the_next(cfg):
    for d, step in enumerate(vc.DIRECTIONS):
        assert vc.rotate(step, 1) == vc.DIRECTIONS[(d + 1) % 6]


def test_hex_numbering_playable_first_then_ring(cfg):
    p, h = cfg.playable, cfg.window
    assert (p, h) == (169, 217)
    assert all(vc.distance(*cfg.hex_coords[i]) <= cfg.radius for i in range(p))
    assert all(vc.distance(*cfg.hex_coords[i]) == cfg.radius + 1 for i in range(p, h))
    assert cfg.hex_coords[0] == (0, -7) and cfg.hex_coords[cfg.centre] == (0, 0)


def test_neighbour_table_is_symmetric(cfg):
    table = cfg.neighbours
    for h, d in itertools.product(range(cfg.window), range(6)):
        n = int(table[h, d])
        if n >= 0:
            assert table[n, (d + 3) % 6] == h
    assert (table[: cfg.playable] >= 0).all()  # playable hexes are surrounded by the window
    assert (table[cfg.playable:] < 0).any(axis=1).all()  # every ring hex touches the outside


def test_placement_cells_follow_anchor_and_rotation(cfg):
    bar = cfg.shape_names.index("bar")
    assert tuple(cfg.placement_cells[bar, cfg.centre, 0]) == tuple(
        cfg.hex_number[(q, 0)] for q in range(4))
    # rotation 1 sends E to SE: the bar runs down-right
    assert tuple(cfg.placement_cells[bar, cfg.centre, 1]) == tuple(
        cfg.hex_number[(0, r)] for r in range(4))
    east_edge = cfg.hex_number[(7, -3)]
    assert (cfg.placement_cells[bar, east_edge, 0] == -1).sum() == 3
    tile = next(i for i, t in enumerate(cfg.tiles) if t.shape == "bar")
    assert cfg.placement_hexes(tile, east_edge, 0) is None
    assert cfg.placement_hexes(tile, cfg.centre, 3) == tuple(cfg.hex_number[(-q, 0)] for q in range(4))


def test_tile_tables(cfg):
    t = len(cfg.tiles)
    assert cfg.tile_hex_kind.shape == (t, 4) and cfg.tile_hex_cost.shape == (t, 4, 3)
    points = cfg.tile_hex_kind == vc.POINTS
    assert (cfg.tile_hex_value[points] >= 1).all() and (cfg.tile_hex_value[~points] == 0).all()
    assert (cfg.tile_hex_cost[cfg.tile_hex_kind == vc.ARID] == 0).all()
    light = cfg.tile_hex_kind == vc.LIGHT
    assert light.any(axis=1).sum() == 4


# --- action numbering ----------------------------------------------------------------


def test_action_count_with_defaults(cfg):
    assert cfg.num_actions == 169 + 3 * 169 * 6 + 2 == 3213
    assert cfg.offsets == {"bloom": 0, "place": 169, "draw": 3211, "decline": 3212}


def test_encode_decode_round_trip_over_the_whole_range(cfg):
    for action in range(cfg.num_actions):
        block, fields = cfg.decode(action)
        if block == "bloom":
            assert cfg.encode_bloom(*fields) == action and fields[0] < cfg.playable
        elif block == "place":
            slot, anchor, rotation = fields
            assert slot < 3 and anchor < cfg.playable and rotation < 6
            assert cfg.encode_place(slot, anchor, rotation) == action
        else:
            assert action == (cfg.draw_action if block == "draw" else cfg.decline_action)
    with pytest.raises(ValueError):
        cfg.decode(cfg.num_actions)


# --- cross-checks ----------------------------------------------------------------------

TEXT_CASES = {
    "shape anchor": ('bar = [[0, 0], [1, 0]', 'bar = [[1, 0], [0, 0]', "shapes.bar", "anchor"),
    "shape not connected": ("worm = [[0, 0], [1, 0], [2, 0], [2, 1]]", "worm = [[0, 0], [1, 0], [2, 0], [3, 1]]",
                            "shapes.worm", "edge-connected"),
    "shape repeats a hex": ("wave = [[0, 0], [1, 0], [1, 1], [2, 1]]", "wave = [[0, 0], [1, 0], [1, 1], [1, 0]]",
                            "shapes.wave", "distinct"),
    "unknown bot kind": ("[bots.planner]", "[bots.clever]", "bots.clever", "a bot kind"),
}

OVERRIDE_CASES = {
    "unknown shape": ('tiles[4].shape="blob"', "tiles[4].shape", "one of the shapes"),
    "tile name": ('tiles[5].name="Big Tile"', "tiles[5].name", "lowercase"),
    "duplicate tile name": ('tiles[5].name="l0_worm"', "tiles[5].name", "no other tile"),
    "starting tile level": ("tiles[1].level=1", "tiles[1].level", "0 for a starting tile"),
    "points without value": ("tiles[8].hexes[2].value=0", "tiles[8].hexes[2].value", "at least 1"),
    "light off start": ('tiles[4].hexes[0].kind="light"', "tiles[4].hexes[0].kind", "only on starting tiles"),
    "start without light": ('tiles[1].hexes[0].kind="mushroom"', "tiles[1].hexes", "exactly one light"),
    "too few level-0 tiles": ("tiles[4].level=1", "tiles", "at least 4 level-0 tiles"),
    "too little light": ("resources.supply.light=15", "resources.supply.light", "at least 16"),
    "too few reminders": ("resources.supply.water=3", "resources.supply.water", "production reminder"),
    "target turns": ("report.target_turns=[50, 10]", "report.target_turns", "shortest <= longest"),
    "name thresholds": ("solo.names.brown_thresholds=[0, 10, 5]", "solo.names.brown_thresholds", "ascending"),
    "name thresholds start": ("solo.names.green_thresholds=[1, 5, 10]", "solo.names.green_thresholds",
                              "starting at 0"),
    "name words": ('solo.names.total_words=["Small"]', "solo.names.total_words", "4 words"),
    "objective": ('objectives.brown="none"', "objectives.brown", "one of random"),
    "bad cost resource": ('tiles[4].hexes[0].cost=["light"]', "tiles[4] (l0_worm).hexes[0].cost[0]", "one of mushroom"),
}


# Cross-checks on keys the shipped file leaves at their defaults (--set only changes existing keys).
EDIT_CASES = {
    "first player off start": (lambda raw: raw["tiles"][4].update(first_player=True), "tiles[4] (l0_worm).first_player",
                               "starting tile"),
    "mark on level 0": (lambda raw: raw["tiles"][4].update(players=3), "tiles[4] (l0_worm).players", "levels 1 to 3"),
    "arid with cost": (lambda raw: raw["tiles"][1]["hexes"][1].update(cost=["water"]), "tiles[1] (start_b).hexes[1].cost",
                       "no cost on an arid"),
    "value off points": (lambda raw: raw["tiles"][4]["hexes"][0].update(value=2), "tiles[4] (l0_worm).hexes[0].value",
                         "only points stumps"),
    "two first players": (lambda raw: raw["tiles"][1].update(first_player=True), "tiles", "exactly one starting tile"),
}


def _one_line(error: ConfigError, *fragments: str) -> None:
    text = str(error)
    assert "\n" not in text and "vorex" in text, text
    for fragment in fragments:
        assert fragment in text, text


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_cross_checks_on_edited_files(tmp_path, case):
    old, new, key, expected = TEXT_CASES[case]
    text = default_config_path("vorex").read_text()
    assert old in text
    path = tmp_path / "vorex.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as error:
        vc.load(path)
    _one_line(error.value, key, expected)


@pytest.mark.parametrize("case", sorted(OVERRIDE_CASES))
def test_cross_checks_on_overrides(case):
    override, key, expected = OVERRIDE_CASES[case]
    with pytest.raises(ConfigError) as error:
        vc.load(overrides=[override])
    _one_line(error.value, key, expected)


@pytest.mark.parametrize("case", sorted(EDIT_CASES))
def test_cross_checks_on_edited_values(case):
    edit, key, expected = EDIT_CASES[case]
    path = default_config_path("vorex")
    raw = read_toml(path)
    edit(raw)
    with pytest.raises(ConfigError) as error:
        vc.build(LoadedConfig(values=validate(raw, vc.SCHEMA, str(path)), source=str(path)))
    _one_line(error.value, key, expected)


def test_missing_greedy_weight(tmp_path):
    text = default_config_path("vorex").read_text()
    path = tmp_path / "vorex.toml"
    path.write_text(text.replace("light = 0.1\ntiles = 0.2\n\n# The planner", "tiles = 0.2\n\n# The planner", 1))
    with pytest.raises(ConfigError) as error:
        vc.load(path)
    _one_line(error.value, "bots.greedy.light", "a number")


def test_too_few_starting_tiles():
    with pytest.raises(ConfigError) as error:
        vc.load(overrides=["tiles[3].starting=false", 'tiles[3].hexes[0].kind="mushroom"'])
    _one_line(error.value, "tiles", "at least 4 starting tiles")


def test_overrides_that_keep_the_rules_load():
    tuned = vc.load(overrides=["map.radius=5", 'objectives.green="none"', "tiles[8].hexes[2].value=5"])
    assert tuned.playable == 91 and tuned.num_actions == 19 * 91 + 2
    assert tuned.green == "none" and tuned.tiles[8].hexes[2].value == 5
    assert np.array_equal(tuned.tile_hex_kind, vc.load().tile_hex_kind)


@pytest.mark.parametrize("kept", [0, 1])
def test_a_forest_smaller_than_the_two_face_up_tiles_is_refused(kept):
    path = default_config_path("vorex")
    raw = read_toml(path)
    forest = [t for t in raw["tiles"] if t.get("level", 0) >= 1 and t.get("players", 2) == 2]
    raw["tiles"] = [t for t in raw["tiles"] if t.get("level", 0) == 0] + forest[:kept]
    with pytest.raises(ConfigError) as error:
        vc.build(LoadedConfig(values=validate(raw, vc.SCHEMA, str(path)), source=str(path)))
    _one_line(error.value, "tiles", "at least 2 forest tiles", f"got {kept}")
    raw["tiles"] += forest[kept:2]  # the minimum loads
    assert vc.build(LoadedConfig(values=validate(raw, vc.SCHEMA, str(path)), source=str(path))).pile_size(2) == 2


def test_marking_the_forest_for_more_players_is_refused_on_the_command_line():
    cfg = vc.load()
    two_player = [i for i, t in enumerate(cfg.tiles) if t.level >= 1 and t.players == 2]
    overrides = [f"tiles[{i}].players=3" for i in two_player[1:]]
    with pytest.raises(ConfigError) as error:
        vc.load(overrides=overrides)
    _one_line(error.value, "tiles", "at least 2 forest tiles", "got 1")
