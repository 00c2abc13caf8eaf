use super::*;

const VALID: &str = r#"{"regions": {
  "eu": {"versions": [
    {"id": "eu-v4", "effective_from": "2026-02-01", "effective_to": null,
     "git_sha": "a1b2c3", "approved_by": "legal-eu@example.com"},
    {"id": "eu-v3", "effective_from": "2025-04-01", "effective_to": "2026-02-01"}]},
  "jp": {"versions": [
    {"id": "jp-v1", "effective_from": "2024-01-01T00:00:00Z", "effective_to": null}]}}}"#;

fn errors_of(json: &str) -> Vec<ManifestError> {
    Manifest::parse(json)
        .expect_err("manifest should be rejected")
        .0
}

fn eu(versions: &str) -> String {
    format!(r#"{{"regions": {{"eu": {{"versions": [{versions}]}}}}}}"#)
}

#[test]
fn valid_manifest_sorted_by_start() {
    let m = Manifest::parse(VALID).unwrap();
    let ids: Vec<_> = m
        .region_versions("eu")
        .unwrap()
        .iter()
        .map(|v| v.id.as_str())
        .collect();
    assert_eq!(ids, ["eu-v3", "eu-v4"]);
    assert_eq!(m.version("eu-v4").unwrap().directory(), "eu/v4");
    assert_eq!(
        m.version("eu-v4").unwrap().approved_by.as_deref(),
        Some("legal-eu@example.com")
    );
    assert_eq!(m.regions().collect::<Vec<_>>(), ["eu", "jp"]);
    assert_eq!(m.content_sha().len(), 64);
}

#[test]
fn window_is_inclusive_exclusive() {
    let m = Manifest::parse(VALID).unwrap();
    let v3 = m.version("eu-v3").unwrap();
    let v4 = m.version("eu-v4").unwrap();
    let cutover = parse_utc_instant("2026-02-01").unwrap();
    assert!(!v3.contains(cutover));
    assert!(v4.contains(cutover));
    assert!(v3.contains(cutover - chrono::Duration::milliseconds(1)));
}

#[test]
fn invalid_json_reported() {
    assert!(matches!(
        errors_of("{").as_slice(),
        [ManifestError::InvalidJson(_)]
    ));
}

#[test]
fn no_regions_reported() {
    assert_eq!(errors_of(r#"{"regions": {}}"#), [ManifestError::NoRegions]);
}

#[test]
fn empty_region_reported() {
    assert_eq!(
        errors_of(&eu("")),
        [ManifestError::EmptyRegion {
            region: "eu".into()
        }]
    );
}

#[test]
fn missing_fields_named() {
    let errors = errors_of(&eu(
        r#"{"effective_from": "2025-01-01", "effective_to": null}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::MissingField {
            region: "eu".into(),
            index: 0,
            field: "id"
        }]
    );
    let errors = errors_of(&eu(r#"{"id": "eu-v1", "effective_to": null}"#));
    assert_eq!(
        errors,
        [ManifestError::MissingField {
            region: "eu".into(),
            index: 0,
            field: "effective_from"
        }]
    );
    // effective_to must be present (null for open-ended) so an open end is never an accident.
    let errors = errors_of(&eu(r#"{"id": "eu-v1", "effective_from": "2025-01-01"}"#));
    assert_eq!(
        errors,
        [ManifestError::MissingField {
            region: "eu".into(),
            index: 0,
            field: "effective_to"
        }]
    );
}

#[test]
fn bad_version_id_reported() {
    let errors = errors_of(&eu(
        r#"{"id": "v1", "effective_from": "2025-01-01", "effective_to": null}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::BadVersionId {
            region: "eu".into(),
            id: "v1".into()
        }]
    );
    let errors = errors_of(&eu(
        r#"{"id": "us-v1", "effective_from": "2025-01-01", "effective_to": null}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::BadVersionId {
            region: "eu".into(),
            id: "us-v1".into()
        }]
    );
}

#[test]
fn duplicate_id_reported() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-06-01"},
           {"id": "eu-v1", "effective_from": "2025-06-01", "effective_to": null}"#,
    ));
    assert_eq!(errors, [ManifestError::DuplicateId { id: "eu-v1".into() }]);
}

#[test]
fn non_utc_and_garbage_dates_reported() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01T00:00:00+01:00", "effective_to": null}"#,
    ));
    assert!(matches!(
        errors.as_slice(),
        [ManifestError::BadInstant {
            field: "effective_from",
            source: InstantError::NotUtc(_),
            ..
        }]
    ));
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "soon"}"#,
    ));
    assert!(matches!(
        errors.as_slice(),
        [ManifestError::BadInstant {
            field: "effective_to",
            source: InstantError::Unparseable(_),
            ..
        }]
    ));
}

