"""Every field of a persisted or wire record says what it means (in its JSON schema, for readers of the ledger)."""
from __future__ import annotations

import pytest

from swarmgym.models import (
    CheckResult,
    DimensionResult,
    ErrorInfo,
    Finding,
    JobResult,
    JobSpec,
    LedgerRecord,
    NetworkUse,
    Provenance,
    RunOutcome,
    SessionDoc,
    Turn,
    Verdict,
)

PERSISTED = [ErrorInfo, Finding, CheckResult, DimensionResult, Verdict, NetworkUse, RunOutcome, Provenance, JobSpec, JobResult,
             LedgerRecord, Turn, SessionDoc]


@pytest.mark.parametrize("model", PERSISTED, ids=lambda m: m.__name__)
def test_every_field_of_a_persisted_record_has_a_description(model):
    schema = model.model_json_schema()
    undocumented = [name for name, prop in schema["properties"].items() if not prop.get("description")]
    assert not undocumented, f"{model.__name__}: fields without a docstring: {undocumented}"
