//! Forensics against the real broker, registry and ClickHouse. Turns served by a worker (and
//! audited) are read back by offsets, by time, by turn and conversation id, from the audit store
//! by condition and named filter, and after the turns topic is gone; each re-run reproduces what
//! was served and the live consumer group's committed offsets never move. Over a Git policy
//! repository: a change B is re-judged over what was served under A, a pinned re-run reproduces
//! every answer byte for byte after B is checked out, a what-if under B changes exactly the
//! answers B changes, `policy impact` passes a future-dated version and fails an edit of a
//! version in force, and an evidence bundle verifies against its digests.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::audit::AuditDb;
use common::workers::{apply_topics, copy_dir, index_copy, policyctl, repo, Worker};
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

/// A worker serving `<prefix>.*` (with `env`) and an audit worker writing to a database of the
/// test's own.
struct Served {
    prefix: String,
    db: AuditDb,
    worker: Option<Worker>,
    _audit: Worker,
}

impl Served {
    /// Stops the serving worker gracefully.
    fn stop_worker(&mut self) {
        let worker = self.worker.take().expect("the worker runs");
        assert!(worker.stop().success());
    }
}

async fn serving(name: &str, env: &[(&str, &str)]) -> Served {
    let prefix = format!("{name}-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let db = AuditDb::fresh(name).await;
    let worker = Some(Worker::start_with_env("all", &prefix, env));
    let _audit = Worker::start_with_env("audit", &prefix, &[("CLICKHOUSE_DATABASE", &db.name)]);
    Served {
        prefix,
        db,
        worker,
        _audit,
    }
}

/// `eval --via-kafka` over `cases` (a file or directory), waiting for every audit row.
async fn send(served: &Served, cases: &[&str], rows: usize) {
    let out = policyctl()
        .args(["eval", "--via-kafka", "--json"])
        .args(cases)
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
    let seen = served
        .db
        .wait_for_rows(rows, Duration::from_secs(120))
        .await;
    assert_eq!(seen, rows, "every turn audited");
}

/// `--topic-range` over every partition of the turns topic, whole.
fn every_partition() -> Vec<String> {
    (0..6)
        .flat_map(|p| ["--topic-range".to_string(), format!("{p}:0-100000")])
        .collect()
}

/// `policyctl ARGS` with the served audit database, expected to exit with `exit`; its standard
/// output.
fn run_policyctl(served: &Served, args: &[&str], exit: i32) -> String {
    let out = policyctl()
        .args(args)
        .env("CLICKHOUSE_DATABASE", &served.db.name)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(exit),
        "{args:?}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// `policyctl replay --fail-on-change --quiet ARGS`, expected to exit with `exit`; the diff
/// records.
fn replay(served: &Served, index: &Path, args: &[&str], exit: i32) -> Vec<serde_json::Value> {
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let mut all = vec!["replay", "--fail-on-change", "--quiet", "--index-dir"];
    let index = index.display().to_string();
    let out = out_file.path().display().to_string();
    all.extend([index.as_str(), "--out", out.as_str()]);
    all.extend(["--topic-prefix", served.prefix.as_str()]);
    all.extend_from_slice(args);
    run_policyctl(served, &all, exit);
    std::fs::read_to_string(out_file.path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn turn_ids(diffs: &[serde_json::Value]) -> BTreeSet<String> {
    diffs
        .iter()
        .map(|d| d["turn_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn replayed_turns_reproduce_what_was_served_without_touching_the_live_group() {
    let mut served = serving("replay", &[]).await;
    let prefix = &served.prefix.clone();
    let started_ms = chrono::Utc::now().timestamp_millis() - 1_000;
    send(&served, &["--limit", &TURNS.to_string()], TURNS).await;
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
        assert_eq!(diff["read_from"], "topic");
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
    assert_eq!(
        by_id[0]["read_from"], "topic",
        "the original bytes while kept"
    );
    assert_eq!(by_id[0]["change"], "same");
    let conversation = by_offsets[7]["conversation_id"]
        .as_str()
        .unwrap()
        .to_string();
    let by_conversation = replay(&served, &index, &["--conversation-id", &conversation], 0);
    assert!(by_conversation.iter().any(|d| d["turn_id"] == one.as_str()));

    // From the audit store alone, with a condition, named filters and a time window; results
    // also in the replays table and an HTML page.
    let kept = served
        .db
        .scalar(
            "SELECT count() FROM {db}.turns FINAL WHERE has_received = 1 AND input_schema_id > 0",
        )
        .await;
    assert_eq!(
        kept as usize, TURNS,
        "every row keeps its turn and schema id"
    );
    let html = dir.path().join("replay.html");
    let html_arg = html.display().to_string();
    let from_audit = replay(
        &served,
        &index,
        &[
            "--audit-where",
            "resolved_region IN ('eu', 'us')",
            "--filter",
            "answered",
            "--since",
            "1h",
            "--write-clickhouse",
            "--html",
            &html_arg,
        ],
        0,
    );
    assert!(!from_audit.is_empty());
    for diff in &from_audit {
        assert_eq!(diff["change"], "same", "{diff}");
        assert_eq!(diff["recorded"]["outcome"], "answer");
        assert_eq!(diff["read_from"], "audit");
        let same_turn = by_offsets
            .iter()
            .find(|d| d["turn_id"] == diff["turn_id"])
            .unwrap();
        assert_eq!(diff["input"], same_turn["input"]);
    }
    let stored = served
        .db
        .scalar(
            "SELECT count() FROM {db}.replays FINAL WHERE change = 'same' AND code_version != ''",
        )
        .await;
    assert_eq!(
        stored as usize,
        from_audit.len(),
        "one replays row per turn"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("forensic replay") && !page.contains("<script"));

    // The current judge over what was served, under the corpus it was served with: no change.
    let rejudged = replay(&served, &index, &["--rejudge", "--filter", "answered"], 0);
    assert!(!rejudged.is_empty());
    assert!(
        rejudged.iter().all(|d| d["verdicts"]["now"] == "pass"),
        "{rejudged:?}"
    );

    // Ctrl-C: the page in hand is finished and written out, the summary says how far it got,
    // and the exit status is 130. The signal is sent once the audit store answered, while the
    // pipeline is still being built (seconds), so it always lands before the page is done.
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let child = policyctl()
        .args([
            "replay",
            "--quiet",
            "--audit-where",
            "1 = 1",
            "--topic-prefix",
            prefix,
        ])
        .arg("--index-dir")
        .arg(&index)
        .arg("--out")
        .arg(out_file.path())
        .env("CLICKHOUSE_DATABASE", &served.db.name)
        .env("POLICY_LOG", "info")
        .stdout(std::process::Stdio::piped())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(log.path())
        .unwrap_or_default()
        .contains("ClickHouse ready")
    {
        assert!(
            Instant::now() < deadline,
            "replay never reached the audit store"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let output = child.wait_with_output().unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{printed}");
    assert!(printed.contains("INTERRUPTED: stopped after"), "{printed}");
    let written = std::fs::read_to_string(out_file.path()).unwrap();
    assert!(!written.is_empty(), "what was replayed is written out");

    let after = tokio::task::block_in_place(|| settled_progress(&group, &turns_topic));
    assert_eq!(
        before, after,
        "the live group's committed offsets did not move"
    );
    served.stop_worker();

    // Past the topic's retention: with no broker reachable at all, the audit store still
    // replays every turn (a turn id too: rebuilt from its audit row, and said so). The broker
    // is not asked to delete the topic: tansu 0.6's storage task panics on a topic deleted
    // while other clients are busy, and every later request then fails.
    let without_broker = |args: &[&str]| -> Vec<serde_json::Value> {
        let out_file = tempfile::NamedTempFile::new().unwrap();
        let out = policyctl()
            .args([
                "replay",
                "--fail-on-change",
                "--quiet",
                "--timeout-secs",
                "3",
            ])
            .args(["--topic-prefix", prefix, "--index-dir"])
            .arg(&index)
            .arg("--out")
            .arg(out_file.path())
            .args(args)
            .env("CLICKHOUSE_DATABASE", &served.db.name)
            .env("KAFKA_BOOTSTRAP", "127.0.0.1:1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?} without a broker: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(out_file.path())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let after_retention = without_broker(&["--audit-where", "1 = 1"]);
    assert_eq!(after_retention.len(), TURNS);
    assert!(after_retention
        .iter()
        .all(|d| d["change"] == "same" && d["read_from"] == "audit"));
    let by_id = without_broker(&["--turn-id", &one]);
    assert_eq!(by_id[0]["read_from"], "audit", "rebuilt from its audit row");
    assert_eq!(by_id[0]["change"], "same");
    served.db.drop().await;
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=policy author",
            "-c",
            "user.email=author@example.com",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn commit(repo: &Path, message: &str) -> String {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", message]);
    git(repo, &["rev-parse", "HEAD"])
}

/// In `repo` (checked out at a branch made from `base`), the EU v4 return window written as
/// `days`; with `rule`, the clause's rule says the same.
fn eu_v4_window(repo: &Path, days: &str, rule: bool) {
    let returns = repo.join("eu/v4/02-returns-and-refunds.md");
    let text = std::fs::read_to_string(&returns).unwrap();
    assert!(text.contains("within 30 calendar days"));
    let mut text = text.replace(
        "within 30 calendar days",
        &format!("within {days} calendar days"),
    );
    if rule {
        text = text.replace(
            "return_window_days=30",
            &format!("return_window_days={days}"),
        );
    }
    std::fs::write(&returns, text).unwrap();
}

/// The EU cases of golden/ (both sides of the 2026-02-01 cutover), as one file.
fn eu_cases(into: &Path) -> (String, usize) {
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(repo().join("golden/cases")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        lines.extend(
            text.lines()
                .filter(|l| {
                    (l.contains("\"expected_version_id\": \"eu-v4\"")
                        || l.contains("\"expected_version_id\": \"eu-v3\""))
                        && l.contains("\"region\": \"eu\"")
                })
                .map(str::to_string),
        );
    }
    // Every return-window case, and an even spread of the rest.
    let (window, rest): (Vec<String>, Vec<String>) = lines
        .into_iter()
        .partition(|l| l.contains("\"gt-eu-return-window-eu-v"));
    assert!(window.len() >= 4, "golden EU return-window cases");
    let step = (rest.len() / 24).max(1);
    let mut chosen = window;
    chosen.extend(rest.into_iter().step_by(step).take(24));
    let path = into.join("eu-cases.jsonl");
    std::fs::write(&path, chosen.join("\n") + "\n").unwrap();
    (path.display().to_string(), chosen.len())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_policy_change_is_rejudged_pinned_and_what_if_over_served_history() {
    // The policy repository: A is golden/ as served; `candidate-b` moves the EU v4 return
    // window to 45 days; `future` only adds an EU v5 from 2027-06-01.
    let work = tempfile::tempdir().unwrap();
    let policies = work.path().join("policies");
    copy_dir(&repo().join("golden/policies"), &policies);
    git(&policies, &["init", "-q", "-b", "main"]);
    let a = commit(&policies, "A: golden");
    git(&policies, &["checkout", "-q", "-b", "candidate-b"]);
    eu_v4_window(&policies, "45", true);
    let b = commit(&policies, "B: 45-day EU window");
    git(&policies, &["checkout", "-q", "-b", "rule-mismatch", &a]);
    eu_v4_window(&policies, "45", false);
    commit(&policies, "text without its rule");
    git(&policies, &["checkout", "-q", "-b", "future", &a]);
    copy_dir(&policies.join("eu/v4"), &policies.join("eu/v5"));
    let manifest_path = policies.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let versions = manifest["regions"]["eu"]["versions"]
        .as_array_mut()
        .unwrap();
    let v4 = versions.iter_mut().find(|v| v["id"] == "eu-v4").unwrap();
    let mut v5 = v4.clone();
    v4["effective_to"] = "2027-06-01".into();
    v5["id"] = "eu-v5".into();
    v5["effective_from"] = "2027-06-01".into();
    v5["effective_to"] = serde_json::Value::Null;
    versions.push(v5);
    std::fs::write(
        &manifest_path,
        serde_json::to_string_pretty(&manifest).unwrap(),
    )
    .unwrap();
    commit(&policies, "EU v5 from 2027-06-01");
    git(&policies, &["checkout", "-q", "main"]);

    // Turns served under A, from a checkout of the repository.
    let policies_arg = policies.display().to_string();
    let mut served = serving("forensics", &[("POLICY_CORPUS", &policies_arg)]).await;
    let (cases, count) = eu_cases(work.path());
    send(&served, &["--golden", &cases], count).await;
    let (turns_topic, group) = (
        format!("{}.turns", served.prefix),
        format!("{}-all", served.prefix),
    );
    let before = tokio::task::block_in_place(|| settled_progress(&group, &turns_topic));
    let dir = tempfile::tempdir().unwrap();
    let index = index_copy(dir.path());
    let repo_args = ["--repo", policies_arg.as_str()];
    let with = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = vec!["--policies".into(), policies_arg.clone()];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let everything = ["--audit-where", "1 = 1"];

    // Re-judged under B: exactly the EU v4 answers stating the old window fail, for that number.
    let mut args = with(&["--rejudge", "--policies-rev", "candidate-b"]);
    args.extend(repo_args.iter().chain(&everything).map(|s| s.to_string()));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let rejudged = replay(&served, &index, &args_ref, 3);
    let states_old_window = |d: &serde_json::Value| {
        d["recorded"]["resolved_version"] == "eu-v4"
            && d["recorded"]["text"]
                .as_str()
                .unwrap()
                .contains("30 calendar days")
    };
    let old_window: BTreeSet<String> = turn_ids(
        &rejudged
            .iter()
            .filter(|d| states_old_window(d))
            .cloned()
            .collect::<Vec<_>>(),
    );
    assert!(!old_window.is_empty(), "served answers stating 30 days");
    for d in &rejudged {
        assert_eq!(
            d["change"] == "verdict_changed",
            states_old_window(d),
            "{d}"
        );
        if states_old_window(d) {
            assert!(
                d["verdicts"]["reasons_now"][0]
                    .as_str()
                    .unwrap()
                    .starts_with("ungrounded_fact: `30`"),
                "{d}"
            );
        }
    }
    // Pinned to what served them, the same answers pass.
    let mut args = with(&["--rejudge", "--pinned"]);
    args.extend(repo_args.iter().chain(&everything).map(|s| s.to_string()));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    replay(&served, &index, &args_ref, 0);

    // A candidate whose text and rule disagree is refused by every mode, naming the clause.
    let mut args = with(&["--policies-rev", "rule-mismatch"]);
    args.extend(repo_args.iter().chain(&everything).map(|s| s.to_string()));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = policyctl()
        .args(["replay", "--quiet", "--topic-prefix", &served.prefix])
        .args(&args_ref)
        .env("CLICKHOUSE_DATABASE", &served.db.name)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("refused: eu-v4#sec-3.2: rule return_window_days=30"),
        "{stderr}"
    );

    // B is published: the checkout moves on. Re-run under what is served now, the history
    // changes; pinned to the corpus recorded on each turn, every answer comes back byte for
    // byte.
    git(&policies, &["checkout", "-q", "candidate-b"]);
    let mut args = with(&[]);
    args.extend(everything.iter().map(|s| s.to_string()));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let under_b = replay(&served, &index, &args_ref, 3);
    assert!(under_b.iter().any(|d| d["change"] != "same"));
    let mut args = with(&["--pinned"]);
    args.extend(repo_args.iter().chain(&everything).map(|s| s.to_string()));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let pinned = replay(&served, &index, &args_ref, 0);
    assert_eq!(pinned.len(), count);
    for d in &pinned {
        assert_eq!(d["change"], "same", "{d}");
        assert_eq!(d["recorded"]["text"], d["rerun"]["text"]);
        assert_eq!(d["recorded"]["manifest_sha"], d["rerun"]["manifest_sha"]);
    }
    git(&policies, &["checkout", "-q", "main"]);

    // What-if B over the same turns: exactly the answers stating the old window change, in
    // that number only; turns under EU v3 (orders in flight) keep their answers.
    let mut args = with(&["--policies-rev", &b]);
    args.extend(repo_args.iter().chain(&everything).map(|s| s.to_string()));
    let args_ref: Vec<&str> = args.iter().map(String::as_str).collect();
    let what_if = replay(&served, &index, &args_ref, 3);
    let changed: Vec<serde_json::Value> = what_if
        .iter()
        .filter(|d| d["change"] != "same")
        .cloned()
        .collect();
    assert_eq!(turn_ids(&changed), old_window, "{changed:?}");
    for d in &changed {
        assert_eq!(d["change"], "text_changed", "{d}");
        assert!(d["rerun"]["text"]
            .as_str()
            .unwrap()
            .contains("45 calendar days"));
    }
    assert!(what_if
        .iter()
        .filter(|d| d["recorded"]["resolved_version"] == "eu-v3")
        .all(|d| d["change"] == "same"));

    // `policy impact`: a future-dated version changes nothing served and no golden case; an
    // edit of the version in force changes in-flight answers and golden cases.
    let impact = |rev: &str, exit: i32| -> String {
        let index = index_copy(&dir.path().join(format!("impact-{rev}")));
        let index = index.display().to_string();
        run_policyctl(
            &served,
            &[
                "policy",
                "impact",
                "--quiet",
                "--repo",
                &policies_arg,
                "--rev",
                rev,
                "--since",
                "1h",
                "--golden",
                &cases,
                "--policies",
                &policies_arg,
                "--index-dir",
                &index,
                "--topic-prefix",
                &served.prefix,
            ],
            exit,
        )
    };
    let passes = impact("future", 0);
    assert!(passes.contains("PASS"), "{passes}");
    assert!(
        passes.contains("0 in-flight answer(s) would change"),
        "{passes}"
    );
    let fails = impact("candidate-b", 4);
    assert!(
        fails.contains(&format!(
            "{} in-flight answer(s) would change",
            old_window.len()
        )),
        "{fails}"
    );
    assert!(
        fails.contains("eu eu-v4 return_window"),
        "grouped by region, version, topic: {fails}"
    );
    assert!(
        !fails.contains("golden: 0 case(s)") && !fails.contains(", 0 regression(s)"),
        "{fails}"
    );

    // The evidence bundle of a known turn verifies against its digests, and its clause is the
    // text of the version as it stood at A.
    let known = old_window.iter().next().unwrap().clone();
    let bundle = dir.path().join("bundle");
    let bundle_arg = bundle.display().to_string();
    let mut args = vec![
        "forensics",
        "bundle",
        "--turn-id",
        &known,
        "--out",
        &bundle_arg,
    ];
    args.extend(repo_args);
    args.extend(["--policies", &policies_arg, "--index-dir"]);
    let index_arg = index.display().to_string();
    args.push(&index_arg);
    args.extend(["--topic-prefix", &served.prefix]);
    let printed = run_policyctl(&served, &args, 0);
    assert!(
        printed.contains("pinned re-run reproduced 1 of 1"),
        "{printed}"
    );
    let index_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("INDEX.json")).unwrap()).unwrap();
    assert_eq!(index_json["turns"][0]["turn_id"], known.as_str());
    assert_eq!(index_json["turns"][0]["reproduced"], true);
    let turn_dir = bundle.join(index_json["turns"][0]["dir"].as_str().unwrap());
    let at_a = policy_core::load_dir(&repo().join("golden/policies")).unwrap();
    let clause = at_a.clause("eu-v4#sec-3.2").unwrap();
    let kept = std::fs::read_to_string(turn_dir.join("clauses/eu-v4_sec-3.2.md")).unwrap();
    assert!(kept.contains(&clause.text), "{kept}");
    assert!(
        kept.contains(&a) || kept.contains(at_a.content_sha()),
        "{kept}"
    );
    let served_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(turn_dir.join("served.json")).unwrap())
            .unwrap();
    assert!(served_json["answer_text"]
        .as_str()
        .unwrap()
        .contains("30 calendar days"));
    let manifest_kept = std::fs::read(turn_dir.join("manifest.json")).unwrap();
    assert_eq!(
        manifest_kept,
        std::fs::read(repo().join("golden/policies/manifest.json")).unwrap()
    );
    let verified = run_policyctl(&served, &["forensics", "verify", &bundle_arg], 0);
    assert!(verified.contains("verified"), "{verified}");
    std::fs::write(
        turn_dir.join("clauses/eu-v4_sec-3.2.md"),
        kept.replace("30 calendar days", "45 calendar days"),
    )
    .unwrap();
    let tampered = run_policyctl(&served, &["forensics", "verify", &bundle_arg], 1);
    assert!(tampered.contains("CHANGED  turns/"), "{tampered}");

    let after = tokio::task::block_in_place(|| settled_progress(&group, &turns_topic));
    assert_eq!(
        before, after,
        "no replay, impact or bundle moved the live group"
    );

    served.stop_worker();
    served.db.drop().await;
}
