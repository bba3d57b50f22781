"""The golden-table driver runs rows the way ``python3 -m`` would, in the real check box, one row's
trouble staying in that row: exits (``os._exit`` after a flush is a normal exit), crashes, hangs, fork
bombs and memory hogs fail only their own row, and the golden values never enter the box."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from swarmgym.config import load_config
from swarmgym.grading import difftable, rowmatch
from swarmgym.grading.context import GradingContext
from swarmgym.suitekit.suite import Check
from tests.support.grading import check_result
from tests.support.hostile import require_bwrap

TOY = textwrap.dedent('''
    import argparse, atexit, dataclasses, os, sys, threading, time
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "echo":
        print(" ".join(args))
    elif cmd == "exit-after-flush":
        print("bye")
        sys.stdout.flush()
        os._exit(0)
    elif cmd == "exit-code":
        print("partial", flush=True)
        os._exit(3)
    elif cmd == "unflushed-exit":
        print("lost")
        os._exit(0)
    elif cmd == "c-write":
        os.write(1, b"raw bytes\\n")
        os.write(2, b"raw err\\n")
    elif cmd == "sysexit-message":
        sys.exit("error: bad input")
    elif cmd == "sysexit-256":
        sys.exit(256)
    elif cmd == "raise":
        raise ValueError("boom")
    elif cmd == "atexit":
        atexit.register(lambda: print("atexit ran"))
        print("main")
    elif cmd == "thread":
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread done"))).start()
    elif cmd == "stdin":
        print(sys.stdin.read().upper(), end="")
    elif cmd == "write":
        with open(args[0], "w") as f:
            f.write("a,b\\n1,2\\n")
    elif cmd == "hang":
        time.sleep(3600)
    elif cmd == "bomb":
        while True:
            os.fork()
    elif cmd == "hog":
        b = bytearray(3 << 30)
    elif cmd == "spin":
        t = time.process_time()
        while time.process_time() - t < float(args[0]):
            pass
        print("spun")
    elif cmd == "spin-exit":
        t = time.process_time()
        while time.process_time() - t < float(args[0]):
            pass
        print("spun", flush=True)
        os._exit(0)
    elif cmd == "recurse":  # a RecursionError whose traceback is longer than the stderr tail kept
        def down(n):
            return [down(n + 1) for _ in (0,)]
        down(0)
    elif cmd == "patch-print":  # wraps print in builtins
        import builtins
        print("stale" if builtins.print.__name__ == "wrapped" else "fresh")
        plain = builtins.print
        def wrapped(*a, **k):
            plain("wrapped:", *a, **k)
        builtins.print = wrapped
        print("now")
    elif cmd == "locale":  # which catalogue gettext finds for LANGUAGE=args[0] in the folder args[1] ("make": xx's)
        import gettext
        if args[2:] == ["make"]:
            os.makedirs(os.path.join(args[1], "xx", "LC_MESSAGES"), exist_ok=True)
            open(os.path.join(args[1], "xx", "LC_MESSAGES", "toy.mo"), "w").close()
        os.environ["LANGUAGE"], default = args[0], gettext._default_localedir
        gettext._default_localedir = args[1]
        found = gettext.find("toy")
        gettext._default_localedir = default
        print(os.path.relpath(found, args[1]) if found else "none")
    elif cmd == "hello":  # "hello" through gettext.dgettext with LANGUAGE=args[0] in the folder args[1] ("make": xx's)
        import gettext, struct
        if args[2:] == ["make"]:  # a one-message catalogue, as msgfmt writes it
            os.makedirs(os.path.join(args[1], "xx", "LC_MESSAGES"), exist_ok=True)
            ids, strs = b"hello\\0", b"bonjour\\0"
            head = struct.pack("7I", 0x950412de, 0, 1, 28, 36, 0, 0)
            with open(os.path.join(args[1], "xx", "LC_MESSAGES", "toy.mo"), "wb") as f:
                f.write(head + struct.pack("4I", 5, 44, 7, 44 + len(ids)) + ids + strs)
        os.environ["LANGUAGE"], gettext._default_localedir = args[0], args[1]
        print(gettext.dgettext("toy", "hello"))
    elif cmd == "hello-own":  # a translation() of the app's own answers every message (put back after)
        import gettext
        class Own(gettext.NullTranslations):
            def gettext(self, message):
                return "own " + message
        plain, gettext.translation = gettext.translation, lambda *a, **k: Own()
        print(gettext.dgettext("toy", "hello"))
        gettext.translation = plain
    elif cmd == "dataclass":  # same field text, different defaults: each class keeps its own
        A = dataclasses.make_dataclass("A", [("x", int, dataclasses.field(default=int(args[0])))])
        B = dataclasses.make_dataclass("A", [("x", int, dataclasses.field(default=int(args[1])))])
        print(A(), B(), A() == A(), A(x=2) == A(x=2))
    elif cmd == "append":  # a line to a file
        with open(args[1], "a") as f:
            f.write(args[0] + "\\n")
    elif cmd == "cat":
        with open(args[0]) as f:
            print(f.read(), end="")
    elif cmd == "token":  # a fresh random token, printed and written to a file
        token = os.urandom(8).hex()
        with open(args[0], "w") as f:
            f.write(token + "\\n")
        print(token)
    elif cmd == "litter":  # a link to /, a FIFO and a folder it may not write into, in the folder args[0]
        os.symlink("/", os.path.join(args[0], "root"))
        os.mkfifo(os.path.join(args[0], "fifo"))
        os.mkdir(os.path.join(args[0], "ro"))
        open(os.path.join(args[0], "ro", "x"), "w").close()
        os.chmod(os.path.join(args[0], "ro"), 0o500)
    elif cmd == "ls":
        print(" ".join(sorted(os.listdir(args[0]))))
    elif cmd == "count":
        n = int(os.environ.get("TOY_COUNT", "0")) + 1
        os.environ["TOY_COUNT"] = str(n)
        print(n)
    elif cmd == "swap-environ":  # os.environ rebound to a plain dict
        os.environ = dict(os.environ, TOY_COUNT="41")
        print(os.environ["TOY_COUNT"])
    elif cmd == "columns":  # the terminal size argparse asks for, with COLUMNS set to args[0] if given
        import shutil
        if args:
            os.environ["COLUMNS"] = args[0]
        print(*shutil.get_terminal_size())
    elif cmd == "trap":  # SIGUSR1 as a fresh process has it, then a handler of its own
        import signal
        print(signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL)
        signal.signal(signal.SIGUSR1, lambda *a: None)
''')


def row(rid, *steps, files_in=None):
    out = {"id": rid, "req": [], "steps": list(steps)}
    if files_in:
        out["files_in"] = files_in
    return out


def step(argv, exit=0, out="exact", stdout="", **kw):
    return {"argv": argv, "exit": exit, "out": out, "stdout": stdout, **kw}


GOOD = [
    row("echo", step(["echo", "hi", "there"], stdout="hi there\n")),
    row("exit-after-flush", step(["exit-after-flush"], stdout="bye\n")),
    row("exit-code", step(["exit-code"], exit=3, stdout="partial\n")),
    row("unflushed-exit", step(["unflushed-exit"], out="any")),  # what python3 prints here depends on PYTHONUNBUFFERED
    row("c-write", step(["c-write"], stdout="raw bytes\n")),
    row("sysexit-message", step(["sysexit-message"], exit=1, out="any", err="error:")),
    row("sysexit-256", step(["sysexit-256"], exit=0)),
    row("atexit", step(["atexit"], stdout="main\natexit ran\n")),
    row("thread", step(["thread"], stdout="thread done\n")),
    row("stdin", step(["stdin"], stdin="abc\n", stdout="ABC\n")),
    row("files", step(["write", "{dir}/out.csv"], files={"{dir}/out.csv": {"csv": [["a", "b"], ["1", "2"]]}})),
    row("files-in", step(["echo", "x"], stdout="x\n", files={"{dir}/seed.txt": {"text": "seed\n"}}),
        files_in={"{dir}/seed.txt": "seed\n"}),
    row("fresh-process-per-step", step(["count"], stdout="1\n"), step(["count"], stdout="1\n")),
    row("locale-per-language", step(["locale", "xx", "{dir}/loc", "make"], stdout="xx/LC_MESSAGES/toy.mo\n"),
        step(["locale", "xx", "{dir}"], stdout="none\n"),
        step(["locale", "yy", "{dir}/loc"], stdout="none\n"), step(["locale", "xx", "{dir}/loc"], stdout="xx/LC_MESSAGES/toy.mo\n")),
    row("dgettext-per-folder", step(["hello", "xx", "{dir}/loc", "make"], stdout="bonjour\n"),
        step(["hello", "xx", "{dir}"], stdout="hello\n"), step(["hello", "yy", "{dir}/loc"], stdout="hello\n"),
        step(["hello", "xx", "{dir}/loc"], stdout="bonjour\n")),
    row("dgettext-own-translation", step(["hello-own"], stdout="own hello\n"), step(["hello", "xx", "{dir}"], stdout="hello\n")),
    row("dataclass-methods", step(["dataclass", "1", "7"], stdout="A(x=1) A(x=7) True True\n"),
        step(["dataclass", "7", "1"], stdout="A(x=7) A(x=1) True True\n")),
    # rows that begin alike: each sees only its own steps' files, whichever runs first
    row("prefix-ab", step(["append", "a", "{dir}/f"]), step(["append", "b", "{dir}/f"]), step(["cat", "{dir}/f"], stdout="a\nb\n")),
    row("prefix-ac", step(["append", "a", "{dir}/f"]), step(["append", "c", "{dir}/f"]), step(["cat", "{dir}/f"], stdout="a\nc\n")),
    row("prefix-a", step(["append", "a", "{dir}/f"]), step(["cat", "{dir}/f"], stdout="a\n")),
    row("prefix-abd", step(["append", "a", "{dir}/f"]), step(["append", "b", "{dir}/f"]), step(["append", "d", "{dir}/f"]),
        step(["cat", "{dir}/f"], stdout="a\nb\nd\n")),
    row("prefix-litter", step(["append", "a", "{dir}/f"]), step(["litter", "{dir}"]), step(["ls", "{dir}"], stdout="f fifo ro root\n")),
    row("prefix-after-litter", step(["append", "a", "{dir}/f"]), step(["ls", "{dir}"], stdout="f\n")),
    row("environ-put-back", step(["count"], stdout="1\n"), step(["swap-environ"], stdout="41\n"),
        step(["count"], stdout="1\n")),
    row("terminal-size-per-columns", step(["columns", "100"], stdout="100 24\n"), step(["columns"], stdout="80 24\n"),
        step(["columns", "33"], stdout="33 24\n"), step(["columns"], stdout="80 24\n")),
    row("signal-handler-put-back", step(["trap"], stdout="True\n"), step(["trap"], stdout="True\n")),
    row("builtins-wrap-undone", step(["patch-print"], stdout="fresh\nwrapped: now\n"),
        step(["patch-print"], stdout="fresh\nwrapped: now\n")),
]


@pytest.fixture
def toy(tmp_path):
    ws = tmp_path / "ws"
    (ws / "toy").mkdir(parents=True)
    (ws / "toy" / "__init__.py").write_text("")
    (ws / "toy" / "__main__.py").write_text(TOY)
    return ws


def grade(tmp_path, ws, rows, timeout=120.0, boxes=None, **kw):
    """``difftable.grade`` in the real check box; ``boxes``, a list, gets each box's result."""
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap", "checks.max_procs": 64})
    box = GradingContext(workspace=ws, cfg=cfg).box
    seen = boxes if boxes is not None else []

    def run_box(command):
        seen.append(box(command, timeout=timeout, output_cap=difftable.RESULT_CAP))
        return seen[-1]

    return difftable.grade({"module": "toy", "rows": rows}, run_box, timeout=timeout, whole_box=True, **kw)


