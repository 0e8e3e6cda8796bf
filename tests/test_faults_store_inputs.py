"""Bad items never abort whole runs (issue 21, items 13 and 14): a memex file whose front matter the graph cannot
hold is refused with its reason while the others import; a card title with a NUL or long four-byte characters
exports like any other, and bidirectional controls never reach a file name. A card id that is not UTF-8 is bad
input wherever it comes in."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from alaya import AlayaError
from alaya import open as open_memory

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



def test_exported_file_names_drop_bidirectional_controls(cli, tmp_path):
    """A right-to-left override in a title showed ``invoice-exe.pdf`` in a file manager for ``…fdp.exe``: the bidi
    controls are dropped from names, and only from names (the card keeps its title)."""
    bidi = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    title = f"invoice \u202efdp.exe{bidi}end"
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "bidi.md").write_text(f"---\ntitle: \"{title}\"\n---\nbody\n", encoding="utf-8")
    assert cli("import-memex", str(tmp_path / "vault")).exit_code == 0
    result = cli("export", "--out", str(tmp_path / "export"), "--json")
    assert result.exit_code == 0, result.stderr
    [path] = (tmp_path / "export" / "cards").rglob("*.md")
    assert path.name.startswith("invoice-fdp.exeend-") and not set(bidi) & set(path.name), ascii(path.name)
    assert f"# {title}" in path.read_text(encoding="utf-8")

def alaya(home, *args: str, server: bool, input: bytes | None = None) -> subprocess.CompletedProcess:
    """``alaya --home HOME ARGS`` as a real process, through the owner server or in-process."""
    env = {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}
    if not server:
        env["ALAYA_NO_SERVER"] = "1"
    return subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), *args], env=env,
                          input=input, capture_output=True, timeout=300)


@pytest.fixture
def served_home(home):
    yield home
    alaya(home, "server", "stop", server=True)


def test_a_55_mb_session_on_stdin_reaches_the_server_and_its_refusal_is_printed(served_home):
    """Under the default 64 MB limit, but 73 MB once base64-encoded: the request must still fit a frame."""
    big = b'{"id": "too-big", "turns": "' + b"a" * 55_000_000 + b'"}'
    result = alaya(served_home, "ingest", "-", server=True, input=big)
    assert result.returncode == 2, result.stderr
    assert result.stderr.decode().startswith("error: <stdin>: ") and len(result.stderr.splitlines()) == 1


def test_stdin_and_files_over_max_file_mb_are_refused_alike_with_and_without_the_server(served_home, tmp_path):
    config_file = served_home / "config.json"
    config = json.loads(config_file.read_text())
    config["ingest"]["max_file_mb"] = 1
    config_file.write_text(json.dumps(config))
    oversized = tmp_path / "big.json"
    oversized.write_bytes(b" " * 1_500_000)
    for server in (True, False):
        if not server:
            assert alaya(served_home, "server", "stop", server=True).returncode == 0
        piped = alaya(served_home, "ingest", "-", server=server, input=b" " * 3_000_000)
        assert piped.returncode == 2 and piped.stderr.decode().splitlines() == [
            "error: <stdin>: input is over ingest.max_file_mb (1 MB); split the session"], piped.stderr
        named = alaya(served_home, "ingest", str(oversized), server=server)
        assert named.returncode == 2 and named.stderr.decode().splitlines() == [
            f"error: {oversized}: file is 1.5 MB, over ingest.max_file_mb (1 MB)"], named.stderr


def test_a_card_id_that_is_not_utf8_is_bad_input_for_every_face(served_home, cli):
    """Bytes that are not UTF-8 reach Python as lone surrogates (``os.fsdecode``), which the graph store's binding
    could not take: an unexpected RuntimeError, exit 1 and a traceback in the log. Now bad input for the command
    line in-process and forwarded to the owner server, and for the Python API alike."""
    not_utf8 = b"\xff\xfe"
    bad = os.fsdecode(not_utf8)
    for args in (["trace", bad], ["restore", bad], ["link", bad, "card-x"], ["link", "card-x", bad]):
        result = cli(*args, "--json")
        assert result.exit_code == 2 and result.json()["error"]["code"] == "bad_id", (args, result.stderr)
        assert result.stderr.splitlines() == [f"error: {result.json()['error']['message']}"]
    reason = cli("link", "card-x", "card-y", "--reason", bad, "--json")
    assert reason.exit_code == 2 and "reason" in reason.json()["error"]["message"], reason.stderr
    with open_memory(served_home, server=False) as memory:
        for attempt in (lambda: memory.trace(bad), lambda: memory.link("card-x", bad)):
            with pytest.raises(AlayaError) as raised:
                attempt()
            assert (raised.value.code, raised.value.exit_code) == ("bad_id", 2)
    forwarded = alaya(served_home, "trace", not_utf8, server=True)
    assert forwarded.returncode == 2 and forwarded.stderr.decode().splitlines() == [
        "error: card id '\ufffd\ufffd' is not valid UTF-8 text; card ids come from recall"], forwarded.stderr
    assert not any("Traceback" in log.read_text() for log in (served_home / "logs").glob("*.log"))
