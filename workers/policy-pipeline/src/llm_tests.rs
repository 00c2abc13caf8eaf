//! The OpenAI-compatible generator against a mock chat-completions endpoint (a third-party HTTP
//! API: the one place a mock is used, and only in unit tests). The real server is exercised by
//! policyctl's `llm_server` test.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use policy_core::{QueryExpansion, RetrievedClause};

use super::*;

static EMPTY: QueryExpansion = QueryExpansion { terms: Vec::new() };
const ANSWER: &str = "Within 30 calendar days. [clause: eu-v4#sec-3.2]";

fn clauses() -> Vec<RetrievedClause> {
    let mut clause = RetrievedClause::new(
        "eu-v4#sec-3.2",
        "You may return most items within 30 calendar days from the day of delivery.",
        0.8,
    );
    clause.title = "Return window".into();
    vec![clause]
}

fn request(clauses: &[RetrievedClause], strict: bool) -> GenerationRequest<'_> {
    GenerationRequest {
        expansion: &EMPTY,
        question: "What is the return window?",
        version_id: "eu-v4",
        clauses,
        strict,
    }
}

/// How the mock endpoint behaves on its n-th request (from 0).
#[derive(Clone, Copy)]
enum Reply {
    Answer,
    Unavailable,
    /// 429 with `Retry-After` in seconds.
    TooMany(u64),
    /// Never answers in time: sleeps this long first.
    Slow(u64),
    /// Answers after this many milliseconds.
    SlowAnswer(u64),
}

#[derive(Default)]
struct Mock {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    /// Set when a request's handler was dropped before it finished (the client hung up).
    abandoned: AtomicBool,
    last_body: std::sync::Mutex<Option<serde_json::Value>>,
}

struct DropFlag<'a>(&'a AtomicBool, bool);

impl Drop for DropFlag<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

async fn mock(script: Vec<Reply>) -> (String, Arc<Mock>) {
    let state = Arc::new(Mock::default());
    let script = Arc::new(script);
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(
                move |State(mock): State<Arc<Mock>>, Json(body): Json<serde_json::Value>| {
                    let script = script.clone();
                    async move {
                        let n = mock.requests.fetch_add(1, Ordering::SeqCst);
                        let now = mock.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        mock.max_in_flight.fetch_max(now, Ordering::SeqCst);
                        *mock.last_body.lock().unwrap() = Some(body);
                        let reply = script[n.min(script.len() - 1)];
                        let mut flag = DropFlag(&mock.abandoned, false);
                        let answer = || {
                            Json(json!({
                                "choices": [{"message": {"role": "assistant", "content": ANSWER}}],
                                "usage": {"prompt_tokens": 90, "completion_tokens": 12}
                            }))
                            .into_response()
                        };
                        let response: Response = match reply {
                            Reply::Answer => answer(),
                            Reply::SlowAnswer(ms) => {
                                tokio::time::sleep(Duration::from_millis(ms)).await;
                                answer()
                            }
                            Reply::Unavailable => StatusCode::SERVICE_UNAVAILABLE.into_response(),
                            Reply::TooMany(secs) => {
                                let mut headers = HeaderMap::new();
                                headers.insert(
                                    "retry-after",
                                    HeaderValue::from_str(&secs.to_string()).unwrap(),
                                );
                                (StatusCode::TOO_MANY_REQUESTS, headers).into_response()
                            }
                            Reply::Slow(secs) => {
                                tokio::time::sleep(Duration::from_secs(secs)).await;
                                StatusCode::OK.into_response()
                            }
                        };
                        flag.1 = true;
                        mock.in_flight.fetch_sub(1, Ordering::SeqCst);
                        response
                    }
                },
            ),
        )
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), state)
}

/// The documented defaults (the settings' own), with a short budget for tests.
fn settings(base_url: &str) -> LlmSettings {
    use policy_settings::Settings;
    let defaults = LlmSettings::from_args(["--llm-model", "test-model", "--llm-api-key", "k"])
        .expect("defaults");
    LlmSettings {
        base_url: Some(base_url.into()),
        timeout_secs: 2,
        budget_secs: 4,
        max_retries: 3,
        ..defaults
    }
}

fn generator(settings: LlmSettings) -> OpenAiGenerator {
    OpenAiGenerator::new(
        settings,
        ExtractiveGenerator {
            runner_up_margin: 0.05,
        },
    )
    .unwrap()
}

#[tokio::test]
async fn a_bounded_request_with_the_clauses_returns_the_answer_and_its_usage() {
    let (url, mock) = mock(vec![Reply::Answer]).await;
    let clauses = clauses();
    let generated = generator(settings(&url))
        .generate(request(&clauses, false))
        .await
        .unwrap();
    assert_eq!(generated.text, ANSWER);
    assert_eq!(generated.fallback_reason, None);
    assert_eq!((generated.llm_calls, generated.completion_tokens), (1, 12));
    let body = mock.last_body.lock().unwrap().clone().unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["max_tokens"], 200, "output is capped");
    assert_eq!(body["stop"], json!(STOP_SEQUENCES));
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("reply exactly: I can't confirm the answer for your specific situation; let me hand you to a human agent."));
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("[eu-v4#sec-3.2] Return window")
            && user.contains("Question: What is the return window?")
    );
}

