"""The credential shapes graphmem redacts: one row per documented format.

Each row is ``(kind, pattern, group, accept)``: the kind names the placeholder, ``group`` is the part
of the match that is the secret (0 for the whole match, 1+ when a key or a host must stay
readable), and ``accept`` is an optional check on that part, for shapes that prose or code can
also take. Prefixes and lengths come from the issuers' own documentation and from the public rule
sets of secret scanners (gitleaks, GitGuardian, detect-secrets); the source of each format is
recorded beside its test string in ``tests/data/redaction_outside_corpus.jsonl``.

Order matters: armoured keys and URLs first, so a later rule never sees half of a secret an earlier
rule already replaced, and the generic ``key = value`` rules last.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from graphmem.core.secret_values import is_assigned_secret, is_random_env_secret

__all__ = ["AWS_SECRET", "GENERATED_TOKEN", "PUBLIC_MATERIAL", "RULES", "Accept", "Rule"]

Accept = Callable[[re.Match[str], int], bool]
Rule = tuple[str, re.Pattern[str], int, Accept | None]

_KEYWORD = (r"(?:password|passwd|passphrase|pwd|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey"
            r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|private[_-]?key"
            r"|aws[_-]?secret[_-]?access[_-]?key)")
# quoted, or up to a space or separator; 3+ characters (an empty or 1-character value is no secret)
_VALUE = r"(\"[^\"\n]{3,}\"|'[^'\n]{3,}'|[^\s\"',;)]{3,})"
# An upper-case environment name that ends in a secret word: SECRET_TOKEN, ENCRYPTION_KEY, APP_KEY,
# SECRET_KEY_BASE, JIRA_API_TOKEN. The value filter below keeps `PRIMARY_KEY=id` and `..._KEY=${X}`.
_ENV_NAME = r"\b[A-Z][A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|KEY_BASE|AUTH)"


def _is_basic_credential(match: re.Match[str], group: int) -> bool:
    """A ``Basic`` header's value is base64 of ``user:password`` (RFC 7617); a word after "Basic" is not."""
    value = match.group(group)
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


def _has_mixed_characters(match: re.Match[str], group: int) -> bool:
    """Issued keys mix upper case, lower case and digits; ``sk-learn-pipeline-guide`` slugs do not."""
    value = match.group(group)
    return (any(c.isupper() for c in value) and any(c.islower() for c in value)
            and any(c.isdigit() for c in value))


def _prefixed(kind: str, regex: str) -> Rule:
    return (kind, re.compile(regex), 0, None)


