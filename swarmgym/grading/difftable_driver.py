"""Differential-check driver: runs a golden table's *inputs* against ``python3 -m MODULE`` (stdlib only).

This file is not imported by swarmgym: :mod:`swarmgym.grading.difftable` sends its source, with the inputs
appended, to ``python3 -P -`` inside the check box, in the workspace.  The driver never holds an
expected value: it gets each row's argv (``{db}`` / ``{dir}`` placeholders), stdin, input files
(``files_in``), the folder a step runs in (``cwd``, default the workspace) and the paths of the files to
read back, runs the steps, and prints what came out as
one JSON line; the harness compares it with the golden values outside the box.

Modes:

- ``fork`` (the fast path): rows run in processes forked from the driver — rows up to ``steps_per_fork``
  steps per process (``1``: a fork per row).  Rows that begin alike (the same ``files_in`` and first steps)
  run those steps once: the rows' steps are walked as a prefix tree, the row folder saved where the tree
  branches and put back before each later branch (:func:`shared_plan`), and a shared step's outcome is
  reported for every row that has it.  The process points fds 0/1/2 at each
  step's stdin and capture files (so C-level writes and ``os._exit`` are captured), runs the step as
  ``python3 -m`` would (``runpy``; ``SystemExit`` codes, an uncaught exception printed and exit 1,
  non-daemon threads joined, ``atexit`` handlers run, stdout/stderr flushed), reads back the files
  the step wrote, and resets what a fresh process would not have (every module the step imported,
  ``builtins`` as it was (a wrapped ``print`` undone), ``sys.argv``/``path``/streams, the environment,
  the working folder, signal handlers).  A step that ends its process (``os._exit``, a crash, a signal,
  the kernel at the memory cap), hangs past ``step_timeout`` (killed), leaves a thread running or
  changes an imported module is followed by a fresh fork for the next step; a step's outcome comes
  back over a pipe.  Whatever a row does stays in its process: the driver (non-dumpable, so no row
  reaches its memory or fds through ``/proc``) kills what the process left — every other process of a
  bwrap box, else its process group — and goes on.  Before forking, the driver imports the common standard-library
  modules the app's sources import and compiles the app's sources (parsed and compiled, never run),
  and caches what those modules would compute again in every step with the same answer (the locale
  lookup behind argparse's messages, the methods dataclasses compile, the terminal size argparse asks
  for: :func:`memoize_stdlib`), so a step starts faster than a fresh interpreter.  After a step the row
  process puts back only what the step changed (the environment and signal handlers are compared, not
  rewritten).
- ``subproc``: every step is a real ``python3 -m MODULE`` subprocess (the confirmation pass for rows
  that disagreed, and the slow baseline benchmarks/suite.py measures).

The table has a deadline (``deadline_at``, on the host's monotonic clock, which the box shares — so
a box that was slow to start has less of it — and never more than ``deadline_s`` from the driver's
start): no step runs past it.  A step gets ``step_timeout`` or what is left, whichever is less; a
step the deadline cuts short, and every step after it, is not run, and its row is reported
``skipped`` (never as the row's own timeout), so the result line is always printed before the
check's box is killed.

Running as ``python3 -P`` keeps the workspace off the driver's own import path (an app's ``json.py``
cannot hijack the driver); a step puts the workspace first on ``sys.path`` as ``python3 -m`` does,
and forgets the modules the driver imported that the workspace shadows.

Output: ``MARK {"rows": [{"n", "steps": [{"code", "timeout", "cpu", "out", "err", "out_cut", "err_cut",
"files": {PATH: {"text": T} | {"missing": true} | {"error": E}}}]} | {"n", "skipped": true}]}``
(``skipped``: the deadline came before the row ended; a step whose stderr tail left out a Python
traceback's first line also has ``"err_traceback": true``).

``cpu``: the CPU seconds (user + system) the step took, its process and the children it waited for
(None when it timed out or did not run).  On the fast path the forked process measures it with
``getrusage`` (``RUSAGE_SELF`` + ``RUSAGE_CHILDREN``) around the step; a step that ends its process is
measured from ``wait4``'s usage of that process, less what it had used when the step began.  As a real
subprocess it is the driver's ``RUSAGE_CHILDREN`` delta around the step, less the interpreter's start-up:
with ``cpu_baseline`` set, the driver first times ``python3 -c 'import …'`` of the standard-library
modules the fast path would have imported before forking (the least of two runs), so both modes count
the app's own work only.
"""
import sys

STARTUP = frozenset(sys.modules)  # what a real interpreter has imported before it runs the module

import _signal  # type: ignore[import-not-found]  # noqa: E402 - what signal wraps in enums
import ast  # noqa: E402 - after STARTUP on purpose
import atexit  # noqa: E402
import builtins  # noqa: E402
import functools  # noqa: E402
import importlib.machinery  # noqa: E402
import io  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import operator  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import runpy  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import stat  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

