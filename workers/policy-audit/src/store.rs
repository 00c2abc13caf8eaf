//! The ClickHouse side: healthcheck, server version detection, versioned migrations, batched
//! inserts and the JSON rows the analytics queries return.

use clickhouse::Client;
use serde_json::{Map, Value};

use policy_settings::Settings;

use crate::config::AuditConfig;
use crate::row::AuditRow;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Config(#[from] policy_settings::SettingsError),
    #[error("ClickHouse at {url}: {source}")]
    Unreachable {
        url: String,
        source: clickhouse::error::Error,
    },
    #[error("ClickHouse reported version {0:?}, which is not MAJOR.MINOR...")]
    Version(String),
    #[error("migration {version} ({name}): {source}")]
    Migration {
        version: u32,
        name: &'static str,
        source: clickhouse::error::Error,
    },
    #[error("insert of {rows} rows: {source}")]
    Insert {
        rows: usize,
        source: clickhouse::error::Error,
    },
    #[error("query {name}: {source}")]
    Query {
        name: String,
        source: clickhouse::error::Error,
    },
    #[error("query {name}: row is not a JSON object: {line}")]
    NotJson { name: String, line: String },
}

/// `major.minor` of the server, e.g. 18.16 (Debian bookworm) or 25.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServerVersion {
    pub major: u32,
    pub minor: u32,
}

impl ServerVersion {
    pub fn parse(text: &str) -> Option<ServerVersion> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(ServerVersion { major, minor })
    }

    /// The `clickhouse` crate validates rows against the table through
    /// `RowBinaryWithNamesAndTypes`, which servers before 24.10 do not speak; older servers get
    /// plain positional `RowBinary` (our row struct mirrors the migration's column order).
    pub fn supports_row_validation(&self) -> bool {
        *self
            >= (ServerVersion {
                major: 24,
                minor: 10,
            })
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Applied in order, once each; recorded in `{db}.schema_migrations`. Append only: a released
/// migration is never edited.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "turns",
        sql: include_str!("../sql/migrations/0001_turns.sql"),
    },
    Migration {
        version: 2,
        name: "generation",
        sql: include_str!("../sql/migrations/0002_generation.sql"),
    },
    Migration {
        version: 3,
        name: "received_turn",
        sql: include_str!("../sql/migrations/0003_received_turn.sql"),
    },
    Migration {
        version: 4,
        name: "decisions",
        sql: include_str!("../sql/migrations/0004_decisions.sql"),
    },
    Migration {
        version: 5,
        name: "replays",
        sql: include_str!("../sql/migrations/0005_replays.sql"),
    },
];

