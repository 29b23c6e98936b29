import gzip
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import sudoku_batch as sb

DATA = Path(__file__).resolve().parents[2] / "data"
CLASSIC = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
CLASSIC_SOL = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
# Two 5s in row 1.
CONTRADICTORY = "55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
# No conflict among the clues, but cell 1 (row 1, column 1) has no candidate left.
UNSOLVABLE_P = ".23456789" + "1" + "." * 71
EMPTY = "." * 81


def kaggle(n=None):
    import csv

    with open(DATA / "kaggle3m_radcliffe_first1000.csv") as f:
        rows = list(csv.DictReader(f))
    rows = rows[:n] if n else rows
    return [r["puzzle"] for r in rows], [r["solution"] for r in rows]


def test_every_status():
    r = sb.solve([CLASSIC, UNSOLVABLE_P, EMPTY, CONTRADICTORY, "abc"], unique=True)
    assert r.status.tolist() == [sb.SOLVED, sb.UNSOLVABLE, sb.MULTIPLE, sb.INVALID, sb.INVALID]
    assert sb.to_strings(r.solutions[:1]) == [CLASSIC_SOL]
    assert not r.solutions[1:].any()
    assert r.message[0] == ""
    assert r.message[1] == "no solution"
    assert r.message[2] == "at least 2 solutions"
    assert r.message[3].startswith("contradictory clues: digit 5 appears twice in row 1")
    assert r.message[4] == "expected 81 cells, found 3"
    assert r.counts() == {"solved": 1, "unsolvable": 1, "multiple": 1, "invalid": 2}


def test_without_unique_a_multiple_puzzle_is_solved():
    r = sb.solve([EMPTY])
    assert r.status[0] == sb.SOLVED
    assert sb.verify([EMPTY], r.solutions).ok.all()


def test_input_forms_agree():
    puzzles, solutions = kaggle(200)
    expected = sb.solve(puzzles)
    assert (expected.status == sb.SOLVED).all()
    assert sb.to_strings(expected.solutions) == solutions
    forms = [
        np.array(puzzles, dtype="S81"),
        np.array(puzzles, dtype="U81"),
        np.array(puzzles, dtype=object),
        [p.encode() for p in puzzles],
        tuple(puzzles),
        sb.to_cells(puzzles),
        sb.to_cells(puzzles).astype(np.int64),
        np.asfortranarray(sb.to_cells(puzzles)),
    ]
    for form in forms:
        r = sb.solve(form)
        assert (r.solutions == expected.solutions).all(), type(form)
        assert (r.status == expected.status).all()
    assert sb.solve(CLASSIC).status.tolist() == [sb.SOLVED]


def test_pandas_series_and_dataframe():
    pd = pytest.importorskip("pandas")
    # Without dtype, pandas reads the all-digit solution column as (huge) integers.
    df = pd.read_csv(DATA / "kaggle3m_radcliffe_first1000.csv", dtype={"puzzle": str, "solution": str})
    r = sb.solve(df["puzzle"])
    out = r.to_pandas()
    assert list(out.columns) == ["solution", "status", "guesses", "solve_ns", "message"]
    assert (out["solution"] == df["solution"]).all()
    assert (out["status"] == "solved").all()
    assert sb.verify(df["puzzle"], df["solution"]).ok.all()
    # Two columns are not one column of puzzles: refused, not read as twice the rows.
    with pytest.raises(ValueError, match="1-d array of strings"):
        sb.rate(df[["puzzle", "solution"]].head(3))
    with pytest.raises(ValueError, match="1-d array of strings"):
        sb.solve(sb.to_cells(df["puzzle"].head(3)).astype(object))


def test_bad_strings_are_rows_not_exceptions():
    r = sb.solve([CLASSIC, CLASSIC[:80] + "x", CLASSIC[:80], None, "", CLASSIC[:80] + "é"])
    assert r.status.tolist() == [sb.SOLVED] + [sb.INVALID] * 5
    assert "invalid character 'x' at cell 81" in r.message[1]
    assert r.message[2] == "expected 81 cells, found 80"
    assert r.message[3] == "expected a puzzle string, got NoneType"
    assert r.message[4] == "expected 81 cells, found 0"
    assert "'é' at cell 81" in r.message[5]
    s = sb.solve(np.array([CLASSIC, CLASSIC[:79]], dtype="S81"))
    assert s.status.tolist() == [sb.SOLVED, sb.INVALID]
    assert s.message[1] == "expected 81 cells, found 79"
    u = sb.solve(np.array([CLASSIC[:80] + "é"], dtype="U81"))
    assert u.status.tolist() == [sb.INVALID]
    # A lone surrogate cannot be UTF-8: still a row, not an exception.
    lone = sb.rate([CLASSIC, "\udc80" * 81])
    assert lone.status_words() == ["rated", "invalid"] and "lone surrogate" in lone.message[1]


def test_surrounding_whitespace_is_trimmed():
    assert sb.solve([" " + CLASSIC + "\n"]).status[0] == sb.SOLVED
    # Whitespace as str.strip counts it, not only ASCII.
    for space in ["\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u3000", "\u2028"]:
        padded = space + CLASSIC + space
        assert padded.strip() == CLASSIC
        assert sb.solve([padded]).status[0] == sb.SOLVED, repr(space)
        assert sb.rate([padded]).status_words() == ["rated"], repr(space)


def test_out_of_range_cells_are_invalid_rows():
    cells = sb.to_cells([CLASSIC, CLASSIC])
    cells[1, 5] = 10
    r = sb.solve(cells)
    assert r.status.tolist() == [sb.SOLVED, sb.INVALID]
    assert r.message[1] == "cell 6 holds 10, expected 0-9"
    wide = sb.to_cells([CLASSIC, CLASSIC]).astype(np.int32)
    wide[0, 0] = -1
    assert sb.solve(wide).status.tolist() == [sb.INVALID, sb.SOLVED]
    assert sb.solve(wide).message[0] == "cell 1 holds -1, expected 0-9"
    # Past what any numpy integer holds: the same row, in lists and for explain.
    classic = sb.to_cells([CLASSIC])[0].tolist()
    for big in (2**64, -(2**63) - 1, 2**70):
        row = [big] + classic[1:]
        r = sb.solve([row, classic])
        assert r.status.tolist() == [sb.INVALID, sb.SOLVED]
        assert r.message[0] == f"cell 1 holds {big}, expected 0-9"
        assert sb.explain(row).message == f"cell 1 holds {big}, expected 0-9"


def test_rows_that_fail_alike_share_one_message_string():
    # A million rows of garbage hold one message, not a million (and rated rows one string per
    # technique name).
    bad = ["x", "y", CLASSIC[:80], "z"]
    for result in (sb.solve(bad), sb.rate(bad), sb.verify(bad, unique=True)):
        m = result.message
        assert m[0].endswith("expected 81 cells, found 1"), m[0]
        assert m[0] is m[1] and m[1] is m[3]
        assert m[2].endswith("expected 81 cells, found 80")
    cells = sb.to_cells([CLASSIC] * 3)
    cells[:, 0] = 10
    for result in (sb.solve(cells), sb.rate(cells), sb.verify(cells, unique=True)):
        m = result.message
        assert m[0].endswith("cell 1 holds 10, expected 0-9"), m[0]
        assert m[0] is m[1] and m[1] is m[2]
    rated = sb.rate([CLASSIC] * 3)
    assert rated.technique[0] != "" and rated.technique[0] is rated.technique[2]


def test_a_cell_holding_255_is_named_with_its_value():
    cells = sb.to_cells([CLASSIC, CLASSIC, CLASSIC])
    cells[1, 3] = 255
    cells[2] = 255
    r = sb.solve(cells)
    assert r.status.tolist() == [sb.SOLVED, sb.INVALID, sb.INVALID]
    assert r.message[1] == "cell 4 holds 255, expected 0-9"
    # A whole row of 255s is the mark of a record that could not be read.
    assert r.message[2].startswith("every cell holds 255")
    assert sb.rate(cells).message[1] == "cell 4 holds 255, expected 0-9"
    assert sb.verify(cells, unique=True).message[1] == "puzzle: cell 4 holds 255, expected 0-9"
    assert sb.explain(cells[1]).message == "cell 4 holds 255, expected 0-9"
    assert sb.count_solutions(cells).tolist() == [1, -1, -1]


