"""A tournament's ``rated`` (set by its organiser) becomes ``official`` (set by staff only), and a round robin
gets its tie-break order (FIDE's recommended one by default).

An old rated tournament stays rated only if its organiser is staff: a player's own rated tournament is where
puppet accounts could pump a bot's rating, so it becomes unrated from now on. (Its matches already played keep
their ``rated`` flag: the games stay in the history they were rated in.)
"""

from django.db import migrations, models


def rated_becomes_official_for_staff(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(rated=True, organiser__is_staff=True).update(official=True)


def official_becomes_rated(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(official=True).update(rated=True)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_disk_one_stored_file"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="official",
            field=models.BooleanField(default=False, help_text="Set by staff only: whether the tournament's games "
                                                               "are rated (change the leaderboard)."),
        ),
        migrations.AddField(
            model_name="tournament",
            name="tiebreaks",
            field=models.CharField(default="direct_encounter,wins,sonneborn_berger,koya",
                                   help_text="The tie-breaks after score, in order, comma-separated, from: "
                                             "direct_encounter, wins, sonneborn_berger, koya.",
                                   max_length=100),
        ),
        migrations.RunPython(rated_becomes_official_for_staff, official_becomes_rated),
        migrations.RemoveField(model_name="tournament", name="rated"),
    ]
