//! The Elasticsearch backend against a real server process: osmem-server (see
//! `policy_search_es::test_server`). It has no `dense_vector`/kNN, so these tests run the vector
//! leg in exact mode; the kNN request bodies are pinned by `request_bodies.rs`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use policy_core::{load_cases, load_dir, Corpus};
use policy_search::contract::check_golden;
use policy_search::embed::default_model_dir;
use policy_search::indexer::index_corpus;
use policy_search::*;
use policy_search_es::test_server::OsmemServer as Osmem;
use policy_search_es::*;

fn chunk(version_id: &str, clause: &str, n: u32, text: &str) -> ChunkRecord {
    ChunkRecord {
        chunk_id: format!("{version_id}#{clause}/c{n}"),
        clause_id: format!("{version_id}#{clause}"),
        version_id: version_id.into(),
        region: version_id.split('-').next().unwrap().into(),
        title: clause.into(),
        text: text.into(),
        clause_text: text.into(),
        status: policy_core::ClauseStatus::Active,
    }
}

fn unit(i: usize) -> Vec<f32> {
    let mut v = vec![0.0; 4];
    v[i % 4] = 1.0;
    v
}

#[tokio::test]
async fn bulk_is_idempotent_and_a_rewrite_deletes_only_the_versions_stale_chunks() {
    let server = Osmem::start();
    let client = server.client("clauses");
    assert!(client.ensure_index(4).await.unwrap(), "created");
    assert!(
        !client.ensure_index(4).await.unwrap(),
        "second call finds it"
    );
    client.healthcheck().await.unwrap();

    let eu: Vec<ChunkRecord> = (0..3)
        .map(|n| chunk("eu-v4", "sec-3", n, "Return within 30 days."))
        .collect();
    let us = vec![chunk("us-v3", "sec-3", 0, "Return within 30 days.")];
    let vectors = |n: usize| (0..n).map(unit).collect::<Vec<_>>();
    client
        .write_version("us-v3", &us, &vectors(1))
        .await
        .unwrap();
    let first = client
        .write_version("eu-v4", &eu, &vectors(3))
        .await
        .unwrap();
    assert_eq!((first.written, first.stale_deleted), (3, 0));
    let again = client
        .write_version("eu-v4", &eu, &vectors(3))
        .await
        .unwrap();
    assert_eq!(again.stale_deleted, 0);
    assert_eq!(
        client.count(Some("eu-v4")).await.unwrap(),
        3,
        "ids are stable"
    );

    let shorter = client
        .write_version("eu-v4", &eu[..2], &vectors(2))
        .await
        .unwrap();
    assert_eq!(
        shorter.stale_deleted, 1,
        "the chunk no longer in the version"
    );
    assert_eq!(client.count(Some("eu-v4")).await.unwrap(), 2);
    assert_eq!(
        client.count(Some("us-v3")).await.unwrap(),
        1,
        "other version untouched"
    );

    assert_eq!(client.delete_version("eu-v4").await.unwrap(), 2);
    assert_eq!(client.count(None).await.unwrap(), 1);
}

#[tokio::test]
async fn a_write_that_mixes_versions_or_miscounts_vectors_is_refused() {
    let server = Osmem::start();
    let client = server.client("clauses");
    client.ensure_index(4).await.unwrap();
    let eu = vec![chunk("eu-v4", "sec-1", 0, "x")];
    let err = client
        .write_version("eu-v3", &eu, &[unit(0)])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("is not of version eu-v3"), "{err}");
    let err = client.write_version("eu-v4", &eu, &[]).await.unwrap_err();
    assert!(err.to_string().contains("0 vectors for 1 chunks"), "{err}");
    assert_eq!(client.count(None).await.unwrap(), 0);
}

#[tokio::test]
async fn errors_name_the_operation_and_the_servers_reason() {
    let server = Osmem::start();
    // osmem has no dense_vector: the knn mapping is rejected, with the server's reason.
    let knn = EsClient::new(EsConfig {
        url: server.url.clone(),
        index: "knn".into(),
        ..EsConfig::default()
    })
    .unwrap();
    let err = knn.ensure_index(384).await.unwrap_err().to_string();
    assert!(
        err.starts_with("elasticsearch create index rejected (400)"),
        "{err}"
    );
    assert!(err.contains("dense_vector"), "{err}");

    let missing = server.client("missing");
    let err = missing.healthcheck().await.unwrap_err().to_string();
    assert!(err.contains("index `missing` does not exist"), "{err}");

    let closed = EsClient::new(EsConfig {
        url: "http://127.0.0.1:9".into(),
        ..EsConfig::default()
    })
    .unwrap();
    let err = closed.count(None).await.unwrap_err().to_string();
    assert!(err.starts_with("elasticsearch count: "), "{err}");
}

