"""Names `make deadcode` (vulture) must not report: read or called by a framework, never by our own code."""

# ruff: noqa
_ = object()

# The Lambda context (devstack's LocalLambdaContext, the smoke test's Context): read by Powertools' logger.
_.memory_limit_in_mb
_.aws_request_id
_.invoked_function_arn
_.function_version
_.log_group_name
_.log_stream_name

# Settings.log_level: LOG_LEVEL is read by Powertools' logger; the setting validates it and documents it.
_.log_level

# Fields serialised by pydantic into a response or a queue message, read by the other side only.
_.scoring_enabled
_.judge_circuit
_.queued_jobs
_.requested_by
_.next_cursor
_.source_page_limit  # SessionListScan, for the caller
_.later_attempt_status  # LatestScore / LatestScoreRecord: copied by field name, read by the dashboard
_.source_unavailable  # SessionSearchResult, for the caller
_.canonical_name
_.label_id  # labels: copied record to response by field name (from_row, from_attributes)
_.failed_tool_calls  # imports: an uploaded session's facts copied to its answer by field name
_.inferred_failures
_.recorded_failures
_.read_generically
_.conversation_at

# Enum members reached by value (FleetFormat(...)).
_.JSONL
# The agreement report's figures (models/quality.py), read by the dashboard and tests through the JSON.
_.kendall_tau
_.mean_absolute_error
_.within_5
_.within_10
_.weighted_kappa
_.human_sessions_multi
_.krippendorff_alpha

# SessionStatus members reached by value (SessionStatus(session.status)).
_.PAUSED
_.CANCELING
_.CANCELLING

# http.server: the fakes' request handlers.
_.do_GET
_.do_POST
_.do_PUT
_.log_message
_.protocol_version
_.daemon_threads

# pytest hooks and markers.
_.pytest_collection_modifyitems
_.pytest_terminal_summary
_.pytest_sessionfinish  # tests/conftest.py: xdist workers hand their fault ledger to the controller
_.pytest_testnodedown
_.pytestmark

# Powertools reads its cold-start flag; a test sets it to stand for a first invocation.
_.is_cold_start

# Response fields of the runs API (models/runs.py), read by API clients only.
_.per_session_input_tokens
_.per_session_output_tokens
_.sessions_skipped
_.planned_at  # copied from the run record by field name
# RunSummary / RunScoreMove (GET /runs/{id}/summary): built from the repository's summary by field name.
_.same_criteria
_.average_score
_.first_scores
_.improved
_.worsened
_.unchanged

# Trends and criteria comparison (models/trends.py): response fields read by API clients; WEEK reached by value.
_.WEEK
_.band_shares
_.mean_delta
_.median_delta
_.band_transitions
_.movers_up
_.movers_down
_.base_human_agreement
_.candidate_human_agreement

# The exporter's streaming file (infrastructure/exports.py): io.RawIOBase's read() and boto3's transfer call these.
_.readable
_.readinto
# Missing tools report (models/api.py): response fields set by validation from a dict, read by API clients.
_.trend
_.available_in_sessions

# ScoringJob's wrap serializer (models/jobs.py): pydantic calls it on every dump of a job message.
_._without_zero_deferrals

# Starlette reads the middleware stack the priming warm-up builds (functions/api/app.build_request_path).
_.middleware_stack

# SQLAlchemy reads the flag a handle_error listener sets (db/engine.invalidate_after_broken_exchanges).
_.invalidate_pool_on_disconnect

# The runtime API's client (tests/support/runtime_api.py): used by the paths bench's fresh-process script (a string).
_.RuntimeClient
_.next_invocation
_.respond

# uvicorn calls its protocol's send_400_response for a request that is not valid HTTP (devstack/server.py), and a
# uvicorn Server stops once should_exit is set (tests/integration/test_local_server.py).
_.send_400_response
_.should_exit

# The outcome report's and the trends' outcome figures (models/api.py, models/trends.py), read by the dashboard.
_.partly_found
_.no_reference
_.found_share
_.mean_score_found
_.mean_score_partly_found
_.mean_score_missed
_.mean_score_no_reference
_.score_gap
_.overall

# Issue 39 (w/guard): response fields set by validation from a dict or read by the dashboard, not by our code.
_.recording_author  # an upload's author as its document names it (models/session.py, models/api.py)
_.next_steps_offset  # SessionDetail: the first step not shown
_.next_offset  # SessionStepsPage: the next page's offset
# A TARSy Go providers file entry's field, accepted (so such files load) and not used by a judge (configuration/providers.py).
_.max_tool_result_tokens
# CriteriaComparison's dimensions shared or not by two rubrics: set through model_copy(update=...), read by clients.
_.shared_dimensions
_.base_only_dimensions
_.candidate_only_dimensions
