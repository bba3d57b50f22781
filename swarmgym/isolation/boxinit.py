"""The first process of a swarm's box: PID 1 of its PID namespace (bubblewrap ``--as-pid-1``).

Standard library only: the box does not show swarmgym's package, so :func:`command` sends this file's
text to the box's Python as ``python3 -I -S -c <source> <spec> <argv…>`` (``-I``: no workspace file
is ever imported in its place).  It

1. copies each writable folder's previous content (bound read-only at ``/run/swarmgym/seed/N``)
   into that folder's size-capped tmpfs — links as links, no FIFO or device;
2. listens, before anything else runs, where the swarm expects each model endpoint, and relays every
   connection over that endpoint's Unix socket to the host's forwarder (nothing else leaves the box);
3. runs the swarm (``argv``) and reaps every process of the box; when the swarm exits it kills what
   is left (``kill(-1)``), writes the exit status to the host (``status_fd``) and waits;
4. the host copies the writable folders out (``/proc/<pid>/root/…``) and ends the box.  ``stop`` on
   ``control_fd`` (the deadline) kills every other process of the box first.

As PID 1 it cannot be killed from inside its own namespace (the kernel drops SIGKILL sent to a
namespace's init by its members), so a swarm cannot end its box before the copy.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import stat
import sys
import threading
import time

CHUNK = 64 * 1024


def copy_in(src: str, dst: str) -> None:
    """Copy ``src``'s tree into ``dst`` (which exists): regular files, folders and links only."""
    try:
        names = os.listdir(src)
    except OSError:
        return
    for name in names:
        s, d = os.path.join(src, name), os.path.join(dst, name)
        try:
            st = os.lstat(s)
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(s), d)
            elif stat.S_ISDIR(st.st_mode):
                os.mkdir(d, stat.S_IMODE(st.st_mode) | 0o700)
                copy_in(s, d)
            elif stat.S_ISREG(st.st_mode):
                fd = os.open(s, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                try:
                    out = os.open(d, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IMODE(st.st_mode) & 0o777)
                    try:
                        while True:
                            data = os.read(fd, CHUNK)
                            if not data:
                                break
                            os.write(out, data)
                    finally:
                        os.close(out)
                finally:
                    os.close(fd)
                os.utime(d, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
        except OSError as e:
            sys.stderr.write(f"[swarmgym box] could not copy {s} into the box: {e}\n")


def pump(src: socket.socket, dst: socket.socket) -> None:
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    try:
        while True:
            n = src.recv_into(buf)
            if n == 0:
                break
            dst.sendall(view[:n])
    except OSError:
        pass
    for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
        try:
            s.shutdown(how)
        except OSError:
            pass


def relay(conn: socket.socket, path: str) -> None:
    try:
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        up.connect(path)
    except OSError:
        conn.close()
        return
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    back = threading.Thread(target=pump, args=(up, conn), daemon=True)
    back.start()
    pump(conn, up)
    back.join()
    conn.close()
    up.close()


def serve(lst: socket.socket, path: str) -> None:
    while True:
        try:
            conn, _ = lst.accept()
        except OSError:
            return
        threading.Thread(target=relay, args=(conn, path), daemon=True).start()


def listen(host: str, port: int) -> socket.socket | None:
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, port))
    except OSError as e:
        s.close()
        if fam == socket.AF_INET6:
            return None  # no IPv6 loopback in this box: localhost still answers on 127.0.0.1
        raise SystemExit(f"[swarmgym box] cannot listen on {host}:{port}: {e}") from None
    s.listen(128)
    return s


def control(fd: int, state: dict) -> None:
    """The host's orders: ``stop`` kills every other process of the box; ``exit`` (or the host gone)
    ends the box."""
    with os.fdopen(fd, "rb", buffering=0) as f:
        for line in iter(f.readline, b""):
            if line.strip() == b"stop":
                state["stopped"] = True
                kill_others()
            elif line.strip() == b"exit":
                break
    os._exit(state.get("code", 125))


def kill_others() -> None:
    try:
        os.kill(-1, signal.SIGKILL)  # every process of this PID namespace but its init: this one
    except OSError:
        pass


def main(argv: list[str]) -> None:
    spec, cmd = json.loads(argv[0]), argv[1:]
    status_fd, control_fd = spec["status_fd"], spec["control_fd"]
    for fd in (status_fd, control_fd):
        os.set_inheritable(fd, False)
    for src, dst in spec.get("seed", []):
        copy_in(src, dst)
    listeners = []
    for host, port, path in spec.get("listen", []):
        s = listen(host, port)
        if s is not None:
            listeners.append((s, path))
    state: dict = {}
    threading.Thread(target=control, args=(control_fd, state), daemon=True).start()
    pid = os.fork()
    if pid == 0:
        for s, _ in listeners:
            s.close()
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            sys.stderr.write(f"[swarmgym box] cannot run {cmd[0]}: {e.strerror or e}\n")
        os._exit(127)
    for s, path in listeners:
        threading.Thread(target=serve, args=(s, path), daemon=True).start()
    code = 125
    while True:
        try:
            got, status = os.waitpid(-1, 0)  # the swarm, and every orphan of the box meanwhile
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if got == pid:
            code = os.waitstatus_to_exitcode(status)
            code = 128 - code if code < 0 else code
            break
    while True:  # the swarm is done: nothing of it outlives it (a fork racing kill(-1) is caught next round)
        kill_others()
        try:
            got, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if got == 0:
            time.sleep(0.002)
    state["code"] = code
    word = "stopped" if state.get("stopped") else "exit"
    os.write(status_fd, f"{word} {code}\n".encode())
    threading.Event().wait()  # until the host says exit (control thread) or ends the box


if __name__ == "__main__":
    main(sys.argv[1:])
