"""What moto's SQS holds but the SQS API never shows: messages still inside their ``DelaySeconds``.

SQS returns a delayed message to no receive and lets no call shorten its delay. The tests' moto server runs in the
test process (``ThreadedMotoServer``), so its queue state can be read here to check a delayed copy's body and delay,
and its delay moved to now to stand for that time passing (no sleeps), as ``QueuePoller.make_deferred_visible`` does
for visibility delays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from devstack.aws import REGION


@dataclass(frozen=True)
class DelayedMessage:
    body: str
    delay_left_seconds: float


def _moto_queue(queue_url: str) -> Any:
    from moto.sqs.models import sqs_backends

    account, name = urlparse(queue_url).path.strip("/").split("/")[-2:]
    return sqs_backends[account][REGION].get_queue(name)


def delayed_messages(queue_url: str) -> list[DelayedMessage]:
    """The messages of the queue that are still delayed, with how long each has to go."""
    from moto.core.utils import unix_time_millis

    now = unix_time_millis()
    return [
        DelayedMessage(message.body, (message.delayed_until - now) / 1000.0)
        for message in _moto_queue(queue_url)._messages
        if message.delayed
    ]


def hidden_messages(queue_url: str) -> list[tuple[str, float]]:
    """The received messages of the queue not yet visible again: (body, seconds until visible)."""
    from moto.core.utils import unix_time_millis

    now = unix_time_millis()
    return [
        (message.body, (message.visible_at - now) / 1000.0)
        for message in _moto_queue(queue_url)._messages
        if not message.visible
    ]


def end_delays(queue_url: str) -> int:
    """Let every delayed message of the queue arrive now; returns how many there were."""
    messages = [message for message in _moto_queue(queue_url)._messages if message.delayed]
    for message in messages:
        message.delayed_until = 0.0
    return len(messages)
