//! Retention end to end with the real model: a version past `retention_days` is indexed as
//! stubs, a question about an order under it escalates (`retired_version`) instead of being
//! answered from stale terms, newer versions are untouched, and a longer retention brings the
//! version's full text back. The corpus is the golden US policy (4 versions), retention judged
//! on 2026-03-01: with 30 days, us-v1 (ended 2025-01-01) is retired, us-v2 (ends 2026-07-01)
//! is not.

use std::path::Path;

use policy_avro::{ChatTurn, InputCoordinates};
use policy_core::parse_utc_instant;
use policy_pipeline::{embedded, Outcome, PipelineConfig};
use policy_search::embed::default_model_dir;

fn us_only_corpus(into: &Path) {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden/policies");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(golden.join("manifest.json")).unwrap())
            .unwrap();
    let us = manifest["regions"]["us"].take();
    manifest["regions"] = serde_json::json!({ "us": us });
    std::fs::write(into.join("manifest.json"), manifest.to_string()).unwrap();
    for version in ["v1", "v2", "v3", "v4"] {
        let (from, to) = (
            golden.join("us").join(version),
            into.join("us").join(version),
        );
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn turn(id: &str, purchased: &str) -> ChatTurn {
    ChatTurn {
        conversation_id: format!("conv-{id}"),
        turn_id: id.into(),
        question: "How many days do I have to return an item?".into(),
        session_region: Some("us".into()),
        purchase_at: Some(parse_utc_instant(purchased).unwrap().timestamp_millis()),
        sent_at: parse_utc_instant("2026-11-01").unwrap().timestamp_millis(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retired_version_is_served_as_stubs_and_never_answered_from() {
    let work = tempfile::tempdir().unwrap();
    let (policies, index_dir) = (work.path().join("policies"), work.path().join("index"));
    std::fs::create_dir_all(&policies).unwrap();
    us_only_corpus(&policies);
    let build = |retention_days| {
        let config = PipelineConfig {
            retention_days,
            ..PipelineConfig::default()
        };
        let as_of = parse_utc_instant("2026-03-01").unwrap();
        embedded::build_at(
            &policies,
            &index_dir,
            &default_model_dir(),
            config,
            None,
            as_of,
        )
        .unwrap()
    };

    let short = build(30);
    let stubs = short.index.version_chunks("us-v1");
    let clauses = short.corpus.version_clauses("us-v1").count();
    assert_eq!(
        stubs.len(),
        clauses,
        "one stub per clause: every id stays resolvable"
    );
    for stub in &stubs {
        assert_eq!(stub.status, policy_core::ClauseStatus::Retired);
        assert!(stub.chunk_id.ends_with("/retired"), "{}", stub.chunk_id);
        assert!(stub.text.contains("no longer in effect"), "{}", stub.text);
    }
    assert!(short
        .index
        .version_chunks("us-v2")
        .iter()
        .all(|c| c.status == policy_core::ClauseStatus::Active));

    let input = InputCoordinates::default();
    match short
        .chain
        .process(turn("old-order", "2024-06-01"), input.clone())
        .await
        .unwrap()
    {
        Outcome::Escalate(e) => {
            assert_eq!(e.resolved_version.as_deref(), Some("us-v1"));
            assert_eq!(e.reason_code, "retired_version", "{:?}", e.reasons);
        }
        Outcome::Answer(a) => panic!("answered from a retired version: {}", a.answer_text),
    }
    match short
        .chain
        .process(turn("recent-order", "2025-03-01"), input.clone())
        .await
        .unwrap()
    {
        Outcome::Answer(a) => assert_eq!(a.resolved_version, "us-v2"),
        Outcome::Escalate(e) => panic!("us-v2 is in retention: {:?}", e.reasons),
    }
    drop(short);

    // Seven years' retention: us-v1 is back in full, and only it was reindexed.
    let long = build(2557);
    assert_eq!(long.index_report.indexed_versions, ["us-v1"]);
    assert!(long
        .index
        .version_chunks("us-v1")
        .iter()
        .all(|c| c.status == policy_core::ClauseStatus::Active));
    match long
        .chain
        .process(turn("old-order-again", "2024-06-01"), input)
        .await
        .unwrap()
    {
        Outcome::Answer(a) => assert_eq!(a.resolved_version, "us-v1"),
        Outcome::Escalate(e) => panic!("us-v1 within retention: {:?}", e.reasons),
    }
}
