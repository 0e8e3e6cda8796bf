"""Bad items never abort whole runs (issue 21, items 13 and 14): a memex file whose front matter the graph cannot
hold is refused with its reason while the others import; a card title with a NUL or long four-byte characters
exports like any other."""

from __future__ import annotations

import json

BAD_CREATED = {"inf.md": ".inf", "nan.md": ".nan", "huge.md": "1" + "0" * 40, "past.md": "-99999999999999999999"}


def write_vault(folder):
    folder.mkdir()
    for name, created in BAD_CREATED.items():
        (folder / name).write_text(f"---\ntitle: {name}\ncreated: {created}\n---\nbody of {name}\n", encoding="utf-8")
    (folder / "deep.md").write_text("---\ncreated: " + "[" * 50_000 + "]" * 50_000 + "\n---\nx\n", encoding="utf-8")
    (folder / "nul.md").write_text('---\ntitle: "a NUL\\0in the title"\ncreated: 0001-01-01\n---\nnul body\n',
                                   encoding="utf-8")
    (folder / "wide.md").write_text(f"---\ntitle: {'😀' * 80}\ncreated: 9999-12-31T23:59:59Z\n---\nwide\n",
                                    encoding="utf-8")
    (folder / "good.md").write_text("---\ntitle: fine\ncreated: 2024-05-01\n---\nlinks to [[nul]] and [[wide]]\n",
                                    encoding="utf-8")


def test_import_memex_refuses_only_the_files_with_impossible_front_matter(cli, tmp_path):
    write_vault(tmp_path / "vault")
    result = cli("import-memex", str(tmp_path / "vault"), "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json()
    refused = {entry["file"]: entry["reason"] for entry in report["unreadable"]}
    assert set(refused) == {*BAD_CREATED, "deep.md"}
    assert all("not a time between the years 1 and 9999" in refused[name] for name in BAD_CREATED)
    assert "nested too deeply" in refused["deep.md"]
    assert report["imported"] == 3 and report["links"] == 2
    assert cli("verify", "--json").json()["ok"]


def test_export_writes_cards_whose_titles_hold_a_nul_or_long_wide_characters(cli, tmp_path):
    write_vault(tmp_path / "vault")
    assert cli("import-memex", str(tmp_path / "vault")).exit_code == 0
    result = cli("export", "--out", str(tmp_path / "export"), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["cards"] == 3
    files = sorted((tmp_path / "export" / "cards").rglob("*.md"))
    assert len(files) == 3 and all(len(path.name.encode()) <= 255 and "\0" not in path.name for path in files)
    nul = next(path for path in files if path.name.startswith("a-nul"))
    assert "a NUL\\0in the title" in nul.read_text(encoding="utf-8")
    assert json.loads((tmp_path / "export" / ".alaya-export").read_text())["cards"] == 3
