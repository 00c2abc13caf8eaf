//! Git → `policyctl policy publish` → reindex worker → published data directory → serving
//! worker, over the real broker: a new version is served once indexed, a rollback (an older sha
//! published again) is served with no reindex, an invalid manifest never leaves the publisher,
//! and an unusable document fails only its own version. Retrieval runs on the Elasticsearch
//! backend (a real osmem-server process), mirrored by the reindex worker.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::workers::{apply_topics, policyctl, repo, served, wait_served, Worker};
use policy_search_es::test_server::OsmemServer;
use rdkafka::consumer::{BaseConsumer, Consumer};

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "policy author")
        .env("GIT_AUTHOR_EMAIL", "author@example.com")
        .env("GIT_COMMITTER_NAME", "policy author")
        .env("GIT_COMMITTER_EMAIL", "author@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// The golden EU manifest, optionally without eu-v4 (eu-v3 then stays in force).
fn eu_manifest(with_v4: bool) -> serde_json::Value {
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("golden/policies/manifest.json")).unwrap(),
    )
    .unwrap();
    let mut eu = golden["regions"]["eu"].clone();
    if !with_v4 {
        let versions = eu["versions"].as_array_mut().unwrap();
        versions.retain(|v| v["id"] != "eu-v4");
        let v3 = versions.iter_mut().find(|v| v["id"] == "eu-v3").unwrap();
        v3["effective_to"] = serde_json::Value::Null;
    }
    let mut manifest = golden.clone();
    manifest["regions"] = serde_json::json!({ "eu": eu });
    manifest
}

fn commit(repo: &Path, message: &str) -> String {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", message]);
    git(repo, &["rev-parse", "HEAD"])
}

fn publish(prefix: &str, repo: &Path, rev: &str) -> std::process::Output {
    policyctl()
        .args([
            "policy",
            "publish",
            "--topic-prefix",
            prefix,
            "--rev",
            rev,
            "--repo",
        ])
        .arg(repo)
        .output()
        .unwrap()
}

