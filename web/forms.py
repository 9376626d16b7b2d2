"""The site's forms. They only shape the input: every rule is checked by the same services the API calls,
and ``run_service`` puts a service's refusal beside the field it names."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import transaction
from django.forms.utils import ErrorDict

from api.throttles import refusal
from engines import GAME_IDS
from engines.protocol import TIME_CONTROL_SYNTAX
from knobs import arena
from tournaments.models import BOT_NAME_RULE, DEFAULT_TIEBREAKS, TIEBREAKS

from .selectors import GAME_NAMES

GAME_FIELD_CHOICES = [(game_id, GAME_NAMES[game_id]) for game_id in GAME_IDS]


def suite_choices(suites, empty: str):
    """Choices of opening suites, read once, when the form is first shown or checked (a callable: a page that never
    shows the field reads none)."""
    read: list = []

    def choices():
        if not read:
            read.append([("", empty)] + [(suite.pk, f"{suite} ({suite.active} openings, {suite.plies} plies deep)")
                                         for suite in suites()])
        return read[0]

    return choices


def run_service(form: forms.Form, call):
    """``call()`` in one transaction; its ValidationError becomes the form's errors (by field, or the form's
    own when the field is not on the form), nothing is changed, and None is returned."""
    try:
        with transaction.atomic():
            return call()
    except ValidationError as error:
        messages = error.message_dict if hasattr(error, "error_dict") else {None: error.messages}
        for field, texts in messages.items():
            form.add_error(field if field in form.fields else None, texts)
        return None


def throttled(request, form: forms.Form, scope: str) -> bool:
    """Counts this submission in the API's throttle ``scope`` (api.throttles: one lock for every door); when
    it is over the limit, puts the refusal (the limit and the use) on the form and returns True: the view
    then does nothing and answers 429."""
    refused = refusal(request, scope)
    if refused is None:
        return False
    # The refusal is the form's only error and the form is not checked (checking the login form would be a login
    # attempt): is_valid() is False from here on.
    form._errors, form.cleaned_data = ErrorDict(), {}
    form.add_error(None, str(refused.detail))
    return True


class RegisterForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name",
                               widget=forms.TextInput(attrs={"autocomplete": "username"}))
    email = forms.EmailField(required=False, label="E-mail (optional)")
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))


class BotForm(forms.Form):
    game = forms.ChoiceField(choices=GAME_FIELD_CHOICES)
    name = forms.CharField(help_text=BOT_NAME_RULE)  # the service checks it, as for the API
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    is_public = forms.BooleanField(required=False, initial=True, label="Public (others see it and can play it)")
    open_to_tournaments = forms.BooleanField(required=False, label="Other players may enter it in their tournaments")


class UploadForm(forms.Form):
    file = forms.FileField(label="Bot file", help_text="A .py file, or a .zip / .tar.gz with a bot.toml",
                           widget=forms.ClearableFileInput(attrs={"accept": ".py,.zip,.tar.gz,.tgz"}))


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=100)
    game = forms.ChoiceField(choices=GAME_FIELD_CHOICES)
    time_control = forms.CharField(max_length=40, required=False,
                                   help_text=f"{TIME_CONTROL_SYNTAX}; empty for the default")
    rounds = forms.IntegerField(required=False, min_value=1, label="Rounds (Swiss)",
                                help_text="A Swiss needs more entrants than rounds")
    bye_points = forms.TypedChoiceField(choices=[("1.0", "1"), ("0.5", "½"), ("0.0", "0")], coerce=float,
                                        empty_value=1.0, required=False, initial="1.0", label="A bye's points (Swiss)")
    late_entry_points = forms.TypedChoiceField(
        choices=[("0.0", "0 (not paired)"), ("0.5", "½"), ("1.0", "1")], coerce=float, empty_value=0.0,
        required=False, initial="0.0", label="A late entrant's missed rounds (Swiss)",
        help_text="The points of each round played before it entered")
    games_per_pairing = forms.IntegerField(initial=2, label="Games per pairing",
                                           help_text="Swiss, gauntlet and knockout pairings are colour-swapped "
                                                     "mini-matches: even")
    double_round = forms.BooleanField(required=False, initial=True, label="Double round (colours swapped)",
                                      help_text="Round robin only")
    tiebreaks = forms.CharField(
        max_length=100, required=False, initial=DEFAULT_TIEBREAKS.replace(",", ", "), label="Tie-breaks",
        help_text="After score, in order, from: " + ", ".join(TIEBREAKS) + " (FIDE's recommended order by default)")
    official = forms.BooleanField(required=False, label="Official (rated: its games move the leaderboard)")
    format = forms.ChoiceField(choices=[("round_robin", "Round robin"), ("swiss", "Swiss (FIDE Dutch system)"),
                                        ("gauntlet", "Gauntlet: one champion "
                                        "against the field (name it when you add it)"),
                                        ("knockout", "Knockout: a bracket, byes to the top seeds")],
                               initial="round_robin", required=False)
    seeding = forms.ChoiceField(choices=[("rating", "by fitted rating"), ("listed", "in the order added")],
                                initial="rating", label="Seeding (knockout, Swiss)", required=False)
    tiebreak_pairs = forms.IntegerField(initial=2, min_value=0, max_value=10, label="Knockout tie-break pairs",
                                        required=False,
                                        help_text="Played while a mini-match is level; still level, the higher "
                                                  "seed advances")
    opening_suite = forms.TypedChoiceField(
        coerce=int, empty_value=None, required=False, label="Opening suite",
        help_text="Of the tournament's game: each pairing plays every opening twice, colours swapped (even games "
                  "per pairing)")

    def __init__(self, *args, user=None, suites=list, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["opening_suite"].choices = suite_choices(suites, "none: the initial position")
        self.fields["time_control"].widget.attrs["placeholder"] = arena.DEFAULT_TIME_CONTROL
        if not (user is not None and user.is_staff):
            del self.fields["official"]  # only staff make a tournament official; a player's is unrated

    # Left out (an older form, a script): a round robin, seeded by rating, two tie-break pairs.
    def clean_format(self):
        return self.cleaned_data["format"] or "round_robin"

    def clean_seeding(self):
        return self.cleaned_data["seeding"] or "rating"

    def clean_tiebreak_pairs(self):
        value = self.cleaned_data["tiebreak_pairs"]
        return 2 if value is None else value

    def clean_tiebreaks(self):
        text = self.cleaned_data["tiebreaks"].strip()
        # Empty: the default order. The service checks the names (and says which one it does not know).
        return [name.strip() for name in text.split(",")] if text else None


class EntrantForm(forms.Form):
    version = forms.TypedChoiceField(coerce=int, label="Bot version")

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["version"].choices = [(v.pk, f"{v.bot.name} v{v.number} ({v.bot.owner.username})")
                                          for v in choices]


class WithdrawForm(forms.Form):
    """A running Swiss's organiser withdraws an entrant (the API's DELETE of the entrant, its service)."""

    version = forms.IntegerField(min_value=1, max_value=2**63 - 1, label="Bot version")


class SprtForm(forms.Form):
    """An SPRT of a new version against the one before it, at the API's default error rates (0.05 each)."""

    version = forms.TypedChoiceField(coerce=int, label="New version")
    elo0 = forms.FloatField(initial=0.0, label="Elo H0", help_text="No better than this")
    elo1 = forms.FloatField(initial=10.0, label="Elo H1", help_text="At least this much better")
    elo_model = forms.ChoiceField(
        choices=[("logistic", "Logistic Elo (of the score)"),
                 ("normalized", "Normalized Elo (fishtest's nElo: the same evidence whatever the draw rate)")],
        initial="logistic", required=False, label="Elo of the bounds")  # left out: logistic, as in the API
    max_pairs = forms.IntegerField(required=False, label="Pair cap",
                                   help_text="Ends inconclusive after this many pairs (empty: the site's cap)")
    gate = forms.BooleanField(required=False, label="Put it on the ladder only if it passes")
    opening_suite = forms.TypedChoiceField(coerce=int, empty_value=None, required=False, label="Opening suite",
                                           help_text="Each pair of games starts from one of its openings")

    def __init__(self, *args, choices=(), suites=list, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["version"].choices = [(v.pk, f"v{v.number}") for v in choices]
        self.fields["opening_suite"].choices = suite_choices(suites, "the ladder's, if the game has one")


class ChallengeForm(forms.Form):
    """A visitor's challenge of the bot whose page this is: one of their own ready versions of its game, as the
    API's POST /api/matches/ takes it (the service checks the bounds, the queue cap and the worker-time budget)."""

    version = forms.TypedChoiceField(coerce=int, label="Your bot version")
    games_per_match = forms.IntegerField(required=False, min_value=1, label="Games",
                                         help_text="Colours alternate; empty for the server's default")
    time_control = forms.CharField(max_length=40, required=False,
                                   help_text=f"{TIME_CONTROL_SYNTAX}; empty for the default")

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["version"].choices = [(v.pk, f"{v.bot.name} v{v.number}") for v in choices]
        self.fields["time_control"].widget.attrs["placeholder"] = arena.DEFAULT_TIME_CONTROL


class OwnChallengeForm(forms.Form):
    """The owner's challenge from their own bot's page: one of its ready versions against another bot, named by
    its number (the page suggests the bots it has met, from what it already shows: no query more)."""

    version = forms.TypedChoiceField(coerce=int, label="Your version")
    opponent = forms.IntegerField(min_value=1, max_value=2**63 - 1, label="Opponent bot",
                                  help_text="The bot's number (its page is /bots/NUMBER/); it plays its pinned or "
                                            "newest ready version")
    games_per_match = ChallengeForm.base_fields["games_per_match"]
    time_control = ChallengeForm.base_fields["time_control"]

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["version"].choices = [(v.pk, f"v{v.number}") for v in choices]
        self.fields["opponent"].widget.attrs["list"] = "opponent-bots"
        self.fields["time_control"].widget.attrs["placeholder"] = arena.DEFAULT_TIME_CONTROL
