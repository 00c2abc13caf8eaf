//! HTTP layer: Confluent REST paths and JSON shapes over [`RegistryStore`].

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::store::{RegistryStore, StoreError};

type Shared = Arc<Mutex<RegistryStore>>;

const CONTENT_TYPE: &str = "application/vnd.schemaregistry.v1+json";

fn reply(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, CONTENT_TYPE)],
        body.to_string(),
    )
        .into_response()
}

fn ok(body: Value) -> Response {
    reply(StatusCode::OK, body)
}

fn error(e: StoreError) -> Response {
    let status = match e.error_code() {
        40400..=40499 => StatusCode::NOT_FOUND,
        409 => StatusCode::CONFLICT,
        42200..=42299 => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    reply(
        status,
        json!({"error_code": e.error_code(), "message": e.to_string()}),
    )
}

fn respond(result: Result<Value, StoreError>) -> Response {
    result.map(ok).unwrap_or_else(error)
}

#[derive(Deserialize)]
struct SchemaRequest {
    schema: String,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
    #[serde(default)]
    references: Vec<Value>,
}

fn schema_request(body: &Bytes) -> Result<SchemaRequest, StoreError> {
    let request: SchemaRequest = serde_json::from_slice(body)
        .map_err(|e| StoreError::InvalidSchema(format!("request body: {e}")))?;
    match request.schema_type.as_deref() {
        None | Some("AVRO") => {}
        Some(other) => {
            return Err(StoreError::InvalidSchema(format!(
                "schemaType {other} is not supported; only AVRO"
            )))
        }
    }
    if !request.references.is_empty() {
        return Err(StoreError::InvalidSchema(
            "schema references are not supported".into(),
        ));
    }
    Ok(request)
}

fn locked(store: &Shared) -> std::sync::MutexGuard<'_, RegistryStore> {
    store.lock().expect("registry lock poisoned")
}

async fn root() -> Response {
    ok(json!({}))
}

async fn schema_types() -> Response {
    ok(json!(["AVRO"]))
}

async fn list_subjects(State(store): State<Shared>) -> Response {
    ok(json!(locked(&store).subjects()))
}

async fn list_versions(State(store): State<Shared>, UrlPath(subject): UrlPath<String>) -> Response {
    respond(locked(&store).subject_versions(&subject).map(|v| json!(v)))
}

async fn register(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
    body: Bytes,
) -> Response {
    let result = schema_request(&body).and_then(|r| locked(&store).register(&subject, &r.schema));
    if let Ok(id) = &result {
        tracing::info!(subject, id, "schema registered");
    }
    respond(result.map(|id| json!({"id": id})))
}

async fn lookup(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
    body: Bytes,
) -> Response {
    respond(
        schema_request(&body)
            .and_then(|r| locked(&store).lookup(&subject, &r.schema))
            .map(|v| json!(v)),
    )
}

async fn delete_subject(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
) -> Response {
    respond(locked(&store).delete_subject(&subject).map(|v| json!(v)))
}

async fn get_version(
    State(store): State<Shared>,
    UrlPath((subject, version)): UrlPath<(String, String)>,
) -> Response {
    respond(locked(&store).version(&subject, &version).map(|v| json!(v)))
}

async fn get_version_schema(
    State(store): State<Shared>,
    UrlPath((subject, version)): UrlPath<(String, String)>,
) -> Response {
    match locked(&store).version(&subject, &version) {
        Ok(v) => reply(
            StatusCode::OK,
            serde_json::from_str(&v.schema).unwrap_or(Value::String(v.schema)),
        ),
        Err(e) => error(e),
    }
}

async fn schema_by_id(State(store): State<Shared>, UrlPath(id): UrlPath<u32>) -> Response {
    respond(
        locked(&store)
            .schema_by_id(id)
            .map(|s| json!({"schema": s})),
    )
}

async fn id_versions(State(store): State<Shared>, UrlPath(id): UrlPath<u32>) -> Response {
    respond(locked(&store).id_usages(id).map(|usages| {
        json!(usages
            .into_iter()
            .map(|(subject, version)| json!({"subject": subject, "version": version}))
            .collect::<Vec<_>>())
    }))
}

