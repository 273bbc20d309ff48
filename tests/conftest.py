"""Shared fixtures; importing the toy game registers it with sims.registry."""

from __future__ import annotations

import pytest

import tests.toy_game as toy_game  # noqa: F401 (registers the "toy" game)


@pytest.fixture
def toy_config():
    return toy_game.load()
