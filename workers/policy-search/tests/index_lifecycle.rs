//! Index persistence, idempotent reindexing and version replacement, with a tiny hand-made
//! embedder so these properties are checked quickly and independently of the model.

use std::sync::Arc;

use policy_search::index::VersionBatch;
use policy_search::indexer::{fingerprint, index_versions};
use policy_search::{
    CachedEmbedder, ChunkRecord, EmbedError, EmbeddedIndex, EmbeddedRetriever, Embedder,
    QueryVectors, RetrievalQuery, Retriever,
};

/// Bag-of-letters vectors: deterministic, and similar texts get similar vectors.
struct Letters;

impl Embedder for Letters {
    fn model_id(&self) -> &str {
        "letters"
    }
    fn dimension(&self) -> usize {
        26
    }
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = [0f32; 26];
                for c in t.to_lowercase().bytes().filter(u8::is_ascii_lowercase) {
                    v[(c - b'a') as usize] += 1.0;
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

fn chunk(version: &str, n: u32, text: &str) -> ChunkRecord {
    let region = version.split('-').next().unwrap();
    ChunkRecord {
        chunk_id: format!("{version}#sec-{n}/0"),
        clause_id: format!("{version}#sec-{n}"),
        version_id: version.into(),
        region: region.into(),
        title: format!("Clause {n}"),
        text: text.into(),
        clause_text: text.into(),
        status: policy_core::ClauseStatus::Active,
    }
}

fn retriever(index: Arc<EmbeddedIndex>) -> EmbeddedRetriever {
    EmbeddedRetriever::new(
        index,
        Arc::new(CachedEmbedder::new(
            Box::new(Letters) as Box<dyn Embedder>,
            16,
        )),
    )
}

#[test]
fn persists_across_reopen_and_skips_unchanged_versions() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = vec![
        chunk("eu-v1", 1, "returns within fourteen days"),
        chunk("eu-v1", 2, "refunds by card"),
    ];
    {
        let index = EmbeddedIndex::open(dir.path()).unwrap();
        let report = index_versions(
            &index,
            &Letters,
            vec![("eu-v1".into(), v1.clone())],
            |_, _| {},
        )
        .unwrap();
        assert_eq!((report.indexed_versions.len(), report.chunks), (1, 2));
    }
    let index = Arc::new(EmbeddedIndex::open(dir.path()).unwrap());
    assert_eq!(index.chunk_count(), 2);
    assert_eq!(
        index.indexed_versions()["eu-v1"],
        fingerprint(&v1, "letters")
    );
    let again = index_versions(&index, &Letters, vec![("eu-v1".into(), v1)], |_, _| {}).unwrap();
    assert_eq!(
        (again.indexed_versions.len(), again.unchanged_versions.len()),
        (0, 1)
    );
    let hits = retriever(index)
        .search(RetrievalQuery {
            expansion: "",
            text: "returns",
            region: "eu",
            version_id: "eu-v1",
            top_k: 1,
        })
        .unwrap();
    assert_eq!(hits[0].clause_id, "eu-v1#sec-1");
    assert_eq!(hits[0].lexical_rank, Some(1));
}

#[test]
fn replacing_a_version_leaves_others_and_swaps_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let index = Arc::new(EmbeddedIndex::open(dir.path()).unwrap());
    let batch = |v: &str, text: &str| (v.to_string(), vec![chunk(v, 1, text)]);
    index_versions(
        &index,
        &Letters,
        vec![batch("eu-v1", "old text"), batch("eu-v2", "other version")],
        |_, _| {},
    )
    .unwrap();
    let r = retriever(index.clone());
    let before = r
        .search(RetrievalQuery {
            expansion: "",
            text: "text",
            region: "eu",
            version_id: "eu-v1",
            top_k: 5,
        })
        .unwrap();
    index_versions(
        &index,
        &Letters,
        vec![batch("eu-v1", "new text replaced")],
        |_, _| {},
    )
    .unwrap();
    let after = r
        .search(RetrievalQuery {
            expansion: "",
            text: "text",
            region: "eu",
            version_id: "eu-v1",
            top_k: 5,
        })
        .unwrap();
    assert_eq!(before[0].text, "old text");
    assert_eq!(after.len(), 1, "old chunks of the version are gone");
    assert_eq!(after[0].text, "new text replaced");
    assert_eq!(
        index.version_chunks("eu-v2").len(),
        1,
        "other versions untouched"
    );
    assert_eq!(index.chunk_count(), 2);
}