/// Splits a migration file into statements (ClickHouse's HTTP interface takes one per request)
/// and names the database. Comments are dropped; statements end with `;` at the end of a line.
pub fn statements(sql: &str, database: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current = String::new();
    for line in sql.lines() {
        let trimmed = line.trim_end();
        if trimmed.trim_start().starts_with("--") || trimmed.is_empty() {
            continue;
        }
        current.push_str(trimmed);
        current.push('\n');
        if trimmed.ends_with(';') {
            statements.push(finish(&current, database));
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        statements.push(finish(&current, database));
    }
    statements
}

fn finish(statement: &str, database: &str) -> String {
    statement
        .trim()
        .trim_end_matches(';')
        .replace("{db}", database)
}

pub struct AuditStore {
    client: Client,
    database: String,
    server: ServerVersion,
}

impl std::fmt::Debug for AuditStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditStore")
            .field("database", &self.database)
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl AuditStore {
    /// Healthcheck, version detection and migrations: a worker that starts is ready to insert.
    pub async fn connect(config: &AuditConfig) -> Result<AuditStore, StoreError> {
        config.validate()?;
        let base = Client::default()
            .with_url(&config.url)
            .with_user(&config.user)
            .with_password(&config.password)
            .with_validation(false);
        let unreachable = |source| StoreError::Unreachable {
            url: config.url.clone(),
            source,
        };
        let version_text: String = base
            .query("SELECT version()")
            .fetch_one()
            .await
            .map_err(unreachable)?;
        let server =
            ServerVersion::parse(&version_text).ok_or(StoreError::Version(version_text))?;
        let client = base
            .clone()
            .with_database(&config.database)
            .with_validation(server.supports_row_validation());
        let store = AuditStore {
            client,
            database: config.database.clone(),
            server,
        };
        store.migrate(&base).await?;
        tracing::info!(server = ?store.server, database = store.database, "ClickHouse ready");
        Ok(store)
    }

    pub fn server(&self) -> ServerVersion {
        self.server
    }

    pub fn database(&self) -> &str {
        &self.database
    }

    async fn migrate(&self, base: &Client) -> Result<(), StoreError> {
        let db = &self.database;
        let bootstrap = Migration {
            version: 0,
            name: "schema_migrations",
            sql: "",
        };
        let fail = |m: &Migration| {
            let (version, name) = (m.version, m.name);
            move |source| StoreError::Migration {
                version,
                name,
                source,
            }
        };
        for sql in [
            format!("CREATE DATABASE IF NOT EXISTS {db}"),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.schema_migrations \
                 (version UInt32, name String, applied_at DateTime) ENGINE = TinyLog"
            ),
        ] {
            base.query(&sql).execute().await.map_err(fail(&bootstrap))?;
        }
        let applied: Vec<u32> = base
            .query(&format!("SELECT version FROM {db}.schema_migrations"))
            .fetch_all()
            .await
            .map_err(fail(&bootstrap))?;
        for migration in MIGRATIONS.iter().filter(|m| !applied.contains(&m.version)) {
            for statement in statements(migration.sql, db) {
                base.query(&statement)
                    .execute()
                    .await
                    .map_err(fail(migration))?;
            }
            base.query(&format!(
                "INSERT INTO {db}.schema_migrations VALUES ({}, '{}', now())",
                migration.version, migration.name
            ))
            .execute()
            .await
            .map_err(fail(migration))?;
            tracing::info!(
                version = migration.version,
                name = migration.name,
                "migration applied"
            );
        }
        Ok(())
    }

    /// One INSERT for the whole batch.
    pub async fn insert(&self, rows: &[AuditRow]) -> Result<(), StoreError> {
        let fail = |source| StoreError::Insert {
            rows: rows.len(),
            source,
        };
        let mut insert = self
            .client
            .insert::<AuditRow>("turns")
            .await
            .map_err(fail)?;
        for row in rows {
            insert.write(row).await.map_err(fail)?;
        }
        insert.end().await.map_err(fail)
    }

    /// One INSERT of replayed turns into `replays`.
    pub async fn insert_replays(&self, rows: &[crate::ReplayRow]) -> Result<(), StoreError> {
        let fail = |source| StoreError::Insert {
            rows: rows.len(),
            source,
        };
        let mut insert = self
            .client
            .insert::<crate::ReplayRow>("replays")
            .await
            .map_err(fail)?;
        for row in rows {
            insert.write(row).await.map_err(fail)?;
        }
        insert.end().await.map_err(fail)
    }

    /// Runs a read-only query and returns its rows as JSON objects (`JSONEachRow`), so that the
    /// analytics SQL files need no Rust struct each.
    pub async fn query_json(
        &self,
        name: &str,
        sql: &str,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        let fail = |source| StoreError::Query {
            name: name.to_string(),
            source,
        };
        // Raw: the SQL files are complete statements, and a `?` in them is not a bind marker.
        let bytes = self
            .client
            .query_raw(sql)
            .fetch_bytes("JSONEachRow")
            .map_err(fail)?
            .collect()
            .await
            .map_err(fail)?;
        let text = String::from_utf8_lossy(&bytes);
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(map)) => Ok(map),
                _ => Err(StoreError::NotJson {
                    name: name.to_string(),
                    line: line.chars().take(200).collect(),
                }),
            })
            .collect()
    }

    /// Runs a statement that returns nothing (tests and the benchmark use it for cleanup).
    pub async fn execute(&self, sql: &str) -> Result<(), StoreError> {
        self.client
            .query(sql)
            .execute()
            .await
            .map_err(|source| StoreError::Query {
                name: "execute".into(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare() {
        let debian = ServerVersion::parse("18.16.1").unwrap();
        assert_eq!(
            debian,
            ServerVersion {
                major: 18,
                minor: 16
            }
        );
        assert!(!debian.supports_row_validation());
        assert!(ServerVersion::parse("24.10.1.2812")
            .unwrap()
            .supports_row_validation());
        assert!(ServerVersion::parse("25.3")
            .unwrap()
            .supports_row_validation());
        assert!(!ServerVersion::parse("24.9.3")
            .unwrap()
            .supports_row_validation());
        assert_eq!(ServerVersion::parse("latest"), None);
        assert_eq!(ServerVersion::parse("25"), None);
    }

    #[test]
    fn migration_files_split_into_statements_for_the_database() {
        let sql = "-- comment\nCREATE TABLE {db}.a (x UInt8)\nENGINE = TinyLog;\n\n-- more\nDROP TABLE IF EXISTS {db}.b;\nSELECT 1";
        assert_eq!(
            statements(sql, "audit"),
            [
                "CREATE TABLE audit.a (x UInt8)\nENGINE = TinyLog",
                "DROP TABLE IF EXISTS audit.b",
                "SELECT 1"
            ]
        );
    }

    #[test]
    fn migrations_are_numbered_in_order_without_gaps() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1, "{}", m.name);
            assert!(!statements(m.sql, "db").is_empty());
        }
    }

    #[test]
    fn the_row_struct_mirrors_the_table_column_order() {
        // RowBinary is positional on servers without validation: the struct and the DDL must
        // list the same columns in the same order.
        let ddl = MIGRATIONS[0].sql;
        let mut columns: Vec<&str> = ddl
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("--"))
            .filter(|l| l.ends_with(',') || l.starts_with("processed_at_ms"))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        // Later migrations append columns.
        for migration in &MIGRATIONS[1..] {
            columns.extend(
                migration
                    .sql
                    .lines()
                    .filter_map(|l| l.split("ADD COLUMN ").nth(1))
                    .filter_map(|rest| rest.split_whitespace().next()),
            );
        }
        let fields = <AuditRow as clickhouse::Row>::COLUMN_NAMES;
        assert_eq!(columns, fields);
    }
}
