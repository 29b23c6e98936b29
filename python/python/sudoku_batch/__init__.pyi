"""Type stubs for sudoku_batch: solve Sudoku puzzles in bulk from numpy and pandas."""

from os import PathLike
from typing import Any, Iterator, Sequence, Union

import numpy as np
import numpy.typing as npt

Puzzles = Union[Sequence[str], Sequence[bytes], npt.NDArray[Any], Any]

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

SOLVED: int
"""The puzzle has a solution (with unique=True: exactly one)."""
UNSOLVABLE: int
"""The puzzle has no solution."""
MULTIPLE: int
"""unique=True and the puzzle has two or more solutions."""
INVALID: int
"""Not a puzzle, or clues that contradict each other."""
MISMATCH: int
"""The solver's grid failed the independent check (a solver bug)."""
GAVE_UP: int
"""max_guesses was reached before the puzzle was decided."""
STATUS_NAMES: dict[int, str]
RATE_RATED: int
"""rate: exactly one solution, rated."""
RATE_UNSOLVABLE: int
"""rate: no solution (not rated)."""
RATE_MULTIPLE: int
"""rate: two or more solutions (not rated)."""
RATE_INVALID: int
"""rate: not a puzzle, or contradictory clues (not rated)."""
RATE_GAVE_UP: int
"""rate: max_er or timeout_ms reached; the rating is a lower bound."""
RATE_STATUS_NAMES: dict[int, str]
SCALES: tuple[str, ...]
DIFFICULTIES: tuple[str, ...]

class RateResult:
    """One row per puzzle, in order, as `sudoku-batch rate` writes."""

    er: npt.NDArray[np.float32]
    ep: npt.NDArray[np.float32]
    ed: npt.NDArray[np.float32]
    technique: list[str]
    steps: npt.NDArray[np.int32]
    """(N,): steps on the solving path; -1 where not rated."""
    status: npt.NDArray[np.uint8]
    """(N,): RATE_RATED, RATE_UNSOLVABLE, RATE_MULTIPLE, RATE_INVALID or RATE_GAVE_UP."""
    rate_ns: npt.NDArray[np.uint64]
    message: list[str]
    def __init__(
        self,
        er: npt.NDArray[np.float32],
        ep: npt.NDArray[np.float32],
        ed: npt.NDArray[np.float32],
        technique: list[str],
        steps: npt.NDArray[np.int32],
        status: npt.NDArray[np.uint8],
        rate_ns: npt.NDArray[np.uint64],
        message: list[str],
    ) -> None: ...
    def __len__(self) -> int: ...
    def status_words(self) -> list[str]: ...
    def counts(self) -> dict[str, int]: ...
    def to_pandas(self, index: Any = None) -> Any:
        """A pandas DataFrame (needs pandas); `index`: one label per row (default 0..N-1)."""

def rate(
    puzzles: Puzzles,
    *,
    threads: int | None = None,
    max_er: float | None = None,
    timeout_ms: int | None = None,
    se121: bool = True,
    scale: str | None = None,
) -> RateResult:
    """Sudoku Explainer ratings (ER/EP/ED) of every puzzle, as `sudoku-batch rate`."""

class ExplainStep:
    """One step of a solving path, as `sudoku-batch rate --explain` writes it."""

    technique: str
    rating: float
    cells: list[str]
    placements: list[tuple[str, int]]
    eliminations: list[tuple[str, int]]
    text: str
    chains: list[list[tuple[str, int, bool]]]
    def __init__(
        self,
        technique: str,
        rating: float,
        cells: list[str],
        placements: list[tuple[str, int]],
        eliminations: list[tuple[str, int]],
        text: str,
        chains: list[list[tuple[str, int, bool]]],
    ) -> None: ...

class Explanation:
    """One puzzle's rating and the solving path behind it."""

    status: str
    message: str
    er: float
    ep: float
    ed: float
    technique: str
    steps: list[ExplainStep]
    text: str
    def __init__(
        self,
        status: str,
        message: str,
        er: float,
        ep: float,
        ed: float,
        technique: str,
        steps: list[ExplainStep],
        text: str,
    ) -> None: ...
    def __len__(self) -> int: ...

def explain(
    puzzle: str | bytes | npt.ArrayLike,
    *,
    max_er: float | None = None,
    timeout_ms: int | None = None,
    se121: bool = True,
    scale: str | None = None,
) -> Explanation:
    """The solving path of one puzzle in words, as `sudoku-batch rate --explain`."""

