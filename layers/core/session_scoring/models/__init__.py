"""Boundary models. Each boundary has its own model and an explicit mapping between them:

- ``session``: the service's normalised session (what sources produce and the judge reads);
- ``judge``: ``JudgeOutputSchema``, what the judge must return, and the verdict with its usage;
- ``api``: request and response bodies of the REST API;
- ``jobs``: the SQS message that carries one scoring job;
- ``scores``: the domain constants of a score (statuses, bands, dimensions), defined once for every layer.
"""
