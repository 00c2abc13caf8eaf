//! The extractive generator (the LLM generator's tests are in llm_tests.rs).

use super::*;

static EMPTY: QueryExpansion = QueryExpansion { terms: Vec::new() };

fn clause() -> Vec<RetrievedClause> {
    let mut clause = RetrievedClause::new(
        "eu-v4#sec-3.2",
        "You may return most items within 30 calendar days from the day of delivery.",
        0.8,
    );
    clause.title = "Return window".into();
    vec![clause]
}

#[tokio::test]
async fn extractive_generator_refuses_without_clauses() {
    let request = GenerationRequest {
        expansion: &EMPTY,
        question: "q",
        version_id: "eu-v4",
        clauses: &[],
        strict: false,
    };
    assert_eq!(
        ExtractiveGenerator {
            runner_up_margin: 0.05
        }
        .generate(request)
        .await
        .unwrap()
        .text,
        REFUSAL
    );
}

#[tokio::test]
async fn extractive_generator_quotes_the_clause_with_its_tag() {
    let clauses = clause();
    let request = GenerationRequest {
        expansion: &EMPTY,
        question: "What is the return window?",
        version_id: "eu-v4",
        clauses: &clauses,
        strict: false,
    };
    let generated = ExtractiveGenerator {
        runner_up_margin: 0.05,
    }
    .generate(request)
    .await
    .unwrap();
    assert_eq!(
        generated.text,
        "You may return most items within 30 calendar days from the day of delivery. \
         [clause: eu-v4#sec-3.2]"
    );
    assert_eq!(generated.fallback_reason, None);
    assert_eq!(generated.llm_calls, 0);
}