def test_a_correct_app_passes_every_row_including_os_exit_after_a_flush(tmp_path, toy):
    graded = grade(tmp_path, toy, GOOD)
    assert graded.summary == {"rows": len(GOOD), "failed": [], "unconfirmed": 0}
    assert difftable.summarize(graded.summary) == (True, f"{len(GOOD)}/{len(GOOD)} golden rows match")


@pytest.mark.parametrize("per_fork", [1, 32])
def test_the_fast_path_agrees_with_real_subprocesses_on_every_row(tmp_path, toy, per_fork):
    """No confirmation needed: the fork path alone sees what ``python3 -m`` shows (a fork per row, or rows sharing one)."""
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    box = GradingContext(workspace=toy, cfg=cfg).box
    table = {"module": "toy", "rows": GOOD}
    outs = {}
    for mode in ("fork", "subproc"):
        inputs = difftable.box_inputs(table, range(len(GOOD)), mode, whole_box=True, steps_per_fork=per_fork)
        outs[mode] = difftable.parse(box(difftable.command(inputs), timeout=120, output_cap=difftable.RESULT_CAP).stdout_tail)
    for n, r in enumerate(GOOD):
        for a, b in zip(outs["fork"][n]["steps"], outs["subproc"][n]["steps"]):
            assert (a["code"], a["out"], a["files"]) == (b["code"], b["out"], b["files"]), r["id"]


