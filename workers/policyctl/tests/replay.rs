//! Replay for forensics against the real broker, registry and ClickHouse: turns served by a
//! worker (and audited) are read back by offsets, by time and by turn id, re-run with the same
//! corpus and compared with their audit rows: every one reproduces what was served, and the
//! live consumer group's committed offsets do not move.

mod common;

use std::time::{Duration, Instant};

use common::audit::AuditDb;
use common::workers::{apply_topics, copy_dir, index_copy, policyctl, Worker};
use policy_kafka::assignment::group_progress;
use rdkafka::consumer::BaseConsumer;

const TURNS: usize = 40;

/// The live group's (committed, end) offsets over the turns topic, once it has committed
/// everything it consumed.
fn settled_progress(group: &str, turns_topic: &str) -> (i64, i64) {
    let consumer: BaseConsumer = common::config().consumer(group).create().unwrap();
    let topics = [turns_topic.to_string()];
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let progress = group_progress(&consumer, &topics, Duration::from_secs(10)).unwrap();
        if progress.0 == progress.1 {
            return progress;
        }
        assert!(
            Instant::now() < deadline,
            "group never caught up: {progress:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A worker serving `<prefix>.*` and an audit worker writing to a database of the test's own.
struct Served {
    prefix: String,
    db: AuditDb,
    worker: Worker,
    _audit: Worker,
}

async fn serving(name: &str) -> Served {
    let prefix = format!("{name}-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let db = AuditDb::fresh(name).await;
    let worker = Worker::start(&prefix);
    let _audit = Worker::start_with_env("audit", &prefix, &[("CLICKHOUSE_DATABASE", &db.name)]);
    Served {
        prefix,
        db,
        worker,
        _audit,
    }
}

/// `--topic-range` over every partition of the turns topic, whole.
fn every_partition() -> Vec<String> {
    (0..6)
        .flat_map(|p| ["--topic-range".to_string(), format!("{p}:0-100000")])
        .collect()
}

/// `policyctl replay --fail-on-change ARGS` against the served topics and audit database,
/// expected to exit with `exit`; the diff records.
fn replay(
    served: &Served,
    index: &std::path::Path,
    args: &[&str],
    exit: i32,
) -> Vec<serde_json::Value> {
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let out = policyctl()
        .args([
            "replay",
            "--topic-prefix",
            &served.prefix,
            "--fail-on-change",
            "--index-dir",
        ])
        .arg(index)
        .arg("--out")
        .arg(out_file.path())
        .args(args)
        .env("CLICKHOUSE_DATABASE", &served.db.name)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(exit),
        "replay {args:?}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(out_file.path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn replayed_turns_reproduce_what_was_served_without_touching_the_live_group() {
    let served = serving("replay").await;
    let (prefix, db) = (&served.prefix, &served.db);
    let started_ms = chrono::Utc::now().timestamp_millis() - 1_000;
    let out = policyctl()
        .args([
            "eval",
            "--via-kafka",
            "--json",
            "--limit",
            &TURNS.to_string(),
        ])
        .args(["--topic-prefix", prefix, "--timeout-secs", "180"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db.wait_for_rows(TURNS, Duration::from_secs(120)).await;
    let turns_topic = format!("{prefix}.turns");
    let group = format!("{prefix}-all");
    let before = tokio::task::block_in_place(|| settled_progress(&group, &turns_topic));
    assert_eq!(before.1, TURNS as i64);

    let dir = tempfile::tempdir().unwrap();
    let index = index_copy(dir.path());
    let ranges = every_partition();
    let args: Vec<&str> = ranges.iter().map(String::as_str).collect();
    let by_offsets = replay(&served, &index, &args, 0);
    assert_eq!(by_offsets.len(), TURNS);
    for diff in &by_offsets {
        assert_eq!(diff["change"], "same", "{diff}");
        assert_eq!(diff["input"]["topic"], turns_topic.as_str());
    }

    let to = (chrono::Utc::now() + chrono::Duration::minutes(1)).to_rfc3339();
    let from = chrono::DateTime::from_timestamp_millis(started_ms)
        .unwrap()
        .with_timezone(&chrono::FixedOffset::east_opt(9 * 3600).unwrap())
        .to_rfc3339();
    let by_time = replay(
        &served,
        &index,
        &["--from-time", &from, "--to-time", &to],
        0,
    );
    assert_eq!(
        by_time.len(),
        TURNS,
        "an instant with an offset is normalised"
    );

    let one = by_offsets[7]["turn_id"].as_str().unwrap().to_string();
    let by_id = replay(&served, &index, &["--turn-id", &one], 0);
    assert_eq!(by_id.len(), 1);
    assert_eq!(by_id[0]["turn_id"], one.as_str());
    assert_eq!(by_id[0]["input"], by_offsets[7]["input"]);
    assert_eq!(by_id[0]["change"], "same");

    // From the audit store alone (as once the topic's retention has dropped the turns).
    let kept = db
        .scalar(&format!(
            "SELECT count() FROM {}.turns FINAL WHERE has_received = 1 AND input_schema_id > 0",
            db.name
        ))
        .await;
    assert_eq!(
        kept as usize, TURNS,
        "every row keeps its turn and schema id"
    );
    let from_audit = replay(
        &served,
        &index,
        &["--audit-where", "resolved_region IN ('eu', 'us')"],
        0,
    );
    assert!(!from_audit.is_empty());
    for diff in &from_audit {
        assert_eq!(diff["change"], "same", "{diff}");
        let same_turn = by_offsets
            .iter()
            .find(|d| d["turn_id"] == diff["turn_id"])
            .unwrap();
        assert_eq!(diff["input"], same_turn["input"]);
    }

    let after = tokio::task::block_in_place(|| settled_progress(&group, &turns_topic));
    assert_eq!(
        before, after,
        "the live group's committed offsets did not move"
    );
    assert!(served.worker.stop().success());
    served.db.drop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_what_if_corpus_shows_the_answers_that_would_change() {
    // The same turns under a corpus where the EU v4 return window is 45 days: the EU v4 return
    // window answers change, nothing else does.
    let served = serving("whatif").await;
    let cases = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for entry in std::fs::read_dir(common::workers::repo().join("golden/cases")).unwrap() {
        all.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    let window: Vec<&str> = all
        .lines()
        .filter(|l| l.contains("\"gt-eu-return-window-eu-v"))
        .collect();
    assert!(window.len() >= 4, "golden EU return-window cases");
    std::fs::write(cases.path().join("cases.jsonl"), window.join("\n") + "\n").unwrap();
    let out = policyctl()
        .args(["eval", "--via-kafka", "--json", "--golden"])
        .arg(cases.path())
        .args(["--topic-prefix", &served.prefix, "--timeout-secs", "180"])
        .args([
            "--min-outcome-accuracy",
            "0",
            "--min-expected-clause-citation",
            "0",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    served
        .db
        .wait_for_rows(window.len(), Duration::from_secs(120))
        .await;

    let candidate = tempfile::tempdir().unwrap();
    copy_dir(
        &common::workers::repo().join("golden/policies"),
        candidate.path(),
    );
    let returns = candidate.path().join("eu/v4/02-returns-and-refunds.md");
    let text = std::fs::read_to_string(&returns).unwrap();
    assert!(text.contains("within 30 calendar days"));
    // Legal changed the text but not the clause's rule: the candidate is refused, naming it.
    std::fs::write(
        &returns,
        text.replace("within 30 calendar days", "within 45 calendar days"),
    )
    .unwrap();
    let index = tempfile::tempdir().unwrap();
    let candidate_dir = candidate.path().display().to_string();
    let refused = policyctl()
        .args([
            "replay",
            "--topic-prefix",
            &served.prefix,
            "--policies",
            &candidate_dir,
        ])
        .args(every_partition())
        .env("CLICKHOUSE_DATABASE", &served.db.name)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("refused: eu-v4#sec-3.2: rule return_window_days=30"),
        "{stderr}"
    );
    // Text and rule together, as a policy pull request would change them.
    std::fs::write(
        &returns,
        text.replace("within 30 calendar days", "within 45 calendar days")
            .replace("return_window_days=30", "return_window_days=45"),
    )
    .unwrap();
    let mut args = vec!["--policies", candidate_dir.as_str()];
    let ranges = every_partition();
    args.extend(ranges.iter().map(String::as_str));
    let diffs = replay(&served, index.path(), &args, 3);
    assert_eq!(diffs.len(), window.len());
    let mut changed = 0;
    for diff in &diffs {
        let v4 = diff["turn_id"].as_str().unwrap().contains("-eu-v4-");
        match diff["change"].as_str().unwrap() {
            "same" => {}
            "text_changed" if v4 => {
                // Only the window moved: same clauses, and the new number in place of the old.
                assert!(diff["recorded"]["text"].as_str().unwrap().contains("30 calendar days"));
                assert!(diff["rerun"]["text"].as_str().unwrap().contains("45 calendar days"));
                changed += 1;
            }
            other => panic!("{other}: an EU v3 order keeps its answer, a v4 one changes its number only: {diff}"),
        }
    }
    assert!(changed >= 1, "the changed window shows: {diffs:?}");

    // Re-judged, no retrieval and no generation: under the served corpus every served answer
    // still passes; under the candidate exactly the EU v4 answers stating the old window fail.
    let rejudge = |extra: &[&str], exit: i32| -> Vec<serde_json::Value> {
        let mut args = vec!["--rejudge", "--audit-where", "resolved_region = 'eu'"];
        args.extend_from_slice(extra);
        replay(&served, index.path(), &args, exit)
    };
    let now = rejudge(&[], 0);
    assert!(!now.is_empty());
    assert!(now.iter().all(|r| r["verdict_now"] == "pass"), "{now:?}");
    let candidate = rejudge(&["--policies", candidate_dir.as_str()], 3);
    for r in &candidate {
        let states_old_window = r["resolved_version"] == "eu-v4"
            && r["text"].as_str().unwrap().contains("30 calendar days");
        assert_eq!(r["verdict_now"] == "reject", states_old_window, "{r}");
        if states_old_window {
            assert!(
                r["reasons_now"][0]
                    .as_str()
                    .unwrap()
                    .starts_with("ungrounded_fact: `30`"),
                "{r}"
            );
        }
    }
    assert!(served.worker.stop().success());
    served.db.drop().await;
}
