//! Cost of the pure per-turn domain steps on the golden corpus: guardrails, region and version
//! resolution, extractive generation, citation parsing and the judge.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use policy_core::extract::extract_answer;
use policy_core::guardrails::{assess_injection, detect_pii, sanitize};
use policy_core::judge::{judge, JudgeInput};
use policy_core::{
    load_dir, parse_citations, parse_utc_instant, resolve_region, RegionSignals, RetrievedClause,
    VersionResolver,
};

fn domain(c: &mut Criterion) {
    let corpus = load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden/policies"))
        .expect("golden corpus");
    let question = "Hi, I bought a jacket on 15 January, how many days do I have to send it back?";
    let clause = corpus.clause("eu-v4#sec-3.2").expect("clause");
    let neighbour = corpus.clause("eu-v4#sec-3.4").expect("clause");
    let answer = "You may return most items within 30 calendar days from the day of delivery without giving any reason. [clause: eu-v4#sec-3.2]";
    let resolver = VersionResolver::default();
    let instant = parse_utc_instant("2026-03-01T10:00:00Z").unwrap();

    c.bench_function("guardrails: sanitize + injection + pii", |b| {
        b.iter(|| {
            let s = sanitize(black_box(question), 1000);
            (assess_injection(&s.text), detect_pii(&s.text))
        })
    });
    c.bench_function("resolve region + version", |b| {
        b.iter(|| {
            let region = resolve_region(RegionSignals {
                session: Some("eu"),
                billing: Some("eu"),
                ip: Some("us"),
            })
            .unwrap();
            resolver.resolve(
                corpus.manifest(),
                &region.region,
                Some(black_box(instant)),
                instant,
            )
        })
    });
    c.bench_function("extractive generation (2 candidates)", |b| {
        let candidates = [
            RetrievedClause::new(&clause.clause_id, &clause.text, 0.8),
            RetrievedClause::new(&neighbour.clause_id, &neighbour.text, 0.6),
        ];
        let expansion = policy_core::QueryExpansion::default();
        b.iter(|| extract_answer(black_box(question), &expansion, &candidates, 0.06))
    });
    c.bench_function("citation parsing", |b| {
        b.iter(|| parse_citations(black_box(answer)))
    });
    c.bench_function("judge", |b| {
        let retrieved = [RetrievedClause::new(&clause.clause_id, &clause.text, 0.9)];
        let exists = |id: &str| corpus.clause(id).is_some();
        b.iter(|| {
            judge(&JudgeInput {
                answer: black_box(answer),
                resolved_version: "eu-v4",
                retrieved: &retrieved,
                clause_exists: &exists,
                confidence: 0.9,
                escalate_below: 0.5,
                data_facts: &Default::default(),
            })
        })
    });
}

criterion_group!(benches, domain);
criterion_main!(benches);
