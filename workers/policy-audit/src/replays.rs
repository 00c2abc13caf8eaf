//! Rows of the `replays` table (migration 0005): one per replayed turn, with the replay's id,
//! parameters and code version. Filled by `policyctl replay --write-clickhouse`.

use clickhouse::Row;
use serde::{Deserialize, Serialize};

/// Columns of `replays`, in table order: RowBinary is positional on servers without validation.
#[derive(Debug, Clone, Default, PartialEq, Row, Serialize, Deserialize)]
pub struct ReplayRow {
    pub replay_id: String,
    /// Seconds since the epoch (ClickHouse `DateTime`).
    pub started_at: u32,
    /// `rerun`, `rerun --pinned`, `rejudge`, ...
    pub mode: String,
    /// The replay's parameters as JSON (source, corpus, filters).
    pub parameters: String,
    pub code_version: String,
    pub turn_id: String,
    pub conversation_id: String,
    pub input_topic: String,
    pub input_partition: i32,
    pub input_offset: i64,
    /// `topic` or `audit`: where the turn was read back from.
    pub read_from: String,
    /// `same`, `text_changed`, `version_changed`, ...
    pub change: String,
    /// Region, version and topic of what was served.
    pub region: String,
    pub version: String,
    pub topic: String,
    pub served_outcome: String,
    pub served_clause_ids: Vec<String>,
    pub served_text: String,
    pub served_manifest_sha: String,
    pub rerun_outcome: String,
    pub rerun_version: String,
    pub rerun_clause_ids: Vec<String>,
    pub rerun_text: String,
    pub rerun_manifest_sha: String,
    pub verdict_then: String,
    pub verdict_now: String,
    pub reasons_now: Vec<String>,
    pub error: String,
    pub recorded_at_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_struct_mirrors_the_table_column_order() {
        let ddl = include_str!("../sql/migrations/0005_replays.sql");
        let columns: Vec<&str> = ddl
            .lines()
            .map(str::trim)
            .skip_while(|l| !l.starts_with("CREATE TABLE"))
            .skip(1)
            .take_while(|l| !l.starts_with(')'))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(columns, <ReplayRow as clickhouse::Row>::COLUMN_NAMES);
    }
}
