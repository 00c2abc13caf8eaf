//! `policyctl explain`: why a question gets the answer it gets. Runs one turn in this process
//! and shows what each stage saw: the resolved region and version, the question's words as
//! that version knows them (equivalents), every candidate with its features and reranked
//! score, the confidence, and the outcome.

use std::fmt::Write as _;

use policy_avro::ChatTurn;
use policy_pipeline::outcome::now_millis;
use policy_pipeline::{Entry, Exit, Outcome, StageName, Turn};
use policy_search::rerank::{self, FEATURE_NAMES};
use policy_search::Ranking;

use crate::settings::AppSettings;

pub async fn explain(settings: &AppSettings, turn: ChatTurn) -> anyhow::Result<String> {
    let index_dir = settings.corpus.index_dir_or_default();
    let (assembled, _) = crate::assemble::pipeline(settings, &index_dir).await?;
    let chain = &assembled.chain;
    let mut out = String::new();
    let entry = Entry::Received(Turn::new(turn.clone(), Default::default(), now_millis()));
    if let Exit::Enriched(enriched) = chain.run(entry, StageName::Enrich).await? {
        let stage = chain.retrieve_stage();
        let mut e = enriched.enrichment().clone();
        stage
            .correct_spelling(&chain.serving().current(), &mut e)
            .await;
        let e = &e;
        let _ = writeln!(
            out,
            "region {} ({}), version {}",
            e.region, e.region_source, e.version_id
        );
        let spelling: Vec<&str> = e
            .guardrail_flags
            .iter()
            .filter_map(|f| f.strip_prefix("spelling:"))
            .collect();
        if !spelling.is_empty() {
            let _ = writeln!(
                out,
                "spelling corrected ({}): {}",
                spelling.join(", "),
                e.sanitized_question
            );
        }
        let (expansion, hits) = stage
            .candidates(&e.sanitized_question, &e.region, &e.version_id)
            .await?;
        let _ = writeln!(out, "\nquestion words as {} knows them:", e.version_id);
        for t in &expansion.terms {
            let _ = writeln!(
                out,
                "  {:<24} {:<10} nearest {:.2}  {}",
                t.word,
                if t.phrase {
                    "phrase"
                } else if t.in_version {
                    "used"
                } else {
                    "not used"
                },
                t.nearest_cosine,
                t.equivalents.join(", ")
            );
        }
        let features = rerank::features(&e.sanitized_question, &expansion, &hits);
        let Ranking {
            hits: ranked,
            confidence,
        } = stage.reranker().rank(
            &e.sanitized_question,
            &expansion,
            hits.clone(),
            hits.len(),
            &|_| true,
        );
        let _ = writeln!(
            out,
            "\ncandidates (reranked score; features: {}):",
            FEATURE_NAMES.join(" | ")
        );
        for hit in &ranked {
            let i = hits
                .iter()
                .position(|h| h.clause_id == hit.clause_id)
                .unwrap_or(0);
            let f: Vec<String> = features[i].iter().map(|x| format!("{x:.2}")).collect();
            let _ = writeln!(
                out,
                "  {:>7.2} {:<16} {:<32} [{}]",
                hit.score,
                hit.clause_id,
                hit.title.chars().take(32).collect::<String>(),
                f.join(" ")
            );
        }
        let _ = writeln!(out, "\nconfidence {confidence:.3}");
        if let Some(gate) = stage.gate() {
            let serving = chain.serving().current();
            let own = gate.topics(&serving, &e.version_id);
            let _ = writeln!(
                out,
                "\nother versions of {} (coverage rule {:?}):",
                e.region,
                gate.rule()
            );
            let mut others = stage
                .other_versions(&serving, &e.sanitized_question, &e.region, &e.version_id)
                .await;
            if gate.asks_beyond(&serving, &e.version_id, &e.sanitized_question) {
                let instant = e.effective_at.unwrap_or(turn.sent_at);
                others.extend(
                    stage
                        .other_regions(
                            &serving,
                            &e.sanitized_question,
                            &e.region,
                            &e.version_id,
                            chrono::DateTime::from_timestamp_millis(instant).unwrap_or_default(),
                        )
                        .await,
                );
            }
            for m in &others {
                let _ = writeln!(
                    out,
                    "  {:<8} {:<16} topic {:<24} {} confidence {:.3} ({:+.3}) gap {:?}{}",
                    m.version_id,
                    m.clause_id,
                    m.topic,
                    if own.contains(&m.topic) {
                        "in force too"
                    } else {
                        "NOT in force"
                    },
                    m.confidence,
                    m.confidence - confidence,
                    m.gap,
                    if m.names_it { " (named)" } else { "" }
                );
            }
        }
    }
    let outcome = chain.process(turn, Default::default()).await?;
    match outcome {
        Outcome::Answer(a) => {
            let _ = writeln!(out, "\nanswer ({}): {}", a.tier, a.answer_text);
        }
        Outcome::Escalate(e) => {
            let _ = writeln!(
                out,
                "\nescalation ({}): {}",
                e.reason_code,
                e.reasons.join("; ")
            );
        }
    }
    Ok(out)
}
