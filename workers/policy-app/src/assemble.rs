//! The pipeline a process serves, built from its settings: the corpus (a directory, or the
//! last snapshot a reindex worker published), the index, the model, the generator and the
//! search backend.

use std::path::Path;

use policy_pipeline::embedded::{self, Embedded};
use policy_pipeline::ExtractiveGenerator;

use crate::backend::SearchBackend;
use crate::settings::AppSettings;

/// Builds the pipeline of `settings`, indexing into `index_dir` when serving a corpus
/// directory (a published data directory brings its own index).
pub async fn pipeline(
    settings: &AppSettings,
    index_dir: &Path,
) -> anyhow::Result<(Embedded, SearchBackend)> {
    let generator = settings.llm.generator(ExtractiveGenerator {
        runner_up_margin: settings.pipeline.runner_up_margin,
    })?;
    let backend = SearchBackend::new(&settings.search)?;
    let model_dir = settings.model.dir();
    let mut assembled = tokio::task::block_in_place(|| match &settings.corpus.data_dir {
        Some(data_dir) => {
            embedded::build_published(data_dir, &model_dir, settings.pipeline.clone(), generator)
        }
        None => embedded::build(
            &settings.corpus.policies,
            index_dir,
            &model_dir,
            settings.pipeline.clone(),
            generator,
        ),
    })?;
    // Serving a published data directory, the reindex worker keeps Elasticsearch in sync.
    backend
        .attach(&mut assembled, settings.corpus.data_dir.is_none())
        .await?;
    // Offline commands decide with the configured HTTP or file sources; a worker replaces them
    // with the topics' views when none is configured (`crate::worker`).
    assembled.chain = assembled.chain.with_sources(settings.sources.offline()?);
    tracing::info!(
        indexed = ?assembled.index_report.indexed_versions,
        unchanged = assembled.index_report.unchanged_versions.len(),
        backend = assembled.chain.search_backend(),
        "pipeline ready"
    );
    Ok((assembled, backend))
}
