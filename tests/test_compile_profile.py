"""sims.compile_profile: numba compiles are recorded per function, a literal argument shows as a second compile."""

from __future__ import annotations

import numpy as np
from numba import njit

from sims.compile_profile import main, recording


def _made_kernels():
    @njit
    def scaled(x, flag):
        return x * 2 if flag else x

    @njit
    def calls_with_literal(x):
        return scaled(x, False)

    @njit
    def calls_with_bool(x):
        return scaled(x, np.bool_(False))

    return scaled, calls_with_literal, calls_with_bool


def test_a_literal_argument_compiles_the_callee_again():
    scaled, calls_with_literal, calls_with_bool = _made_kernels()
    with recording() as times:
        calls_with_bool(np.int64(3))
        calls_with_bool(np.int64(4))
    counts = {name.rsplit(".", 1)[-1]: n for name, n in times.compiles.items()}
    assert counts["scaled"] == 1 and counts["calls_with_bool"] == 1
    with recording() as times:
        calls_with_literal(np.int64(3))
    assert {name.rsplit(".", 1)[-1] for name in times.compiles} >= {"scaled", "calls_with_literal"}
    assert len(scaled.signatures) == 2  # bool, then Literal[bool](False)
    assert all(seconds >= 0.0 for seconds in times.seconds.values())


def test_twice_lists_only_the_projects_functions():
    with recording() as times:
        pass
    times.compiles.update({"sims.x.f": 3, "sims.x.g": 1, "numba.np.arrayobj.impl": 9})
    assert times.twice() == [("sims.x.f", 3)]


def test_an_unknown_game_is_a_usage_error(capsys):
    assert main(["chess"]) == 2
    assert "one of overgrowth, vora, vorex, reforest" in capsys.readouterr().err
