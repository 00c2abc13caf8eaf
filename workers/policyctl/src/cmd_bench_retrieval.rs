//! `policyctl bench retrieval`: queries/s and p50/p99 per backend (embedded; Elasticsearch with
//! `--elasticsearch`) on the golden corpus and on a synthetic corpus of N versions per region;
//! query embedding with and without the cache and batched; optionally a full reindex.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use policy_core::ExpectedOutcome;
use policy_search::embed::default_model_dir;
use policy_search::index::VersionBatch;
use policy_search::indexer::index_corpus;
use policy_search::{
    CachedEmbedder, EmbeddedIndex, EmbeddedRetriever, Embedder, LexicalCosineReranker,
    MiniLmEmbedder, Reranker, RetrievalQuery,
};
use policy_search_es::test_server::OsmemServer;
use policy_search_es::{mirror_versions, ElasticsearchRetriever, EsClient, EsConfig};

/// A golden question with its region and version.
type Query = (String, String, String);

/// One corpus the Elasticsearch backend is timed on.
struct SearchRun<'a> {
    index: &'a EmbeddedIndex,
    label: String,
    /// (query number, query) -> the version to ask for.
    version_of: &'a dyn Fn(usize, &Query) -> String,
}

#[derive(Args)]
pub struct RetrievalBenchArgs {
    /// Golden index to use (built there when missing or stale).
    #[arg(long, env = "POLICY_INDEX_DIR", default_value = ".run/index")]
    index_dir: PathBuf,
    #[arg(long, env = "POLICY_CORPUS", default_value = "golden/policies")]
    policies: PathBuf,
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    /// Synthetic versions per region (copies of the golden versions' chunks and vectors).
    #[arg(long, default_value_t = 144)]
    versions_per_region: usize,
    /// Retrievals timed per corpus.
    #[arg(long, default_value_t = 3000)]
    queries: usize,
    /// Also time a full reindex of the golden corpus into a fresh directory (~1-2 min).
    #[arg(long)]
    reindex: bool,
    /// Also time the Elasticsearch backend: `osmem` starts a local osmem-server (exact vector
    /// mode), anything else is a cluster URL (with the other `POLICY_ES_*` settings).
    #[arg(long)]
    elasticsearch: Option<String>,
}

struct Row {
    what: String,
    chunks: usize,
    latencies_ms: Vec<f64>,
    seconds: f64,
}

impl Row {
    fn print(&mut self) {
        self.latencies_ms.sort_by(f64::total_cmp);
        let at = |q: f64| crate::cmd_loadtest::percentile(&self.latencies_ms, q);
        println!(
            "{:<72} {:>8} {:>8} {:>10.0} {:>9.3} {:>9.3}",
            self.what,
            self.chunks,
            self.latencies_ms.len(),
            self.latencies_ms.len() as f64 / self.seconds.max(1e-9),
            at(0.5),
            at(0.99)
        );
    }
}

/// Times `f` once per item.
fn timed<T>(items: &[T], mut f: impl FnMut(usize, &T)) -> (Vec<f64>, f64) {
    let started = Instant::now();
    let latencies = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let t = Instant::now();
            f(i, item);
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    (latencies, started.elapsed().as_secs_f64())
}

pub async fn run(args: RetrievalBenchArgs) -> anyhow::Result<ExitCode> {
    tokio::task::block_in_place(|| bench(args))
}

