"""txkvbench: a transactional key-value store with nested transactions."""