def test_a_row_that_hangs_forkbombs_hogs_or_crashes_fails_alone(tmp_path, toy):
    bad = [row("hang", step(["hang"])), row("bomb", step(["bomb"])), row("hog", step(["hog"])),
           row("raise", step(["raise"]))]
    rows = [GOOD[0], *bad, GOOD[1], GOOD[-1]]
    graded = grade(tmp_path, toy, rows, step_timeout=2, confirm_timeout=3)
    failed = {f["id"]: f["problem"] for f in graded.summary["failed"]}
    assert set(failed) == {"hang", "bomb", "hog", "raise"}, failed
    assert failed["hang"] == "timed out after 3 s" and failed["raise"] == "printed a Python traceback"
    ok, detail = difftable.summarize(graded.summary)
    assert not ok and detail.startswith("4/7 golden rows differ: hang `hang`: timed out after 3 s;")


@pytest.mark.slow  # three boxes of hanging rows: ~12 s
def test_rows_that_outlast_the_checks_time_each_still_fail_alone_with_their_own_reason(tmp_path, toy):
    """A confirmation step may hang longer than what is left of the box's time: the driver stops before the box
    is killed, prints what it has, and the rows it did not get to are confirmed in a further box — no row
    loses its result to another's hang.  The box's 10.5 s leave the driver 5.5 s (``DEADLINE_MARGIN``): room
    for one 3 s hang after the box's start, never for two."""
    rows = [GOOD[0], row("hang-a", step(["hang"])), row("hang-b", step(["hang"])), row("raise", step(["raise"])),
            GOOD[1]]
    timeout, confirm = 10.5, 3
    assert confirm < timeout - difftable.DEADLINE_MARGIN < 2 * confirm
    boxes: list = []
    graded = grade(tmp_path, toy, rows, step_timeout=1, confirm_timeout=confirm, timeout=timeout, boxes=boxes)
    failed = {f["id"]: f["problem"] for f in graded.summary["failed"]}
    assert failed == {"hang-a": "timed out after 3 s", "hang-b": "timed out after 3 s",
                      "raise": "printed a Python traceback"}, failed
    assert len(boxes) == 3 and not any(b.timed_out for b in boxes)  # the fast path, hang-a's, hang-b's and raise's
    assert graded.summary["unconfirmed"] == 0


