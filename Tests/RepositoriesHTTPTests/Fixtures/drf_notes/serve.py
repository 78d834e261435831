"""Serves the Django REST Framework app for the HTTPRepository tests, as runserver would:
Django's threaded WSGI server, on 127.0.0.1 and a free port, which it prints on one line of
stdout. The database is a new SQLite file in a temporary directory, removed on exit. It
serves until its stdin closes."""

import os
import shutil
import signal
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
directory = tempfile.mkdtemp(prefix="drf-notes-")
os.environ["NOTES_DATABASE"] = os.path.join(directory, "db.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402


class QuietHandler(WSGIRequestHandler):
    # Headers and body go out in separate writes; with Nagle's algorithm the body would wait
    # for the client's delayed ACK (40 ms a request on Linux).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass


def main():
    call_command("migrate", run_syncdb=True, verbosity=0)
    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(get_wsgi_application())

    def watch_stdin():
        sys.stdin.read()  # returns at end of input: the test process has gone
        server.shutdown()

    threading.Thread(target=watch_stdin, daemon=True).start()
    # Terminated, it still removes its database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