#[test]
fn lexical_leg_is_derived_from_the_stored_chunks_on_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let index = EmbeddedIndex::open(dir.path()).unwrap();
        index_versions(
            &index,
            &Letters,
            vec![("jp-v1".into(), vec![chunk("jp-v1", 1, "eight days")])],
            |_, _| {},
        )
        .unwrap();
    }
    // The BM25 statistics are not a second store that can fall out of step with the chunks:
    // a fresh process (read-only, as a stage worker opens it) rebuilds them from the chunks.
    let index = Arc::new(EmbeddedIndex::open_read_only(dir.path()).unwrap());
    let hits = retriever(index)
        .search(RetrievalQuery {
            expansion: "",
            text: "eight",
            region: "jp",
            version_id: "jp-v1",
            top_k: 1,
        })
        .unwrap();
    assert_eq!(hits[0].lexical_rank, Some(1), "lexical leg works again");
}

#[test]
fn mismatched_vectors_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let index = EmbeddedIndex::open(dir.path()).unwrap();
    let batch = VersionBatch {
        version_id: "eu-v1".into(),
        fingerprint: "f".into(),
        chunks: vec![chunk("eu-v1", 1, "x")],
        vectors: vec![],
    };
    let err = index.replace_versions(vec![batch]).unwrap_err();
    assert!(err.to_string().contains("0 vectors for 1 chunks"), "{err}");
}

#[test]
fn a_read_only_reader_follows_its_writer_on_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let writer = EmbeddedIndex::open(dir.path()).unwrap();
    let v1 = vec![chunk("eu-v1", 1, "returns within fourteen days")];
    index_versions(&writer, &Letters, vec![("eu-v1".into(), v1)], |_, _| {}).unwrap();

    let reader = Arc::new(EmbeddedIndex::open_read_only(dir.path()).unwrap());
    assert_eq!(reader.chunk_count(), 1);
    let v2 = vec![chunk("eu-v2", 1, "returns within thirty days")];
    index_versions(&writer, &Letters, vec![("eu-v2".into(), v2)], |_, _| {}).unwrap();
    assert_eq!(reader.chunk_count(), 1, "nothing changes until refresh");
    reader.refresh().unwrap();
    assert_eq!(reader.chunk_count(), 2);
    let hits = retriever(reader.clone())
        .search(RetrievalQuery {
            expansion: "",
            text: "thirty",
            region: "eu",
            version_id: "eu-v2",
            top_k: 1,
        })
        .unwrap();
    assert_eq!(hits[0].clause_id, "eu-v2#sec-1");
    assert_eq!(
        hits[0].lexical_rank,
        Some(1),
        "the lexical leg was reloaded too"
    );
    let refused = reader.replace_versions(Vec::new()).unwrap_err();
    assert!(refused.to_string().contains("read-only"), "{refused}");
}

#[test]
fn a_story_is_searched_blended_with_what_it_asks_and_keeps_the_questions_own_cosines() {
    let dir = tempfile::tempdir().unwrap();
    let index = Arc::new(EmbeddedIndex::open(dir.path()).unwrap());
    let clauses = vec![
        chunk("eu-v1", 1, "returns within fourteen days of delivery"),
        chunk("eu-v1", 2, "parcels are delivered by courier to your door"),
        chunk("eu-v1", 3, "refunds are paid to the card used"),
    ];
    index_versions(&index, &Letters, vec![("eu-v1".into(), clauses)], |_, _| {}).unwrap();
    let r = retriever(index);
    let story = "The courier left my parcel with a neighbour who was away for a week. \
                 How do refunds work?";
    let query = || RetrievalQuery {
        expansion: "",
        text: story,
        region: "eu",
        version_id: "eu-v1",
        top_k: 5,
    };
    let blended = r.search(query()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let served = runtime.block_on(r.retrieve(query())).unwrap();
    assert_eq!(
        served, blended,
        "the served (async) path searches the same way"
    );
    let question = r.embedder().embed_query(story).unwrap();
    let as_written = r
        .search_with(query(), &QueryVectors::new(question, None))
        .unwrap();
    assert!(
        blended.iter().any(|h| h.cosine != h.question_cosine),
        "the story was searched with a blend"
    );
    for hit in &blended {
        let same = as_written
            .iter()
            .find(|h| h.clause_id == hit.clause_id)
            .unwrap();
        assert_eq!(hit.as_asked().cosine, same.cosine, "{}", hit.clause_id);
        assert_eq!(
            hit.question_body_cosine, same.body_cosine,
            "{}",
            hit.clause_id
        );
        assert_eq!(same.question_cosine, same.cosine, "unblended: one cosine");
    }
}
