"""The workspace snapshot: what is listed, what is skipped, the file cap."""
from __future__ import annotations

import hashlib
import os

from swarmgym.collect.snapshot import snapshot


def test_files_are_listed_with_size_and_sha256_and_noise_is_skipped(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text("print(1)\n")
    for d in (".git", ".swarm", "app/__pycache__", "node_modules"):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
        (tmp_path / d / "x").write_text("noise")
    (tmp_path / "app" / "main.pyc").write_bytes(b"\0")
    os.symlink("/etc/hostname", tmp_path / "link")
    files, truncated, problems = snapshot(tmp_path, 100)
    assert [f.path for f in files] == ["app/main.py"]
    assert files[0].size == 9 and files[0].sha256 == hashlib.sha256(b"print(1)\n").hexdigest()
    assert not truncated and problems == ["snapshot: not read (links are never followed, only regular files are "
                                          "read): 1 symlink(s)"]


def test_more_files_than_the_cap_are_truncated_with_a_problem(tmp_path):
    for i in range(12):
        (tmp_path / f"f{i:02d}.txt").write_text(str(i))
    files, truncated, problems = snapshot(tmp_path, 5)
    assert [f.path for f in files] == [f"f{i:02d}.txt" for i in range(5)]
    assert truncated and "more than 5 files" in problems[0] and "kept the first 5" in problems[0]


def test_a_missing_workspace_is_a_problem(tmp_path):
    gone = tmp_path / "gone"
    assert snapshot(gone, 10) == ([], False, [f"snapshot: workspace {gone} is not a directory"])
