use serde_json::{Map, Value};

use super::*;

fn table(name: &'static str, columns: &[&str], rows: &[Value]) -> Table {
    Table {
        name,
        title: name,
        columns: columns.iter().map(|c| c.to_string()).collect(),
        rows: rows
            .iter()
            .map(|r| r.as_object().cloned().unwrap_or_else(Map::new))
            .collect(),
    }
}

fn tables() -> Vec<Table> {
    vec![
        table(
            "grounding_rate",
            &[
                "region",
                "drafts_with_citations",
                "grounded",
                "grounding_rate",
            ],
            &[
                serde_json::json!({"region": "eu", "drafts_with_citations": "200", "grounded": "150", "grounding_rate": 0.75}),
                serde_json::json!({"region": "us", "drafts_with_citations": "100", "grounded": "100", "grounding_rate": 1}),
                serde_json::json!({"region": "jp", "drafts_with_citations": "0", "grounded": "0", "grounding_rate": 0}),
            ],
        ),
        table(
            "judge_mismatch",
            &["region", "judged", "mismatches", "mismatch_rate"],
            &[
                serde_json::json!({"region": "eu", "judged": "200", "mismatches": "50", "mismatch_rate": 0.25}),
                serde_json::json!({"region": "us", "judged": "100", "mismatches": "1", "mismatch_rate": 0.01}),
            ],
        ),
        table(
            "answer_entropy_across_regions",
            &[
                "topic",
                "regions",
                "answers",
                "distinct_answers",
                "entropy_bits",
            ],
            &[
                serde_json::json!({"topic": "return_window", "regions": "3", "answers": "30", "distinct_answers": "1", "entropy_bits": 0}),
                serde_json::json!({"topic": "auto_renewal", "regions": "3", "answers": "30", "distinct_answers": "1", "entropy_bits": 0}),
                serde_json::json!({"topic": "gift_cards", "regions": "1", "answers": "5", "distinct_answers": "1", "entropy_bits": 0}),
            ],
        ),
    ]
}

fn thresholds() -> Thresholds {
    Thresholds {
        region_dependent_topics: ["return_window".to_string(), "gift_cards".to_string()]
            .into_iter()
            .collect(),
        ..Thresholds::default()
    }
}

#[test]
fn thresholds_fail_exactly_the_offending_regions_and_topics() {
    let alerts = alerts(&tables(), &thresholds());
    let checks: Vec<(&str, &str)> = alerts
        .iter()
        .map(|a| (a.check, a.message.split(':').next().unwrap()))
        .collect();
    assert_eq!(
        checks,
        [
            ("grounding_rate", "region eu"),
            ("judge_mismatch", "region eu"),
            ("entropy_collapse", "topic return_window"),
        ],
        "us at exactly 1% mismatch passes, jp without drafts is not judged, auto_renewal is \
         the same everywhere by policy, gift_cards is answered in one region only"
    );
    assert_eq!(
        alerts[0].message,
        "region eu: grounding rate 75.00% < 99.50% (150 of 200 drafts cite only the version in force)"
    );
}

#[test]
fn no_rows_no_alerts() {
    assert!(alerts(&[], &Thresholds::default()).is_empty());
}

#[test]
fn text_tables_align_columns_and_say_when_empty() {
    let text = text_table(&tables()[0]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "grounding_rate");
    assert_eq!(
        lines[1],
        "region  drafts_with_citations  grounded  grounding_rate"
    );
    assert_eq!(lines[3], "eu      200                    150       0.75");
    let empty = table("overview", &["turns"], &[]);
    assert!(text_table(&empty).contains("(no rows)"));
}

#[test]
fn html_is_self_contained_and_lists_alerts() {
    let tables = tables();
    let report = Report {
        window: Window {
            since: Some(100),
            until: None,
        },
        alerts: alerts(&tables, &thresholds()),
        tables,
    };
    let html = render_html(&report, "2026-11-22T00:00:00Z");
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg"), "charts are inline SVG");
    assert!(
        !html.contains("<script") && !html.contains("src=\"http") && !html.contains("href=\"http")
    );
    assert!(html.contains("grounding rate 75.00%"));
    assert!(html.contains("processed_at in [100, +∞)"));
    let text = render_text(&report);
    assert!(text.contains("alerts: 3"));
    assert!(text.contains("FAIL [entropy_collapse] topic return_window"));
}

#[test]
fn buckets_cover_the_window_in_about_48_points() {
    let day = Window {
        since: Some(0),
        until: Some(86_400),
    };
    assert_eq!(bucket_seconds(day, None, None), 1800);
    assert_eq!(
        bucket_seconds(Window::default(), Some(1000), Some(1100)),
        60,
        "at least a minute"
    );
    assert_eq!(bucket_seconds(Window::default(), None, None), 60);
}