def test_a_confirmation_box_that_gives_nothing_back_says_how_it_ended(tmp_path, toy):
    """The box itself fails (here: it exits 3 before the driver starts): the row says so, with the box's end."""
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    box = GradingContext(workspace=toy, cfg=cfg).box
    calls = []

    def run_box(command):
        calls.append(command)
        return box(command if len(calls) == 1 else "exit 3", timeout=60, output_cap=difftable.RESULT_CAP)

    rows = [GOOD[0], row("raise", step(["raise"]))]
    graded = difftable.grade({"module": "toy", "rows": rows}, run_box, timeout=60, whole_box=True)
    [failed] = graded.summary["failed"]
    assert failed["id"] == "raise"
    assert re.fullmatch(r"the driver returned no result for it \(its box exited 3 after \d+ s\)", failed["problem"])


def test_the_box_gets_inputs_only_never_a_golden_value():
    table = {"module": "toy", "rows": [row("r", step(["echo", "in"], stdout="GOLDEN-OUT\n", err="GOLDEN-ERR",
                                                    files={"{dir}/o.csv": {"csv": [["GOLDEN-CELL"]]}}))]}
    cmd = difftable.command(difftable.box_inputs(table, [0]))
    assert "GOLDEN" not in cmd and "{dir}/o.csv" in cmd and '"in"' in cmd


