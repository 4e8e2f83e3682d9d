"""Mask secrets in session text before anything leaves or is stored: the judge's request, a stored upload, a training
export, a write-back, a log line (docs/masking.md).

A :class:`Masker` holds the built-in pattern groups (:data:`BUILTIN_GROUPS`) it was built with plus any custom
patterns of the criteria file's ``masking:`` section. Each masked value is replaced by a marker that keeps its shape
(``[masked: aws-secret-key]``) so the judge still knows a credential was there, and is counted by group.

Pure and cheap: no I/O, the patterns are compiled once (on first use, not at import), and one case-insensitive scan
for the patterns' trigger words decides whether a text needs any of them (almost no text does). It imports nothing
of the service, so every layer, logging included, can use it.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

Memo = dict[str, tuple[str, Counter[str]]]
"""Texts already masked: what each became and what it counted."""
MARK = "[masked: {}]"
"""The marker a masked value becomes; it matches no pattern, so masking twice masks nothing more."""
_MARKED = r"(?!\[masked: )"


def marker(name: str) -> str:
    return MARK.format(name)


@dataclass(frozen=True)
class MaskPattern:
    """One pattern: ``name`` labels the marker, ``group`` is what can be turned off and what is counted.

    ``regex`` masks its ``value`` named group when it has one, else the whole match; it is tried only on a text
    holding one of its ``triggers`` (lower-case literals; empty: always tried)."""

    name: str
    group: str
    regex: re.Pattern[str]
    triggers: tuple[str, ...] = ()
    block: str | None = None
    """``yaml`` or ``json``: the match is a Kubernetes Secret's data block, each of whose values is masked."""
    back: int = 0
    """How many characters before a trigger word a match of a case-insensitive pattern can start."""
    literals: tuple[str, ...] = ()
    """The triggers as a match spells them: in any case for a case-insensitive pattern, exactly for another (what
    the one-pass scan of a whole document looks for, :class:`_Scanner`)."""

    def sub(self, text: str, counts: Counter[str]) -> str:
        return self.regex.sub(lambda match: self.replacement(match, text, counts), text)

    def replacement(self, match: re.Match[str], text: str, counts: Counter[str]) -> str:
        """What ``match`` (of ``text``) becomes: its value (or all of it) replaced by the marker, and counted."""
        whole = match.group(0)
        if self.group == "password-assignment" and _CHECKSUM_KEY.search(
            text, max(0, match.start() - 64), match.start()
        ):
            return whole  # ``checksum/db-credentials: <sha256>``: a hash of a secret, not one
        if "value" not in match.re.groupindex or match.start("value") < 0:
            counts[self.group] += 1
            return marker(self.name)
        if match.group("value").startswith("[masked: "):
            return whole
        counts[self.group] += 1
        start, end = match.start("value") - match.start(), match.end("value") - match.start()
        return whole[:start] + marker(self.name) + whole[end:]


def _p(
    name: str, group: str, pattern: str, triggers: Iterable[str], flags: int = 0, block: str | None = None
) -> MaskPattern:
    back = 1 if name == "azure-sas-signature" else 0  # ``[?&;]sig=``: one character before its trigger
    literals = tuple(triggers)
    lowered = tuple(t.lower() for t in literals)
    return MaskPattern(name, group, re.compile(pattern, flags), lowered, block, back, literals)


_CHECKSUM_KEY = re.compile(r"(?:checksum|hash|digest|sha\d*)[/._-][A-Za-z0-9_.-]*$", re.IGNORECASE)
"""A key naming a hash of a secret (a Helm ``checksum/db-credentials`` annotation), whose value is no secret."""
_Q = r"""\\{0,3}["']"""
"""A quote, possibly JSON-escaped (``\\"`` inside a string holding JSON)."""
_OQ = r"""(?:\\{0,3}["'])?"""
# The names of secret-bearing keys
_SENSITIVE_WORDS = (
    r"password|passwd|passphrase|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|"
    r"access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|bearer[_-]?token|token|private[_-]?key|"
    r"credentials?|account[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|webhook[_-]?secret"
)
_KEY = rf"(?:{_SENSITIVE_WORDS})"
_KEY_TRIGGERS = (
    "pass",
    "secret",
    "token",
    "credential",
    *(
        f"{word}{joint}{tail}"
        for word, tails in (
            ("api", ("key",)),
            ("access", ("key", "token")),
            ("private", ("key",)),
            ("account", ("key",)),
            ("signing", ("key",)),
            ("encryption", ("key",)),
            ("master", ("key",)),
        )
        for tail in tails
        for joint in ("", "_", "-")
    ),
)
"""Where a match of :data:`_KEY` starts: the beginning of each of its alternatives (``client_secret`` matches from
``secret``, ``auth_token`` from ``token``)."""
_NOT_A_VALUE = (
    r"(?!\[masked: )(?!(?:true|false|yes|no|null|none|nil|undefined|required|optional|string|int|bool|\*+|x+|redacted"
    r"|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%[a-z])(?:[\s\"',;})\]\\]|$))"
)
_VENDOR_TRIGGERS = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")


