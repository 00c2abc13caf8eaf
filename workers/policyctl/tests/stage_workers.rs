//! The pipeline as four separate consumer groups (enrich → retrieve → generate → judge) chained
//! through the intermediate topics gives the same outcomes as `worker all`.

mod common;

use common::workers::{apply_topics, eval_report, policyctl, Worker};

#[tokio::test(flavor = "multi_thread")]
async fn per_stage_workers_chain_through_intermediate_topics() {
    let prefix = format!("stages-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let _workers: Vec<Worker> = ["enrich", "retrieve", "generate", "judge"]
        .iter()
        .map(|stage| Worker::start_stage(stage, &prefix))
        .collect();
    let out = policyctl()
        .args([
            "eval",
            "--via-kafka",
            "--json",
            "--limit",
            "120",
            "--topic-prefix",
            &prefix,
            "--timeout-secs",
            "180",
        ])
        .output()
        .unwrap();
    let report = eval_report(&out);
    assert_eq!(report["delivery"]["outcomes"], 120);
    assert_eq!(report["delivery"]["duplicate_outcomes"], 0);
    assert_eq!(report["overall"]["wrong_version_answers"], 0);
    assert!(
        report["overall"]["outcome_accuracy"].as_f64().unwrap() >= 0.97,
        "{}",
        report["overall"]
    );
}
