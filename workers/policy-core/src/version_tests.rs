use super::*;
use crate::instant::parse_utc_instant;
use proptest::prelude::*;

const MANIFEST: &str = r#"{"regions": {
  "eu": {"versions": [
    {"id": "eu-v3", "effective_from": "2025-04-01", "effective_to": "2026-02-01"},
    {"id": "eu-v4", "effective_from": "2026-02-01", "effective_to": null}]},
  "us": {"versions": [
    {"id": "us-v2", "effective_from": "2024-01-01", "effective_to": "2027-01-01T00:00:00Z"},
    {"id": "us-v3", "effective_from": "2027-01-01T00:00:00Z", "effective_to": null}]}}}"#;

fn t(s: &str) -> DateTime<Utc> {
    parse_utc_instant(s).unwrap()
}

fn resolved_id(outcome: &VersionOutcome) -> (&str, bool) {
    match outcome {
        VersionOutcome::Resolved {
            version,
            ambiguous_cutover,
        } => (version.id.as_str(), ambiguous_cutover.is_some()),
        other => panic!("expected a resolved version, got {other:?}"),
    }
}

fn manifest() -> Manifest {
    Manifest::parse(MANIFEST).unwrap()
}

#[test]
fn purchase_date_selects_version_in_force() {
    let r = VersionResolver::default();
    let m = manifest();
    let now = t("2026-11-22");
    assert_eq!(
        resolved_id(&r.resolve(&m, "eu", Some(t("2026-01-15T10:00:00Z")), now)),
        ("eu-v3", false)
    );
    assert_eq!(
        resolved_id(&r.resolve(&m, "eu", Some(t("2026-03-01")), now)),
        ("eu-v4", false)
    );
}

#[test]
fn cutover_instant_belongs_to_new_version_and_is_ambiguous() {
    let r = VersionResolver::default();
    let m = manifest();
    let now = t("2026-11-22");
    assert_eq!(
        resolved_id(&r.resolve(&m, "eu", Some(t("2026-02-01")), now)),
        ("eu-v4", true)
    );
    assert_eq!(
        resolved_id(&r.resolve(&m, "eu", Some(t("2026-01-31T23:59:59Z")), now)),
        ("eu-v3", true)
    );
    assert_eq!(
        resolved_id(&r.resolve(&m, "eu", Some(t("2026-02-01T23:00:00Z")), now)),
        ("eu-v4", true)
    );
}

#[test]
fn ambiguity_window_is_exclusive_and_configurable() {
    let m = manifest();
    let now = t("2026-11-22");
    let r = VersionResolver::default();
    // Exactly 24 h before the cutover is outside a ±24 h window.
    assert_eq!(
        resolved_id(&r.resolve(&m, "eu", Some(t("2026-01-31")), now)),
        ("eu-v3", false)
    );
    let narrow = VersionResolver {
        ambiguity_window: Duration::hours(1),
    };
    assert_eq!(
        resolved_id(&narrow.resolve(&m, "eu", Some(t("2026-02-01T02:00:00Z")), now)),
        ("eu-v4", false)
    );
    let none = VersionResolver {
        ambiguity_window: Duration::zero(),
    };
    assert_eq!(
        resolved_id(&none.resolve(&m, "eu", Some(t("2026-02-01")), now)),
        ("eu-v4", false)
    );
}

#[test]
fn future_dated_version_is_not_in_force_yet() {
    let r = VersionResolver::default();
    let m = manifest();
    let now = t("2026-11-22");
    assert_eq!(
        resolved_id(&r.resolve(&m, "us", Some(t("2026-11-20")), now)),
        ("us-v2", false)
    );
    match r.resolve(&m, "us", None, now) {
        VersionOutcome::Latest { version, .. } => assert_eq!(version.id, "us-v2"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        resolved_id(&r.resolve(&m, "us", Some(t("2027-03-01")), now)),
        ("us-v3", false)
    );
}

#[test]
fn missing_date_serves_latest_with_banner() {
    let r = VersionResolver::default();
    match r.resolve(&manifest(), "eu", None, t("2026-11-22T08:00:00Z")) {
        VersionOutcome::Latest { version, banner } => {
            assert_eq!(version.id, "eu-v4");
            assert_eq!(
                banner,
                "This reflects current policy as of 2026-11-22; if your purchase was before 2026-02-01, please ask a human agent."
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_region_and_early_date_escalate() {
    let r = VersionResolver::default();
    let m = manifest();
    let now = t("2026-11-22");
    assert_eq!(
        r.resolve(&m, "uk", Some(now), now),
        VersionOutcome::Escalate(VersionEscalation::UnknownRegion {
            region: "uk".into()
        })
    );
    let outcome = r.resolve(&m, "eu", Some(t("2025-03-31")), now);
    let VersionOutcome::Escalate(escalation) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(escalation.reason_code().as_str(), "before_first_version");
    assert_eq!(
        escalation.to_string(),
        "2025-03-31 is before the first `eu` policy (2025-04-01)"
    );
}

/// A random valid region timeline: contiguous windows, the last open-ended.
fn timeline() -> impl Strategy<Value = (i64, Vec<i64>)> {
    (0i64..2_000_000, prop::collection::vec(1i64..2_000, 0..6))
}

fn manifest_json(start_min: i64, lengths_days: &[i64]) -> (String, Vec<DateTime<Utc>>) {
    let base = t("2023-01-01") + Duration::minutes(start_min);
    let mut bounds = vec![base];
    for days in lengths_days {
        bounds.push(*bounds.last().unwrap() + Duration::days(*days));
    }
    let fmt = |d: &DateTime<Utc>| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let versions: Vec<String> = (0..bounds.len())
        .map(|i| {
            let to = bounds
                .get(i + 1)
                .map(|d| format!("\"{}\"", fmt(d)))
                .unwrap_or("null".into());
            format!(
                r#"{{"id": "xx-v{}", "effective_from": "{}", "effective_to": {to}}}"#,
                i + 1,
                fmt(&bounds[i])
            )
        })
        .collect();
    (
        format!(
            r#"{{"regions": {{"xx": {{"versions": [{}]}}}}}}"#,
            versions.join(",")
        ),
        bounds,
    )
}

proptest! {
    #[test]
    fn exactly_one_version_or_explicit_escalation(
        (start, lengths) in timeline(),
        offset_min in -1_000_000i64..5_000_000,
        window_h in 0i64..72,
    ) {
        let (json, bounds) = manifest_json(start, &lengths);
        let m = Manifest::parse(&json).unwrap();
        let instant = bounds[0] + Duration::minutes(offset_min);
        let resolver = VersionResolver { ambiguity_window: Duration::hours(window_h) };
        let in_force: Vec<_> = m.versions().filter(|v| v.contains(instant)).collect();
        match resolver.resolve(&m, "xx", Some(instant), instant) {
            VersionOutcome::Resolved { version, ambiguous_cutover } => {
                prop_assert_eq!(in_force.len(), 1);
                prop_assert_eq!(&version.id, &in_force[0].id);
                let near = bounds[1..].iter().any(|b| (instant - *b).abs() < resolver.ambiguity_window);
                prop_assert_eq!(ambiguous_cutover.is_some(), near);
            }
            VersionOutcome::Escalate(VersionEscalation::BeforeFirstVersion { .. }) => {
                prop_assert!(in_force.is_empty());
                prop_assert!(instant < bounds[0]);
            }
            other => prop_assert!(false, "unexpected {:?}", other),
        }
    }
}
