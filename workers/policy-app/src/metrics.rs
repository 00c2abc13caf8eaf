//! A worker's Prometheus metrics fed by the pipeline: the chain reports each stage here, under
//! the stage's own name, in every deployment mode.

use std::sync::Arc;
use std::time::Duration;

use policy_kafka::metrics::{write_counter, WorkerMetrics};
use policy_pipeline::observe::StageObserver;
use policy_pipeline::{Chain, StageName};
use policy_search::CachedEmbedder;

/// Decoding the input and encoding the output: a stage worker's own steps around the chain.
pub const DECODE: &str = "decode";
pub const ENCODE: &str = "encode";

/// The steps of a worker running `chain`: decode, every stage, encode.
pub fn steps(chain: &Chain) -> Vec<&'static str> {
    std::iter::once(DECODE)
        .chain(chain.stage_names().into_iter().map(StageName::as_str))
        .chain(std::iter::once(ENCODE))
        .collect()
}

/// Records each stage's wall and CPU time in the worker's step counters.
#[derive(Debug)]
pub struct StageMetrics(pub Arc<WorkerMetrics>);

impl StageObserver for StageMetrics {
    fn stage_finished(&self, stage: StageName, wall: Duration, cpu: Option<Duration>) {
        self.0.steps.add(stage.as_str(), wall.as_secs_f64());
        if let Some(cpu) = cpu {
            self.0.cpu.add(stage.as_str(), cpu.as_secs_f64());
        }
    }
}

/// Adds the query-embedding cache and batcher counters to a worker's `/metrics`.
pub fn export_embedder<E: policy_search::Embedder + 'static>(
    metrics: &WorkerMetrics,
    embedder: Arc<CachedEmbedder<E>>,
) {
    metrics.extra.set(move |stage, out| {
        let cache = embedder.stats();
        let batches = embedder.batch_stats().unwrap_or_default();
        for (name, help, value) in [
            (
                "policy_query_cache_hits_total",
                "Query embeddings served from the cache.",
                cache.hits,
            ),
            (
                "policy_query_cache_misses_total",
                "Query embeddings computed by the model.",
                cache.misses,
            ),
            (
                "policy_embed_batches_total",
                "Forward passes of the query-embedding model.",
                batches.batches,
            ),
            (
                "policy_embed_batch_texts_total",
                "Questions embedded in those passes (mean batch = texts / batches).",
                batches.texts,
            ),
        ] {
            write_counter(out, stage, name, help, value);
        }
    });
}
