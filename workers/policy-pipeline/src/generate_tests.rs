//! The OpenAI-compatible generator against a mock chat-completions endpoint (a third-party HTTP
//! API: the one place a mock is used, and only in unit tests).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};

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

/// Fails `failures` times with 503, then answers; records the last request body.
async fn mock(
    failures: usize,
) -> (
    String,
    Arc<(AtomicUsize, std::sync::Mutex<Option<serde_json::Value>>)>,
) {
    let state = Arc::new((AtomicUsize::new(0), std::sync::Mutex::new(None)));
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(move |State(s): State<Arc<(AtomicUsize, std::sync::Mutex<Option<serde_json::Value>>)>>, Json(body): Json<serde_json::Value>| async move {
                let n = s.0.fetch_add(1, Ordering::SeqCst);
                *s.1.lock().unwrap() = Some(body);
                if n < failures {
                    return Err(axum::http::StatusCode::SERVICE_UNAVAILABLE);
                }
                Ok(Json(json!({"choices": [{"message": {"role": "assistant", "content": "Within 30 calendar days. [clause: eu-v4#sec-3.2]"}}]})))
            }),
        )
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), state)
}

fn generator(base_url: String, max_retries: usize) -> OpenAiGenerator {
    OpenAiGenerator::new(LlmSettings {
        base_url: Some(base_url),
        model: "test-model".into(),
        api_key: Some("k".into()),
        timeout_secs: 5,
        max_retries,
    })
    .unwrap()
}

#[tokio::test]
async fn sends_strict_prompt_with_clauses_and_returns_the_answer() {
    let (url, state) = mock(0).await;
    let clauses = clause();
    let request = GenerationRequest {
        expansion: &EMPTY,
        question: "What is the return window?",
        version_id: "eu-v4",
        clauses: &clauses,
        strict: false,
    };
    let answer = generator(url, 0).generate(request).await.unwrap();
    assert_eq!(answer, "Within 30 calendar days. [clause: eu-v4#sec-3.2]");
    let body = state.1.lock().unwrap().clone().unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0);
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("reply exactly: I can't confirm the answer for your specific situation; let me hand you to a human agent."));
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("[eu-v4#sec-3.2] Return window")
            && user.contains("Question: What is the return window?")
    );
}

#[tokio::test]
async fn strict_retry_prompt_differs() {
    let g = generator("http://unused".into(), 0);
    let clauses = clause();
    let normal = g.request_body(&GenerationRequest {
        expansion: &EMPTY,
        question: "q",
        version_id: "eu-v4",
        clauses: &clauses,
        strict: false,
    });
    let strict = g.request_body(&GenerationRequest {
        expansion: &EMPTY,
        question: "q",
        version_id: "eu-v4",
        clauses: &clauses,
        strict: true,
    });
    assert!(strict["messages"][0]["content"]
        .as_str()
        .unwrap()
        .ends_with(STRICT_SUFFIX));
    assert!(!normal["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("rejected"));
}

#[tokio::test]
async fn transient_errors_are_retried_with_backoff() {
    let (url, state) = mock(2).await;
    let clauses = clause();
    let request = GenerationRequest {
        expansion: &EMPTY,
        question: "q",
        version_id: "eu-v4",
        clauses: &clauses,
        strict: false,
    };
    assert!(generator(url.clone(), 3).generate(request).await.is_ok());
    assert_eq!(state.0.load(Ordering::SeqCst), 3);
    let (url, _) = mock(5).await;
    let err = generator(url, 1).generate(request).await.unwrap_err();
    assert!(matches!(err, GenerateError::Unavailable(_)), "{err}");
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
        .unwrap(),
        REFUSAL
    );
}