#[tokio::test]
async fn the_strict_retry_prompt_differs() {
    let g = generator(settings("http://unused"));
    let clauses = clauses();
    let normal = g.request_body(&request(&clauses, false));
    let strict = g.request_body(&request(&clauses, true));
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
async fn unavailability_is_retried_within_the_budget() {
    let (url, mock) = mock(vec![Reply::Unavailable, Reply::Unavailable, Reply::Answer]).await;
    let clauses = clauses();
    let generated = generator(settings(&url))
        .generate(request(&clauses, false))
        .await
        .unwrap();
    assert_eq!(generated.text, ANSWER);
    assert_eq!(generated.llm_calls, 3);
    assert_eq!(mock.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn after_the_retries_the_extractive_generator_answers_with_the_reason() {
    let (url, mock) = mock(vec![Reply::Unavailable]).await;
    let clauses = clauses();
    let generated = generator(LlmSettings {
        max_retries: 1,
        ..settings(&url)
    })
    .generate(request(&clauses, false))
    .await
    .unwrap();
    assert!(generated
        .text
        .starts_with("You may return most items within 30"));
    let reason = generated.fallback_reason.unwrap();
    assert!(reason.starts_with("llm_unavailable: HTTP 503"), "{reason}");
    assert_eq!(generated.llm_calls, 2);
    assert_eq!(mock.requests.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_retry_after_beyond_the_budget_gives_up_at_once() {
    let (url, mock) = mock(vec![Reply::TooMany(60), Reply::Answer]).await;
    let clauses = clauses();
    let generated = generator(settings(&url))
        .generate(request(&clauses, false))
        .await
        .unwrap();
    let reason = generated.fallback_reason.unwrap();
    assert!(reason.starts_with("llm_unavailable: HTTP 429"), "{reason}");
    assert_eq!(mock.requests.load(Ordering::SeqCst), 1, "no second request");
}

#[tokio::test]
async fn a_timeout_falls_back_without_a_retry_and_abandons_the_request() {
    let (url, mock) = mock(vec![Reply::Slow(30)]).await;
    let clauses = clauses();
    let generated = generator(LlmSettings {
        timeout_secs: 1,
        ..settings(&url)
    })
    .generate(request(&clauses, false))
    .await
    .unwrap();
    let reason = generated.fallback_reason.unwrap();
    assert!(reason.starts_with("llm_timeout"), "{reason}");
    assert_eq!(generated.llm_calls, 1);
    assert_eq!(
        mock.requests.load(Ordering::SeqCst),
        1,
        "a timeout is not retried"
    );
    // The client hung up: the server's handler was dropped instead of running to its end.
    for _ in 0..50 {
        if mock.abandoned.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        mock.abandoned.load(Ordering::SeqCst),
        "request not cancelled"
    );
}

#[tokio::test]
async fn told_to_escalate_the_generator_gives_up_with_the_reason() {
    let (url, _) = mock(vec![Reply::Unavailable]).await;
    let clauses = clauses();
    let err = generator(LlmSettings {
        max_retries: 0,
        on_failure: OnLlmFailure::Escalate,
        ..settings(&url)
    })
    .generate(request(&clauses, false))
    .await
    .unwrap_err();
    assert!(
        matches!(&err, GenerateError::GaveUp(reason) if reason.starts_with("llm_unavailable")),
        "{err}"
    );
}

#[tokio::test]
async fn an_open_breaker_skips_the_endpoint_until_its_cool_down_ends() {
    let (url, mock) = mock(vec![Reply::Unavailable, Reply::Unavailable, Reply::Answer]).await;
    let clauses = clauses();
    let g = generator(LlmSettings {
        max_retries: 0,
        breaker_failures: 2,
        breaker_cooldown_secs: 1,
        ..settings(&url)
    });
    for _ in 0..2 {
        let generated = g.generate(request(&clauses, false)).await.unwrap();
        assert!(generated
            .fallback_reason
            .unwrap()
            .starts_with("llm_unavailable"));
    }
    assert!(g.breaker().open_for().is_some());
    let skipped = g.generate(request(&clauses, false)).await.unwrap();
    assert!(skipped
        .fallback_reason
        .unwrap()
        .starts_with("llm_circuit_open"));
    assert_eq!(skipped.llm_calls, 0);
    assert_eq!(
        mock.requests.load(Ordering::SeqCst),
        2,
        "endpoint not called"
    );
    // After the cool-down the endpoint is tried again and, answering, closes the breaker.
    while g.breaker().open_for().is_some() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let recovered = g.generate(request(&clauses, false)).await.unwrap();
    assert_eq!(recovered.text, ANSWER);
    assert_eq!(recovered.fallback_reason, None);
}

#[test]
fn settings_are_validated() {
    use policy_settings::Settings;
    assert!(settings("http://x/v1").validate().is_ok());
    assert!(settings("ftp://x").validate().is_err());
    let too_small_budget = LlmSettings {
        timeout_secs: 10,
        budget_secs: 5,
        ..settings("http://x/v1")
    };
    assert!(too_small_budget.validate().is_err());
    let no_tokens = LlmSettings {
        max_tokens: 0,
        ..settings("http://x/v1")
    };
    assert!(no_tokens.validate().is_err());
}

#[tokio::test]
async fn no_more_requests_in_flight_than_the_concurrency_limit() {
    let (url, mock) = mock(vec![Reply::SlowAnswer(300)]).await;
    let clauses = clauses();
    let g = Arc::new(generator(LlmSettings {
        max_concurrent: 2,
        ..settings(&url)
    }));
    let turns: Vec<_> = (0..5)
        .map(|_| {
            let (g, clauses) = (g.clone(), clauses.clone());
            tokio::spawn(async move { g.generate(request(&clauses, false)).await.unwrap() })
        })
        .collect();
    for turn in turns {
        let generated = turn.await.unwrap();
        assert_eq!(
            generated.text, ANSWER,
            "every turn waited for a slot and got one"
        );
    }
    assert_eq!(mock.requests.load(Ordering::SeqCst), 5);
    assert_eq!(mock.max_in_flight.load(Ordering::SeqCst), 2);
}
