//! The operator commands that need no server: manifest check and schema compatibility.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn policyctl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_policyctl"))
        .args(args)
        .output()
        .expect("run policyctl")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn golden_manifest_passes() {
    let out = policyctl(&[
        "manifest",
        "check",
        repo().join("golden/policies").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("ok: 14 versions"), "{}", text(&out));
}

fn corpus_with_manifest(manifest: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
    for v in ["eu/v1", "eu/v2"] {
        std::fs::create_dir_all(dir.path().join(v)).unwrap();
        std::fs::write(
            dir.path().join(v).join("returns.md"),
            "## 1 Returns\nWithin 14 days.\n",
        )
        .unwrap();
    }
    dir
}

#[test]
fn broken_manifests_fail_with_precise_messages() {
    let cases = [
        (
            r#"{"regions": {"eu": {"versions": [
              {"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-07-01"},
              {"id": "eu-v2", "effective_from": "2025-06-01", "effective_to": null}]}}}"#,
            "region `eu`: `eu-v1` (until 2025-07-01) overlaps `eu-v2` (from 2025-06-01)",
        ),
        (
            r#"{"regions": {"eu": {"versions": [
              {"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-05-01"},
              {"id": "eu-v2", "effective_from": "2025-06-01", "effective_to": null}]}}}"#,
            "region `eu`: gap from 2025-05-01 to 2025-06-01 between `eu-v1` and `eu-v2`",
        ),
        (
            r#"{"regions": {"eu": {"versions": [
              {"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": null}]}}}"#,
            "directory `eu/v2` is not listed in the manifest",
        ),
        (
            r#"{"regions": {"eu": {"versions": [
              {"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2025-06-01"},
              {"id": "eu-v2", "effective_from": "2025-06-01", "effective_to": null},
              {"id": "eu-v3", "effective_from": "2025-09-01T00:00:00+02:00", "effective_to": null}]}}}"#,
            "is not UTC",
        ),
    ];
    for (manifest, expected) in cases {
        let dir = corpus_with_manifest(manifest);
        let out = policyctl(&["manifest", "check", dir.path().to_str().unwrap()]);
        assert!(!out.status.success(), "should fail: {expected}");
        assert!(
            text(&out).contains(expected),
            "expected `{expected}` in:\n{}",
            text(&out)
        );
    }
}

#[test]
fn schema_compat_rejects_breaking_change() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.avsc");
    let new = dir.path().join("new.avsc");
    std::fs::write(
        &old,
        r#"{"type":"record","name":"T","fields":[{"name":"a","type":"string"}]}"#,
    )
    .unwrap();
    std::fs::write(&new, r#"{"type":"record","name":"T","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}"#).unwrap();
    let args = |level: &str| {
        policyctl(&[
            "schemas",
            "compat",
            "--old",
            old.to_str().unwrap(),
            "--new",
            new.to_str().unwrap(),
            "--level",
            level,
        ])
    };
    let out = args("BACKWARD");
    assert!(!out.status.success());
    assert!(
        text(&out).contains("NOT BACKWARD compatible"),
        "{}",
        text(&out)
    );
    assert!(
        args("FORWARD").status.success(),
        "adding a field is forward compatible"
    );
}

#[test]
fn a_rule_that_disagrees_with_its_clause_fails_the_check_naming_the_clause() {
    let file = "us/v3/02-returns-and-refunds.md";
    let original = std::fs::read_to_string(repo().join("golden/policies").join(file)).unwrap();
    assert!(original.contains("<!-- rule: return_window_days=45 window_from=delivery -->"));
    for (edit, what) in [
        // Legal changes the text, not the rule...
        (
            original.replace("within 45 days of delivery", "within 50 days of delivery"),
            "text",
        ),
        // ...or the rule, not the text.
        (
            original.replace("return_window_days=45", "return_window_days=50"),
            "rule",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        common::workers::copy_dir(&repo().join("golden/policies"), dir.path());
        std::fs::write(dir.path().join(file), edit).unwrap();
        let out = policyctl(&["manifest", "check", dir.path().to_str().unwrap()]);
        assert!(!out.status.success(), "{what} edit passed:\n{}", text(&out));
        assert!(
            text(&out).contains("us-v3#sec-3.2: rule return_window_days="),
            "{what} edit:\n{}",
            text(&out)
        );
    }
}
