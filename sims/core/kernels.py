"""Compiled (numba) forms of the shared scalar helpers every game's kernels need.

Random numbers here are the numbers of :mod:`sims.core.rng`, one at a time:
``noise(noise_stream(seed, purpose_key(p), counter), slot)`` equals
``rng.uniforms_at(seed, p, counter, slot)`` bit for bit, so a kernel that draws
its tie-break noise itself keeps records identical to the numpy code it
replaces. Bit helpers act on one uint64 board.

    >>> from sims.core.rng import purpose_key, uniforms_at
    >>> stream = noise_stream(np.uint64(7), purpose_key("bot/0"), 3)
    >>> float(noise(stream, 5)) == float(uniforms_at(np.uint64(7), "bot/0", 3, 5))
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.compiler_machinery import PassManager, register_pass
from numba.core.typed_passes import NativeLowering

from sims.core import rng


class _LinkedLibrary(JITCodeLibrary):
    """The code of a function only compiled code calls, kept as LLVM IR for its callers to link in.

    numba finishes every compiled function as if Python could call it: its IR and all it calls are optimised
    again as one module and made into machine code. A caller links the IR in and does both once more over its
    own module, so a chain of callees was optimised and made into machine code once per level (in Vorex a
    fifth of a cold compile, none of it ever run). This library only links its callees' IR in: its callers
    optimise it, inline it and make machine code of it where it runs."""

    def finalize(self) -> None:
        require_global_compiler_lock()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                seen.add(library)
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalize_dynamic_globals()
        self._finalized = True

    def get_pointer_to_function(self, name: str) -> int:
        return 0  # no machine code: only the Python and C wrappers' addresses are asked for, and there are none

    @property
    def codegen(self) -> Any:
        return _NoEnvironment(self._codegen)


class _NoEnvironment:
    """The codegen of a :class:`_LinkedLibrary`: its function's environment is never set (nothing is loaded to set
    it in; cached callers run without it too)."""

    def __init__(self, codegen: Any) -> None:
        self._codegen = codegen

    def set_env(self, env_name: str, env: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._codegen, name)


@register_pass(mutates_CFG=True, analysis_only=False)
class _LinkedLowering(NativeLowering):
    _name = "linked_lowering"

    def run_pass(self, state: Any) -> bool:
        if state.library is None:
            state.library = _LinkedLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


class _LinkedCompiler(CompilerBase):
    """numba's nopython pipeline, lowering into a :class:`_LinkedLibrary`."""

    def define_pipelines(self) -> list[PassManager]:
        manager = DefaultPassBuilder.define_nopython_pipeline(self.state)
        manager.passes = [(_LinkedLowering if kind is NativeLowering else kind, text) for kind, text in manager.passes]
        manager.finalize()
        return [manager]


def kernel(function: Callable) -> Callable:
    """``njit`` for a function Python calls: cached on disk, and made without the C wrapper (``cfunc``) that nothing
    here calls (its code, an unpacking of every argument, was optimised and made into machine code at every cold
    compile)."""
    return njit(cache=True, no_cfunc_wrapper=True)(function)


def helper(function: Callable) -> Callable:
    """:func:`kernel` for the small helpers a kernel's loops call and that allocate no array: compiled without
    numba's reference counting of the arrays they are given (``_nrt=False``, an internal flag; the numba pin in
    ``pyproject.toml`` is there for it). A call passes tens of arrays, so counting costs more than the helper's work,
    and the callers link in less code (a shorter cold compile)."""
    return njit(cache=True, _nrt=False, no_cfunc_wrapper=True)(function)


def inner(function: Callable) -> Callable:
    """:func:`helper` for a function only compiled code calls: made without the CPython and C wrappers, which
    would unpack every array of its argument tuples for a call that never comes, and kept as IR its callers link
    in (:class:`_LinkedLibrary`), never optimised or made into machine code on its own. Not cached on disk: a
    cached caller holds its code, and a caller being compiled compiles it too. Called from Python, such a
    function crashes the interpreter.

    numba compiles a helper once per argument types, and a constant argument is typed as its literal (``False``,
    ``0``): callers pass constants as ``np.int64(...)`` or ``np.bool_(...)``, so each helper, and all it calls,
    is compiled once."""
    return njit(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True, pipeline_class=_LinkedCompiler)(function)


