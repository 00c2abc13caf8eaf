//! Backend configuration, validated before anything connects.

use std::time::Duration;

use policy_settings::{Settings, SettingsError};

/// How the vector leg runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VectorMode {
    /// Elasticsearch 8+: `dense_vector` mapping and a filtered top-level `knn` search.
    Knn,
    /// Servers without Elasticsearch's kNN (OpenSearch-compatible ones): vectors stored as
    /// plain floats, the filtered version's chunks fetched and scored exactly by the backend.
    Exact,
}

/// Settings of the Elasticsearch backend (`POLICY_SEARCH_BACKEND=elasticsearch`).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct EsConfig {
    /// Elasticsearch backend: cluster URL
    #[arg(
        value_name = "POLICY_ES_URL",
        id = "policy_es_url",
        long = "es-url",
        env = "POLICY_ES_URL",
        default_value = "http://127.0.0.1:9200"
    )]
    pub url: String,
    /// Elasticsearch backend: index holding every version's chunks
    #[arg(
        value_name = "POLICY_ES_INDEX",
        id = "policy_es_index",
        long = "es-index",
        env = "POLICY_ES_INDEX",
        default_value = "policy-clauses"
    )]
    pub index: String,
    /// `knn` (Elasticsearch 8+: dense_vector + filtered kNN) or `exact` (servers without kNN:
    /// the version's vectors scored by the worker)
    #[arg(
        value_name = "POLICY_ES_VECTOR_MODE",
        id = "policy_es_vector_mode",
        long = "es-vector-mode",
        env = "POLICY_ES_VECTOR_MODE",
        value_enum,
        default_value = "knn"
    )]
    pub vector_mode: VectorMode,
    /// kNN candidates per shard (recall vs latency)
    #[arg(
        value_name = "POLICY_ES_NUM_CANDIDATES",
        id = "policy_es_num_candidates",
        long = "es-num-candidates",
        env = "POLICY_ES_NUM_CANDIDATES",
        default_value_t = 200
    )]
    pub num_candidates: usize,
    /// Most chunks one version may have in exact mode (more is an error, never a silent
    /// truncation)
    #[arg(
        value_name = "POLICY_ES_MAX_VERSION_CHUNKS",
        id = "policy_es_max_version_chunks",
        long = "es-max-version-chunks",
        env = "POLICY_ES_MAX_VERSION_CHUNKS",
        default_value_t = 5000
    )]
    pub max_version_chunks: usize,
    /// Per search or count request, milliseconds
    #[arg(
        value_name = "POLICY_ES_TIMEOUT_MS",
        id = "policy_es_timeout_ms",
        long = "es-timeout-ms",
        env = "POLICY_ES_TIMEOUT_MS",
        default_value_t = 2000
    )]
    pub timeout_ms: u64,
    /// Per bulk, delete-by-query or index creation, milliseconds (a bulk waits for the refresh
    /// that makes it searchable)
    #[arg(
        value_name = "POLICY_ES_WRITE_TIMEOUT_MS",
        id = "policy_es_write_timeout_ms",
        long = "es-write-timeout-ms",
        env = "POLICY_ES_WRITE_TIMEOUT_MS",
        default_value_t = 120_000
    )]
    pub write_timeout_ms: u64,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            url: "http://127.0.0.1:9200".into(),
            index: "policy-clauses".into(),
            vector_mode: VectorMode::Knn,
            num_candidates: 200,
            max_version_chunks: 5000,
            timeout_ms: 2000,
            write_timeout_ms: 120_000,
        }
    }
}

impl EsConfig {
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    pub fn write_timeout(&self) -> Duration {
        Duration::from_millis(self.write_timeout_ms)
    }
}

impl Settings for EsConfig {
    fn validate(&self) -> Result<(), SettingsError> {
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return Err(SettingsError::invalid(
                "POLICY_ES_URL",
                format!("`{}` must be an http(s) URL", self.url),
            ));
        }
        // Elasticsearch index names: lowercase, no separators or wildcards, not starting with -_+.
        let bad_char = |c: char| c.is_ascii_uppercase() || "\\/*?\"<>| ,#:".contains(c);
        if self.index.is_empty()
            || self.index.starts_with(['-', '_', '+'])
            || self.index.chars().any(bad_char)
        {
            return Err(SettingsError::invalid(
                "POLICY_ES_INDEX",
                format!("`{}` is not a valid index name", self.index),
            ));
        }
        if self.num_candidates == 0 || self.num_candidates > 10_000 {
            return Err(SettingsError::invalid(
                "POLICY_ES_NUM_CANDIDATES",
                "must be in 1..=10000",
            ));
        }
        if self.max_version_chunks == 0 || self.max_version_chunks > 10_000 {
            return Err(SettingsError::invalid(
                "POLICY_ES_MAX_VERSION_CHUNKS",
                "must be in 1..=10000 (the result window)",
            ));
        }
        if self.timeout_ms == 0 {
            return Err(SettingsError::invalid(
                "POLICY_ES_TIMEOUT_MS",
                "must be positive",
            ));
        }
        if self.write_timeout_ms == 0 {
            return Err(SettingsError::invalid(
                "POLICY_ES_WRITE_TIMEOUT_MS",
                "must be positive",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let config = EsConfig::default();
        config.validate().unwrap();
        assert_eq!(config.url, "http://127.0.0.1:9200");
        assert_eq!(config.index, "policy-clauses");
        assert_eq!(config.vector_mode, VectorMode::Knn);
    }

    #[test]
    fn flags_override_defaults() {
        let config = EsConfig::from_args([
            "--es-url",
            "https://es.internal:9243",
            "--es-index",
            "clauses-v2",
            "--es-vector-mode",
            "exact",
            "--es-num-candidates",
            "500",
            "--es-timeout-ms",
            "250",
        ])
        .unwrap();
        assert_eq!(config.url, "https://es.internal:9243");
        assert_eq!(config.index, "clauses-v2");
        assert_eq!(config.vector_mode, VectorMode::Exact);
        assert_eq!(config.num_candidates, 500);
        assert_eq!(config.timeout(), Duration::from_millis(250));
    }

    #[test]
    fn invalid_values_are_named() {
        let cases = [
            (("--es-url", "127.0.0.1:9200"), "must be an http(s) URL"),
            (("--es-index", "Clauses"), "not a valid index name"),
            (("--es-index", "_clauses"), "not a valid index name"),
            (("--es-index", "a,b"), "not a valid index name"),
            (("--es-vector-mode", "hnsw"), "--es-vector-mode"),
            (("--es-num-candidates", "0"), "1..=10000"),
            (("--es-num-candidates", "many"), "invalid value 'many'"),
            (("--es-max-version-chunks", "20000"), "result window"),
            (
                ("--es-timeout-ms", "0"),
                "POLICY_ES_TIMEOUT_MS: must be positive",
            ),
            (
                ("--es-write-timeout-ms", "0"),
                "POLICY_ES_WRITE_TIMEOUT_MS: must be positive",
            ),
        ];
        for ((flag, value), expected) in cases {
            let err = EsConfig::from_args([flag, value]).unwrap_err().to_string();
            assert!(err.contains(expected), "{flag}={value}: {err}");
        }
    }
}
