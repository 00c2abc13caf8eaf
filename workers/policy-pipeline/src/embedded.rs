//! Assembly of the embedded default: corpus from a directory, index under a data directory
//! (built or brought up to date on start), MiniLM, hybrid retriever, extractive generator.

use std::path::Path;
use std::sync::Arc;

use policy_core::{load_dir, Corpus};
use policy_search::indexer::{self, IndexReport};
use policy_search::{
    CachedEmbedder, ConfidenceTiers, EmbeddedIndex, EmbeddedRetriever, Embedder,
    LexicalCosineReranker, MiniLmEmbedder,
};

use crate::config::PipelineConfig;
use crate::generate::{ExtractiveGenerator, Generator};
use crate::pipeline::Pipeline;
use crate::retrieve::RetrieveStage;
use crate::serving::{ServingHandle, ServingState};

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct AssemblyError(pub String);

pub struct Embedded {
    pub pipeline: Arc<Pipeline>,
    pub index: Arc<EmbeddedIndex>,
    pub embedder: Arc<CachedEmbedder<Box<dyn Embedder>>>,
    pub corpus: Arc<Corpus>,
    pub index_report: IndexReport,
}

pub fn build(
    policies: &Path,
    index_dir: &Path,
    model_dir: &Path,
    config: PipelineConfig,
    generator: Option<Arc<dyn Generator>>,
) -> Result<Embedded, AssemblyError> {
    config
        .validate()
        .map_err(|e| AssemblyError(e.to_string()))?;
    let corpus = Arc::new(
        load_dir(policies).map_err(|e| AssemblyError(format!("{}: {e}", policies.display())))?,
    );
    for (version, reason) in corpus.failed_versions() {
        tracing::error!(
            version,
            reason,
            "version not served: its documents are unusable"
        );
    }
    let model: Box<dyn Embedder> =
        Box::new(MiniLmEmbedder::load(model_dir).map_err(|e| AssemblyError(e.to_string()))?);
    let embedder = Arc::new(CachedEmbedder::new(model, config.query_cache_size));
    let index = Arc::new(EmbeddedIndex::open(index_dir).map_err(|e| AssemblyError(e.to_string()))?);
    let mut last_logged = 0;
    let index_report =
        indexer::index_corpus(&index, embedder.inner().as_ref(), &corpus, |done, total| {
            if done == total || done >= last_logged + 250 {
                tracing::info!(done, total, "indexing chunks");
                last_logged = done;
            }
        })
        .map_err(|e| AssemblyError(e.to_string()))?;
    let retriever = Arc::new(EmbeddedRetriever::new(index.clone(), embedder.clone()));
    let tiers = ConfidenceTiers {
        answer: config.answer_threshold,
        disclaimer: config.disclaimer_threshold,
    };
    let generator_config = config.clone();
    let retrieve = RetrieveStage::new(
        retriever,
        Arc::new(LexicalCosineReranker::default()),
        tiers,
        config.top_k,
    );
    let generator = generator.unwrap_or_else(|| {
        Arc::new(ExtractiveGenerator {
            runner_up_margin: generator_config.runner_up_margin,
        })
    });
    let serving = ServingHandle::new(ServingState::from_corpus(corpus.clone()));
    let pipeline = Arc::new(Pipeline::new(serving, retrieve, generator, config));
    Ok(Embedded {
        pipeline,
        index,
        embedder,
        corpus,
        index_report,
    })
}
