//! `policyctl report`: the analytics as terminal tables, a self-contained HTML page with SVG
//! charts, and alert thresholds that fail the command (for cron or CI).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::analytics::{self, Table, Window, QUERIES};
use crate::store::{AuditStore, StoreError};
use crate::svg::{bar_chart, escape, line_chart};

#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    /// A region whose grounding rate is below this fails the report (default 0.995).
    pub min_grounding_rate: f64,
    /// A region whose judge mismatch rate is above this fails the report (default 0.01).
    pub max_mismatch_rate: f64,
    /// Topics whose policy differs between regions: one answer for all of them is a collapse.
    pub region_dependent_topics: BTreeSet<String>,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            min_grounding_rate: 0.995,
            max_mismatch_rate: 0.01,
            region_dependent_topics: BTreeSet::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub check: &'static str,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub window: Window,
    pub tables: Vec<Table>,
    pub alerts: Vec<Alert>,
}

impl Report {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// Time-series bucket: about 48 points over the window, at least a minute.
fn bucket_seconds(window: Window, first: Option<u32>, last: Option<u32>) -> u32 {
    let since = window.since.or(first).unwrap_or(0);
    let until = window.until.or(last).unwrap_or(since);
    (until.saturating_sub(since) / 48).max(60)
}

pub async fn build(
    store: &AuditStore,
    window: Window,
    thresholds: &Thresholds,
) -> Result<Report, StoreError> {
    let span = store
        .query_json(
            "span",
            &format!(
                "SELECT toUInt32(min(processed_at)) AS first, toUInt32(max(processed_at)) AS last \
                 FROM {}.turns WHERE {}",
                store.database(),
                analytics::render("{window}", "", window, 1)
            ),
        )
        .await?;
    let (first, last) = span
        .first()
        .map(|row| {
            (
                Table::number(row, "first").map(|v| v as u32),
                Table::number(row, "last").map(|v| v as u32),
            )
        })
        .unwrap_or((None, None));
    let bucket = bucket_seconds(window, first, last);
    let mut tables = Vec::new();
    for query in QUERIES {
        tables.push(analytics::run(store, query, window, bucket).await?);
    }
    let alerts = alerts(&tables, thresholds);
    Ok(Report {
        window,
        tables,
        alerts,
    })
}

/// The threshold checks (pure, over the query results).
pub fn alerts(tables: &[Table], thresholds: &Thresholds) -> Vec<Alert> {
    let mut alerts = Vec::new();
    let rows = |name: &str| {
        tables
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.rows.as_slice())
            .unwrap_or_default()
    };
    for row in rows("grounding_rate") {
        let drafts = Table::number(row, "drafts_with_citations").unwrap_or(0.0);
        let rate = Table::number(row, "grounding_rate").unwrap_or(1.0);
        if drafts > 0.0 && rate < thresholds.min_grounding_rate {
            alerts.push(Alert {
                check: "grounding_rate",
                message: format!(
                    "region {}: grounding rate {:.2}% < {:.2}% ({} of {} drafts cite only the version in force)",
                    Table::text(row, "region"),
                    rate * 100.0,
                    thresholds.min_grounding_rate * 100.0,
                    Table::number(row, "grounded").unwrap_or(0.0),
                    drafts
                ),
            });
        }
    }
    for row in rows("judge_mismatch") {
        let rate = Table::number(row, "mismatch_rate").unwrap_or(0.0);
        if rate > thresholds.max_mismatch_rate {
            alerts.push(Alert {
                check: "judge_mismatch",
                message: format!(
                    "region {}: judge mismatch rate {:.2}% > {:.2}% ({} of {} judged drafts)",
                    Table::text(row, "region"),
                    rate * 100.0,
                    thresholds.max_mismatch_rate * 100.0,
                    Table::number(row, "mismatches").unwrap_or(0.0),
                    Table::number(row, "judged").unwrap_or(0.0)
                ),
            });
        }
    }
    for row in rows("answer_entropy_across_regions") {
        let topic = Table::text(row, "topic");
        let regions = Table::number(row, "regions").unwrap_or(0.0);
        let distinct = Table::number(row, "distinct_answers").unwrap_or(0.0);
        if thresholds.region_dependent_topics.contains(topic) && regions >= 2.0 && distinct <= 1.0 {
            alerts.push(Alert {
                check: "entropy_collapse",
                message: format!(
                    "topic {topic}: the same answer in {regions} regions although its policy differs by region"
                ),
            });
        }
    }
    for row in rows("decisions") {
        let alarms = Table::number(row, "approval_alarms").unwrap_or(0.0);
        if alarms > 0.0 {
            alerts.push(Alert {
                check: "false_approval",
                message: format!(
                    "{} (level {}): {alarms} approval(s) served although flagged for review or without a known level",
                    Table::text(row, "intent"),
                    Table::text(row, "level")
                ),
            });
        }
    }
    alerts
}

fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| cell(Some(v)))
            .collect::<Vec<_>>()
            .join(", "),
        Some(other) => other.to_string(),
    }
}

