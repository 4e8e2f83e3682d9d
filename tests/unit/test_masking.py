"""The masking step: every planted kind of secret masked in text, in JSON and in JSON Lines, the shape kept, nothing
benign touched, groups that can be turned off and custom patterns."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from session_scoring.masking import (
    BUILTIN_GROUPS,
    CustomPattern,
    MaskingError,
    build_masker,
    default_masker,
    mask_document,
    merge_counts,
)
from tests.support.planted_secrets import PlantedSecret, planted_secrets, planted_text

SECRETS = planted_secrets()


@pytest.mark.parametrize("secret", SECRETS, ids=[s.kind for s in SECRETS])
def test_each_kind_of_secret_is_masked_in_the_text_that_carries_it(secret: PlantedSecret) -> None:
    counts: Counter[str] = Counter()

    masked = default_masker().mask_text(secret.text, counts)

    assert secret.value not in masked
    assert "[masked: " in masked
    assert sum(counts.values()) >= 1


@pytest.mark.parametrize("secret", SECRETS, ids=[s.kind for s in SECRETS])
def test_each_kind_is_masked_in_a_json_document_carrying_it_as_a_string(secret: PlantedSecret) -> None:
    document = json.dumps({"tool": "kubernetes.resources_get", "result": secret.text})

    masked = mask_document(document, default_masker())

    assert secret.value not in json.loads(masked)["result"]


def test_there_are_at_least_thirty_kinds_and_every_one_is_masked_in_one_text() -> None:
    counts: Counter[str] = Counter()

    masked = default_masker().mask_text(planted_text(SECRETS), counts)

    assert len({s.kind for s in SECRETS}) >= 30
    assert [s.kind for s in SECRETS if s.value in masked] == []
    assert set(counts) == set(BUILTIN_GROUPS)


def test_the_mask_keeps_the_shape_around_the_value() -> None:
    masker = default_masker()

    assert masker.mask_text("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012") == (
        "Authorization: Bearer [masked: bearer-token]"
    )
    assert masker.mask_text("postgres://checkout:pa55word1@db:5432/orders") == (
        "postgres://checkout:[masked: url-password]@db:5432/orders"
    )
    assert masker.mask_text("REDIS_PASSWORD=pa55word1 REDIS_HOST=cache") == (
        "REDIS_PASSWORD=[masked: secret-value] REDIS_HOST=cache"
    )
    aws = next(s for s in SECRETS if s.kind == "aws-access-key-id")
    assert masker.mask_text(aws.text) == "[default]\naws_access_key_id = [masked: aws-access-key-id]\n"


def test_masking_twice_masks_nothing_more() -> None:
    masker = default_masker()
    once = masker.mask_text(planted_text(SECRETS))
    counts: Counter[str] = Counter()

    assert masker.mask_text(once, counts) == once
    assert counts == Counter()


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 4096",
        "input_tokens=1200 output_tokens=450",
        "the secret: none found",
        "kubectl get secret db-credentials -n shop -o yaml",
        "secretKeyRef: {name: db, key: password}",
        "password: ${DB_PASSWORD}",
        "token: null",
        "authorization: required",
        "http://checkout.shop.svc:8080/health",
        "http://grafana/d/abc@2024",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  log_level: debug\n",
        "pod checkout-7f9c OOMKilled, exit code 137, limit 256Mi",
        "task-runner ask skip desk",
        "__MASKED_EMAIL__",
        "Access denied for user 'app'@'10.3.1.8' (using password: YES)",
        '{"checksum/db-credentials": "3f9a01c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7"}',
        "sha256:3f1c0a9e8b7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4938271605f4e3d",
    ],
)
def test_benign_text_is_left_alone(text: str) -> None:
    counts: Counter[str] = Counter()

    assert default_masker().mask_text(text, counts) == text
    assert counts == Counter()


def test_json_members_named_like_secrets_and_kubernetes_secret_data_are_masked_whole() -> None:
    value = {
        "user": "svc",
        "password": "hunter22",
        "token_count": 3,
        "nested": [{"apiKey": 123456}],
        "secret": {"kind": "Secret", "data": {"tls.key": "c2VjcmV0"}, "stringData": {"pin": "1234"}},
        "enabled": True,
    }
    counts: Counter[str] = Counter()

    masked = default_masker().mask_value(value, counts)

    assert masked == {
        "user": "svc",
        "password": "[masked: secret-value]",
        "token_count": 3,
        "nested": [{"apiKey": "[masked: secret-value]"}],
        "secret": {
            "kind": "Secret",
            "data": {"tls.key": "[masked: k8s-secret-value]"},
            "stringData": {"pin": "[masked: k8s-secret-value]"},
        },
        "enabled": True,
    }
    assert counts == Counter({"password-assignment": 2, "kubernetes-secret": 2})


def test_pagination_tokens_and_checksums_of_secrets_are_not_secrets() -> None:
    value = {"next_page_token": "eyJvZmZzZXQiOiAzfQ==", "annotations": {"checksum/db-credentials": "3f9a01c2"}}

    assert default_masker().mask_value(value) is value


def test_the_real_trace_corpus_masks_nothing() -> None:
    """Every fixture trace and sample session (real agents' traces, none carrying a secret): no false positive.
    The values this once masked, and the patterns narrowed for them, are in docs/masking.md."""
    root = Path(__file__).resolve().parents[2]
    files = [
        p
        for folder in ("tests/fixtures", "config/sample_sessions")
        for p in sorted((root / folder).rglob("*"))
        if p.suffix in (".json", ".jsonl")
    ]
    counts: Counter[str] = Counter()

    for path in files:
        mask_document(path.read_text(encoding="utf-8"), default_masker(), counts)

    assert len(files) > 50
    assert counts == Counter()


def test_unchanged_data_is_returned_as_the_same_object() -> None:
    value = {"steps": [{"result": "all pods ready", "n": 3}]}

    assert default_masker().mask_value(value) is value


def test_a_yaml_secret_block_scalar_is_masked_line_by_line() -> None:
    text = "apiVersion: v1\nkind: Secret\nstringData:\n  config.ini: |\n    user=svc\n    pin=8812\n"

    masked = default_masker().mask_text(text)

    assert "8812" not in masked
    assert "user=svc" not in masked
    assert masked.startswith("apiVersion: v1\nkind: Secret\nstringData:\n")


def test_json_lines_are_masked_line_by_line() -> None:
    aws = next(s for s in SECRETS if s.kind == "aws-secret-access-key")
    document = "\n".join(json.dumps({"line": i, "out": aws.text}) for i in range(3))

    masked = mask_document(document, default_masker())

    assert aws.value not in masked
    assert len(masked.splitlines()) == 3


def test_a_group_turned_off_is_not_masked_and_the_others_still_are() -> None:
    masker = build_masker(disabled_groups=["certificate"])
    certificate = next(s for s in SECRETS if s.kind == "pem-certificate")
    key = next(s for s in SECRETS if s.kind == "pem-rsa-private-key")

    assert certificate.value in masker.mask_text(certificate.text)
    assert key.value not in masker.mask_text(key.text)


def test_masking_turned_off_masks_nothing() -> None:
    text = planted_text(SECRETS)

    assert build_masker(enabled=False).mask_text(text) == text


def test_a_custom_pattern_masks_its_value_group_under_its_own_name() -> None:
    masker = build_masker(custom=[CustomPattern("employee-id", r"employee (?P<value>E\d{6})")])
    counts: Counter[str] = Counter()

    assert masker.mask_text("paged employee E123456 at 3am", counts) == "paged employee [masked: employee-id] at 3am"
    assert counts == Counter({"employee-id": 1})


def test_a_bad_custom_pattern_or_an_unknown_group_is_refused_with_the_reason() -> None:
    with pytest.raises(MaskingError, match="custom pattern 'broken' is not a valid regular expression"):
        build_masker(custom=[CustomPattern("broken", "(unclosed")])
    with pytest.raises(MaskingError, match="matches the empty text"):
        build_masker(custom=[CustomPattern("empty", "x*")])
    with pytest.raises(MaskingError, match="unknown masking group"):
        build_masker(disabled_groups=["kubernetes"])


def test_counts_merge_into_a_sorted_plain_dict_without_zeros() -> None:
    assert merge_counts({"jwt": 1, "aws": 0}, Counter({"aws": 2})) == {"aws": 2, "jwt": 1}


def test_a_path_ending_in_a_secret_word_before_a_colon_is_an_error_message_not_an_assignment() -> None:
    text = "fatal: open /etc/shipper/token: permission denied"

    assert default_masker().mask_text(text) == text


def test_masking_a_json_text_in_one_pass_masks_as_masking_it_parsed() -> None:
    """The one-pass masking of a document's text (escapes, names, numbers, non-ASCII, JSON Lines) gives what
    masking the parsed document gives, and counts the same."""
    from collections import Counter

    from tests.support.planted_secrets import planted_secrets, planted_text

    masker = default_masker()
    text = planted_text(planted_secrets())
    documents = [
        json.dumps({"a": [text, {"password": "hunter22", "token": 12345, "api_key": 5, "x": {"secret": {"y": text}}}]}),
        json.dumps({"t": text}, ensure_ascii=True).replace("pass", "p\\u0061ss").replace("://", ":\\/\\/"),
        json.dumps({"é": "ünïcode " + text, "k": ["😀 password=hunter22x", "to\u212aen=abcdef12"]}, ensure_ascii=False),
        json.dumps({"result": json.dumps({"password": "hunter22", "note": text})}),
        json.dumps({"w": 'C:\\dir\\ "q\\" \\\\" password=hunter22x \\', "v": ["\\", '\\"', text]}),
    ]
    for document in documents:
        fast_counts: Counter[str] = Counter()
        fast = masker.mask_json(document, fast_counts)
        parsed_counts: Counter[str] = Counter()
        assert fast is not None
        assert json.loads(fast) == masker.mask_value(json.loads(document), parsed_counts)
        assert fast_counts == parsed_counts
        assert sum(fast_counts.values()) > 0
    lines = "\n".join(
        json.dumps({"n": i, "text": text if i % 2 else "plain", "password": "abc12345"}) for i in range(4)
    )
    fast = masker.mask_json(lines)
    assert fast is not None
    assert all("abc12345" not in line for line in fast.splitlines())
    assert masker.mask_json(json.dumps({"kind": "Secret", "data": {"k": "djE="}})) is None  # masked parsed instead
