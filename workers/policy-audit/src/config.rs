//! Audit sink settings from environment variables, validated before anything is built.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditConfig {
    /// `CLICKHOUSE_URL`, default `http://127.0.0.1:8123` (the HTTP interface).
    pub url: String,
    /// `CLICKHOUSE_DATABASE`, default `policy_audit`; created by the migrations.
    pub database: String,
    /// `CLICKHOUSE_USER`, default `default`.
    pub user: String,
    /// `CLICKHOUSE_PASSWORD`, default empty.
    pub password: String,
    /// `POLICY_AUDIT_BATCH_ROWS`, default 1000: a batch is inserted when it has this many rows...
    pub batch_max_rows: usize,
    /// `POLICY_AUDIT_BATCH_MS`, default 1000: ...or when its oldest row is this old.
    pub batch_max_age: Duration,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            url: "http://127.0.0.1:8123".into(),
            database: "policy_audit".into(),
            user: "default".into(),
            password: String::new(),
            batch_max_rows: 1000,
            batch_max_age: Duration::from_millis(1000),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name}={value:?}: {reason}")]
    Invalid {
        name: &'static str,
        value: String,
        reason: &'static str,
    },
}

fn invalid(name: &'static str, value: impl ToString, reason: &'static str) -> ConfigError {
    ConfigError::Invalid {
        name,
        value: value.to_string(),
        reason,
    }
}

impl AuditConfig {
    pub fn from_env() -> Result<AuditConfig, ConfigError> {
        AuditConfig::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup` (tests pass a map), then validates them.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<AuditConfig, ConfigError> {
        let d = AuditConfig::default();
        let text =
            |name: &str, default: String| lookup(name).filter(|v| !v.is_empty()).unwrap_or(default);
        let number = |name: &'static str, default: u64| -> Result<u64, ConfigError> {
            match lookup(name).filter(|v| !v.is_empty()) {
                None => Ok(default),
                Some(v) => v
                    .parse()
                    .map_err(|_| invalid(name, &v, "not a whole number")),
            }
        };
        let config = AuditConfig {
            url: text("CLICKHOUSE_URL", d.url),
            database: text("CLICKHOUSE_DATABASE", d.database),
            user: text("CLICKHOUSE_USER", d.user),
            password: lookup("CLICKHOUSE_PASSWORD").unwrap_or_default(),
            batch_max_rows: number("POLICY_AUDIT_BATCH_ROWS", d.batch_max_rows as u64)? as usize,
            batch_max_age: Duration::from_millis(number(
                "POLICY_AUDIT_BATCH_MS",
                d.batch_max_age.as_millis() as u64,
            )?),
        };
        config.validate()?;
        Ok(config)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return Err(invalid(
                "CLICKHOUSE_URL",
                &self.url,
                "must be the HTTP interface, http(s)://host:port",
            ));
        }
        let identifier = |s: &str| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !identifier(&self.database) {
            return Err(invalid(
                "CLICKHOUSE_DATABASE",
                &self.database,
                "letters, digits and _ only (it is spliced into DDL)",
            ));
        }
        if self.batch_max_rows == 0 {
            return Err(invalid("POLICY_AUDIT_BATCH_ROWS", 0, "must be at least 1"));
        }
        if self.batch_max_age.is_zero() {
            return Err(invalid("POLICY_AUDIT_BATCH_MS", 0, "must be at least 1"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<AuditConfig, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AuditConfig::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        assert_eq!(with(&[]).unwrap(), AuditConfig::default());
    }

    #[test]
    fn every_setting_is_read() {
        let config = with(&[
            ("CLICKHOUSE_URL", "http://127.0.0.1:18123"),
            ("CLICKHOUSE_DATABASE", "audit_test_1"),
            ("CLICKHOUSE_USER", "bot"),
            ("CLICKHOUSE_PASSWORD", "secret"),
            ("POLICY_AUDIT_BATCH_ROWS", "5000"),
            ("POLICY_AUDIT_BATCH_MS", "250"),
        ])
        .unwrap();
        assert_eq!(config.url, "http://127.0.0.1:18123");
        assert_eq!(config.database, "audit_test_1");
        assert_eq!(
            (config.user.as_str(), config.password.as_str()),
            ("bot", "secret")
        );
        assert_eq!(config.batch_max_rows, 5000);
        assert_eq!(config.batch_max_age, Duration::from_millis(250));
    }

    #[test]
    fn invalid_settings_are_named_in_the_error() {
        let message = |vars: &[(&str, &str)]| with(vars).unwrap_err().to_string();
        assert_eq!(
            message(&[("POLICY_AUDIT_BATCH_ROWS", "lots")]),
            "POLICY_AUDIT_BATCH_ROWS=\"lots\": not a whole number"
        );
        assert!(message(&[("POLICY_AUDIT_BATCH_ROWS", "0")]).contains("at least 1"));
        assert!(message(&[("POLICY_AUDIT_BATCH_MS", "0")]).contains("at least 1"));
        assert!(message(&[("CLICKHOUSE_URL", "127.0.0.1:8123")]).contains("HTTP interface"));
        assert!(message(&[("CLICKHOUSE_DATABASE", "x; DROP")]).contains("spliced into DDL"));
        assert!(message(&[("CLICKHOUSE_DATABASE", "1abc")]).contains("CLICKHOUSE_DATABASE"));
    }
}