/// One table as aligned text.
pub fn text_table(table: &Table) -> String {
    let mut widths: Vec<usize> = table.columns.iter().map(|c| c.chars().count()).collect();
    let cells: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| table.columns.iter().map(|c| cell(row.get(c))).collect())
        .collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count().min(60));
        }
    }
    let line = |values: &[String]| {
        values
            .iter()
            .zip(&widths)
            .map(|(v, w)| {
                let v: String = v.chars().take(60).collect();
                format!("{v:<w$}")
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = format!("{}\n{}\n", table.title, line(&table.columns));
    out.push_str(&format!(
        "{}\n",
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  ")
    ));
    if cells.is_empty() {
        out.push_str("(no rows)\n");
    }
    for row in &cells {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

/// The tables people read first in a terminal; the HTML has all of them.
const TERMINAL_TABLES: &[&str] = &[
    "overview",
    "grounding_rate",
    "judge_mismatch",
    "answer_entropy_across_regions",
    "escalation_rate",
    "decisions",
    "region_ip_mismatch",
    "version_traffic",
    "stage_latency",
];

pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    for name in TERMINAL_TABLES {
        if let Some(table) = report.table(name) {
            out.push_str(&text_table(table));
            out.push('\n');
        }
    }
    if report.alerts.is_empty() {
        out.push_str("alerts: none\n");
    } else {
        out.push_str(&format!("alerts: {}\n", report.alerts.len()));
        for alert in &report.alerts {
            out.push_str(&format!("  FAIL [{}] {}\n", alert.check, alert.message));
        }
    }
    out
}

fn bars(table: Option<&Table>, label: &str, value: &str) -> Vec<(String, f64)> {
    table
        .map(|t| {
            t.rows
                .iter()
                .map(|r| {
                    (
                        Table::text(r, label).to_string(),
                        Table::number(r, value).unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn charts(report: &Report) -> String {
    let mut out = String::new();
    if let Some(t) = report.table("turns_over_time") {
        let labels: Vec<String> = t
            .rows
            .iter()
            .map(|r| Table::text(r, "bucket").to_string())
            .collect();
        let series = ["turns", "answers", "escalations"]
            .iter()
            .map(|c| {
                (
                    c.to_string(),
                    t.rows
                        .iter()
                        .map(|r| Table::number(r, c).unwrap_or(0.0))
                        .collect(),
                )
            })
            .collect::<Vec<_>>();
        out.push_str(&line_chart("Turns over time", &labels, &series));
    }
    if let Some(t) = report.table("clause_age_trend") {
        let mut labels: Vec<String> = t
            .rows
            .iter()
            .map(|r| Table::text(r, "bucket").to_string())
            .collect();
        labels.dedup();
        let mut by_region: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
        for r in &t.rows {
            by_region
                .entry(Table::text(r, "region").to_string())
                .or_default()
                .insert(
                    Table::text(r, "bucket").to_string(),
                    Table::number(r, "mean_age_days").unwrap_or(0.0),
                );
        }
        let series: Vec<(String, Vec<f64>)> = by_region
            .into_iter()
            .map(|(region, points)| {
                let values = labels
                    .iter()
                    .map(|l| points.get(l).copied().unwrap_or(0.0))
                    .collect();
                (region, values)
            })
            .collect();
        out.push_str(&line_chart(
            "Cited clause age (days) over time",
            &labels,
            &series,
        ));
    }
    out.push_str(&bar_chart(
        "Grounding rate per region",
        &bars(report.table("grounding_rate"), "region", "grounding_rate"),
        Some(1.0),
    ));
    out.push_str(&bar_chart(
        "Judge mismatch rate per region",
        &bars(report.table("judge_mismatch"), "region", "mismatch_rate"),
        None,
    ));
    out.push_str(&bar_chart(
        "Region-vs-IP mismatch rate per region",
        &bars(
            report.table("region_ip_mismatch"),
            "region",
            "ip_mismatch_rate",
        ),
        Some(1.0),
    ));
    out.push_str(&bar_chart(
        "Escalations per reason",
        &bars(report.table("escalation_rate"), "reason", "turns"),
        None,
    ));
    out.push_str(&bar_chart(
        "Turns per policy version",
        &bars(report.table("version_traffic"), "version", "turns"),
        None,
    ));
    out
}

fn html_table(table: &Table) -> String {
    let mut out = format!(
        "<h2 id=\"{}\">{}</h2>\n<table>\n<tr>",
        table.name,
        escape(table.title)
    );
    for c in &table.columns {
        out.push_str(&format!("<th>{}</th>", escape(c)));
    }
    out.push_str("</tr>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for c in &table.columns {
            out.push_str(&format!("<td>{}</td>", escape(&cell(row.get(c)))));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

/// A self-contained page: inline CSS and SVG, no scripts, no external requests.
pub fn render_html(report: &Report, generated_at: &str) -> String {
    let window = match (report.window.since, report.window.until) {
        (None, None) => "all time".to_string(),
        (since, until) => format!(
            "processed_at in [{}, {})",
            since.map(|s| s.to_string()).unwrap_or("-∞".into()),
            until.map(|s| s.to_string()).unwrap_or("+∞".into())
        ),
    };
    let alerts = if report.alerts.is_empty() {
        "<p class=\"ok\">No alert: every threshold holds.</p>".to_string()
    } else {
        let items: String = report
            .alerts
            .iter()
            .map(|a| format!("<li><b>{}</b>: {}</li>", a.check, escape(&a.message)))
            .collect();
        format!("<ul class=\"fail\">{items}</ul>")
    };
    let tables: String = report.tables.iter().map(html_table).collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>Policy answers audit report</title>\n<style>\
body{{font-family:sans-serif;margin:2em;max-width:1100px}}\
table{{border-collapse:collapse;margin-bottom:1.5em;font-size:13px}}\
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}th{{background:#f3f3f3}}\
.fail{{color:#b00}}.ok{{color:#070}}svg{{display:block;margin:1em 0}}\
</style></head><body>\n<h1>Policy answers audit report</h1>\n\
<p>Window: {window}. Generated {generated_at}.</p>\n<h2>Alerts</h2>\n{alerts}\n\
<h2>Charts</h2>\n{charts}\n{tables}</body></html>\n",
        window = escape(&window),
        generated_at = escape(generated_at),
        charts = charts(report),
    )
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
