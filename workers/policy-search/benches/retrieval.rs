//! Retrieval on the golden corpus with the real model: query embedding with and without the
//! cache, and hybrid retrieval (both legs filtered to one region and version, fused, reranked).
//! The index is built once before measuring; its build time is printed.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use policy_core::load_dir;
use policy_search::embed::default_model_dir;
use policy_search::indexer::index_corpus;
use policy_search::*;

fn retrieval(c: &mut Criterion) {
    let corpus = load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden/policies"))
        .expect("golden corpus");
    let model: Box<dyn Embedder> =
        Box::new(MiniLmEmbedder::load(&default_model_dir()).expect("model (make install)"));
    let dir = tempfile::tempdir().unwrap();
    let index = Arc::new(EmbeddedIndex::open(dir.path()).unwrap());
    let started = Instant::now();
    let report = index_corpus(&index, model.as_ref(), &corpus, |_, _| {}).unwrap();
    eprintln!(
        "full reindex: {} chunks of {} versions in {:.1} s",
        report.chunks,
        report.indexed_versions.len(),
        started.elapsed().as_secs_f64()
    );

    let embedder = Arc::new(CachedEmbedder::new(model, 10_000));
    let retriever = EmbeddedRetriever::new(index, embedder.clone());
    let reranker = LinearReranker::default();
    let questions = [
        "What is the return window for my purchase?",
        "how many days do i have to send somthing back?",
        "Can I pay in installments?",
    ];

    c.bench_function("embed query (no cache)", |b| {
        let mut i = 0u64;
        b.iter(|| {
            i += 1;
            embedder
                .inner()
                .embed(black_box(&format!(
                    "What is the return window for order {i}?"
                )))
                .unwrap()
        })
    });
    c.bench_function("embed query (cache hit)", |b| {
        b.iter(|| embedder.embed_query(black_box(questions[0])).unwrap())
    });
    c.bench_function("hybrid retrieval + rerank (cached query vector)", |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let text = questions[i % questions.len()];
            let hits = retriever
                .search(RetrievalQuery {
                    expansion: "",
                    text,
                    region: "eu",
                    version_id: "eu-v4",
                    top_k: 15,
                })
                .unwrap();
            reranker.rerank(text, &Default::default(), hits)
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = retrieval
}
criterion_main!(benches);
