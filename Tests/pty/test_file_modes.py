"""The file `--record FILE` writes gets the mode every file handsh writes
whole gets (handsh(1), FILES): a new file 0666 less the umask, an existing
file its own mode, under umask 077 as under 022. A fixed 0644 passed every
other test, all of which ran under umask 022. Fixtures: conftest.py.
"""

import stat


def record(box, name, umask):
    sh = box.spawn("--seed", "42", "--record", name, umask=umask)
    sh.first_prompt()
    assert sh.command("add") == ["7♥"]
    sh.child.send("quit\r")
    assert sh.wait_exit() == 0
    path = box.cwd / name
    assert path.read_text(encoding="utf-8") == (
        "#!/usr/bin/env -S handsh --seed 42\nadd\n#> 7♥\nquit\n"
    )
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_recording_gets_the_umasks_mode(box):
    assert oct(record(box, "new.hand", 0o077)) == oct(0o600)
    assert oct(record(box, "group.hand", 0o027)) == oct(0o640)


def test_an_existing_recording_keeps_its_mode(box):
    for name, mode in (("open.hand", 0o644), ("run.hand", 0o755)):
        path = box.cwd / name
        path.write_text("old\n")
        path.chmod(mode)
        assert oct(record(box, name, 0o077)) == oct(mode)
