//! Snapshot tests: the exact JSON of every request body the backend sends. A change to a body
//! fails here until the snapshot is reviewed and rewritten with `UPDATE_SNAPSHOTS=1`.

use std::path::PathBuf;

use policy_search::ChunkRecord;
use policy_search_es::body;
use policy_search_es::VectorMode;
use serde_json::Value;

fn assert_snapshot(name: &str, value: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.json"));
    let actual = serde_json::to_string_pretty(value).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run with UPDATE_SNAPSHOTS=1 and review",
            path.display()
        )
    });
    assert_eq!(
        expected,
        actual,
        "request body `{name}` changed; if intended, rerun with UPDATE_SNAPSHOTS=1 and review \
         the diff of {}",
        path.display()
    );
}

fn chunk(clause_id: &str, n: u32) -> ChunkRecord {
    let version_id = clause_id.split('#').next().unwrap();
    ChunkRecord {
        chunk_id: format!("{clause_id}/c{n}"),
        clause_id: clause_id.into(),
        version_id: version_id.into(),
        region: version_id.split('-').next().unwrap().into(),
        title: "Withdrawal period".into(),
        text: "Right of withdrawal: Withdrawal period. You may return an item within 30 days."
            .into(),
        clause_text: "You may return an item within 30 days of delivery.".into(),
        status: policy_core::ClauseStatus::Active,
    }
}

// Exactly representable in f32 and f64, so the JSON shows the numbers as written.
const VECTOR: [f32; 4] = [0.5, -0.25, 0.125, 0.0];

#[test]
fn index_definition_for_elasticsearch_knn() {
    assert_snapshot(
        "index_definition_knn",
        &body::index_definition(384, VectorMode::Knn),
    );
}

#[test]
fn index_definition_for_exact_vectors() {
    assert_snapshot(
        "index_definition_exact",
        &body::index_definition(384, VectorMode::Exact),
    );
}

#[test]
fn lexical_leg() {
    assert_snapshot(
        "lexical_leg",
        &body::lexical_search("return window refund", "eu", "eu-v4", 50),
    );
}

#[test]
fn vector_leg_knn() {
    assert_snapshot(
        "vector_leg_knn",
        &body::knn_search(&VECTOR, "eu", "eu-v4", 50, 200),
    );
}

#[test]
fn vector_leg_knn_never_asks_for_fewer_candidates_than_hits() {
    let request = body::knn_search(&VECTOR, "eu", "eu-v4", 50, 10);
    assert_eq!(request["knn"]["num_candidates"], 50);
}

#[test]
fn vector_leg_exact() {
    assert_snapshot(
        "vector_leg_exact",
        &body::version_chunks_search("eu", "eu-v4", 5001),
    );
}

#[test]
fn both_legs_share_one_filter() {
    let filter = body::version_filter("jp", "jp-v2");
    let lexical = body::lexical_search("gift card", "jp", "jp-v2", 50);
    let knn = body::knn_search(&VECTOR, "jp", "jp-v2", 50, 200);
    let exact = body::version_chunks_search("jp", "jp-v2", 100);
    assert_eq!(lexical["query"]["bool"]["filter"], filter);
    assert_eq!(knn["knn"]["filter"], filter);
    assert_eq!(exact["query"]["bool"]["filter"], filter);
}

#[test]
fn stale_chunks_of_a_rewritten_version() {
    assert_snapshot(
        "stale_chunks_query",
        &body::stale_chunks_query("eu-v4", &["eu-v4#sec-3.2/c0", "eu-v4#sec-3.2/title"]),
    );
}

#[test]
fn bulk_lines_key_documents_by_chunk_id() {
    let chunks = [chunk("eu-v4#sec-3.2", 0), chunk("eu-v4#sec-3.2", 1)];
    let vectors = [VECTOR.to_vec(), VECTOR.to_vec()];
    let lines = body::bulk_lines(&chunks, &vectors);
    assert_eq!(lines.len(), 4, "an action line and a document per chunk");
    assert_snapshot("bulk_lines", &Value::Array(lines));
}
