//! Audit sink settings ([`policy_settings`]: flags or variables, documented defaults),
//! validated before anything is built.

use std::time::Duration;

use policy_settings::{Settings, SettingsError};

#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct AuditConfig {
    /// ClickHouse HTTP interface
    #[arg(
        value_name = "CLICKHOUSE_URL",
        id = "clickhouse_url",
        long = "clickhouse-url",
        env = "CLICKHOUSE_URL",
        default_value = "http://127.0.0.1:8123"
    )]
    pub url: String,
    /// Audit database (created by the migrations)
    #[arg(
        value_name = "CLICKHOUSE_DATABASE",
        id = "clickhouse_database",
        long = "clickhouse-database",
        env = "CLICKHOUSE_DATABASE",
        default_value = "policy_audit"
    )]
    pub database: String,
    /// Audit credentials: user
    #[arg(
        value_name = "CLICKHOUSE_USER",
        id = "clickhouse_user",
        long = "clickhouse-user",
        env = "CLICKHOUSE_USER",
        default_value = "default"
    )]
    pub user: String,
    /// Audit credentials: password
    #[arg(
        value_name = "CLICKHOUSE_PASSWORD",
        id = "clickhouse_password",
        long = "clickhouse-password",
        env = "CLICKHOUSE_PASSWORD",
        default_value = "",
        hide_env_values = true
    )]
    pub password: String,
    /// An audit batch is inserted when it has this many rows...
    #[arg(
        value_name = "POLICY_AUDIT_BATCH_ROWS",
        id = "policy_audit_batch_rows",
        long = "audit-batch-rows",
        env = "POLICY_AUDIT_BATCH_ROWS",
        default_value_t = 1000
    )]
    pub batch_max_rows: usize,
    /// ...or when its oldest row is this old (milliseconds)
    #[arg(
        value_name = "POLICY_AUDIT_BATCH_MS",
        id = "policy_audit_batch_ms",
        long = "audit-batch-ms",
        env = "POLICY_AUDIT_BATCH_MS",
        default_value_t = 1000
    )]
    pub batch_max_ms: u64,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            url: "http://127.0.0.1:8123".into(),
            database: "policy_audit".into(),
            user: "default".into(),
            password: String::new(),
            batch_max_rows: 1000,
            batch_max_ms: 1000,
        }
    }
}

impl AuditConfig {
    pub fn batch_max_age(&self) -> Duration {
        Duration::from_millis(self.batch_max_ms)
    }
}

impl Settings for AuditConfig {
    fn validate(&self) -> Result<(), SettingsError> {
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return Err(SettingsError::invalid(
                "CLICKHOUSE_URL",
                format!(
                    "`{}` must be the HTTP interface, http(s)://host:port",
                    self.url
                ),
            ));
        }
        let identifier = |s: &str| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !identifier(&self.database) {
            return Err(SettingsError::invalid(
                "CLICKHOUSE_DATABASE",
                format!(
                    "`{}`: letters, digits and _ only (it is spliced into DDL)",
                    self.database
                ),
            ));
        }
        if self.batch_max_rows == 0 {
            return Err(SettingsError::invalid(
                "POLICY_AUDIT_BATCH_ROWS",
                "must be at least 1",
            ));
        }
        if self.batch_max_ms == 0 {
            return Err(SettingsError::invalid(
                "POLICY_AUDIT_BATCH_MS",
                "must be at least 1",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_every_setting() {
        AuditConfig::default().validate().unwrap();
        let config = AuditConfig::from_args([
            "--clickhouse-url",
            "http://127.0.0.1:18123",
            "--clickhouse-database",
            "audit_test_1",
            "--clickhouse-user",
            "bot",
            "--clickhouse-password",
            "secret",
            "--audit-batch-rows",
            "5000",
            "--audit-batch-ms",
            "250",
        ])
        .unwrap();
        assert_eq!(config.url, "http://127.0.0.1:18123");
        assert_eq!(config.database, "audit_test_1");
        assert_eq!(
            (config.user.as_str(), config.password.as_str()),
            ("bot", "secret")
        );
        assert_eq!(config.batch_max_rows, 5000);
        assert_eq!(config.batch_max_age(), Duration::from_millis(250));
    }

    #[test]
    fn invalid_settings_are_named_in_the_error() {
        let message = |args: &[&str]| AuditConfig::from_args(args).unwrap_err().to_string();
        assert!(message(&["--audit-batch-rows", "lots"]).contains("--audit-batch-rows"));
        assert!(message(&["--audit-batch-rows", "0"]).contains("at least 1"));
        assert!(message(&["--audit-batch-ms", "0"]).starts_with("POLICY_AUDIT_BATCH_MS"));
        assert!(message(&["--clickhouse-url", "127.0.0.1:8123"]).contains("HTTP interface"));
        assert!(message(&["--clickhouse-database", "x; DROP"]).contains("spliced into DDL"));
        assert!(message(&["--clickhouse-database", "1abc"]).starts_with("CLICKHOUSE_DATABASE"));
    }
}
