//! The HTTP source against a local stand-in for the order service (a third-party API: mocked).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};

use super::*;

/// Serves `/orders/{id}`: `o-1` after failing `failures` times with 503, 404 otherwise.
async fn service(failures: usize) -> (String, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route(
            "/orders/{id}",
            get(
                |State((calls, failures)): State<(Arc<AtomicUsize>, usize)>, UrlPath(id): UrlPath<String>| async move {
                    let n = calls.fetch_add(1, Ordering::SeqCst);
                    if n < failures {
                        return Err(StatusCode::SERVICE_UNAVAILABLE);
                    }
                    match id.as_str() {
                        "o-1" => Ok(Json(serde_json::json!({"order_id": "o-1", "placed_at": "2026-01-10T10:00:00Z", "amount": 59.9, "note": null}))),
                        _ => Err(StatusCode::NOT_FOUND),
                    }
                },
            ),
        )
        .with_state((calls.clone(), failures));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/orders", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, calls)
}

fn config(base_url: &str, retries: usize, breaker_failures: u32) -> HttpSourceConfig {
    HttpSourceConfig {
        base_url: base_url.into(),
        timeout: Duration::from_millis(500),
        retries,
        budget: Duration::from_secs(5),
        breaker_failures,
        breaker_cooldown: Duration::from_secs(60),
    }
}

#[tokio::test]
async fn transient_failures_are_retried_and_unknown_ids_are_none() {
    let (url, calls) = service(2).await;
    let source = HttpSource::new("orders", config(&url, 2, 10)).unwrap();
    let fields = source
        .lookup("o-1")
        .await
        .unwrap()
        .expect("found after two 503s");
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(fields["amount"], "59.9");
    assert!(!fields.contains_key("note"), "nulls are absent");
    assert_eq!(source.lookup("o-2").await.unwrap(), None);
}

#[tokio::test]
async fn a_source_that_stays_down_is_unavailable_and_its_circuit_opens() {
    let (url, calls) = service(usize::MAX).await;
    let source = HttpSource::new("orders", config(&url, 1, 4)).unwrap();
    for _ in 0..2 {
        let err = source.lookup("o-1").await.unwrap_err();
        assert!(err.to_string().contains("HTTP 503"), "{err}");
        assert!(err.to_string().contains("after 2 attempts"), "{err}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    // Four consecutive failures opened the circuit: no request is made.
    let err = source.lookup("o-1").await.unwrap_err();
    assert!(err.to_string().contains("circuit open"), "{err}");
    assert_eq!(calls.load(Ordering::SeqCst), 4);
}

#[test]
fn fixtures_are_read_by_their_id_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orders.jsonl");
    std::fs::write(
        &path,
        "{\"order_id\": \"o-1\", \"kind\": \"digital\", \"download_started\": false}\n\n",
    )
    .unwrap();
    let source = MemorySource::from_jsonl("fixture", &path, "order_id").unwrap();
    assert_eq!(source.len(), 1);
    let missing = MemorySource::from_jsonl("fixture", &path, "employee_id").unwrap_err();
    assert!(missing.ends_with("no `employee_id`"), "{missing}");
}
