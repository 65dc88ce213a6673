"""Settings, read from the environment (see .env.example) with defaults that run locally."""

import os
import sys
from pathlib import Path

import environ
from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.core.checks.security.base import (SECRET_KEY_INSECURE_PREFIX, SECRET_KEY_MIN_LENGTH,
                                              SECRET_KEY_MIN_UNIQUE_CHARACTERS)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=True)
# Development runs on a key everyone can read; with DEBUG off the portal refuses to start without a strong key of
# its own (Django's own measure of one, security.W009, which `check --deploy` only warns about), in one line: the
# process stops here, before a traceback (gunicorn.conf.py reads these settings before it starts a worker).
DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-change-me"
SECRET_KEY = env("SECRET_KEY", default="") or (DEVELOPMENT_SECRET_KEY if DEBUG else "")
if not DEBUG and (SECRET_KEY == DEVELOPMENT_SECRET_KEY or len(SECRET_KEY) < SECRET_KEY_MIN_LENGTH
                  or len(set(SECRET_KEY)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
                  or SECRET_KEY.startswith(SECRET_KEY_INSECURE_PREFIX)):
    sys.exit(f"Refusing to start: with DEBUG=false, set SECRET_KEY to a random value of your own, at least "
             f"{SECRET_KEY_MIN_LENGTH} characters ({'it is not set' if not SECRET_KEY else 'this one is weak'}): "
             "python -c 'import secrets; print(secrets.token_urlsafe(50))'")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# Production (DEBUG off): HTTPS only. Behind a proxy that terminates TLS, set BEHIND_TLS_PROXY so the
# proxy's X-Forwarded-Proto tells Django the request was secure.
if env.bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)

INSTALLED_APPS = [
    "wiring.apps.PortalAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "portal.apps.PortalConfig",
    "memory",
    "knowledge",
    "governance",
    "review",
    "oauth2_provider",
    "agents_mcp",
    "wiring.apps.WiringConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "portal.middleware.NotFoundAnswer",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "portal.middleware.NulCharacterRefusal",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "portal.middleware.ReaderTimeZone",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "review.middleware.AgentUsageMiddleware",
]

ROOT_URLCONF = "wiring.urls"
WSGI_APPLICATION = "wiring.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'portal.sqlite3'}")}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # A fresh clone has no var/ until Neo4j's launcher makes one, and it makes none for a Neo4j that already answers.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # A file, not memory, so that a worker process started by a test sees the test database; one
    # per test run, so that two runs side by side do not share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-portal-{os.getpid()}.sqlite3")}
    # A deleted row's bytes are overwritten with zeros at once, not left in a free page (docs/erasure.md).
    DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = "PRAGMA secure_delete = ON"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"  # until the reader's browser has said its own (portal.middleware.ReaderTimeZone)
USE_I18N = True
USE_TZ = True
# One date style on every page: "12 Nov 2026", "12 Nov 2026, 21:15" (portal/formats/en/formats.py).
FORMAT_MODULE_PATH = ["portal.formats"]

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# The app server serves the collected files (collectstatic), compressed; no web server needed. In production
# their names carry a hash of their content, so WhiteNoise lets browsers keep them for good.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage" if DEBUG
                    else "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Pages load scripts, styles, images and fonts from the portal only, and no other site may frame them
# (django-csp); a QR code for two-factor sign-in is a data: image.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF], "script-src": [SELF], "style-src": [SELF], "img-src": [SELF, "data:"],
        "font-src": [SELF], "connect-src": [SELF], "object-src": [NONE], "base-uri": [SELF],
        "form-action": [SELF], "frame-ancestors": [NONE],
    },
}
# Up to 100 messages of 32,000 characters in one append.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
MEDIA_URL = "media/"
MEDIA_ROOT = env.path("MEDIA_ROOT", default=VAR_DIR / "media")

# Sign-in: django-allauth, email as the login, verification mail, TOTP as second factor.
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "governance:overview"
ACCOUNT_ADAPTER = "wiring.accounts.AccountAdapter"  # staff land on the admin index instead
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env("ACCOUNT_EMAIL_VERIFICATION", default="mandatory")
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_USER_MODEL_USERNAME_FIELD = "username"
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "Memory portal"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Memory portal] "
# Where sign-up and password mails go: the console (runserver's output) unless set, e.g. smtp+tls://user:pass@host:587.
EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="portal@localhost")

