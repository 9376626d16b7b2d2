"""load_bot: what a bot is, and clear errors naming the file and the problem."""

from __future__ import annotations

import pytest

from engines.core import RefereeError
from runner.bots import BadBot, Bot, check_bot_files, load_bot, sanitise_name


def write(path, text):
    path.write_text(text)
    return path


def test_directory_with_toml(tmp_path):
    write(tmp_path / "main.py", "print('hi')\n")
    write(tmp_path / "bot.toml", 'run = "python3 main.py"\nbuild = "true"\n')
    bot = load_bot(tmp_path)
    assert bot == Bot(name=sanitise_name(tmp_path.name), directory=tmp_path.resolve(),
                      run="python3 main.py", build="true")
    assert bot.files() == [tmp_path.resolve()]


def test_directory_with_json(tmp_path):
    write(tmp_path / "engine.py", "")
    write(tmp_path / "bot.json", '{"run": "python3 engine.py"}')
    assert load_bot(str(tmp_path)).run == "python3 engine.py"


def test_single_file_exposes_only_that_file(tmp_path):
    bot = load_bot(write(tmp_path / "lone.py", "print(1)\n"))
    assert (bot.name, bot.run, bot.build) == ("lone", "python3 lone.py", None)
    assert bot.files() == [tmp_path.resolve() / "lone.py"]


def test_names_are_sanitised():
    assert sanitise_name("my bot!") == "my_bot_"
    assert sanitise_name("x" * 50) == "x" * 32
    assert sanitise_name("") == "bot"


@pytest.mark.parametrize("manifest, text, problem", [
    ("bot.toml", 'run = "python3 main.py', "cannot parse"),
    ("bot.toml", 'build = "make"\n', "missing 'run'"),
    ("bot.toml", 'run = ""\n', "non-empty string"),
    ("bot.toml", "run = 3\n", "non-empty string"),
    ("bot.toml", 'run = "python3 main.py"\nrnu = "x"\n', "unknown key(s) rnu"),
    ("bot.toml", 'run = "python3 missing.py"\n', "'missing.py', which is not in the bot's directory"),
    ("bot.toml", 'run = "./engine"\n', "'./engine', which is not in the bot's directory"),
    ("bot.toml", 'run = "python3 \'main.py"\n', "not a valid command line"),
    ("bot.json", '["python3 main.py"]', "must be a table/object"),
    ("bot.json", '{"run": "python3 main.py",}', "cannot parse"),
    ("bot.toml", 'run = "python3 main.py"\ngames = "tafl9"\n', "'games' must be a non-empty list"),
    ("bot.toml", 'run = "python3 main.py"\ngames = []\n', "'games' must be a non-empty list"),
    ("bot.toml", 'run = "python3 main.py"\ngames = ["chess"]\n', "unknown game id(s) 'chess'"),
    ("bot.json", '{"run": "python3 main.py", "games": [1]}', "'games' must be a non-empty list"),
])
def test_bad_manifests(tmp_path, manifest, text, problem):
    write(tmp_path / "main.py", "")
    write(tmp_path / manifest, text)
    with pytest.raises(BadBot) as caught:
        load_bot(tmp_path)
    assert problem in str(caught.value)
    assert manifest in str(caught.value)
    assert isinstance(caught.value, RefereeError)


def test_a_manifest_may_say_which_games_the_bot_plays(tmp_path):
    write(tmp_path / "main.py", "")
    write(tmp_path / "bot.toml", 'run = "python3 main.py"\ngames = ["fidchell-1", "fidchell-2", "fidchell-1"]\n')
    bot = load_bot(tmp_path)
    assert bot.games == ("fidchell-1", "fidchell-2")
    bot.check_plays("fidchell-2")
    with pytest.raises(BadBot, match="plays fidchell-1, fidchell-2 .*not tafl9"):
        bot.check_plays("tafl9")
    write(tmp_path / "bot.toml", 'run = "python3 main.py"\n')
    load_bot(tmp_path).check_plays("tafl9")  # a bot that does not say plays any game


def test_a_built_entry_point_need_not_exist_yet(tmp_path):
    write(tmp_path / "bot.toml", 'run = "./engine"\nbuild = "cc -o engine engine.c"\n')
    assert load_bot(tmp_path).build == "cc -o engine engine.c"


@pytest.mark.parametrize("setup, problem", [
    (lambda d: d / "nothing-here", "no such file or directory"),
    (lambda d: d, "no bot.toml or bot.json"),
    (lambda d: write(d / "bot.sh", "echo"), "must be a Python file"),
    (lambda d: write(d / "bad name.py", ""), "only [A-Za-z0-9_.-]"),
])
def test_bad_paths(tmp_path, setup, problem):
    path = setup(tmp_path)
    with pytest.raises(BadBot, match=problem.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        load_bot(path)


@pytest.mark.parametrize("text, problem", [
    ('run = "python3 /etc/passwd"\n', "'/etc/passwd', an absolute path"),
    ('run = "python3 /etc/no-such-file"\n', "'/etc/no-such-file', an absolute path"),
    ('run = "/usr/bin/python3 main.py"\n', "an absolute path"),
    ('run = "python3 main.py 2>/tmp/log"\n', "'/tmp/log', an absolute path"),
    ('run = "python3 main.py --book=/srv/book"\n', "'/srv/book', an absolute path"),
    ('run = "python3 ~/main.py"\n', "'~/main.py', an absolute path"),
    ('run = "python3 ../main.py"\n', "climbs out of the bot's directory"),
    ('run = "python3 main.py # x/../../y"\n', "climbs out"),
    ('run = "python3 main.py"\nbuild = "cp /etc/shadow ."\n', "'build' names '/etc/shadow'"),
    ('run = "./engine"\nbuild = "cc -o engine ../../engine.c"\n', "'build' names '../../engine.c'"),
])
def test_commands_name_only_the_bots_own_files(tmp_path, text, problem):
    """The same refusal whether or not the host has the file: the check is no oracle of its disk."""
    write(tmp_path / "main.py", "")
    write(tmp_path / "bot.toml", text)
    with pytest.raises(BadBot, match=problem.replace(".", r"\.").replace("(", r"\(")):
        load_bot(tmp_path)
    files = {"bot.toml": text.encode(), "main.py": b""}
    with pytest.raises(BadBot, match=problem.replace(".", r"\.").replace("(", r"\(")):
        check_bot_files(files)


def test_check_bot_files_looks_only_at_the_given_files(tmp_path):
    run = {"bot.toml": b'run = "python3 src/main.py"\n'}
    with pytest.raises(BadBot, match="'src/main.py', which is not in the bot's directory"):
        check_bot_files(run)
    check_bot_files({**run, "src/main.py": b""})
    check_bot_files({"bot.json": b'{"run": "./engine"}', "engine": b""})
    with pytest.raises(BadBot, match="no bot.toml or bot.json"):
        check_bot_files({"main.py": b""})


@pytest.mark.parametrize("manifest, raw, problem", [
    ("bot.json", b"[" * 60_000, "cannot parse"),
    ("bot.toml", b"run = " + b"[" * 60_000, "cannot parse"),
    ("bot.toml", b'run = "python3 main.py"\n' + b"#" * 70_000, "at most 65536 bytes"),
], ids=["deep json", "deep toml", "huge"])
def test_hostile_manifests_are_refused_cheaply(manifest, raw, problem):
    with pytest.raises(BadBot, match=problem):
        check_bot_files({manifest: raw, "main.py": b""})
