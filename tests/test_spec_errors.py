"""Config problems: one line naming the file and the key, from the library and the command line."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from analysis.cli import main
from sims.core.spec import ConfigError
from tests import toy_game

GOOD = toy_game.TOY_TOML.read_text()


def write(tmp_path, text: str):
    path = tmp_path / "toy.toml"
    path.write_text(text)
    return path


CASES = {
    "wrong type": (GOOD.replace("goal = 12", 'goal = "far"'), (), ["race.goal", "an integer", "'far'"]),
    "unknown key": (GOOD.replace("bump = true", "bump = true\nspeed = 3"), (), ["race.speed", "known keys"]),
    "out of range": (GOOD.replace("die_sides = 6", "die_sides = 99"), (), ["race.die_sides", "from 2 to 20", "99"]),
    "missing key": (GOOD.replace("die_sides = 6", ""), (), ["race.die_sides", "to be set"]),
    "syntax error": (GOOD.replace("[limits]", "[limits"), (), ["(syntax)", "valid TOML"]),
    "bad --set syntax": (GOOD, ("race.goal",), ["--set", "race.goal", "KEY=VALUE"]),
    "--set unknown key": (GOOD, ("race.speed=3",), ["--set race.speed=3", "race.speed"]),
    "--set wrong type": (GOOD, ("race.bump=3",), ["race.bump", "true or false", "3"]),
    "--set out of range": (GOOD, ("limits.max_turns=0",), ["limits.max_turns", "from 1", "got 0"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_errors_name_file_and_key(tmp_path, case):
    text, overrides, fragments = CASES[case]
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        toy_game.load(path, overrides)
    message = str(error.value)
    assert "\n" not in message
    if not case.startswith("bad --set"):
        assert str(path) in message or message.startswith("--set ")
    for fragment in fragments:
        assert fragment in message, message

    args = ["play", "toy", "--games", "1", "--seed", "1", "--bots", "greedy,random", "--out", str(tmp_path / "run"),
            "--config", str(path)] + [x for o in overrides for x in ("--set", o)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.strip() == f"error: {message}"


def test_missing_config_file(tmp_path):
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(ConfigError, match=f"^{missing}: \\(file\\): expected an existing TOML file$"):
        toy_game.load(missing)
    result = CliRunner().invoke(main, ["verify", "toy", "--config", str(missing)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {missing}: (file): expected an existing TOML file"


def test_set_may_index_a_list_of_tables():
    from sims.core.spec import apply_overrides

    raw = {"kinds": [{"name": "pig", "count": 12}, {"name": "crow", "count": 12}], "board": {"rows": 7}}
    assert apply_overrides(raw, ["kinds[1].count=3"], "f.toml")["kinds"][1] == {"name": "crow", "count": 3}
    assert raw["kinds"][1]["count"] == 12  # the original is untouched


@pytest.mark.parametrize("text, fragment", [
    ("kinds[5].count=1", "kinds[5]: expected an index below 2"),
    ("board[0]=1", "board[0]: expected a list of f.toml to index"),
    ("kinds[0].cnt=1", "kinds[0].cnt: expected a key of f.toml"),
    ("kinds[x].count=1", "kinds[x]: expected the name of an item of the list in f.toml: pig, crow"),
    ("kinds[a]b.count=1", "kinds[a]b: expected a key such as board.rows or kinds[2].count"),
])
def test_bad_list_indices_name_the_key(text, fragment):
    from sims.core.spec import apply_overrides

    raw = {"kinds": [{"name": "pig", "count": 12}, {"name": "crow", "count": 12}], "board": {"rows": 7}}
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        apply_overrides(raw, [text], "f.toml")


def test_set_names_a_list_item_by_its_name():
    from sims.core.spec import apply_overrides

    raw = {"kinds": [{"name": "pig", "count": 12}, {"name": "Douglas Fir", "count": 4}]}
    assert apply_overrides(raw, ["kinds[Douglas Fir].count=2"], "f.toml")["kinds"][1]["count"] == 2
    assert apply_overrides(raw, ["kinds[ pig ].count=3"], "f.toml")["kinds"][0]["count"] == 3


def test_errors_in_a_named_list_item_name_the_item():
    from sims.core.spec import Int, List, Record, Str, validate

    schema = {"kinds": List(Record({"name": Str(), "cost": Int(0, 5)}))}
    raw = {"kinds": [{"name": "pig", "cost": 1}, {"name": "Douglas Fir", "cost": 9}]}
    with pytest.raises(ConfigError, match=re.escape("kinds[1] (Douglas Fir).cost: expected an integer from 0 to 5, "
                                                    "got 9")):
        validate(raw, schema, "f.toml")