def inlined(function: Callable) -> Callable:
    """:func:`inner` that LLVM always inlines where it is called (``forceinline``): a call that is not inlined
    passes every array of its argument tuples one by one (Vorex's step: 5-6 KB of stack, about 200 ns a call),
    costlier than a small function's work. A function they call that should stay a call says so
    (:func:`called`): numba compiles a callee with its caller's flags unless it sets them."""
    return njit(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True, forceinline=True,
                pipeline_class=_LinkedCompiler)(function)


def called(function: Callable) -> Callable:
    """:func:`inner` that stays a call even from an :func:`inlined` function."""
    return njit(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True, forceinline=False,
                pipeline_class=_LinkedCompiler)(function)


_GOLDEN = rng._GOLDEN
_MUL1 = rng._MUL1
_MUL2 = rng._MUL2
_SLOT_OFFSET = rng._SLOT_OFFSET
_TOP53 = rng._TOP53
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def mix64(z):
    """``rng.mix64`` of one uint64."""
    z = z + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def noise_stream(seed, purpose_key, counter):
    """The stream word of ``uniforms_at(seed, purpose, counter, ...)``; :func:`noise` adds the slot."""
    return mix64(mix64(np.uint64(seed) ^ np.uint64(purpose_key)) ^ mix64(np.uint64(counter)))


@njit(cache=True, inline="always")
def noise(stream, slot):
    """``uniforms_at`` of one slot of a stream word: a float64 in [0, 1)."""
    return np.float64(mix64(np.uint64(stream) ^ mix64(np.uint64(slot) + _SLOT_OFFSET)) >> np.uint64(11)) * _TOP53


@kernel
def seat_noise(seeds, seats, counters, keys):
    """``rng.seat_uniforms``: float64 ``[n]``, element i the slot-0 number of ``(seeds[i], keys[seats[i]],
    counters[i])``."""
    out = np.empty(seeds.size, dtype=np.float64)
    for i in range(seeds.size):
        out[i] = noise(noise_stream(seeds[i], keys[seats[i]], counters[i]), 0)
    return out


@njit(cache=True, inline="always")
def popcount(board):
    """Set bits of one uint64 (the SWAR count), as int64."""
    board = np.uint64(board)
    board = board - ((board >> _ONE) & _M1)
    board = (board & _M2) + ((board >> np.uint64(2)) & _M2)
    board = (board + (board >> np.uint64(4))) & _M4
    return np.int64((board * _H01) >> np.uint64(56))


@njit(cache=True, inline="always")
def lowest_bit_index(board):
    """Index of the lowest set bit of a non-zero uint64."""
    board = np.uint64(board)
    return popcount((board & (~board + _ONE)) - _ONE)


@njit(cache=True, inline="always")
def kth_set_bit(board, k):
    """Index of the ``k``-th (0-based) set bit of one uint64; -1 if it has ``k`` or fewer bits."""
    board = np.uint64(board)
    for _ in range(k):
        if board == 0:
            return -1
        board &= board - _ONE
    if board == 0:
        return -1
    return lowest_bit_index(board)


@njit(cache=True, inline="always")
def _ranks_above(keys, i, j):
    """Item ``i`` ranks above item ``j`` < ``i``: its keys (rows of ``keys``, NaN highest) are higher in order,
    or all equal (the later item first, as a stable ascending sort ends with it)."""
    for row in range(keys.shape[0]):
        a, b = keys[row, i], keys[row, j]
        if a > b or (a != a and b == b):
            return True
        if b > a or (b != b and a == a):
            return False
    return True


@kernel
def top_of_sorted_groups(group, keys, k):
    """:func:`sims.core.choice.top_per_group` for ``group`` in ascending order: int64 indices of the ``k`` best
    items of each group (float64 ``keys [rows, items]``), best first, groups in order."""
    n = group.size
    chosen = np.empty(n, np.int64)
    top = np.empty(max(k, 1), np.int64)
    written = 0
    start = 0
    while start < n:
        end = start + 1
        while end < n and group[end] == group[start]:
            end += 1
        held = 0
        for i in range(start, end):
            place = held
            while place > 0 and _ranks_above(keys, i, top[place - 1]):
                place -= 1
            if place < k:
                for q in range(min(held, k - 1), place, -1):
                    top[q] = top[q - 1]
                top[place] = i
                held = min(held + 1, k)
        for q in range(held):
            chosen[written] = top[q]
            written += 1
        start = end
    return chosen[:written]
