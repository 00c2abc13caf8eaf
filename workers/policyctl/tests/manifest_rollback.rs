//! Manifest hot reload over the compacted manifest topic: a rollback (an older manifest published
//! again) is served by a running worker within 5 s with no reindex, and so is the roll forward;
//! an invalid manifest is refused at publish, and one naming unindexed versions by the worker.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::workers::{apply_topics, policyctl, repo, Worker};

/// (resolved version, manifest sha) served for an EU purchase on 2026-03-01.
fn served(prefix: &str) -> (String, String) {
    let out = policyctl()
        .args([
            "ask",
            "--json",
            "--region",
            "eu",
            "--purchased-at",
            "2026-03-01T10:00:00Z",
            "--topic-prefix",
            prefix,
            "--timeout-secs",
            "30",
        ])
        .arg("What is the return window for my purchase?")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ask: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let answer = &json["answer"];
    (
        answer["resolved_version"].as_str().unwrap().to_string(),
        answer["manifest_sha"].as_str().unwrap().to_string(),
    )
}

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

/// Polls until the worker serves `version` under `git_sha`; returns how long it took.
fn wait_served(prefix: &str, version: &str, git_sha: &str, limit: Duration) -> Duration {
    let started = Instant::now();
    loop {
        let (served_version, sha) = served(prefix);
        if served_version == version && sha == git_sha {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < limit,
            "still serving {served_version} ({sha}) after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
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
