//! Assembly of the embedded default: corpus from a directory, index under a data directory
//! (built or brought up to date on start), MiniLM, hybrid retriever, extractive generator.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use policy_core::{load_dir, Corpus};
use policy_search::cache::cache_key;
use policy_search::embed::{embed_library, shared_library_dir};
use policy_search::indexer::{self, IndexReport};
use policy_search::{
    CachedEmbedder, Calibration, ConfidenceTiers, EmbedBatcher, EmbeddedIndex, EmbeddedRetriever,
    Embedder, IndexExpander, LinearReranker, MiniLmEmbedder,
};

use policy_settings::Settings;

use crate::answerability::{AnswerabilityGate, DomainLibraries};
use crate::chain::Chain;
use crate::config::PipelineConfig;
use crate::enrich::Enricher;
use crate::generate::{ExtractiveGenerator, GenerateStage, Generator};
use crate::guard::AttackLibrary;
use crate::judge::JudgeStage;
use crate::out_of_domain::{OutOfDomainLibrary, Side};
use crate::published;
use crate::retrieve::RetrieveStage;
use crate::serving::{ServingHandle, ServingState, SnapshotLoader};

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct AssemblyError(pub String);

#[derive(Debug)]
pub struct Embedded {
    pub chain: Chain,
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
    // Serving a directory, retention is judged now; the reindex worker judges at publish time.
    let as_of = chrono::Utc::now();
    build_at(policies, index_dir, model_dir, config, generator, as_of)
}

/// [`build`] with retention judged at `as_of` (tests pin it; forensics can too).
pub fn build_at(
    policies: &Path,
    index_dir: &Path,
    model_dir: &Path,
    config: PipelineConfig,
    generator: Option<Arc<dyn Generator>>,
    as_of: chrono::DateTime<chrono::Utc>,
) -> Result<Embedded, AssemblyError> {
    config
        .validate()
        .map_err(|e| AssemblyError(e.to_string()))?;
    let embedder = load_embedder(model_dir, &config)?;
    build_with(
        policies, index_dir, embedder, config, generator, as_of, None,
    )
}

/// [`build_at`] with a model already loaded (a forensic replay builds one pipeline per pinned
/// corpus and shares the model). With `published_sha`, turns are pinned to that Git sha, as a
/// worker serving the published snapshot pins them; otherwise to the corpus's content digest.
pub fn build_with(
    policies: &Path,
    index_dir: &Path,
    embedder: Arc<CachedEmbedder<Box<dyn Embedder>>>,
    config: PipelineConfig,
    generator: Option<Arc<dyn Generator>>,
    as_of: chrono::DateTime<chrono::Utc>,
    published_sha: Option<&str>,
) -> Result<Embedded, AssemblyError> {
    let corpus = load_corpus(policies)?;
    let index = Arc::new(EmbeddedIndex::open(index_dir).map_err(|e| AssemblyError(e.to_string()))?);
    let retired = retired_versions(&config, &corpus, as_of);
    let index_report = index_with_progress(&index, &embedder, &corpus, &retired)?;
    let state = match published_sha {
        Some(sha) => published::published_state(corpus.clone(), sha),
        None => ServingState::from_corpus(corpus.clone()),
    };
    let serving = ServingHandle::new(state);
    assemble(
        serving,
        index,
        embedder,
        corpus,
        index_report,
        config,
        generator,
    )
}

/// The serving side of a published data directory ([`crate::published`]): the index is opened
/// read-only (the reindex worker writes it) and the corpus is the last published snapshot.
pub fn build_published(
    data_dir: &Path,
    model_dir: &Path,
    config: PipelineConfig,
    generator: Option<Arc<dyn Generator>>,
) -> Result<Embedded, AssemblyError> {
    config
        .validate()
        .map_err(|e| AssemblyError(e.to_string()))?;
    let sha = published::current(data_dir).ok_or_else(|| {
        AssemblyError(format!(
            "nothing published in {} yet: start `policyctl worker reindex --data-dir {0}` and \
             run `policyctl policy publish`",
            data_dir.display()
        ))
    })?;
    let corpus = load_corpus(&published::snapshot_dir(data_dir, &sha))?;
    let embedder = load_embedder(model_dir, &config)?;
    let index = Arc::new(
        EmbeddedIndex::open_read_only(&published::index_dir(data_dir))
            .map_err(|e| AssemblyError(e.to_string()))?,
    );
    let serving = published::published_state(corpus.clone(), &sha);
    // A turn pinned (by another worker) to a sha this process has not served yet finds its
    // snapshot here.
    let (data, shared) = (data_dir.to_path_buf(), index.clone());
    let loader: SnapshotLoader =
        Box::new(move |sha| published::serving_state_at(&data, sha, || refresh(&shared)));
    assemble(
        ServingHandle::with_loader(serving, Some(loader)),
        index,
        embedder,
        corpus,
        IndexReport::default(),
        config,
        generator,
    )
}

