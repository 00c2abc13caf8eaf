//! The analytics queries: SQL files under `sql/analytics/`, usable as they are from
//! clickhouse-client or Grafana once `{db}`, `{window}` and `{bucket}` are filled in.

use serde_json::{Map, Value};

use crate::store::{AuditStore, StoreError};

#[derive(Debug, Clone, Copy)]
pub struct Query {
    pub name: &'static str,
    pub title: &'static str,
    pub sql: &'static str,
}

macro_rules! query {
    ($name:literal, $title:literal) => {
        Query {
            name: $name,
            title: $title,
            sql: include_str!(concat!("../sql/analytics/", $name, ".sql")),
        }
    };
}

pub const QUERIES: &[Query] = &[
    query!("overview", "Turns by outcome"),
    query!("grounding_rate", "Citation-grounding rate per region"),
    query!("judge_mismatch", "Judge mismatch rate per region"),
    query!("answer_entropy", "Answer entropy per (region, topic)"),
    query!(
        "answer_entropy_across_regions",
        "Answer entropy per topic across regions"
    ),
    query!(
        "clause_age",
        "Mean age of the cited clause per (region, topic)"
    ),
    query!("clause_age_trend", "Cited clause age over time per region"),
    query!("escalation_rate", "Escalation rate per reason"),
    query!(
        "decisions",
        "Decisions per intent and level (approval alarms must be 0)"
    ),
    query!("region_ip_mismatch", "Region-vs-IP mismatch per region"),
    query!("version_traffic", "Traffic per policy version"),
    query!("stage_latency", "Latency per stage"),
    query!("turns_over_time", "Turns over time"),
];

pub fn query(name: &str) -> Option<&'static Query> {
    QUERIES.iter().find(|q| q.name == name)
}

/// The processing-time window `[since, until)`, in seconds since the epoch (UTC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    pub since: Option<u32>,
    pub until: Option<u32>,
}

impl Window {
    fn condition(&self) -> String {
        let mut parts = Vec::new();
        if let Some(since) = self.since {
            parts.push(format!("processed_at >= toDateTime({since})"));
        }
        if let Some(until) = self.until {
            parts.push(format!("processed_at < toDateTime({until})"));
        }
        if parts.is_empty() {
            "1".into()
        } else {
            parts.join(" AND ")
        }
    }
}

/// Fills the placeholders. `bucket_seconds` sizes the time-series buckets.
pub fn render(sql: &str, database: &str, window: Window, bucket_seconds: u32) -> String {
    sql.replace("{db}", database)
        .replace("{window}", &window.condition())
        .replace("{bucket}", &bucket_seconds.max(1).to_string())
}

/// A query's result: column names in query order and the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub title: &'static str,
    pub columns: Vec<String>,
    pub rows: Vec<Map<String, Value>>,
}

impl Table {
    /// A numeric cell (ClickHouse's JSON quotes 64-bit integers).
    pub fn number(row: &Map<String, Value>, column: &str) -> Option<f64> {
        match row.get(column)? {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
    }

    pub fn text<'a>(row: &'a Map<String, Value>, column: &str) -> &'a str {
        row.get(column).and_then(Value::as_str).unwrap_or_default()
    }
}

/// Column names in the order the SELECT lists them (JSONEachRow objects are unordered once
/// parsed): the aliases after `AS` at the top level of the first SELECT.
pub fn select_columns(sql: &str) -> Vec<String> {
    let body: String = sql
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    let Some(start) = body.find("SELECT") else {
        return Vec::new();
    };
    let mut depth = 0i32;
    let mut columns = Vec::new();
    let mut current = String::new();
    let rest = &body[start + "SELECT".len()..];
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        let at_from = depth == 0 && rest[i..].starts_with("\nFROM");
        if (c == ',' && depth == 0) || at_from {
            columns.push(column_name(&current));
            current.clear();
            if at_from {
                break;
            }
            continue;
        }
        current.push(c);
    }
    columns.retain(|c| !c.is_empty());
    columns
}

fn column_name(expression: &str) -> String {
    let expression = expression.trim();
    match expression.rfind(" AS ") {
        Some(at) => expression[at + 4..].trim().to_string(),
        None => expression.to_string(),
    }
}

pub async fn run(
    store: &AuditStore,
    query: &'static Query,
    window: Window,
    bucket_seconds: u32,
) -> Result<Table, StoreError> {
    let sql = render(query.sql, store.database(), window, bucket_seconds);
    let rows = store.query_json(query.name, &sql).await?;
    Ok(Table {
        name: query.name,
        title: query.title,
        columns: select_columns(query.sql),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_renders_without_placeholders() {
        let window = Window {
            since: Some(1_700_000_000),
            until: Some(1_800_000_000),
        };
        for q in QUERIES {
            let sql = render(q.sql, "audit", window, 3600);
            assert!(
                !sql.contains('{') || sql.contains("{1}"),
                "{}: {sql}",
                q.name
            );
            assert!(
                sql.contains("audit.turns FINAL"),
                "{} reads the deduplicated rows",
                q.name
            );
            assert!(
                sql.contains("processed_at >= toDateTime(1700000000) AND processed_at < toDateTime(1800000000)"),
                "{} honours the window",
                q.name
            );
            assert!(!select_columns(q.sql).is_empty(), "{}", q.name);
        }
    }

    #[test]
    fn open_window_is_true() {
        assert_eq!(Window::default().condition(), "1");
        let since = Window {
            since: Some(5),
            until: None,
        };
        assert_eq!(since.condition(), "processed_at >= toDateTime(5)");
    }

    #[test]
    fn select_columns_follow_the_aliases_in_order() {
        assert_eq!(
            select_columns(query("grounding_rate").unwrap().sql),
            [
                "region",
                "drafts_with_citations",
                "grounded",
                "grounding_rate"
            ]
        );
        assert_eq!(
            select_columns(query("overview").unwrap().sql),
            [
                "turns",
                "answers",
                "escalations",
                "dead_letters",
                "undecodable",
                "answer_rate"
            ]
        );
        assert_eq!(
            select_columns(query("stage_latency").unwrap().sql),
            ["stage", "turns", "p50_ms", "p95_ms", "p99_ms"]
        );
        assert_eq!(
            select_columns(query("answer_entropy").unwrap().sql),
            [
                "region",
                "topic",
                "answers",
                "distinct_answers",
                "entropy_bits"
            ]
        );
    }

    #[test]
    fn numbers_may_come_quoted() {
        let row: Map<String, Value> =
            serde_json::from_str(r#"{"a": "12", "b": 0.5, "c": "x"}"#).unwrap();
        assert_eq!(Table::number(&row, "a"), Some(12.0));
        assert_eq!(Table::number(&row, "b"), Some(0.5));
        assert_eq!(Table::number(&row, "c"), None);
        assert_eq!(Table::text(&row, "c"), "x");
    }
}
