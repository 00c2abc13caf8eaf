//! The registry over real HTTP, spoken to by a raw client (exact Confluent JSON shapes) and by
//! schema_registry_converter (the client the workers use).

use policy_registry::{router, RegistryStore};
use schema_registry_converter::async_impl::schema_registry::{
    get_schema_by_id, post_schema, SrSettings,
};
use schema_registry_converter::schema_registry_common::{SchemaType, SuppliedSchema};
use serde_json::{json, Value};

const V1: &str = r#"{"type":"record","name":"T","fields":[{"name":"a","type":"string"}]}"#;
const V2: &str = r#"{"type":"record","name":"T","fields":[{"name":"a","type":"string"},{"name":"b","type":["null","string"],"default":null}]}"#;
const BREAKING: &str = r#"{"type":"record","name":"T","fields":[{"name":"c","type":"int"}]}"#;

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router(RegistryStore::in_memory()))
            .await
            .unwrap()
    });
    format!("http://{addr}")
}

async fn call(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    let client = reqwest::Client::new();
    let mut request = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        "PUT" => client.put(url),
        "DELETE" => client.delete(url),
        _ => unreachable!(),
    };
    if let Some(body) = body {
        request = request
            .header("content-type", "application/vnd.schemaregistry.v1+json")
            .body(body.to_string());
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn confluent_rest_shapes() {
    let base = start().await;
    let (status, body) = call(
        "POST",
        &format!("{base}/subjects/t-value/versions"),
        Some(json!({"schema": V1})),
    )
    .await;
    assert_eq!((status, &body), (200, &json!({"id": 1})));
    let (_, body) = call(
        "POST",
        &format!("{base}/subjects/t-value/versions"),
        Some(json!({"schema": V1, "schemaType": "AVRO"})),
    )
    .await;
    assert_eq!(body, json!({"id": 1}), "same schema, same id");
    assert_eq!(
        call("GET", &format!("{base}/subjects"), None).await.1,
        json!(["t-value"])
    );
    assert_eq!(
        call("GET", &format!("{base}/subjects/t-value/versions"), None)
            .await
            .1,
        json!([1])
    );
    let (_, latest) = call(
        "GET",
        &format!("{base}/subjects/t-value/versions/latest"),
        None,
    )
    .await;
    assert_eq!(
        latest,
        json!({"subject": "t-value", "id": 1, "version": 1, "schema": V1})
    );
    let (_, raw) = call(
        "GET",
        &format!("{base}/subjects/t-value/versions/1/schema"),
        None,
    )
    .await;
    assert_eq!(raw["name"], "T");
    assert_eq!(
        call("GET", &format!("{base}/schemas/ids/1"), None).await.1,
        json!({"schema": V1})
    );
    assert_eq!(
        call("GET", &format!("{base}/schemas/ids/1/versions"), None)
            .await
            .1,
        json!([{"subject": "t-value", "version": 1}])
    );
    let (status, found) = call(
        "POST",
        &format!("{base}/subjects/t-value"),
        Some(json!({"schema": V1})),
    )
    .await;
    assert_eq!((status, found["version"].as_u64()), (200, Some(1)));
    assert_eq!(
        call("GET", &format!("{base}/config"), None).await.1,
        json!({"compatibilityLevel": "BACKWARD"})
    );
}

#[tokio::test]
async fn compatibility_is_enforced_and_checkable() {
    let base = start().await;
    call(
        "POST",
        &format!("{base}/subjects/t-value/versions"),
        Some(json!({"schema": V1})),
    )
    .await;
    let check = |schema: &'static str| {
        let url = format!("{base}/compatibility/subjects/t-value/versions/latest");
        async move {
            call("POST", &url, Some(json!({"schema": schema}))).await.1["is_compatible"].clone()
        }
    };
    assert_eq!(check(V2).await, json!(true));
    assert_eq!(check(BREAKING).await, json!(false));
    let (status, body) = call(
        "POST",
        &format!("{base}/subjects/t-value/versions"),
        Some(json!({"schema": BREAKING})),
    )
    .await;
    assert_eq!((status, body["error_code"].as_u64()), (409, Some(409)));
    let (status, body) = call(
        "PUT",
        &format!("{base}/config/t-value"),
        Some(json!({"compatibility": "NONE"})),
    )
    .await;
    assert_eq!((status, body), (200, json!({"compatibility": "NONE"})));
    let (status, body) = call(
        "POST",
        &format!("{base}/subjects/t-value/versions"),
        Some(json!({"schema": BREAKING})),
    )
    .await;
    assert_eq!((status, body), (200, json!({"id": 2})));
}

#[tokio::test]
async fn errors_carry_confluent_codes() {
    let base = start().await;
    let cases = [
        (
            "GET",
            format!("{base}/subjects/none/versions"),
            None,
            404,
            40401,
        ),
        ("GET", format!("{base}/schemas/ids/42"), None, 404, 40403),
        (
            "POST",
            format!("{base}/subjects/x/versions"),
            Some(json!({"schema": "{bad"})),
            422,
            42201,
        ),
        (
            "POST",
            format!("{base}/subjects/x/versions"),
            Some(json!({"schema": V1, "schemaType": "PROTOBUF"})),
            422,
            42201,
        ),
        ("GET", format!("{base}/config/x"), None, 404, 40408),
    ];
    for (method, url, body, status, code) in cases {
        let (got_status, got) = call(method, &url, body).await;
        assert_eq!(
            (got_status, got["error_code"].as_u64()),
            (status, Some(code)),
            "{method} {url}: {got}"
        );
    }
}

#[tokio::test]
async fn schema_registry_converter_client_works_against_it() {
    let base = start().await;
    let settings = SrSettings::new(base);
    let supplied = SuppliedSchema::new(None, SchemaType::Avro, V2.to_string());
    let registered = post_schema(&settings, "conv-value".into(), supplied)
        .await
        .unwrap();
    let fetched = get_schema_by_id(registered.id, &settings).await.unwrap();
    assert_eq!(fetched.schema, V2);
}
