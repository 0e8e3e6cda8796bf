"""Files and folders of a store under hostile conditions (issue 21): restores that collide, permissions."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


def test_two_forced_restores_in_the_same_second_both_succeed_and_leave_no_staging(home, cli, tmp_path):
    archive = tmp_path / "store.tar.gz"
    assert cli("backup", "--out", str(archive)).exit_code == 0
    now = datetime.now(timezone.utc)
    for second in range(4):  # whatever second the restores land in, an earlier one took its name
        taken = home.with_name(f"{home.name}.replaced-{now + timedelta(seconds=second):%Y%m%d-%H%M%S}")
        taken.mkdir()
        (taken / "store.json").write_text("{}")
    names = []
    for _ in range(2):
        result = cli("restore", str(archive), "--force", "--json")
        assert result.exit_code == 0, result.stderr
        names.append(result.json()["replaced"])
    assert len(set(names)) == 2 and all(name.rsplit("-", 1)[1].isdigit() for name in names)
    assert not list(tmp_path.glob(f".{home.name}.restoring-*"))
    assert cli("verify", "--json").json()["ok"]
