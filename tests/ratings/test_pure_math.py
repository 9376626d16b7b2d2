"""The rating math (``ratings.elo``, ``fit``, ``sprt``) is pure: it loads without Django and reads no settings;
the service passes the settings in (``ratings.services.rules_from_settings``)."""

import subprocess
import sys

from ratings import elo


def test_the_rating_math_loads_without_django():
    code = "import sys, ratings.elo, ratings.fit, ratings.sprt; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_elo_rules_come_from_the_settings_through_the_service(settings):
    from ratings.services import rules_from_settings

    settings.ARENA = {**settings.ARENA, "ELO_START": 1200, "ELO_K": 16}
    assert rules_from_settings() == elo.EloRules(start=1200.0, k=16)
    assert not hasattr(elo, "rules_from_settings") and not hasattr(elo, "SCORES")