fn changes_end_offset(prefix: &str) -> i64 {
    let consumer: BaseConsumer = common::config().client().create().unwrap();
    let mut end = 0;
    for partition in 0..6 {
        let (_, high) = consumer
            .fetch_watermarks(
                &format!("{prefix}.changes"),
                partition,
                Duration::from_secs(10),
            )
            .unwrap_or((0, 0));
        end += high;
    }
    end
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what} not within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn git_publish_reindex_serve_and_roll_back() {
    let prefix = format!("git-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let work = tempfile::tempdir().unwrap();
    let (policy_repo, data) = (work.path().join("policies"), work.path().join("data"));
    std::fs::create_dir_all(&policy_repo).unwrap();
    git(&policy_repo, &["init", "-q"]);
    let golden = repo().join("golden/policies/eu");
    for v in ["v1", "v2", "v3"] {
        copy_dir(&golden.join(v), &policy_repo.join("eu").join(v));
    }
    let write_manifest = |m: &serde_json::Value| {
        std::fs::write(policy_repo.join("manifest.json"), m.to_string()).unwrap()
    };
    write_manifest(&eu_manifest(false));
    let sha_a = commit(&policy_repo, "EU policy up to eu-v3");
    copy_dir(&golden.join("v4"), &policy_repo.join("eu/v4"));
    write_manifest(&eu_manifest(true));
    let sha_b = commit(&policy_repo, "eu-v4: 30-day return window from 2026-02-01");

    // Retrieval through the Elasticsearch backend: the reindex worker mirrors what it indexes
    // into a real (osmem) server before it publishes the manifest; serving reads from there.
    let search = OsmemServer::start();
    let es_index = format!("clauses-{prefix}");
    let data_env = data.to_str().unwrap();
    let env = [
        ("POLICY_DATA_DIR", data_env),
        ("POLICY_SEARCH_BACKEND", "elasticsearch"),
        ("POLICY_ES_URL", search.url.as_str()),
        ("POLICY_ES_INDEX", es_index.as_str()),
        ("POLICY_ES_VECTOR_MODE", "exact"),
    ];
    let es_count = |version: &str| {
        let client = search.client(&es_index);
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(client.count(Some(version)))
            .unwrap()
    };
    let reindex = Worker::start_with_env("reindex", &prefix, &env);
    let out = publish(&prefix, &policy_repo, &sha_a);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let current = || std::fs::read_to_string(data.join("corpus/CURRENT")).unwrap_or_default();
    wait_until("first publish indexed", Duration::from_secs(240), || {
        current() == sha_a
    });

    assert!(
        es_count("eu-v3") > 0,
        "mirrored before the manifest was published"
    );
    assert_eq!(es_count("eu-v4"), 0);
    let _serving = Worker::start_with_env("all", &prefix, &env);
    assert_eq!(
        served(&prefix),
        ("eu-v3".to_string(), sha_a.clone()),
        "before eu-v4 is published, a March 2026 purchase gets eu-v3"
    );

    // A new version through Git: indexed by the reindex worker, then served.
    let out = publish(&prefix, &policy_repo, &sha_b);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("since {sha_a}")),
        "a diff since the last published sha: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let took = wait_served(&prefix, "eu-v4", &sha_b, Duration::from_secs(180));
    println!("eu-v4 served {took:?} after publish (reindex included)");
    let eu_v4_chunks = es_count("eu-v4");
    assert!(eu_v4_chunks > 0);

    // Rollback: the older sha again. Its versions are all indexed: nothing is re-embedded.
    let out = publish(&prefix, &policy_repo, &sha_a);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let took = wait_served(&prefix, "eu-v3", &sha_a, Duration::from_secs(30));
    println!("rollback served {took:?} after publish");
    let log = std::fs::read_to_string(&reindex.log).unwrap();
    let last = log
        .lines()
        .rev()
        .find(|l| l.contains("policy change indexed"))
        .unwrap();
    assert!(
        last.contains("indexed=[]"),
        "rollback reindexed something: {last}"
    );
    assert_eq!(
        es_count("eu-v4"),
        eu_v4_chunks,
        "a rollback deletes nothing"
    );

    // An invalid manifest is refused by the publisher and never reaches a worker.
    let mut overlapping = eu_manifest(true);
    let versions = overlapping["regions"]["eu"]["versions"]
        .as_array_mut()
        .unwrap();
    let v1 = versions.iter_mut().find(|v| v["id"] == "eu-v1").unwrap();
    v1["effective_to"] = "2030-01-01".into();
    write_manifest(&overlapping);
    let sha_c = commit(&policy_repo, "broken manifest");
    let before = changes_end_offset(&prefix);
    let out = publish(&prefix, &policy_repo, &sha_c);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("refused"),
        "{stderr}"
    );
    assert_eq!(changes_end_offset(&prefix), before, "nothing was published");

    // An unusable document (a duplicated clause) fails its version only; the reindex goes on and
    // workers keep serving what they can serve.
    write_manifest(&eu_manifest(true));
    let returns = policy_repo.join("eu/v4/02-returns-and-refunds.md");
    let text = std::fs::read_to_string(&returns).unwrap();
    std::fs::write(
        &returns,
        format!("{text}\n### 3.2 Return window\n\nDuplicated.\n"),
    )
    .unwrap();
    let sha_d = commit(&policy_repo, "eu-v4 with a duplicated clause");
    let out = publish(&prefix, &policy_repo, &sha_d);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    wait_until(
        "the broken change processed",
        Duration::from_secs(60),
        || current() == sha_d,
    );
    let log = std::fs::read_to_string(&reindex.log).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("version not indexed") && l.contains("eu-v4")),
        "{log}"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        served(&prefix),
        ("eu-v3".to_string(), sha_a.clone()),
        "a manifest naming an unusable version is refused by the workers"
    );
}
