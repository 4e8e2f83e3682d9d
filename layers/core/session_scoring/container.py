"""Composition root: builds the service objects from settings, lazily, once per process.

Handlers call :func:`get_container` on first request (never at import); each property imports what it builds when
first used, so a handler's cold init pays only for what it uses. The services never import this module.
"""

from __future__ import annotations

from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Engine

    from session_scoring.configuration.criteria import ScoringConfig
    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure.queue import SqsJobQueue, SqsRunsQueue
    from session_scoring.judge.base import Judge
    from session_scoring.judge.batches import MessageBatches
    from session_scoring.judge.google_batches import GoogleBatches
    from session_scoring.judge.openai_batches import OpenAIBatches
    from session_scoring.repositories.analytics import AnalyticsRepository
    from session_scoring.repositories.insights import InsightsRepository
    from session_scoring.repositories.labels import LabelRepository
    from session_scoring.repositories.runs import RunRepository
    from session_scoring.repositories.scores import ScoreRepository
    from session_scoring.repositories.trends import TrendsRepository
    from session_scoring.repositories.uploads import UploadRepository
    from session_scoring.resilience.breaker import JudgeBreaker
    from session_scoring.services.access import AccessPolicy
    from session_scoring.services.agreement import AgreementService
    from session_scoring.services.analytics import AnalyticsService
    from session_scoring.services.auto_scoring import AutoScorer
    from session_scoring.services.batches import BatchPoller
    from session_scoring.services.exports import TrainingExportService
    from session_scoring.services.facets import FacetService
    from session_scoring.services.facts import FactsBackfill
    from session_scoring.services.health import HealthService
    from session_scoring.services.imports import ImportService
    from session_scoring.services.insights import InsightsService
    from session_scoring.services.jobs import JobService
    from session_scoring.services.labels import LabelService
    from session_scoring.services.quality import JudgeQualityService
    from session_scoring.services.reaper import AttemptReaper
    from session_scoring.services.redrive import DeadLetterService
    from session_scoring.services.references import ReferenceResolver
    from session_scoring.services.runs import RunService
    from session_scoring.services.schema import SchemaService
    from session_scoring.services.scorer import JurorSeat, Scorer
    from session_scoring.services.scoring import ScoringService
    from session_scoring.services.search import SearchService
    from session_scoring.services.session_list import SessionListService
    from session_scoring.services.sessions import SessionViewService
    from session_scoring.services.trends import TrendsService
    from session_scoring.sources.composite import CompositeSessionSource


