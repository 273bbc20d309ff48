"""Flat action numbering from named blocks: every game numbers its decisions the same way.

A game's config lists its blocks in order with their sizes (``block_sizes``);
an action is the block's offset plus a code within the block.
"""

from __future__ import annotations

from functools import cached_property


class ActionBlocks:
    """Mixin for a config with a ``block_sizes`` mapping (block name -> number of actions, in order)."""

    block_sizes: dict[str, int]

    @cached_property
    def offsets(self) -> dict[str, int]:
        """First action number of each block."""
        found, start = {}, 0
        for block, size in self.block_sizes.items():
            found[block] = start
            start += size
        return found

    @cached_property
    def num_actions(self) -> int:
        return sum(self.block_sizes.values())