fn bench(args: RetrievalBenchArgs) -> anyhow::Result<ExitCode> {
    let corpus = policy_core::load_dir(&args.policies)?;
    let model: Box<dyn Embedder> = Box::new(MiniLmEmbedder::load(&default_model_dir())?);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    if args.reindex {
        let dir = tempfile::tempdir()?;
        let fresh = EmbeddedIndex::open(dir.path())?;
        let started = Instant::now();
        let report = index_corpus(&fresh, model.as_ref(), &corpus, |_, _| {})?;
        notes.push(format!(
            "full reindex of the golden corpus: {} chunks of {} versions in {:.1} s",
            report.chunks,
            report.indexed_versions.len(),
            started.elapsed().as_secs_f64()
        ));
    }
    let index = Arc::new(EmbeddedIndex::open(&args.index_dir)?);
    index_corpus(&index, model.as_ref(), &corpus, |_, _| {})?;
    let embedder = Arc::new(CachedEmbedder::new(model, 100_000));
    let reranker = LexicalCosineReranker::default();

    let cases = policy_core::load_cases(&args.golden)?;
    let golden: Vec<Query> = cases
        .iter()
        .filter(|c| c.expected_outcome == ExpectedOutcome::Answer)
        .filter_map(|c| {
            let version = c.expected_version_id.clone()?;
            let region = version.split('-').next()?.to_string();
            Some((c.question.clone(), region, version))
        })
        .collect();
    let queries: Vec<&Query> = golden.iter().cycle().take(args.queries).collect();

    // Query embedding: every text distinct (no cache), then the same texts again (all hits).
    let distinct: Vec<String> = golden
        .iter()
        .take(300)
        .enumerate()
        .map(|(i, (q, _, _))| format!("{q} (order {i})"))
        .collect();
    let (latencies, seconds) = timed(&distinct, |_, q| {
        embedder.inner().embed(q).expect("embedding");
    });
    rows.push(Row {
        what: "query embedding, no cache (MiniLM, candle)".into(),
        chunks: 0,
        latencies_ms: latencies,
        seconds,
    });
    // The same distinct texts in batches of 8 (what concurrent cache misses could share):
    // latency is per batch, throughput per text.
    let batches: Vec<Vec<&str>> = distinct
        .chunks(8)
        .map(|b| b.iter().map(String::as_str).collect())
        .collect();
    let (latencies, seconds) = timed(&batches, |_, batch| {
        embedder.inner().embed_batch(batch).expect("embedding");
    });
    rows.push(Row {
        what: "query embedding, no cache, batches of 8 (per batch)".into(),
        chunks: 0,
        latencies_ms: latencies,
        seconds,
    });
    for q in &distinct {
        embedder.embed_query(q)?;
    }
    let (latencies, seconds) = timed(&distinct, |_, q| {
        embedder.embed_query(q).expect("cached");
    });
    rows.push(Row {
        what: "query embedding, cache hit".into(),
        chunks: 0,
        latencies_ms: latencies,
        seconds,
    });

    let search = |retriever: &EmbeddedRetriever, text: &str, region: &str, version: &str| {
        let hits = retriever
            .search(RetrievalQuery {
                text,
                region,
                version_id: version,
                top_k: 15,
            })
            .expect("search");
        reranker.rerank(text, hits)
    };
    let retriever = EmbeddedRetriever::new(index.clone(), embedder.clone());
    for (q, _, _) in &golden {
        embedder.embed_query(q)?; // warm: the retrieval rows measure search, not the model
    }
    let (latencies, seconds) = timed(&queries, |_, (q, r, v)| {
        search(&retriever, q, r, v);
    });
    rows.push(Row {
        what: format!(
            "embedded: hybrid retrieval + rerank, golden ({} versions)",
            index.indexed_versions().len()
        ),
        chunks: index.chunk_count(),
        latencies_ms: latencies,
        seconds,
    });

    // Synthetic: each region gets N versions, copies of its golden versions' chunks and vectors.
    let dir = tempfile::tempdir()?;
    let synthetic = Arc::new(EmbeddedIndex::open(dir.path())?);
    let mut batches = Vec::new();
    for region in ["us", "eu", "jp", "br"] {
        let bases: Vec<String> = corpus
            .manifest()
            .versions()
            .filter(|v| v.id.starts_with(&format!("{region}-")))
            .map(|v| v.id.clone())
            .collect();
        for n in 1..=args.versions_per_region {
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
    notes.push(format!(
        "synthetic index ({} versions, {} chunks, vectors copied) written in {:.1} s",
        synthetic.indexed_versions().len(),
        synthetic.chunk_count(),
        started.elapsed().as_secs_f64()
    ));
    let retriever = EmbeddedRetriever::new(synthetic.clone(), embedder.clone());
    let per_region = args.versions_per_region.max(1);
    let (latencies, seconds) = timed(&queries, |i, (q, r, _)| {
        search(&retriever, q, r, &format!("{r}-s{}", 1 + i % per_region));
    });
    rows.push(Row {
        what: format!("embedded: hybrid retrieval + rerank, synthetic (4 x {per_region} versions)"),
        chunks: synthetic.chunk_count(),
        latencies_ms: latencies,
        seconds,
    });

    if let Some(target) = &args.elasticsearch {
        let golden_run = SearchRun {
            index: &index,
            label: format!("golden ({} versions)", index.indexed_versions().len()),
            version_of: &|_, (_, _, v): &Query| v.clone(),
        };
        let synthetic_run = SearchRun {
            index: &synthetic,
            label: format!("synthetic (4 x {per_region} versions)"),
            version_of: &|i, (_, r, _): &Query| format!("{r}-s{}", 1 + i % per_region),
        };
        let search = |retriever: &ElasticsearchRetriever, text: &str, region: &str, v: &str| {
            let query = RetrievalQuery {
                text,
                region,
                version_id: v,
                top_k: 15,
            };
            let hits = tokio::runtime::Handle::current()
                .block_on(retriever.search(query))
                .expect("elasticsearch search");
            reranker.rerank(text, hits)
        };
        for run in [golden_run, synthetic_run] {
            let server = (target == "osmem").then(OsmemServer::start);
            let client = match &server {
                Some(server) => server.client("bench-clauses"),
                None => EsClient::new(EsConfig {
                    url: target.clone(),
                    index: "bench-clauses".into(),
                    ..EsConfig::from_env()?
                })?,
            };
            let client = Arc::new(client);
            let versions: Vec<String> = run.index.indexed_versions().into_keys().collect();
            let started = Instant::now();
            tokio::runtime::Handle::current()
                .block_on(mirror_versions(&client, run.index, &versions))?;
            notes.push(format!(
                "elasticsearch ({target}, {:?} vectors): {} chunks bulk-indexed in {:.1} s",
                client.config().vector_mode,
                run.index.chunk_count(),
                started.elapsed().as_secs_f64()
            ));
            let retriever = ElasticsearchRetriever::new(client.clone(), embedder.clone());
            let timed_queries = &queries[..queries.len().min(1000)];
            let (latencies, seconds) = timed(timed_queries, |i, query| {
                search(&retriever, &query.0, &query.1, &(run.version_of)(i, query));
            });
            rows.push(Row {
                what: format!("elasticsearch: hybrid retrieval + rerank, {}", run.label),
                chunks: run.index.chunk_count(),
                latencies_ms: latencies,
                seconds,
            });
        }
    }

    println!(
        "{:<72} {:>8} {:>8} {:>10} {:>9} {:>9}",
        "backend / what", "chunks", "calls", "calls/s", "p50_ms", "p99_ms"
    );
    for row in &mut rows {
        row.print();
    }
    for note in notes {
        println!("{note}");
    }
    Ok(ExitCode::SUCCESS)
}
