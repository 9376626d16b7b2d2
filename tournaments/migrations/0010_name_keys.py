
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from tournaments.names import name_key


def fill_keys(apps, schema_editor):
    """Every existing user and bot gets its name's compared form; a name that was already a look-alike of an
    earlier one (made before the rule) keeps an empty key, so the first holder of the name keeps it."""
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    PlayerName = apps.get_model("tournaments", "PlayerName")
    Bot = apps.get_model("tournaments", "Bot")
    taken = set()
    rows = []
    for user_id, username in User.objects.order_by("pk").values_list("pk", "username").iterator():
        key = name_key(username) or None
        rows.append(PlayerName(user_id=user_id, key=None if key in taken else key))
        taken.add(key)
    PlayerName.objects.bulk_create(rows, batch_size=1000)
    taken, keyed = set(), []
    for bot in Bot.objects.order_by("pk").only("pk", "owner_id", "game", "name").iterator():
        key = name_key(bot.name) or None
        place = (bot.owner_id, bot.game, key)
        if key is not None and place not in taken:
            taken.add(place)
            bot.name_key = key
            keyed.append(bot)
    Bot.objects.bulk_update(keyed, ["name_key"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('tournaments', '0009_workers_report_isolation'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='PlayerName',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='name_form', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('key', models.TextField(null=True, unique=True)),
            ],
        ),
        migrations.AddField(
            model_name='bot',
            name='name_key',
            field=models.TextField(editable=False, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='bot',
            constraint=models.UniqueConstraint(fields=('owner', 'game', 'name_key'), name='bot_unique_owner_game_name_key'),
        ),
    ]
