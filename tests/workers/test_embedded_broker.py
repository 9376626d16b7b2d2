"""The embedded broker never hands a reader a message still being written: kombu's filesystem transport creates
the file under its final name before it writes, and a worker that read it then died on the JSON error."""

from __future__ import annotations

import threading

from kombu import Connection
from kombu.transport import filesystem

from config.broker import Transport

MESSAGES, BODY = 300, "x" * 200_000  # a large body widens the window a reader could fall into


def exchange(tmp_path, transport) -> tuple[int, list[Exception]]:
    tmp_path.mkdir(exist_ok=True)
    folders = {name: tmp_path / name for name in ("out", "processed", "control")}
    for folder in folders.values():
        folder.mkdir()
    options = {"data_folder_in": str(folders["out"]), "data_folder_out": str(folders["out"]),
               "processed_folder": str(folders["processed"]), "control_folder": str(folders["control"])}
    received, errors, done = [], [], threading.Event()

    def read():
        with Connection(transport=transport, transport_options=options) as connection:
            channel = connection.default_channel
            while not (done.is_set() and len(received) == MESSAGES):
                try:
                    received.append(channel._get("q"))
                except filesystem.Empty:
                    if done.is_set() and not list(folders["out"].glob("*.q.msg")):
                        return
                except Exception as error:  # noqa: BLE001  (what a worker would die of)
                    errors.append(error)
                    return

    reader = threading.Thread(target=read)
    reader.start()
    with Connection(transport=transport, transport_options=options) as connection:
        channel = connection.default_channel
        for number in range(MESSAGES):
            channel._put("q", {"number": number, "body": BODY})
    done.set()
    reader.join(60)
    return len(received), errors


def test_a_reader_never_takes_a_half_written_message(tmp_path):
    # kombu's own transport failed in 2 of 3 such rounds here (a JSONDecodeError, or messages lost).
    for round_number in range(3):
        count, errors = exchange(tmp_path / str(round_number), Transport)
        assert errors == [] and count == MESSAGES


def test_a_message_is_visible_only_once_it_is_whole(tmp_path, monkeypatch):
    """Deterministic: at the moment the body is written, no file a reader would take is in the folder (kombu's
    own transport has the empty final file there then, which is the race the first test can only sample)."""
    import config.broker

    seen = []

    def looking(text):
        seen.append(sorted(path.name for path in (tmp_path / "out").glob("*.q.msg")))
        return text.encode()

    monkeypatch.setattr(config.broker, "str_to_bytes", looking)
    options = {"data_folder_in": str(tmp_path / "out"), "data_folder_out": str(tmp_path / "out")}
    (tmp_path / "out").mkdir()
    with Connection(transport=Transport, transport_options=options) as connection:
        connection.default_channel._put("q", {"number": 1})
    assert seen == [[]]  # nothing to take while it was written
    assert len(list((tmp_path / "out").glob("*.q.msg"))) == 1  # and the whole message after
