"""The API's doors to one's own webhooks (``/api/webhooks/``: others' answer 404), their delivery logs, a test
delivery, and the events feed (``/api/events/stream/``)."""

from __future__ import annotations

from django.http import JsonResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from hooks import services
from hooks.models import Endpoint

from . import feed, streaming
from .pagination import SmallPages
from .queries import KnownQueryParameters
from .schema import refused_when
from .serializers import ErrorSerializer
from .throttles import ArenaScopedThrottle, refusal
from .webhook_serializers import (
    CreatedWebhookSerializer,
    DeliverySerializer,
    WebhookSerializer,
    WebhookUpdateSerializer,
)

ID_REGEX = "[0-9]{1,18}"
URL_RULES = ("the URL is not https:// (or http:// where the server allows it), its host does not resolve or "
             "resolves to a loopback, private or otherwise non-public address, or you have the most webhooks a "
             "player may have")


@extend_schema_view(
    list=extend_schema(summary="Your webhooks"),
    retrieve=extend_schema(summary="One of your webhooks"),
    create=extend_schema(summary="Register a webhook", request=WebhookSerializer,
                         responses={201: CreatedWebhookSerializer, 400: refused_when(URL_RULES)}),
    partial_update=extend_schema(summary="Pause or resume a webhook", request=WebhookUpdateSerializer,
                                 responses=WebhookSerializer),
    destroy=extend_schema(summary="Remove a webhook (its delivery log with it)"),
)
class EndpointViewSet(KnownQueryParameters, mixins.CreateModelMixin, mixins.UpdateModelMixin, mixins.DestroyModelMixin,
                      viewsets.ReadOnlyModelViewSet):
    """Your webhook endpoints: the events about your bots (a version ready or rejected, a match finished, an
    SPRT verdict, a tournament finished) are POSTed to each active one, signed (docs/webhooks.md)."""

    serializer_class = WebhookSerializer
    queryset = Endpoint.objects.none()  # for the schema's model; get_queryset gives one's own
    permission_classes = [IsAuthenticated]
    throttle_classes = [ArenaScopedThrottle]
    throttle_scope = "writes"
    lookup_value_regex = ID_REGEX
    pagination_class = SmallPages
    filter_backends = []  # newest first, no filter: a player has a handful of webhooks
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_throttles(self):
        # making one, or a test delivery, costs someone else's server a request: their own scope
        self.throttle_scope = "webhooks" if self.action in ("create", "ping") else "writes"
        return super().get_throttles()

    def get_queryset(self):
        return services.endpoints_of(self.request.user)

    def get_serializer_class(self):
        if self.action == "partial_update":
            return WebhookUpdateSerializer
        if self.action == "deliveries":
            return DeliverySerializer
        return WebhookSerializer

    def create(self, request, *args, **kwargs):
        given = WebhookSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        made = services.create_endpoint(request.user, given.validated_data["url"],
                                        given.validated_data.get("secret", ""))
        return Response(CreatedWebhookSerializer(made).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, *args, **kwargs):
        endpoint = self.get_object()
        given = WebhookUpdateSerializer(endpoint, data=request.data, partial=True)
        given.is_valid(raise_exception=True)
        given.save()
        return Response(WebhookSerializer(endpoint).data)

    def perform_destroy(self, instance):
        services.remove_endpoint(instance)

    @extend_schema(summary="The webhook's deliveries, newest first", responses=DeliverySerializer(many=True))
    @action(detail=True, methods=["get"])
    def deliveries(self, request, pk=None):
        endpoint = self.get_object()
        page = self.paginate_queryset(endpoint.deliveries.select_related("notice"))
        return self.get_paginated_response(DeliverySerializer(page, many=True).data)

    @extend_schema(summary="Send a test event (ping) to the webhook", request=None,
                   responses={202: DeliverySerializer})
    @action(detail=True, methods=["post"])
    def ping(self, request, pk=None):
        delivery = services.send_test(self.get_object())
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)


class EventStreamRenderer(BaseRenderer):
    media_type = "text/event-stream"
    format = "sse"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        # only an error is ever rendered (the stream is a response of its own): as JSON, in the error shape
        return JSONRenderer().render(data)


class EventStreamView(KnownQueryParameters, APIView):
    """Your events as Server-Sent Events: the JSON the webhooks POST, each as an event named like the webhook's
    X-Arena-Event with the notice's id as its id. Each stream ends after 25 s or 64 KiB; EventSource then
    reconnects with Last-Event-ID and gets what it missed."""

    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(summary="Your events, as Server-Sent Events", parameters=[
        OpenApiParameter("format", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=["json", "sse"],
                         description="The stream is text/event-stream whatever this says; an error is JSON.")],
        responses={
        (200, "text/event-stream"): OpenApiTypes.STR,
        400: OpenApiResponse(ErrorSerializer, description="Last-Event-ID is not a notice id."),
        429: OpenApiResponse(ErrorSerializer, description="Too many feed connections (the live viewers' throttle)."),
        503: OpenApiResponse(ErrorSerializer, description="This server cannot hold a stream now (too many, or no "
                                                          "threads: a server that runs one request at a time)."),
    })
    def get(self, request):
        refused = refusal(request, "live")  # each connection counts, as a live page's stream does
        if refused is not None:
            return JsonResponse({"detail": [str(refused.detail)]}, status=429,
                                headers={"Retry-After": str(int(refused.wait or 1))})
        try:
            after = feed.resume_point(request.headers.get("Last-Event-ID"), request.user.pk)
        except feed.BadResume as error:
            return JsonResponse({"detail": [str(error)]}, status=400)
        return streaming.open_stream(request, feed.SLOTS, feed.events(request.user.pk, after), say=lambda text: [text])