class SolveResult:
    """One row per puzzle, in order."""

    solutions: npt.NDArray[np.uint8]
    """(N, 81): the solution of each SOLVED row, zeros elsewhere."""
    status: npt.NDArray[np.uint8]
    """(N,): SOLVED, UNSOLVABLE, MULTIPLE, INVALID, MISMATCH or GAVE_UP."""
    guesses: npt.NDArray[np.uint64]
    """(N,): branch points the search tried."""
    solve_ns: npt.NDArray[np.uint64]
    """(N,): nanoseconds in the solver."""
    message: list[str]
    """Why a row is not SOLVED ("" for solved rows)."""
    def __init__(
        self,
        solutions: npt.NDArray[np.uint8],
        status: npt.NDArray[np.uint8],
        guesses: npt.NDArray[np.uint64],
        solve_ns: npt.NDArray[np.uint64],
        message: list[str],
    ) -> None: ...
    def __len__(self) -> int: ...
    def counts(self) -> dict[str, int]:
        """Rows per status word."""
    def solution_strings(self) -> list[str]:
        """Solutions as 81-character strings ("" where there is none)."""
    def to_pandas(self, index: Any = None) -> Any:
        """A pandas DataFrame: solution, status, guesses, solve_ns, message (needs pandas);
        `index`: one label per row (default 0..N-1), e.g. the puzzles' `df.index`."""

class VerifyResult:
    """One row per puzzle."""

    ok: npt.NDArray[np.bool_]
    kind: list[str]
    """"" or one of malformed, wrong_length, incomplete, broken_rule, clue_contradicted,
    not_unique, no_solution; skipped for a row with no solution to check (unique off)."""
    message: list[str]
    def __init__(self, ok: npt.NDArray[np.bool_], kind: list[str], message: list[str]) -> None: ...
    def __len__(self) -> int: ...
    @property
    def failures(self) -> int: ...
    @property
    def skipped(self) -> int: ...

def solve(
    puzzles: Puzzles,
    *,
    threads: int | None = None,
    unique: bool = False,
    solver: str = "bands",
    max_guesses: int | None = None,
) -> SolveResult:
    """Solves every puzzle on all cores (or `threads`), GIL released; bad rows are INVALID."""

def count_solutions(
    puzzles: Puzzles, limit: int = 2, *, threads: int | None = None, solver: str = "bands"
) -> npt.NDArray[np.int64]:
    """Solutions per puzzle up to `limit`; -1 for rows that are not puzzles."""

def verify(
    puzzles: Puzzles,
    solutions: Puzzles | None = None,
    *,
    unique: bool = False,
    threads: int | None = None,
    solver: str = "bands",
) -> VerifyResult:
    """Checks solutions against puzzles as `sudoku-batch verify` does."""

SYMMETRIES: tuple[str, ...]
"""The symmetry names `generate` accepts (the CLI's --symmetry names)."""

class GenerateResult:
    """Puzzle i of the run is row i."""

    puzzles: npt.NDArray[np.uint8]
    solutions: npt.NDArray[np.uint8]
    clues: npt.NDArray[np.uint8]
    seed: int
    def __init__(
        self,
        puzzles: npt.NDArray[np.uint8],
        solutions: npt.NDArray[np.uint8],
        clues: npt.NDArray[np.uint8],
        seed: int,
    ) -> None: ...
    def __len__(self) -> int: ...
    def puzzle_strings(self) -> list[str]: ...
    def to_pandas(self, index: Any = None) -> Any:
        """Columns puzzle, solution, clues (the CLI's generate --with-solution file);
        `index`: one label per row (default 0..N-1)."""

def generate(
    n: int,
    *,
    seed: int | None = None,
    minimal: bool = False,
    symmetric: bool | str = False,
    clues: int | None = None,
    min_clues: int | None = None,
    max_clues: int | None = None,
    threads: int | None = None,
    solver: str = "bands",
    er: tuple[float, float] | None = None,
    scale: str | None = None,
    difficulty: str | None = None,
    max_guesses: int | None = None,
) -> GenerateResult:
    """n unique puzzles; the same seed and options give the CLI's `generate` output."""

def read(
    path: Union[str, bytes, PathLike[str], PathLike[bytes]],
    format: str = "auto",
    column: str | int | None = None,
    batch: int = 100_000,
) -> Iterator[npt.NDArray[np.uint8]]:
    """Yields (N, 81) uint8 batches from any file the CLI reads (compressed included)."""

def to_cells(puzzles: Puzzles) -> npt.NDArray[np.uint8]:
    """Any accepted form as a (N, 81) uint8 array; non-puzzle rows are 255s."""

def to_strings(cells: npt.NDArray[np.uint8]) -> list[str]:
    """81-character strings ('.' for blanks) of a (N, 81) cell array."""
