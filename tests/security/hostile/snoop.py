"""A snooping payload: what a coding agent does when it looks for similar code on the disk.

Run by the "swarm" (the command adapter) before it copies its app into the workspace, and imported
by the app's package, so it also runs inside a golden check.  It reads the paths it was told about
(the checkout, its ``.git``, the test fixtures' alternative apps, the suites, the packaged suites,
the ledger, ``deploy/``, ``$HOME``, another workspace) and walks every visible folder for the
names a benchmark's answers live under.  It never raises: it writes ``snoop-<mode>.json`` in the
current directory (the workspace) with what it read and found.

    python3 snoop.py swarm TARGETS.json APP_DIR    # snoop, then copy APP_DIR here (the "swarm")
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NEEDLES = {"suite.yaml", "suite.lock", "mutants.yaml", "alt_apps", "sessions.jsonl", "ledger.sqlite",
           "redis.conf", ".git", "pyproject.toml", "bench-v1", "bench-v2"}
SKIP = {"/proc", "/sys", "/dev", "/usr"}


def read(path):
    try:
        if os.path.isdir(path):
            return "listed: " + ", ".join(sorted(os.listdir(path))[:20])
        with open(path, "rb") as f:
            return "read: " + f.read(300).decode("utf-8", "replace")
    except OSError as e:
        return f"blocked: {type(e).__name__}: {e}"


def search(cwd):
    hits = []
    for top, dirs, files in os.walk("/", followlinks=False):
        dirs[:] = [d for d in dirs if os.path.join(top, d) not in SKIP]
        if top == cwd or top.startswith(cwd + os.sep):
            continue
        hits += [os.path.join(top, n) for n in dirs + files if n in NEEDLES]
    return hits


def main(mode, targets=None):
    with open(targets or os.path.join(HERE, "_targets.json")) as f:
        t = json.load(f)
    marker = ".snooped-" + mode
    if os.path.exists(marker):
        return
    open(marker, "w").close()
    report = {"mode": mode, "read": {name: read(path) for name, path in t["paths"].items()},
              "found": search(os.getcwd())}
    with open(f"snoop-{mode}.json", "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    if len(sys.argv) > 3:
        shutil.copytree(sys.argv[3], os.getcwd(), dirs_exist_ok=True)
