"""Resilience around the judge: bounded retries and the shared circuit breaker."""
