"""Vorex: 1 to 4 players grow carnivorous flowers in a shared hex forest.

Players expand the forest with four-hex tiles, draw resources from the
production stumps their flowers hold, and bloom stumps (paying their cost,
reduced by connected production) to score objectives; solo play is a race
against an invasive weed. The rules spec is the docstring of
:mod:`sims.vorex.config`; the content is ``configs/games/vorex.toml``.
"""
