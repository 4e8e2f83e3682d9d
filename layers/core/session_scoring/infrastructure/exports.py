"""The exports queue (SQS) that starts the exporter, and the exports bucket (S3) it streams each export into: a
multipart upload read from a file-like that makes the export as S3 reads it, one part in memory at a time, so any
size needs the same memory. A failed upload is aborted (the bucket's lifecycle rule removes what a crash left).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from session_scoring.errors import StorageUnavailableError
from session_scoring.infrastructure.aws import aws_call
from session_scoring.infrastructure.queue import SqsQueue
from session_scoring.models.export import ExportMessage

#: The size of each multipart part (S3's minimum is 5 MiB); what the exporter holds in memory at once.
PART_BYTES = 8 * 1024 * 1024


class StreamReader(io.RawIOBase):
    """A read-only, non-seekable file over an iterator of byte chunks; counts the bytes it hands out."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._pending = bytearray()
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` whole unless the export ends first: the transfer manager makes each read one part, and S3
        refuses parts under 5 MiB (but the last)."""
        view = memoryview(buffer).cast("B")
        while len(self._pending) < len(view) and (chunk := next(self._chunks, None)) is not None:
            self._pending += chunk
        size = min(len(view), len(self._pending))
        view[:size] = self._pending[:size]
        del self._pending[:size]
        self.bytes_read += size
        return size


@dataclass(frozen=True)
class S3ExportStore:
    """The exports bucket: streams an export in and makes presigned download URLs."""

    client: Any
    bucket: str

    def upload(self, key: str, chunks: Iterator[bytes]) -> int:
        """Stream ``chunks`` (JSON Lines) to ``key``; the bytes written. An error raised by ``chunks`` (the export
        itself) comes out as it is; an S3 failure becomes StorageUnavailableError."""
        from boto3.s3.transfer import TransferConfig

        reader = StreamReader(chunks)
        config = TransferConfig(
            multipart_threshold=PART_BYTES, multipart_chunksize=PART_BYTES, use_threads=False, max_concurrency=1
        )
        failure = f"the exports bucket '{self.bucket}' did not take the export"
        arguments = {"ExtraArgs": {"ContentType": "application/x-ndjson"}, "Config": config}
        aws_call(self.client, "upload_fileobj", StorageUnavailableError, failure, reader, self.bucket, key, **arguments)
        return reader.bytes_read

    def download_url(self, key: str, filename: str, expires_seconds: int) -> str:
        """A presigned GET URL of ``key`` (downloaded as ``filename``), valid ``expires_seconds``."""
        disposition = f'attachment; filename="{filename}"'
        return str(
            aws_call(
                self.client,
                "generate_presigned_url",
                StorageUnavailableError,
                "could not make the export's download URL",
                "get_object",
                Params={"Bucket": self.bucket, "Key": key, "ResponseContentDisposition": disposition},
                ExpiresIn=expires_seconds,
            )
        )


class SqsExportQueue(SqsQueue):
    """The exports queue: one message per export job; the exporter function consumes it."""

    unset = "SCORING_EXPORTS_QUEUE_URL is not set; export jobs need the stack's exports queue (ExportsQueue)"

    def send(self, message: ExportMessage) -> None:
        self._send("the exports queue did not accept the job", message.model_dump_json())
