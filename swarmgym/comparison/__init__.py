"""Comparing two arms of a swarm: the experiment plan, its runners, the sequential test and the verdict."""
