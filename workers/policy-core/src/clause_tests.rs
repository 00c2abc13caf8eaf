use super::*;
use crate::instant::parse_utc_instant;

const DOC: &str = "\
# Returns and Refunds Policy

Preamble text that belongs to no clause.

## 3. Returns

General rules for returns.

### 3.1 Eligibility

Items must be unused.

### 3.2 Return window

You may return most items within 30 calendar days from delivery.
Some items are excluded.

#### 3.2.1 Holiday purchases

Holiday purchases may be returned until 31 January.

### Regional notes {#regional-notes}

Consumers in Bavaria read this.

## 4 Refunds

Refunds are issued within 14 days.

```
### 9.9 Not a heading inside a code fence
```
";

fn origin() -> ClauseOrigin<'static> {
    ClauseOrigin {
        version_id: "eu-v4",
        region: "eu",
        effective_from: parse_utc_instant("2026-02-01").unwrap(),
        effective_to: None,
        source_file: "returns.md",
    }
}

fn parsed() -> Vec<Clause> {
    parse_clauses(DOC, origin())
}

fn find<'a>(clauses: &'a [Clause], id: &str) -> &'a Clause {
    clauses
        .iter()
        .find(|c| c.clause_id == id)
        .unwrap_or_else(|| panic!("no clause {id}"))
}

#[test]
fn clause_ids_in_document_order() {
    let ids: Vec<_> = parsed().iter().map(|c| c.clause_id.clone()).collect();
    assert_eq!(
        ids,
        [
            "eu-v4#sec-3",
            "eu-v4#sec-3.1",
            "eu-v4#sec-3.2",
            "eu-v4#sec-3.2.1",
            "eu-v4#regional-notes",
            "eu-v4#sec-4"
        ]
    );
}

#[test]
fn heading_number_with_or_without_trailing_dot() {
    let clauses = parsed();
    let sec3 = find(&clauses, "eu-v4#sec-3");
    assert_eq!(
        (sec3.number.as_deref(), sec3.title.as_str(), sec3.level),
        (Some("3"), "Returns", 2)
    );
    assert_eq!(find(&clauses, "eu-v4#sec-4").title, "Refunds");
}

#[test]
fn clause_text_runs_to_next_heading_of_same_or_higher_level() {
    let clauses = parsed();
    let window = find(&clauses, "eu-v4#sec-3.2");
    assert!(window
        .text
        .starts_with("You may return most items within 30 calendar days"));
    assert!(
        window.text.contains("Holiday purchases may be returned"),
        "sub-clause included"
    );
    assert!(!window.text.contains("Bavaria"), "sibling excluded");
    let sec3 = find(&clauses, "eu-v4#sec-3");
    assert!(sec3.text.contains("Items must be unused") && sec3.text.contains("Bavaria"));
    assert!(!sec3.text.contains("Refunds are issued"));
}

#[test]
fn body_stops_at_first_sub_heading() {
    let clauses = parsed();
    let window = find(&clauses, "eu-v4#sec-3.2");
    assert_eq!(window.body, "You may return most items within 30 calendar days from delivery.\nSome items are excluded.");
    assert_eq!(
        find(&clauses, "eu-v4#sec-3").body,
        "General rules for returns."
    );
}

#[test]
fn custom_id_overrides_and_keeps_title() {
    let clauses = parsed();
    let notes = find(&clauses, "eu-v4#regional-notes");
    assert_eq!(
        (notes.title.as_str(), notes.number.as_deref()),
        ("Regional notes", None)
    );
    let custom = parse_clauses("## 5.1 Cooling-off {#cooling-off}\nText.", origin());
    assert_eq!(custom[0].clause_id, "eu-v4#cooling-off");
    assert_eq!(custom[0].number.as_deref(), Some("5.1"));
}

#[test]
fn headings_in_code_fences_ignored_and_metadata_carried() {
    let clauses = parsed();
    assert!(clauses.iter().all(|c| c.number.as_deref() != Some("9.9")));
    let sec4 = find(&clauses, "eu-v4#sec-4");
    assert_eq!(
        (
            sec4.version_id.as_str(),
            sec4.region.as_str(),
            sec4.source_file.as_str()
        ),
        ("eu-v4", "eu", "returns.md")
    );
    assert_eq!(
        sec4.effective_from,
        parse_utc_instant("2026-02-01").unwrap()
    );
}

#[test]
fn not_headings() {
    assert!(parse_clauses("#hashtag\n####### seven\nplain", origin()).is_empty());
    assert!(parse_clauses("## 3.a Not a number\ntext", origin()).is_empty());
}

#[test]
fn chunks_cut_between_sentences() {
    let body = "First sentence is here. Second sentence follows. Third one ends it.";
    let clause = parse_clauses(&format!("## 1 Title\n{body}"), origin()).remove(0);
    let chunks = chunk_clause(&clause, 40);
    let texts: Vec<_> = chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Title. First sentence is here.",
            "Title. Second sentence follows.",
            "Title. Third one ends it."
        ]
    );
    assert_eq!(chunks[2].chunk_id, "eu-v4#sec-1/2");
    let whole = chunk_clause(&clause, 1000);
    assert_eq!(whole.len(), 1);
    assert_eq!(whole[0].text, format!("Title. {body}"));
}

#[test]
fn oversized_sentence_stays_whole_and_empty_body_uses_title() {
    let clause = parse_clauses(
        "## 1 Title\nOne very long sentence without a break.",
        origin(),
    )
    .remove(0);
    assert_eq!(chunk_clause(&clause, 5).len(), 1);
    let empty = parse_clauses("## 2 Only a title\n", origin()).remove(0);
    assert_eq!(
        chunk_clause(&empty, 100)[0].text,
        "Only a title. Only a title"
    );
}

#[test]
fn topic_tag_under_heading_names_the_clause_topic_and_is_not_text() {
    let doc = "## 3. Returns\n\n<!-- topic: returns -->\nGeneral rules.\n\n### 3.2 Return window\n\n<!-- topic: return_window -->\nWithin 30 days.\n\n### 3.3 Exclusions\n\nNo tag here.\n";
    let clauses = parse_clauses(doc, origin());
    let window = find(&clauses, "eu-v4#sec-3.2");
    assert_eq!(window.topic.as_deref(), Some("return_window"));
    assert_eq!(window.text, "Within 30 days.");
    let section = find(&clauses, "eu-v4#sec-3");
    assert_eq!(
        section.topic.as_deref(),
        Some("returns"),
        "the parent keeps its own tag"
    );
    assert!(!section.text.contains("<!--"), "{}", section.text);
    assert_eq!(find(&clauses, "eu-v4#sec-3.3").topic, None);
}

#[test]
fn topic_tag_syntax() {
    assert_eq!(
        topic_tag("<!-- topic: return_window -->"),
        Some("return_window")
    );
    assert_eq!(topic_tag("  <!--topic:gift-cards-->  "), Some("gift-cards"));
    assert_eq!(topic_tag("<!-- topic: -->"), None);
    assert_eq!(topic_tag("<!-- topic: two words -->"), None);
    assert_eq!(topic_tag("<!-- note: x -->"), None);
    assert_eq!(topic_tag("topic: x"), None);
}

#[test]
fn untagged_clause_with_sub_clauses_has_no_topic() {
    let doc = "### 3.2 Return window\n\nWithin 30 days.\n\n#### 3.2.1 Holidays\n\nUntil January.\n";
    let clauses = parse_clauses(doc, origin());
    assert_eq!(find(&clauses, "eu-v4#sec-3.2").topic, None);
}