MARK = "SWARMGYM-DIFF "  # the harness reads the last line that starts with it (swarmgym.grading.difftable.MARK)
CAP = 64 * 1024  # bytes kept of a step's stdout (head) and stderr (tail)
BUDGET = 4 * 1024 * 1024  # bytes of output kept over the whole table; past it each stream keeps 4 KB
FILE_CAP = 1024 * 1024  # largest file read back
CUT = (None, None, None)  # a step's outcome when the table's deadline came first: not run, or cut short
WARM = {"argparse", "array", "base64", "bisect", "calendar", "collections", "contextlib", "copy", "csv", "dataclasses",
        "datetime", "decimal", "enum", "fnmatch", "fractions", "functools", "glob", "hashlib", "heapq", "io",
        "itertools", "json", "locale", "logging", "math", "numbers", "operator", "os", "pathlib", "random", "re",
        "secrets", "shlex", "shutil", "sqlite3", "statistics", "string", "struct", "sys", "tempfile", "textwrap",
        "time", "traceback", "typing", "unicodedata", "uuid", "zlib"}
COMPILED: dict = {}  # source path -> ((mtime_ns, size), code): the app's sources, compiled before forking
_kept = [0]
_getrusage = resource.getrusage  # bound before any row runs: a step cannot swap the driver's clock
_get_code = importlib.machinery.SourceFileLoader.get_code


def _precompiled_get_code(self, fullname):
    path = self.get_filename(fullname)
    hit = COMPILED.get(path)
    if hit is not None:
        try:
            st = os.stat(path)
            if (st.st_mtime_ns, st.st_size) == hit[0]:
                return hit[1]
        except OSError:
            pass
    return _get_code(self, fullname)


_PRCTL: list = []


def _prctl_dumpable(flag):
    try:
        if not _PRCTL:
            import ctypes

            _PRCTL.append(ctypes.CDLL(None).prctl)
        _PRCTL[0](4, flag, 0, 0, 0)  # PR_SET_DUMPABLE
    except Exception:  # noqa: BLE001 - not Linux: the box's other walls still stand
        pass


def cpu_used():
    """CPU seconds (user + system) this process and its waited-for children have used so far."""
    me, kids = _getrusage(resource.RUSAGE_SELF), _getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def prepare(root):
    """Compile the app's sources and import the common standard-library modules they import —
    parsed and compiled here, never run."""
    names = set()
    for path, st, tree in app_sources(root):
        COMPILED[path] = ((st.st_mtime_ns, st.st_size), compile(tree, path, "exec", dont_inherit=True))
        names |= imported(tree)
    importlib.machinery.SourceFileLoader.get_code = _precompiled_get_code
    for name in warm(root, names):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a module that does not import here: the row will say so
            pass
    memoize_stdlib()


LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # what gettext.find reads, in its order


def memoize_stdlib():
    """Cache three computations the standard library repeats in every step, as a fresh interpreter would:
    ``gettext.find`` in the interpreter's own locale folder (argparse translates every help string through
    it: about a third of a step of an argparse app; ``dgettext`` answers the message itself, without
    raising and catching, when that finds no catalogue and nothing was bound or patched), the compiling
    of the methods ``dataclasses`` writes for each class (``exec`` of a source text) and
    ``shutil.get_terminal_size`` while stdout is a regular file (argparse asks it for every argument it
    adds; a step's stdout is a capture file, never a terminal).  Each gives what the uncached call gives: the key holds every input (domain, ``all``, the
    default folder, the four locale variables — the folder is the interpreter's, read-only in the box; the
    text; ``COLUMNS``, ``LINES`` and the fallback), and one text compiles to one code object.  Only modules
    already imported (the stdlib's: the driver runs with ``-P``) are touched."""
    gettext, dataclasses = sys.modules.get("gettext"), sys.modules.get("dataclasses")
    if gettext is not None and callable(getattr(gettext, "find", None)):
        find, found = gettext.find, {}

        def cached_find(domain, localedir=None, languages=None, all=False):
            if localedir is not None or languages is not None:
                return find(domain, localedir, languages, all)
            key = (domain, bool(all), getattr(gettext, "_default_localedir", None), *environ_values(LOCALE_VARS))
            if key not in found:
                found[key] = find(domain, None, None, all)
            hit = found[key]
            return list(hit) if isinstance(hit, list) else hit

        gettext.find = cached_find
        dgettext, translation = getattr(gettext, "dgettext", None), getattr(gettext, "translation", None)
        if callable(dgettext) and callable(translation):

            def cached_dgettext(domain, message):
                # dgettext is translation(domain, bound folder) or the message itself when that raises OSError, as
                # it does when find() finds no catalogue: said here without the raise (argparse asks per string)
                if (gettext.find is cached_find and gettext.translation is translation
                        and getattr(gettext, "_localedirs", {}).get(domain) is None
                        and not cached_find(domain, None, None, True)):
                    return message
                return dgettext(domain, message)

            gettext.dgettext = cached_dgettext
    if dataclasses is not None:
        codes: dict = {}

        def cached_exec(source, globals=None, locals=None):
            if isinstance(source, str):
                code = codes.get(source)
                if code is None:
                    code = codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
                source = code
            return exec(source, globals, locals)

        dataclasses.exec = cached_exec  # a module global before the builtin: only dataclasses' own calls
    size = shutil.get_terminal_size
    sizes: dict = {}

    def cached_terminal_size(fallback=(80, 24)):
        try:
            regular = stat.S_ISREG(os.fstat(sys.__stdout__.fileno()).st_mode)
        except (AttributeError, ValueError, OSError):
            regular = False
        if not regular:  # a terminal, a pipe, no stdout: asked every time, as uncached
            return size(fallback)
        key = (*environ_values(("COLUMNS", "LINES")), tuple(fallback))
        if key not in sizes:
            sizes[key] = size(fallback)
        return sizes[key]

    shutil.get_terminal_size = cached_terminal_size


