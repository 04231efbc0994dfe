"""A TaskWeaver plugin that starts a process (written for these tests), and a conversation whose Round
called it, for the re-run tests of replay and of `%taskweaver load --rerun`."""

from __future__ import annotations

from pathlib import Path

from support.replay_rounds import code_round, conversation, stdout
from twnb.memory import Conversation, PluginEntry

SPEC = """\
name: word_count
enabled: true
required: false
description: word_count counts the words of a file with wc.
parameters:
  - name: path
    type: str
    required: true
    description: the file
returns:
  - name: words
    type: int
    description: how many words
"""

CODE = """\
import subprocess

from taskweaver.plugin import Plugin, register_plugin


@register_plugin
class WordCount(Plugin):
    def __call__(self, path):
        return int(subprocess.run(["wc", "-w", path], capture_output=True, text=True).stdout.split()[0])
"""


def write_plugin_folder(folder: Path) -> Path:
    """`folder/plugins/` with word_count, and the notes.txt it counts (3 words)."""
    plugins = folder / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "word_count.yaml").write_text(SPEC)
    (plugins / "word_count.py").write_text(CODE)
    (folder / "notes.txt").write_text("one two\nthree\n")
    return plugins


def counted_conversation() -> Conversation:
    """One Round whose code called word_count and printed 3; the plugins section lists word_count."""
    import yaml

    made = conversation(
        code_round("Count the words", "words = word_count('notes.txt')\nprint(words)", [stdout("3\n")])
    )
    made.plugins.append(PluginEntry.from_yaml_content(yaml.safe_load(SPEC)))
    return made