def _builtin_patterns() -> list[MaskPattern]:
    """Every built-in pattern, in the order they are applied (the most specific first: a PEM block is masked whole
    before the ``private_key: ...`` rule would see its first line)."""
    dotall = re.DOTALL
    ic = re.IGNORECASE
    return [
        # -- private keys and certificates (PEM), whole blocks, also when JSON-escaped (\n as two characters)
        _p(
            "private-key",
            "private-key",
            r"-----BEGIN ((?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,40000}?"
            r"(?:-----END \1PRIVATE KEY(?: BLOCK)?-----|(?=[\"']|$))",
            ["-----BEGIN"],
            dotall,
        ),
        _p(
            "certificate",
            "certificate",
            r"-----BEGIN (?:TRUSTED |X509 )?CERTIFICATE-----[\s\S]{0,40000}?"
            r"(?:-----END (?:TRUSTED |X509 )?CERTIFICATE-----|(?=[\"']|$))",
            ["-----BEGIN"],
            dotall,
        ),
        # -- JWTs (any, signed or not): header.payload.signature, base64url
        _p(
            "jwt",
            "jwt",
            r"eyJ(?<![A-Za-z0-9_]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,1024}",
            ["eyJ"],
        ),
        # -- Authorization headers: keep the scheme, mask the credentials
        _p(
            "bearer-token",
            "authorization",
            rf"(?:authorization|\bbearer)\b{_OQ}\s*[:=]?\s*{_OQ}\s*(?:bearer|token)\s+{_MARKED}"
            r"(?P<value>[A-Za-z0-9._~+/=-]{8,4096})",
            ["bearer", "authorization"],
            ic,
        ),
        _p(
            "basic-credentials",
            "authorization",
            rf"authorization{_OQ}\s*[:=]\s*{_OQ}\s*basic\s+{_MARKED}(?P<value>[A-Za-z0-9+/=]{{6,4096}})",
            ["authorization"],
            ic,
        ),
        _p(
            "bearer-token",
            "authorization",
            rf"\bbearer\s+{_MARKED}(?P<value>[A-Za-z0-9._~+/-]{{20,4096}}=*)",
            ["bearer"],
            ic,
        ),
        _p(
            "authorization",
            "authorization",
            rf"(?:proxy-)?authorization{_OQ}\s*[:=]\s*{_OQ}\s*(?:(?:digest|negotiate|ntlm|aws4-hmac-sha256|token)\s+)?"
            rf"{_NOT_A_VALUE}(?:bearer\s+|basic\s+)?{_MARKED}(?P<value>[^\s\"'\\,;]{{8,4096}})",
            ["authorization"],
            ic,
        ),
        # -- AWS
        _p(
            "aws-access-key-id",
            "aws",
            r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])",
            ["AKIA", "ASIA", "ABIA", "ACCA"],
        ),
        _p(
            "aws-secret-key",
            "aws",
            rf"(?:aws)?[_-]?secret[_-]?(?:access[_-]?)?key(?:[_-]?id)?{_OQ}\s*[:=]\s*{_OQ}{_MARKED}"
            r"(?P<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
            ["secret"],
            ic,
        ),
        _p(
            "aws-session-token",
            "aws",
            rf"(?:aws[_-]?)?(?:session|security)[_-]?token{_OQ}\s*[:=]\s*{_OQ}{_MARKED}(?P<value>[A-Za-z0-9/+=]{{40,4096}})",
            [f"{word}{joint}token" for word in ("session", "security") for joint in ("", "_", "-")],
            ic,
        ),
        # -- Google Cloud
        _p("gcp-api-key", "gcp", r"AIza(?<![A-Za-z0-9_]AIza)[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", ["AIza"]),
        _p(
            "gcp-oauth-client-secret",
            "gcp",
            r"GOCSPX-(?<![A-Za-z0-9_]GOCSPX-)[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])",
            ["GOCSPX-"],
        ),
        _p("gcp-oauth-token", "gcp", r"ya29\.(?<![A-Za-z0-9_]ya29\.)[0-9A-Za-z_-]{20,4096}", ["ya29."]),
        _p(
            "gcp-private-key-id",
            "gcp",
            rf"private_key_id{_Q}\s*:\s*{_Q}(?P<value>[a-f0-9]{{40}})(?![a-f0-9])",
            ["private_key_id"],
        ),
        # -- Azure
        _p(
            "azure-storage-key",
            "azure",
            rf"(?:AccountKey|SharedAccessKey|SharedSecretValue)\s*=\s*{_MARKED}(?P<value>[A-Za-z0-9+/]{{20,1024}}={{0,2}})",
            ["accountkey", "sharedaccesskey", "sharedsecretvalue"],
            ic,
        ),
        _p(
            "azure-sas-signature",
            "azure",
            rf"[?&;]sig=(?P<value>{_MARKED}[A-Za-z0-9%+/=]{{20,1024}})",
            ["sig="],
            ic,
        ),
        _p(
            "azure-client-secret",
            "azure",
            r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
            ["Q~"],
        ),
        # -- well-known vendor key shapes
        _p(
            "github-token",
            "vendor-keys",
            r"gh[pousr]_(?<![A-Za-z0-9_]gh[pousr]_)[A-Za-z0-9]{36,255}\b",
            _VENDOR_TRIGGERS,
        ),
        _p(
            "github-token",
            "vendor-keys",
            r"github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{22,255}\b",
            ["github_pat_"],
        ),
        _p(
            "gitlab-token",
            "vendor-keys",
            r"\bgl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,255}\b",
            ["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-"],
        ),
        _p("slack-token", "vendor-keys", r"xox[abposr]-(?<![A-Za-z0-9_]xox[abposr]-)[A-Za-z0-9-]{10,255}", ["xox"]),
        _p(
            "slack-webhook",
            "vendor-keys",
            r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<value>[A-Za-z0-9/_-]{20,255})",
            ["hooks.slack.com"],
        ),
        _p("stripe-key", "vendor-keys", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}\b", ["_live_", "_test_"]),
        _p("anthropic-key", "vendor-keys", r"sk-ant-(?<![A-Za-z0-9_]sk-ant-)[A-Za-z0-9_-]{20,255}", ["sk-ant-"]),
        _p(
            "openai-key",
            "vendor-keys",
            r"sk-(?<![A-Za-z0-9_]sk-)(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,255}",
            ["sk-"],
        ),
        _p(
            "sendgrid-key",
            "vendor-keys",
            r"SG\.(?<![A-Za-z0-9_]SG\.)[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}\b",
            ["SG."],
        ),
        _p("twilio-key", "vendor-keys", r"SK(?<![A-Za-z0-9_]SK)[0-9a-f]{32}\b", ["SK"]),
        _p("npm-token", "vendor-keys", r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}\b", ["npm_"]),
        _p("pypi-token", "vendor-keys", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1024}", ["pypi-AgEIcHlwaS5vcmc"]),
        _p("huggingface-token", "vendor-keys", r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{34,64}\b", ["hf_"]),
        _p("digitalocean-token", "vendor-keys", r"\bdo[porp]_v1_[a-f0-9]{64}\b", ["_v1_"]),
        _p("shopify-token", "vendor-keys", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ["shp"]),
        # -- passwords in URLs: scheme://user:password@host keeps the user and the host
        _p(
            "url-password",
            "url-password",
            rf"\b[a-zA-Z][a-zA-Z0-9+.-]{{1,30}}://[^\s:/@\"'<>\\]{{1,256}}:{_MARKED}"
            r"(?P<value>[^\s@/\"'<>\\]{1,512})@(?=[A-Za-z0-9\[])",
            ["://"],
        ),
        # -- Kubernetes Secrets: every value of data/stringData, in YAML and in JSON (kubectl -o yaml / -o json)
        _p(
            "k8s-secret-value",
            "kubernetes-secret",
            r"(?P<block>(?m:^)(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\r?\n"
            r"(?:(?P=indent)[ \t]+[^\n]*(?:\r?\n|$))+)",
            ["kind: secret"],
            ic,
            "yaml",
        ),
        _p(
            "k8s-secret-value",
            "kubernetes-secret",
            rf"(?P<block>{_Q}(?:data|stringData){_Q}\s*:\s*\{{[^{{}}]{{0,200000}}\}})",
            ["secret"],
            ic,
            "json",
        ),
        # -- passwords, tokens and keys given as KEY=value, key: value, "key": "value" (the match starts at the
        # secret word, whatever prefixes it: DB_PASSWORD, mysql_root_password, X-Api-Key)
        _p(
            "secret-value",
            "password-assignment",
            rf"{_KEY}{_OQ}\s*[:=]\s*{_Q}{_NOT_A_VALUE}(?P<value>[^\"'\\\n]{{3,1024}}?)(?={_Q})",
            _KEY_TRIGGERS,
            ic,
        ),
        _p(
            "secret-value",
            "password-assignment",
            # Not after a "/": a path's last part and a colon is an error message ("open /etc/app/token: permission
            # denied"), not an assignment.
            rf"(?<!/){_KEY}[ \t]*(?:=|:(?!//))[ \t]*{_NOT_A_VALUE}(?P<value>[^\s\"'\\,;&|)}}\]]{{3,1024}})",
            _KEY_TRIGGERS,
            ic,
        ),
    ]