_ENCODED: dict = {}  # a variable's name as os.environ's dict holds it


def environ_values(names):
    """``os.environ.get`` of each of ``names``, read straight from ``os.environ``'s own dict where it has one
    (the standard library's caches above key on them in every call)."""
    data = getattr(os.environ, "_data", None)
    if type(data) is dict and type(os.environ) is os._Environ:
        return [data.get(_ENCODED.get(n) or _ENCODED.setdefault(n, os.fsencode(n))) for n in names]
    return [os.environ.get(n) for n in names]


def warm(root, names):
    """The common standard-library modules among ``names`` the workspace does not shadow (sorted)."""
    return sorted((names & WARM) - shadowed(root, names))


def imported(tree):
    """The top-level names of the absolute imports in ``tree``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def startup_cpu(root, tries=2):
    """CPU seconds of ``python3 -c 'import …'`` (the start-up and the common standard-library modules
    the app imports, which the fast path imports before forking): the least of ``tries`` runs."""
    names = set()
    for _path, _st, tree in app_sources(root):
        names |= imported(tree)
    code = "import " + ", ".join(warm(root, names)) if warm(root, names) else "pass"
    best = None
    for _ in range(tries):
        before = cpu_used()
        try:
            subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            return 0.0
        spent = cpu_used() - before
        best = spent if best is None else min(best, spent)
    return best or 0.0


def app_sources(root, max_files=300, max_bytes=256 * 1024, max_dirs=2000):
    """(path, stat, parsed tree) of each of the app's Python sources (regular files, bounded)."""
    for top, dirs, files in os.walk(root):
        max_dirs -= 1
        if max_dirs <= 0:
            break
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for f in files:
            if not f.endswith(".py") or max_files <= 0:
                continue
            max_files -= 1
            path = os.path.join(top, f)
            try:
                st = os.stat(path)
                if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
                    continue
                with open(path, "rb") as fh:
                    tree = ast.parse(fh.read(), filename=path)
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            yield path, st, tree


def shadowed(root, names):
    """Those of ``names`` the workspace itself provides (``name.py`` or a ``name/`` folder at its top):
    for the app they are its own modules, as under ``python3 -m``.  One listing of the folder, not two
    ``stat`` calls per name (every fresh row process asks)."""
    try:
        with os.scandir(root) as it:
            top = {e.name: e for e in it}
    except OSError:
        return set()

    def provides(name, want_dir):
        entry = top.get(name)
        try:  # following symbolic links, as os.path.isfile / isdir do
            return entry is not None and (entry.is_dir() if want_dir else entry.is_file())
        except OSError:
            return False

    return {n for n in names if provides(n + ".py", False) or provides(n, True)}


def forget_shadowed(root):
    """Drop the modules imported since start-up whose names the workspace shadows (so the app
    imports its own, as a fresh ``python3 -m`` would)."""
    tops = {name.split(".")[0] for name in sys.modules if name not in STARTUP}
    for top in shadowed(root, tops):
        for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            del sys.modules[name]


def exit_code(code):
    """What the interpreter exits with for ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:  # noqa: BLE001
        pass
    return 1


def std_stream(fd, like):
    """A text stream on ``fd`` made like the interpreter made ``like`` (this process's own stdin,
    stdout or stderr, on the same kind of file): encoding, errors, buffering (``-u`` /
    ``PYTHONUNBUFFERED``), line buffering."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    if isinstance(like.buffer, io.RawIOBase):  # unbuffered
        buf = raw
    else:
        buf = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
    return io.TextIOWrapper(buf, encoding=like.encoding, errors=like.errors, line_buffering=like.line_buffering,
                            write_through=like.write_through)


