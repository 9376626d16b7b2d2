"""``{{ game.reason|reason_link:game_id }}``: a result's reason word as a link to the section of the rules that
explains it (``web.docs.reason_url``), so a visitor who reads "challenge" under a game can find out what it is."""

from django import template
from django.utils.html import format_html

from web.docs import reason_url

register = template.Library()


@register.filter
def reason_link(reason, game_id):
    url = reason_url(game_id, str(reason))
    if url is None:  # a word the rules do not know (an old row): shown as it is, escaped
        return format_html("{}", reason)
    return format_html('<a class="reason-link" href="{}">{}</a>', url, reason)
