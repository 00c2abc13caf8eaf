//! What a worker is configured with: where its corpus and index are, which topics and group,
//! how many lanes, where metrics are served; plus every component's own settings. One
//! [`clap::Args`] tree, parsed and validated before anything starts.

use std::net::SocketAddr;
use std::path::PathBuf;

use policy_kafka::KafkaConfig;
use policy_pipeline::LlmSettings;
use policy_pipeline::PipelineConfig;
use policy_search_es::EsConfig;
use policy_settings::{Settings, SettingsError};

/// Which search backend serves retrieval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// tantivy-free BM25 and exact vectors over the local index, per (region, version).
    Embedded,
    /// Elasticsearch (`POLICY_ES_*`), with the chunks and vectors of the local index mirrored.
    Elasticsearch,
}

#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct SearchSettings {
    /// `embedded` or `elasticsearch`
    #[arg(
        value_name = "POLICY_SEARCH_BACKEND",
        id = "policy_search_backend",
        long = "search-backend",
        env = "POLICY_SEARCH_BACKEND",
        value_enum,
        default_value = "embedded"
    )]
    pub backend: BackendKind,
    #[command(flatten)]
    pub elasticsearch: EsConfig,
}

impl Settings for SearchSettings {
    fn validate(&self) -> Result<(), SettingsError> {
        self.elasticsearch.validate()
    }
}

/// Where the embedding model's files are.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ModelSettings {
    /// MiniLM files (model.safetensors, tokenizer.json, config.json); default: the cache
    /// directory's copy from `make install`
    #[arg(
        value_name = "POLICY_MODEL_DIR",
        id = "policy_model_dir",
        long = "model-dir",
        env = "POLICY_MODEL_DIR"
    )]
    pub model_dir: Option<PathBuf>,
}

impl ModelSettings {
    pub fn dir(&self) -> PathBuf {
        self.model_dir
            .clone()
            .unwrap_or_else(policy_search::embed::default_model_dir)
    }
}

/// Topic names are `<prefix>.turns`, `<prefix>.answers`, ...
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct TopicSettings {
    /// Topic names are `<prefix>.turns`, `<prefix>.answers`, ...
    #[arg(
        value_name = "POLICY_TOPIC_PREFIX",
        id = "policy_topic_prefix",
        long = "topic-prefix",
        env = "POLICY_TOPIC_PREFIX",
        default_value = "policy"
    )]
    pub topic_prefix: String,
}

impl TopicSettings {
    pub fn names(&self) -> crate::topics::TopicNames {
        crate::topics::TopicNames::with_prefix(&self.topic_prefix)
    }
}

/// The corpus a process serves or evaluates.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct CorpusSettings {
    /// Policy corpus served (manifest.json and {region}/v{N}/*.md; a Git checkout in production)
    #[arg(
        value_name = "POLICY_CORPUS",
        id = "policy_corpus",
        long = "policies",
        env = "POLICY_CORPUS",
        default_value = "golden/policies"
    )]
    pub policies: PathBuf,
    /// Search index directory, built or updated on start (default: `.run/index` for workers
    /// and benchmarks, a fresh temporary one for `eval`)
    #[arg(
        value_name = "POLICY_INDEX_DIR",
        id = "policy_index_dir",
        long = "index-dir",
        env = "POLICY_INDEX_DIR"
    )]
    pub index_dir: Option<PathBuf>,
    /// Serve what a reindex worker publishes in this directory (index read-only, corpus
    /// snapshots per Git sha) instead of indexing the corpus; for `reindex`, where to publish
    #[arg(
        value_name = "POLICY_DATA_DIR",
        id = "policy_data_dir",
        long = "data-dir",
        env = "POLICY_DATA_DIR"
    )]
    pub data_dir: Option<PathBuf>,
}

impl CorpusSettings {
    /// Where a long-lived process keeps its index.
    pub fn index_dir_or_default(&self) -> PathBuf {
        self.index_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(".run/index"))
    }
}

/// Everything a pipeline worker (or an in-process evaluation) is built from.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct AppSettings {
    #[command(flatten)]
    pub corpus: CorpusSettings,
    #[command(flatten)]
    pub topics: TopicSettings,
    #[command(flatten)]
    pub kafka: KafkaConfig,
    #[command(flatten)]
    pub pipeline: PipelineConfig,
    #[command(flatten)]
    pub llm: LlmSettings,
    #[command(flatten)]
    pub search: SearchSettings,
    #[command(flatten)]
    pub model: ModelSettings,
    #[command(flatten)]
    pub sources: crate::facts::SourceSettings,
}

impl Settings for AppSettings {
    fn validate(&self) -> Result<(), SettingsError> {
        self.kafka.validate()?;
        self.sources.validate()?;
        self.pipeline.validate()?;
        self.llm.validate()?;
        self.search.validate()
    }
}

/// How a worker process runs.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct RunSettings {
    /// Consumer group; default `<prefix>-<stage>`
    #[arg(long = "group")]
    pub group: Option<String>,
    /// Messages processed concurrently (ordered per conversation). Concurrent turns with new
    /// questions share model batches: all-unique traffic ran at 125 turns/s with 4 lanes, 167
    /// with 16 (loadtest/RESULTS.md)
    #[arg(
        value_name = "POLICY_LANES",
        id = "policy_lanes",
        long = "lanes",
        env = "POLICY_LANES",
        default_value_t = 16
    )]
    pub lanes: usize,
    /// Where /metrics and /health are served
    #[arg(
        value_name = "POLICY_METRICS_LISTEN",
        id = "policy_metrics_listen",
        long = "metrics-listen",
        env = "POLICY_METRICS_LISTEN",
        default_value = "127.0.0.1:9464"
    )]
    pub metrics_listen: SocketAddr,
}

impl Settings for RunSettings {
    fn validate(&self) -> Result<(), SettingsError> {
        if self.lanes == 0 {
            return Err(SettingsError::invalid("POLICY_LANES", "must be positive"));
        }
        Ok(())
    }
}