# Stores.
NEO4J_URL = env("NEO4J_URL", default="bolt://neo4j:neo4j@127.0.0.1:7687")
# A pooled Neo4j connection idle this many seconds is checked before it is used (a restart leaves them stale).
NEO4J_LIVENESS_CHECK_SECONDS = env.float("NEO4J_LIVENESS_CHECK_SECONDS", default=1.0)
REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "portal",
    }
}
# Tokens, grants, consent and retention are cached per process, checked against a version in Redis on
# every request; this bounds an entry's age when a change could not reach Redis (memory.access_state).
ACCESS_CACHE_SECONDS = env.int("ACCESS_CACHE_SECONDS", default=60)
# Where Neo4j searches inside the vector index (2026.01+), message recall still scans every message of a
# person with at most this many: their few index nodes make the filtered search the slower one (the
# context's p50 83 ms through the index against 37 ms scanned at 1,000 messages, docs/benchmarks-log.md).
RECALL_EXACT_SCAN_MAX = env.int("RECALL_EXACT_SCAN_MAX", default=2000)

# Celery: Redis as broker and result store, in a database of its own (REDIS_URL holds caches and locks).
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/1")
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker that is down costs a request at most a second, not the 19 s of kombu's and the result
# store's default retries: what could not be queued stays in its outbox for the Beat task below.
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2,
                                   "socket_connect_timeout": 1}
# Extraction has a queue of its own so that exports and erasures (maintenance) never wait behind it.
CELERY_TASK_ROUTES = {
    "memory.tasks.message_extract": {"queue": "extraction"},
    "governance.tasks.*": {"queue": "maintenance"},
}
# The disk step (docs/erasure.md) runs daily at this hour (UTC): the store compaction stops Neo4j meanwhile.
DISK_ERASE_HOUR = env.int("DISK_ERASE_HOUR", default=3)
CELERY_BEAT_SCHEDULE = {
    "memory-access-queue-drain": {"task": "memory.tasks.access_queue_drain_task",
                                  "schedule": env.float("ACCESS_DRAIN_SECONDS", default=5.0)},
    "governance-exports-expire": {"task": "governance.tasks.exports_expire_task", "schedule": 15 * 60},
    "governance-retention-run": {"task": "governance.tasks.retention_run_task", "schedule": 60 * 60},
    "portal-work-redispatch": {"task": "portal.tasks.work_redispatch_task", "schedule": 60},
    "governance-disk-erase": {"task": "governance.tasks.disk_erase_task",
                              "schedule": crontab(minute=0, hour=DISK_ERASE_HOUR)},
}
# The logs the byte-level residue scan reads (globs): where the web and worker processes write theirs.
LOG_FILES = env.list("LOG_FILES", default=[str(VAR_DIR / "*.log"), str(VAR_DIR / "celery" / "*.log")])
# Every erasure appends a line (the person's id as its SHA-256, the scope, when) to this file: keep it out of the
# backups, and after restoring one run `erasure_ledger_replay` to erase again whoever it brought back.
ERASURE_LEDGER = env.path("ERASURE_LEDGER", default=VAR_DIR / "erasure-ledger.jsonl")
# The switch-over from neo4j-agent-memory: while agents still write through NAM, adopt what they wrote
# every NAM_ADOPT_SECONDS, so it is owned (seen on the pages, in the API, by erasure) within a minute.
NAM_SWITCH_OVER = env.bool("NAM_SWITCH_OVER", default=False)
if NAM_SWITCH_OVER:
    CELERY_BEAT_SCHEDULE["memory-nam-adopt"] = {"task": "memory.tasks.nam_adopt_task",
                                                "schedule": env.float("NAM_ADOPT_SECONDS", default=60.0)}
