"""Vora: push cubes into a shared meadow, collect lines and families into your farm.

Not registered yet: ``GAME`` is defined once the batched engine (``rules.py``)
and its bots exist; until then the package holds the config, the reference
engine, its bots and the renderer.
"""