def test_a_failing_row_names_its_input_and_what_came_out_through_grade(tmp_path, toy):
    require_bwrap()
    suite = tmp_path / "suite"
    suite.mkdir()
    rows = [GOOD[0], row("wrong", step(["echo", "2"], stdout="3\n"))]
    (suite / "t.json").write_text(json.dumps({"rows": rows}))
    check = Check(name="golden", kind="differential", table="t.json", module="toy")
    check._root = suite
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    res = check_result(check, toy, cfg)
    assert not res.passed and res.detail == "1/2 golden rows differ: wrong `echo 2`: stdout '2\\n', want '3\\n' (exact)"
    assert json.loads(res.stdout_tail)["failed"][0]["id"] == "wrong"


def test_verify_confirms_one_disagreeing_row_at_a_time_and_stops_at_the_first_that_fails(tmp_path, toy):
    """``suite verify`` needs only whether a table fails: one confirming subprocess run, not eight; a job's
    grading still confirms (and names) every failing row up to the cap."""
    wrong = [row(f"wrong-{n}", step(["echo", str(n)], stdout="x\n")) for n in range(3)]
    rows = [GOOD[0], *wrong]
    boxes: list[str] = []
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    box = GradingContext(workspace=toy, cfg=cfg).box

    def run_box(command):
        boxes.append(command)
        return box(command, timeout=60, output_cap=difftable.RESULT_CAP)

    verify = difftable.grade({"module": "toy", "rows": rows}, run_box, timeout=60, whole_box=True, first_failure=True)
    assert [f["id"] for f in verify.summary["failed"]] == ["wrong-0"] and len(boxes) == 2  # fast path + one confirmation
    assert difftable.summarize(verify.summary)[0] is False
    boxes.clear()
    job = difftable.grade({"module": "toy", "rows": rows}, run_box, timeout=60, whole_box=True)
    assert [f["id"] for f in job.summary["failed"]] == ["wrong-0", "wrong-1", "wrong-2"] and len(boxes) == 2


def test_table_inputs_of_a_row_land_in_its_own_folder(tmp_path, toy):
    rows = [row("a", step(["echo", "{dir}"], out="any"), files_in={"{dir}/f": "1"}),
            row("b", step(["write", "{db}"], files={"{db}": {"text": "a,b\n1,2\n"}, "{dir}/f": {"absent": True}}))]
    graded = grade(tmp_path, toy, rows)
    assert graded.summary["failed"] == []
    assert not list(Path(toy).rglob("t.db"))  # {db} is the row's scratch folder, never the workspace