pub fn load_corpus(dir: &Path) -> Result<Arc<Corpus>, AssemblyError> {
    let corpus = load_dir(dir).map_err(|e| AssemblyError(format!("{}: {e}", dir.display())))?;
    for (version, reason) in corpus.failed_versions() {
        tracing::error!(
            version,
            reason,
            "version not served: its documents are unusable"
        );
    }
    Ok(Arc::new(corpus))
}

pub fn load_embedder(
    model_dir: &Path,
    config: &PipelineConfig,
) -> Result<Arc<CachedEmbedder<Box<dyn Embedder>>>, AssemblyError> {
    let model: Arc<dyn Embedder> =
        Arc::new(MiniLmEmbedder::load(model_dir).map_err(|e| AssemblyError(e.to_string()))?);
    // Sync callers (indexing, benches) use the model directly; turns go through the batcher.
    let batcher = EmbedBatcher::spawn(model.clone(), config.embed_batch, config.embed_threads);
    Ok(Arc::new(
        CachedEmbedder::new(
            Box::new(model) as Box<dyn Embedder>,
            config.query_cache_size,
        )
        .with_batcher(batcher),
    ))
}

/// Versions of `corpus` past the configured retention at `as_of`, logged.
pub fn retired_versions(
    config: &PipelineConfig,
    corpus: &Corpus,
    as_of: chrono::DateTime<chrono::Utc>,
) -> BTreeSet<String> {
    let retired = config
        .retention()
        .retired_versions(corpus.manifest(), as_of);
    if !retired.is_empty() {
        tracing::info!(
            ?retired,
            retention_days = config.retention_days,
            %as_of,
            "versions past retention are indexed as stubs"
        );
    }
    retired
}

/// Indexes what is new or changed in `corpus` (`retired` versions as stubs), logging progress
/// every 250 chunks.
pub fn index_with_progress(
    index: &EmbeddedIndex,
    embedder: &CachedEmbedder<Box<dyn Embedder>>,
    corpus: &Corpus,
    retired: &BTreeSet<String>,
) -> Result<IndexReport, AssemblyError> {
    let mut last_logged = 0;
    indexer::index_corpus_retiring(
        index,
        embedder.inner().as_ref(),
        corpus,
        retired,
        |done, total| {
            if done == total || done >= last_logged + 250 {
                tracing::info!(done, total, "indexing chunks");
                last_logged = done;
            }
        },
    )
    .map_err(|e| AssemblyError(e.to_string()))
}

/// Picks up what the reindex worker committed to a shared index; on failure the index in
/// service stays.
pub fn refresh(index: &EmbeddedIndex) {
    if let Err(e) = index.refresh() {
        tracing::error!(error = %e, "index refresh failed; keeping the current index");
    }
}

/// Vectors of an example library's texts, cached next to the index and in the machine's
/// shared library cache.
fn library_vectors(
    cache_dir: Option<&Path>,
    embedder: &Arc<CachedEmbedder<Box<dyn Embedder>>>,
    texts: &[String],
    what: &str,
) -> Result<Vec<Vec<f32>>, AssemblyError> {
    let keys: Vec<String> = texts.iter().map(|t| cache_key(t)).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let shared = shared_library_dir();
    let dirs: Vec<&Path> = cache_dir.into_iter().chain([shared.as_path()]).collect();
    embed_library(&dirs, embedder.inner().as_ref(), &refs)
        .map_err(|e| AssemblyError(format!("embedding the {what}: {e}")))
}

/// The answerability gate, with the out-of-domain and in-domain libraries the settings name.
pub fn answerability_gate(
    config: &PipelineConfig,
    embedder: &Arc<CachedEmbedder<Box<dyn Embedder>>>,
    cache_dir: Option<&Path>,
) -> Result<AnswerabilityGate, AssemblyError> {
    let gate = AnswerabilityGate::new(config.answerability_rule());
    let library = |setting: &str, side| request_library(setting, side, embedder, cache_dir);
    let general = library(&config.out_of_domain_library, Side::General)?;
    if general.is_empty() {
        return Ok(gate);
    }
    let foreign_policy = library(&config.foreign_policy_library, Side::ForeignPolicy)?;
    let retail = library(&config.retail_library, Side::Retail)?;
    tracing::info!(
        general = general.len(),
        foreign_policy = foreign_policy.len(),
        retail = retail.len(),
        "answerability: domain libraries loaded"
    );
    Ok(gate.with_out_of_domain(DomainLibraries {
        general: Arc::new(general),
        foreign_policy: Arc::new(foreign_policy),
        retail: Arc::new(retail),
        embedder: embedder.clone(),
    }))
}

