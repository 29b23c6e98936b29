"""sudoku_batch: solve Sudoku puzzles in bulk from numpy and pandas.

Whole arrays in, all cores, the GIL released; the same statuses and checks as the
``sudoku-batch`` command line. Puzzles may be given as a list of ``str`` (81 cells, ``.``,
``0`` or ``_`` for blanks), a numpy array of dtype ``S81``/``U81``, a pandas Series of
strings, or an integer array of shape ``(N, 81)`` (0 = blank).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import warnings
from typing import Any, Sequence, Union

import numpy as np

from . import _native

#: The forms ``puzzles`` takes, for type annotations (see the module's docstring).
Puzzles = Union[Sequence[str], Sequence[bytes], np.ndarray, Any]

__all__ = [
    "SOLVED",
    "UNSOLVABLE",
    "MULTIPLE",
    "INVALID",
    "MISMATCH",
    "GAVE_UP",
    "STATUS_NAMES",
    "RATE_RATED",
    "RATE_UNSOLVABLE",
    "RATE_MULTIPLE",
    "RATE_INVALID",
    "RATE_GAVE_UP",
    "RATE_STATUS_NAMES",
    "SCALES",
    "DIFFICULTIES",
    "SolveResult",
    "RateResult",
    "VerifyResult",
    "GenerateResult",
    "SYMMETRIES",
    "solve",
    "count_solutions",
    "verify",
    "rate",
    "explain",
    "Explanation",
    "ExplainStep",
    "generate",
    "read",
    "to_cells",
    "to_strings",
]

#: The puzzle has a solution, returned in ``solutions`` (and, with ``unique=True``, only one).
SOLVED: int = _native.SOLVED
#: The puzzle has no solution.
UNSOLVABLE: int = _native.UNSOLVABLE
#: ``unique=True`` and the puzzle has two or more solutions.
MULTIPLE: int = _native.MULTIPLE
#: Not a puzzle (bad text, a cell outside 0-9) or clues that contradict each other.
INVALID: int = _native.INVALID
#: The solver returned a grid that failed the independent check (a solver bug; never expected).
MISMATCH: int = _native.MISMATCH
#: ``max_guesses`` was reached before the puzzle was decided: nothing is known of its solutions.
GAVE_UP: int = _native.GAVE_UP

#: Status code -> the CLI's status word (from the library).
STATUS_NAMES = dict(_native.STATUSES)

# :func:`rate`'s status codes (the library's ``RateStatus``): not the same numbers as
# :func:`solve`'s above, so compare ``RateResult.status`` with these.
#: :func:`rate`: the puzzle has exactly one solution and was rated.
RATE_RATED: int = _native.RATE_RATED
#: :func:`rate`: the puzzle has no solution (no rating).
RATE_UNSOLVABLE: int = _native.RATE_UNSOLVABLE
#: :func:`rate`: the puzzle has two or more solutions (no rating).
RATE_MULTIPLE: int = _native.RATE_MULTIPLE
#: :func:`rate`: not a puzzle, or clues that contradict each other (no rating).
RATE_INVALID: int = _native.RATE_INVALID
#: :func:`rate`: ``max_er`` or ``timeout_ms`` was reached: the rating so far is a lower bound.
RATE_GAVE_UP: int = _native.RATE_GAVE_UP
#: :func:`rate` status code -> the CLI ``rate`` status word: ``RATE_RATED`` -> rated,
#: ``RATE_UNSOLVABLE`` -> unsolvable, ``RATE_MULTIPLE`` -> multiple, ``RATE_INVALID`` ->
#: invalid, ``RATE_GAVE_UP`` -> gave_up.
RATE_STATUS_NAMES = dict(_native.RATE_STATUSES)
# A call still running in a daemon thread when the interpreter exits must not take the GIL back
# (CPython would end the thread inside Rust code): the hook tells it, before that can happen.
atexit.register(_native.interpreter_exiting)
# Only the main thread gets KeyboardInterrupt: a call on another waits without the GIL.
if threading.current_thread() is threading.main_thread():
    _native.this_is_the_main_thread()
_KIND_NAMES = dict(_native.KINDS)
_SKIPPED = next(code for code, name in _native.KINDS if name == "skipped")


def _whole(name, value, least=0, most=2**64 - 1):
    """``value`` when it is ``None``, not an integer (the native call names the argument in its
    ``TypeError``), or an integer in ``least .. most`` (``most=None``: no bound here, the native
    call has its own); a ``ValueError`` naming ``name`` otherwise (the native call would raise
    an ``OverflowError`` that names nothing). A bool is a ``TypeError``: ``True`` is no
    count."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected an integer, got bool")
    if isinstance(value, (int, np.integer)):
        if value < least:
            raise ValueError(f"{name} must be at least {least}, got {value}")
        if most is not None and value > most:
            raise ValueError(f"{name} must be at most {most}, got {value}")
    return value


def _rating(name, value):
    """``value`` for an ER bound: ``None`` or a number; a bool is a ``TypeError`` (``True``
    would be taken as 1.0 unseen)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a number, got bool")
    return value


def _flag(name, value):
    """``value`` as a ``bool`` when it is one (a numpy bool too); a ``TypeError`` naming ``name``
    otherwise: a string such as ``"no"`` or a number would be taken as true or false unseen."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name}: expected True or False, got {type(value).__name__} {value!r:.40}")


#: The failure kind code of a row that is not a puzzle (``malformed``).
_MALFORMED = next(code for code, word in _native.KINDS if word == "malformed")


