//! `policyctl loadtest` against the real broker and a running worker, briefly: every turn ends
//! in an outcome, garbage ends as dead letters, and the report has its table (latency, worker
//! CPU and RSS, the worker group's consumer lag) and its chart. Speed is not asserted here; the
//! numbers live in loadtest/RESULTS.md.

mod common;

use common::workers::{apply_topics, policyctl, Worker};

/// The value column of a report line such as `  lost turns      0`.
fn row<'a>(report: &'a str, label: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label:?} row in:\n{report}"))
        .trim()
}

#[test]
fn a_short_load_test_reports_every_turn_and_draws_its_chart() {
    let prefix = format!("lt-smoke-{}", uuid::Uuid::new_v4().simple());
    apply_topics(&prefix);
    let worker = Worker::start(&prefix);
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("latency.svg");
    let out = policyctl()
        .args([
            "loadtest",
            "--topic-prefix",
            &prefix,
            "--rate",
            "40",
            "--duration-secs",
            "5",
            "--drain-secs",
            "90",
            "--garbage-share",
            "0.05",
            "--worker-pid",
            &worker.pid().to_string(),
            "--chart",
        ])
        .arg(&chart)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "loadtest failed:\n{report}\n{}\nworker:\n{}",
        String::from_utf8_lossy(&out.stderr),
        worker.log_tail(30)
    );
    assert_eq!(row(&report, "lost turns"), "0", "{report}");
    let (garbage, dead_letters) = row(&report, "garbage sent / dead letters")
        .split_once(" / ")
        .expect("garbage / dead letters");
    assert_eq!(garbage, dead_letters, "every garbage message dead-lettered");
    assert!(garbage.parse::<usize>().unwrap() > 0, "the mix had garbage");
    let (answers, escalations) = row(&report, "outcomes (answer+escalate)")
        .split_once('+')
        .unwrap();
    let valid: usize = row(&report, "turns sent (valid)").parse().unwrap();
    assert_eq!(
        answers.parse::<usize>().unwrap() + escalations.parse::<usize>().unwrap(),
        valid,
        "one outcome per valid turn"
    );
    let lag: i64 = row(&report, "max consumer lag (turns)")
        .parse()
        .unwrap_or_else(|_| panic!("the worker group's lag was sampled:\n{report}"));
    assert!(lag >= 0);
    assert!(row(&report, "worker peak RSS").ends_with("MiB"), "{report}");
    assert_eq!(
        row(&report, "chart:"),
        chart.display().to_string(),
        "the chart path is printed"
    );
    let svg = std::fs::read_to_string(&chart).expect("chart written");
    assert!(
        svg.starts_with("<svg") && svg.contains("consumer lag"),
        "{svg}"
    );
    worker.stop();
}
