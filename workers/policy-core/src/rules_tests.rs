use chrono::{TimeZone, Utc};

use super::*;
use crate::clause::{parse_clauses, ClauseOrigin};

fn clauses(markdown: &str) -> Vec<Clause> {
    parse_clauses(
        markdown,
        ClauseOrigin {
            version_id: "us-v3",
            region: "us",
            effective_from: Utc.with_ymd_and_hms(2026, 7, 1, 0, 0, 0).unwrap(),
            effective_to: None,
            source_file: "02-returns.md",
        },
    )
}

const WINDOW: &str = "### 3.2 Return window\n\n<!-- topic: return_window -->\n<!-- rule: return_window_days=30 window_from=delivery -->\nItems can be returned within 30 days of delivery.\n";

#[test]
fn rule_tags_are_read_and_kept_out_of_the_text() {
    let c = &clauses(WINDOW)[0];
    assert_eq!(c.rules["return_window_days"], "30");
    assert_eq!(c.rules["window_from"], "delivery");
    assert!(!c.text.contains("rule:"), "{}", c.text);
    assert!(rule_mismatches(c).is_empty());
}

#[test]
fn a_number_the_text_does_not_state_is_a_mismatch_naming_the_clause() {
    let edited = WINDOW.replace("within 30 days", "within 45 days");
    let c = &clauses(&edited)[0];
    let mismatches = rule_mismatches(c);
    assert_eq!(mismatches.len(), 1);
    assert_eq!(
        mismatches[0].to_string(),
        "us-v3#sec-3.2: rule return_window_days=30 is not stated in the clause's text"
    );
}

#[test]
fn word_values_must_appear_as_words() {
    let edited = WINDOW.replace("of delivery", "of purchase");
    assert_eq!(rule_mismatches(&clauses(&edited)[0])[0].key, "window_from");
    let classes = "### 2.1 Flights\n<!-- rule: expense=flights class.director=economy+business -->\nDirectors may book economy or business class.\n";
    assert!(rule_mismatches(&clauses(classes)[0]).is_empty());
    // "business" inside "businesses" is not the word.
    let glued = classes.replace("business class", "businesses");
    assert_eq!(rule_mismatches(&clauses(&glued)[0]).len(), 1);
}

#[test]
fn malformed_tags_are_errors_not_dropped_rules() {
    let bad = WINDOW.replace("window_from=delivery", "window_from");
    let c = &clauses(&bad)[0];
    assert_eq!(c.rule_errors.len(), 1, "{:?}", c.rule_errors);
    assert!(c.rule_errors[0].contains("`window_from` is not key=value"));
    assert_eq!(rule_tag("<!-- topic: x -->"), None);
    assert!(rule_tag("<!-- rule: -->").unwrap().is_err());
}

#[test]
fn numbers_normalise_like_the_text() {
    assert_eq!(rule_number("75.00").as_deref(), Some("75"));
    assert_eq!(rule_number("15%").as_deref(), Some("15"));
    assert_eq!(rule_number("delivery"), None);
    assert_eq!(
        rule_words("economy+premium_economy"),
        ["economy", "premium economy"]
    );
}