BUILTIN_GROUPS: tuple[str, ...] = (
    "private-key",
    "certificate",
    "jwt",
    "authorization",
    "aws",
    "gcp",
    "azure",
    "vendor-keys",
    "url-password",
    "kubernetes-secret",
    "password-assignment",
)
"""The built-in groups, each of which the criteria file can turn off (``masking.disabled_groups``)."""

_YAML_ITEM = re.compile(r"(?m)^(?P<lead>[ \t]+[^:\n#]+:[ \t]*)(?P<value>[^\n]*?)[ \t]*$")
_JSON_ITEM = re.compile(
    r"""(?P<lead>\\{0,3}"[^"\\]{1,253}\\{0,3}"\s*:\s*)(?P<value>\\{0,3}"(?:[^"\\]|\\.)*?\\{0,3}")"""
)
_K8S_NAMES = frozenset({"data", "stringdata"})


def _mask_secret_block(block: str, is_json: bool, counts: Counter[str]) -> str:
    """Every value of a Secret's data/stringData block (YAML lines, or a JSON object's string members)."""
    item = _JSON_ITEM if is_json else _YAML_ITEM

    def replace(match: re.Match[str]) -> str:
        value = match.group("value")
        if not value.strip(" \"'\\|>") or "[masked: " in value:
            return match.group(0)
        counts["kubernetes-secret"] += 1
        quote = '"' if is_json else ""
        if is_json:
            escapes = value[: len(value) - len(value.lstrip("\\"))]
            quote = escapes + '"'
        return match.group("lead") + quote + marker("k8s-secret-value") + quote

    if is_json:
        head, _, body = block.partition("{")
        return head + "{" + item.sub(replace, body)
    head, _, body = block.partition(":")
    lines = body.split("\n")
    depth = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    kept = []
    for line in lines:
        indent = len(line) - len(line.lstrip())
        # A block scalar's lines (``key: |``) sit deeper than the keys: each is masked whole.
        kept.append(line[:indent] + marker("k8s-secret-value") if line.strip() and indent > depth else line)
    return head + ":" + item.sub(replace, "\n".join(kept))


