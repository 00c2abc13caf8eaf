//! Pipeline settings ([`policy_settings`]: flags or `POLICY_*` variables, a TOML file through
//! `POLICY_CONFIG`, documented defaults), validated before anything is built.

use policy_settings::{Settings, SettingsError};

const DISCLAIMER: &str =
    "This answer may not cover every detail of your situation; a human agent can confirm it.";
const REGION_DISCLAIMER: &str =
    "Your account and your location point to different regions; this answer follows your account region.";

#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct PipelineConfig {
    /// Longer questions are cut (on a word boundary) before processing
    #[arg(
        value_name = "POLICY_MAX_QUESTION_CHARS",
        id = "policy_max_question_chars",
        long = "max-question-chars",
        env = "POLICY_MAX_QUESTION_CHARS",
        default_value_t = 1000
    )]
    pub max_question_chars: usize,
    /// Injection score at or above which a turn escalates instead of being answered
    #[arg(
        value_name = "POLICY_INJECTION_THRESHOLD",
        id = "policy_injection_threshold",
        long = "injection-threshold",
        env = "POLICY_INJECTION_THRESHOLD",
        default_value_t = 0.5
    )]
    pub injection_threshold: f64,
    /// Purchase instants this close to a cutover (hours) are ambiguous and escalate
    #[arg(
        value_name = "POLICY_CUTOVER_AMBIGUITY_HOURS",
        id = "policy_cutover_ambiguity_hours",
        long = "cutover-ambiguity-hours",
        env = "POLICY_CUTOVER_AMBIGUITY_HOURS",
        default_value_t = 24
    )]
    pub cutover_ambiguity_hours: i64,
    /// Confidence at or above which an answer is served without disclaimer
    #[arg(
        value_name = "POLICY_ANSWER_THRESHOLD",
        id = "policy_answer_threshold",
        long = "answer-threshold",
        env = "POLICY_ANSWER_THRESHOLD",
        default_value_t = 0.75
    )]
    pub answer_threshold: f64,
    /// Confidence at or above which an answer is served with a disclaimer; below, it escalates
    #[arg(
        value_name = "POLICY_DISCLAIMER_THRESHOLD",
        id = "policy_disclaimer_threshold",
        long = "disclaimer-threshold",
        env = "POLICY_DISCLAIMER_THRESHOLD",
        default_value_t = 0.5
    )]
    pub disclaimer_threshold: f64,
    /// Clauses retrieved and offered to the generator
    #[arg(
        value_name = "POLICY_TOP_K",
        id = "policy_top_k",
        long = "top-k",
        env = "POLICY_TOP_K",
        default_value_t = 5
    )]
    pub top_k: usize,
    /// Query embeddings kept in the LRU cache (keyed by normalised question text)
    #[arg(
        value_name = "POLICY_QUERY_CACHE_SIZE",
        id = "policy_query_cache_size",
        long = "query-cache-size",
        env = "POLICY_QUERY_CACHE_SIZE",
        default_value_t = 10_000
    )]
    pub query_cache_size: usize,
    /// Most cache misses embedded together by a model thread (concurrent turns' new questions
    /// share one forward pass; 1 turns batching off)
    #[arg(
        value_name = "POLICY_EMBED_BATCH",
        id = "policy_embed_batch",
        long = "embed-batch",
        env = "POLICY_EMBED_BATCH",
        default_value_t = 16
    )]
    pub embed_batch: usize,
    /// Model threads embedding batches side by side. Each runs its matrix products on one core
    /// (policyctl sets RAYON_NUM_THREADS=1 unless set): on a small machine shared with the
    /// broker, whole batches in parallel waste less CPU than intra-op threads
    #[arg(
        value_name = "POLICY_EMBED_THREADS",
        id = "policy_embed_threads",
        long = "embed-threads",
        env = "POLICY_EMBED_THREADS",
        default_value_t = 2
    )]
    pub embed_threads: usize,
    /// Requests no retailer's policy answers (travel, insurance, weather...), as a JSONL file
    /// of `text` and `category`: `builtin` (guard/out_of_domain.jsonl), `none`, or a path
    #[arg(
        value_name = "POLICY_OUT_OF_DOMAIN_LIBRARY",
        id = "policy_out_of_domain_library",
        long = "out-of-domain-library",
        env = "POLICY_OUT_OF_DOMAIN_LIBRARY",
        default_value = "builtin"
    )]
    pub out_of_domain_library: String,
    /// A question is out of scope when that library is this much closer to it (cosine) than
    /// the closest clause of the version in force (fitted on the development sets)
    #[arg(
        value_name = "POLICY_OUT_OF_DOMAIN_MARGIN",
        id = "policy_out_of_domain_margin",
        long = "out-of-domain-margin",
        env = "POLICY_OUT_OF_DOMAIN_MARGIN",
        default_value_t = 0.12
    )]
    pub out_of_domain_margin: f32,
    /// Requests in a policy's own words about what no retail policy covers (a refund for a
    /// flight, a hotel deposit), as a JSONL file of `text` and `category`: `builtin`
    /// (guard/out_of_domain_policy.jsonl), `none`, or a path
    #[arg(
        value_name = "POLICY_FOREIGN_POLICY_LIBRARY",
        id = "policy_foreign_policy_library",
        long = "foreign-policy-library",
        env = "POLICY_FOREIGN_POLICY_LIBRARY",
        default_value = "builtin"
    )]
    pub foreign_policy_library: String,
    /// Requests about a retailer's goods and its own services, the other side of that
    /// comparison: `builtin` (guard/in_domain_retail.jsonl), `none`, or a path
    #[arg(
        value_name = "POLICY_RETAIL_LIBRARY",
        id = "policy_retail_library",
        long = "retail-library",
        env = "POLICY_RETAIL_LIBRARY",
        default_value = "builtin"
    )]
    pub retail_library: String,
    /// A question is out of scope when the foreign-policy library is this much closer to it
    /// (cosine) than both the retail library and the closest clause of the version in force
    /// (the lowest margin that loses no answer on the development sets)
    #[arg(
        value_name = "POLICY_FOREIGN_POLICY_MARGIN",
        id = "policy_foreign_policy_margin",
        long = "foreign-policy-margin",
        env = "POLICY_FOREIGN_POLICY_MARGIN",
        default_value_t = 0.08
    )]
    pub foreign_policy_margin: f32,
    /// A thing the question asks a rule about ("the warranty on sofas") is outside the policy
    /// when no version of the region mentions it and the closest word of the version in force
    /// is below this cosine (the highest bar with no false alarm on the development sets)
    #[arg(
        value_name = "POLICY_UNCOVERED_MAX_COSINE",
        id = "policy_uncovered_max_cosine",
        long = "uncovered-max-cosine",
        env = "POLICY_UNCOVERED_MAX_COSINE",
        default_value_t = 0.45
    )]
    pub uncovered_max_cosine: f32,
    /// A phrase of the question around a word no policy of the corpus uses ("booked return
    /// flights", "sick leave") puts the question out of scope when the foreign-policy library
    /// is at least this much closer (mean cosine of the nearest three) to the phrase than the
    /// retail library (the lowest margin that loses no answer on the development sets)
    #[arg(
        value_name = "POLICY_FOREIGN_SUBJECT_MARGIN",
        id = "policy_foreign_subject_margin",
        long = "foreign-subject-margin",
        env = "POLICY_FOREIGN_SUBJECT_MARGIN",
        default_value_t = 0.05
    )]
    pub foreign_subject_margin: f32,
    /// A question escalates as `not_covered_in_version` when another version of the region
    /// answers it, from a topic the version in force lacks, with at least this confidence ...
    #[arg(
        value_name = "POLICY_COVERAGE_MIN_CONFIDENCE",
        id = "policy_coverage_min_confidence",
        long = "coverage-min-confidence",
        env = "POLICY_COVERAGE_MIN_CONFIDENCE",
        default_value_t = 0.75
    )]
    pub coverage_min_confidence: f64,
    /// ... and at least this much more confidence than the version in force (fitted on the
    /// development set, golden/dev)
    #[arg(
        value_name = "POLICY_COVERAGE_MARGIN",
        id = "policy_coverage_margin",
        long = "coverage-margin",
        env = "POLICY_COVERAGE_MARGIN",
        default_value_t = 0.1
    )]
    pub coverage_margin: f64,
    /// The extractive answer also quotes the runner-up clause when its score is this close
    /// (reranker scores are log-odds: 1.0 means the top clause is less than e ≈ 2.7 times as
    /// likely as the runner-up)
    #[arg(
        value_name = "POLICY_RUNNER_UP_MARGIN",
        id = "policy_runner_up_margin",
        long = "runner-up-margin",
        env = "POLICY_RUNNER_UP_MARGIN",
        default_value_t = 2.0
    )]
    pub runner_up_margin: f64,
    /// Caveat added to answers served in the disclaimer tier
    #[arg(value_name = "POLICY_DISCLAIMER_TEXT", id = "policy_disclaimer_text", long = "disclaimer-text", env = "POLICY_DISCLAIMER_TEXT", default_value = DISCLAIMER)]
    pub disclaimer_text: String,
    /// Caveat added when the region rests on weak or conflicting signals
    #[arg(value_name = "POLICY_REGION_DISCLAIMER_TEXT", id = "policy_region_disclaimer_text", long = "region-disclaimer-text", env = "POLICY_REGION_DISCLAIMER_TEXT", default_value = REGION_DISCLAIMER)]
    pub region_disclaimer_text: String,
    /// Library of known attacks and benign look-alikes the injection guard compares questions
    /// with: `builtin` (guard/library.jsonl and heldout/injection dev3, dev4, test3, compiled
    /// in), a JSONL file, or `none`
    #[arg(
        id = "policy_guard_library",
        value_name = "POLICY_GUARD_LIBRARY",
        long = "guard-library",
        env = "POLICY_GUARD_LIBRARY",
        default_value = "builtin"
    )]
    pub guard_library: String,
    /// Reranker and confidence weights: `builtin` (fitted on golden/ by `policyctl
    /// calibrate`, compiled in) or a calibration JSON file
    #[arg(
        id = "policy_calibration",
        value_name = "POLICY_CALIBRATION",
        long = "calibration",
        env = "POLICY_CALIBRATION",
        default_value = "builtin"
    )]
    pub calibration: String,
    /// Days after a version's end at which it retires: its clauses are then indexed as stubs
    /// saying it is no longer in effect, and nothing is answered from it (7 years, a common
    /// record-keeping period for consumer contracts)
    #[arg(
        value_name = "POLICY_RETENTION_DAYS",
        id = "policy_retention_days",
        long = "retention-days",
        env = "POLICY_RETENTION_DAYS",
        default_value_t = 2557
    )]
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
            runner_up_margin: 2.0,
            out_of_domain_library: "builtin".into(),
            out_of_domain_margin: 0.12,
            foreign_policy_library: "builtin".into(),
            retail_library: "builtin".into(),
            foreign_policy_margin: 0.08,
            uncovered_max_cosine: 0.45,
            foreign_subject_margin: 0.05,
            coverage_min_confidence: 0.75,
            coverage_margin: 0.1,
            disclaimer_text: DISCLAIMER.into(),
            region_disclaimer_text: REGION_DISCLAIMER.into(),
            guard_library: "builtin".into(),
            calibration: "builtin".into(),
            retention_days: 2557,
        }
    }
}

