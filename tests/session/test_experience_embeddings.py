"""Experience ranked by embeddings over real HTTP against the loopback server's /v1/embeddings
(deterministic vectors): the related experience first, vectors cached beside the files and made again
only for a changed text, TaskWeaver's own vectors used as they are, and a server without embeddings
falling back to BM25, said once."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from twnb.config import Redactor
from twnb.llm import OpenAIChatClient
from twnb.session.experience import ExperienceStore
from twnb.session.experience_embeddings import CACHE_FILE, ExperienceEmbeddings

MODEL = "fake-embedding"
SECRET = "sk-embedding-abcdefghijklmnopqrstuvwxyz0123456789"
PLOTLY = "Plot every chart with plotly, never matplotlib."
DATES = "Dates in the sales files are day-first: parse them with dayfirst=True."


def store(folder: Path, base_url: str) -> ExperienceStore:
    client = OpenAIChatClient("sk-test", base_url, redact=Redactor([SECRET]).redact)
    embeddings = ExperienceEmbeddings(MODEL, lambda texts: client.embed(MODEL, texts), folder)
    return ExperienceStore(folder, Redactor([SECRET]).redact, embeddings=embeddings)


def embedded(fake_llm) -> list[list[str]]:
    """The texts of each embeddings request the server received, in order."""
    return [r["body"]["input"] for r in fake_llm.requests() if r["path"].endswith("/embeddings")]


def test_the_related_experience_ranks_first_by_embeddings(fake_llm, tmp_path):
    experiences = store(tmp_path, fake_llm.base_url)
    experiences.remember_text(PLOTLY)
    experiences.remember_text(DATES)
    (best, score), *_ = experiences.retrieve("Chart monthly revenue with plotly")
    assert best.experience_text == PLOTLY and score > 0.2
    assert experiences.ranked_by == f"embeddings ({MODEL})"
    assert [r["body"]["model"] for r in fake_llm.requests() if r["path"].endswith("/embeddings")] == [MODEL]


def test_vectors_are_cached_beside_the_files_and_made_again_only_for_a_changed_text(fake_llm, tmp_path):
    first = store(tmp_path, fake_llm.base_url)
    first.remember_text(PLOTLY)
    dates = first.remember_text(DATES)
    first.retrieve("Chart revenue")
    assert sorted(embedded(fake_llm)[0][1:]) == sorted([PLOTLY, DATES])
    store(tmp_path, fake_llm.base_url).retrieve("Chart revenue")  # a new session: the cache is read
    assert embedded(fake_llm)[1] == ["Chart revenue"]
    changed = "Dates are month-first here."
    assert dates.path is not None
    dates.path.write_text(yaml.safe_dump({"exp_id": dates.exp_id, "experience_text": changed}))
    store(tmp_path, fake_llm.base_url).retrieve("Chart revenue")
    assert embedded(fake_llm)[2] == ["Chart revenue", changed]
    assert len(json.loads((tmp_path / CACHE_FILE).read_text())["vectors"]) == 2  # the old text's is gone


def test_an_experience_file_with_the_same_models_vector_is_not_embedded_again(fake_llm, tmp_path):
    tmp_path.mkdir(exist_ok=True)
    own = {
        "exp_id": "tw-1",
        "experience_text": PLOTLY,
        "embedding_model": MODEL,
        "embedding": [0.0] * 63 + [1.0],
    }
    (tmp_path / "exp_tw-1.yaml").write_text(yaml.safe_dump(own))
    store(tmp_path, fake_llm.base_url).retrieve("Chart revenue")
    assert embedded(fake_llm) == [["Chart revenue"]]


def test_secrets_are_redacted_before_they_are_embedded(fake_llm, tmp_path):
    experiences = store(tmp_path, fake_llm.base_url)
    experiences.remember_text(PLOTLY)
    experiences.retrieve(f"Chart revenue with the key {SECRET}")
    assert embedded(fake_llm) and SECRET not in json.dumps(fake_llm.requests())


def test_a_server_without_embeddings_falls_back_to_bm25_and_says_so_once(fake_llm, tmp_path):
    fake_llm.embeddings = False
    experiences = store(tmp_path, fake_llm.base_url)
    experiences.remember_text(PLOTLY)
    experiences.remember_text(DATES)
    ((best, _),) = experiences.retrieve("Plot the chart with plotly")
    assert best.experience_text == PLOTLY and experiences.ranked_by == "BM25"
    note = experiences.take_note()
    assert note is not None and "\n" not in note
    assert note.startswith(f"Experience is ranked by BM25: the server gave no embeddings for '{MODEL}' (")
    assert "404" in note
    experiences.retrieve("Plot the chart with plotly")
    assert experiences.take_note() is None
    assert len([r for r in fake_llm.requests() if r["path"].endswith("/embeddings")]) == 1  # not asked again


def test_a_large_folder_is_embedded_in_batches(fake_llm, tmp_path, monkeypatch):
    monkeypatch.setattr("twnb.session.experience_embeddings.BATCH", 2)
    experiences = store(tmp_path, fake_llm.base_url)
    for n in range(4):
        experiences.remember_text(f"{PLOTLY} ({n})")
    (best, _), *_ = experiences.retrieve("Chart revenue with plotly")
    assert PLOTLY in best.experience_text
    assert [len(texts) for texts in embedded(fake_llm)] == [2, 2, 1]  # the request and 4 experiences