def run_step(module, argv, cwd, streams):
    """One step in this (forked) process, as ``python3 -m module argv`` on fds 0/1/2: its exit code."""
    sys.stdin, sys.stdout, sys.stderr = (std_stream(fd, like) for fd, like in enumerate(streams))
    sys.argv = [module, *argv]
    sys.path.insert(0, cwd)
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        code = exit_code(e.code)
    except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
        traceback.print_exc()
        code = 1
    for t in threading.enumerate():  # the interpreter joins non-daemon threads before it exits
        if t is not threading.current_thread() and not t.daemon:
            try:
                t.join()
            except BaseException:  # noqa: BLE001
                pass
    try:
        atexit._run_exitfuncs()
        atexit._clear()
    except BaseException:  # noqa: BLE001
        pass
    for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):  # __stdout__ writes to fd 1 too
        try:
            if s is not None:
                s.flush()
        except BaseException:  # noqa: BLE001 - as python3: an unflushable stdout is exit 120
            code = 120 if s is sys.stdout and code == 0 else code
    return code


@functools.cache
def signal_handlers():
    """Every catchable signal's handler as the driver has them (a forked row process inherits them): read
    once, before the first fork, not in every row process.  Read through ``_signal`` (what ``signal`` wraps
    in enums): a row process compares them after every step."""
    return {n: _signal.getsignal(n) for n in signal.valid_signals() if n not in (signal.SIGKILL, signal.SIGSTOP)}


def put_back_signals(handlers):
    """Undo what a step did to the signal handlers (only those it changed)."""
    for n, h in handlers.items():
        if h is not None and _signal.getsignal(n) is not h:
            signal.signal(n, h)


def environ_state():
    """What ``os.environ`` holds, to tell after a step whether the step changed it (a dict compare, not a
    copy back of every variable after every step)."""
    data = getattr(os.environ, "_data", None)
    return dict(data) if type(data) is dict else dict(os.environ)


def put_back_environ(environ, saved, state):
    """``os.environ`` as it was before the step (the same object holding ``saved``), if the step changed it
    (``state``: :func:`environ_state` then)."""
    if os.environ is not environ:
        os.environ = environ  # noqa: B003 - the object a step rebound, put back (its variables below)
    if environ_state() != state:
        environ.clear()
        environ.update(saved)


def fingerprint():
    """What a step must not change for the next step to run in the same process: how many names each
    imported module has (taken after :func:`put_back_builtins` undid what the step did to the builtins)."""
    return tuple(len(getattr(m, "__dict__", ())) for m in list(sys.modules.values()))


def put_back_builtins(saved):
    """Undo what a step bound, rebound or deleted in ``builtins`` (a wrapped ``print``): a fresh process has
    them as the driver does, so the next step needs no fresh fork.  Key by key, never clearing the namespace."""
    space = vars(builtins)
    if len(space) == len(saved) and all(map(operator.is_, map(space.get, saved, itertools.repeat(space)),
                                            saved.values())):
        return
    for k in [k for k in space if k not in saved]:
        del space[k]
    for k, v in saved.items():
        if space.get(k, space) is not v:
            space[k] = v


def steps_process(module, plan, first, io, status):
    """A forked process running steps ``first``… of ``plan`` (one row's or several rows'), each
    reported as ``S i cpu`` / ``E i code dirty cpu`` on ``status`` (``cpu``: the CPU used so far, at the
    step's start and end), the files it wrote read back into its fd 3; after each step it resets what a
    fresh process would not have (the modules it imported forgotten, ``builtins`` as it was, ``sys.path``,
    the environment, the folder, signal handlers).  A step that leaves a thread running or changes an
    imported module ends the process: the next step gets a fresh one."""
    code = 0
    try:
        os.setsid()
        _prctl_dumpable(1)
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # at the box's memory cap the kernel kills a row, not the driver
        except OSError:
            pass
        cwd = os.getcwd()
        forget_shadowed(cwd)
        streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
        modules, path, environ, env_saved = dict(sys.modules), list(sys.path), os.environ, dict(os.environ)
        env_state = environ_state()
        handlers = signal_handlers()
        before, saved, me = fingerprint(), dict(vars(builtins)), os.getpid()
        for i in range(first, len(plan)):
            refill(plan[i])
            for target, fd in enumerate(io[i][:3]):
                os.dup2(fd, target)
            if plan[i].get("cwd"):  # a step run from another folder (the app still imported from the workspace)
                os.chdir(plan[i]["cwd"])
            os.write(status, f"S {i} {cpu_used():.6f}\n".encode())
            rc = run_step(module, plan[i]["argv"], cwd, streams)
            spent = cpu_used()
            if os.getpid() != me:  # a process the step forked came back here: its program is over
                os._exit(rc)
            if plan[i]["read"]:
                os.write(io[i][3], json.dumps({p: read_back(p) for p in plan[i]["read"]}).encode())
            sys.modules.clear()  # what the step imported is gone, as in a fresh process
            sys.modules.update(modules)
            put_back_builtins(saved)
            dirty = any(t is not threading.current_thread() for t in threading.enumerate()) or fingerprint() != before
            os.write(status, f"E {i} {rc} {int(dirty)} {spent:.6f}\n".encode())
            if dirty:
                break
            sys.path = list(path)
            put_back_environ(environ, env_saved, env_state)
            os.chdir(cwd)
            put_back_signals(handlers)
    except BaseException:  # noqa: BLE001 - the step's outcome is already reported, or its start
        code = 70
    finally:
        os._exit(code)


