//! Pipeline settings with documented defaults, from a TOML file and/or environment variables.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PipelineConfig {
    /// Longer questions are cut (on a word boundary) before processing.
    pub max_question_chars: usize,
    /// Injection score at or above which a turn escalates instead of being answered.
    pub injection_threshold: f64,
    /// Instants this close to a cutover are ambiguous and escalate.
    pub cutover_ambiguity_hours: i64,
    /// Confidence at or above which an answer is served without disclaimer.
    pub answer_threshold: f64,
    /// Confidence at or above which an answer is served with a disclaimer; below: escalate.
    pub disclaimer_threshold: f64,
    /// Clauses retrieved and offered to the generator.
    pub top_k: usize,
    /// Query embeddings kept in the LRU cache.
    pub query_cache_size: usize,
    /// Most cache misses embedded together by the model thread (concurrent turns' new
    /// questions share one forward pass; 1 turns batching off).
    pub embed_batch: usize,
    /// Model threads embedding batches side by side. Each runs its matrix products on one
    /// core (`policyctl` sets `RAYON_NUM_THREADS=1` unless it is set): on a small machine
    /// shared with the broker, whole batches in parallel waste less CPU than intra-op threads.
    pub embed_threads: usize,
    /// The extractive answer also quotes the runner-up clause when its score is this close.
    pub runner_up_margin: f32,
    pub disclaimer_text: String,
    pub region_disclaimer_text: String,
    /// Days after a version's end at which it retires: its clauses are then indexed as stubs
    /// saying it is no longer in effect, and nothing is answered from it. Default 2557 (7 years,
    /// a common record-keeping period for consumer contracts).
    pub retention_days: u32,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            max_question_chars: 1000,
            injection_threshold: 0.5,
            cutover_ambiguity_hours: 24,
            answer_threshold: 0.75,
            disclaimer_threshold: 0.5,
            top_k: 5,
            query_cache_size: 10_000,
            embed_batch: 16,
            embed_threads: 2,
            runner_up_margin: 0.06,
            disclaimer_text: "This answer may not cover every detail of your situation; a human agent can confirm it.".into(),
            region_disclaimer_text: "Your account and your location point to different regions; this answer follows your account region.".into(),
            retention_days: 2557,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {path}: {reason}")]
    File { path: String, reason: String },
    #[error("environment variable {name}: {reason}")]
    Env { name: String, reason: String },
    #[error("invalid config: {0}")]
    Invalid(String),
}

impl PipelineConfig {
    /// Defaults, overridden by the TOML file at `POLICY_CONFIG` (if set), overridden by
    /// `POLICY_<FIELD>` variables for the numeric settings.
    pub fn load() -> Result<PipelineConfig, ConfigError> {
        let mut config = match std::env::var("POLICY_CONFIG") {
            Ok(path) if !path.is_empty() => {
                let text = std::fs::read_to_string(&path).map_err(|e| ConfigError::File {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
                toml::from_str(&text).map_err(|e| ConfigError::File {
                    path,
                    reason: e.to_string(),
                })?
            }
            _ => PipelineConfig::default(),
        };
        fn var<T: std::str::FromStr>(name: &str, target: &mut T) -> Result<(), ConfigError>
        where
            T::Err: std::fmt::Display,
        {
            if let Ok(raw) = std::env::var(name) {
                *target = raw.parse().map_err(|e: T::Err| ConfigError::Env {
                    name: name.into(),
                    reason: e.to_string(),
                })?;
            }
            Ok(())
        }
        var("POLICY_MAX_QUESTION_CHARS", &mut config.max_question_chars)?;
        var(
            "POLICY_INJECTION_THRESHOLD",
            &mut config.injection_threshold,
        )?;
        var(
            "POLICY_CUTOVER_AMBIGUITY_HOURS",
            &mut config.cutover_ambiguity_hours,
        )?;
        var("POLICY_ANSWER_THRESHOLD", &mut config.answer_threshold)?;
        var(
            "POLICY_DISCLAIMER_THRESHOLD",
            &mut config.disclaimer_threshold,
        )?;
        var("POLICY_TOP_K", &mut config.top_k)?;
        var("POLICY_QUERY_CACHE_SIZE", &mut config.query_cache_size)?;
        var("POLICY_EMBED_BATCH", &mut config.embed_batch)?;
        var("POLICY_EMBED_THREADS", &mut config.embed_threads)?;
        var("POLICY_RUNNER_UP_MARGIN", &mut config.runner_up_margin)?;
        var("POLICY_RETENTION_DAYS", &mut config.retention_days)?;
        config.validate()?;
        Ok(config)
    }

    /// Checked before anything is built, so a bad setting fails at start, not mid-stream.
    pub fn retention(&self) -> policy_core::Retention {
        policy_core::Retention {
            days: self.retention_days,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |m: &str| Err(ConfigError::Invalid(m.to_string()));
        if !(0.0..=1.0).contains(&self.disclaimer_threshold)
            || !(0.0..=1.0).contains(&self.answer_threshold)
        {
            return invalid("thresholds must be within [0, 1]");
        }
        if self.disclaimer_threshold > self.answer_threshold {
            return invalid("disclaimer_threshold must not exceed answer_threshold");
        }
        if self.top_k == 0
            || self.max_question_chars == 0
            || self.query_cache_size == 0
            || self.embed_batch == 0
            || self.embed_threads == 0
        {
            return invalid(
                "top_k, max_question_chars, query_cache_size, embed_batch and embed_threads must be positive",
            );
        }
        if self.cutover_ambiguity_hours < 0 {
            return invalid("cutover_ambiguity_hours must not be negative");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        PipelineConfig::default().validate().unwrap();
    }

    #[test]
    fn toml_overrides_and_rejects_unknown_keys() {
        let c: PipelineConfig = toml::from_str("answer_threshold = 0.8\ntop_k = 3").unwrap();
        assert_eq!(
            (c.answer_threshold, c.top_k, c.disclaimer_threshold),
            (0.8, 3, 0.5)
        );
        assert!(toml::from_str::<PipelineConfig>("answer_treshold = 0.8").is_err());
    }

    #[test]
    fn inconsistent_thresholds_rejected() {
        let c = PipelineConfig {
            disclaimer_threshold: 0.9,
            ..Default::default()
        };
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("disclaimer_threshold"));
        let c = PipelineConfig {
            top_k: 0,
            ..Default::default()
        };
        assert!(c.validate().is_err());
    }
}
