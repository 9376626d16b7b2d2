"""The site's doors to one's webhooks, from the player's own page: add one, send it a test event, remove it. Each
POSTs and returns to that page, whose section (templates/web/_webhooks.html) lists them and the last deliveries.
The same services, checks and throttle as the API's."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from hooks import services

from .forms import run_service, throttled


class WebhookForm(forms.Form):
    url = forms.URLField(max_length=500, label="URL", assume_scheme="https",
                         help_text="https://, a public address: events about your bots are POSTed there.")
    secret = forms.CharField(required=False, min_length=16, max_length=128, label="Secret (optional)",
                             help_text="Signs each delivery; left empty, one is made and shown to you once.")


def section(user) -> dict | None:
    """The player page's webhooks section, for its owner: their endpoints and last deliveries."""
    endpoints = list(services.endpoints_of(user))
    # Deliveries go with their endpoint (a cascade): without endpoints there is no log to read.
    deliveries = list(services.deliveries_of(user)[:services.LOG_LENGTH]) if endpoints else []
    return {"endpoints": endpoints, "form": WebhookForm(), "deliveries": deliveries}


def not_found(request):
    return render(request, "web/404.html", {"what": "webhook"}, status=404)


def _own(request, endpoint_id: int):
    return services.endpoints_of(request.user).filter(pk=endpoint_id).first()


@login_required
@require_POST
def add(request):
    form = WebhookForm(request.POST)
    if not throttled(request, form, "webhooks") and form.is_valid():
        made = run_service(form, lambda: services.create_endpoint(request.user, form.cleaned_data["url"],
                                                                  form.cleaned_data["secret"]))
        if made is not None:
            messages.success(request, f"Webhook added. Its secret, shown this once: {made.secret}")
            return redirect("web:player", username=request.user.username)
    refused = any(error.startswith("too many ") for error in form.non_field_errors())
    return render(request, "web/form.html", {"form": form, "title": "New webhook", "button": "Add the webhook"},
                  status=429 if refused else 400)


@login_required
@require_POST
def ping(request, endpoint_id: int):
    endpoint = _own(request, endpoint_id)
    if endpoint is None:
        return not_found(request)
    form = forms.Form()
    if throttled(request, form, "webhooks"):
        messages.error(request, form.non_field_errors()[0])
    else:
        services.send_test(endpoint)
        messages.success(request, "A test event (ping) is on its way: its delivery shows below.")
    return redirect("web:player", username=request.user.username)


@login_required
@require_POST
def remove(request, endpoint_id: int):
    endpoint = _own(request, endpoint_id)
    if endpoint is None:
        return not_found(request)
    services.remove_endpoint(endpoint)
    messages.success(request, f"Webhook {endpoint.url} removed.")
    return redirect("web:player", username=request.user.username)
