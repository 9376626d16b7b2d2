# The ladder's newest match by its own index (workers.ladder.newest_ladder_matches).

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0017_opening_dealt'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('rated', True), ('tournament__isnull', True)), fields=['-id'], name='match_ladder_idx'),
        ),
    ]
