//! Retrieval benchmark: queries/s and p50/p99 per backend (embedded; Elasticsearch on request)
//! on the golden corpus and on a synthetic corpus of N versions per region; query embedding
//! with and without the cache and batched; optionally a full reindex.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use policy_core::{Corpus, ExpectedOutcome};
use policy_search::index::VersionBatch;
use policy_search::indexer::index_corpus;
use policy_search::{
    CachedEmbedder, EmbeddedIndex, EmbeddedRetriever, Embedder, LinearReranker, MiniLmEmbedder,
    Reranker, RetrievalQuery,
};
use policy_search_es::test_server::OsmemServer;
use policy_search_es::{mirror_versions, ElasticsearchRetriever, EsClient, EsConfig};

use super::{timed, Row, Table};

/// A golden question with its region and version.
type Query = (String, String, String);

#[derive(Debug, Clone)]
pub struct RetrievalBench {
    pub index_dir: PathBuf,
    pub policies: PathBuf,
    pub golden: PathBuf,
    pub model_dir: PathBuf,
    /// Synthetic versions per region (copies of the golden versions' chunks and vectors).
    pub versions_per_region: usize,
    /// Retrievals timed per corpus.
    pub queries: usize,
    /// Also time a full reindex of the golden corpus into a fresh directory.
    pub reindex: bool,
    /// `osmem` (a local osmem-server, exact vectors) or a cluster URL: also time Elasticsearch
    /// (with `elasticsearch`'s other settings).
    pub elasticsearch: Option<(String, EsConfig)>,
}

/// One corpus the Elasticsearch backend is timed on.
struct SearchRun<'a> {
    index: &'a EmbeddedIndex,
    label: String,
    /// (query number, query) -> the version to ask for.
    version_of: &'a dyn Fn(usize, &Query) -> String,
}

type SharedEmbedder = Arc<CachedEmbedder<Box<dyn Embedder>>>;

/// Runs every row (blocking: call it from a blocking context).
pub fn run(bench: &RetrievalBench) -> anyhow::Result<Table> {
    let corpus = policy_core::load_dir(&bench.policies)?;
    let model: Box<dyn Embedder> = Box::new(MiniLmEmbedder::load(&bench.model_dir)?);
    let mut table = Table::default();
    if bench.reindex {
        table.notes.push(full_reindex(model.as_ref(), &corpus)?);
    }
    let index = Arc::new(EmbeddedIndex::open(&bench.index_dir)?);
    index_corpus(&index, model.as_ref(), &corpus, |_, _| {})?;
    let embedder: SharedEmbedder = Arc::new(CachedEmbedder::new(model, 100_000));
    let golden = golden_queries(bench)?;
    let queries: Vec<&Query> = golden.iter().cycle().take(bench.queries).collect();
    table.rows.extend(embedding_rows(&embedder, &golden)?);
    for (q, _, _) in &golden {
        embedder.embed_query(q)?; // warm: the retrieval rows measure search, not the model
    }
    let retriever = EmbeddedRetriever::new(index.clone(), embedder.clone());
    table.rows.push(embedded_row(
        &retriever,
        &queries,
        format!(
            "embedded: hybrid retrieval + rerank, golden ({} versions)",
            index.indexed_versions().len()
        ),
        |_, (_, _, v)| v.clone(),
    ));
    let per_region = bench.versions_per_region.max(1);
    let scratch = tempfile::tempdir()?;
    let (synthetic, note) = synthetic_index(scratch.path(), &corpus, &index, per_region)?;
    table.notes.push(note);
    let retriever = EmbeddedRetriever::new(synthetic.clone(), embedder.clone());
    table.rows.push(embedded_row(
        &retriever,
        &queries,
        format!("embedded: hybrid retrieval + rerank, synthetic (4 x {per_region} versions)"),
        |i, (_, r, _)| format!("{r}-s{}", 1 + i % per_region),
    ));
    if let Some((target, config)) = &bench.elasticsearch {
        let runs = [
            SearchRun {
                index: &index,
                label: format!("golden ({} versions)", index.indexed_versions().len()),
                version_of: &|_, (_, _, v): &Query| v.clone(),
            },
            SearchRun {
                index: &synthetic,
                label: format!("synthetic (4 x {per_region} versions)"),
                version_of: &|i, (_, r, _): &Query| format!("{r}-s{}", 1 + i % per_region),
            },
        ];
        for search_run in runs {
            let (row, note) = elasticsearch_row(target, config, &search_run, &embedder, &queries)?;
            table.rows.push(row);
            table.notes.push(note);
        }
    }
    Ok(table)
}

fn full_reindex(model: &dyn Embedder, corpus: &Corpus) -> anyhow::Result<String> {
    let dir = tempfile::tempdir()?;
    let fresh = EmbeddedIndex::open(dir.path())?;
    let started = Instant::now();
    let report = index_corpus(&fresh, model, corpus, |_, _| {})?;
    Ok(format!(
        "full reindex of the golden corpus: {} chunks of {} versions in {:.1} s",
        report.chunks,
        report.indexed_versions.len(),
        started.elapsed().as_secs_f64()
    ))
}

fn golden_queries(bench: &RetrievalBench) -> anyhow::Result<Vec<Query>> {
    let cases = policy_core::load_cases(&bench.golden)?;
    Ok(cases
        .iter()
        .filter(|c| c.expected_outcome == ExpectedOutcome::Answer)
        .filter_map(|c| {
            let version = c.expected_version_id.clone()?;
            let region = version.split('-').next()?.to_string();
            Some((c.question.clone(), region, version))
        })
        .collect())
}

