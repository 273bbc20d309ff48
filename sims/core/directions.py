"""Steps between the cells of a square board, as ``(row, column)`` offsets.

Plain tables, shared by the batched grid helpers (:mod:`sims.core.grid`) and
the reference engines, which must not import batched code.
"""

ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
KING = ORTHOGONAL + DIAGONAL
