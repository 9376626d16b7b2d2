"""Downloads of many games: a tournament's records in the text notation as one zip, and the dataset export of
every public game (``docs/dataset.md``: the schema, versioned) as streamed JSON Lines."""

from __future__ import annotations

import json
import tempfile
import zipfile

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.http import FileResponse, StreamingHttpResponse
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from . import selectors
from .filters import GameFilter
from .records import record_text
from .serializers import GameSerializer
from .throttles import refusal

SCHEMA = "arena-games/1"  # docs/dataset.md; a change to a line's fields is a new number
CHUNK = 200  # rows read at a time
ZIP_IN_MEMORY = 8 * 2**20  # a bigger zip spills to a temporary file


def throttle(request, scope: str = "exports") -> None:
    """Count a download (a read, but a costly one) against ``exports``; a refusal is the usual 429."""
    refused = refusal(request, scope)
    if refused is not None:
        raise refused


class ExportFilter(GameFilter):
    ruleset = filters.CharFilter(field_name="match__ruleset", label="Only games played under this ruleset version, "
                                                                    "e.g. `tafl9/2026.1`.")

    class Meta(GameFilter.Meta):
        fields = ["game", "ruleset", "tournament", "bot", "created_after", "created_before"]


EXPORT_PARAMETERS = ("game", "ruleset", "tournament", "bot", "created_after", "created_before")


def dataset_jsonl(request) -> StreamingHttpResponse:
    """Every public game the filters pick, oldest first, one JSON object a line (``docs/dataset.md``)."""
    unknown = sorted(set(request.GET) - set(EXPORT_PARAMETERS))
    if unknown:
        raise ValidationError({unknown[0]: [f"unknown parameter; known: {', '.join(EXPORT_PARAMETERS)}"]})
    chosen = ExportFilter(request.GET, queryset=selectors.games_visible_to(AnonymousUser(), with_record=True)
                          .select_related("match"))
    if not chosen.is_valid():
        raise ValidationError(dict(chosen.errors))
    throttle(request)
    games = chosen.qs.order_by("id")

    def lines():
        for game in games.iterator(chunk_size=CHUNK):
            yield json.dumps(line_of(game), cls=JSONEncoder, ensure_ascii=False) + "\n"

    response = StreamingHttpResponse(lines(), content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="arena-games.jsonl"'
    return response


def line_of(game) -> dict:
    return {"schema": SCHEMA, "ruleset": game.match.ruleset, "tournament": game.match.tournament_id,
            **GameSerializer(game).data}


def tournament_records_zip(request, tournament) -> FileResponse:
    """The tournament's games the asker may see, each as ``<game id>/record.txt`` (``records.record_text``) in
    one zip, in round order. Built a chunk of games at a time into a spooled file. The caller counts the
    download against ``exports``."""
    games = (selectors.games_visible_to(request.user, with_record=True).filter(match__tournament=tournament)
             .order_by("match__round", "match_id", "number"))
    spooled = tempfile.SpooledTemporaryFile(max_size=ZIP_IN_MEMORY)
    with zipfile.ZipFile(spooled, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for game in games.iterator(chunk_size=CHUNK):
            archive.writestr(f"{game.pk}/record.txt", record_text(game))
    spooled.seek(0)
    return FileResponse(spooled, as_attachment=True, filename=f"tournament-{tournament.pk}-records.zip",
                        content_type="application/zip")


class DatasetExportView(APIView):
    """``GET /api/games/export.jsonl``: the dataset export (``docs/dataset.md``)."""

    renderer_classes = [JSONRenderer]  # the download streams itself; a refusal is JSON
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)  # a download of a media type the generated client does not know (as games.jsonl)
    def get(self, request):
        return dataset_jsonl(request)


class TournamentRecordsView(APIView):
    """``GET /api/tournaments/{id}/records.zip``: the tournament's records in the text notation."""

    renderer_classes = [JSONRenderer]
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request, pk=None):
        tournament = selectors.tournaments_all().filter(pk=pk).first()
        if tournament is None:
            raise NotFound(f"no tournament {pk}")
        throttle(request)
        return tournament_records_zip(request, tournament)