def _windowed_sub(pattern: MaskPattern, text: str, lowered: str, counts: Counter[str]) -> str:
    """``pattern.sub`` tried only where a match can start, just before each of its trigger words (found with plain
    ``find``): Python's regex engine cannot skip ahead to a case-insensitive alternation, so scanning a long text
    for one costs more than everything else an import does."""
    found: dict[int, re.Match[str]] = {}
    for trigger in pattern.triggers:
        at = lowered.find(trigger)
        while at != -1:
            for start in range(max(0, at - pattern.back), at + 1):
                match = pattern.regex.match(text, start)
                if match is not None and match.start() <= at < match.end():
                    found.setdefault(match.start(), match)
                    break
            at = lowered.find(trigger, at + 1)
    if not found:
        return text
    parts: list[str] = []
    last = 0
    for begin in sorted(found):
        match = found[begin]
        if begin < last:
            continue  # overlaps the previous match
        parts += [text[last:begin], pattern.replacement(match, text, counts)]
        last = match.end()
    parts.append(text[last:])
    return "".join(parts)


_ESCAPED_LETTER = (
    rb"\\u00[2-7][0-9a-fA-F]",  # an escaped ASCII character: "p\u0061ss" is "pass"
    rb"\\u(?:0130|212[aA])",  # escaped characters whose lower case holds an ASCII letter (U+0130, the Kelvin sign)
    rb"\\/",  # JSON's escaped solidus: ":\/\/" is "://"
    "\u0130".encode(),
    "\u212a".encode(),
)
"""What can spell a trigger in a JSON string without the trigger's own bytes: a string holding one is masked as
any string holding a trigger is (decoded, by the patterns), so no escape hides a secret from the one-pass scan."""
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NAME_END = re.compile(rb"[ \t\r\n]*:[ \t\r\n]*")
_JSON_INT = re.compile(rb"-?(?:0|[1-9][0-9]*)(?![0-9.eE])")