def _unmask(arr):
    """A masked array's data with its mask applied: a masked cell of an integer grid is a
    blank (0); a masked element of a string array is a row that is not a puzzle. Returns
    (array, masked rows or None)."""
    if arr.dtype.kind in "iu":
        return arr.filled(0), None
    # The data is read as it is (other dtypes and shapes are refused there); masked rows are
    # marked afterwards.
    return np.ma.getdata(arr), np.ma.getmaskarray(arr)


def _coerce(puzzles, what="puzzles"):
    """Returns (cells (N, 81) uint8 C-contiguous, [(row, kind code, message)])."""
    if isinstance(puzzles, np.ma.MaskedArray):
        data, masked = _unmask(puzzles)
        cells, failures = _coerce(data, what)
        if masked is not None and masked.any():
            rows = np.flatnonzero(masked)
            cells = cells.copy()
            cells[rows] = _native.BAD
            failures = [f for f in failures if not masked[f[0]]]
            failures += [(int(r), _MALFORMED, "masked: no puzzle") for r in rows.tolist()]
            failures.sort()
        return cells, failures
    if isinstance(puzzles, bytearray):
        puzzles = bytes(puzzles)  # text, as bytes are; not 81 integers
    if isinstance(puzzles, (str, bytes)):
        puzzles = [puzzles]
    if hasattr(puzzles, "to_numpy") and not isinstance(puzzles, np.ndarray):
        puzzles = puzzles.to_numpy()  # pandas Series / Index (a DataFrame is 2-d: refused below)
    if isinstance(puzzles, (list, tuple)):
        if puzzles and all(_is_int(p) for p in puzzles):
            raise ValueError(
                f"{what}: expected puzzle strings or rows of 81 cells (shape (N, 81)), got a flat "
                f"list of {len(puzzles)} integers (one puzzle's cells are [cells])"
            )
        if puzzles and all(_is_row(p) for p in puzzles):
            # Rows of 81 integers: the integer array they make (its shape and dtype checked).
            lengths = sorted({len(p) for p in puzzles})
            if len(lengths) > 1:
                raise ValueError(
                    f"{what}: expected rows of 81 cells, got rows of {lengths[0]} to "
                    f"{lengths[-1]} items"
                )
            arr = np.asarray(puzzles)
            if arr.dtype.kind in "Of" and _all_ints(puzzles):
                return _big_int_rows(puzzles)
            return _coerce(arr, what)
        return _native.cells_from_list(list(puzzles))
    if not isinstance(puzzles, np.ndarray):
        raise TypeError(
            f"{what}: expected a list of str, a numpy array (S81/U81 strings or uint8 of shape "
            f"(N, 81)) or a pandas Series, got {type(puzzles).__name__}"
        )
    arr = puzzles
    kind = arr.dtype.kind
    if kind == "T" or (kind == "f" and arr.ndim == 1 and np.isnan(arr).all()):
        # numpy's variable-width strings; or a column with no value at all, which pandas reads
        # as float NaN: as the same values in an object array.
        return _coerce(arr.astype(object), what)
    if kind == "O":
        if arr.ndim != 1:
            raise ValueError(
                f"{what}: expected a 1-d array of strings, got shape {arr.shape} "
                "(for a DataFrame, pass one column)"
            )
        return _native.cells_from_list(arr.tolist())
    if kind in "SU":
        if arr.ndim != 1:
            raise ValueError(
                f"{what}: expected a 1-d array of strings, got shape {arr.shape}"
            )
        # Native byte order: a big-endian `>U81` array (from a file written on such a machine)
        # would be read byte-swapped.
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
        n = arr.shape[0]
        if kind == "S":
            rows = arr.view(np.uint8).reshape(n, arr.dtype.itemsize)
            return _native.cells_from_bytes(rows)
        rows = arr.view(np.uint32).reshape(n, arr.dtype.itemsize // 4)
        return _native.cells_from_ucs4(rows)
    if kind in "iu":
        if arr.ndim != 2 or arr.shape[1] != 81:
            raise ValueError(f"{what}: expected shape (N, 81), got {arr.shape}")
        failures = []
        if arr.dtype != np.uint8:
            outside = (arr < 0) | (arr > 9)
            bad = outside.any(axis=1)
            if bad.any():
                # The native side's words for a uint8 cell outside 0-9: the first such cell.
                for row in np.flatnonzero(bad).tolist():
                    cell = int(np.argmax(outside[row]))
                    failures.append(
                        (row, _MALFORMED, f"cell {cell + 1} holds {arr[row, cell]}, expected 0-9")
                    )
                arr = np.where(bad[:, None], 0, arr)
            arr = arr.astype(np.uint8)
            if failures:
                arr[bad] = _native.BAD
        return np.ascontiguousarray(arr), failures
    raise TypeError(
        f"{what}: expected dtype uint8 (shape (N, 81)) or strings (S81/U81), got {arr.dtype}"
    )


def _is_row(p):
    """Whether ``p`` is a row of cells: a list, tuple or array of one or more dimensions (a 0-d
    array is one value, a puzzle string as its array held it)."""
    return isinstance(p, (list, tuple)) or (isinstance(p, np.ndarray) and p.ndim > 0)


def _is_int(v):
    """Whether ``v`` is an integer (not a bool)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _all_ints(rows):
    """Whether every item of ``rows`` (rows of one length) is an integer (not a bool)."""
    return all(_is_int(v) for row in rows for v in row)


def _big_int_rows(rows):
    """Rows of 81 Python integers some of which numpy holds in no integer dtype (past 64 bits):
    the cells and the failures :func:`_coerce` gives for cells outside 0-9."""
    if len(rows[0]) != 81:
        raise ValueError(f"puzzles: expected shape (N, 81), got ({len(rows)}, {len(rows[0])})")
    cells = np.zeros((len(rows), 81), dtype=np.uint8)
    failures = []
    for r, row in enumerate(rows):
        bad = next((i for i, v in enumerate(row) if not 0 <= v <= 9), None)
        if bad is None:
            cells[r] = [int(v) for v in row]
        else:
            failures.append((r, _MALFORMED, f"cell {bad + 1} holds {row[bad]}, expected 0-9"))
            cells[r] = _native.BAD
    return cells, failures


def to_cells(puzzles) -> np.ndarray:
    """Converts puzzles in any accepted form to a ``(N, 81)`` ``uint8`` array (0 = blank).

    Rows that are not puzzles are filled with 255 (``solve`` reports them ``INVALID``).
    """
    return _coerce(puzzles)[0]


def to_strings(cells) -> list:
    """The 81-character strings (``.`` for blanks) of a ``(N, 81)`` integer cell array.

    Raises:
        TypeError: an array that is not of integers.
        ValueError: another shape, or a cell outside 0-9 (such as the 255 of a row
            :func:`read` could not parse), naming the first such row.
    """
    if isinstance(cells, np.ma.MaskedArray) and cells.dtype.kind in "iu":
        cells = cells.filled(0)  # masked cells are blanks, as the puzzles' are
    arr = np.asarray(cells)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"expected an integer array of shape (N, 81), got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 81:
        raise ValueError(f"expected shape (N, 81), got {arr.shape}")
    bad = ((arr < 0) | (arr > 9)).any(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"row {row} has a cell outside 0-9 (255 marks a row that could not be read); "
            f"{int(bad.sum())} such row(s)"
        )
    arr = arr.astype(np.uint8)
    text = np.where(arr == 0, ord("."), arr + ord("0")).astype(np.uint8)
    return np.ascontiguousarray(text).view("S81").ravel().astype(str).tolist()


class SolveResult:
    """The result of :func:`solve`: one row per puzzle, in order.

    Attributes:
        solutions: ``(N, 81)`` ``uint8``, the solution of each ``SOLVED`` row, zeros elsewhere.
        status: ``(N,)`` ``uint8``, one of ``SOLVED``, ``UNSOLVABLE``, ``MULTIPLE``, ``INVALID``,
            ``MISMATCH``, ``GAVE_UP`` (words in :data:`STATUS_NAMES`).
        guesses: ``(N,)`` ``uint64``, branch points the search tried.
        solve_ns: ``(N,)`` ``uint64``, nanoseconds in the solver.
        message: list of ``str``, why a row is not ``SOLVED`` ("" for solved rows).
    """

    __slots__ = ("solutions", "status", "guesses", "solve_ns", "message")

    def __init__(self, solutions, status, guesses, solve_ns, message):
        self.solutions = solutions
        self.status = status
        self.guesses = guesses
        self.solve_ns = solve_ns
        self.message = message

    def __len__(self) -> int:
        return int(self.status.shape[0])

    def counts(self) -> dict:
        """Rows per status word, e.g. ``{"solved": 998, "invalid": 2}``."""
        values, counts = np.unique(self.status, return_counts=True)
        return {STATUS_NAMES[int(v)]: int(c) for v, c in zip(values, counts)}

    def solution_strings(self) -> list:
        """The solutions as 81-character strings ("" where there is none)."""
        out = to_strings(self.solutions)
        return [s if st == SOLVED else "" for s, st in zip(out, self.status.tolist())]

    def to_pandas(self, index=None):
        """A DataFrame with columns solution (str), status (str), guesses, solve_ns, message.

        ``index``: the frame's index (one label per row), by default ``0 .. N-1``. Give the
        index of the frame the puzzles came from,
        ``solve(df["puzzle"]).to_pandas(index=df.index)``, to put the columns next to it with
        ``pd.concat([df, ...], axis=1)`` when ``df`` was filtered or sorted (its index not
        ``0 .. N-1``).

        Raises:
            ValueError: ``index`` does not have one label per row.
        """
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        names = np.array([STATUS_NAMES[i] if i in STATUS_NAMES else "?" for i in range(256)],
                         dtype=object)
        return _frame(
            pd,
            {
                "solution": self.solution_strings(),
                "status": names[self.status],
                "guesses": self.guesses,
                "solve_ns": self.solve_ns,
                "message": self.message,
            },
            ("solution", "status", "message"),
            index,
        )

    def __repr__(self) -> str:
        return f"SolveResult({len(self)} rows: {self.counts()})"


def _frame(pd, columns, text, index=None):
    """A DataFrame of ``columns`` (on ``index``, when given) whose ``text`` columns hold strings
    even with no row (pandas infers float64 for an empty list; strings get the dtype pandas
    gives text). The ``to_pandas`` methods' ``index`` check is here: a ``ValueError`` when it
    does not have one label per row."""
    rows = len(next(iter(columns.values())))
    if index is not None and len(index) != rows:
        raise ValueError(f"index: expected {rows} labels (one per row), got {len(index)}")
    frame = pd.DataFrame(columns, index=index)
    if len(frame) == 0:
        frame = frame.astype({name: str for name in text})
    return frame


def _messages(n, native_messages, *failed):
    """One message per row ("" for rows without one): the native call's ``(rows, texts)``, then
    each ``(failures, prefix)`` of ``failed`` in turn (``failures`` from :func:`_coerce`, each
    message after ``prefix``), a later one winning. Rows with the same message share one
    string, so that a million rows that fail alike do not hold a million."""
    message = np.full(n, "", dtype=object)
    rows, texts = native_messages
    if len(texts):
        # Through an object array, so that numpy keeps the strings rather than copying them.
        shared = np.empty(len(texts), dtype=object)
        shared[:] = texts
        message[rows] = shared
    for failures, prefix in failed:
        prefixed = {}
        for row, _kind, msg in failures:
            text = prefixed.get(msg) if prefix else msg
            if text is None:
                text = prefixed[msg] = prefix + msg
            message[row] = text
    return message.tolist()


def solve(puzzles, *, threads=None, unique=False, solver="bands", max_guesses=None) -> SolveResult:
    """Solves every puzzle on a pool of ``threads`` threads (default: all cores).

    With ``unique=True`` a puzzle with two or more solutions is ``MULTIPLE`` (and no solution
    is returned for it). A row that is not a puzzle is ``INVALID`` with a message; it never
    raises. With ``max_guesses`` a puzzle that needs more guesses is ``GAVE_UP`` (as the CLI's
    ``--max-guesses``). Ctrl-C raises ``KeyboardInterrupt`` within a second, also during one slow
    puzzle.

    Raises:
        TypeError: ``puzzles`` is not a list, string array or integer array, or ``unique`` is
            not a bool.
        ValueError: an array of the wrong shape, ``threads=0`` or an unknown solver.
    """
    cells, failures = _coerce(puzzles)
    solutions, status, guesses, solve_ns, native_messages = _native.solve_cells(
        cells,
        _whole("threads", threads, least=1, most=None),
        _flag("unique", unique),
        solver,
        _whole("max_guesses", max_guesses),
    )
    return SolveResult(
        solutions,
        status,
        guesses,
        solve_ns,
        _messages(len(status), native_messages, (failures, "")),
    )


def count_solutions(puzzles, limit=2, *, threads=None, solver="bands") -> np.ndarray:
    """Counts each puzzle's solutions, stopping at ``limit``: an ``int64`` array, -1 for rows
    that are not puzzles (a puzzle whose clues contradict each other has 0)."""
    cells, _failures = _coerce(puzzles)
    limit = _whole("limit", limit, least=1, most=2**32 - 1)
    threads = _whole("threads", threads, least=1, most=None)
    return _native.count_cells(cells, limit, threads, solver)


class RateResult:
    """The result of :func:`rate`: one row per puzzle, in order, as ``sudoku-batch rate`` writes.

    Attributes:
        er, ep, ed: ``(N,)`` ``float32``, the Sudoku Explainer rating (NaN where not rated; a
            lower bound where the status is ``gave_up``).
        technique: list of ``str``, the hardest technique's name ("" where none).
        steps: ``(N,)`` ``int32``, steps on the solving path; -1 where not rated (the CLI's
            empty ``steps`` cell; 0 is a rated puzzle that needed none, a full grid).
        status: ``(N,)`` ``uint8``, one of ``RATE_RATED``, ``RATE_UNSOLVABLE``,
            ``RATE_MULTIPLE``, ``RATE_INVALID``, ``RATE_GAVE_UP`` (words in
            :data:`RATE_STATUS_NAMES`); not :func:`solve`'s codes (``SOLVED``, ``GAVE_UP``...).
        rate_ns: ``(N,)`` ``uint64``, nanoseconds spent proving and rating.
        message: list of ``str``, why a row is not ``rated`` ("" for rated rows).
    """

    __slots__ = ("er", "ep", "ed", "technique", "steps", "status", "rate_ns", "message")

    def __init__(self, er, ep, ed, technique, steps, status, rate_ns, message):
        self.er = er
        self.ep = ep
        self.ed = ed
        self.technique = technique
        self.steps = steps
        self.status = status
        self.rate_ns = rate_ns
        self.message = message

    def __len__(self) -> int:
        return int(self.status.shape[0])

    def status_words(self) -> list:
        """The status of each row as the CLI's word."""
        return [RATE_STATUS_NAMES[int(s)] for s in self.status.tolist()]

    def counts(self) -> dict:
        """Rows per status word, e.g. ``{"rated": 998, "invalid": 2}``."""
        values, counts = np.unique(self.status, return_counts=True)
        return {RATE_STATUS_NAMES[int(v)]: int(c) for v, c in zip(values, counts)}

    def to_pandas(self, index=None):
        """A DataFrame with columns er, ep, ed, technique, steps, status (str), rate_ns, message.

        Where a row is not rated, er/ep/ed are NaN and steps is missing (``<NA>``, pandas'
        nullable ``Int32``), so ``to_csv`` leaves the cells empty as ``sudoku-batch rate`` does.

        ``index``: the frame's index (one label per row), by default ``0 .. N-1``. Give the
        index of the frame the puzzles came from, ``rate(df["puzzle"]).to_pandas(index=df.index)``,
        to put the columns next to it with ``pd.concat([df, ...], axis=1)`` when ``df`` was
        filtered or sorted (its index not ``0 .. N-1``).

        Raises:
            ValueError: ``index`` does not have one label per row.
        """
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        return _frame(
            pd,
            {
                "er": self.er,
                "ep": self.ep,
                "ed": self.ed,
                "technique": self.technique,
                "steps": pd.arrays.IntegerArray(self.steps.copy(), self.steps < 0),
                "status": self.status_words(),
                "rate_ns": self.rate_ns,
                "message": self.message,
            },
            ("technique", "status", "message"),
            index,
        )

    def __repr__(self) -> str:
        return f"RateResult({len(self)} rows, {self.counts()})"


def _scale_name(scale, se121):
    """The native scale name from ``scale`` (a name, or None for ``se121``'s choice)."""
    se121 = _flag("se121", se121)
    if scale is None:
        return "se1.2.1" if se121 else "se1.2.1.3"
    if not isinstance(scale, str):
        raise TypeError(f"scale: expected one of {', '.join(SCALES)}, got {type(scale).__name__}")
    if not se121 and scale.lower() != "se1.2.1.3":
        raise ValueError(f"se121=False asks for se1.2.1.3, scale= for {scale!r}: give one")
    return scale


#: The rating scales :func:`rate`, :func:`explain` and :func:`generate` take as ``scale``.
SCALES = tuple(_native.SCALES)

#: The difficulty bands :func:`generate` takes as ``difficulty``.
DIFFICULTIES = tuple(_native.DIFFICULTIES)


def rate(
    puzzles, *, threads=None, max_er=None, timeout_ms=None, se121=True, scale=None
) -> RateResult:
    """Rates each puzzle on Sudoku Explainer's scale (ER/EP/ED), as ``sudoku-batch rate`` does:
    the puzzle is proven to have exactly one solution first (``unsolvable``/``multiple``
    otherwise, no rating), then rated. ``max_er`` stops a puzzle once a harder step is needed
    and ``timeout_ms`` (at least 1) after that long (``gave_up``, the rating so far a lower bound);
    ``se121=True`` (the default) follows the original SE 1.2.1, ``se121=False`` serate 1.2.1.3
    (the CLI's ``--serate1213``); ``scale`` names a scale of :data:`SCALES` instead (the CLI's
    ``--scale``; ``"sukaku"`` is Sukaku Explainer's, the Sudoku Exchange bank's). A row that is not a
    puzzle is ``invalid``. Runs on ``threads`` threads with the GIL released; Ctrl-C raises
    ``KeyboardInterrupt`` within a second."""
    cells, failures = _coerce(puzzles)
    er, ep, ed, status, steps, rate_ns, technique, native_messages = _native.rate_cells(
        cells,
        _whole("threads", threads, least=1, most=None),
        _rating("max_er", max_er),
        _whole("timeout_ms", timeout_ms, least=1),
        _scale_name(scale, se121),
    )
    return RateResult(
        er,
        ep,
        ed,
        technique,
        steps,
        status,
        rate_ns,
        _messages(len(status), native_messages, (failures, "")),
    )


class ExplainStep:
    """One step of a solving path, as ``sudoku-batch rate --explain`` writes it.

    Attributes:
        technique: the technique's name (for example ``"Hidden Single (box)"``).
        rating: its rating (for example ``1.2``).
        cells: the cells of its pattern, as ``"r1c3"`` names.
        placements: the values it sets, as ``(cell, digit)``.
        eliminations: the candidates it removes, as ``(cell, digit)``.
        text: the step in words (``str(step)``).
        chains: what proves a chain step, as lists of ``(cell, digit, on)`` nodes (``on``:
            the digit is placed there, else removed); empty for other steps. A forcing chain
            or forcing X-chain: two chains from the assumption to one candidate on and off. A
            multiple forcing chain: one chain per candidate of the cell (or place of the digit
            in the house) to their common conclusion. Nishio, dynamic and nested forcing
            chains: per end of the hint, the implications it rests on in the order found.
    """

    __slots__ = ("technique", "rating", "cells", "placements", "eliminations", "text", "chains")

    def __init__(self, technique, rating, cells, placements, eliminations, text, chains):
        self.technique = technique
        self.rating = rating
        self.cells = cells
        self.placements = placements
        self.eliminations = eliminations
        self.text = text
        self.chains = chains

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"ExplainStep({self.text!r})"


class Explanation:
    """The result of :func:`explain`: one puzzle's rating and the path behind it.

    Attributes:
        status: the CLI's word (``rated``, ``unsolvable``, ``multiple``, ``invalid``, ``gave_up``).
        message: why the puzzle is not ``rated`` ("" when it is).
        er, ep, ed: the Sudoku Explainer rating (NaN when not rated; a lower bound for
            ``gave_up``).
        technique: the hardest step's technique ("" when none).
        steps: the :class:`ExplainStep` list, in order.
        text: the whole path in the words of ``sudoku-batch rate --explain`` (``str()``).
    """

    __slots__ = ("status", "message", "er", "ep", "ed", "technique", "steps", "text")

    def __init__(self, status, message, er, ep, ed, technique, steps, text):
        self.status = status
        self.message = message
        self.er = er
        self.ep = ep
        self.ed = ed
        self.technique = technique
        self.steps = steps
        self.text = text

    def __len__(self) -> int:
        return len(self.steps)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Explanation({self.status}, ER {self.er:.1f}, {len(self.steps)} steps)"


def explain(puzzle, *, max_er=None, timeout_ms=None, se121=True, scale=None) -> Explanation:
    """The solving path of one puzzle in words, step by step, as ``sudoku-batch rate --explain``
    writes it: the same verdict and rating as :func:`rate` (with the same ``max_er``,
    ``timeout_ms``, ``se121`` and ``scale``), and every step's technique, rating, pattern cells,
    placements and eliminations. ``puzzle`` is one puzzle (a string, bytes or 81 integers).
    Ctrl-C raises ``KeyboardInterrupt`` within a second."""
    if isinstance(puzzle, bytearray):
        puzzle = bytes(puzzle)  # text, as bytes are; not 81 integers
    if isinstance(puzzle, (str, bytes)):
        one = [puzzle]
    elif isinstance(puzzle, (list, tuple)) and len(puzzle) == 81 and _all_ints([puzzle]):
        one = [list(puzzle)]
    else:
        # A masked array keeps its mask (masked cells are blanks, as in :func:`solve`).
        arr = puzzle if isinstance(puzzle, np.ma.MaskedArray) else np.asarray(puzzle)
        if arr.dtype.kind not in "iu" or arr.size != 81:
            raise TypeError(
                "explain: expected one puzzle (a str, bytes or 81 integers), got "
                f"{type(puzzle).__name__} of shape {arr.shape}"
            )
        one = arr.reshape(1, 81)
    cells, failures = _coerce(one, "puzzle")
    # A puzzle that could not be read is invalid with the reader's words, shown as given.
    invalid = failures[0][2] if failures else None
    shown = None
    if invalid is not None and isinstance(puzzle, (str, bytes)):
        shown = puzzle if isinstance(puzzle, str) else puzzle.decode("utf-8", "replace")
        shown = shown.encode("utf-8", "replace").decode("utf-8")
    code, message, er, ep, ed, technique, steps, text = _native.explain_cells(
        cells,
        _rating("max_er", max_er),
        _whole("timeout_ms", timeout_ms, least=1),
        _scale_name(scale, se121),
        invalid,
        shown,
    )
    return Explanation(
        RATE_STATUS_NAMES[int(code)],
        message,
        float(er),
        float(ep),
        float(ed),
        technique,
        [ExplainStep(*s) for s in steps],
        text,
    )


class VerifyResult:
    """The result of :func:`verify`: one row per puzzle.

    Attributes:
        ok: ``(N,)`` ``bool``, the row does not fail: it passes, or (as the CLI counts it)
            it was skipped.
        kind: list of ``str``, the CLI's failure kind ("" for rows that pass): malformed,
            wrong_length, incomplete, broken_rule, clue_contradicted, not_unique, no_solution;
            or ``skipped`` for a row with no solution to check when ``unique`` is off.
        message: list of ``str``, what is wrong or why it was skipped ("" for rows that pass).
    """

    __slots__ = ("ok", "kind", "message")

    def __init__(self, ok, kind, message):
        self.ok = ok
        self.kind = kind
        self.message = message

    def __len__(self) -> int:
        return int(self.ok.shape[0])

    @property
    def failures(self) -> int:
        """Number of rows that fail."""
        return int(len(self.ok) - self.ok.sum())

    @property
    def skipped(self) -> int:
        """Number of rows that were not checked: no solution given, and ``unique`` off."""
        return sum(k == "skipped" for k in self.kind)

    def __repr__(self) -> str:
        return f"VerifyResult({len(self)} rows, {self.failures} failures)"


def _missing_solutions(solutions, cells, failures):
    """The rows of ``solutions`` that give no solution, as a bool array (``None``: none such):
    ``None``, an empty string, a missing value (NaN, ``pd.NA``) among text, or an all-zero row of
    cells (``solve``'s ``solutions`` for a row it did not solve). A string of 81 blanks is a
    grid, incomplete, as on the command line. Text that gives no solution never parses, so only
    the rows in ``failures`` (from :func:`_coerce`) are looked at."""
    # A masked integer grid's masked cells are blanks (as ``filled(0)``): looked at below.
    masked_text = isinstance(solutions, np.ma.MaskedArray) and solutions.dtype.kind not in "iu"
    if masked_text or isinstance(solutions, (str, bytes, bytearray)):
        return None
    if hasattr(solutions, "to_numpy") and not isinstance(solutions, np.ndarray):
        solutions = solutions.to_numpy()
    if isinstance(solutions, np.ndarray):
        textual = solutions.ndim == 1
    else:
        textual = not (solutions and isinstance(solutions[0], (list, tuple, np.ndarray)))
    if textual:
        missing = np.zeros(len(cells), dtype=bool)
        for row, _, _ in failures:
            missing[row] = _is_absent(solutions[row])
    else:
        missing = ~cells.any(axis=1)
    return missing if missing.any() else None


def _is_absent(x):
    """Whether a text element stands for no value: ``None``, empty, NaN, or pandas'
    ``NA``/``NaT`` (pandas is looked up only if loaded: otherwise no value can be one)."""
    if x is None or (isinstance(x, (str, bytes, bytearray)) and len(x) == 0):
        return True
    if isinstance(x, float):
        return x != x
    pd = sys.modules.get("pandas")
    return pd is not None and (x is pd.NA or x is pd.NaT)


def verify(puzzles, solutions=None, *, unique=False, threads=None, solver="bands") -> VerifyResult:
    """Checks each solution against its puzzle, as ``sudoku-batch verify`` does: a complete grid
    that obeys the rules and keeps every clue (and, with ``unique=True``, a puzzle with exactly
    one solution). With ``solutions=None`` only ``unique=True`` checks anything, and so for a
    row whose solution is ``None``, empty or missing (or an all-zero row of cells, as
    ``solve`` returns for a puzzle it did not solve): ``skipped`` otherwise."""
    p_cells, p_fail = _coerce(puzzles, "puzzles")
    s_cells, s_fail, missing = (None, [], None)
    if solutions is not None:
        s_cells, s_fail = _coerce(solutions, "solutions")
        if s_cells.shape[0] != p_cells.shape[0]:
            raise ValueError(
                f"expected as many solutions as puzzles ({p_cells.shape[0]}), "
                f"got {s_cells.shape[0]}"
            )
        missing = _missing_solutions(solutions, s_cells, s_fail)
        if missing is not None:
            s_fail = [f for f in s_fail if not missing[f[0]]]
    codes, native_messages = _native.verify_cells(
        p_cells,
        s_cells,
        _flag("unique", unique),
        _whole("threads", threads, least=1, most=None),
        solver,
        missing,
    )
    codes = codes.copy()
    # Text that did not parse: the kind the parser gave (solution first, the puzzle wins).
    failed = ((s_fail, "solution: "), (p_fail, "puzzle: "))
    message = _messages(len(codes), native_messages, *failed)
    for failures, _prefix in failed:
        for row, code, _msg in failures:
            codes[row] = code
    kind = [_KIND_NAMES[c] for c in codes.tolist()]
    return VerifyResult((codes == 0) | (codes == _SKIPPED), kind, message)


#: The symmetries ``generate`` accepts (the CLI's ``--symmetry`` names, from the library).
SYMMETRIES = tuple(_native.SYMMETRIES)


class GenerateResult:
    """The result of :func:`generate`: puzzle ``i`` of the run is row ``i``.

    Attributes:
        puzzles: ``(N, 81)`` ``uint8`` (0 = blank), each with exactly one solution.
        solutions: ``(N, 81)`` ``uint8``, their solutions.
        clues: ``(N,)`` ``uint8``, the clue count of each puzzle.
        seed: the seed used (given, or drawn when ``seed=None``); the same seed and options
            give the same puzzles again, here or from ``sudoku-batch generate``.
    """

    __slots__ = ("puzzles", "solutions", "clues", "seed")

    def __init__(self, puzzles, solutions, clues, seed):
        self.puzzles = puzzles
        self.solutions = solutions
        self.clues = clues
        self.seed = seed

    def __len__(self) -> int:
        return int(self.clues.shape[0])

    def puzzle_strings(self) -> list:
        """The puzzles as 81-character strings, ``.`` for blanks (the CLI's output lines)."""
        return to_strings(self.puzzles)

    def to_pandas(self, index=None):
        """A DataFrame with columns puzzle, solution (str) and clues: the CLI's
        ``generate --with-solution`` file.

        ``index``: the frame's index (one label per row), by default ``0 .. N-1``, as for
        :meth:`SolveResult.to_pandas`.

        Raises:
            ValueError: ``index`` does not have one label per row.
        """
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas() needs pandas: pip install pandas") from e
        return _frame(
            pd,
            {
                "puzzle": to_strings(self.puzzles),
                "solution": to_strings(self.solutions),
                "clues": self.clues,
            },
            ("puzzle", "solution"),
            index,
        )

    def __repr__(self) -> str:
        return f"GenerateResult({len(self)} puzzles, seed {self.seed})"


def generate(
    n,
    *,
    seed=None,
    minimal=False,
    symmetric=False,
    clues=None,
    min_clues=None,
    max_clues=None,
    threads=None,
    solver="bands",
    er=None,
    scale=None,
    difficulty=None,
    max_guesses=None,
) -> GenerateResult:
    """Makes ``n`` puzzles with exactly one solution on ``threads`` threads (default: all cores).

    The output depends only on ``seed`` and the options, never on the thread count or the
    solver: ``generate(n, seed=s, ...)`` gives the puzzles ``sudoku-batch generate -n N --seed s``
    writes with the same options. With ``seed=None`` a seed is drawn (``result.seed`` has it).

    Args:
        n: how many puzzles.
        seed: an integer in ``0 .. 2**64 - 1``, or ``None``.
        minimal: no clue (no symmetric group of clues) can be removed without losing uniqueness.
            Puzzles are also minimal when no clue count is given, as on the command line.
        symmetric: the symmetry of the clue pattern: ``False`` (none), ``True`` (``"central"``,
            the half turn) or one of :data:`SYMMETRIES`.
        clues: exactly this many clues per puzzle (``min_clues``/``max_clues`` for a range).
        threads: worker threads (default: all cores); the result does not depend on it.
        solver: the solver that proves uniqueness; the result does not depend on it.
        er: ``(a, b)``: keep only puzzles whose Sudoku Explainer rating ER lies in ``a..b``
            (the CLI's ``--er a..b``); candidates are rated until one fits.
        scale: the scale ``er`` or ``difficulty`` is rated on, one of :data:`SCALES` (default
            ``"se1.2.1"``; the CLI's ``--scale``); only with ``er`` or ``difficulty``.
        difficulty: a Sudoku Exchange band instead of ``er``, one of :data:`DIFFICULTIES`
            (``"easy"``: ER up to 1.4, ``"medium"`` 1.5-2.4, ``"hard"`` 2.5-4.9,
            ``"diabolical"`` 5.0 and up; the CLI's ``--difficulty``).
        max_guesses: bounds each uniqueness probe of the carving to this many guesses (the
            CLI's ``--max-guesses``): a probe that reaches it keeps its clue, so the puzzles
            stay unique and reproducible, but not necessarily minimal (not with
            ``minimal=True``).

    Raises:
        TypeError: ``n`` or ``seed`` is not an integer, ``minimal`` is not a bool, or
            ``symmetric`` neither a bool nor a name.
        ValueError: no puzzle can have the options (fewer than 17 clues, a clue count the
            symmetry cannot make, an unknown symmetry or solver, ``threads=0``), or they
            contradict each other (``clues`` with ``min_clues`` or ``max_clues``,
            ``minimal=True`` with ``max_guesses``, ``er`` with ``difficulty``), or ``scale``
            without ``er`` or ``difficulty``.
        RuntimeError: no puzzle in the clue range was found within the attempt limit; the
            message gives the clue counts of the puzzles drawn and what is wrong (random removal
            seldom goes below about 21 clues; a minimal puzzle seldom has more than 28 or so).
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)):
        raise TypeError(f"n: expected an integer count, got {type(n).__name__} {n!r:.40}")
    _whole("n", n)
    for name, value in [("clues", clues), ("min_clues", min_clues), ("max_clues", max_clues)]:
        _whole(name, value, most=255)
    _whole("threads", threads, least=1, most=None)
    minimal = _flag("minimal", minimal)
    if isinstance(symmetric, (bool, np.bool_)):
        symmetry = "central" if symmetric else "none"
    elif symmetric is None:
        symmetry = "none"
    elif isinstance(symmetric, str):
        symmetry = symmetric
    else:
        raise TypeError(
            f"symmetric: expected a bool or one of {', '.join(SYMMETRIES)}, "
            f"got {type(symmetric).__name__}"
        )
    if seed is None:
        seed = _native.fresh_seed()
    elif isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed: expected an integer, got {type(seed).__name__} {seed!r:.40}")
    elif not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected an integer in 0 .. 2**64 - 1, got {seed!r}")
    if difficulty is not None and not isinstance(difficulty, str):
        raise TypeError(
            f"difficulty: expected one of {', '.join(DIFFICULTIES)}, got {type(difficulty).__name__}"
        )
    _whole("max_guesses", max_guesses)
    if scale is not None and er is None and difficulty is None:
        raise ValueError(
            "scale: the scale an ER range or a difficulty is rated on; give er or difficulty too, "
            f"got scale={scale!r}"
        )
    if er is not None:
        try:
            pair = tuple(er)
        except TypeError:
            raise TypeError(
                f"er: expected a pair (a, b) of ratings, got {type(er).__name__} {er!r:.40}"
            ) from None
        if len(pair) != 2:
            raise ValueError(f"er: expected a pair (a, b) of ratings, got {er!r:.60}")
        bounds = []
        for x in pair:
            # Text and bool are no rating (float() takes "5", True is 1.0); other numbers
            # (Decimal, Fraction, numpy scalars) are, as for max_er.
            if x is None or isinstance(x, (str, bytes, bytearray, bool, np.bool_)):
                raise TypeError(f"er: expected a number, got {type(x).__name__} {x!r:.40}")
            try:
                bounds.append(float(x))
            except (TypeError, ValueError):
                raise TypeError(f"er: expected a number, got {type(x).__name__} {x!r:.40}") from None
        er = (bounds[0], bounds[1])
    puzzles, solutions, counts = _native.generate_cells(
        int(n),
        int(seed),
        clues,
        min_clues,
        max_clues,
        minimal,
        symmetry,
        threads,
        solver,
        er,
        _scale_name(scale, True),
        difficulty,
        max_guesses,
    )
    return GenerateResult(puzzles, solutions, counts, int(seed))


def read(path, format="auto", column=None, batch=100_000):
    """Yields the puzzles of a file as ``(N, 81)`` ``uint8`` arrays of at most ``batch`` rows.

    Reads anything ``sudoku-batch solve`` reads: line files, CSV (``column`` names the puzzle
    column, or gives its 1-based number as an ``int`` or a string), grid files; plain, gzip,
    zstd or zip. Memory stays bounded by one batch. A record that is not a puzzle is a row of
    255s (``solve`` reports it ``INVALID``), and a ``UserWarning`` per batch names such records
    by line with the CLI's message (where warnings are errors, ``-W error``, that ends the
    generator and its batch is lost: filter the warning out to read such a file). The file is
    opened when ``read`` is called, and the generator may be moved to another thread.

    Raises:
        FileNotFoundError: the file does not exist (the message names it).
        ValueError: an unknown format, a ``batch`` below 1, or (on the first batch) a CSV
            without the puzzle column.
        TypeError: a ``batch`` or ``column`` of another type.
    """
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)):
        raise TypeError(f"batch: expected an integer, got {type(batch).__name__}")
    _whole("batch", batch, least=1)
    if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
        column = str(int(column))
    reader = _native.Reader(os.fsdecode(path), format, column)
    return _batches(reader, int(batch), os.fsdecode(path))


def _batches(reader, batch, name):
    """The batches of :func:`read`; the records of a batch that are not puzzles are named, by
    line and the CLI's message, in one warning per batch."""
    while True:
        got = reader.next_batch(batch)
        if got is None:
            return
        cells, bad = got
        if bad:
            shown = "; ".join(f"line {line}: {message}" for _, line, message in bad[:5])
            more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
            warnings.warn(
                f"{name}: {len(bad)} record(s) are not puzzles, rows of 255: {shown}{more}",
                stacklevel=2,
            )
        yield cells
