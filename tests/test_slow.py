"""Long checks, left out of `make test`; `make test-all` runs them."""

import pytest
from click.testing import CliRunner

from analysis.cli import main


@pytest.mark.slow
def test_verify_overgrowth_2000_games():
    result = CliRunner().invoke(main, ["verify", "overgrowth", "--games", "2000", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("2000 games, 0 mismatches")


@pytest.mark.slow
def test_overgrowth_run_resumes_to_the_same_records(tmp_path):
    from polars.testing import assert_frame_equal

    from sims.overgrowth import GAME
    from sims.runner import load_records, run
    from sims.runspec import RunSpec

    config = GAME.load_config(None, ())
    spec = RunSpec("overgrowth", config, ("greedy", "random"), 2, 9, rotate_seats=True)
    run(spec, 3000, tmp_path / "whole", batch_size=1000, progress=False)
    run(spec, 3000, tmp_path / "cut", batch_size=700, progress=False)
    for name in sorted((tmp_path / "cut" / "records").iterdir())[1::3]:
        name.unlink()
    assert run(spec, 3000, tmp_path / "cut", batch_size=512, jobs=2, progress=False).played > 0
    assert_frame_equal(load_records(tmp_path / "cut"), load_records(tmp_path / "whole"))