class Container:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @cached_property
    def config(self) -> ScoringConfig:
        from session_scoring.configuration.criteria import load_scoring_config

        settings = self.settings
        providers = settings.resolve_path(settings.llm_providers_file) if settings.llm_providers_file else None
        return load_scoring_config(settings.config_path, settings.template_variables, providers)

    def prime(self) -> None:
        """Import and build everything a request needs except connections (a SnapStart snapshot, or a warm-up): the
        engine (never connected), the source and the queue client, the criteria hash and the driver's first decoding."""
        from session_scoring.db.engine import warm_up_driver

        _ = self.scoring_service, self.source, self.analytics_service, self.session_view_service, self.queue
        _ = self.config.criteria_hash
        warm_up_driver()

    def close_connections(self) -> None:
        """Close every pooled database connection the container's engines hold (before a SnapStart snapshot, after
        priming ran requests): the engines stay built, dialect initialised, and connect again on next use."""
        for name in ("engine", "query_engine"):
            built: Engine | None = vars(self).get(name)
            if built is not None:
                built.dispose()

    @cached_property
    def engine(self) -> Engine:
        """The transactional engine: migrations, and the repositories whose operations are short transactions."""
        from session_scoring.db.engine import create_db_engine

        return create_db_engine(self.settings)

    @cached_property
    def query_engine(self) -> Engine:
        """The autocommit engine: the repositories whose every operation is one statement (no BEGIN/COMMIT)."""
        from session_scoring.db.engine import create_db_engine

        return create_db_engine(self.settings, autocommit=True)

    @cached_property
    def score_repository(self) -> ScoreRepository:
        from session_scoring.repositories.scores import ScoreRepository

        return ScoreRepository(self.query_engine)

    @cached_property
    def uploads(self) -> UploadRepository:
        from session_scoring.repositories.uploads import UploadRepository

        return UploadRepository(self.query_engine)

    @cached_property
    def analytics_repository(self) -> AnalyticsRepository:
        from session_scoring.repositories.analytics import AnalyticsRepository

        return AnalyticsRepository(self.query_engine)

    @cached_property
    def insights_repository(self) -> InsightsRepository:
        from session_scoring.repositories.insights import InsightsRepository

        return InsightsRepository(self.query_engine)

    @cached_property
    def trends_repository(self) -> TrendsRepository:
        from session_scoring.repositories.trends import TrendsRepository

        return TrendsRepository(self.query_engine)

    @cached_property
    def run_repository(self) -> RunRepository:
        """Runs on the transactional engine: creating a run with its first attempts, or moving its page cursor under
        the run row's lock, is one transaction of several statements."""
        from session_scoring.repositories.runs import RunRepository

        return RunRepository(self.engine)

    @cached_property
    def label_repository(self) -> LabelRepository:
        """Labels on the transactional engine: an import is one transaction."""
        from session_scoring.repositories.labels import LabelRepository

        return LabelRepository(self.engine)

    @cached_property
    def reference_resolver(self) -> ReferenceResolver:
        """The reference a session is judged against (labels API, then its document) for the batch poller and a run's
        estimate, read on the autocommit engine (the scorer's claim returns it itself)."""
        from session_scoring.repositories.labels import ReferenceReads
        from session_scoring.services.references import ReferenceResolver

        return ReferenceResolver(ReferenceReads(self.query_engine))

    @cached_property
    def source(self) -> CompositeSessionSource:
        """The configured source, with uploaded sessions (ids ``upload:...``) beside it."""
        from session_scoring.sources.composite import CompositeSessionSource
        from session_scoring.sources.factory import build_source

        return CompositeSessionSource(
            build_source(self.config.session_source, self.settings, self.config.trace_import),
            self.uploads,
            self.config.masker,
        )

    @cached_property
    def queue(self) -> SqsJobQueue:
        from session_scoring.infrastructure.aws import aws_client
        from session_scoring.infrastructure.queue import SqsJobQueue

        return SqsJobQueue(aws_client("sqs", self.settings), self.settings.queue_url)

    @cached_property
    def runs_queue(self) -> SqsRunsQueue:
        from session_scoring.infrastructure.aws import aws_client
        from session_scoring.infrastructure.queue import SqsRunsQueue

        return SqsRunsQueue(aws_client("sqs", self.settings), self.settings.runs_queue_url)

    @cached_property
    def judge(self) -> Judge:
        from session_scoring.judge.factory import build_judge

        return build_judge(self.config, self.settings)

    @cached_property
    def breaker(self) -> JudgeBreaker:
        """The judge's circuit breaker, its state in DynamoDB; none when SCORING_BREAKER_TABLE is not set."""
        return self._breaker_named(f"judge:{self.config.llm_provider}:{self.config.llm_model}")

    def _breaker_named(self, circuit: str) -> JudgeBreaker:
        from session_scoring.resilience.breaker import DynamoJudgeBreaker, NoBreaker

        settings = self.settings
        if not settings.breaker_table_name:
            return NoBreaker()
        from session_scoring.infrastructure.aws import aws_client
        from session_scoring.observability import Metric, emit_now, record_breaker_transition

        return DynamoJudgeBreaker(
            aws_client("dynamodb", settings),
            settings.breaker_table_name,
            circuit,
            failure_threshold=settings.breaker_failure_threshold,
            recovery_seconds=settings.breaker_recovery_seconds,
            cache_seconds=settings.breaker_cache_seconds,
            on_transition=lambda _from_state, to_state: record_breaker_transition(to_state),
            on_state_unavailable=lambda: emit_now(Metric.BREAKER_STATE_UNAVAILABLE),
        )

    @cached_property
    def jurors(self) -> tuple[JurorSeat, ...]:
        """A jury's judges (``scoring.jury``), each built on first use, each with the breaker of its provider and
        model (one provider's outage opens only its circuit); empty without a jury."""
        from session_scoring.judge.factory import lazy_judge
        from session_scoring.services.scorer import JurorSeat

        return tuple(
            JurorSeat(
                target,
                lazy_judge(target, self.settings, self.config.rubric),
                self._breaker_named(f"judge:{target.provider}:{target.model}"),
            )
            for target in self.config.jurors
        )

    @cached_property
    def judge_input_budget(self) -> int | None:
        """The judge's input budget in estimated tokens; None for the heuristic judge (it sends no prompt)."""
        return None if self.config.llm_provider == "heuristic" else self.settings.judge_input_budget

    @cached_property
    def message_batches(self) -> MessageBatches | OpenAIBatches | GoogleBatches:
        from session_scoring.judge.factory import build_batches

        return build_batches(self.config, self.settings)

    @cached_property
    def scoring_service(self) -> ScoringService:
        from session_scoring.services.scoring import ScoringService

        # The source and the queue (an SQS client) are built when a POST first needs them, never for a read.
        return ScoringService(self.config, self.score_repository, lambda: self.source, lambda: self.queue)

    @cached_property
    def session_list_service(self) -> SessionListService:
        from session_scoring.repositories.session_list import SessionListRepository
        from session_scoring.services.session_list import SessionListService

        return SessionListService(
            self.config, SessionListRepository(self.query_engine), self.source, titles=self.uploads
        )

    @cached_property
    def facet_service(self) -> FacetService:
        from session_scoring.repositories.facets import FacetRepository
        from session_scoring.services.facets import FacetService

        return FacetService(FacetRepository(self.query_engine), self.insights_service.criteria_filter)

    @cached_property
    def search_service(self) -> SearchService:
        from session_scoring.repositories.search import SearchRepository
        from session_scoring.services.search import SearchService

        return SearchService(SearchRepository(self.query_engine), self.uploads, source=self.source)

    @cached_property
    def access_policy(self) -> AccessPolicy:
        """Who a request's caller is and what they may do (every API route asks)."""
        from session_scoring.services.access import AccessPolicy

        settings = self.settings
        return AccessPolicy(
            enforced=settings.require_authentication,
            trust_proxy=settings.trust_forwarded_user,
            role_claim=settings.role_claim,
            role_map=settings.role_map,
            default_role=settings.default_role,
        )

    @cached_property
    def health_service(self) -> HealthService:
        from session_scoring.services.health import HealthService

        return HealthService(self.config, self.score_repository, lambda: self.breaker, lambda: self.queue)

    @cached_property
    def session_view_service(self) -> SessionViewService:
        from session_scoring.services.sessions import SessionViewService

        return SessionViewService(self.source, self.uploads)

    @cached_property
    def import_service(self) -> ImportService:
        from session_scoring.services.imports import ImportService

        return ImportService(self.uploads, self.config.trace_import, self.config.masker)

    @cached_property
    def analytics_service(self) -> AnalyticsService:
        from session_scoring.services.analytics import AnalyticsService

        return AnalyticsService(self.config, self.analytics_repository)

    @cached_property
    def trends_service(self) -> TrendsService:
        from session_scoring.repositories.comparison import ComparisonRepository
        from session_scoring.services.trends import TrendsService

        return TrendsService(
            self.trends_repository,
            ComparisonRepository(self.query_engine),
            self.agreement_service,
            rubric_keys=self.rubric_keys,
        )

    def rubric_keys(self, criteria_hash: str | None) -> tuple[str, ...]:
        """The dimension keys of a criteria's rubric, in its order (None: the current rubric's)."""
        return self.config.rubric.keys if criteria_hash is None else self.scoring_service.rubric_for(criteria_hash).keys

    @cached_property
    def insights_service(self) -> InsightsService:
        from session_scoring.services.insights import InsightsService

        def dimension_keys(criteria_hash: str | None) -> tuple[str, ...]:
            if criteria_hash is None:
                return self.analytics_service.dimensions_in_use()
            return self.rubric_keys(criteria_hash)

        return InsightsService(self.config, self.insights_repository, dimension_keys, titles=self.uploads)

    @cached_property
    def label_service(self) -> LabelService:
        from session_scoring.services.labels import LabelService

        return LabelService(self.label_repository, self.scoring_service.check_known, self.config.rubric)

    @cached_property
    def agreement_service(self) -> AgreementService:
        from session_scoring.services.agreement import AgreementService

        return AgreementService(self.label_repository, rubric_keys=self.rubric_keys)

    @cached_property
    def training_export(self) -> TrainingExportService:
        """The training export: streamed, or S3 jobs where an exports bucket is set (the S3 and SQS clients are built
        on first use)."""
        from session_scoring.infrastructure.aws import aws_client
        from session_scoring.infrastructure.exports import S3ExportStore, SqsExportQueue
        from session_scoring.repositories.exports import ExportJobRepository
        from session_scoring.services.exports import ExportStore, TrainingExportService

        settings = self.settings
        store: Callable[[], ExportStore] | None = None
        if settings.exports_bucket:
            bucket = settings.exports_bucket
            store = cache(lambda: S3ExportStore(aws_client("s3", settings), bucket))
        return TrainingExportService(
            self.insights_service,
            self.insights_repository,
            self.source,
            ExportJobRepository(self.query_engine),
            store,
            cache(lambda: SqsExportQueue(aws_client("sqs", settings), settings.exports_queue_url)),
            settings.export_url_expiry_seconds,
            self.config.masker,
        )

    @cached_property
    def scorer(self) -> Scorer:
        from session_scoring.services.scorer import Scorer, ScorerPolicy

        settings = self.settings
        policy = ScorerPolicy(
            lease_seconds=settings.lease_seconds,
            max_receive_count=settings.max_receive_count,
            judge_timeout_seconds=settings.judge_timeout_seconds,
            judge_max_retries=settings.judge_max_retries,
            judge_retry_base_seconds=settings.judge_retry_base_seconds,
            max_retry_wait_seconds=settings.judge_max_retry_wait_seconds,
            input_budget_tokens=self.judge_input_budget,
            max_deferrals=settings.max_deferrals,
        )
        writeback = None
        if settings.writeback_enabled:  # the sink is built on first use: a misconfiguration fails write-backs only
            from session_scoring.repositories.writebacks import WriteBackRepository
            from session_scoring.services.writeback import VerdictWriteBack
            from session_scoring.sinks.factory import build_sink

            section = self.config.session_source
            writeback = VerdictWriteBack(
                self.score_repository,
                WriteBackRepository(self.query_engine),
                cache(lambda: build_sink(section, settings)),
                section.type,
                policy,
                settings.writeback_name,
                stale_seconds=int(3 * settings.writeback_timeout_seconds) + 5,
                masker=self.config.masker,
            )
        return Scorer(
            self.config,
            self.score_repository,
            self.source,
            lambda: self.judge,
            policy,
            self.breaker,
            writeback,
            masker=self.config.masker,
            jurors=self.jurors,
        )

    @cached_property
    def job_service(self) -> JobService:
        from session_scoring.services.jobs import JobService

        return JobService(self.scorer, self.queue, settle_run=lambda run_id: self.run_repository.settle(run_id))

    @cached_property
    def run_job_service(self) -> JobService:
        """The job service for messages from the runs queue (their delays go back to that queue; the scorer function
        routes each record by its queue)."""
        from session_scoring.services.jobs import JobService

        return JobService(self.scorer, self.runs_queue, settle_run=lambda run_id: self.run_repository.settle(run_id))

    @cached_property
    def reaper(self) -> AttemptReaper:
        from session_scoring.services.reaper import AttemptReaper

        settings = self.settings
        return AttemptReaper(
            self.score_repository,
            self.queue,
            settings.max_receive_count,
            settings.lease_seconds,
            settle_run=lambda run_id: self.run_repository.settle(run_id),
            runs=self.run_repository,
            planning_queue=lambda: self.runs_queue,
        )

    @cached_property
    def batch_poller(self) -> BatchPoller:
        from session_scoring.services.batches import BatchPolicy, BatchPoller

        settings = self.settings
        policy = BatchPolicy(
            max_requests=settings.batch_max_requests,
            submit_limit=settings.batch_submit_limit,
            max_submissions=settings.max_receive_count,
            input_budget_tokens=settings.judge_input_budget,
        )
        return BatchPoller(
            self.config,
            self.run_repository,
            self.score_repository,
            self.source,
            lambda: self.message_batches,
            policy,
            self.reference_resolver,
            writeback_jobs=self.queue if self.settings.writeback_enabled else None,
        )

    @cached_property
    def dead_letters(self) -> DeadLetterService:
        from session_scoring.infrastructure.aws import aws_client
        from session_scoring.infrastructure.queue import SqsDeadLetterQueue
        from session_scoring.services.redrive import DeadLetterService

        settings = self.settings
        use_move_task = settings.redrive_method == "move-task" or (
            settings.redrive_method == "auto" and settings.aws_endpoint_url is None
        )
        queues = SqsDeadLetterQueue(
            aws_client("sqs", settings), settings.queue_url, settings.dead_letter_queue_url, use_move_task
        )
        return DeadLetterService(queues, self.score_repository)

    # ---- Scoring runs.

    @cached_property
    def run_service(self) -> RunService:
        from session_scoring.services.runs import RunService

        settings = self.settings
        return RunService(
            self.config,
            self.run_repository,
            self.source,
            lambda: self.runs_queue,
            max_run_sessions=settings.max_run_sessions,
            concurrency=settings.run_concurrency,
            page_size=settings.run_page_size,
            budget_tokens=self.judge_input_budget,
            references=self.reference_resolver,
            batches=lambda: self.message_batches,
        )

    @cached_property
    def auto_scorer(self) -> AutoScorer:
        from session_scoring.services.auto_scoring import AutoScorer

        return AutoScorer(self.config, self.run_service, self.run_repository, self.settings.max_run_sessions)

    @cached_property
    def schema_service(self) -> SchemaService:
        from session_scoring.services.schema import SchemaService

        return SchemaService(self.engine, self.settings)

    @cached_property
    def facts_backfill(self) -> FactsBackfill:
        from session_scoring.services.facts import FactsBackfill

        return FactsBackfill(self.insights_repository, self.source, self.trends_repository)

    @cached_property
    def judge_quality(self) -> JudgeQualityService:
        """Repeatability and robustness studies (the CLI): they call the judge directly, never through the queue."""
        from session_scoring.services.quality import JudgeQualityService

        settings = self.settings
        return JudgeQualityService(
            self.config,
            self.score_repository,
            self.source,
            lambda: self.judge,
            timeout_seconds=settings.judge_timeout_seconds,
            max_retries=settings.judge_max_retries,
            retry_base_seconds=settings.judge_retry_base_seconds,
            input_budget_tokens=self.judge_input_budget,
        )


@lru_cache(maxsize=1)
def get_container() -> Container:
    from session_scoring.configuration.settings import SettingsError, get_settings
    from session_scoring.errors import ConfigurationError

    try:
        settings = get_settings()
    except SettingsError as exc:
        raise ConfigurationError(str(exc)) from None
    return Container(settings)


def reset_container() -> None:
    """Forget the process-wide settings and objects (tests and the local stack after changing the environment)."""
    from session_scoring.configuration.settings import get_settings

    get_settings.cache_clear()
    get_container.cache_clear()
