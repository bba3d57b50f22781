"""A job's run folder on the wire: packed on the host, unpacked by the coordinator (or where it stayed).

Within ``cfg.queue.artefact_cap_mb`` the folder travels as a base64 gzip tarball in a
``record_job`` message, next to the JobResult; larger folders stay on the host and ``JobResult.artefacts`` says
``<host>:<absolute path>`` — never silently lost.  ``report.html`` is rendered from ``session.json``
(:mod:`swarmgym.reports.session`), so it does not travel: the coordinator renders it again on
arrival, which makes the message ~40 % smaller (it is what every finished job holds in Redis until
the coordinator takes it).
"""
from __future__ import annotations

import base64
import io
import logging
import os
import tarfile
from pathlib import Path

from swarmgym.core.atomic import atomic_write_text
from swarmgym.models import SessionDoc
from swarmgym.reports.session import render_html
from swarmgym.trust import safefs

log = logging.getLogger(__name__)
DERIVED = ("report.html",)  # rebuilt from session.json on arrival, never shipped


def pack(folder: Path, cap_bytes: int) -> bytes | None:
    """gzip tarball of ``folder`` (arcname = its name), or None if it exceeds ``cap_bytes``.  Only the
    folder's own regular files go in, read through :mod:`swarmgym.trust.safefs` (never a link, a FIFO or a
    device), as plain 0644 members."""
    listing = safefs.list_files(folder, max_files=10_000)
    if listing.truncated or sum(f.size for f in listing.files) > cap_bytes * 4:  # clearly too big even compressed
        return None
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for f in listing.files:
            if f.rel in DERIVED:
                continue
            got = safefs.read_bytes(folder, f.rel, cap_bytes * 4)
            if got is None:
                continue
            data, cut = got
            if cut:
                return None
            ti = tarfile.TarInfo(f"{folder.name}/{f.rel}")
            ti.size, ti.mtime, ti.mode = len(data), int(f.mtime), 0o644
            tar.addfile(ti, io.BytesIO(data))
    data = buf.getvalue()
    return data if len(data) <= cap_bytes else None


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unpack(b64: str, runs_dir: Path, session_id: str) -> Path:
    """Extract into ``runs_dir/<session_id>/`` unless it is already there (shared home)."""
    dest = runs_dir / session_id
    if dest.exists():
        return dest
    runs_dir.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(b64)), mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if _plain_member(m, session_id)]
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4 (and 3.8–3.10 security releases)
            tar.extractall(runs_dir, members=members, filter="data")
        else:  # older: the members are already plain files and folders inside session_id; drop owner and mode bits
            for m in members:
                m.mode &= 0o755
                m.uid, m.gid, m.uname, m.gname = os.getuid(), os.getgid(), "", ""
            tar.extractall(runs_dir, members=members)
    render_report(dest)
    return dest


def _plain_member(m: tarfile.TarInfo, session_id: str) -> bool:
    """A file or folder inside ``session_id/``: no links, devices, absolute paths or ``..``."""
    inside = m.name == session_id or m.name.startswith(session_id + "/")
    return inside and (m.isfile() or m.isdir()) and ".." not in Path(m.name).parts and not m.name.startswith("/")


def render_report(folder: Path) -> None:
    """Write ``report.html`` from the folder's ``session.json`` (the host left it out of the bundle)."""
    doc_path = folder / "session.json"
    if not doc_path.is_file() or (folder / "report.html").exists():
        return
    try:
        atomic_write_text(folder / "report.html", render_html(SessionDoc.model_validate_json(doc_path.read_text())))
    except (OSError, ValueError) as e:  # the record and the JSON stand without the page
        log.warning("%s: report.html not rendered (%s)", folder, str(e).splitlines()[0][:200])


def ship(folder: Path, cap_mb: float) -> tuple[str | None, str]:
    """(base64 payload or None, what to record in ``JobResult.artefacts``)."""
    if not folder.is_dir():
        return None, ""
    cap = int(cap_mb * 1024 * 1024)
    data = pack(folder, cap) if cap > 0 else None
    if data is None:
        return None, str(folder.resolve())
    return encode(data), f"runs/{folder.name}"