/// One domain library, embedded (through the library cache).
fn request_library(
    setting: &str,
    side: Side,
    embedder: &Arc<CachedEmbedder<Box<dyn Embedder>>>,
    cache_dir: Option<&Path>,
) -> Result<OutOfDomainLibrary, AssemblyError> {
    let entries =
        OutOfDomainLibrary::texts(setting, side).map_err(|e| AssemblyError(e.to_string()))?;
    let texts: Vec<String> = entries.iter().map(|(_, t)| t.clone()).collect();
    let vectors = library_vectors(cache_dir, embedder, &texts, side.describe())?;
    Ok(OutOfDomainLibrary::new(
        entries
            .into_iter()
            .map(|(category, text)| format!("{category}: {text}"))
            .zip(vectors)
            .collect(),
    ))
}

/// The enrich stage with the injection guard's library of known attacks, embedded by the
/// same model (and in the same normalisation) as the questions.
pub fn enricher(
    config: &PipelineConfig,
    embedder: &Arc<CachedEmbedder<Box<dyn Embedder>>>,
    cache_dir: Option<&Path>,
) -> Result<Enricher, AssemblyError> {
    let entries =
        AttackLibrary::entries(&config.guard_library).map_err(|e| AssemblyError(e.to_string()))?;
    let enricher = Enricher::new(config);
    if entries.is_empty() {
        return Ok(enricher);
    }
    let texts: Vec<String> = entries.iter().map(|(t, _)| t.clone()).collect();
    let vectors = library_vectors(cache_dir, embedder, &texts, "attack library")?;
    let library = AttackLibrary::new(
        vectors
            .into_iter()
            .zip(entries.iter().map(|(_, attack)| *attack))
            .collect(),
    )
    .written_as(texts.iter().map(String::as_str));
    tracing::info!(
        entries = library.len(),
        "injection guard: attack library loaded"
    );
    Ok(enricher.with_guard(Arc::new(library), embedder.clone()))
}

fn assemble(
    serving: ServingHandle,
    index: Arc<EmbeddedIndex>,
    embedder: Arc<CachedEmbedder<Box<dyn Embedder>>>,
    corpus: Arc<Corpus>,
    index_report: IndexReport,
    config: PipelineConfig,
    generator: Option<Arc<dyn Generator>>,
) -> Result<Embedded, AssemblyError> {
    let enricher = enricher(&config, &embedder, Some(index.dir()))?;
    let gate = answerability_gate(&config, &embedder, Some(index.dir()))?;
    let retriever = Arc::new(EmbeddedRetriever::new(index.clone(), embedder.clone()));
    let tiers = ConfidenceTiers {
        answer: config.answer_threshold,
        disclaimer: config.disclaimer_threshold,
    };
    let calibration = Calibration::load(&config.calibration).map_err(AssemblyError)?;
    let retrieve = RetrieveStage::new(
        retriever,
        Arc::new(LinearReranker { calibration }),
        tiers,
        config.top_k,
    )
    .with_expander(Arc::new(IndexExpander::new(
        index.clone(),
        embedder.clone(),
    )))
    .with_gate(Arc::new(gate));
    let generator = generator.unwrap_or_else(|| {
        Arc::new(ExtractiveGenerator {
            runner_up_margin: config.runner_up_margin,
        })
    });
    let chain = chain(serving, retrieve, generator, &config).with_enricher(enricher);
    Ok(Embedded {
        chain,
        index,
        embedder,
        corpus,
        index_report,
    })
}

/// The stages of the pipeline with their settings, over `retrieve`'s backend.
pub fn chain(
    serving: ServingHandle,
    retrieve: RetrieveStage,
    generator: Arc<dyn Generator>,
    config: &PipelineConfig,
) -> Chain {
    Chain::new(
        serving,
        Enricher::new(config),
        retrieve,
        GenerateStage::new(generator.clone(), config),
        JudgeStage::new(generator, config.disclaimer_threshold),
    )
}
