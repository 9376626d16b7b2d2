"""Writes: every rule of the service that changes data. Views, serializers and tasks call these."""

from .bots import delete_bot, pin_version, set_retired, set_version_active
from .matches import (
    MatchPlan,
    Report,
    begin,
    cancel_match,
    cancel_queued_matches_of,
    check_time_control,
    claim_match,
    claim_next_match,
    create_match,
    fail_match,
    finish_match,
    finish_tournament_if_done,
    heartbeat,
    requeue_expired_matches,
    requeue_match,
)
from .players import api_token, check_user_name, create_bot, create_player, rotate_token, update_bot
from .tournaments import (
    add_entrant,
    cancel_tournament,
    change_tournament,
    check_format_settings,
    check_tiebreaks,
    create_tournament,
    remove_entrant,
    resume_tournament,
    start_tournament,
)
from .uploads import (
    claim_smoke_test,
    set_version_disabled,
    smoke_test_version,
    storage_quota,
    storage_used,
    upload_version,
    validate_upload,
)
from .version_tests import forecast_version_test, previous_version, request_version_test, stop_version_test

__all__ = [
    "Report", "add_entrant", "delete_bot", "pin_version", "set_retired", "set_version_active",
    "api_token", "cancel_match", "cancel_queued_matches_of", "cancel_tournament",
    "check_time_control", "claim_match", "claim_next_match", "claim_smoke_test",
    "check_user_name", "create_bot", "create_match", "create_player", "create_tournament",
    "fail_match", "finish_match", "finish_tournament_if_done", "heartbeat",
    "remove_entrant", "requeue_expired_matches", "requeue_match", "resume_tournament",
    "set_version_disabled", "smoke_test_version", "start_tournament", "storage_quota", "storage_used", "update_bot",
    "upload_version",
    "validate_upload",
]
__all__ += ["forecast_version_test", "previous_version", "request_version_test", "stop_version_test"]
__all__ += ["change_tournament", "check_format_settings", "check_tiebreaks"]
__all__ += ["rotate_token"]
__all__ += ["MatchPlan", "begin"]
