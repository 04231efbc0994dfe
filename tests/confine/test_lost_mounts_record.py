"""The launcher's record of the mounts it made for the protected places, and the check of it against
a mount table: which place lost its mount, each said once (lost_mounts.py; the real kernel's side is
tests/confine/test_lost_mounts.py)."""

from __future__ import annotations

from pathlib import Path

from twnb.confine.lost_mounts import (
    LostMounts,
    ProtectedMount,
    parse_protected,
    protected_mounts,
    protected_value,
)

# lines of a real /proc/self/mountinfo in a confined kernel's namespace (the notebook's folder holds a
# space: mountinfo writes it as \040)
ROOT = "21 1 259:1 / / rw,relatime - ext4 /dev/root rw"
YAML = "812 21 259:1 /nb\\040one/twnb.yaml /nb\\040one/twnb.yaml ro,nosuid,nodev - ext4 /dev/root rw"
ENV = "813 21 0:5 /null /nb\\040one/.env ro,nosuid - devtmpfs udev rw"
BASHRC = "814 21 259:1 /home/u/.bashrc /home/u/.bashrc ro - ext4 /dev/root rw"


def test_each_place_gets_the_id_of_its_mount_and_a_name_the_user_knows() -> None:
    found = protected_mounts(
        [
            ("/nb one/twnb.yaml", False),
            ("/nb one/.env", True),
            ("/home/u/.bashrc", False),
            ("/nb one/x", False),
        ],
        "/nb one",
        "\n".join([ROOT, YAML, ENV, BASHRC]),
    )
    assert found == [
        ProtectedMount("twnb.yaml", False, 812),
        ProtectedMount(".env", True, 813),
        ProtectedMount("/home/u/.bashrc", False, 814),
    ]  # a place with no mount is not watched


def test_a_mount_over_a_symlink_is_looked_up_on_its_target(tmp_path: Path) -> None:
    (tmp_path / "rules.md").write_text("rules")
    (tmp_path / "AGENTS.md").symlink_to(tmp_path / "rules.md")
    line = f"900 21 259:1 /x {tmp_path}/rules.md ro - ext4 /dev/root rw"
    found = protected_mounts([(str(tmp_path / "AGENTS.md"), False)], str(tmp_path), line)
    assert found == [ProtectedMount("AGENTS.md", False, 900)]


def test_the_record_reads_back_and_a_malformed_one_watches_nothing() -> None:
    mounts = [ProtectedMount("twnb.yaml", False, 812), ProtectedMount(".env", True, 813)]
    assert parse_protected(protected_value(mounts)) == mounts
    assert parse_protected("not json") == [] and parse_protected('[["x", 1]]') == []


def test_a_lost_mount_is_said_once_and_stays_lost() -> None:
    table = ["\n".join([ROOT, YAML, ENV])]
    watch = LostMounts(
        [ProtectedMount("twnb.yaml", False, 812), ProtectedMount(".env", True, 813)], read=lambda: table[0]
    )
    assert watch.check() == ((), ())
    table[0] = "\n".join([ROOT, ENV])
    lost, lines = watch.check()
    assert lost == ("twnb.yaml",) and len(lines) == 1 and "can now write it" in lines[0]
    assert watch.check() == (("twnb.yaml",), ())
    table[0] = ROOT
    lost, lines = watch.check()
    assert lost == ("twnb.yaml", ".env") and len(lines) == 1 and lines[0].startswith("`.env`")
