"""Copying a box's folder out: untrusted data, within its budget, never through a link."""
from __future__ import annotations

import os

from swarmgym.isolation.copyout import copy_out, replace_tree
from tests.support.hostile_workspace import build


def hostile_tree(root):
    """The hostile workspace of the host-side reader's tests (links to ``.env``, ``/etc/shadow`` and ``/``,
    FIFOs, a socket, a 2 GB sparse file), plus a set-uid file."""
    build(root, root.parent)
    os.chmod(root / "pkg" / "main.py", 0o4755)  # set-uid: never carried out


def test_links_are_copied_as_links_special_files_stay_behind_and_a_sparse_file_stays_sparse(tmp_path):
    hostile_tree(tmp_path / "box")
    got = copy_out(tmp_path / "box", tmp_path / "out", max_bytes=3 << 30)
    out = tmp_path / "out"
    assert sorted(os.listdir(out / "pkg")) == ["big.py", "leak.py", "main.py", "shadow.py"]
    assert os.readlink(out / "pkg" / "shadow.py") == "/etc/shadow" and os.readlink(out / "rootdir") == "/"
    assert (out / "pkg" / "main.py").read_text().startswith("def main():")
    assert sorted(os.listdir(out / ".swarm")) == ["run-swarm-20260101-000000001.jsonl"]  # the link; the FIFO stayed
    assert os.stat(out / "pkg" / "main.py").st_mode & 0o7777 == 0o755
    big = os.stat(out / "pkg" / "big.py")
    assert big.st_size == 2 << 30 and big.st_blocks * 512 < 1 << 20  # 2 GB apparent, a few KB on disk
    assert got.skipped == 3 and not got.over_bytes  # two FIFOs and a socket


def test_a_file_past_the_budget_is_left_out_and_named_over_budget(tmp_path):
    hostile_tree(tmp_path / "box")
    got = copy_out(tmp_path / "box", tmp_path / "out", max_bytes=1 << 20)
    assert got.over_bytes and not (tmp_path / "out" / "pkg" / "big.py").exists()
    assert (tmp_path / "out" / "pkg" / "main.py").is_file()


def test_entries_past_the_cap_stop_the_copy(tmp_path):
    (tmp_path / "box").mkdir()
    for i in range(50):
        (tmp_path / "box" / f"f{i}").write_text("x")
    got = copy_out(tmp_path / "box", tmp_path / "out", max_bytes=1 << 20, max_entries=10)
    assert got.over_entries and len(os.listdir(tmp_path / "out")) == 10


def test_the_copy_replaces_the_old_folder_whole(tmp_path):
    old, fresh = tmp_path / "ws", tmp_path / "ws.new"
    old.mkdir()
    (old / "deleted-in-the-box.py").write_text("x")
    fresh.mkdir()
    (fresh / "kept.py").write_text("y")
    replace_tree(fresh, old)
    assert os.listdir(old) == ["kept.py"] and not fresh.exists()
    assert not (tmp_path / "ws.swarmgym-old").exists()
