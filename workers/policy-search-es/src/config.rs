//! Backend configuration, validated before anything connects.

use std::time::Duration;

use crate::EsError;

/// How the vector leg runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorMode {
    /// Elasticsearch 8+: `dense_vector` mapping and a filtered top-level `knn` search.
    Knn,
    /// Servers without Elasticsearch's kNN (OpenSearch-compatible ones): vectors stored as
    /// plain floats, the filtered version's chunks fetched and scored exactly by the backend.
    Exact,
}

impl std::str::FromStr for VectorMode {
    type Err = EsError;
    fn from_str(s: &str) -> Result<Self, EsError> {
        match s {
            "knn" => Ok(VectorMode::Knn),
            "exact" => Ok(VectorMode::Exact),
            other => Err(EsError::Config(format!(
                "POLICY_ES_VECTOR_MODE must be `knn` or `exact`, not `{other}`"
            ))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EsConfig {
    /// `POLICY_ES_URL`, default `http://127.0.0.1:9200`.
    pub url: String,
    /// `POLICY_ES_INDEX`, default `policy-clauses`.
    pub index: String,
    /// `POLICY_ES_VECTOR_MODE`, `knn` (default) or `exact`.
    pub vector_mode: VectorMode,
    /// `POLICY_ES_NUM_CANDIDATES`, default 200: kNN candidates per shard (recall vs latency).
    pub num_candidates: usize,
    /// `POLICY_ES_MAX_VERSION_CHUNKS`, default 5000: the most chunks one version may have in
    /// exact mode (a request for more is an error, never a silent truncation).
    pub max_version_chunks: usize,
    /// `POLICY_ES_TIMEOUT_MS`, default 2000, per search or count request.
    pub timeout: Duration,
    /// `POLICY_ES_WRITE_TIMEOUT_MS`, default 120000, per bulk, delete-by-query or index
    /// creation (a bulk waits for the refresh that makes it searchable).
    pub write_timeout: Duration,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            url: "http://127.0.0.1:9200".into(),
            index: "policy-clauses".into(),
            vector_mode: VectorMode::Knn,
            num_candidates: 200,
            max_version_chunks: 5000,
            timeout: Duration::from_millis(2000),
            write_timeout: Duration::from_millis(120_000),
        }
    }
}

impl EsConfig {
    /// Reads the `POLICY_ES_*` variables over the defaults, then validates.
    pub fn from_env() -> Result<EsConfig, EsError> {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<EsConfig, EsError> {
        let mut config = EsConfig::default();
        let number = |key: &str| -> Result<Option<u64>, EsError> {
            get(key)
                .map(|v| {
                    v.parse::<u64>()
                        .map_err(|_| EsError::Config(format!("{key}: `{v}` is not a number")))
                })
                .transpose()
        };
        if let Some(url) = get("POLICY_ES_URL") {
            config.url = url;
        }
        if let Some(index) = get("POLICY_ES_INDEX") {
            config.index = index;
        }
        if let Some(mode) = get("POLICY_ES_VECTOR_MODE") {
            config.vector_mode = mode.parse()?;
        }
        if let Some(n) = number("POLICY_ES_NUM_CANDIDATES")? {
            config.num_candidates = n as usize;
        }
        if let Some(n) = number("POLICY_ES_MAX_VERSION_CHUNKS")? {
            config.max_version_chunks = n as usize;
        }
        if let Some(ms) = number("POLICY_ES_TIMEOUT_MS")? {
            config.timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = number("POLICY_ES_WRITE_TIMEOUT_MS")? {
            config.write_timeout = Duration::from_millis(ms);
        }
        config.validate()?;
        Ok(config)
    }

    pub fn validate(&self) -> Result<(), EsError> {
        let fail = |m: String| Err(EsError::Config(m));
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return fail(format!(
                "POLICY_ES_URL `{}` must be an http(s) URL",
                self.url
            ));
        }
        // Elasticsearch index names: lowercase, no separators or wildcards, not starting with -_+.
        let bad_char = |c: char| c.is_ascii_uppercase() || "\\/*?\"<>| ,#:".contains(c);
        if self.index.is_empty()
            || self.index.starts_with(['-', '_', '+'])
            || self.index.chars().any(bad_char)
        {
            return fail(format!(
                "POLICY_ES_INDEX `{}` is not a valid index name",
                self.index
            ));
        }
        if self.num_candidates == 0 || self.num_candidates > 10_000 {
            return fail("POLICY_ES_NUM_CANDIDATES must be in 1..=10000".into());
        }
        if self.max_version_chunks == 0 || self.max_version_chunks > 10_000 {
            return fail(
                "POLICY_ES_MAX_VERSION_CHUNKS must be in 1..=10000 (the result window)".into(),
            );
        }
        if self.timeout.is_zero() || self.write_timeout.is_zero() {
            return fail(
                "POLICY_ES_TIMEOUT_MS and POLICY_ES_WRITE_TIMEOUT_MS must be positive".into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Result<EsConfig, EsError> {
        EsConfig::from_lookup(|k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn defaults_are_valid() {
        let config = with(&[]).unwrap();
        assert_eq!(config.url, "http://127.0.0.1:9200");
        assert_eq!(config.index, "policy-clauses");
        assert_eq!(config.vector_mode, VectorMode::Knn);
    }

    #[test]
    fn variables_override_defaults() {
        let config = with(&[
            ("POLICY_ES_URL", "https://es.internal:9243"),
            ("POLICY_ES_INDEX", "clauses-v2"),
            ("POLICY_ES_VECTOR_MODE", "exact"),
            ("POLICY_ES_NUM_CANDIDATES", "500"),
            ("POLICY_ES_TIMEOUT_MS", "250"),
        ])
        .unwrap();
        assert_eq!(config.url, "https://es.internal:9243");
        assert_eq!(config.index, "clauses-v2");
        assert_eq!(config.vector_mode, VectorMode::Exact);
        assert_eq!(config.num_candidates, 500);
        assert_eq!(config.timeout, Duration::from_millis(250));
    }

    #[test]
    fn invalid_values_are_named() {
        let cases = [
            (
                ("POLICY_ES_URL", "127.0.0.1:9200"),
                "must be an http(s) URL",
            ),
            (("POLICY_ES_INDEX", "Clauses"), "not a valid index name"),
            (("POLICY_ES_INDEX", "_clauses"), "not a valid index name"),
            (("POLICY_ES_INDEX", "a,b"), "not a valid index name"),
            (("POLICY_ES_VECTOR_MODE", "hnsw"), "`knn` or `exact`"),
            (("POLICY_ES_NUM_CANDIDATES", "0"), "1..=10000"),
            (("POLICY_ES_NUM_CANDIDATES", "many"), "is not a number"),
            (("POLICY_ES_MAX_VERSION_CHUNKS", "20000"), "result window"),
            (("POLICY_ES_TIMEOUT_MS", "0"), "must be positive"),
            (("POLICY_ES_WRITE_TIMEOUT_MS", "0"), "must be positive"),
        ];
        for ((key, value), expected) in cases {
            let err = with(&[(key, value)]).unwrap_err().to_string();
            assert!(err.contains(expected), "{key}={value}: {err}");
        }
    }
}
