"""The data dictionary: every column a run writes is described, no description lacks a column, docs are current."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sims.core.columns import dictionary, format_markdown
from sims.registry import game_names, get_game
from sims.runner import load_events, load_records, load_trajectories, run
from sims.runspec import RunSpec
from tests.cli_helpers import glade

ROOT = Path(__file__).resolve().parents[1]
GAMES = [name for name in game_names() if dictionary(name) is not None]


def _shipped_games() -> list[str]:
    """The registry's games that are packages of ``sims`` (tests register toy games beside them)."""
    return [name for name in game_names() if importlib.util.find_spec(f"sims.{name}") is not None]


def test_every_game_of_sims_has_a_dictionary():
    assert GAMES == _shipped_games()
    assert set(GAMES) == {"overgrowth", "reforest", "vora", "vorex"}


@pytest.mark.parametrize("name", GAMES)
def test_the_columns_a_run_writes_are_exactly_the_described_ones(tmp_path, name):
    game = get_game(name)
    players = min(game.player_counts)
    run(RunSpec(name, game.load_config(None, ()), ["random"], players, 5, trajectories=True), 3, tmp_path,
        progress=None)
    columns = dictionary(name)
    assert columns.kinds == ("records", "events", "trajectories")
    for kind, frame in (("records", load_records(tmp_path)), ("events", load_events(tmp_path)),
                        ("trajectories", load_trajectories(tmp_path))):
        written = {column: str(dtype) for column, dtype in frame.schema.items()}
        described = {column.name: column.type for column in columns.table(kind)}
        assert written == described, kind
        assert list(written) == list(described), f"{kind}: the order of the columns"
        schema = pq.ParquetFile(next((tmp_path / kind).glob("*.parquet"))).schema_arrow
        for field in schema:
            assert field.metadata[b"description"].decode() == columns.descriptions(kind)[field.name]


def test_codes_name_every_end_reason():
    for name in GAMES:
        end = next(c for c in dictionary(name).records if c.name == "end")
        engine = get_game(name).batched(get_game(name).load_config(None, ()), min(get_game(name).player_counts))
        assert set(end.codes) == set(engine.end_reasons) - {""}, name


def test_columns_follow_the_config():
    vora = get_game("vora")
    config = vora.load_config(None, ("kinds[0].name=boar",))
    names = [c.name for c in dictionary("vora", config).records]
    assert "farm_boar" in names and "farm_pig" not in names


def test_docs_columns_md_is_current():
    current = format_markdown([dictionary(name) for name in GAMES])
    assert (ROOT / "docs" / "columns.md").read_text() == current, \
        "docs/columns.md is stale: glade columns --all --markdown > docs/columns.md"


def test_glade_columns_prints_text_and_json():
    text = glade("columns", "reforest")
    assert text.exit_code == 0, text.output
    assert "source" in text.output and "3 = the deck" in text.output
    data = json.loads(glade("columns", "vorex", "--json").output)
    assert data["game"] == "vorex" and {"name", "type", "meaning", "unit", "codes"} <= set(data["records"][0])
    assert glade("columns", "chess").exit_code == 2
