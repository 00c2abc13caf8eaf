use super::*;

const V1: &str = r#"{"type": "record", "name": "T", "fields": [{"name": "a", "type": "string"}]}"#;
const V2: &str = r#"{"type": "record", "name": "T", "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": ["null", "string"], "default": null}]}"#;
const BREAKING: &str = r#"{"type": "record", "name": "T", "fields": [{"name": "a", "type": "string"}, {"name": "c", "type": "int"}]}"#;

#[test]
fn same_schema_same_id_and_whitespace_does_not_matter() {
    let mut store = RegistryStore::in_memory();
    let id = store.register("t-value", V1).unwrap();
    let reformatted = V1.replace(": ", ":").replace(", ", ",");
    assert_eq!(store.register("t-value", &reformatted).unwrap(), id);
    assert_eq!(store.subject_versions("t-value").unwrap(), [1]);
    // Another subject with the same schema shares the global id but gets its own version 1.
    assert_eq!(store.register("u-value", V1).unwrap(), id);
    assert_eq!(
        store.id_usages(id).unwrap(),
        [("t-value".to_string(), 1), ("u-value".to_string(), 1)]
    );
}

#[test]
fn compatible_evolution_adds_a_version() {
    let mut store = RegistryStore::in_memory();
    let id1 = store.register("t-value", V1).unwrap();
    let id2 = store.register("t-value", V2).unwrap();
    assert_ne!(id1, id2);
    assert_eq!(store.subject_versions("t-value").unwrap(), [1, 2]);
    let latest = store.version("t-value", "latest").unwrap();
    assert_eq!((latest.id, latest.version), (id2, 2));
    assert_eq!(store.version("t-value", "1").unwrap().id, id1);
    assert_eq!(store.version("t-value", "-1").unwrap().version, 2);
}

#[test]
fn incompatible_change_rejected_with_409_unless_level_none() {
    let mut store = RegistryStore::in_memory();
    store.register("t-value", V1).unwrap();
    let err = store.register("t-value", BREAKING).unwrap_err();
    assert_eq!(err.error_code(), 409);
    assert!(err.to_string().contains("incompatible"), "{err}");
    assert_eq!(
        store.subject_versions("t-value").unwrap(),
        [1],
        "nothing registered"
    );
    assert!(!store.check("t-value", None, BREAKING).unwrap().is_empty());
    assert!(store.check("t-value", Some("1"), V2).unwrap().is_empty());
    store.set_level(Some("t-value"), "NONE").unwrap();
    assert!(store.register("t-value", BREAKING).is_ok());
    // Other subjects still use the global BACKWARD level.
    assert_eq!(
        store.effective_level("x-value"),
        CompatibilityLevel::Backward
    );
}

#[test]
fn lookups_and_errors_use_confluent_codes() {
    let mut store = RegistryStore::in_memory();
    let id = store.register("t-value", V1).unwrap();
    assert_eq!(store.lookup("t-value", V1).unwrap().id, id);
    assert_eq!(store.lookup("t-value", V2).unwrap_err().error_code(), 40403);
    assert_eq!(store.lookup("nope", V1).unwrap_err().error_code(), 40401);
    assert_eq!(
        store.version("t-value", "7").unwrap_err().error_code(),
        40402
    );
    assert_eq!(
        store.version("t-value", "abc").unwrap_err().error_code(),
        40402
    );
    assert_eq!(store.schema_by_id(99).unwrap_err().error_code(), 40403);
    assert_eq!(
        store
            .register("t-value", "{not avro")
            .unwrap_err()
            .error_code(),
        42201
    );
    assert_eq!(
        store.subject_level("t-value").unwrap_err().error_code(),
        40408
    );
    assert_eq!(
        store.set_level(None, "SIDEWAYS").unwrap_err().error_code(),
        42203
    );
}

#[test]
fn state_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (id1, id2) = {
        let mut store = RegistryStore::open(dir.path()).unwrap();
        store.set_level(None, "FULL").unwrap();
        (
            store.register("t-value", V1).unwrap(),
            store.register("t-value", V2).unwrap(),
        )
    };
    let mut reopened = RegistryStore::open(dir.path()).unwrap();
    assert_eq!(reopened.schema_by_id(id2).unwrap(), V2);
    assert_eq!(reopened.register("t-value", V1).unwrap(), id1);
    assert_eq!(reopened.global_level(), CompatibilityLevel::Full);
    assert_eq!(
        reopened.register("other", BREAKING).unwrap(),
        id2 + 1,
        "ids keep counting up"
    );
}

#[test]
fn deleting_a_subject_keeps_ids_resolvable() {
    let mut store = RegistryStore::in_memory();
    let id = store.register("t-value", V1).unwrap();
    assert_eq!(store.delete_subject("t-value").unwrap(), [1]);
    assert!(store.subjects().is_empty());
    assert_eq!(store.schema_by_id(id).unwrap(), V1);
    assert_eq!(
        store.delete_subject("t-value").unwrap_err().error_code(),
        40401
    );
}
