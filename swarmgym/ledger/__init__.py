"""The ledger: ``ledger/sessions.jsonl`` (truth) + ``ledger/ledger.sqlite`` (index).

    from swarmgym.ledger import Ledger, record_from_result
    Ledger(cfg.ledger_dir).record(record_from_result(result))   # False if the job_id is known
"""
from swarmgym.ledger.mapping import campaign_job_id, campaign_record, record_from_result
from swarmgym.ledger.store import Ledger

__all__ = ["Ledger", "record_from_result", "campaign_record", "campaign_job_id"]