def test_masked_cells_are_blanks_and_masked_strings_are_not_puzzles():
    blanks = sb.to_cells([CLASSIC]) == 0
    # The solution with every cell the puzzle leaves blank masked is the puzzle.
    masked = np.ma.masked_array(sb.to_cells([CLASSIC_SOL]), mask=blanks)
    assert (sb.to_cells(masked) == sb.to_cells([CLASSIC])).all()
    assert sb.to_strings(masked) == [CLASSIC]
    assert sb.count_solutions(masked).tolist() == [1]
    assert sb.explain(masked[0]).technique == sb.explain(CLASSIC).technique
    # What a masked cell holds does not matter, out of range or not, in any integer dtype.
    junk = np.ma.masked_array(np.where(blanks, 300, sb.to_cells([CLASSIC_SOL])), mask=blanks)
    r = sb.solve(junk, unique=True)
    assert r.status.tolist() == [sb.SOLVED] and r.solution_strings() == [CLASSIC_SOL]
    # A masked solution cell is a blank: the solution is incomplete.
    partial = np.ma.masked_array(sb.to_cells([CLASSIC_SOL]), mask=np.arange(81)[None, :] == 80)
    assert sb.verify([CLASSIC], partial).kind == ["incomplete"]
    # A row of masked cells is all blanks, as `filled(0)`: no solution given.
    rows = np.vstack([sb.to_cells([CLASSIC_SOL])] * 2)
    none_given = np.ma.masked_array(rows, mask=np.arange(2)[:, None] == np.zeros((1, 81)))
    assert sb.verify([CLASSIC] * 2, none_given).kind == sb.verify([CLASSIC] * 2, none_given.filled(0)).kind == ["skipped", ""]
    # A masked string is a row with no puzzle.
    texts = np.ma.masked_array(np.array([CLASSIC, "junk", CLASSIC], dtype="U81"), mask=[0, 1, 1])
    s = sb.solve(texts)
    assert s.status.tolist() == [sb.SOLVED, sb.INVALID, sb.INVALID]
    assert s.message[1:] == ["masked: no puzzle"] * 2
    assert sb.to_cells(texts)[1:].tolist() == [[255] * 81] * 2


