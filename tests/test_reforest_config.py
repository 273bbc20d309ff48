"""Reforest's config: the shipped content, the cross-checks, the geometry and the action numbering."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.spec import ConfigError, default_config_path
from sims.reforest import config as reforest
from sims.reforest.config import EFFECT_KINDS, ROW_SPACES, SPACES


@pytest.fixture(scope="module")
def cfg() -> reforest.ReforestConfig:
    return reforest.load()


def test_shipped_config_has_the_rulebook_counts(cfg):
    assert cfg.total_cards == 91
    assert len(cfg.card_species) == 91
    assert cfg.num_visitors == 10
    assert [cfg.deck_size(p) for p in (1, 2, 3, 4)] == [30, 50, 70, 90]
    assert [cfg.tucked(p) for p in (1, 2, 3, 4)] == [6, 8, 10, 12]
    assert (cfg.hand_start, cfg.nursery_size, cfg.gather_cards, cfg.hand_limit) == (5, 3, 2, 7)


def test_shipped_species_use_every_effect_kind(cfg):
    used = {s.effect.kind for s in cfg.species}
    assert used == set(EFFECT_KINDS)


def test_shipped_action_count_matches_the_docstring(cfg):
    assert cfg.num_species == 31 and cfg.nursery_size == 3
    assert cfg.num_actions == 266
    assert "there are 266 actions" in reforest.__doc__


def test_cards_are_laid_out_species_by_species(cfg):
    first = cfg.species[0].count
    assert (cfg.card_species[:first] == 0).all() and cfg.card_species[first] == 1
    assert np.bincount(cfg.card_species, minlength=cfg.num_species).tolist() == cfg.species_count.tolist()


def test_effect_strings_become_table_rows(cfg):
    vine_maple = cfg.species_names.index("Vine Maple")
    assert EFFECT_KINDS[cfg.effect_kind[vine_maple]] == "scoring_per_row_stack"
    assert (cfg.effect_row[vine_maple], cfg.effect_k[vine_maple], cfg.effect_n[vine_maple]) == (1, 2, 2)
    grape = cfg.species_names.index("Oregon Grape")
    assert cfg.traits[cfg.effect_trait[grape]] == "berries" and cfg.effect_n[grape] == 1
    bunchberry = cfg.species_names.index("Bunchberry")
    assert cfg.effect_kind[bunchberry] == 0 and cfg.effect_trait[bunchberry] == -1


def test_a_low_only_species_may_use_only_low_spaces(cfg):
    salmonberry = cfg.species_names.index("Salmonberry")
    assert cfg.allowed_spaces[salmonberry].tolist() == [True, True, True, False, False, False]


def test_pyramid_adjacency_and_payment_spaces(cfg):
    adjacent = cfg.adjacent
    assert (adjacent == adjacent.T).all() and not adjacent.diagonal().any()
    assert np.nonzero(adjacent[3])[0].tolist() == [0, 1, 4, 5]
    assert np.nonzero(adjacent[5])[0].tolist() == [3, 4]
    assert np.nonzero(adjacent[0])[0].tolist() == [1, 3]
    assert np.nonzero(cfg.payment_spaces[1])[0].tolist() == [0, 1, 2, 3, 4]
    assert sorted(s for row in ROW_SPACES for s in row) == list(range(SPACES))


def test_encode_decode_round_trip_over_the_whole_range(cfg):
    seen = set()
    for action in range(cfg.num_actions):
        block, fields = cfg.decode(action)
        assert cfg.encode(block, fields) == action
        seen.add(block)
    assert seen == set(reforest.BLOCKS)
    assert cfg.decode(cfg.encode_play(4, 5)) == ("play", (4, 5))
    assert cfg.decode(cfg.encode_take(cfg.deck_source)) == ("take", (3,))
    assert cfg.decode(cfg.encode_solo_discard(0)) == ("solo_discard", (0,))
    with pytest.raises(ValueError):
        cfg.decode(cfg.num_actions)


CROSS_CHECKS = {
    "deck larger than the cards": (["deck.size[3]=92"], ["deck.size[3]", "at most the 91 plant cards", "92"]),
    "deck too small for setup": (["deck.size[0]=20"], ["deck.size[0]", "at least 21 cards", "20"]),
    "unknown effect kind": (['species[0].effect="grow_fast 1"'], ["species[0].effect", "an effect kind", "grow_fast"]),
    "unknown trait in an effect": (['species[0].effect="scoring_per_trait lichen 1"'],
                                   ["species[0].effect", "a trait of cards.traits", "lichen"]),
    "wrong effect arguments": (['species[0].effect="on_play_draw"'], ["species[0].effect", "'on_play_draw N'"]),
    "unknown row in an effect": (['species[0].effect="scoring_per_row_stack top 1 1"'],
                                 ["species[0].effect", "a row (low, middle, high)"]),
    "effect number below 1": (['species[0].effect="on_play_draw 0"'], ["species[0].effect", "N an integer"]),
    "unknown species trait": (['species[1].traits=["lichen"]'], ["species[1] (Oregon Oxalis).traits[0]", "a trait of cards.traits"]),
    "duplicate species name": (['species[1].name="Step Moss"'], ["species[1].name", "a name used only once"]),
    "unknown visitor measure": (['visitors[0].goal="biggest"'], ["visitors[0].goal", "a measure"]),
    "unknown trait in a goal": (['visitors[0].solo_goal="trait lichen"'], ["visitors[0].solo_goal", "lichen"]),
    "bad trait name": (['cards.traits=["Berries"]'], ["cards.traits[0]", "a lowercase name"]),
    "reversed target turns": (["report.target_turns=[9, 3]"], ["report.target_turns", "shortest <= longest"]),
    "unknown difficulty": (['solitaire.difficulty="nightmare"'], ["solitaire.difficulty", "standard, hard"]),
}


@pytest.mark.parametrize("case", sorted(CROSS_CHECKS))
def test_cross_checks_raise_one_line_errors_naming_file_and_key(case):
    overrides, fragments = CROSS_CHECKS[case]
    with pytest.raises(ConfigError) as error:
        reforest.load(overrides=overrides)
    message = str(error.value)
    assert "\n" not in message
    assert str(default_config_path("reforest")) in message
    for fragment in fragments:
        assert fragment in message, message


def test_missing_bot_weight_is_named(tmp_path):
    text = default_config_path("reforest").read_text().replace("[bots.greedy]\npoints = 1.0\n", "[bots.greedy]\n")
    path = tmp_path / "reforest.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"bots\.greedy\.points: expected a number"):
        reforest.load(path)
