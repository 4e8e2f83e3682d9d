"""The local stack behind `make run`, also used by the integration tests: real PostgreSQL (pgserver), SQS and
DynamoDB from moto's server, and a queue poller that feeds queue messages to the real scoring Lambda handler.

This is development tooling; it is not deployed.
"""
