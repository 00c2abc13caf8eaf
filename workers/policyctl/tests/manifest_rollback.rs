//! Manifest hot reload over the compacted manifest topic: a rollback (an older manifest published
//! again) is served by a running worker within 5 s with no reindex, and so is the roll forward;
//! an invalid manifest is refused at publish, and one naming unindexed versions by the worker.

mod common;

use std::path::Path;
use std::time::Duration;

use common::workers::{apply_topics, policyctl, repo, served, wait_served, Worker};

fn publish(prefix: &str, manifest: &Path, git_sha: &str) -> std::process::Output {
    policyctl()
        .args([
            "manifest",
            "publish",
            "--topic-prefix",
            prefix,
            "--git-sha",
            git_sha,
        ])
        .arg(manifest)
        .output()
        .unwrap()
}

#[test]
fn rollback_and_roll_forward_are_served_within_5_seconds() {
    let prefix = format!("manifest-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let _worker = Worker::start(&prefix);
    assert_eq!(
        served(&prefix).0,
        "eu-v4",
        "the corpus manifest is served at start"
    );

    let current = std::fs::read_to_string(repo().join("golden/policies/manifest.json")).unwrap();
    let mut rolled_back: serde_json::Value = serde_json::from_str(&current).unwrap();
    let eu = rolled_back["regions"]["eu"]["versions"]
        .as_array_mut()
        .unwrap();
    eu.retain(|v| v["id"] != "eu-v4");
    eu.iter_mut().find(|v| v["id"] == "eu-v3").unwrap()["effective_to"] = serde_json::Value::Null;
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (
        dir.path().join("rolled-back.json"),
        dir.path().join("current.json"),
    );
    std::fs::write(&old, rolled_back.to_string()).unwrap();
    std::fs::write(&new, &current).unwrap();

    assert!(publish(&prefix, &old, "rollback-sha").status.success());
    let took = wait_served(&prefix, "eu-v3", "rollback-sha", Duration::from_secs(5));
    println!("rollback served after {took:?}");
    assert!(publish(&prefix, &new, "forward-sha").status.success());
    let took = wait_served(&prefix, "eu-v4", "forward-sha", Duration::from_secs(5));
    println!("roll forward served after {took:?}");

    // Refused at publish: never reaches the workers.
    let broken = dir.path().join("broken.json");
    std::fs::write(
        &broken,
        current.replace("\"effective_to\": null", "\"effective_to\": \"1999-01-01\""),
    )
    .unwrap();
    let out = publish(&prefix, &broken, "broken-sha");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("refused"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Valid, but naming a version this worker has not indexed: the worker keeps what it serves.
    let mut ahead: serde_json::Value = serde_json::from_str(&current).unwrap();
    let eu = ahead["regions"]["eu"]["versions"].as_array_mut().unwrap();
    eu.iter_mut().find(|v| v["id"] == "eu-v4").unwrap()["effective_to"] = "2026-10-01".into();
    eu.push(
        serde_json::json!({"id": "eu-v5", "effective_from": "2026-10-01", "effective_to": null}),
    );
    let unindexed = dir.path().join("unindexed.json");
    std::fs::write(&unindexed, ahead.to_string()).unwrap();
    assert!(publish(&prefix, &unindexed, "unindexed-sha")
        .status
        .success());
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        served(&prefix),
        ("eu-v4".to_string(), "forward-sha".to_string())
    );
}
