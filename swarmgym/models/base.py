"""The two bases of every record, and the version of the records' shape.

Everything persisted (ledger, run folders) or sent over the queue is a :class:`Model` and travels as JSON;
what swarmgym reads from tools it does not control (goose) is :class:`Tolerant`.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict

SCHEMA_VERSION = 1


class Model(BaseModel):
    """Every record: unknown fields are an error; each field's docstring is its JSON-schema description."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Tolerant(BaseModel):
    """For data read from tools we do not control: unknown fields are kept."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)