impl PipelineConfig {
    pub fn answerability_rule(&self) -> crate::answerability::AnswerabilityRule {
        crate::answerability::AnswerabilityRule {
            out_of_domain_margin: self.out_of_domain_margin,
            foreign_policy_margin: self.foreign_policy_margin,
            uncovered_max_cosine: self.uncovered_max_cosine,
            foreign_subject_margin: self.foreign_subject_margin,
            min_confidence: self.coverage_min_confidence,
            margin: self.coverage_margin,
        }
    }

    pub fn retention(&self) -> policy_core::Retention {
        policy_core::Retention {
            days: self.retention_days,
        }
    }
}

impl Settings for PipelineConfig {
    /// Checked before anything is built, so a bad setting fails at start, not mid-stream.
    fn validate(&self) -> Result<(), SettingsError> {
        let invalid =
            |variable: &'static str, reason: &str| SettingsError::invalid(variable, reason);
        for (variable, value) in [
            ("POLICY_ANSWER_THRESHOLD", self.answer_threshold),
            ("POLICY_DISCLAIMER_THRESHOLD", self.disclaimer_threshold),
            ("POLICY_INJECTION_THRESHOLD", self.injection_threshold),
            (
                "POLICY_COVERAGE_MIN_CONFIDENCE",
                self.coverage_min_confidence,
            ),
            ("POLICY_COVERAGE_MARGIN", self.coverage_margin),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(invalid(variable, &format!("{value} is not within [0, 1]")));
            }
        }
        if self.disclaimer_threshold > self.answer_threshold {
            return Err(invalid(
                "POLICY_DISCLAIMER_THRESHOLD",
                "must not exceed POLICY_ANSWER_THRESHOLD",
            ));
        }
        for (variable, value) in [
            ("POLICY_TOP_K", self.top_k),
            ("POLICY_MAX_QUESTION_CHARS", self.max_question_chars),
            ("POLICY_QUERY_CACHE_SIZE", self.query_cache_size),
            ("POLICY_EMBED_BATCH", self.embed_batch),
            ("POLICY_EMBED_THREADS", self.embed_threads),
        ] {
            if value == 0 {
                return Err(invalid(variable, "must be positive"));
            }
        }
        if self.cutover_ambiguity_hours < 0 {
            return Err(invalid(
                "POLICY_CUTOVER_AMBIGUITY_HOURS",
                "must not be negative",
            ));
        }
        if !(-1.0..=1.0).contains(&self.uncovered_max_cosine) {
            return Err(invalid(
                "POLICY_UNCOVERED_MAX_COSINE",
                "must be a cosine between -1 and 1",
            ));
        }
        if !(-1.0..=1.0).contains(&self.foreign_subject_margin) {
            return Err(invalid(
                "POLICY_FOREIGN_SUBJECT_MARGIN",
                "must be within [-1, 1]",
            ));
        }
        if !(-1.0..=1.0).contains(&self.out_of_domain_margin) {
            return Err(invalid(
                "POLICY_OUT_OF_DOMAIN_MARGIN",
                "must be within [-1, 1]",
            ));
        }
        if !(-1.0..=1.0).contains(&self.foreign_policy_margin) {
            return Err(invalid(
                "POLICY_FOREIGN_POLICY_MARGIN",
                "must be within [-1, 1]",
            ));
        }
        if self.runner_up_margin < 0.0 {
            return Err(invalid("POLICY_RUNNER_UP_MARGIN", "must not be negative"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_match_the_flags_defaults() {
        PipelineConfig::default().validate().unwrap();
        let from_flags = PipelineConfig::from_args(["--answer-threshold", "0.75"]).unwrap();
        // Nothing in this test's environment sets POLICY_* (make test-unit clears nothing,
        // but no test sets them); the flag defaults and `Default` agree.
        assert_eq!(from_flags, PipelineConfig::default());
    }

    #[test]
    fn flags_override_and_invalid_values_name_the_variable() {
        let c = PipelineConfig::from_args(["--answer-threshold", "0.8", "--top-k", "3"]).unwrap();
        assert_eq!(
            (c.answer_threshold, c.top_k, c.disclaimer_threshold),
            (0.8, 3, 0.5)
        );
        let err = PipelineConfig::from_args(["--disclaimer-threshold", "0.9"]).unwrap_err();
        assert!(
            err.to_string().starts_with("POLICY_DISCLAIMER_THRESHOLD"),
            "{err}"
        );
        let err = PipelineConfig::from_args(["--top-k", "0"]).unwrap_err();
        assert_eq!(err.to_string(), "POLICY_TOP_K: must be positive");
        let err = PipelineConfig::from_args(["--top-k", "many"]).unwrap_err();
        assert!(err.to_string().contains("--top-k"), "{err}");
    }
}