def test_rows_that_begin_alike_run_their_common_steps_once_on_the_fast_path_only(tmp_path, toy):
    """A shared first step prints one token for every row that has it; after it, each row reads only its own
    steps' writes.  A real subprocess per step (the confirmation) runs every row's steps itself."""
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    box = GradingContext(workspace=toy, cfg=cfg).box
    rows = [row("x", step(["token", "{dir}/f"]), step(["append", "x", "{dir}/f"]), step(["cat", "{dir}/f"])),
            row("other", step(["echo", "between"])),
            row("y", step(["token", "{dir}/f"]), step(["append", "y", "{dir}/f"]), step(["cat", "{dir}/f"])),
            row("bare", step(["token", "{dir}/f"]), step(["cat", "{dir}/f"])),
            row("seeded", step(["token", "{dir}/f"]), step(["cat", "{dir}/f"]), files_in={"{dir}/seed": "s"})]
    got = {}
    for mode in ("fork", "subproc"):
        inputs = difftable.box_inputs({"module": "toy", "rows": rows}, range(len(rows)), mode, whole_box=True)
        res = difftable.parse(box(difftable.command(inputs), timeout=120, output_cap=difftable.RESULT_CAP).stdout_tail)
        got[mode] = {rows[n]["id"]: [st["out"] for st in r["steps"]] for n, r in res.items()}
    fork, sub = got["fork"], got["subproc"]
    token = fork["x"][0]
    assert fork["y"][0] == fork["bare"][0] == token != fork["seeded"][0]  # one run of the shared step; other files_in: own
    assert fork["x"][2] == token + "x\n" and fork["y"][2] == token + "y\n" and fork["bare"][1] == token
    assert fork["other"] == ["between\n"]
    assert len({sub[r][0] for r in ("x", "y", "bare", "seeded")}) == 4  # as real subprocesses each row ran its own
    assert all(sub[r][-1].startswith(sub[r][0]) for r in ("x", "y", "bare", "seeded"))


def test_a_result_line_nested_past_any_decoder_is_no_result_not_a_recursion_error():
    # the app shares the driver's stdout: it can print the result mark itself, 100,000 "[" deep
    hostile = "noise\n" + difftable.MARK + '{"rows": ' + "[" * 100_000 + "\n"
    assert difftable.parse(hostile) is None
    fine = difftable.MARK + json.dumps({"rows": [{"n": 0, "exit": 0, "stdout": "ok"}]})
    assert difftable.parse(hostile + fine + "\n") == {0: {"n": 0, "exit": 0, "stdout": "ok"}}


def test_both_modes_report_each_steps_cpu_seconds_without_the_interpreters_start_up(tmp_path, toy):
    """The fork path measures in the forked process (a step ending it by ``os._exit`` too); a real subprocess
    is measured from outside, its start-up subtracted: both see the app's own work."""
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap"})
    box = GradingContext(workspace=toy, cfg=cfg).box
    rows = [row("spin", step(["spin", "0.4"], stdout="spun\n", budget_s=5)),
            row("spin-exit", step(["spin-exit", "0.3"], stdout="spun\n")),
            row("echo", step(["echo", "x"], stdout="x\n"))]
    for mode in ("fork", "subproc"):
        inputs = difftable.box_inputs({"module": "toy", "rows": rows}, range(3), mode, whole_box=True)
        assert inputs["cpu_baseline"] is True and "budget_s" not in json.dumps(inputs)
        got = difftable.parse(box(difftable.command(inputs), timeout=120, output_cap=difftable.RESULT_CAP).stdout_tail)
        spin, spin_exit, echo = (got[n]["steps"][0]["cpu"] for n in range(3))
        assert 0.38 <= spin < 0.8 and 0.28 <= spin_exit < 0.7 and echo < 0.1, (mode, spin, spin_exit, echo)


def test_a_row_over_its_cpu_budget_fails_after_its_confirmation_under_it_passes(tmp_path, toy):
    rows = [row("slow", step(["spin", "0.6"], stdout="spun\n", budget_s=0.2)),
            row("fast", step(["spin", "0.1"], stdout="spun\n", budget_s=2.0))]
    graded = grade(tmp_path, toy, rows, problem=rowmatch.row_problem)
    [failed] = graded.summary["failed"]
    assert failed["id"] == "slow" and re.fullmatch(r"took 0\.\d s of CPU, budget 0\.2 s \(100x the reference's, "
                                                    r"at least 1 s\)", failed["problem"]), failed


