use super::*;

const MANIFEST: &str = r#"{"regions": {"eu": {"versions": [
  {"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": "2026-01-01"},
  {"id": "eu-v2", "effective_from": "2026-01-01", "effective_to": null}]}}}"#;

fn write(dir: &Path, rel: &str, content: &[u8]) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn corpus_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "manifest.json", MANIFEST.as_bytes());
    write(
        dir.path(),
        "eu/v1/returns.md",
        b"## 1 Returns\nWithin 14 days.\n",
    );
    write(
        dir.path(),
        "eu/v2/returns.md",
        b"## 1 Returns\nWithin 30 days.\n",
    );
    write(
        dir.path(),
        "eu/v2/shipping.md",
        b"## 2 Shipping\nFree over 50 EUR.\n",
    );
    dir
}

#[test]
fn loads_all_versions() {
    let dir = corpus_dir();
    let corpus = load_dir(dir.path()).unwrap();
    assert_eq!(corpus.clauses().len(), 3);
    assert!(corpus
        .clause("eu-v2#sec-2")
        .unwrap()
        .text
        .contains("50 EUR"));
    assert_eq!(corpus.version_clauses("eu-v1").count(), 1);
    assert!(corpus.failed_versions().is_empty());
}

#[test]
fn unlisted_and_missing_directories_fail_the_load() {
    let dir = corpus_dir();
    write(dir.path(), "eu/v3/returns.md", b"## 1 Returns\n");
    let err = load_dir(dir.path()).unwrap_err().to_string();
    assert!(err.contains("directory `eu/v3` is not listed"), "{err}");
    std::fs::remove_dir_all(dir.path().join("eu/v3")).unwrap();
    std::fs::remove_dir_all(dir.path().join("eu/v1")).unwrap();
    let err = load_dir(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("version `eu-v1`: directory `eu/v1` is missing"),
        "{err}"
    );
}

#[test]
fn unreadable_document_fails_only_its_version() {
    let dir = corpus_dir();
    write(dir.path(), "eu/v1/broken.md", &[0xff, 0xfe, 0x00]);
    let corpus = load_dir(dir.path()).unwrap();
    assert!(corpus.failed_versions()["eu-v1"].contains("not UTF-8"));
    assert_eq!(corpus.version_clauses("eu-v1").count(), 0);
    assert_eq!(corpus.version_clauses("eu-v2").count(), 2);
}

#[test]
fn duplicate_clause_and_empty_version_fail_that_version() {
    let dir = corpus_dir();
    write(dir.path(), "eu/v2/dup.md", b"## 1 Returns again\nx\n");
    write(dir.path(), "eu/v1/returns.md", b"no headings at all\n");
    let corpus = load_dir(dir.path()).unwrap();
    assert_eq!(
        corpus.failed_versions()["eu-v2"],
        "clause id `eu-v2#sec-1` appears twice"
    );
    assert_eq!(
        corpus.failed_versions()["eu-v1"],
        "no clauses found in its documents"
    );
}

#[test]
fn missing_manifest_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(load_dir(dir.path()), Err(CorpusError::Io { .. })));
}

#[test]
fn region_dependent_topics_are_those_two_regions_never_word_alike() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = r#"{"regions": {
      "eu": {"versions": [{"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": null}]},
      "us": {"versions": [{"id": "us-v1", "effective_from": "2025-01-01", "effective_to": "2026-01-01"},
                          {"id": "us-v2", "effective_from": "2026-01-01", "effective_to": null}]}}}"#;
    write(dir.path(), "manifest.json", manifest.as_bytes());
    let doc = |window: &str, renewal: &str, cards: &str| {
        format!(
            "## 1 Returns\n<!-- topic: return_window -->\nWithin {window} days.\n\n\
             ## 2 Renewal\n<!-- topic: auto_renewal -->\n{renewal}\n\n\
             ## 3 Gift cards\n<!-- topic: gift_cards -->\n{cards}\n"
        )
    };
    let same_renewal = "Memberships renew every year.";
    write(
        dir.path(),
        "eu/v1/p.md",
        doc("14", same_renewal, "Valid 3 years.").as_bytes(),
    );
    write(
        dir.path(),
        "us/v1/p.md",
        doc("30", "Renews monthly.", "Valid 5 years.").as_bytes(),
    );
    write(
        dir.path(),
        "us/v2/p.md",
        doc("45", same_renewal, "Valid 3 years.").as_bytes(),
    );
    let corpus = load_dir(dir.path()).unwrap();
    let topics: Vec<String> = corpus.region_dependent_topics().into_iter().collect();
    assert_eq!(
        topics,
        ["return_window"],
        "auto_renewal and gift_cards share a wording between eu and us-v2"
    );
}

#[test]
fn the_content_digest_names_the_manifest_and_every_document() {
    let dir = corpus_dir();
    let first = load_dir(dir.path()).unwrap().content_sha().to_string();
    assert_eq!(first.len(), 64);
    assert_eq!(load_dir(dir.path()).unwrap().content_sha(), first, "stable");
    // Same manifest, another clause text: another corpus.
    write(
        dir.path(),
        "eu/v1/returns.md",
        b"## 1 Returns\nWithin 15 days.\n",
    );
    let edited = load_dir(dir.path()).unwrap().content_sha().to_string();
    assert_ne!(edited, first);
    // Bytes moved from one document's name into its content do not collide.
    std::fs::remove_file(dir.path().join("eu/v2/shipping.md")).unwrap();
    write(
        dir.path(),
        "eu/v2/shippin.md",
        b"g.md## 2 Shipping\nFree over 50 EUR.\n",
    );
    assert_ne!(load_dir(dir.path()).unwrap().content_sha(), edited);
}

#[test]
fn each_version_reads_the_scripts_its_own_clauses_are_written_in() {
    use unicode_script::Script;
    let dir = corpus_dir();
    write(
        dir.path(),
        "eu/v2/japanese.md",
        "## 3 返品\n返品は30日以内です。\n".as_bytes(),
    );
    let corpus = load_dir(dir.path()).unwrap();
    let v1 = corpus.scripts("eu-v1").unwrap();
    assert_eq!(v1, &std::collections::HashSet::from([Script::Latin]));
    let v2 = corpus.scripts("eu-v2").unwrap();
    assert!(
        v2.contains(&Script::Han) && v2.contains(&Script::Hiragana) && v2.contains(&Script::Latin)
    );
    assert_eq!(corpus.scripts("eu-v9"), None);
}