def test_wrong_dtype_and_shape():
    with pytest.raises(TypeError, match=r"expected dtype uint8.*got float64"):
        sb.solve(np.zeros((2, 81)))
    with pytest.raises(ValueError, match=r"expected shape \(N, 81\), got \(2, 80\)"):
        sb.solve(np.zeros((2, 80), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"expected shape \(N, 81\), got \(81,\)"):
        sb.solve(np.zeros(81, dtype=np.uint8))
    with pytest.raises(TypeError, match="got int"):
        sb.solve(42)
    with pytest.raises(ValueError, match="unknown solver"):
        sb.solve([CLASSIC], solver="magic")
    with pytest.raises(ValueError, match="threads must be at least 1"):
        sb.solve([CLASSIC], threads=0)
    with pytest.raises(ValueError, match="threads must be at least 1, got -1"):
        sb.solve([CLASSIC], threads=-1)
    with pytest.raises(ValueError, match="limit must be at least 1, got -1"):
        sb.count_solutions([CLASSIC], limit=-1)
    with pytest.raises(TypeError, match="limit: expected an integer, got bool"):
        sb.count_solutions([CLASSIC], limit=True)
    with pytest.raises(TypeError, match="threads: expected an integer, got bool"):
        sb.solve([CLASSIC], threads=True)
    with pytest.raises(ValueError, match=r"puzzles: expected rows of 81 cells, got rows of 3 to 81"):
        sb.solve([[1, 2, 3], [0] * 81])
    # The command line's bound: a mistyped count must not start a million threads.
    # Past a machine word too: the same message, naming the count as given.
    for call in (sb.solve, sb.rate, sb.count_solutions, sb.verify):
        with pytest.raises(ValueError, match="per logical core"):
            call([CLASSIC], threads=10**6)
        with pytest.raises(ValueError, match=f"threads={2**64} is more than .* per logical core"):
            call([CLASSIC], threads=2**64)


def test_a_bytearray_is_text_as_bytes_are():
    text = bytearray(CLASSIC.encode())
    assert sb.explain(text).er == sb.explain(CLASSIC).er
    assert str(sb.explain(text)) == str(sb.explain(CLASSIC))
    assert (sb.to_cells([text]) == sb.to_cells([CLASSIC])).all()
    assert (sb.to_cells(text) == sb.to_cells([CLASSIC])).all()


def test_to_strings_refuses_what_is_not_a_grid():
    cells = sb.to_cells([CLASSIC])
    assert sb.to_strings(cells) == [CLASSIC]
    assert sb.to_strings(cells.astype(np.int64)) == [CLASSIC]
    with pytest.raises(ValueError, match="row 1 has a cell outside 0-9"):
        sb.to_strings(np.vstack([cells, np.full((1, 81), 255, np.uint8)]))
    with pytest.raises(TypeError, match="integer"):
        sb.to_strings(cells.astype(np.float64))


def test_empty_input():
    r = sb.solve([])
    assert r.solutions.shape == (0, 81) and len(r) == 0
    assert sb.solve(np.zeros((0, 81), dtype=np.uint8)).status.shape == (0,)


@pytest.mark.parametrize("solver", ["naive", "backtrack", "singles", "bands"])
def test_solvers_agree(solver):
    puzzles, solutions = kaggle(50)
    r = sb.solve(puzzles, solver=solver, unique=True)
    assert sb.to_strings(r.solutions) == solutions


def test_thread_count_invariance():
    puzzles = [line.split()[0] for line in open(DATA / "magictour_top1465.txt") if line.strip()]
    puzzles += [EMPTY, CONTRADICTORY, "junk"]
    one = sb.solve(puzzles, threads=1, unique=True)
    two = sb.solve(puzzles, threads=2, unique=True)
    assert (one.solutions == two.solutions).all()
    assert (one.status == two.status).all()
    assert (one.guesses == two.guesses).all()
    assert one.message == two.message
    assert (sb.count_solutions(puzzles, 3, threads=1) == sb.count_solutions(puzzles, 3, threads=2)).all()


def test_count_solutions():
    counts = sb.count_solutions([CLASSIC, EMPTY, UNSOLVABLE_P, CONTRADICTORY, "x"], limit=5)
    assert counts.tolist() == [1, 5, 0, 0, -1]
    assert sb.count_solutions([EMPTY]).tolist() == [2]


@pytest.mark.parametrize("call", [
    "sb.count_solutions(['.' * 81], limit=2**32 - 1, threads=1)",
    "sb.generate(10**6, seed=1, threads=1)",
])
def test_a_call_in_a_daemon_thread_lets_the_interpreter_exit(call):
    # CPython ends a daemon thread that takes the GIL back during shutdown; inside a call that
    # would unwind through Rust frames (an abort or a crash). The call must let the exit be.
    import subprocess
    import sys

    script = (
        "import sudoku_batch as sb, threading, time\n"
        f"t = threading.Thread(target=lambda: {call}, daemon=True)\n"
        "t.start()\n"
        "time.sleep(0.3)\n"
        "assert t.is_alive()\n"
    )
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        assert b"FATAL" not in done.stderr


@pytest.mark.parametrize("late", [
    # The exit's own thread is never held: a call from an atexit hook (one registered before
    # the package's runs after it) or a finalizer works as usual.
    "    print(sb.count_solutions(['.' * 81], limit=3).tolist(), flush=True)\n",
    # Only daemon threads are held: a thread the hook starts and joins finishes its call.
    "    t = threading.Thread(target=lambda: print(sb.count_solutions(['.' * 81], limit=3).tolist(), flush=True))\n"
    "    t.start(); t.join()\n",
])
def test_a_call_from_an_exit_hook_runs(late):
    import subprocess
    import sys

    script = (
        "import atexit, threading\n"
        "def late():\n"
        "    import sudoku_batch as sb\n"
        + late
        + "atexit.register(late)\n"
        "import sudoku_batch\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b"[3]\n"


def test_bytes_arrays_are_utf8_text_as_lists_of_bytes_are():
    text = (CLASSIC[:80] + "é").encode()
    for puzzles in ([text], np.array([text])):
        r = sb.solve(puzzles)
        assert r.status.tolist() == [sb.INVALID]
        assert r.message[0].startswith("invalid character 'é' at cell 81 ("), type(puzzles)


def test_verify_skips_rows_without_a_solution_as_the_cli_does():
    puzzles = [CLASSIC, UNSOLVABLE_P, EMPTY, CLASSIC]
    r = sb.solve(puzzles)
    assert r.status.tolist() == [sb.SOLVED, sb.UNSOLVABLE, sb.SOLVED, sb.SOLVED]
    strings = r.solution_strings()
    strings[2] = None  # a row given no solution, in three spellings across the forms below
    cells = r.solutions.copy()
    cells[2] = 0
    forms = [cells, strings, np.array([s or "" for s in strings]), [s or float("nan") for s in strings]]
    for solutions in forms:
        v = sb.verify(puzzles, solutions)
        assert v.kind == ["", "skipped", "skipped", ""], type(solutions)
        assert (v.failures, v.skipped) == (0, 2)
        # With unique=True the puzzle of such a row is proven instead.
        u = sb.verify(puzzles, solutions, unique=True)
        assert u.kind == ["", "no_solution", "not_unique", ""], type(solutions)
    # Eighty-one blanks are a grid, an incomplete one, as on the command line.
    assert sb.verify([CLASSIC], [EMPTY]).kind == ["incomplete"]
    pd = pytest.importorskip("pandas")
    series = pd.Series([CLASSIC_SOL, None, pd.NA, ""], dtype=object)
    assert sb.verify([CLASSIC] * 4, series).kind == ["", "skipped", "skipped", "skipped"]


def test_verify_kinds():
    bad_rule = "5" + CLASSIC_SOL[1:].replace("5", "3", 1)  # not a permutation any more
    swapped = CLASSIC_SOL[1] + CLASSIC_SOL[0] + CLASSIC_SOL[2:]
    puzzles = [CLASSIC, CLASSIC, CLASSIC, CLASSIC, CLASSIC, "x" * 81, EMPTY]
    solutions = [
        CLASSIC_SOL,
        CLASSIC_SOL[:80],
        "." + CLASSIC_SOL[1:],
        bad_rule,
        swapped,
        CLASSIC_SOL,
        CLASSIC_SOL,
    ]
    v = sb.verify(puzzles, solutions, unique=True)
    assert v.kind == [
        "",
        "wrong_length",
        "incomplete",
        "broken_rule",
        "broken_rule",
        "malformed",
        "not_unique",
    ]
    assert v.ok.tolist() == [True] + [False] * 6
    assert v.failures == 6
    assert v.message[1] == "solution: expected 81 cells, found 80"
    assert v.message[2] == "solution has 1 blank cell"
    # A complete valid grid that changes a clue.
    other = CLASSIC_SOL.translate(str.maketrans("123456789", "234567891"))
    assert sb.verify([CLASSIC], [other]).kind == ["clue_contradicted"]
    assert sb.verify([EMPTY], [other]).kind == [""]
    assert sb.verify([CLASSIC, EMPTY, UNSOLVABLE_P], unique=True).kind == [
        "",
        "not_unique",
        "no_solution",
    ]
    with pytest.raises(ValueError, match="expected as many solutions as puzzles"):
        sb.verify([CLASSIC], [CLASSIC_SOL, CLASSIC_SOL])
    # No solution to check and no uniqueness asked for: skipped, as the CLI counts it (not a
    # failure, and not said to pass).
    skipped = sb.verify([CLASSIC, UNSOLVABLE_P, "x"])
    assert skipped.kind == ["skipped", "skipped", "wrong_length"]
    assert skipped.ok.tolist() == [True, True, False]
    assert (skipped.failures, skipped.skipped) == (1, 2)
    assert "nothing was checked" in skipped.message[1]


def test_read_lines_csv_gz_and_errors(tmp_path):
    lines = list(sb.read(DATA / "magictour_top1465.txt", batch=500))
    assert [len(b) for b in lines] == [500, 500, 465]
    all_lines = np.concatenate(lines)
    expected = sb.to_cells([l.split()[0] for l in open(DATA / "magictour_top1465.txt") if l.strip()])
    assert (all_lines == expected).all()

    csv_batches = list(sb.read(DATA / "kaggle3m_radcliffe_first1000.csv"))
    puzzles, _ = kaggle()
    assert len(csv_batches) == 1 and (csv_batches[0] == sb.to_cells(puzzles)).all()
    by_column = np.concatenate(list(sb.read(DATA / "kaggle3m_radcliffe_first1000.csv", format="csv", column="solution", batch=64)))
    assert (by_column == sb.to_cells(kaggle()[1])).all()

    gz = tmp_path / "top.txt.gz"
    with open(DATA / "magictour_top1465.txt", "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert (np.concatenate(list(sb.read(gz))) == expected).all()
    # A path given as bytes is the same file.
    assert (np.concatenate(list(sb.read(os.fsencode(gz)))) == expected).all()

    bad = tmp_path / "bad.txt"
    bad.write_text(CLASSIC + "\n" + CLASSIC[:40] + "\n")
    # The record that is not a puzzle is named by its line, with the CLI's message.
    with pytest.warns(UserWarning, match=r"bad.txt: 1 record\(s\) are not puzzles, rows of 255: line 2: expected 81 cells, found 40"):
        (batch,) = sb.read(bad)
    r = sb.solve(batch)
    assert r.status.tolist() == [sb.SOLVED, sb.INVALID]

    # Raised by the call itself, not at the first batch.
    with pytest.raises(FileNotFoundError, match="no-such-file.txt"):
        sb.read(tmp_path / "no-such-file.txt")
    with pytest.raises(ValueError, match="unknown format"):
        sb.read(bad, format="xml")
    with pytest.raises(ValueError, match="batch must be at least 1, got -1"):
        sb.read(bad, batch=-1)
    with pytest.raises(TypeError, match="batch"):
        sb.read(bad, batch=1.5)
    # A column number may be an int.
    by_number = np.concatenate(list(sb.read(DATA / "kaggle3m_radcliffe_first1000.csv", column=3)))
    assert (by_number == by_column).all()


def test_read_errors_name_the_arguments_not_the_clis_flags(tmp_path):
    no_puzzle = tmp_path / "no_puzzle.csv"
    no_puzzle.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(ValueError, match="no puzzle column") as missing:
        list(sb.read(no_puzzle))
    assert str(missing.value).endswith("name one with column=")
    twice = tmp_path / "twice.csv"
    twice.write_text("puzzle,puzzle\n" + CLASSIC + "," + CLASSIC + "\n")
    with pytest.raises(ValueError, match=r"by number \(column=N\)") as both:
        list(sb.read(twice))
    lines = tmp_path / "lines.txt"
    lines.write_text(CLASSIC + "\n")
    with pytest.raises(ValueError, match='column="2" names a CSV column') as not_csv:
        list(sb.read(lines, column=2))
    assert 'drop column=, or give format="csv"' in str(not_csv.value)
    for e in (missing, both, not_csv):
        assert "--" not in str(e.value), str(e.value)
    # Named by number, the column reads.
    assert (np.concatenate(list(sb.read(twice, column=2))) == sb.to_cells([CLASSIC])).all()


def test_a_read_generator_may_go_on_in_another_thread():
    batches = sb.read(DATA / "magictour_top1465.txt", batch=100)
    first = next(batches)
    rest, errors = [], []

    def finish():
        try:
            rest.extend(batches)
        except BaseException as e:  # noqa: BLE001 - the test reports whatever was raised
            errors.append(e)

    worker = threading.Thread(target=finish)
    worker.start()
    worker.join()
    assert errors == []
    expected = sb.to_cells([l.split()[0] for l in open(DATA / "magictour_top1465.txt") if l.strip()])
    assert (np.concatenate([first] + rest) == expected).all()


def test_out_of_range_integer_arguments_are_value_errors_naming_them():
    for call, name in [
        (lambda: sb.solve([CLASSIC], threads=-1), "threads"),
        (lambda: sb.solve([CLASSIC], max_guesses=-1), "max_guesses"),
        (lambda: sb.count_solutions([CLASSIC], limit=-1), "limit"),
        (lambda: sb.count_solutions([CLASSIC], limit=2**32), "limit"),
        (lambda: sb.rate([CLASSIC], timeout_ms=0), "timeout_ms"),
        (lambda: sb.explain(CLASSIC, timeout_ms=-1), "timeout_ms"),
        (lambda: sb.verify([CLASSIC], threads=-2), "threads"),
        (lambda: sb.generate(2, seed=1, clues=-1), "clues"),
        (lambda: sb.generate(2**64, seed=1), "n"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()


def test_a_list_of_integer_rows_is_an_integer_array():
    rows = sb.to_cells([CLASSIC]).tolist()
    assert sb.solve(rows).status.tolist() == [sb.SOLVED]
    assert (sb.to_cells(rows) == sb.to_cells([CLASSIC])).all()
    with pytest.raises(ValueError, match="shape"):
        sb.solve([[1, 2, 3]])


def test_big_endian_string_arrays_read_as_native_ones():
    native = sb.solve(np.array([CLASSIC], dtype="<U81"))
    swapped = sb.solve(np.array([CLASSIC], dtype=">U81"))
    assert swapped.status.tolist() == [sb.SOLVED]
    assert (swapped.solutions == native.solutions).all()


def test_a_column_with_no_value_at_all_is_missing_values():
    # pandas reads a CSV column that is empty in every row as float64 NaN.
    nan = np.full(2, np.nan)
    assert sb.verify([CLASSIC] * 2, nan).kind == ["skipped", "skipped"]
    assert sb.solve(nan).status.tolist() == [sb.INVALID] * 2
    pd = pytest.importorskip("pandas")
    assert sb.verify(pd.Series([CLASSIC] * 2), pd.Series(nan)).skipped == 2
    # Numbers are no puzzles: an array that holds any is still refused.
    with pytest.raises(TypeError, match=r"expected dtype uint8.*got float64"):
        sb.solve(np.array([np.nan, 1.0]))


def test_a_flat_list_of_integers_is_refused_as_the_flat_array_is():
    cells = sb.to_cells([CLASSIC])[0]
    with pytest.raises(ValueError, match=r"flat list of 81 integers \(one puzzle's cells are \[cells\]\)"):
        sb.solve([int(c) for c in cells])
    with pytest.raises(ValueError, match=r"solutions: expected puzzle strings"):
        sb.verify([CLASSIC], list(sb.to_cells([CLASSIC_SOL])[0]))
    assert sb.solve([[int(c) for c in cells]]).solution_strings() == [CLASSIC_SOL]


def test_zero_dimensional_string_arrays_are_their_strings():
    items = [np.array(CLASSIC), np.array(CLASSIC.encode()), np.array(5)]
    r = sb.solve(items)
    assert r.status.tolist() == [sb.SOLVED, sb.SOLVED, sb.INVALID]
    assert r.message[2] == "expected a puzzle string, got int"


@pytest.mark.skipif(not hasattr(np, "dtypes") or not hasattr(np.dtypes, "StringDType"),
                    reason="numpy 2's StringDType")
def test_variable_width_string_arrays_are_text():
    arr = np.array([CLASSIC, "x"], dtype=np.dtypes.StringDType())
    assert sb.solve(arr).status.tolist() == [sb.SOLVED, sb.INVALID]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_the_default_thread_count_is_the_cores_whatever_rayon_num_threads_says():
    import subprocess
    import sys

    script = f"""
import os, threading, time, sudoku_batch as sb
hard = [l.strip() for l in open({str(DATA / "norvig_sudokus_hard_375.txt")!r})][:4]
base = len(os.listdir("/proc/self/task"))  # numpy's BLAS may have threads of its own
seen, done = [0], threading.Event()
def watch():
    while not done.is_set():
        seen[0] = max(seen[0], len(os.listdir("/proc/self/task")))
        time.sleep(0.005)
w = threading.Thread(target=watch)
w.start()
sb.rate(hard)
done.set()
w.join()
print(seen[0] - base)
"""
    env = dict(os.environ, RAYON_NUM_THREADS="64")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    # The threads the call added: the pool's and the watcher, far from 64.
    assert int(out.stdout) <= os.cpu_count() + 2, out.stdout


def test_ctrl_c_raises_keyboard_interrupt_quickly():
    cells = np.repeat(sb.to_cells(kaggle()[0]), 3000, axis=0)  # 3M puzzles: several seconds
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sb.solve(cells, threads=2)
    elapsed = time.monotonic() - started
    timer.cancel()
    assert elapsed < 1.5, elapsed


# A sparse grid with no solution, found by fuzzing: 6,757 guesses to prove it with `bands`.
SLOW = ".........................54613.........9...........613.613...8...........9......."


def test_max_guesses_gives_up_and_matches_the_cli(tmp_path):
    puzzles = [SLOW, CLASSIC]
    result = sb.solve(puzzles, max_guesses=1000, threads=1)
    assert result.status.tolist() == [sb.GAVE_UP, sb.SOLVED]
    assert sb.STATUS_NAMES[sb.GAVE_UP] == "gave_up"
    assert result.guesses[0] == 1001
    assert result.message[0] == "gave up after 1001 guesses"
    assert result.solution_strings()[1] == CLASSIC_SOL
    cli = os.environ.get("SUDOKU_BATCH_BIN")
    if cli:
        import csv
        import subprocess

        src = tmp_path / "p.txt"
        src.write_text("\n".join(puzzles) + "\n")
        out = tmp_path / "out.csv"
        done = subprocess.run(
            [cli, "solve", str(src), "-o", str(out), "-q", "--max-guesses", "1000", "-j", "1"]
        )
        assert done.returncode == 1
        rows = list(csv.DictReader(open(out)))
        assert [r["status"] for r in rows] == ["gave_up", "solved"]
        assert [int(r["guesses"]) for r in rows] == result.guesses.tolist()
        assert rows[0]["message"] == result.message[0]


def test_rate_matches_sudoku_explainer_and_the_cli(tmp_path):
    golden = [
        l.split()
        for l in open(DATA.parent / "tests" / "golden" / "se_ratings.txt")
        if l.strip() and not l.startswith("#")
    ]
    # The quick part of the scale (ER below 7), plus rows that are not rated.
    chosen = [g for g in golden if float(g[1].split("/")[0]) < 7.0][:40]
    puzzles = [g[0] for g in chosen] + ["not a puzzle", EMPTY, CONTRADICTORY]
    result = sb.rate(puzzles, threads=2)
    assert len(result) == len(puzzles)
    for i, g in enumerate(chosen):
        assert result.status_words()[i] == "rated"
        got = f"{result.er[i]:.1f}/{result.ep[i]:.1f}/{result.ed[i]:.1f}"
        assert got == g[2], (g[0], got, g[2])
    assert result.status_words()[-3:] == ["invalid", "multiple", "invalid"]
    assert np.isnan(result.er[-1]) and result.technique[-1] == ""
    assert result.counts()["rated"] == len(chosen)
    bounded = sb.rate(puzzles[:5], max_er=1.0)
    assert set(bounded.status_words()) <= {"gave_up", "rated"}
    assert "above the limit of 1.0" in bounded.message[[i for i, w in enumerate(bounded.status_words()) if w == "gave_up"][0]]
    with pytest.raises(ValueError, match="max_er"):
        sb.rate(puzzles[:1], max_er=-1)
    # A limit between two tenths allows the lower one only.
    lowest = min(float(g[1].split("/")[0]) for g in chosen)
    limited = sb.rate([g[0] for g in chosen], max_er=lowest + 0.05)
    assert all(not (x > lowest + 0.01) for x in limited.er), limited.er
    assert "gave_up" in limited.status_words() and "rated" in limited.status_words()
    # A puzzle's own rating (a float32) as the limit allows that rating.
    again = sb.rate(puzzles[:5], max_er=float(np.max(result.er[:5])))
    assert again.status_words() == result.status_words()[:5], again.message
    for k in range(5):
        assert sb.rate(puzzles[k : k + 1], max_er=result.er[k]).status_words() == ["rated"]
    cli = os.environ.get("SUDOKU_BATCH_BIN")
    if cli:
        import csv
        import subprocess

        src = tmp_path / "p.txt"
        src.write_text("\n".join(puzzles) + "\n")
        out = tmp_path / "out.csv"
        done = subprocess.run([cli, "rate", str(src), "-o", str(out), "-q"])
        assert done.returncode == 1  # not every row is rated
        rows = list(csv.DictReader(open(out)))
        assert [r["status"] for r in rows] == result.status_words()
        for i, r in enumerate(rows):
            if r["status"] == "rated":
                assert r["er"] == f"{result.er[i]:.1f}" and r["ed"] == f"{result.ed[i]:.1f}"
                assert r["technique"] == result.technique[i]
            # No rating (not even a lower bound): an empty cell there, -1 here.
            assert r["steps"] == ("" if result.steps[i] == -1 else str(result.steps[i]))
            # A line file reads "not a puzzle" token by token, a list as one string: only the
            # messages of invalid rows may differ.
            if r["status"] != "invalid":
                assert r["message"] == result.message[i]


def test_rate_on_the_sukaku_scale_matches_sukaku_explainer_and_the_cli(tmp_path):
    golden = [
        l.split()
        for l in open(DATA.parent / "tests" / "golden" / "sukaku_ratings.txt")
        if l.strip() and not l.startswith("#")
    ]
    puzzles = [g[0] for g in golden[:30]]
    result = sb.rate(puzzles, threads=2, scale="sukaku")
    got = [f"{result.er[i]:.1f}/{result.ep[i]:.1f}/{result.ed[i]:.1f}" for i in range(len(puzzles))]
    assert got == [g[1] for g in golden[:30]]
    # The default scale rates many of them otherwise (most higher, a few lower).
    default = sb.rate(puzzles, threads=2)
    assert (default.er > result.er).sum() >= 10
    e = sb.explain(puzzles[-1], scale="sukaku")
    assert f"{e.er:.1f}" == f"{result.er[-1]:.1f}" and e.technique == result.technique[-1]
    assert "sukaku" in sb.SCALES
    with pytest.raises(ValueError, match="scale"):
        sb.rate(puzzles[:1], scale="nope")
    with pytest.raises(ValueError, match="scale"):
        sb.rate(puzzles[:1], scale="sukaku", se121=False)
    made = sb.generate(3, seed=5, er=(5.5, 5.6), scale="sukaku", threads=2)
    rated = sb.rate(made.puzzle_strings(), scale="sukaku")
    assert all(5.5 - 1e-6 <= x <= 5.6 + 1e-6 for x in rated.er), rated.er
    assert (sb.rate(made.puzzle_strings()).er > 5.6 + 1e-6).any()
    cli = os.environ.get("SUDOKU_BATCH_BIN")
    if cli:
        import csv
        import subprocess

        src = tmp_path / "p.txt"
        src.write_text("\n".join(puzzles) + "\n")
        out = tmp_path / "out.csv"
        done = subprocess.run([cli, "rate", "--scale", "sukaku", str(src), "-o", str(out), "-q"])
        assert done.returncode == 0
        rows = list(csv.DictReader(open(out)))
        assert [r["er"] for r in rows] == [f"{x:.1f}" for x in result.er]
        assert [r["technique"] for r in rows] == list(result.technique)
        gen = subprocess.run(
            [cli, "generate", "-n", "3", "--seed", "5", "--er", "5.5..5.6", "--scale", "sukaku", "-q"],
            capture_output=True,
            text=True,
        )
        assert gen.stdout.split() == made.puzzle_strings()


def test_explain_gives_the_path_behind_the_rating_and_the_clis_words(tmp_path):
    golden = [
        l.split()
        for l in open(DATA.parent / "tests" / "golden" / "se_ratings.txt")
        if l.strip() and not l.startswith("#")
    ]
    # A few across the quick part of the scale, the hardest technique differing.
    chosen = [g for g in golden if 4.0 <= float(g[1].split("/")[0]) < 7.0][:4]
    assert chosen
    rated = sb.rate([g[0] for g in chosen])
    for i, g in enumerate(chosen):
        e = sb.explain(g[0])
        assert e.status == "rated" and e.message == ""
        assert f"{e.er:.1f}/{e.ep:.1f}/{e.ed:.1f}" == g[2]
        # Whole tenths, as Python floats compare them.
        assert (e.er, e.ep, e.ed) == tuple(float(x) for x in g[2].split("/"))
        assert e.technique == rated.technique[i] and len(e) == int(rated.steps[i])
        # ER is the hardest step, ED the first; the technique is a hardest step's.
        assert max(s.rating for s in e.steps) == pytest.approx(e.er)
        assert e.steps[0].rating == pytest.approx(e.ed)
        assert e.technique in {s.technique for s in e.steps if s.rating == pytest.approx(e.er)}
        # Every step changes the grid, and its text names its placements and eliminations.
        for s in e.steps:
            assert s.placements or s.eliminations
            for cell, digit in s.placements:
                assert f"{cell}={digit}" in s.text
            for cell, digit in s.eliminations:
                assert f"{cell}<>{digit}" in s.text
        # The same puzzle as 81 integers.
        assert len(sb.explain(sb.to_cells([g[0]])[0])) == len(e)
    cli = os.environ.get("SUDOKU_BATCH_BIN")
    if cli:
        import subprocess

        words = subprocess.run(
            [cli, "rate", "--explain", "-q", "-"],
            input=chosen[0][0] + "\n",
            capture_output=True,
            text=True,
        ).stdout
        # The CLI's block: the puzzle and its head line, then the steps as str(explanation) has them.
        assert words.strip().splitlines()[1:] == str(sb.explain(chosen[0][0])).splitlines()[1:]
    # Not rated: no steps, the reason, NaN ratings.
    bad = sb.explain("not a puzzle")
    assert bad.status == "invalid" and bad.steps == [] and bad.message
    assert bad.er != bad.er
    # The text says what the CLI says, with the puzzle as given.
    assert str(sb.explain("12345")) == "12345  invalid: expected 81 cells, found 5\n"
    assert sb.explain("12345").message == "expected 81 cells, found 5"
    assert sb.explain(EMPTY).status == "multiple"
    bounded = sb.explain(chosen[0][0], max_er=1.0)
    assert bounded.status == "gave_up" and "above the limit of 1.0" in bounded.message
    with pytest.raises(TypeError, match="one puzzle"):
        sb.explain([chosen[0][0], chosen[1][0]])


def test_explain_gives_the_chains_behind_a_chain_step():
    # A Kaggle 3M puzzle (ER 8.3, tests/golden/se_ratings.txt) whose path takes forcing
    # X-chains, forcing chains, Nishio and multiple forcing chains.
    e = sb.explain("..7.....34...6..12.....37..1.8.57.......8..6......21...........6...459....9....87")
    assert f"{e.er:.1f}" == "8.3"
    proved = {"Forcing X-Chain", "Forcing Chain", "Nishio Forcing Chains", "Multiple Forcing Chains",
              "Dynamic Forcing Chains", "Dynamic Forcing Chains (+)", "Nested Forcing Chains"}
    kinds = set()
    for s in e.steps:
        if s.technique not in proved:
            # Cycles, exclusions and the rules below the chains show their pattern's cells.
            assert s.chains == [], s.text
            continue
        kinds.add(s.technique)
        assert len(s.chains) >= 2, s.text
        for chain in s.chains:
            for cell, digit, on in chain:
                # Each node is one the step's words name, and one of its cells.
                assert f"{cell}{'=' if on else '<>'}{digit}" in s.text
                assert cell in s.cells
        ends = [chain[-1] for chain in s.chains]
        if s.technique in ("Forcing Chain", "Forcing X-Chain"):
            # One candidate proved on and off from the same assumption.
            assert len(ends) == 2 and ends[0][:2] == ends[1][:2] and ends[0][2] != ends[1][2]
            assert s.chains[0][0] == s.chains[1][0]
        if s.technique == "Multiple Forcing Chains":
            # Every branch reaches the step's conclusion.
            assert len(set(ends)) == 1
            cell, digit, on = ends[0]
            assert ((cell, digit) in s.placements) if on else ((cell, digit) in s.eliminations)
    assert {"Forcing Chain", "Forcing X-Chain", "Nishio Forcing Chains", "Multiple Forcing Chains"} <= kinds, kinds


def test_rate_status_constants_are_rates_own_codes():
    # rate's codes are RateStatus's, not solve's: a gave_up row is RATE_GAVE_UP.
    p = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    r = sb.rate([p], max_er=1)
    assert r.status_words() == ["gave_up"]
    assert r.status.tolist() == [sb.RATE_GAVE_UP]
    assert (r.status == sb.RATE_GAVE_UP).all()
    rated = sb.rate([CLASSIC, UNSOLVABLE_P, EMPTY, "junk"])
    assert rated.status.tolist() == [
        sb.RATE_RATED, sb.RATE_UNSOLVABLE, sb.RATE_MULTIPLE, sb.RATE_INVALID
    ]
    names = {
        sb.RATE_RATED: "rated",
        sb.RATE_UNSOLVABLE: "unsolvable",
        sb.RATE_MULTIPLE: "multiple",
        sb.RATE_INVALID: "invalid",
        sb.RATE_GAVE_UP: "gave_up",
    }
    assert names == sb.RATE_STATUS_NAMES
    for const in ("RATE_RATED", "RATE_UNSOLVABLE", "RATE_MULTIPLE", "RATE_INVALID", "RATE_GAVE_UP"):
        assert const in sb.__all__
        assert sb.RATE_STATUS_NAMES[getattr(sb, const)] == const[len("RATE_"):].lower()
    # The codes people script against are unchanged.
    assert sb.RATE_STATUS_NAMES == {
        0: "rated", 1: "unsolvable", 2: "multiple", 3: "invalid", 4: "gave_up"
    }


def test_rate_to_pandas_takes_the_index_of_the_puzzles_frame():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"puzzle": [CLASSIC, "junk", EMPTY, CLASSIC]}, index=[5, 10, 20, 30])
    df = df[df.index >= 10]
    res = sb.rate(df["puzzle"])
    # By default 0 .. N-1, as before.
    assert res.to_pandas().index.tolist() == [0, 1, 2]
    out = res.to_pandas(index=df.index)
    assert out.index.tolist() == [10, 20, 30]
    joined = pd.concat([df, out], axis=1)
    assert len(joined) == 3
    assert joined["status"].tolist() == ["invalid", "multiple", "rated"]
    assert joined.loc[30, "er"] == res.er[2]
    assert str(out["steps"].dtype) == "Int32"
    # No rows: an empty index is fine; a length that does not match is a ValueError.
    assert len(sb.rate([]).to_pandas(index=pd.RangeIndex(0))) == 0
    with pytest.raises(ValueError, match="index: expected 3 labels"):
        res.to_pandas(index=[1, 2])


def test_solve_to_pandas_takes_the_index_of_the_puzzles_frame():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"puzzle": [CLASSIC, "junk", EMPTY, CLASSIC]}, index=[5, 10, 20, 30])
    df = df[df.index >= 10]
    res = sb.solve(df["puzzle"], unique=True)
    assert res.to_pandas().index.tolist() == [0, 1, 2]
    out = res.to_pandas(index=df.index)
    assert out.index.tolist() == [10, 20, 30]
    joined = pd.concat([df, out], axis=1)
    assert len(joined) == 3
    assert joined["status"].tolist() == ["invalid", "multiple", "solved"]
    assert joined.loc[30, "solution"] == CLASSIC_SOL
    assert joined.loc[30, "puzzle"] == CLASSIC
    assert len(sb.solve([]).to_pandas(index=pd.RangeIndex(0))) == 0


def test_every_to_pandas_refuses_an_index_of_another_length():
    pytest.importorskip("pandas")
    for result in (
        sb.solve([CLASSIC, EMPTY, CLASSIC]),
        sb.rate([CLASSIC, EMPTY, CLASSIC]),
        sb.generate(3, seed=1),
    ):
        for index in ([1, 2], [1, 2, 3, 4], []):
            with pytest.raises(ValueError, match=f"index: expected 3 labels .* got {len(index)}"):
                result.to_pandas(index=index)
        assert result.to_pandas(index=[7, 8, 9]).index.tolist() == [7, 8, 9], type(result)


def test_rate_steps_are_minus_one_where_there_is_no_rating():
    pd = pytest.importorskip("pandas")
    r = sb.rate([CLASSIC, EMPTY, "junk", UNSOLVABLE_P, CLASSIC_SOL, CLASSIC], max_er=None)
    assert r.status_words() == ["rated", "multiple", "invalid", "unsolvable", "rated", "rated"]
    assert r.steps.dtype == np.int32
    assert r.steps[0] > 0 and r.steps[0] == r.steps[5]
    # Not rated: -1; a full grid is rated with no step at all: 0.
    assert r.steps[1:5].tolist() == [-1, -1, -1, 0]
    # Given up before the first step: no rating either.
    early = sb.rate([CLASSIC], max_er=0.5)
    assert early.status_words() == ["gave_up"] and early.steps.tolist() == [-1]
    assert np.isnan(early.er[0])
    df = r.to_pandas()
    assert str(df["steps"].dtype) == "Int32"
    assert df["steps"].isna().tolist() == [False, True, True, True, False, False]
    assert df["steps"][4] == 0
    # Written out, the missing values are empty cells, as in the CLI's file.
    row = df.iloc[[1]][["er", "steps"]].to_csv(index=False).splitlines()[1]
    assert row == ","


def test_generate_er_range_is_rated_inside_and_matches_the_cli():
    result = sb.generate(6, seed=9, er=(2.6, 4.0), threads=2)
    rated = sb.rate(result.puzzles)
    assert rated.status_words() == ["rated"] * 6
    assert all(2.6 <= round(float(x), 1) <= 4.0 for x in rated.er)
    assert result.puzzle_strings() == sb.generate(6, seed=9, er=(2.6, 4.0), threads=1).puzzle_strings()
    with pytest.raises(ValueError, match="range 5.0..4.0 runs backwards"):
        sb.generate(1, seed=1, er=(5.0, 4.0))
    # Bounds between two tenths keep to their side, as on the command line.
    with pytest.raises(ValueError, match="holds no rating"):
        sb.generate(1, seed=1, er=(4.41, 4.49))
    with pytest.raises(ValueError, match="holds no rating a minimal puzzle reaches"):
        sb.generate(1, seed=1, er=(2.1, 2.2))
    between = sb.rate(sb.generate(3, seed=3, er=(4.41, 4.59), threads=1).puzzles)
    assert [f"{x:.1f}" for x in between.er] == ["4.5"] * 3
    cli = os.environ.get("SUDOKU_BATCH_BIN")
    if cli:
        import subprocess

        out = subprocess.run(
            [cli, "generate", "-n", "6", "--seed", "9", "--er", "2.6..4.0", "-q"],
            capture_output=True, text=True, check=True,
        ).stdout.split()
        assert out == result.puzzle_strings()


def test_ctrl_c_stops_one_slow_puzzle_quickly():
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sb.solve([SLOW], threads=1, solver="backtrack")  # about 30 s unstopped
    elapsed = time.monotonic() - started
    timer.cancel()
    assert elapsed < 1.5, elapsed


def test_read_zip_zstd_and_grid_files(tmp_path):
    import zipfile

    puzzles = [l.split()[0] for l in open(DATA / "norvig_top95.txt") if l.strip()]
    expected = sb.to_cells(puzzles)
    text = "\n".join(puzzles) + "\n"

    zipped = tmp_path / "top95.zip"
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("top95.txt", text)
    assert (np.concatenate(list(sb.read(zipped, batch=40))) == expected).all()

    grid = tmp_path / "top95.grid"
    blocks = []
    for i, p in enumerate(puzzles):
        rows = [p[r * 9 : r * 9 + 9].replace(".", "0") for r in range(9)]
        blocks.append(f"Grid {i + 1:02}\n" + "\n".join(rows))
    grid.write_text("\n".join(blocks) + "\n")
    assert (np.concatenate(list(sb.read(grid, format="grid"))) == expected).all()
    assert (np.concatenate(list(sb.read(grid))) == expected).all()  # sniffed

    # zstd: written by the zstd tool or by the CLI; the stdlib has no zstd before Python 3.14.
    zst = tmp_path / "top95.txt.zst"
    plain = tmp_path / "top95.txt"
    plain.write_text(text)
    if shutil.which("zstd"):
        import subprocess

        subprocess.run(["zstd", "-q", "-f", str(plain), "-o", str(zst)], check=True)
    else:
        try:
            from compression import zstd  # Python 3.14
        except ImportError:
            pytest.skip("no zstd tool and no compression.zstd to write a .zst file")
        zst.write_bytes(zstd.compress(text.encode()))
    assert (np.concatenate(list(sb.read(zst))) == expected).all()


def _cli():
    """The sudoku-batch binary CI built (SUDOKU_BATCH_BIN), or None."""
    path = os.environ.get("SUDOKU_BATCH_BIN")
    return path if path and os.path.exists(path) else None


def test_generate_makes_unique_puzzles_of_their_solutions():
    r = sb.generate(40, seed=11, threads=2)
    assert len(r) == 40 and r.seed == 11
    assert r.puzzles.shape == (40, 81) and r.puzzles.dtype == np.uint8
    assert (r.clues == (r.puzzles != 0).sum(axis=1)).all()
    assert (sb.count_solutions(r.puzzles, limit=2) == 1).all()
    v = sb.verify(r.puzzles, r.solutions, unique=True)
    assert v.failures == 0, v.message
    # Minimal by default: removing any one clue leaves several solutions.
    for puzzle in r.puzzles[:5]:
        clue_cells = np.flatnonzero(puzzle)
        fewer = np.repeat(puzzle[None, :], len(clue_cells), axis=0)
        fewer[np.arange(len(clue_cells)), clue_cells] = 0
        assert (sb.count_solutions(fewer, limit=2) == 2).all()


def test_generate_is_deterministic_across_threads_and_solvers():
    one = sb.generate(30, seed=5, threads=1)
    two = sb.generate(30, seed=5, threads=2, solver="singles")
    assert (one.puzzles == two.puzzles).all() and (one.solutions == two.solutions).all()
    other = sb.generate(30, seed=6, threads=2)
    assert (one.puzzles != other.puzzles).any()
    # A prefix of a longer run is the shorter run.
    longer = sb.generate(45, seed=5)
    assert (longer.puzzles[:30] == one.puzzles).all()
    drawn = sb.generate(3)
    again = sb.generate(3, seed=drawn.seed)
    assert (drawn.puzzles == again.puzzles).all()


def test_generate_shapes():
    exact = sb.generate(10, seed=3, clues=30)
    assert (exact.clues == 30).all()
    ranged = sb.generate(10, seed=3, min_clues=24, max_clues=27, minimal=True)
    assert ((ranged.clues >= 24) & (ranged.clues <= 27)).all()
    for symmetric, name in ((True, "central"), ("diagonal", "diagonal")):
        r = sb.generate(8, seed=9, symmetric=symmetric)
        p = r.puzzles.reshape(-1, 9, 9) != 0
        if name == "central":
            assert (p == p[:, ::-1, ::-1]).all()
        else:
            assert (p == p.transpose(0, 2, 1)).all()
    df = exact.to_pandas()
    assert list(df.columns) == ["puzzle", "solution", "clues"]
    assert df["puzzle"][0] == exact.puzzle_strings()[0] and len(df["solution"][0]) == 81
    assert len(sb.generate(0, seed=1)) == 0
    assert sb.SYMMETRIES[:2] == ("none", "central") and len(sb.SYMMETRIES) == 8
    for name in sb.SYMMETRIES:
        assert len(sb.generate(1, seed=2, symmetric=name)) == 1


def test_generate_failure_says_what_is_wrong_with_the_clue_count():
    # Minimal puzzles seldom have 30 clues: the message says so, not that 21 is too few.
    with pytest.raises(RuntimeError) as too_many:
        sb.generate(1, seed=1, minimal=True, clues=30, threads=1)
    message = str(too_many.value)
    assert "no minimal puzzle with 30 clues" in message
    assert "puzzles drawn had" in message and "a minimal puzzle with more is rare" in message
    assert "ask for fewer clues" in message
    assert "below about 21" not in message
    # Too few clues, minimal or not: the removal seldom gets there.
    with pytest.raises(RuntimeError, match="seldom goes below about 21 clues") as too_few:
        sb.generate(1, seed=1, clues=19, threads=1)
    assert "puzzles drawn had" in str(too_few.value)


def test_generate_refuses_options_that_contradict_each_other():
    for options, words in [
        (dict(clues=30, min_clues=35), "an exact clue count and a clue range"),
        (dict(clues=30, max_clues=20), "an exact clue count and a clue range"),
        (dict(minimal=True, max_guesses=0), "may not be minimal"),
    ]:
        with pytest.raises(ValueError, match=words):
            sb.generate(2, seed=1, threads=1, **options)
    # Without minimal=True, a bound keeps clues its probes could not clear: still unique.
    bounded = sb.generate(5, seed=2, max_guesses=0, threads=1)
    assert len(bounded) == 5


def test_a_bool_is_no_rating_bound():
    for call in [lambda: sb.rate([CLASSIC], max_er=True), lambda: sb.explain(CLASSIC, max_er=True)]:
        with pytest.raises(TypeError, match="max_er"):
            call()
    assert sb.rate([CLASSIC], max_er=np.float64(9.0)).status_words() == ["rated"]


def test_boolean_arguments_take_only_bools():
    for call, name in [
        (lambda v: sb.solve([CLASSIC], unique=v), "unique"),
        (lambda v: sb.verify([CLASSIC], unique=v), "unique"),
        (lambda v: sb.rate([CLASSIC], se121=v), "se121"),
        (lambda v: sb.explain(CLASSIC, se121=v), "se121"),
        (lambda v: sb.generate(1, seed=1, minimal=v), "minimal"),
        (lambda v: sb.generate(1, seed=1, clues=30, symmetric=v), "symmetric"),
    ]:
        # (symmetric also takes None and a symmetry's name.)
        for value in [0, 1, 1.0, [True]] + (["no", None] if name != "symmetric" else []):
            with pytest.raises(TypeError, match=name):
                call(value)
        # numpy bools are bools.
        call(np.True_)
        call(np.bool_(False))
    assert sb.solve([EMPTY], unique=np.True_).status.tolist() == [sb.MULTIPLE]
    same = sb.generate(2, seed=4, minimal=np.True_, symmetric=np.True_, min_clues=20, max_clues=30)
    assert same.puzzle_strings() == sb.generate(
        2, seed=4, minimal=True, symmetric=True, min_clues=20, max_clues=30
    ).puzzle_strings()


def test_generate_errors():
    with pytest.raises(ValueError, match="fewer than 17"):
        sb.generate(1, seed=1, clues=16)
    with pytest.raises(ValueError, match="unknown symmetry"):
        sb.generate(1, seed=1, symmetric="spiral")
    with pytest.raises(TypeError, match="symmetric"):
        sb.generate(1, seed=1, symmetric=2.5)
    with pytest.raises(ValueError, match="cannot make"):
        sb.generate(1, seed=1, clues=18, symmetric="dihedral")
    with pytest.raises(ValueError, match="seed"):
        sb.generate(1, seed=-1)
    with pytest.raises(ValueError, match="n must be at least 0, got -3"):
        sb.generate(-3)
    # A wrong type is a TypeError, as for the other arguments.
    with pytest.raises(TypeError, match="n: expected an integer count, got float"):
        sb.generate(2.0)
    with pytest.raises(TypeError, match="seed: expected an integer, got float"):
        sb.generate(1, seed=1.0)
    with pytest.raises(ValueError, match="threads"):
        sb.generate(1, seed=1, threads=0)
    # As the CLI's --er 0..0.5 and --scale without --er: refused before any work.
    with pytest.raises(ValueError, match="below 1.0"):
        sb.generate(1, seed=1, er=(0, 0.5))
    # Partly below 1.0: a minimal puzzle rates neither 0.0 nor 1.0, said at once.
    with pytest.raises(ValueError, match="below 1.0 only a full grid rates") as refused:
        sb.generate(1, seed=1, er=(0.9, 1.0))
    # Its advice names the arguments, not the CLI's flags.
    assert "not minimal (clues=78)" in str(refused.value) and "--" not in str(refused.value)
    with pytest.raises(ValueError, match=r'Sukaku Explainer\'s scale \(scale="sukaku"\)'):
        sb.generate(1, seed=1, er=(4.1, 4.1))
    with pytest.raises(TypeError, match="er: expected a number, got bool"):
        sb.generate(1, seed=1, er=(True, 5))
    # Text is no rating, as for max_er (float() would take "5" unseen).
    for bad in [("5", "6"), (b"5", b"6"), (5, None)]:
        with pytest.raises(TypeError, match="er: expected a number, got "):
            sb.generate(1, seed=1, er=bad)
    with pytest.raises(TypeError, match="er: expected a pair"):
        sb.generate(1, seed=1, er=5.0)
    # Other numbers are ratings, as for max_er.
    from fractions import Fraction

    made = sb.generate(1, seed=1, er=(Fraction(1), np.float64(2.0)), threads=1)
    assert 1.0 <= sb.rate(made.puzzle_strings()).er[0] <= 2.0
    with pytest.raises(ValueError, match="er: expected a pair"):
        sb.generate(1, seed=1, er=(1.0, 2.0, 3.0))
    # scale= goes with er= or difficulty= (the CLI's --scale requires --er or --difficulty).
    with pytest.raises(ValueError, match="give er or difficulty too"):
        sb.generate(2, seed=1, scale="sukaku")
    easy = sb.generate(2, seed=1, scale="sukaku", difficulty="easy", threads=1)
    assert sb.rate(easy.puzzles, scale="sukaku").er.max() < 1.5
    # A rating as numpy holds it (float32, 4.2 is 4.1999998...) is the tenth it shows: the
    # one-tenth range 4.2..4.2 holds a rating.
    made = sb.generate(1, seed=1, er=(np.float32(4.2), np.float32(4.2)), threads=1)
    assert sb.rate(made.puzzle_strings()).er[0] == np.float32(4.2)
    # Too many to hold: an exception, never an abort of the interpreter.
    for n in (10**12, 2**62, 2**64 - 1):
        with pytest.raises(MemoryError):
            sb.generate(n, seed=1, threads=1)


@pytest.mark.skipif(_cli() is None, reason="SUDOKU_BATCH_BIN not set (python/ci.sh sets it)")
def test_generate_matches_the_cli(tmp_path):
    import subprocess

    for args, kwargs in (
        ([], {}),
        (["--difficulty", "hard"], {"difficulty": "Hard"}),
        (["--max-guesses", "3"], {"max_guesses": 3}),
        (["--symmetry", "central"], {"symmetric": True}),
        (["--clues", "28"], {"clues": 28}),
        (["--min-clues", "22", "--max-clues", "26", "--minimal"],
         {"min_clues": 22, "max_clues": 26, "minimal": True}),
    ):
        out = tmp_path / "gen.csv"
        subprocess.run(
            [_cli(), "generate", "-n", "25", "--seed", "77", "--with-solution", "-q", "-o", str(out), *args],
            check=True,
        )
        lines = out.read_text().splitlines()
        assert lines[0] == "puzzle,solution,clues"
        rows = [l.split(",") for l in lines[1:]]
        r = sb.generate(25, seed=77, **kwargs)
        assert r.puzzle_strings() == [p for p, _, _ in rows], args
        assert sb.to_strings(r.solutions) == [s for _, s, _ in rows], args
        assert r.clues.tolist() == [int(c) for _, _, c in rows], args


def test_ctrl_c_stops_generate_quickly():
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sb.generate(2_000_000, seed=1, threads=2)  # about a minute uninterrupted
    elapsed = time.monotonic() - started
    timer.cancel()
    assert elapsed < 1.5, elapsed


# Line 90 of data/norvig_sudokus_hard_375.txt: ER 11.6, seconds of nested forcing chains.
NUGGET = "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"


# Line 18 of data/norvig_sudokus_hard_375.txt: seconds of search for the naive solver.
SLOW_FOR_NAIVE = "..6.......3...7..11.7.............9.3....6..5.5.8..2....3..5..6...2...4..4..9.8.."


def test_ctrl_c_stops_one_slow_rating_and_one_hard_er_range_quickly():
    for call in (
        lambda: sb.rate([NUGGET] * 4, threads=1),
        # One endless count (every grid of the empty puzzle) and slow uniqueness proofs.
        lambda: sb.count_solutions(["." * 81], limit=2**32 - 1, threads=1),
        lambda: sb.verify([SLOW_FOR_NAIVE] * 4, unique=True, threads=1, solver="naive"),
        # No candidate meets this range: the search would go on for half a minute.
        lambda: sb.generate(3, seed=3, er=(9.5, 11.0), threads=1),
    ):
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        started = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            call()
        elapsed = time.monotonic() - started
        timer.cancel()
        assert elapsed < 1.5, elapsed


def test_empty_results_keep_their_column_dtypes():
    pytest.importorskip("pandas")
    puzzle = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    for make in (sb.solve, sb.rate):
        full = make([puzzle]).to_pandas().dtypes.to_dict()
        empty = make([]).to_pandas().dtypes.to_dict()
        assert empty == full, make
    full = sb.generate(1, seed=1).to_pandas().dtypes.to_dict()
    assert sb.generate(0, seed=1).to_pandas().dtypes.to_dict() == full


def test_generate_difficulty_is_its_er_band():
    hard = sb.generate(4, seed=5, difficulty="hard")
    assert hard.puzzle_strings() == sb.generate(4, seed=5, er=(2.5, 4.9)).puzzle_strings()
    assert all(2.5 <= round(float(x), 1) <= 4.9 for x in sb.rate(hard.puzzles).er)
    assert sb.DIFFICULTIES == ("easy", "medium", "hard", "diabolical")
    with pytest.raises(ValueError, match="unknown difficulty"):
        sb.generate(1, seed=1, difficulty="impossible")
    with pytest.raises(TypeError, match="difficulty"):
        sb.generate(1, seed=1, difficulty=3)
    with pytest.raises(ValueError, match="give one"):
        sb.generate(1, seed=1, difficulty="easy", er=(1.0, 2.0))
    with pytest.raises(ValueError, match="max_guesses"):
        sb.generate(1, seed=1, max_guesses=-1)
    # Scale names, as the command line's, in any case.
    assert sb.rate([NUGGET], scale="SE1.2.1", max_er=2.0).status_words() == ["gave_up"]
