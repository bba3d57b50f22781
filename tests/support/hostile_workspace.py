"""A hostile workspace: what a swarm (or the app it built) leaves for the harness to trip on.

- links to the home's ``.env`` and to ``/etc/shadow`` named like source files, a link to ``/``;
- the event log ``.swarm/run-*.jsonl`` as a link to ``.env``, and the newest one a FIFO;
- a FIFO and a Unix socket named ``.py``; a 2 GB sparse ``.py`` (a TODO in its first line);
- a real source file with a TODO, so diagnostics has something true to say.

:data:`SCRIPT` builds it from inside the swarm's box (``sh``, coreutils, python3: what any agent has);
:func:`build` does the same from the test process (for ``swarmgym verify``).
"""
from __future__ import annotations

import os
import socket
from pathlib import Path

SCRIPT = r"""
set -e
mkdir -p pkg .swarm
printf 'def main():\n    return 1  # TODO: finish the app\n' > pkg/main.py
ln -s "$1/.env" pkg/leak.py
ln -s /etc/shadow pkg/shadow.py
ln -s / rootdir
ln -s "$1/.env" .swarm/run-swarm-20260101-000000001.jsonl
mkfifo pkg/fifo.py
mkfifo .swarm/run-swarm-20260101-000000002.jsonl
python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('pkg/sock.py')"
truncate -s 2G pkg/big.py
printf '# TODO: a two-gigabyte file\n' | dd of=pkg/big.py conv=notrunc 2>/dev/null
"""


def build(ws: Path, home: Path) -> None:
    """The same workspace, made by the test itself."""
    (ws / "pkg").mkdir(parents=True)
    (ws / ".swarm").mkdir()
    (ws / "pkg" / "main.py").write_text("def main():\n    return 1  # TODO: finish the app\n")
    os.symlink(home / ".env", ws / "pkg" / "leak.py")
    os.symlink("/etc/shadow", ws / "pkg" / "shadow.py")
    os.symlink("/", ws / "rootdir")
    os.symlink(home / ".env", ws / ".swarm" / "run-swarm-20260101-000000001.jsonl")
    os.mkfifo(ws / "pkg" / "fifo.py")
    os.mkfifo(ws / ".swarm" / "run-swarm-20260101-000000002.jsonl")
    cwd = os.getcwd()
    os.chdir(ws)  # a Unix socket path must be short: bind it relative
    try:
        socket.socket(socket.AF_UNIX).bind("pkg/sock.py")
    finally:
        os.chdir(cwd)
    with open(ws / "pkg" / "big.py", "wb") as f:
        f.write(b"# TODO: a two-gigabyte file\n")
        f.truncate(2 << 30)


def secrets_of(home: Path, token: str) -> list[str]:
    """What must appear nowhere: the ``.env`` values (and its TODO line) and every line of /etc/shadow."""
    out = [f"dotenv-{token}-apikey", f"leak-{token}"]
    try:
        out += [line for line in Path("/etc/shadow").read_text().splitlines() if len(line) >= 8]
    except OSError:
        pass
    return out


def write_dotenv(home: Path, token: str) -> None:
    (home / ".env").write_text(f"SWARMGYM_TEST_API_KEY=dotenv-{token}-apikey\n# TODO: leak-{token}\n")
