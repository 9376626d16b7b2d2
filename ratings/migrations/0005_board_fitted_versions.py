"""Fitted ratings per bot version, with the leaderboard's ranks (ratings.models.FittedRating)."""

import django.db.models.deletion
from django.db import migrations, models


def forget_bot_fits(apps, schema_editor):
    # The stored rows rated bots as a whole and cannot be split into versions; the next fit (every
    # RATING_FIT_SECONDS, or `manage.py fit_ratings`) writes them again, per version.
    apps.get_model("ratings", "FittedRating").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0004_sprt_inconclusive_normalized_forecast'),
        ('tournaments', '0005_bundle_stored_uploads'),
    ]

    operations = [
        migrations.RunPython(forget_bot_fits, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name='fittedrating', name='fittedrating_once_per_fit'),
        migrations.AddField(
            model_name='fittedrating',
            name='version',
            field=models.ForeignKey(default=None, on_delete=django.db.models.deletion.CASCADE,
                                    related_name='fitted_ratings', to='tournaments.botversion'),
            preserve_default=False,
        ),
        migrations.AlterModelOptions(
            name='fittedrating',
            options={'ordering': ['fit', models.OrderBy(models.F('elo'), descending=True, nulls_last=True), 'version_id']},
        ),
        migrations.AddField(
            model_name='fittedrating',
            name='current',
            field=models.BooleanField(default=False, help_text='The version its bot played the ladder with at the fit.'),
        ),
        migrations.AddField(
            model_name='fittedrating',
            name='p_first',
            field=models.FloatField(blank=True, help_text='Probability that it is the strongest ranked bot.', null=True),
        ),
        migrations.AddField(
            model_name='fittedrating',
            name='rank',
            field=models.PositiveIntegerField(blank=True, help_text='Place among the ranked; null: not ranked.', null=True),
        ),
        migrations.AddField(
            model_name='fittedrating',
            name='rank_high',
            field=models.PositiveIntegerField(blank=True, help_text='Worst rank of its 95% interval.', null=True),
        ),
        migrations.AddField(
            model_name='fittedrating',
            name='rank_low',
            field=models.PositiveIntegerField(blank=True, help_text='Best rank of its 95% interval.', null=True),
        ),
        migrations.AddConstraint(
            model_name='fittedrating',
            constraint=models.UniqueConstraint(fields=('fit', 'version'), name='fittedrating_once_per_fit'),
        ),
        migrations.AddConstraint(
            model_name='fittedrating',
            constraint=models.UniqueConstraint(condition=models.Q(('current', True)), fields=('bot',), name='fittedrating_one_current'),
        ),
        migrations.AddConstraint(
            model_name='fittedrating',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('p_first__isnull', True), ('rank__isnull', True), ('rank_high__isnull', True), ('rank_low__isnull', True)), models.Q(('current', True), ('p_first__gte', 0), ('p_first__lte', 1), ('rank__isnull', False), ('rank_high__gte', models.F('rank')), ('rank_low__lte', models.F('rank')), ('status', 'rated')), _connector='OR'), name='fittedrating_ranked_whole'),
        ),
    ]
