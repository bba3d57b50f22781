"""What runs on a fleet host: the job task, the psutil sampler, the orphan guard, the worker daemon entry,
host profiles."""
