"""Settings for the arena, every one from the environment with a default that works on a laptop."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from knobs import KNOBS

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


def env_number(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from None


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_path(name: str, default: Path) -> Path:
    return Path(os.environ.get(name, default))


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else [])
if not DEBUG and (not ALLOWED_HOSTS or "*" in ALLOWED_HOSTS):
    raise ImproperlyConfigured("ALLOWED_HOSTS must list the served host names explicitly when DEBUG is off")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# How many reverse proxies of ours stand in front of the web process. Throttles and the login lockout count
# by the client address each request came from: REMOTE_ADDR with none (X-Forwarded-For is then the client's
# to invent, and ignored), else the X-Forwarded-For entry that the outermost of our proxies appended.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXY_COUNT must be 0 or more, got {TRUSTED_PROXY_COUNT}")

# HTTPS. With DEBUG off every default is the one `manage.py check --deploy` asks for; a TLS proxy in front
# must then say X-Forwarded-Proto (trusted only from our proxies, so only with TRUSTED_PROXY_COUNT > 0).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
if TRUSTED_PROXY_COUNT:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc served by us: the docs work offline
    "axes",
    "tournaments",
    "ratings",
    "workers",
    "api",  # the REST API (its ready() keeps the public pages' cache in step with the Bot table)
    "web",  # the site's pages
    "ops",  # the admin, its dashboard and the manage.py commands
    "hooks",  # owners' webhooks, their delivery log and the events feed
]

MIDDLEWARE = [
    "config.middleware.BodyLimitMiddleware",  # first: a body over REQUEST_MAX_BYTES is refused unread (413)
    "config.middleware.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files from the app server itself (gunicorn too)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.ApiNotFoundMiddleware",  # an /api/ 404 is JSON, DEBUG's page included
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # a locked-out /admin/login/ answers 429
]

# Every authenticate(request, ...) goes through the lockout first: the admin login and POST /api/auth/token/.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'arena.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # Workers and the web process share the file: wait for a lock instead of failing at once, and take
    # the write lock when a transaction begins, since a transaction that reads first and then writes
    # fails at once ("database is locked") when another holds the lock, whatever the timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).update(timeout=30, transaction_mode="IMMEDIATE")
    DATABASES["default"].setdefault("TEST", {})["NAME"] = None
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # libpq waits for ever by default: for a server that accepts and never answers, and for a peer cut off
    # by the network (not closed) until the kernel gives up, hours later. A worker then holds its match
    # past the lease. Bound the connect, and let keepalives find a dead peer within about a minute.
    # Options given in DATABASE_URL's query string win.
    DATABASES["default"]["OPTIONS"] = {
        "connect_timeout": env_int("DATABASE_CONNECT_TIMEOUT", 10), "keepalives": 1, "keepalives_idle": 30,
        "keepalives_interval": 10, "keepalives_count": 3, **DATABASES["default"].get("OPTIONS", {})}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOGIN_URL = "web:login"
LOGIN_REDIRECT_URL = "web:home"
LOGOUT_REDIRECT_URL = "web:home"

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed copies made by collectstatic; DEBUG serves the apps' files as they are.
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG
                    else "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG  # a laptop needs no collectstatic
if DEBUG:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
MEDIA_URL = "media/"
# Uploaded bot files live here (never served publicly by Django).
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

# --- REST framework ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ArenaTokenAuthentication",  # DRF's, telling a Bearer header the scheme is Token
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "api.filters.StrictOrdering",
    ],
    # JSON bodies only (the upload takes multipart, on its own view): one request format to document and fuzz,
    # where a form would read an empty field as "left out" and a JSON body as an empty string.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "api.schema.ArenaAutoSchema",
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.ScopedRateThrottle"],
    # One set for the API and the site's forms (api.throttles): per account when signed in, else per address.
    "DEFAULT_THROTTLE_RATES": {
        "uploads": os.environ.get("THROTTLE_UPLOADS", "30/hour"),
        "writes": os.environ.get("THROTTLE_WRITES", "600/hour"),
        "registration": os.environ.get("THROTTLE_REGISTRATION", "10/hour"),
        "login": os.environ.get("THROTTLE_LOGIN", os.environ.get("THROTTLE_AUTH", "60/hour")),
        "token": os.environ.get("THROTTLE_TOKEN", os.environ.get("THROTTLE_AUTH", "60/hour")),
        "tournaments": os.environ.get("THROTTLE_TOURNAMENTS", "20/hour"),
        "challenges": os.environ.get("THROTTLE_CHALLENGES", "120/hour"),
        "sprt": os.environ.get("THROTTLE_SPRT", "30/hour"),
        "live": os.environ.get("THROTTLE_LIVE", "120/minute"),  # the live viewer polls every second or two
        "exports": os.environ.get("THROTTLE_EXPORTS", "30/hour"),  # whole-table downloads (api.exports)
        "webhooks": os.environ.get("THROTTLE_WEBHOOKS", "30/hour"),  # a new endpoint, a test delivery, a feed
    },
    "EXCEPTION_HANDLER": "api.exceptions.json_exception_handler",
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,  # None (DRF's default) would count by the whole X-Forwarded-For
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Tabula Arena API",
    "DESCRIPTION": "Bots, versions, matches, tournaments and ratings for Tafl 9x9, Fidchell and Altai Shatra.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get their own components (no read-only fields, non-blank strings have minLength 1), so
    # what the schema allows a client to send is what the API accepts.
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "BotVersionStatusEnum": "tournaments.models.BotVersion.Status",
        "MatchStatusEnum": "tournaments.models.Match.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "TiebreakEnum": "tournaments.models.TIEBREAKS",
        "TournamentFormatEnum": "tournaments.models.Tournament.Format",
        "SeedingEnum": "tournaments.models.SEEDINGS",
    },
}

# Redis when CACHE_URL is set (shared by every web process: throttles, the leaderboard, game records),
# this process's memory otherwise.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": os.environ["CACHE_URL"],
                      "KEY_PREFIX": "arena"}
          if os.environ.get("CACHE_URL") else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- The arena's own rules -------------------------------------------------------------------
# Each declared once in knobs (its variable, type, default, range and description); read as ``knobs.arena.X``.
ENV_READERS_BY_KIND = {bool: env_bool, int: env_int, float: env_number, str: env_str, Path: env_path}


def arena_from_environment() -> dict:
    """settings.ARENA: each knob from its ARENA_* variable, or its default (which may follow from those before)."""
    known: dict = {"VAR_DIR": VAR_DIR}
    for knob in KNOBS:
        default = knob.default_for(known)
        known[knob.name] = ENV_READERS_BY_KIND[knob.kind](knob.variable, default) if knob.environment else default
    return {knob.name: known[knob.name] for knob in KNOBS}


ARENA = arena_from_environment()

# --- Requests -------------------------------------------------------------------------------------
# The largest request body accepted anywhere, checked from its Content-Length before anything reads it
# (config.middleware.BodyLimitMiddleware, 413): the largest upload, with room for the multipart form around it.
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", ARENA["UPLOAD_MAX_BYTES"] + 64 * 1024)
# A body within that bound is parsed in memory, never spooled to disk: the CSRF check parses an anonymous
# multipart POST (to look for its token) before refusing it, and a stranger's refused body must not touch the disk.
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES
# Every response's policy: scripts, styles, images and fonts from the site itself, nothing inline, no frames
# (config.middleware.ContentSecurityPolicyMiddleware). Empty turns it off.
CONTENT_SECURITY_POLICY = os.environ.get("CONTENT_SECURITY_POLICY", "; ".join([
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
    "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"]))
# Pages of libraries that need inline code, by address prefix (the first that matches): the API's Swagger UI and
# ReDoc (drf-spectacular's templates start themselves with an inline script and style), and the rest of the
# browsable API (DRF's templates and their Bootstrap set inline styles, never inline scripts). Still nothing
# from another site.
_LIBRARY_PAGES = ["default-src 'self'", "img-src 'self' data:", "object-src 'none'", "base-uri 'self'",
                  "frame-ancestors 'none'"]
CONTENT_SECURITY_POLICY_BY_PATH = {
    "/api/docs/": "; ".join([*_LIBRARY_PAGES, "script-src 'self' 'unsafe-inline'",
                             "style-src 'self' 'unsafe-inline'", "worker-src 'self' blob:"]),
    "/api/redoc/": "; ".join([*_LIBRARY_PAGES, "script-src 'self' 'unsafe-inline'",
                              "style-src 'self' 'unsafe-inline'", "worker-src 'self' blob:"]),
    "/api/": "; ".join([*_LIBRARY_PAGES, "script-src 'self'", "style-src 'self' 'unsafe-inline'",
                        "form-action 'self'"]),
}

# --- Celery ---------------------------------------------------------------------------------
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("out", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"  # kombu's, but a message is never read half-written
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "out"),
        "data_folder_out": str(BROKER_DIR / "out"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),  # not ./control in whatever directory we run from
        "store_processed": False,
        # An idle worker looks for a message this often (kombu's default is every second): a match created while
        # a worker waits is claimed within about 10 ms at the median (benchmarks/throughput.py), for a hundred
        # listings a second of a folder that is empty when idle: 1.5% of a core per idle worker, measured.
        "polling_interval": 0.01,
    }
else:
    # Redis hands an unacknowledged message to a second worker after the visibility timeout: keep it an hour
    # above the longest a wake-up's task may run: the longest match, claimed up to CLAIM_AGAIN_SECONDS after the
    # wake-up (play/limits.py, visibility_timeout; celery #7651).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": max(
        env_int("CELERY_VISIBILITY_TIMEOUT", 4 * 3600),
        ARENA["MAX_MATCH_SECONDS"] + ARENA["CLAIM_AGAIN_SECONDS"] + 3600)}
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TIMEZONE = TIME_ZONE
# What makes a lost or repeated message harmless, fixed here rather than left to the environment: JSON only
# (a pickle message could run code), late acknowledgement with rejection on worker loss (a crashed worker's
# message goes back to the queue), one message prefetched at a time (a long match does not hold a second one
# hostage). The database stays the source of truth: a message only says "there is work".
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_EVENT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = False
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # keep reconnecting to a restarted broker, not 100 tries
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Wake-ups for matches wait in "celery"; the periodic housekeeping and the smoke tests' wake-ups have their own
# queue so that a long backlog of matches never delays them. Workers consume both; the quick start adds a
# process for the housekeeping queue alone (workers.playing says why). Each queue has its own exchange and
# key: a shared key would copy every message into both.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = (Queue("celery", Exchange("celery"), routing_key="celery"),
                      Queue("arena.control", Exchange("arena.control"), routing_key="arena.control"),
                      Queue("arena.hooks", Exchange("arena.hooks"), routing_key="arena.hooks"))
CELERY_TASK_ROUTES = {name: {"queue": "arena.control"} for name in (
    "workers.dispatch", "workers.scavenge", "workers.schedule_ladder", "workers.smoke_test", "ratings.fit",
    "workers.smoke_next", "ratings.refit")}
# Webhook deliveries wait on other people's servers (up to WEBHOOK_TIMEOUT_SECONDS a try): a queue of their own,
# which the match workers leave alone (`-X arena.hooks`; the quick start's control process and compose's
# `hooks` service consume it). So does the fan-out that makes a notice's deliveries (a match worker only writes the
# notice: docs/webhooks.md).
CELERY_TASK_ROUTES.update({name: {"queue": "arena.hooks"} for name in ("hooks.deliver", "hooks.fan_out")})
CELERY_BEAT_SCHEDULE = {
    "scavenge-expired-leases": {"task": "workers.scavenge", "schedule": ARENA["SCAVENGE_SECONDS"]},
    "dispatch-queued-matches": {"task": "workers.dispatch", "schedule": ARENA["DISPATCH_SECONDS"]},
    "schedule-ranked-ladder": {"task": "workers.schedule_ladder", "schedule": ARENA["SCHEDULE_SECONDS"]},
    "fit-ratings": {"task": "ratings.fit", "schedule": float(ARENA["RATING_FIT_SECONDS"])},
}

# --- Failed logins (django-axes) ----------------------------------------------------------------
# LOGIN_FAILURE_LIMIT failed logins lock an account for the address they came from, and LOGIN_FAILURE_LIMIT
# failures of any accounts lock the address, for LOGIN_LOCKOUT_MINUTES (a failure during the lockout starts it
# again); the right password from the locked address is refused meanwhile, from any other it is accepted.
# `manage.py axes_reset_ip ADDRESS` lifts an address's lockout early.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
# Counted per (account, address) and per address, never per account alone: failures from elsewhere must not
# lock the owner out from their own address (which an account count would let anyone do to anyone, the
# admin included). An address that guesses at many accounts is locked by the second count.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_CLIENT_IP_CALLABLE = "api.throttles.client_address"  # the throttles' address, one rule
# A success must not wipe the counts: it would clear every count of its address, the victim's included.
AXES_RESET_ON_SUCCESS = False
AXES_DISABLE_ACCESS_LOG = True  # keep failures only, not a row per successful login
AXES_HTTP_RESPONSE_CODE = 429
AXES_LOCKOUT_CALLABLE = "web.views.login_locked_out"  # the same words on the site, the API and the admin

def _check_match_bounds() -> None:
    from tournaments.bounds import settings_problems  # lazy: Django-free, read only once ARENA is built

    problems = settings_problems(ARENA)
    if problems:
        raise ImproperlyConfigured("; ".join(problems))


_check_match_bounds()

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
