"""The data file (JSON). No other module reads or writes it."""
import json
import os

from libloan.errors import LibError


def empty():
    return {"members": {}, "books": {}, "loans": []}


def load(path):
    """The library in ``path``; a missing or zero-byte file is an empty library."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return empty()
    except OSError as e:
        raise LibError(f"cannot read {path}: {e.strerror}") from None
    if text == "":
        return empty()
    try:
        data = json.loads(text)
    except ValueError:
        raise LibError(f"{path} is not valid JSON") from None
    if not isinstance(data, dict) or not all(k in data for k in ("members", "books", "loans")):
        raise LibError(f"{path} is not a libloan data file")
    return data


def save(path, data):
    """Write ``data`` to ``path`` atomically (a temp file, then a rename)."""
    tmp = f"{path}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as e:
        raise LibError(f"cannot write {path}: {e.strerror}") from None
