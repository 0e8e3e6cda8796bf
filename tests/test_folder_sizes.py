"""L3's totals for ``alaya status``: a directory is listed again only when it changed, or when it holds a file
written in place; a listing taken just after a change is not trusted."""

import os
import time

from alaya_engine.foundations.folder_sizes import FolderSizes, disk_usage

LONG_AGO = 1_000_000_000  # seconds: 2001, a mtime long settled


def _settle(*folders) -> None:
    for folder in folders:
        os.utime(folder, (LONG_AGO, LONG_AGO))


def _sizes(root) -> FolderSizes:
    return FolderSizes(root, lambda directory, name: name.endswith(".json"), lambda name: name.endswith(".jsonl"))


def test_totals_follow_files_written_whole_and_a_settled_directory_is_not_listed_again(tmp_path):
    month, journal = tmp_path / "sessions" / "2026-12", tmp_path / "journal"
    month.mkdir(parents=True)
    journal.mkdir()
    (month / "a.json").write_text("x" * 10)
    (month / "a.md").write_text("y" * 5)
    (journal / "m.jsonl").write_text("z" * 3)
    _settle(month, month.parent, journal, tmp_path)
    sizes = _sizes(tmp_path)
    assert sizes.totals() == (1, 18) == (1, disk_usage(tmp_path))

    # an atomic write (a new file renamed in) moves the directory's mtime: listed again
    (month / "b.json.tmp").write_text("w" * 7)
    os.replace(month / "b.json.tmp", month / "b.json")
    assert sizes.totals() == (2, 25)

    # a settled directory whose mtime did not move keeps its listing, even if a file grew in place unseen...
    _settle(month)
    assert sizes.totals() == (2, 25)
    with open(month / "a.md", "a") as grown:
        grown.write("more")
    _settle(month)
    assert sizes.totals() == (2, 25)
    # ...while a directory holding a file written in place (the journal) is listed every time
    with open(journal / "m.jsonl", "a") as appended:
        appended.write("zz")
    _settle(journal)
    assert sizes.totals() == (2, 27)

    # a removal moves the mtime: listed again, the grown file with it
    (month / "b.json").unlink()
    assert sizes.totals() == (1, 24) == (1, disk_usage(tmp_path))


def test_a_listing_taken_just_after_a_change_is_listed_again(tmp_path):
    """Two changes in one tick of the file system's clock leave the mtime as it was: a listing younger than a
    second after its directory's change is never reused."""
    (tmp_path / "a.json").write_text("1")
    now = time.time()
    os.utime(tmp_path, (now, now))
    sizes = _sizes(tmp_path)
    assert sizes.totals() == (1, 1)
    (tmp_path / "b.json").write_text("22")
    os.utime(tmp_path, (now, now))  # the second change, within the same tick
    assert sizes.totals() == (2, 3)


def test_a_missing_folder_counts_nothing(tmp_path):
    assert _sizes(tmp_path / "absent").totals() == (0, 0)
