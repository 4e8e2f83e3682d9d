"""Secrets of 30+ kinds to plant in traces, made at run time from a seeded generator (the repository holds no
secret-shaped string), each with the text a tool would print around it.

``PlantedSecret.value`` is what must never leave (the canary looks for it verbatim everywhere);
``PlantedSecret.text`` is the tool output or message that carries it.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

_UPPER_DIGITS = string.ascii_uppercase + string.digits
_ALNUM = string.ascii_letters + string.digits
_B64 = string.ascii_letters + string.digits + "+/"
_URLSAFE = string.ascii_letters + string.digits + "-_"
_HEX = "0123456789abcdef"


@dataclass(frozen=True)
class PlantedSecret:
    kind: str
    value: str
    text: str


def _pem(rng: random.Random, label: str, lines: int = 6) -> str:
    body = "\n".join("".join(rng.choice(_B64) for _ in range(64)) for _ in range(lines))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def planted_secrets(seed: int = 39) -> list[PlantedSecret]:
    """One secret of each kind; the same ones for the same ``seed``."""
    rng = random.Random(seed)

    def pick(alphabet: str, n: int) -> str:
        # Mixed letters and digits, as real keys are (a run of one letter would not look like a key).
        while True:
            value = "".join(rng.choice(alphabet) for _ in range(n))
            mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
            if not mixed or (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
                return value

    k8s_yaml_plain = pick(_ALNUM, 18)
    k8s_yaml_b64 = base64.b64encode(k8s_yaml_plain.encode()).decode()
    k8s_json_plain = pick(_ALNUM, 20)
    k8s_json_b64 = base64.b64encode(k8s_json_plain.encode()).decode()
    string_data = pick(_ALNUM, 16)
    jwt_header = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()).decode().rstrip("=")
    jwt_payload = base64.urlsafe_b64encode(json.dumps({"sub": pick(_ALNUM, 8)}).encode()).decode().rstrip("=")
    jwt = f"{jwt_header}.{jwt_payload}.{pick(_URLSAFE, 43)}"
    bearer = pick(_URLSAFE, 40)
    basic = base64.b64encode(f"admin:{pick(_ALNUM, 12)}".encode()).decode()
    aws_id = "AKIA" + pick(_UPPER_DIGITS, 16)
    aws_secret = pick(_ALNUM + "/+", 40)
    aws_session = pick(_ALNUM + "/+", 120)
    gcp_key = "AIza" + pick(_URLSAFE, 35)
    gcp_private = _pem(rng, "PRIVATE KEY", 8)
    gcp_key_id = pick(_HEX, 40)
    azure_key = pick(_ALNUM + "+/", 86) + "=="
    azure_sig = pick(_ALNUM, 43) + "%3D"
    rsa_key = _pem(rng, "RSA PRIVATE KEY")
    openssh_key = _pem(rng, "OPENSSH PRIVATE KEY")
    certificate = _pem(rng, "CERTIFICATE", 4)
    url_password = pick(_ALNUM, 14)
    env_password = pick(_ALNUM, 16)
    json_password = pick(_ALNUM, 15)
    ghp = "ghp_" + pick(_ALNUM, 36)
    github_pat = "github_pat_" + pick(_ALNUM, 22) + "_" + pick(_ALNUM, 59)
    gho = "gho_" + pick(_ALNUM, 36)
    slack = "xoxb-" + pick(string.digits, 12) + "-" + pick(string.digits, 13) + "-" + pick(_ALNUM, 24)
    slack_hook = f"T{pick(_UPPER_DIGITS, 8)}/B{pick(_UPPER_DIGITS, 8)}/{pick(_ALNUM, 24)}"
    stripe = "sk_live_" + pick(_ALNUM, 24)
    openai = "sk-proj-" + pick(_URLSAFE, 48) + "A1"
    anthropic = "sk-ant-api03-" + pick(_URLSAFE, 93) + "AA"
    sendgrid = f"SG.{pick(_URLSAFE, 22)}.{pick(_URLSAFE, 43)}"
    twilio = "SK" + pick(_HEX, 32)
    npm = "npm_" + pick(_ALNUM, 36)
    pypi = "pypi-AgEIcHlwaS5vcmc" + pick(_URLSAFE, 60)
    gitlab = "glpat-" + pick(_URLSAFE, 20)
    hugging = "hf_" + pick(_ALNUM, 34)
    api_key_value = pick(_ALNUM, 32)
    return [
        PlantedSecret(
            "k8s-secret-yaml-data",
            k8s_yaml_b64,
            f"apiVersion: v1\ndata:\n  db-password: {k8s_yaml_b64}\n  username: YWRtaW4=\nkind: Secret\n"
            "metadata:\n  name: checkout-db\n  namespace: shop\ntype: Opaque\n",
        ),
        PlantedSecret(
            "k8s-secret-yaml-stringdata",
            string_data,
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  signing: {string_data}\n",
        ),
        PlantedSecret(
            "k8s-secret-json-data",
            k8s_json_b64,
            json.dumps(
                {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cache"}, "data": {"auth": k8s_json_b64}},
                indent=2,
            ),
        ),
        PlantedSecret("authorization-bearer", bearer, f"curl -H 'Authorization: Bearer {bearer}' https://api.shop"),
        PlantedSecret("authorization-basic", basic, f"GET /metrics HTTP/1.1\nAuthorization: Basic {basic}\n"),
        PlantedSecret("jwt", jwt, f"the session cookie was {jwt} (expired)"),
        PlantedSecret("aws-access-key-id", aws_id, f"[default]\naws_access_key_id = {aws_id}\n"),
        PlantedSecret("aws-secret-access-key", aws_secret, f"aws_secret_access_key = {aws_secret}\n"),
        PlantedSecret("aws-session-token", aws_session, f"AWS_SESSION_TOKEN={aws_session}"),
        PlantedSecret(
            "gcp-service-account-private-key",
            gcp_private.splitlines()[3],
            json.dumps(
                {"type": "service_account", "private_key_id": gcp_key_id, "private_key": gcp_private + "\n"}, indent=1
            ),
        ),
        PlantedSecret("gcp-private-key-id", gcp_key_id, json.dumps({"private_key_id": gcp_key_id})),
        PlantedSecret("gcp-api-key", gcp_key, f"maps call failed for key={gcp_key}"),
        PlantedSecret(
            "azure-storage-connection-string",
            azure_key,
            f"DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={azure_key};EndpointSuffix=core.windows.net",
        ),
        PlantedSecret(
            "azure-sas-token",
            azure_sig,
            f"https://shopdata.blob.core.windows.net/c/x.csv?sv=2022-11-02&ss=b&srt=o&sp=r&sig={azure_sig}",
        ),
        PlantedSecret("pem-rsa-private-key", rsa_key.splitlines()[2], f"cat /etc/tls/key.pem\n{rsa_key}\n"),
        PlantedSecret("pem-openssh-private-key", openssh_key.splitlines()[4], f"~/.ssh/id_ed25519:\n{openssh_key}"),
        PlantedSecret("pem-certificate", certificate.splitlines()[1], f"tls.crt:\n{certificate}\n"),
        PlantedSecret(
            "url-password",
            url_password,
            f"DATABASE_URL=postgres://checkout:{url_password}@db.shop.svc:5432/orders",
        ),
        PlantedSecret("env-password", env_password, f"env:\nREDIS_PASSWORD={env_password}\nREDIS_HOST=cache"),
        PlantedSecret("json-password", json_password, json.dumps({"user": "svc", "password": json_password})),
        PlantedSecret("github-ghp", ghp, f"git remote -v: https://{ghp}@github.com/shop/checkout.git"),
        PlantedSecret("github-pat", github_pat, f"GITHUB_TOKEN: {github_pat}"),
        PlantedSecret("github-gho", gho, f"oauth token {gho} for the deploy bot"),
        PlantedSecret("slack-bot-token", slack, f"slack client init with {slack}"),
        PlantedSecret("slack-webhook", slack_hook, f"POST https://hooks.slack.com/services/{slack_hook} 200"),
        PlantedSecret("stripe-live-key", stripe, f"payments config: stripe key {stripe}"),
        PlantedSecret("openai-key", openai, f"LLM fallback configured with {openai}"),
        PlantedSecret("anthropic-key", anthropic, f"x-api-key: {anthropic}"),
        PlantedSecret("sendgrid-key", sendgrid, f"mailer uses {sendgrid}"),
        PlantedSecret("twilio-api-key", twilio, f"sms provider key sid {twilio}"),
        PlantedSecret("npm-token", npm, f"//registry.npmjs.org/:_authToken={npm}"),
        PlantedSecret("pypi-token", pypi, f"[pypi]\nusername = __token__\npassword = {pypi}"),
        PlantedSecret("gitlab-pat", gitlab, f"CI uses {gitlab} to clone"),
        PlantedSecret("huggingface-token", hugging, f"model pull with {hugging}"),
        PlantedSecret("api-key-header", api_key_value, f'{{"headers": {{"X-Api-Key": "{api_key_value}"}}}}'),
    ]


def planted_text(secrets: list[PlantedSecret]) -> str:
    """One tool output carrying every planted secret, each block on its own lines."""
    return "\n\n".join(secret.text for secret in secrets)
