"""Write-back sinks: a completed score written to the trace store the session came from."""
