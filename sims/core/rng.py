"""Counter-based random streams, one per game.

Every random number in Glade is a pure function of
``(game seed, purpose, counter, slot)``: there is no generator state to carry,
so a game's course never depends on batch size, chunking, worker count or
machine. The batched engines call these functions with arrays of game seeds;
the reference engines call them with one seed and get the same numbers.

    >>> seeds = game_seeds(7, np.arange(3))
    >>> u = uniforms(seeds, "bot/0", counter=np.zeros(3, np.int64), slots=4)
    >>> u.shape
    (3, 4)
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_TOP53 = np.float64(1.0 / (1 << 53))
_SLOT_OFFSET = np.uint64(0x5851F42D4C957F2D)


def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: a bijective scramble of uint64 values."""
    shape = np.shape(x)
    z = np.array(x, dtype=np.uint64, ndmin=1) + _GOLDEN  # arrays wrap silently, scalars would warn
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return (z ^ (z >> np.uint64(31))).reshape(shape)




@functools.lru_cache(maxsize=4096)
def purpose_key(purpose: str) -> np.uint64:
    """A stable 64-bit key for a purpose name such as ``"deck"`` or ``"bot/1"``."""
    digest = hashlib.blake2b(purpose.encode("utf-8"), digest_size=8).digest()
    return np.uint64(int.from_bytes(digest, "little"))


def game_seeds(root_seed: int, deals: np.ndarray) -> np.ndarray:
    """The seed of each deal of a run: a hash of (root seed, deal index)."""
    root = mix64(np.uint64(root_seed % (1 << 64)))
    return mix64(root ^ mix64(np.asarray(deals, dtype=np.uint64)))


def random_bits(
    seeds: np.ndarray, purpose: str, counter: np.ndarray | int, slots: int = 1
) -> np.ndarray:
    """uint64 ``[B, slots]``: bits for (seed, purpose, counter, slot) of each game."""
    seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
    counter = np.broadcast_to(np.asarray(counter, dtype=np.int64), seeds.shape).astype(np.uint64)
    stream = mix64(seeds ^ purpose_key(purpose))
    stream = mix64(stream ^ mix64(counter))
    slot = mix64(np.arange(slots, dtype=np.uint64) + _SLOT_OFFSET)
    return mix64(stream[:, None] ^ slot[None, :])


def uniforms_at(
    seeds: np.ndarray, purpose: str, counter: np.ndarray | int, slot: np.ndarray
) -> np.ndarray:
    """float64 uniforms for chosen slots: element i equals ``uniforms(seeds, ...)[i, slot[i]]``.

    ``seeds``, ``counter`` and ``slot`` broadcast together; use it when a bot
    needs the numbers of a few (game, action) pairs only.
    """
    seeds, counter, slot = np.broadcast_arrays(
        np.asarray(seeds, dtype=np.uint64), np.asarray(counter, dtype=np.int64), np.asarray(slot, dtype=np.int64))
    stream = mix64(seeds ^ purpose_key(purpose))
    stream = mix64(stream ^ mix64(counter.astype(np.uint64)))
    slot_key = mix64(slot.astype(np.uint64) + _SLOT_OFFSET)
    return (mix64(stream ^ slot_key) >> np.uint64(11)).astype(np.float64) * _TOP53


def uniforms(
    seeds: np.ndarray, purpose: str, counter: np.ndarray | int, slots: int = 1
) -> np.ndarray:
    """float64 ``[B, slots]`` in [0, 1), from the top 53 bits of :func:`random_bits`."""
    bits = random_bits(seeds, purpose, counter, slots)
    return (bits >> np.uint64(11)).astype(np.float64) * _TOP53


def seat_uniforms(seeds: np.ndarray, seats: np.ndarray, counter: np.ndarray, prefix: str = "bot") -> np.ndarray:
    """float64 ``[B]``: element i equals ``uniforms(seeds[i], f"{prefix}/{seats[i]}", counter[i])[0, 0]``.

    One call for games whose purposes differ by seat, such as a random bot
    choosing in every game for whichever seat is to move.
    """
    from sims.core.kernels import seat_noise  # compiled; that module reads this one's constants

    seeds = np.ascontiguousarray(seeds, dtype=np.uint64).reshape(-1)
    seats = np.ascontiguousarray(seats).reshape(-1)  # any integer dtype: the kernel compiles for it
    counter = np.asarray(counter)
    counter = np.ascontiguousarray(counter.reshape(-1) if counter.ndim else np.broadcast_to(counter, seeds.shape))
    return seat_noise(seeds, seats, counter, _seat_keys(prefix, int(seats.max(initial=0)) + 1))


@functools.lru_cache(maxsize=256)
def _seat_keys(prefix: str, seats: int) -> np.ndarray:
    """uint64 ``[seats]``: the purpose key of ``f"{prefix}/{seat}"`` for each seat."""
    keys = np.array([purpose_key(f"{prefix}/{seat}") for seat in range(seats)], dtype=np.uint64)
    keys.flags.writeable = False
    return keys


def shuffle_order(seeds: np.ndarray, purpose: str, counter: np.ndarray | int, n: int) -> np.ndarray:
    """int64 ``[B, n]``: a random permutation of ``range(n)`` per game (argsort of hashes)."""
    return np.argsort(random_bits(seeds, purpose, counter, n), axis=1, kind="stable")


def uniform_one(seed: int, purpose: str, counter: int, slots: int = 1) -> list[float]:
    """The same numbers as :func:`uniforms` for one game, as plain floats."""
    row = uniforms(np.array([seed], dtype=np.uint64), purpose, counter, slots)[0]
    return [float(x) for x in row]
