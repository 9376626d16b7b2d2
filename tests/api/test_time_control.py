"""The time-control grammar is said once (``engines.protocol``): the API's schema pattern accepts exactly the texts
the parser reads, so a client that checks the pattern before sending is never refused for the syntax alone."""

import pytest
from django.core.exceptions import ValidationError

from api.serializers import TIME_CONTROL_CHOICE_HELP, TIME_CONTROL_PATTERN
from engines import BadSettings
from engines.protocol import TIME_CONTROL_SYNTAX, TimeControl

TEXTS = ["move:1000", "move:1", "clock:60000+500", "clock:1+0", "move:0", "clock:0+5", "move:1234567890",
         "clock:60000", "clock:60000+", "move:-5", "move:1e3", "Move:1000", "move:١٠٠٠", "clock:1+2+3", "", "move:"]


def _parses(text: str) -> bool:
    try:
        TimeControl.parse(text)
    except BadSettings:
        return False
    return True


def _matches_pattern(text: str) -> bool:
    try:
        TIME_CONTROL_PATTERN(text)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("text", TEXTS)
def test_the_api_pattern_and_the_parser_read_the_same_grammar(text):
    # The parser also refuses a zero budget or base (a bound, not the syntax): the pattern may let those by.
    zero = text in ("move:0", "clock:0+5")
    assert _matches_pattern(text) == (_parses(text) or zero)


def test_the_syntax_is_named_the_same_everywhere():
    with pytest.raises(BadSettings, match="expected move:MS or clock:BASE_MS\\+INC_MS"):
        TimeControl.parse("fast")
    assert "`move:MS`" in TIME_CONTROL_CHOICE_HELP and "`clock:BASE_MS+INC_MS`" in TIME_CONTROL_CHOICE_HELP
    assert TIME_CONTROL_SYNTAX == "move:MS or clock:BASE_MS+INC_MS"
