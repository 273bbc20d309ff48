"""Vora with specials switched off (``special = "none"``) or kinds left out: both engines play it and agree."""

from __future__ import annotations

import tomllib

import pytest

from sims.core.spec import RecordedValues, default_config_path
from sims.verify import verify
from sims.vora import GAME

SPECIALS = ["double_push", "devour", "wolf", "pick_up", "fly_swap", "dig", "grazer", "liquid", "pasture"]


def _default_values() -> dict:
    return tomllib.loads(default_config_path("vora").read_text())


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("special", SPECIALS)
def test_special_switched_off_verifies(special: str, players: int):
    index = next(i for i, kind in enumerate(_default_values()["kinds"]) if kind["special"] == special)
    config = GAME.load_config(None, [f"kinds[{index}].special=none"])
    assert config.kind_with(special) == -1
    report = verify("vora", config, players, 8, seed=players + index)
    assert report.games == 8 and report.ok, report.format()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_five_kinds_verify(players: int):
    """No wolf, ladybug, duck or mole: 5 kinds, whose action numbering is shorter than the default's."""
    values = _default_values()
    values["kinds"] = [k for k in values["kinds"] if k["special"] not in ("wolf", "pick_up", "fly_swap", "dig")]
    config = GAME.load_config(RecordedValues(values, "five kinds"))
    assert config.num_kinds == 5 and config.kind_with("wolf") == -1
    report = verify("vora", config, players, 12, seed=5 + players)
    assert report.games == 12 and report.ok, report.format()


def test_every_special_off_verifies():
    """All nine kinds plain cubes: pushes and collections only."""
    config = GAME.load_config(None, [f"kinds[{i}].special=none" for i in range(9)])
    report = verify("vora", config, 3, 8, seed=3)
    assert report.games == 8 and report.ok, report.format()