#[test]
fn empty_window_reported_with_dates() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-06-01", "effective_to": "2025-06-01"}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::EmptyWindow {
            region: "eu".into(),
            version: "eu-v1".into(),
            from: "2025-06-01".into(),
            to: "2025-06-01".into()
        }]
    );
}

#[test]
fn overlap_reported_with_dates() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-07-01"},
           {"id": "eu-v2", "effective_from": "2025-06-01", "effective_to": null}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::Overlap {
            region: "eu".into(),
            earlier: "eu-v1".into(),
            earlier_to: "2025-07-01".into(),
            later: "eu-v2".into(),
            later_from: "2025-06-01".into()
        }]
    );
    assert_eq!(
        errors[0].to_string(),
        "region `eu`: `eu-v1` (until 2025-07-01) overlaps `eu-v2` (from 2025-06-01)"
    );
}

#[test]
fn gap_reported_with_dates() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-05-01"},
           {"id": "eu-v2", "effective_from": "2025-06-01T12:00:00Z", "effective_to": null}"#,
    ));
    assert_eq!(
        errors[0].to_string(),
        "region `eu`: gap from 2025-05-01 to 2025-06-01T12:00:00Z between `eu-v1` and `eu-v2`"
    );
}

#[test]
fn open_ended_must_be_last() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": null},
           {"id": "eu-v2", "effective_from": "2025-06-01", "effective_to": null}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::OpenEndedNotLast {
            region: "eu".into(),
            version: "eu-v1".into(),
            later: "eu-v2".into()
        }]
    );
}

#[test]
fn closed_last_version_reported() {
    let errors = errors_of(&eu(
        r#"{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2026-01-01"}"#,
    ));
    assert_eq!(
        errors,
        [ManifestError::NoOpenEnded {
            region: "eu".into(),
            last: "eu-v1".into(),
            last_to: "2026-01-01".into()
        }]
    );
}

#[test]
fn all_problems_reported_at_once() {
    let json = r#"{"regions": {
      "eu": {"versions": [{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-02-01"},
                          {"id": "eu-v2", "effective_from": "2025-03-01", "effective_to": null}]},
      "us": {"versions": [{"id": "eu-v9", "effective_from": "2025-01-01", "effective_to": null}]}}}"#;
    let errors = Manifest::parse(json).unwrap_err();
    assert_eq!(errors.0.len(), 2, "{errors}");
    let text = errors.to_string();
    assert!(text.contains("gap from 2025-02-01 to 2025-03-01"), "{text}");
    assert!(text.contains("region `us`: version id `eu-v9`"), "{text}");
}

#[test]
fn directories_cross_checked() {
    let m = Manifest::parse(VALID).unwrap();
    let dirs: BTreeSet<String> = ["eu/v3", "eu/v4", "eu/v5"]
        .into_iter()
        .map(String::from)
        .collect();
    let errors = m.check_directories(&dirs);
    assert_eq!(
        errors,
        [
            ManifestError::MissingDirectory {
                region: "jp".into(),
                version: "jp-v1".into(),
                directory: "jp/v1".into()
            },
            ManifestError::UnlistedDirectory {
                directory: "eu/v5".into()
            },
        ]
    );
}