# Outboxes: accepted work still waiting this long is queued again by the Beat task when it is lost (never
# queued, or no longer in its queue and not being run), and work waiting longer than WORK_STUCK_SECONDS is
# reported as stuck.
WORK_DISPATCH_DELAY_SECONDS = env.int("WORK_DISPATCH_DELAY_SECONDS", default=60)
WORK_STUCK_SECONDS = env.int("WORK_STUCK_SECONDS", default=600)
# A worker killed mid-extraction holds its message's claim this long; then a re-dispatch may run it.
EXTRACTION_CLAIM_SECONDS = env.int("EXTRACTION_CLAIM_SECONDS", default=120)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "portal.schema.PortalAutoSchema",
    "EXCEPTION_HANDLER": "portal.exceptions.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["portal.parsers.StrictJSONParser"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Memory portal API",
    "DESCRIPTION": "Context and memory for AI agents, governed by the people it is about.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # A deep link puts a link inside each operation's toggle button, which screen readers cannot reach.
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    # Entity types appear in the item API and the correction input; one enum names them in both.
    "ENUM_NAME_OVERRIDES": {"EntityTypeEnum": "memory.graph.ENTITY_TYPES"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"query_strings_out": {"()": "portal.logs.QueryStringsOut"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"neo4j": {"level": "WARNING"}, "neo4j.notifications": {"level": "ERROR"},
                # Request lines without their query strings: a search's carries the person's words.
                "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False,
                                  "filters": ["query_strings_out"]},
                # The MCP SDK's session manager runs once per request here (stateless): its start is no news.
                "mcp.server.streamable_http_manager": {"level": "WARNING"}},
}

# Models: OpenAI when a key is configured, otherwise local models that download nothing.
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")
OPENAI_EMBEDDING_MODEL = env("OPENAI_EMBEDDING_MODEL", default="text-embedding-3-small")
OPENAI_EMBEDDING_DIMENSIONS = env.int("OPENAI_EMBEDDING_DIMENSIONS", default=1536)
# The int8 MiniLM by default: about 1.5 times as fast per question as the float one, in the same vector space, and the
# quality gate finds no drop with it (issue 23; docs/benchmarks-log.md). "minilm" is the float one.
EMBEDDER = env("EMBEDDER", default="openai" if OPENAI_API_KEY else "minilm-int8")

# The authorization server MCP clients connect through (django-oauth-toolkit): OAuth 2.1, i.e. the
# authorization code with PKCE (S256) only, dynamic client registration open to any client (each connection
# still waits for the person's consent), tokens stored as digests. An access token is an agent token
# (agents_mcp.services.connection_token_issue), so the API and the MCP server accept it as any other.
OAUTH2_PROVIDER = {
    "SCOPES_BACKEND_CLASS": "agents_mcp.oauth.PortalScopes",
    "OAUTH2_VALIDATOR_CLASS": "agents_mcp.oauth.PortalOAuth2Validator",
    "ACCESS_TOKEN_GENERATOR": "agents_mcp.services.connection_token_issue",
    "REFRESH_TOKEN_GENERATOR": "oauthlib.oauth2.rfc6749.tokens.random_token_generator",
    "ACCESS_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_ACCESS_TOKEN_SECONDS", default=3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": env.int("OAUTH_REFRESH_TOKEN_SECONDS", default=90 * 24 * 3600),
    "PKCE_REQUIRED": True,
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_post", "client_secret_basic"],
    "OAUTH2_PROTECTED_RESOURCE_NAME": "Memory portal",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
}
# Desktop clients receive the code on a loopback http://127.0.0.1 redirect (RFC 8252), so http stays allowed.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"

# Governance.
CONSENT_POLICY_VERSION = env("CONSENT_POLICY_VERSION", default="2026-11")

# Extraction and entity resolution.
EXTRACTOR = env("EXTRACTOR", default="")  # "offline" or "openai"; empty: openai when OPENAI_API_KEY is set
OPENAI_EXTRACTION_MODEL = env("OPENAI_EXTRACTION_MODEL", default="gpt-4o-mini")
RESOLUTION_AUTO_THRESHOLD = env.float("RESOLUTION_AUTO_THRESHOLD", default=0.9)
RESOLUTION_REVIEW_THRESHOLD = env.float("RESOLUTION_REVIEW_THRESHOLD", default=0.7)
# How far in the future a message's own created_at may lie (clients' clocks drift).
MESSAGE_CLOCK_SKEW_SECONDS = env.int("MESSAGE_CLOCK_SKEW_SECONDS", default=300)
# Predicates of which a newer value closes the older one. Not an event's place (OCCURRED_AT): two events said
# alike ("the music festival") are two events, not one that moved.
SINGLE_VALUED_PREDICATES = env.list(
    "SINGLE_VALUED_PREDICATES",
    default=["EMPLOYED_BY", "RESIDES_AT", "HEADQUARTERS_AT", "SUBSIDIARY_OF", "LOCATED_AT", "OWNED_BY", "ASSIGNED_TO"],
)

# Self-service governance: exports expire; export and erasure workers run on the maintenance queue.
EXPORT_TTL_HOURS = env.int("EXPORT_TTL_HOURS", default=24)