/// Query embedding: every text distinct (no cache), in batches of 8, then all cache hits.
fn embedding_rows(embedder: &SharedEmbedder, golden: &[Query]) -> anyhow::Result<Vec<Row>> {
    let distinct: Vec<String> = golden
        .iter()
        .take(300)
        .enumerate()
        .map(|(i, (q, _, _))| format!("{q} (order {i})"))
        .collect();
    let mut rows = Vec::new();
    let (latencies, seconds) = timed(&distinct, |_, q| {
        embedder.inner().embed(q).expect("embedding");
    });
    rows.push(Row::new(
        "query embedding, no cache (MiniLM, candle)",
        0,
        latencies,
        seconds,
    ));
    // What concurrent cache misses could share: latency is per batch, throughput per text.
    let batches: Vec<Vec<&str>> = distinct
        .chunks(8)
        .map(|b| b.iter().map(String::as_str).collect())
        .collect();
    let (latencies, seconds) = timed(&batches, |_, batch| {
        embedder.inner().embed_batch(batch).expect("embedding");
    });
    rows.push(Row::new(
        "query embedding, no cache, batches of 8 (per batch)",
        0,
        latencies,
        seconds,
    ));
    for q in &distinct {
        embedder.embed_query(q)?;
    }
    let (latencies, seconds) = timed(&distinct, |_, q| {
        embedder.embed_query(q).expect("cached");
    });
    rows.push(Row::new(
        "query embedding, cache hit",
        0,
        latencies,
        seconds,
    ));
    Ok(rows)
}

fn embedded_row(
    retriever: &EmbeddedRetriever,
    queries: &[&Query],
    what: String,
    version_of: impl Fn(usize, &Query) -> String,
) -> Row {
    let reranker = LinearReranker::default();
    let (latencies, seconds) = timed(queries, |i, query| {
        let (text, region, _) = query;
        let hits = retriever
            .search(RetrievalQuery {
                text,
                expansion: "",
                region,
                version_id: &version_of(i, query),
                top_k: 15,
            })
            .expect("search");
        reranker.rerank(text, &Default::default(), hits);
    });
    Row::new(what, retriever.index().chunk_count(), latencies, seconds)
}

/// Each region gets N versions, copies of its golden versions' chunks and vectors.
fn synthetic_index(
    dir: &std::path::Path,
    corpus: &Corpus,
    index: &EmbeddedIndex,
    per_region: usize,
) -> anyhow::Result<(Arc<EmbeddedIndex>, String)> {
    let synthetic = Arc::new(EmbeddedIndex::open(dir)?);
    let mut batches = Vec::new();
    for region in ["us", "eu", "jp", "br"] {
        let bases: Vec<String> = corpus
            .manifest()
            .versions()
            .filter(|v| v.id.starts_with(&format!("{region}-")))
            .map(|v| v.id.clone())
            .collect();
        for n in 1..=per_region {
            let base = &bases[n % bases.len()];
            let version_id = format!("{region}-s{n}");
            let chunks = index
                .version_chunks(base)
                .into_iter()
                .map(|mut c| {
                    c.chunk_id = c.chunk_id.replacen(base.as_str(), &version_id, 1);
                    c.clause_id = c.clause_id.replacen(base.as_str(), &version_id, 1);
                    c.version_id = version_id.clone();
                    c
                })
                .collect();
            batches.push(VersionBatch {
                fingerprint: format!("synthetic-{version_id}"),
                version_id,
                chunks,
                vectors: index.version_vectors(base),
            });
        }
    }
    let started = Instant::now();
    synthetic.replace_versions(batches)?;
    let note = format!(
        "synthetic index ({} versions, {} chunks, vectors copied) written in {:.1} s",
        synthetic.indexed_versions().len(),
        synthetic.chunk_count(),
        started.elapsed().as_secs_f64()
    );
    Ok((synthetic, note))
}

fn elasticsearch_row(
    target: &str,
    config: &EsConfig,
    run: &SearchRun<'_>,
    embedder: &SharedEmbedder,
    queries: &[&Query],
) -> anyhow::Result<(Row, String)> {
    let server = (target == "osmem").then(OsmemServer::start);
    let client = match &server {
        Some(server) => server.client("bench-clauses"),
        None => EsClient::new(EsConfig {
            url: target.to_string(),
            index: "bench-clauses".into(),
            ..config.clone()
        })?,
    };
    let client = Arc::new(client);
    let versions: Vec<String> = run.index.indexed_versions().into_keys().collect();
    let started = Instant::now();
    tokio::runtime::Handle::current().block_on(mirror_versions(&client, run.index, &versions))?;
    let note = format!(
        "elasticsearch ({target}, {:?} vectors): {} chunks bulk-indexed in {:.1} s",
        client.config().vector_mode,
        run.index.chunk_count(),
        started.elapsed().as_secs_f64()
    );
    let retriever = ElasticsearchRetriever::new(client.clone(), embedder.clone());
    let reranker = LinearReranker::default();
    let timed_queries = &queries[..queries.len().min(1000)];
    let (latencies, seconds) = timed(timed_queries, |i, query| {
        let (text, region, _) = query;
        let hits = tokio::runtime::Handle::current()
            .block_on(retriever.search(RetrievalQuery {
                text,
                expansion: "",
                region,
                version_id: &(run.version_of)(i, query),
                top_k: 15,
            }))
            .expect("elasticsearch search");
        reranker.rerank(text, &Default::default(), hits);
    });
    let row = Row::new(
        format!("elasticsearch: hybrid retrieval + rerank, {}", run.label),
        run.index.chunk_count(),
        latencies,
        seconds,
    );
    Ok((row, note))
}
