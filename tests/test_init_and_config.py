"""``alaya init`` and ``config.json``: idempotence, validation with key paths, fixed model and engine."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from alaya_engine.foundations.config import validate_config
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.graph.engines import available_engines
from alaya_engine.vectors.store import VectorStore


def snapshot(home):
    return {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file() and p.name != "alaya.log"}


def test_init_creates_the_layout_and_core_relation_vectors(template_home):
    for folder in ("raw/sessions", "raw/contexts", "graph", "lancedb", "prompts", "logs"):
        assert (template_home / folder).is_dir(), folder
    assert "你是一个知识提炼专家" in (template_home / "prompts/distill.txt").read_text()
    manifest = json.loads((template_home / "store.json").read_text())
    assert manifest["embedding"] == {"name": "universal-sentence-encoder-multilingual-3", "dimension": 512}
    assert manifest["graph_engine"] == "ladybug"
    vectors = VectorStore(template_home / "lancedb", 512)
    assert vectors.relation_names() == sorted(["CAUSES", "CAUSED_BY", "DEPENDS_ON", "SIMILAR_TO", "CONTRADICTS",
                                               "SUPERSEDES", "SUPERSEDED_BY", "TEMPORAL_NEXT",
                                               "EXTRACTED_FROM"])
    assert (template_home.stat().st_mode & 0o777) == 0o700


def test_the_core_relations_vectors_ship_with_the_package_and_are_the_models(template_home):
    """init embeds the core relations' phrases without loading the model: their vectors ship with the package.
    They must be what the installed model gives (after a model upgrade: python -m alaya_engine.embedding.local)."""
    import numpy as np

    from alaya_engine.embedding.known import core_phrases, known_vectors
    from alaya_engine.embedding.local import LocalEmbedder

    embedder = LocalEmbedder()
    served = embedder.embed(core_phrases())
    assert embedder._model is None and known_vectors(core_phrases() + ["not a core phrase"]) is None
    assert np.allclose(served, embedder.encode(core_phrases()), atol=1e-5)
    names, stored = VectorStore(template_home / "lancedb", 512).relation_vectors()
    assert np.allclose(stored, served[[core_phrases().index(phrase) for phrase in map(core_phrase, names)]],
                       atol=1e-5)


def core_phrase(name: str) -> str:
    from alaya_engine.foundations.relations import relation_embedding_text

    return relation_embedding_text(name)


def test_second_init_changes_nothing_and_says_so(cli, home):
    before = snapshot(home)
    result = cli("init")
    assert result.exit_code == 0
    assert "already initialised; nothing changed" in result.stdout
    assert snapshot(home) == before
    assert cli("init", "--json").json()["created"] is False


@pytest.mark.skipif("kuzu" not in available_engines(), reason="kuzu is not installed")
def test_init_honours_a_config_written_beforehand(tmp_path):
    """Runs in its own process: LadybugDB and Kuzu cannot be loaded side by side."""
    home = tmp_path / "kuzu-home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"graph": {"engine": "kuzu"}}))
    alaya = [sys.executable, "-m", "alaya_cli", "--home", str(home)]
    init = subprocess.run([*alaya, "init", "--json"], capture_output=True, text=True, timeout=120)
    assert init.returncode == 0, init.stderr
    assert json.loads(init.stdout)["graph_engine"] == "kuzu"
    status = subprocess.run([*alaya, "status", "--json"], capture_output=True, text=True, timeout=120)
    assert json.loads(status.stdout)["l2"]["engine"] == "kuzu"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"embeding": {}}, "unknown key 'embeding'"),
        ({"embedding": {"modle": "x"}}, "unknown key 'embedding.modle'"),
        ({"recall": {"vector_top_k": "20"}}, "'recall.vector_top_k' must be an integer, got \"20\""),
        ({"recall": {"alpha": True}}, "'recall.alpha' must be a number"),
        ({"embedding": {"provider": "siliconflow"}}, "'embedding.provider' is 'siliconflow'; allowed: local, openai"),
        ({"temperature": 3}, "'temperature' must be an object"),
        ([], "the top level must be a JSON object"),
    ],
)
def test_config_errors_name_the_key(document, message):
    with pytest.raises(AlayaError) as caught:
        validate_config(document)
    assert message in caught.value.message


def test_valid_overrides_merge_over_defaults():
    config = validate_config({"recall": {"alpha": 1}, "embedding": {"api_key_env": "X_KEY"}})
    assert config["recall"]["alpha"] == 1 and config["recall"]["beta"] == 0.3
    assert config["embedding"]["api_key_env"] == "X_KEY"


def test_bad_config_is_one_line_on_the_cli(cli, home):
    (home / "config.json").write_text(json.dumps({"recall": {"depth": 2}}))
    result = cli("status", "--json")
    assert result.exit_code == 2
    assert result.json()["error"] == {"code": "config_invalid",
                                      "message": f"{home / 'config.json'}: unknown key 'recall.depth'; "
                                                 "remove it or check its spelling"}
    assert len(result.stderr.strip().splitlines()) == 1


def test_changing_the_embedding_model_is_refused_with_a_pointer_to_rebuild(cli, home):
    config = json.loads((home / "config.json").read_text())
    config["embedding"].update(provider="openai", model="BAAI/bge-large-zh-v1.5", dimensions=1024,
                               base_url="http://127.0.0.1:9/v1")
    (home / "config.json").write_text(json.dumps(config))
    result = cli("status")
    assert result.exit_code == 2
    assert "this store was built with universal-sentence-encoder-multilingual-3 (512 dims)" in result.stderr
    assert "alaya rebuild" in result.stderr


def test_changing_the_graph_engine_is_refused(cli, home):
    config = json.loads((home / "config.json").read_text())
    config["graph"]["engine"] = "kuzu"
    (home / "config.json").write_text(json.dumps(config))
    result = cli("status")
    assert result.exit_code == 2 and "this store uses ladybug" in result.stderr


def test_status_counts_each_layer(cli, home, tmp_path):
    from conftest import write_session

    cli("ingest", str(write_session(tmp_path, "s-a")), str(write_session(tmp_path, "s-b", timestamp=1775050000000)))
    document = cli("status", "--json").json()
    assert document["l3"]["sessions"] == 2 and document["l3"]["bytes"] > 0
    assert document["l3"]["oldest"] == "2026-03-31" and document["l3"]["newest"] == "2026-04-01"
    assert document["l2"]["sessions"] == 2 and document["l2"]["cards"] == 0
    assert document["l1"]["relations"] == 9 and document["l1"]["embedding"]["dimension"] == 512
    assert "Sessions: 2" in cli("status").stdout


def test_l3_counts_session_files_only_and_every_byte_under_raw(home):
    from alaya_engine.raw.store import RawStore

    raw_dir = home / "raw"
    files = {"sessions/2026-04/session-a.json": 10, "sessions/2026-05/session-b.json": 20,
             "sessions/2026-05/session-b.md": 5, "sessions/session-c.json": 7, "sessions/2026-05/notes.json": 3,
             "contexts/card-1-context.json": 11}
    store = RawStore(raw_dir / "sessions", raw_dir / "contexts")
    before = store.stats()
    for name, size in files.items():
        (raw_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (raw_dir / name).write_bytes(b"x" * size)
    after = store.stats()
    assert after.sessions - before.sessions == 2  # not the summary, the misplaced file, or other names
    assert after.bytes - before.bytes == sum(files.values())
