"""Walking a store's files while other processes write it: a file may vanish between the listing and its stat."""

from __future__ import annotations

from alaya_engine.foundations.folder_sizes import FolderSizes, disk_usage


def test_a_file_gone_between_the_listing_and_its_stat_is_skipped(tmp_path):
    """An atomic write's temporary file is renamed by its writer while ``alaya status`` walks the folder (the
    concurrency suite's status request failed with FileNotFoundError on a ``.tmp`` file)."""
    for name in ("a.json", "b.json.tmp", "c.json.tmp"):
        (tmp_path / name).write_text("x" * 10)
    seen = []

    def counted(directory: str, name: str) -> bool:
        """Called once the folder is listed and the first file stat'ed: the others vanish now."""
        if not seen:
            for path in tmp_path.iterdir():
                if path.name != name:
                    path.unlink()
        seen.append(name)
        return True

    assert FolderSizes(tmp_path, counted, lambda name: False).totals() == (1, 10)
    assert len(seen) == 1 and disk_usage(tmp_path) == 10


def test_sizes_of_nested_files_and_of_a_missing_folder(tmp_path):
    (tmp_path / "2026-12").mkdir()
    (tmp_path / "2026-12" / "s.json").write_text("12345")
    (tmp_path / "top").write_text("1")
    assert disk_usage(tmp_path) == 6
    assert disk_usage(tmp_path / "missing") == 0


def test_links_in_a_store_folder_are_not_followed(tmp_path):
    """A link loop or a dangling link (a user's stray ``ln -s``) is not a file of the store: ``status`` must not fail
    on it (following it raised ELOOP) nor count what a link points to elsewhere."""
    (tmp_path / "s.json").write_text("12345")
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "dangling").symlink_to("missing")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "big").write_text("x" * 1000)
    (tmp_path / "elsewhere").symlink_to(outside)
    (tmp_path / "big-link").symlink_to(outside / "big")
    assert disk_usage(tmp_path) == 5
