//! Audit trail and analytics in ClickHouse.
//!
//! Layout follows vector's ClickHouse sink: [`config`] (validated before anything is built),
//! [`row`] (the pure encoder from pipeline records to rows), [`store`] (healthcheck, version
//! detection, migrations, inserts), [`sink`] (the Kafka side: batches, offsets after insert),
//! plus [`analytics`] (the SQL files) and [`report`] (terminal tables, HTML with SVG charts,
//! alert thresholds).

pub mod analytics;
pub mod config;
pub mod replays;
pub mod report;
pub mod row;
pub mod sink;
pub mod store;
pub mod svg;
pub mod synthetic;

pub use config::AuditConfig;
pub use replays::ReplayRow;
pub use row::AuditRow;
pub use store::{AuditStore, StoreError};
