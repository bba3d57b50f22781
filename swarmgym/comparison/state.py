"""Where a comparison keeps its state: ``runs/<folder>/<id>.json``, written atomically after every round."""
from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from swarmgym.config import Config
from swarmgym.core.atomic import atomic_write_text
from swarmgym.core.errors import UsageError
from swarmgym.models import Model

M = TypeVar("M", bound=Model)


def state_path(cfg: Config, folder: str, run_id: str) -> Path:
    return cfg.runs_dir / folder / f"{run_id}.json"


def save(cfg: Config, folder: str, run_id: str, st: Model) -> Path:
    return atomic_write_text(state_path(cfg, folder, run_id), st.model_dump_json(indent=1))


def load(cfg: Config, folder: str, run_id: str, cls: type[M], what: str) -> M:
    """The saved state; a missing or damaged file is a one-line usage error naming it."""
    path = state_path(cfg, folder, run_id)
    try:
        return cls.model_validate_json(path.read_text())
    except OSError:
        raise UsageError(f"{what} {run_id!r}: no state at {path}") from None
    except ValueError as e:
        raise UsageError(f"{path}: not a {what} state ({str(e).splitlines()[0]})") from None
