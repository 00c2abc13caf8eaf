//! The whole pipeline on the Elasticsearch backend: `policyctl eval` with
//! `POLICY_SEARCH_BACKEND=elasticsearch` against a real osmem-server process (exact vector
//! mode: it has no kNN). The chunks are mirrored from the local index, then every golden case
//! is answered through Elasticsearch and must meet the thresholds of the embedded default (the
//! expected-clause bar 2 points lower: index-wide BM25 statistics) and agree with it.

mod common;

use common::workers::{eval_report, index_copy, policyctl};
use policy_search_es::test_server::OsmemServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_eval_on_the_elasticsearch_backend_meets_the_thresholds() {
    let server = OsmemServer::start();
    let dir = tempfile::tempdir().unwrap();
    let index = index_copy(dir.path());
    let eval = |backend: &str| {
        // Elasticsearch computes BM25 statistics over its whole index, every region and
        // version (the embedded index keeps them per version), which costs it about 1.5
        // points of expected-clause citation on golden/: its bar is 0.93, and it must stay
        // within 2 points of the embedded backend (below).
        let clause_bar = if backend == "elasticsearch" {
            "0.93"
        } else {
            "0.95"
        };
        policyctl()
            .args([
                "eval",
                "--json",
                "--min-expected-clause-citation",
                clause_bar,
            ])
            .arg("--index-dir")
            .arg(&index)
            .env("POLICY_SEARCH_BACKEND", backend)
            .env("POLICY_ES_URL", &server.url)
            .env("POLICY_ES_INDEX", "golden-clauses")
            .env("POLICY_ES_VECTOR_MODE", "exact")
            .output()
            .unwrap()
    };
    let out = eval("elasticsearch");
    let report = eval_report(&out);
    assert!(out.status.success(), "{}", report["failed_thresholds"]);
    assert_eq!(report["search_backend"], "elasticsearch");
    let overall = &report["overall"];
    assert_eq!(overall["cases"], 773);
    assert_eq!(overall["wrong_version_answers"], 0);
    assert_eq!(overall["citation_grounding_rate"], 1.0);

    // Every chunk of the local index was mirrored, once (ids are chunk ids).
    let client = server.client("golden-clauses");
    let local = policy_search::EmbeddedIndex::open_read_only(&index).unwrap();
    assert_eq!(
        client.count(None).await.unwrap() as usize,
        local.chunk_count()
    );

    // Same cases on the embedded default: the backends agree on the outcome metrics.
    let embedded: serde_json::Value = serde_json::from_slice(&eval("embedded").stdout).unwrap();
    assert_eq!(embedded["search_backend"], "embedded");
    for metric in ["outcome_accuracy", "expected_clause_citation_rate"] {
        let (es, local) = (
            overall[metric].as_f64().unwrap(),
            embedded["overall"][metric].as_f64().unwrap(),
        );
        println!("{metric}: elasticsearch {es:.4}, embedded {local:.4}");
        assert!((es - local).abs() <= 0.02, "{metric}: {es} vs {local}");
    }

    // A backend that cannot be reached is a clear start-up error, not an empty answer set.
    let unreachable = policyctl()
        .args(["eval", "--limit", "5", "--index-dir"])
        .arg(&index)
        .env("POLICY_SEARCH_BACKEND", "elasticsearch")
        .env("POLICY_ES_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert!(!unreachable.status.success());
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert!(stderr.contains("elasticsearch index exists"), "{stderr}");
}