#[tokio::test]
async fn the_lexical_leg_never_leaves_the_queried_version() {
    let server = Osmem::start();
    let client = server.client("clauses");
    client.ensure_index(4).await.unwrap();
    let text = "Gift cards cannot be returned or exchanged for cash.";
    for version in ["eu-v3", "eu-v4", "us-v3"] {
        let chunks = vec![chunk(version, "gift-cards", 0, text)];
        client
            .write_version(version, &chunks, &[unit(0)])
            .await
            .unwrap();
    }
    let found = client
        .search(
            "lexical leg",
            body::lexical_search("gift cards returned", "eu", "eu-v4", 50),
        )
        .await
        .unwrap();
    let ids: Vec<&str> = found.iter().map(|f| f.chunk.chunk_id.as_str()).collect();
    assert_eq!(ids, ["eu-v4#gift-cards/c0"]);
    assert!(found[0].score > 0.0, "BM25 scored");
    assert_eq!(
        found[0].embedding,
        unit(0),
        "vector comes back for the cosine"
    );
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden")
}

struct Golden {
    _dir: tempfile::TempDir,
    corpus: Corpus,
    index: Arc<EmbeddedIndex>,
    embedder: Arc<CachedEmbedder<Box<dyn Embedder>>>,
}

/// The golden corpus embedded once per test binary (about a minute on 2 cores).
fn golden_index() -> &'static Golden {
    static GOLDEN: OnceLock<Golden> = OnceLock::new();
    GOLDEN.get_or_init(|| {
        let corpus = load_dir(&golden_dir().join("policies")).unwrap();
        let embedder: Box<dyn Embedder> =
            Box::new(MiniLmEmbedder::load(&default_model_dir()).expect("model (make install)"));
        let dir = tempfile::tempdir().unwrap();
        let index = Arc::new(EmbeddedIndex::open(dir.path()).unwrap());
        index_corpus(&index, embedder.as_ref(), &corpus, |_, _| {}).unwrap();
        Golden {
            _dir: dir,
            corpus,
            index,
            embedder: Arc::new(CachedEmbedder::new(embedder, 4096)),
        }
    })
}

/// Same contract as the embedded backend on the golden set: hits only from the case's region
/// and version, best first; the expected clause in the top 3 for >= 98 % of answerable cases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_set_through_elasticsearch_meets_the_retrieval_contract() {
    let golden = golden_index();
    let server = Osmem::start();
    let client = Arc::new(server.client("policy-clauses"));
    let started = std::time::Instant::now();
    let versions: Vec<String> = golden.index.indexed_versions().into_keys().collect();
    let mirrored = mirror_versions(&client, &golden.index, &versions)
        .await
        .unwrap();
    assert_eq!(mirrored.len(), versions.len());
    assert_eq!(
        client.count(None).await.unwrap() as usize,
        golden.index.chunk_count()
    );

    println!("mirrored in {:?}", started.elapsed());
    let started = std::time::Instant::now();
    let es: Arc<dyn Retriever> = Arc::new(ElasticsearchRetriever::new(
        client.clone(),
        golden.embedder.clone(),
    ));
    assert_eq!(es.backend(), "elasticsearch");
    let embedded = EmbeddedRetriever::new(golden.index.clone(), golden.embedder.clone());
    let reranker = LinearReranker::default();
    let cases = load_cases(&golden_dir().join("cases")).unwrap();
    let expander = IndexExpander::new(golden.index.clone(), golden.embedder.clone());
    let runtime = tokio::runtime::Handle::current();
    let expand =
        |question: &str, version: &str| runtime.block_on(expander.expand(question, version));
    let report = tokio::task::block_in_place(|| {
        check_golden(&golden.corpus, &cases, &reranker, expand, |query| {
            runtime.block_on(es.retrieve(query))
        })
    })
    .unwrap();
    println!("queried in {:?}", started.elapsed());
    let reference = tokio::task::block_in_place(|| {
        check_golden(&golden.corpus, &cases, &reranker, expand, |query| {
            embedded.search(query)
        })
    })
    .unwrap();
    assert!(report.violations.is_empty(), "{:#?}", report.violations);
    let (recall, agreement) = (report.top3_recall(), report.top1_agreement(&reference));
    println!(
        "elasticsearch backend: expected clause in top 3 for {}/{} ({:.2} %), same top clause \
         as the embedded backend for {:.2} %; misses: {:?}",
        report.expected_in_top3,
        report.cases,
        recall * 100.0,
        agreement * 100.0,
        report.misses
    );
    // The embedded backend's bar (golden_retrieval.rs says why 0.96).
    assert!(
        recall >= 0.96,
        "top-3 recall {recall:.4}: {:?}",
        report.misses
    );
}
