"""Reforest: grow a forest region of stacked plant cards over three rounds, 1 to 4 players.

The rules spec, the action numbering and every ruling are in :mod:`sims.reforest.config`;
content and parameters are in ``configs/games/reforest.toml``.
"""