class _Scanner:
    """Where a masker's triggers occur in a text, all of them in one pass over its UTF-8 bytes.

    Hyperscan (the ``hyperscan`` package) matches every literal at once at memory speed: a 2.6 MB document takes
    about a millisecond, where Python's ``str.find`` takes one pass per trigger (about 80 of them: 80 ms) and one
    ``re`` alternation of them all more (140 ms), which is more than importing the document costs. One scratch
    space per thread, as Hyperscan requires."""

    def __init__(self, patterns: Sequence[MaskPattern]) -> None:
        import hyperscan  # only where a whole document is masked: the log formatter does not load it

        self._hyperscan = hyperscan
        exact = sorted({t for p in patterns if not p.regex.flags & re.IGNORECASE for t in p.literals})
        caseless = sorted({t.lower() for p in patterns if p.regex.flags & re.IGNORECASE for t in p.literals})
        expressions = [re.escape(t.encode()) for t in exact + caseless] + list(_ESCAPED_LETTER)
        flags = [0] * len(exact) + [hyperscan.HS_FLAG_CASELESS] * len(caseless) + [0] * len(_ESCAPED_LETTER)
        self._database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._database.compile(
            expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions), flags=flags
        )
        self._local = threading.local()

    def ends(self, data: bytes) -> list[int]:
        """The offset just past each occurrence of a trigger (or of an escape that can spell one), in order."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hyperscan.Scratch(self._database)
        found: list[int] = []

        def on_match(_id: int, _start: int, end: int, _flags: int, _context: object) -> None:
            found.append(end)

        self._database.scan(data, match_event_handler=on_match, scratch=scratch)
        found.sort()
        return found


class _NotFast(Exception):
    """The one-pass masking of a JSON text cannot answer for this text: the caller masks it parsed."""


def _opening_quote(data: bytes, inside: int) -> int:
    """Where the JSON string holding byte ``inside`` opens: the last quote before it that no backslash escapes."""
    quote = data.rfind(b'"', 0, inside)
    while quote > 0 and data[quote - 1] == 0x5C:
        before = quote - 1
        while before >= 0 and data[before] == 0x5C:
            before -= 1
        if (quote - 1 - before) % 2 == 0:
            break  # an even run of backslashes escapes itself, not the quote
        quote = data.rfind(b'"', 0, quote)
    if quote < 0:
        raise _NotFast("a trigger outside any JSON string")
    return quote


def _string_end(data: bytes, quote: int) -> int:
    """Just past the JSON string opening at byte ``quote``: its first quote that no backslash escapes. A find per
    quote in it: about twice as fast as matching the string with a regex, which steps through every escape."""
    at = quote + 1
    while True:
        closing = data.find(b'"', at)
        if closing < 0:
            raise _NotFast("a JSON string that does not end")
        before = closing - 1
        while data[before] == 0x5C:  # stops at the opening quote at the latest
            before -= 1
        if (closing - 1 - before) % 2 == 0:
            return closing + 1
        at = closing + 1


_PROBES = (
    "pass", "secret", "token", "key", "credential", "authorization", "bearer", "-----", "eyj", "akia", "asia", "abia",
    "acca", "aiza", "gocspx", "ya29", "sig=", "q~", "gh", "gl", "xox", "hooks.slack", "_live_", "_test_", "sk", "sg.",
    "npm_", "pypi-", "hf_", "_v1_", "shp", "://",
)  # fmt: skip


class Masker:
    """Masks values in text and in JSON-like data; ``counts`` arguments collect how many values, by group."""

    def __init__(self, patterns: Sequence[MaskPattern], enabled: bool = True) -> None:
        self.patterns = tuple(patterns)
        self.enabled = enabled and bool(self.patterns)
        self._always = any(not p.triggers for p in self.patterns)
        # Plain substring checks on the lower-cased text: one big case-insensitive alternation is far slower in
        # Python's regex engine (seconds on megabytes), and most texts hold no trigger at all.
        triggers = {t for p in self.patterns for t in p.triggers}
        # Probes: short substrings one of which every trigger contains, so a text with no probe (nearly every text)
        # is passed after a few scans instead of one per trigger.
        probes = {probe for probe in _PROBES if any(probe in t for t in triggers)}
        probes |= {t for t in triggers if not any(probe in t for probe in probes)}
        self._triggers = tuple(sorted(probes))
        self._names: dict[str, tuple[str, str] | None] = {}
        self.groups: frozenset[str] = frozenset(p.group for p in self.patterns) if self.enabled else frozenset()
        self._scanner: _Scanner | None = None
        self._scanner_lock = threading.Lock()

    def needs_masking(self, text: str) -> bool:
        """Whether any pattern could match ``text`` (a pre-check over the whole text)."""
        if not self.enabled:
            return False
        lowered = text.lower()
        return self._always or any(t in lowered for t in self._triggers)

    def mask_text(self, text: str, counts: Counter[str] | None = None, memo: Memo | None = None) -> str:
        """``text`` with every secret replaced by its marker. ``memo`` remembers texts already masked, with what
        they counted (one import masks the session and then its document, which holds the same texts)."""
        if not self.enabled or len(text) < 8:
            return text
        if memo is None:
            return self._mask_text(text, counts)
        known = memo.get(text)
        if known is None:
            found: Counter[str] = Counter()
            known = memo[text] = (self._mask_text(text, found), found)
        if counts is not None:
            counts.update(known[1])
        return known[0]

    def _mask_text(self, text: str, counts: Counter[str] | None) -> str:
        lowered = text.lower()
        if not self._always and not any(t in lowered for t in self._triggers):
            return text
        tally: Counter[str] = Counter() if counts is None else counts
        for pattern in self.patterns:
            if pattern.triggers and not any(t in lowered for t in pattern.triggers):
                continue
            if pattern.block is not None:
                text = self._k8s(pattern, text, lowered, tally)
            elif pattern.regex.flags & re.IGNORECASE and len(lowered) == len(text):
                text = _windowed_sub(pattern, text, lowered, tally)
            else:
                text = pattern.sub(text, tally)
            if len(text) != len(lowered):
                lowered = text.lower()
        return text

    @staticmethod
    def _k8s(pattern: MaskPattern, text: str, lowered: str, counts: Counter[str]) -> str:
        if "kind: secret" not in lowered and not re.search(r'kind\\{0,3}"\s*:\s*\\{0,3}"secret', lowered):
            return text
        is_json = pattern.block == "json"
        return pattern.regex.sub(lambda m: _mask_secret_block(m.group("block"), is_json, counts), text)

    def mask_json(
        self, text: str, counts: Counter[str] | None = None, memo: Memo | None = None, encoded: bytes | None = None
    ) -> str | None:
        """JSON (or JSON Lines) ``text`` masked as :meth:`mask_value` masks it parsed, in one pass over the text:
        each JSON string holding a trigger (or an escape that can spell one) is decoded, masked and written back in
        place, a member named like a secret has its value replaced, and everything else is left byte for byte.
        ``None`` when this pass cannot answer and the caller must mask the parsed text: custom patterns (they have
        no trigger words to look for), a ``"kind": "Secret"`` (a Kubernetes Secret's structure), or text that is
        not JSON where a trigger occurs. Unchanged text is the same object.

        Text that is not JSON may come back masked as if it were: the caller parses it afterwards (an import
        refuses such a document). ``encoded``: ``text`` in UTF-8, when the caller holds it (an upload's body), so
        that it is not encoded again."""
        if not self.enabled:
            return text
        if self._always:
            return None
        data = text.encode("utf-8", "surrogatepass") if encoded is None else encoded
        tally: Counter[str] = Counter()
        try:
            edits = self._json_edits(data, tally, memo)
        except _NotFast:
            return None
        if counts is not None:
            counts.update(tally)
        if not edits:
            return text
        if text.isascii():  # offsets in the bytes are offsets in the text: splice the text itself
            pieces: list[str] = []
            last = 0
            for start, end, replacement in edits:
                pieces += [text[last:start], replacement]
                last = end
            pieces.append(text[last:])
            return "".join(pieces)
        view = memoryview(data)
        chunks: list[bytes | memoryview] = []
        last = 0
        for start, end, replacement in edits:
            chunks += [view[last:start], replacement.encode()]
            last = end
        chunks.append(view[last:])
        return b"".join(chunks).decode("utf-8", "surrogatepass")

    def _json_edits(self, data: bytes, counts: Counter[str], memo: Memo | None) -> list[tuple[int, int, str]]:
        """Which spans of JSON ``data`` become what (JSON, ASCII), in order."""
        seen: dict[bytes, tuple[str | None, Counter[str]]] = {}  # a string repeated is decoded and masked once
        edits: list[tuple[int, int, str]] = []
        done = 0
        for end in self._scan().ends(data):
            inside = end - 1
            if inside < done:
                continue  # in a string already seen
            start = _opening_quote(data, inside)
            done = _string_end(data, start)
            if done <= inside:
                raise _NotFast("a trigger outside any JSON string")
            raw = data[start:done]
            name_end = _NAME_END.match(data, done)
            if name_end is not None:  # a member's name: never masked itself, but it may say its value is a secret
                named = self._named_secret(json.loads(raw))
                at = name_end.end()
                value = None if named is None else (_JSON_STRING.match(data, at) or _JSON_INT.match(data, at))
                if named is None or value is None:
                    continue  # an object or an array is masked string by string; other scalars are no secret
                done = value.end()
                item = json.loads(value.group())
                new = self._whole(item, named[0], named[1], counts)
                if new is not item:
                    edits.append((value.start(), value.end(), json.dumps(new)))
                continue
            known = seen.get(raw)
            if known is None:
                text = json.loads(raw)
                if "kubernetes-secret" in self.groups and text.lower() == "secret":
                    raise _NotFast("a Kubernetes Secret: its data is masked by structure")
                found: Counter[str] = Counter()
                new_text = self.mask_text(text, found, memo)
                known = seen[raw] = (None if new_text == text else json.dumps(new_text), found)
            if known[1]:
                counts.update(known[1])
            if known[0] is not None:
                edits.append((start, done, known[0]))
        return edits

    def _scan(self) -> _Scanner:
        if self._scanner is None:
            with self._scanner_lock:
                if self._scanner is None:
                    self._scanner = _Scanner(self.patterns)
        return self._scanner

    def mask_value(self, value: Any, counts: Counter[str] | None = None, memo: Memo | None = None) -> Any:
        """A copy of JSON-like ``value`` (dicts, lists, strings, scalars) with every secret masked: strings by the
        patterns, a member named like a secret (``password``, ``api_key``, ...) whole, and every value of a
        Kubernetes Secret's ``data``/``stringData``. Unchanged parts are the same objects."""
        if not self.enabled:
            return value
        tally: Counter[str] = Counter() if counts is None else counts
        return self._value(value, tally, memo)

    def _value(self, value: Any, counts: Counter[str], memo: Memo | None) -> Any:
        if isinstance(value, str):
            return self.mask_text(value, counts, memo)
        if isinstance(value, dict):
            return self._mapping(value, counts, memo)
        if isinstance(value, list):
            items = [self._value(item, counts, memo) for item in value]
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        return value

    def _mapping(self, value: dict[Any, Any], counts: Counter[str], memo: Memo | None) -> dict[Any, Any]:
        # The hot loop of masking a large session: exact type checks, and a copy only once something changed.
        secret = "kind" in value and self._is_k8s_secret(value)
        names = self._names
        out: dict[Any, Any] | None = None
        for key, item in value.items():
            kind = type(item)
            if kind is str or kind is int:
                named = (names[key] if key in names else self._named_secret(key)) if type(key) is str else None
                if named is not None:
                    new = self._whole(item, named[0], named[1], counts)
                elif kind is str:
                    new = self.mask_text(item, counts, memo)
                else:
                    new = item
            elif kind is dict:
                if secret and type(key) is str and key.lower() in _K8S_NAMES:
                    new = {k: self._whole(v, "k8s-secret-value", "kubernetes-secret", counts) for k, v in item.items()}
                else:
                    new = self._mapping(item, counts, memo)
            elif kind is list:
                new = self._value(item, counts, memo)
            else:
                new = item
            if new is not item:
                if out is None:
                    out = dict(value)
                out[key] = new
        return value if out is None else out

    def _is_k8s_secret(self, value: dict[Any, Any]) -> bool:
        return (
            "kubernetes-secret" in self.groups
            and str(value.get("kind", "")).lower() == "secret"
            and any(isinstance(value.get(k), dict) for k in ("data", "stringData"))
        )

    def _named_secret(self, key: str) -> tuple[str, str] | None:
        """(marker name, group) when a member's name says its value is a secret (remembered: names repeat)."""
        if key in self._names:
            return self._names[key]
        named = None
        if "password-assignment" in self.groups and _NAMED_SECRET.fullmatch(key):
            named = ("secret-value", "password-assignment")
        if len(self._names) < 4096:
            self._names[key] = named
        return named

    @staticmethod
    def _whole(value: Any, name: str, group: str, counts: Counter[str]) -> Any:
        if not isinstance(value, str | int) or isinstance(value, bool) or value in ("", None):
            return value
        text = str(value)
        if text.startswith("[masked: ") or _PLACEHOLDER.fullmatch(text):
            return value
        counts[group] += 1
        return marker(name)


_NAMED_SECRET = re.compile(
    rf"(?!.*(?:page|next|continuation)[_-]?token$)(?!(?:checksum|hash|digest)[/._-])[A-Za-z0-9_./-]*?(?:{_SENSITIVE_WORDS})",
    re.IGNORECASE,
)
"""A member name whose value is a secret: it ends in a secret word (``db_password``, ``apiKey``, ``token``)."""
_PLACEHOLDER = re.compile(
    r"(?i)(?:true|false|null|none|\*+|x+|redacted|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|__masked_[a-z_]+__|.{0,2})"
)


@dataclass(frozen=True)
class CustomPattern:
    """A pattern of the criteria file: its ``name`` labels the marker and counts as its own group."""

    name: str
    pattern: str


class MaskingError(ValueError):
    """A custom pattern that does not compile; the message says which and why."""


def build_masker(
    enabled: bool = True, disabled_groups: Iterable[str] = (), custom: Sequence[CustomPattern] = ()
) -> Masker:
    """The built-in patterns less ``disabled_groups``, then ``custom`` (which always apply, in order)."""
    off = set(disabled_groups)
    unknown = off - set(BUILTIN_GROUPS)
    if unknown:
        raise MaskingError(
            f"unknown masking group(s) {', '.join(sorted(unknown))}; "
            f"the built-in groups are {', '.join(BUILTIN_GROUPS)}"
        )
    patterns = [p for p in _compiled_builtins() if p.group not in off]
    for item in custom:
        try:
            regex = re.compile(item.pattern)
        except re.error as exc:
            raise MaskingError(f"custom pattern '{item.name}' is not a valid regular expression: {exc}") from exc
        if regex.search("") is not None:
            raise MaskingError(f"custom pattern '{item.name}' matches the empty text; it would mask nothing useful")
        patterns.append(MaskPattern(item.name, item.name, regex))
    return Masker(patterns, enabled)


@cache
def _compiled_builtins() -> tuple[MaskPattern, ...]:
    return tuple(_builtin_patterns())


@cache
def default_masker() -> Masker:
    """Every built-in group, no custom pattern: what masks when the criteria file says nothing, and the logs."""
    return build_masker()


def merge_counts(*parts: Mapping[str, int]) -> dict[str, int]:
    """The sum of several counts, as a plain dict sorted by group (what a score stores)."""
    total: Counter[str] = Counter()
    for part in parts:
        total.update(part)
    return {group: total[group] for group in sorted(total) if total[group]}


def mask_document(text: str, masker: Masker, counts: Counter[str] | None = None, memo: Memo | None = None) -> str:
    """A JSON or JSON Lines document with every secret masked, members by name included; other text by pattern.
    Masked in one pass over the text where it can be (:meth:`Masker.mask_json`), else parsed."""
    if not masker.enabled:
        return text
    fast = masker.mask_json(text, counts, memo)
    if fast is not None:
        return fast
    if not masker.needs_masking(text):
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        pass
    else:
        masked = masker.mask_value(parsed, counts, memo)
        return text if masked is parsed else json.dumps(masked, ensure_ascii=False)
    lines = text.splitlines()
    try:
        parsed = [json.loads(line) if line.strip() else None for line in lines]
    except ValueError:
        return masker.mask_text(text, counts, memo)
    return "\n".join(
        "" if item is None else json.dumps(masker.mask_value(item, counts, memo), ensure_ascii=False) for item in parsed
    )