async fn id_subjects(State(store): State<Shared>, UrlPath(id): UrlPath<u32>) -> Response {
    respond(
        locked(&store)
            .id_usages(id)
            .map(|usages| json!(usages.into_iter().map(|(s, _)| s).collect::<Vec<_>>())),
    )
}

fn compatibility(store: &Shared, subject: &str, version: Option<&str>, body: &Bytes) -> Response {
    let result =
        schema_request(body).and_then(|r| locked(store).check(subject, version, &r.schema));
    respond(
        result.map(|messages| json!({"is_compatible": messages.is_empty(), "messages": messages})),
    )
}

async fn compatibility_version(
    State(store): State<Shared>,
    UrlPath((subject, version)): UrlPath<(String, String)>,
    body: Bytes,
) -> Response {
    compatibility(&store, &subject, Some(&version), &body)
}

async fn compatibility_all(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
    body: Bytes,
) -> Response {
    compatibility(&store, &subject, None, &body)
}

#[derive(Deserialize)]
struct ConfigRequest {
    compatibility: String,
}

fn set_config(store: &Shared, subject: Option<&str>, body: &Bytes) -> Response {
    let result = serde_json::from_slice::<ConfigRequest>(body)
        .map_err(|e| StoreError::InvalidCompatibility(e.to_string()))
        .and_then(|r| locked(store).set_level(subject, &r.compatibility));
    respond(result.map(|level| json!({"compatibility": level.to_string()})))
}

async fn get_global_config(State(store): State<Shared>) -> Response {
    ok(json!({"compatibilityLevel": locked(&store).global_level().to_string()}))
}

async fn put_global_config(State(store): State<Shared>, body: Bytes) -> Response {
    set_config(&store, None, &body)
}

async fn get_subject_config(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
) -> Response {
    respond(
        locked(&store)
            .subject_level(&subject)
            .map(|l| json!({"compatibilityLevel": l.to_string()})),
    )
}

async fn put_subject_config(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
    body: Bytes,
) -> Response {
    set_config(&store, Some(&subject), &body)
}

async fn delete_subject_config(
    State(store): State<Shared>,
    UrlPath(subject): UrlPath<String>,
) -> Response {
    respond(
        locked(&store)
            .delete_subject_level(&subject)
            .map(|l| json!({"compatibility": l.to_string()})),
    )
}

pub fn router(store: RegistryStore) -> Router {
    let shared: Shared = Arc::new(Mutex::new(store));
    Router::new()
        .route("/", get(root))
        .route("/schemas/types", get(schema_types))
        .route("/schemas/ids/{id}", get(schema_by_id))
        .route("/schemas/ids/{id}/versions", get(id_versions))
        .route("/schemas/ids/{id}/subjects", get(id_subjects))
        .route("/subjects", get(list_subjects))
        .route("/subjects/{subject}", post(lookup).delete(delete_subject))
        .route(
            "/subjects/{subject}/versions",
            get(list_versions).post(register),
        )
        .route("/subjects/{subject}/versions/{version}", get(get_version))
        .route(
            "/subjects/{subject}/versions/{version}/schema",
            get(get_version_schema),
        )
        .route(
            "/compatibility/subjects/{subject}/versions",
            post(compatibility_all),
        )
        .route(
            "/compatibility/subjects/{subject}/versions/{version}",
            post(compatibility_version),
        )
        .route("/config", get(get_global_config).put(put_global_config))
        .route(
            "/config/{subject}",
            get(get_subject_config)
                .put(put_subject_config)
                .delete(delete_subject_config),
        )
        .with_state(shared)
}

/// Serves the registry persisted in `data_dir` until `shutdown` resolves.
pub async fn serve(
    listen: SocketAddr,
    data_dir: &Path,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let store = RegistryStore::open(data_dir)?;
    let listener = tokio::net::TcpListener::bind(listen).await?;
    tracing::info!(%listen, data_dir = %data_dir.display(), "schema registry listening");
    axum::serve(listener, router(store))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}