def test_a_large_table_travels_packed_and_comes_back_whole(tmp_path, toy):
    """A box command is one argv string (128 KB at most): a table past that goes compressed."""
    big = "x" * 200_000
    rows = [row("big", step(["stdin"], stdin=big, out="any"))]
    cmd = difftable.command(difftable.box_inputs({"module": "toy", "rows": rows}, [0], whole_box=True))
    assert len(cmd) < 64 * 1024
    graded = grade(tmp_path, toy, [row("big", step(["stdin"], stdin=big, stdout=big.upper(), out="any"),
                                       step(["echo", "after"], stdout="after\n"))], problem=rowmatch.row_problem)
    assert graded.summary == {"rows": 1, "failed": [], "unconfirmed": 0}


@pytest.mark.parametrize("problem", [rowmatch.row_problem, difftable.row_problem])
def test_a_traceback_longer_than_the_stderr_kept_still_shows_as_a_traceback(tmp_path, toy, problem):
    """A deep recursion's traceback outgrows the stderr tail: the row still says it printed one (a crash
    mutant's promise, and what the operator wants to read), in both comparisons."""
    graded = grade(tmp_path, toy, [row("recurse", step(["recurse"], stdout="x\n"))], problem=problem)
    [failed] = graded.summary["failed"]
    assert failed["problem"] == "printed a Python traceback", failed


def boxes_for(tmp_path, ws, seen, timeout=120.0):
    """A real check box for ``ws`` that appends each result to ``seen``."""
    require_bwrap()
    cfg = load_config(tmp_path, environ={}, overrides={"sandbox.backend": "bwrap", "checks.max_procs": 64})
    box = GradingContext(workspace=ws, cfg=cfg).box

    def run_box(command):
        seen.append(box(command, timeout=timeout, output_cap=difftable.RESULT_CAP))
        return seen[-1]

    return run_box


def test_tables_of_one_app_share_one_fast_path_box_and_each_keeps_its_own_verdict(tmp_path, toy):
    seen: list = []
    run_box = boxes_for(tmp_path, toy, seen)
    good = {"module": "toy", "rows": GOOD[:6]}
    mixed = {"module": "toy", "rows": [GOOD[6], row("wrong", step(["echo", "2"], stdout="3\n")), GOOD[7]]}
    runs = difftable.together([good, mixed], run_box, timeout=120, whole_box=True)
    assert len(seen) == 1 and all(runs)
    assert sorted(runs[1].got) == [0, 1, 2]  # each table's rows by its own index
    first = difftable.grade(good, run_box, timeout=120, whole_box=True, fast=runs[0])
    assert first.summary == {"rows": 6, "failed": [], "unconfirmed": 0} and len(seen) == 1  # nothing to confirm
    second = difftable.grade(mixed, run_box, timeout=120, whole_box=True, fast=runs[1])
    assert [f["id"] for f in second.summary["failed"]] == ["wrong"] and len(seen) == 2  # its confirmation alone
    assert difftable.summarize(second.summary)[1].startswith("1/3 golden rows differ: wrong `echo 2`")


def test_a_table_the_shared_deadline_cut_is_run_alone_and_keeps_its_verdict(tmp_path, toy):
    """One table's hang spends the shared box's time: the tables it cut get no fast path from it, and alone
    each is graded as before (the good one passes)."""
    seen: list = []
    run_box = boxes_for(tmp_path, toy, seen, timeout=8.0)
    hangs = {"module": "toy", "rows": [row("hang", step(["hang"]))]}
    good = {"module": "toy", "rows": GOOD[:2]}
    assert difftable.together([hangs, good], run_box, timeout=8.0, whole_box=True) == [None, None]
    alone = difftable.grade(good, boxes_for(tmp_path, toy, seen), timeout=120, whole_box=True)
    assert alone.summary == {"rows": 2, "failed": [], "unconfirmed": 0}
