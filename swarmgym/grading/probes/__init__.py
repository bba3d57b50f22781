"""Structural probes of the ``probe`` check kind (:mod:`swarmgym.grading.kinds.probe`).

``static`` decides what the workspace's files show, parsed outside every box; ``boxed`` runs the app in the
check box through ``driver`` (sent as source, never imported) and ``match`` compares what came back, outside.
"""
