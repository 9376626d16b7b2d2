"""``manage.py seed``: demo players, reference bots and a demo round-robin per game. Idempotent."""

from django.core.management.base import BaseCommand, CommandError

from seeds import seed
from tournaments.referee import InfrastructureError


class Command(BaseCommand):
    help = "Create the demo players, upload and smoke-test the reference bots, and start a demo round-robin per game."

    def add_arguments(self, parser):
        parser.add_argument("--trusted-sandbox", action="store_true",
                            help="smoke-test the (trusted) reference bots without bubblewrap")

    def handle(self, *args, trusted_sandbox=False, **options):
        try:
            report = seed(trusted=trusted_sandbox)
        except InfrastructureError as error:
            raise CommandError(
                f"{error} (install bubblewrap, or pass --trusted-sandbox for the reference bots)"
            ) from None
        self.stdout.write("Players (user name / password / API token):")
        for name, password, token, admin in report.players:
            self.stdout.write(f"  {name} / {password} / {token}{'  (admin)' if admin else ''}")
        for line in report.created:
            self.stdout.write(f"created {line}")
        for line in report.skipped:
            self.stdout.write(f"skipped {line}")
        if not report.created:
            self.stdout.write("nothing to do: already seeded")