_ARMOURED: tuple[Rule, ...] = (
    ("private-key", re.compile(
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.DOTALL), 0, None),
    # PuTTY's .ppk: the private lines follow the public ones; the whole file goes (format v2 and v3).
    ("private-key", re.compile(r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC: *[0-9a-fA-F]+|\Z)", re.DOTALL), 0, None),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0, None),
    # scheme://user:password@host: only the password goes, so the host stays searchable. The password
    # may hold `@` or `/`: it runs to the last `@` that a host name follows.
    ("url-password", re.compile(
        r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@\[\]]*:([^\s?#\[\]]{1,256})@(?=[A-Za-z0-9][A-Za-z0-9.-]*(?:[:/?#]|\s|$))"),
     1, None),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
     0, None),
    ("discord-webhook", re.compile(
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+"), 0, None),
    ("azure-sas", re.compile(r"[?&]sig=([A-Za-z0-9%+/=]{16,})"), 1, None),
    ("azure-key", re.compile(r"(?i:\b(?:AccountKey|SharedAccessKey|SharedSecretValue))=([A-Za-z0-9+/]{16,}={0,2})"),
     1, None),
)

_PREFIXED: tuple[Rule, ...] = (
    _prefixed("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"), 0, _has_mixed_characters),
    _prefixed("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}"),
    _prefixed("github-token", r"\b(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    _prefixed("gitlab-token",
              r"\b(?:gl(?:pat|rt|dt|ptt|cbt|imt|oas|soat|ffct|ft|agent)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,})"),
    _prefixed("slack-token", r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{20,})"),
    _prefixed("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    _prefixed("google-oauth", r"\b(?:GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[A-Za-z0-9_-]{20,})"),
    _prefixed("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _prefixed("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    _prefixed("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    _prefixed("discord-token", r"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"),
    _prefixed("telegram-token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b"),
    _prefixed("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    _prefixed("shopify-token", r"\bshp(?:at|ca|pa|ss|ua)_[a-fA-F0-9]{32}\b"),
    _prefixed("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
    _prefixed("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    _prefixed("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    _prefixed("mailchimp-key", r"\b[0-9a-f]{32}-us\d{1,2}\b"),
    _prefixed("mailgun-key", r"\bkey-[0-9a-f]{32}\b"),
    _prefixed("square-token", r"\b(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60,})"),
    _prefixed("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{100,}"),
    _prefixed("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    _prefixed("sentry-token", r"\bsntr[ysu]_[A-Za-z0-9_=+/-]{40,}"),
    _prefixed("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    _prefixed("newrelic-key", r"\bNR(?:AK|AA|II|JS)-[A-Za-z0-9]{19,32}\b"),
    _prefixed("grafana-token", r"\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    _prefixed("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    _prefixed("age-secret-key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
    _prefixed("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    _prefixed("doppler-token", r"\bdp\.(?:st|pt|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}"),
    _prefixed("pulumi-token", r"\bpul-[a-f0-9]{40}\b"),
    _prefixed("terraform-token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    _prefixed("artifactory-key", r"\bAKCp[A-Za-z0-9]{69}\b"),
    _prefixed("aws-access-key",
              r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b"),
)

_IN_CONTEXT: tuple[Rule, ...] = (
    ("docker-auth", re.compile(r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{8,}={0,2})\""), 1, None),
    ("basic-auth", re.compile(r"(?i:\bbasic)\s+([A-Za-z0-9+/]{8,}={0,2})"), 1, _is_basic_credential),
    ("bearer-token", re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9._~+/-]{20,}=*)"), 1, None),
    # mysql -pSECRET (no space: `-p db` prompts for the password and names the database).
    ("password", re.compile(r"\bmysql(?:dump|admin|sh)?\b[^\n]{0,200}?\s-p([^\s-]\S{2,})"), 1, None),
    ("password", re.compile(r"\bsshpass\s+-p\s*(\S{3,})"), 1, None),
    ("password", re.compile(r"\bcurl\b[^\n]{0,200}?\s(?:-u|--user)\s+[^\s:]+:(\S{3,})"), 1, None),
    ("password", re.compile(
        r"(?<![\w-])--(?:password|passwd|pass|pwd|token|api-key|secret|client-secret)(?:=|\s+)([\"']?)([^\s\"']{3,})\1"),
     2, is_assigned_secret),
    ("password", re.compile(rf"{_ENV_NAME}\s*=\s*{_VALUE}"), 1, is_random_env_secret),
    # The key may end an identifier (DB_PASSWORD, PGPASSWORD, MY_API_KEY).
    ("password", re.compile(rf"(?i:\b[A-Za-z0-9_]*?{_KEYWORD})[\"']?\s*[:=]\s*{_VALUE}"), 1, is_assigned_secret),
)

RULES: tuple[Rule, ...] = _ARMOURED + _PREFIXED + _IN_CONTEXT

# An AWS secret access key is 40 characters of base64 with no prefix. A bare 40-character token is
# only taken when looks_like_aws_secret agrees (secret_values.py): a git SHA-1 (40 lower hex), an
# upper-case hex digest or a camelCase identifier never does.
AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")

# Any other long token: taken when looks_generated agrees. `/` and `+` end a token, so a URL path is
# judged segment by segment; a trailing `.` or `-` (end of a sentence, a slug) is not part of it.
GENERATED_TOKEN = re.compile(r"(?<![A-Za-z0-9_.=-])[A-Za-z0-9_.=-]{23,}[A-Za-z0-9=](?![A-Za-z0-9_=-])")
# Public material that is random by nature and no secret: certificates, public keys, SSH public keys
# and data URIs. The generated-token rule skips what lies inside these.
PUBLIC_MATERIAL = re.compile(
    r"-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|CERTIFICATE REQUEST|PGP SIGNATURE)-----"
    r".*?(?:-----END [A-Z ]+-----|\Z)"
    r"|\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com) +[A-Za-z0-9+/=]+"
    r"|\bdata:[a-z]+/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]+"
    r"|\bpk_(?:live|test)_[A-Za-z0-9]+", re.DOTALL)  # Stripe publishable keys are public by design