def refill(step):
    """Before a step a shared plan runs (:func:`shared_plan`): save the row folder's files as the previous
    step left them (``save``), or put back those its parent step left (``restore``)."""
    if step.get("restore"):
        if not both_empty(step["restore"], step["dir"]):
            wipe(step["dir"])
            copy_tree(step["restore"], step["dir"])
    elif step.get("save"):
        wipe(step["save"])
        copy_tree(step["dir"], step["save"])


def both_empty(a, b):
    """Two folders with nothing in them and one mode (a row that wrote no file): putting one back over the
    other would change nothing."""
    try:
        return not os.listdir(a) and not os.listdir(b) and os.stat(a).st_mode == os.stat(b).st_mode
    except OSError:
        return False


def wipe(path):
    """Remove the folder ``path`` and all in it, whatever modes a step gave them."""
    for root, dirs, _ in os.walk(path):  # never into a link
        for d in dirs:
            sub = os.path.join(root, d)
            try:
                if not os.path.islink(sub):
                    os.chmod(sub, 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


def copy_tree(src, dst):
    """Copy the folder ``src`` to ``dst`` (made anew): folders, regular files with their modes and times, links
    as links; a FIFO, socket or device is left out (opening one could block)."""
    os.mkdir(dst)
    with os.scandir(src) as entries:
        for e in entries:
            to = os.path.join(dst, e.name)
            if e.is_symlink():
                os.symlink(os.readlink(e.path), to)
            elif e.is_dir(follow_symlinks=False):
                copy_tree(e.path, to)
            elif e.is_file(follow_symlinks=False):
                shutil.copy2(e.path, to, follow_symlinks=False)
    shutil.copystat(src, dst, follow_symlinks=False)


def ancestors():
    """This process and every ancestor (never swept)."""
    out, pid = set(), os.getpid()
    while pid > 0 and pid not in out:
        out.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def sweep(keep, pgid, whole_box):
    """Kill what a row left: every other live process of the box (in a bwrap box: its own PID
    namespace), else the row's process group; reap our own children."""
    for _ in range(200):
        if pgid > 1:  # never killpg(1) or below: that would mean every process there is
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass
        left = []
        if whole_box:
            for name in os.listdir("/proc"):
                if name.isdigit() and int(name) not in keep:
                    try:
                        with open(f"/proc/{name}/stat") as f:
                            state = f.read().rsplit(")", 1)[1].split()[0]
                    except (OSError, IndexError):
                        continue
                    if state not in ("Z", "X"):
                        left.append(int(name))
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not left:
            return
        time.sleep(0.002)


def read_capture(fd, head):
    """A step's captured stream: (text, cut?) — its head (stdout) or tail (stderr), at most the step
    cap (4 KB once the table's budget is spent)."""
    size = os.fstat(fd).st_size
    cap = CAP if _kept[0] < BUDGET else 4096
    os.lseek(fd, 0 if head else max(0, size - cap), os.SEEK_SET)
    chunks, want = [], min(size, cap)
    while want > 0:
        b = os.read(fd, want)
        if not b:
            break
        chunks.append(b)
        want -= len(b)
    data = b"".join(chunks)
    _kept[0] += len(data)
    return data.decode("utf-8", "replace"), size > cap


def traceback_cut(fd, kept, limit=64 << 20):
    """Whether the part of a captured stderr the tail left out holds a Python traceback's first line
    (a deep recursion's traceback is longer than the tail kept: only its last frames would show)."""
    mark = b"Traceback (most recent call last)"
    os.lseek(fd, 0, os.SEEK_SET)
    left, carry = min(os.fstat(fd).st_size - kept, limit), b""
    while left > 0:
        b = os.read(fd, min(left, 1 << 20))
        if not b:
            break
        if mark in carry + b:
            return True
        carry, left = b[-len(mark):], left - len(b)
    return False


def read_back(path):
    """A file a step wrote (regular files only, never a FIFO or device; at most FILE_CAP bytes)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return {"missing": True}
    except OSError as e:
        return {"error": e.strerror or str(e)}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {"error": "not a regular file"}
        data = os.read(fd, FILE_CAP + 1)
    finally:
        os.close(fd)
    if len(data) > FILE_CAP:
        return {"error": f"larger than {FILE_CAP} bytes"}
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError as e:
        return {"error": str(e)}


_IO: list = []  # reusable (stdin, stdout, stderr, files read back) fds per step of a batch


def open_io(scratch, n, stdin):
    """Step ``n``'s (stdin, stdout, stderr, files) fds, emptied: its stdin text in a file, three empty
    capture files (opened once per step index and reused from batch to batch)."""
    while len(_IO) <= n:
        k = len(_IO)
        _IO.append([os.open(os.path.join(scratch, f"{k}.{x}"), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
                    for x in ("in", "out", "err", "files")])
    fds = _IO[n]
    for fd in fds:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
    if stdin:
        os.write(fds[0], stdin.encode("utf-8"))
        os.lseek(fds[0], 0, os.SEEK_SET)
    return fds


def files_read(fd, paths):
    """The files a step wrote, as the step's process read them back (or read now, if it died first)."""
    if not paths:
        return {}
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        got = json.loads(os.read(fd, 8 * FILE_CAP * len(paths) + 4096) or b"null")
    except ValueError:
        got = None
    if not isinstance(got, dict):
        got = {p: read_back(p) for p in paths}
    return {p: got.get(p) if isinstance(got.get(p), dict) else {"error": "not read back"} for p in paths}


def _fork(keep, whole_box):
    for _ in range(3):
        try:
            return os.fork()
        except OSError:  # the box is at its process cap: what a row left is being swept
            sweep(keep, -1, whole_box)
            time.sleep(0.05)
    return None


def fork_steps(module, plan, io, timeout, keep, whole_box, deadline):
    """Every step of ``plan`` on the fast path: [(code, timed out?, cpu seconds)] (code None: the step did
    not run; ``CUT``: the deadline came first)."""
    out = [(None, False, None)] * len(plan)
    first = 0
    while first < len(plan):
        if time.monotonic() >= deadline:
            out[first:] = [CUT] * (len(plan) - first)
            break
        r, w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = _fork(keep, whole_box)
        if pid == 0:
            os.close(r)
            wanted = {w, *(fd for fds in io[first:] for fd in fds)}
            for fd in range(3, 1 + max(wanted)):
                if fd not in wanted:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            os.closerange(max(wanted) + 1, 65536)
            steps_process(module, plan, first, io, w)
        os.close(w)
        if pid is None:
            os.close(r)
            os.write(io[first][2], b"swarmgym: the driver could not fork a process for this step\n")
            first += 1
            continue
        first = _follow(pid, r, first, len(plan), timeout, out, deadline)
        os.close(r)
        sweep(keep, pid, whole_box)
    return out


def _follow(pid, r, first, n, timeout, out, last):
    """Read a row process's step reports until it ends; record each step; the next step to run
    (``n`` once the table's deadline ``last`` cut a step short)."""
    running, ended, buf, gone, began = None, first - 1, b"", False, 0.0
    deadline = min(time.monotonic() + timeout, last)
    try:
        pidfd = os.pidfd_open(pid)  # the process's end, even while a grandchild keeps the pipe open
    except (AttributeError, OSError):
        pidfd = None
    os.set_blocking(r, False)
    try:
        while not gone:
            left = deadline - time.monotonic()
            ready = select.select([r] + ([pidfd] if pidfd is not None else []), [], [], left)[0] if left > 0 else []
            if not ready:  # the step ran out of time: kill the row's process, the next step gets a fresh one
                _kill(pid)
                os.waitpid(pid, 0)
                step = running if running is not None else ended + 1
                if deadline >= last:  # the table's deadline, not the step's own timeout: the rest is not run
                    out[step:] = [CUT] * (n - step)
                    return n
                if step < n:
                    out[step] = (-signal.SIGKILL, True, None)
                return step + 1
            gone = pidfd in ready
            try:
                chunk = os.read(r, 65536)
            except BlockingIOError:
                chunk = b"" if gone else None
            if chunk is None:
                continue
            gone = gone or not chunk
            buf += chunk
            *lines, buf = buf.split(b"\n")
            buf = buf[-256:]  # a report line is short: anything longer is noise
            for line in lines:
                parts = line.split()
                if len(parts) == 3 and parts[0] == b"S" and parts[1] == str(ended + 1).encode() and running is None:
                    running, deadline = ended + 1, min(time.monotonic() + timeout, last)
                    began = _seconds(parts[2])
                elif len(parts) == 5 and parts[0] == b"E" and running is not None and parts[1] == str(running).encode():
                    spent = _seconds(parts[4])
                    try:
                        out[running] = (int(parts[2]), False, None if spent is None or began is None else
                                        max(0.0, spent - began))
                    except ValueError:
                        out[running] = (None, False, None)
                    ended, running = running, None
    finally:
        if pidfd is not None:
            os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    step = running if running is not None else ended + 1
    if running is not None or ended + 1 == first:  # the process ended inside a step (or before the first)
        if step < n:
            total = usage.ru_utime + usage.ru_stime  # the process and the children it waited for
            spent = None if running is None or began is None else max(0.0, total - began)
            out[step] = (os.waitstatus_to_exitcode(status), False, spent)
        return step + 1
    return ended + 1


def _seconds(field):
    try:
        return float(field)
    except ValueError:
        return None


def _kill(pid):
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except OSError:
            pass


def subproc_steps(module, plan, io, timeout, keep, whole_box, deadline, startup=0.0):
    """Every step of ``plan`` as a real ``python3 -m`` subprocess: [(code, timed out?, cpu seconds less
    ``startup``)] (``CUT``: the deadline came first)."""
    out = []
    for i, step in enumerate(plan):
        left = deadline - time.monotonic()
        if left <= 0:
            out += [CUT] * (len(plan) - i)
            break
        limit = min(timeout, left)
        before = cpu_used()  # the driver's own children so far: the step's is the difference
        try:
            env = dict(os.environ, PYTHONPATH=os.getcwd()) if step.get("cwd") else None
            p = subprocess.Popen([sys.executable, "-m", module, *step["argv"]], stdin=io[i][0], stdout=io[i][1],
                                 stderr=io[i][2], start_new_session=True, cwd=step.get("cwd") or None, env=env)
        except OSError as e:
            os.write(io[i][2], f"swarmgym: cannot start python3 -m {module}: {e}\n".encode())
            out.append((None, False, None))
            continue
        try:
            code = p.wait(limit)
            out.append((code, False, max(0.0, cpu_used() - before - startup)))
        except subprocess.TimeoutExpired:
            _kill(p.pid)
            code = p.wait()
            out.append((code, True, None) if limit >= timeout else CUT)
        sweep(keep, p.pid, whole_box)
        os.write(io[i][3], json.dumps({f: read_back(f) for f in step["read"]}).encode())
    return out


def run_batch(module, rows, mode, timeout, base, keep, whole_box, deadline, startup=0.0, share=False):
    """Rows (each in a fresh folder for ``{db}`` / ``{dir}``) through one planned run of their steps; a
    row the deadline cut short is ``skipped``.  With ``share`` (the fast path) rows that begin alike share
    the run of their common steps (:func:`shared_plan`)."""
    dirs: list = []
    try:
        plan = shared_plan(rows, base, dirs) if share else own_plan(rows, base, dirs)
        io = [open_io(base, i, st["stdin"]) for i, st in enumerate(plan)]
        if mode == "fork":
            outcomes = fork_steps(module, plan, io, timeout, keep, whole_box, deadline)
        else:
            outcomes = subproc_steps(module, plan, io, timeout, keep, whole_box, deadline, startup)
        results = {row["n"]: {"n": row["n"], "steps": []} for row in rows}
        for st, fds, (code, timed_out, cpu) in zip(plan, io, outcomes):
            if timed_out is None:
                for n in st["rows"]:
                    results[n] = {"n": n, "skipped": True}
                continue
            out, out_cut = read_capture(fds[1], head=True)
            err, err_cut = read_capture(fds[2], head=False)
            files = files_read(fds[3], st["read"])
            step = {"code": code, "timeout": timed_out, "cpu": cpu, "out": out, "err": err, "out_cut": out_cut,
                    "err_cut": err_cut, "files": {name: files[p] for name, p in zip(st["names"], st["read"])}}
            if err_cut and traceback_cut(fds[2], len(err.encode("utf-8", "replace"))):
                step["err_traceback"] = True
            for n in st["rows"]:
                if "skipped" not in results[n]:
                    results[n]["steps"].append(step)
        return [results[row["n"]] for row in rows]
    finally:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)


