"""Type stubs for `sudoku_batch._native`, the compiled half of the package (PyO3).

Every function takes contiguous `(N, 81)` `uint8` arrays (the pure-Python half converts other
inputs first), releases the GIL and works on a pool of `threads` threads.
"""

from typing import final

import numpy as np
import numpy.typing as npt

__all__ = [
    "solve_cells",
    "count_cells",
    "verify_cells",
    "rate_cells",
    "explain_cells",
    "generate_cells",
    "fresh_seed",
    "interpreter_exiting",
    "this_is_the_main_thread",
    "cells_from_list",
    "cells_from_bytes",
    "cells_from_ucs4",
    "Reader",
    "SOLVED",
    "UNSOLVABLE",
    "MULTIPLE",
    "INVALID",
    "MISMATCH",
    "GAVE_UP",
    "STATUSES",
    "RATE_RATED",
    "RATE_UNSOLVABLE",
    "RATE_MULTIPLE",
    "RATE_INVALID",
    "RATE_GAVE_UP",
    "RATE_STATUSES",
    "BAD",
    "SYMMETRIES",
    "SCALES",
    "DIFFICULTIES",
    "KINDS",
]

# Status codes and words (the library's `Status`, in its order).
SOLVED: int
UNSOLVABLE: int
MULTIPLE: int
INVALID: int
MISMATCH: int
GAVE_UP: int
STATUSES: list[tuple[int, str]]
# `rate` status codes and words (the library's `RateStatus`, in its order).
RATE_RATED: int
RATE_UNSOLVABLE: int
RATE_MULTIPLE: int
RATE_INVALID: int
RATE_GAVE_UP: int
RATE_STATUSES: list[tuple[int, str]]
# Verify failure kinds: (code, word); code 0 ("") is a row that passes.
KINDS: list[tuple[int, str]]
# The cell value that marks a row that is not a puzzle.
BAD: int
# Generator symmetries, by CLI name.
SYMMETRIES: list[str]
SCALES: list[str]
DIFFICULTIES: list[str]

# The rows that have a message, and their messages (rows with the same text share one string).
_Messages = tuple[npt.NDArray[np.uint64], list[str]]
# (row, failure kind code, message) for each row that did not parse.
_ParseFailures = list[tuple[int, int, str]]

def solve_cells(
    cells: npt.NDArray[np.uint8],
    threads: int | None = None,
    unique: bool = False,
    solver: str = "bands",
    max_guesses: int | None = None,
) -> tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint64],
    npt.NDArray[np.uint64],
    _Messages,
]:
    """(solutions (N, 81), status, guesses, solve_ns, messages)."""

def count_cells(
    cells: npt.NDArray[np.uint8],
    limit: int = 2,
    threads: int | None = None,
    solver: str = "bands",
) -> npt.NDArray[np.int64]:
    """Solutions per row up to `limit`; -1 for a row that is not a puzzle."""

def verify_cells(
    puzzles: npt.NDArray[np.uint8],
    solutions: npt.NDArray[np.uint8] | None = None,
    unique: bool = False,
    threads: int | None = None,
    solver: str = "bands",
    missing: npt.NDArray[np.bool_] | None = None,
) -> tuple[npt.NDArray[np.uint8], _Messages]:
    """(failure kind codes, messages); `missing`: the rows whose solution is not given."""

def generate_cells(
    n: int,
    seed: int,
    clues: int | None = None,
    min_clues: int | None = None,
    max_clues: int | None = None,
    minimal: bool = False,
    symmetry: str = "none",
    threads: int | None = None,
    solver: str = "bands",
    er: tuple[float, float] | None = None,
    scale: str = "se1.2.1",
    difficulty: str | None = None,
    max_guesses: int | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Puzzles 0..n of the run with `seed`: (puzzles, solutions, clue counts)."""

def rate_cells(
    cells: npt.NDArray[np.uint8],
    threads: int | None = None,
    max_er: float | None = None,
    timeout_ms: int | None = None,
    scale: str = "se1.2.1",
) -> tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.uint8],
    npt.NDArray[np.int32],
    npt.NDArray[np.uint64],
    list[str],
    _Messages,
]:
    """(er, ep, ed, status, steps, rate_ns, technique names, messages); NaN and -1 where a row
    was not rated."""

def explain_cells(
    cells: npt.NDArray[np.uint8],
    max_er: float | None = None,
    timeout_ms: int | None = None,
    scale: str = "se1.2.1",
    invalid: str | None = None,
    shown: str | None = None,
) -> tuple[
    int,
    str,
    float,
    float,
    float,
    str,
    list[tuple[str, float, list[str], list[tuple[str, int]], list[tuple[str, int]], str]],
    str,
]:
    """The path of one puzzle: (status, message, er, ep, ed, technique, steps, text)."""

def fresh_seed() -> int:
    """A seed drawn from the operating system."""

def cells_from_list(items: list[str | bytes]) -> tuple[npt.NDArray[np.uint8], _ParseFailures]:
    """Puzzle strings to an (N, 81) array; bad rows filled with BAD."""

def cells_from_bytes(rows: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], _ParseFailures]:
    """An (N, W) array of ASCII bytes (numpy `S` strings viewed as uint8) to cells."""

def cells_from_ucs4(rows: npt.NDArray[np.uint32]) -> tuple[npt.NDArray[np.uint8], _ParseFailures]:
    """An (N, W) array of code points (numpy `U` strings viewed as uint32) to cells."""

@final
class Reader:
    """Reads a puzzle file (lines, CSV, grids; plain, gzip, zstd, zip) in batches."""

    def __new__(cls, path: str, format: str = "auto", column: str | None = None) -> Reader: ...
    def next_batch(
        self, size: int
    ) -> tuple[npt.NDArray[np.uint8], list[tuple[int, int, str]]] | None:
        """The next `size` rows: (cells, [(row, line, message)]), or None at the end."""

def this_is_the_main_thread() -> None:
    """Called by the package's import when it runs on Python's main thread."""

def interpreter_exiting() -> None:
    """Called by the package's `atexit` hook."""