def row_folder(base, dirs, files_in):
    """A fresh folder for ``{db}`` / ``{dir}`` holding ``files_in``; its placeholder substitution."""
    rowdir = tempfile.mkdtemp(prefix="row-", dir=base)
    dirs.append(rowdir)

    def subst(s):
        return s.replace("{db}", os.path.join(rowdir, "t.db")).replace("{dir}", rowdir)

    for path, text in (files_in or {}).items():
        with open(subst(path), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return rowdir, subst


def plan_step(st, subst, rows):
    """One step of the plan, run once for ``rows`` (row indices)."""
    return {"rows": rows, "argv": [subst(a) for a in st["argv"]], "stdin": st.get("stdin"),
            "cwd": subst(st["cwd"]) if st.get("cwd") else None,
            "read": [subst(p) for p in st.get("read") or []], "names": list(st.get("read") or [])}


def own_plan(rows, base, dirs):
    """Every row's steps in order, each row in a folder of its own (a real subprocess per step)."""
    plan = []
    for row in rows:
        _, subst = row_folder(base, dirs, row.get("files_in"))
        plan += [plan_step(st, subst, [row["n"]]) for st in row["steps"]]
    return plan


def step_key(st):
    """What makes two rows' steps the same run: argv, stdin, folder and the files read back."""
    return json.dumps([st["argv"], st.get("stdin"), st.get("cwd"), st.get("read") or []])


def row_keys(row):
    """A row's ``files_in`` and each of its steps as keys, worked out once per row: two rows' first ``k`` steps
    run alike when their first ``k + 1`` keys are equal."""
    if "keys" not in row:
        row["keys"] = (json.dumps(row.get("files_in") or {}, sort_keys=True), *map(step_key, row["steps"]))
    return row["keys"]


def prefixes(row, share):
    """The runs a row's steps take: each a prefix of its keys (shared with any row that has it) with ``share``,
    else the row's own."""
    if share:
        keys = row_keys(row)
        return [keys[:k + 2] for k in range(len(row["steps"]))]
    return [(row["n"], k) for k in range(len(row["steps"]))]


def shared_plan(rows, base, dirs):
    """The rows' steps as one walk of their prefix tree, so a prefix that rows share runs once.

    Rows with the same ``files_in`` share a folder; their steps form a tree (a node per distinct prefix).
    Walking it depth first, a node with several children saves its folder (the files as its step left
    them) before the first child's step and restores it before each later child's: every row sees what
    running its own steps alone in a fresh folder would leave, and each of its steps' outcomes (the
    shared ones too) is reported for it."""
    roots: dict = {}
    for row in rows:
        files_key, *step_keys = row_keys(row)
        node = roots.setdefault(files_key, {"kids": {}, "files_in": row.get("files_in")})
        for st, key in zip(row["steps"], step_keys):
            node = node["kids"].setdefault(key, {"kids": {}, "rows": [], "step": st})
            node["rows"].append(row["n"])
    plan: list = []
    for root in roots.values():
        rowdir, subst = row_folder(base, dirs, root["files_in"])
        walk(root, rowdir, subst, plan, dirs)
    return plan


def walk(node, rowdir, subst, plan, dirs):
    """``node``'s subtree into ``plan``, depth first (a child's subtree before its next sibling)."""
    kids = list(node["kids"].values())
    snap = f"{rowdir}.{len(plan)}" if len(kids) > 1 else None
    if snap:
        dirs.append(snap)
    for i, kid in enumerate(kids):
        plan.append(plan_step(kid["step"], subst, kid["rows"]))
        if snap:
            plan[-1].update({"dir": rowdir, ("save" if i == 0 else "restore"): snap})
        walk(kid, rowdir, subst, plan, dirs)


def batches(rows, steps_per_fork, share=False):
    """Rows whose steps add up to at most ``steps_per_fork`` (a longer row alone).  With ``share`` (the fast
    path) rows that begin alike (the same ``files_in`` and first step) are put side by side, and the steps
    they share are counted once."""
    if share:
        firsts: dict = {}
        for row in rows:
            firsts.setdefault(row_keys(row)[:2], []).append(row)
        rows = [row for group in firsts.values() for row in group]
    batch, seen = [], set()
    for row in rows:
        runs = prefixes(row, share)
        new = [p for p in runs if p not in seen]
        if batch and len(seen) + len(new) > steps_per_fork:
            yield batch
            batch, seen, new = [], set(), runs
        batch.append(row)
        seen.update(new)
    if batch:
        yield batch


def main(inputs):
    """Run ``inputs`` ({module, mode, rows, step_timeout, deadline_s, deadline_at, whole_box,
    steps_per_fork, share, cpu_baseline}); print the results."""
    _prctl_dumpable(0)
    mode, module = inputs.get("mode", "fork"), inputs["module"]
    startup = 0.0
    if mode == "fork":
        prepare(os.getcwd())
        signal_handlers()
    elif inputs.get("cpu_baseline"):
        startup = startup_cpu(os.getcwd())
    keep, whole_box = ancestors(), bool(inputs.get("whole_box"))
    deadline = time.monotonic() + float(inputs.get("deadline_s", 600))
    if inputs.get("deadline_at") is not None:  # the host's clock: the time the box took to start is spent too
        deadline = min(deadline, float(inputs["deadline_at"]))
    timeout = float(inputs.get("step_timeout", 10))
    per_fork = int(inputs.get("steps_per_fork", 1)) if mode == "fork" else 1
    share = mode == "fork" and bool(inputs.get("share", True))
    base = tempfile.mkdtemp(prefix="swarmgym-diff-")
    results = []
    try:
        for batch in batches(inputs["rows"], per_fork, share=share):
            if time.monotonic() >= deadline:
                results += [{"n": row["n"], "skipped": True} for row in batch]
                continue
            results += run_batch(module, batch, mode, timeout, base, keep, whole_box, deadline, startup, share)
    finally:
        for fds in _IO:
            for fd in fds:
                os.close(fd)
        shutil.rmtree(base, ignore_errors=True)
    # last and whole, after what a row appended through /proc (a forged line, then half a line)
    sys.stdout.flush()
    line = ("\n" + MARK + json.dumps({"rows": results}) + "\n").encode()
    try:
        os.lseek(1, 0, os.SEEK_END)
    except OSError:
        pass  # a pipe: every write appends
    while line:
        line = line[os.write(1, line):]
    return 0


def unpack(packed):
    """Inputs the sender compressed (zlib, then base64): large tables."""
    import base64
    import zlib

    return json.loads(zlib.decompress(base64.b64decode(packed)))


INPUTS = None  # the sender appends: INPUTS = '...'; sys.exit(main(json.loads(INPUTS))) (or main(unpack(INPUTS)))
