use super::*;

fn ids(parse: &CitationParse) -> Vec<String> {
    parse.refs.iter().map(ClauseRef::clause_id).collect()
}

#[test]
fn single_tag() {
    let p = parse_citations("You have 30 days. [clause: eu-v4#sec-3.2]");
    assert_eq!(ids(&p), ["eu-v4#sec-3.2"]);
    assert!(p.malformed.is_empty());
}

#[test]
fn whitespace_and_case_tolerated() {
    let p = parse_citations("x [ Clause :  EU-V4#Sec-3.2 ] y [clause:jp-v2#sec-1]");
    assert_eq!(ids(&p), ["eu-v4#sec-3.2", "jp-v2#sec-1"]);
    assert!(p.malformed.is_empty());
}

#[test]
fn several_ids_in_one_tag_deduplicated() {
    let p = parse_citations(
        "[clause: eu-v4#sec-3.2, eu-v4#sec-4.1; eu-v4#sec-3.2] and [clause: eu-v4#sec-4.1]",
    );
    assert_eq!(ids(&p), ["eu-v4#sec-3.2", "eu-v4#sec-4.1"]);
}

#[test]
fn custom_anchor_accepted() {
    let p = parse_citations("[clause: eu-v4#cooling-off]");
    assert_eq!(ids(&p), ["eu-v4#cooling-off"]);
}

#[test]
fn no_citation_is_empty_not_malformed() {
    let p = parse_citations("Returns are accepted within 30 days [see policy].");
    assert!(p.refs.is_empty() && p.malformed.is_empty());
}

#[test]
fn malformed_tags_reported() {
    let cases = [
        (
            "[clause: eu-v4]",
            "clause id must look like `<region>-v<N>#<clause>`",
        ),
        (
            "[clause: #sec-3.2]",
            "clause id must look like `<region>-v<N>#<clause>`",
        ),
        (
            "[clause: eu#sec-3.2]",
            "clause id must look like `<region>-v<N>#<clause>`",
        ),
        (
            "[clause: eu-v4#sec 3.2]",
            "clause id must look like `<region>-v<N>#<clause>`",
        ),
        ("[clause eu-v4#sec-3.2]", "`:` missing after `clause`"),
        ("[clause: ]", "no clause id in tag"),
        ("[clause: eu-v4#sec-3.2", "unclosed tag: `]` missing"),
        ("[clause: eu-v4#sec-3.2\nmore", "unclosed tag: `]` missing"),
    ];
    for (text, reason) in cases {
        let p = parse_citations(text);
        assert_eq!(p.malformed.len(), 1, "{text}: {p:?}");
        assert_eq!(p.malformed[0].reason, reason, "{text}");
        assert!(p.refs.is_empty(), "{text}");
    }
}

#[test]
fn good_and_bad_ids_in_one_tag() {
    let p = parse_citations("[clause: eu-v4#sec-3.2, nonsense]");
    assert_eq!(ids(&p), ["eu-v4#sec-3.2"]);
    assert_eq!(p.malformed.len(), 1);
    assert_eq!(p.malformed[0].offset, 0);
}

#[test]
fn bare_citation_outside_brackets_reported() {
    let p = parse_citations("The window is 30 days (clause: eu-v4#sec-3.2).");
    assert!(p.refs.is_empty());
    assert_eq!(p.malformed.len(), 1);
    assert_eq!(p.malformed[0].reason, "citation outside `[...]`");
    assert_eq!(p.malformed[0].text, "clause: eu-v4#sec-3.2).");
}

#[test]
fn unclosed_tag_before_good_tag() {
    let p = parse_citations("[clause: eu-v4#sec-1 [clause: eu-v4#sec-2]");
    assert_eq!(ids(&p), ["eu-v4#sec-2"]);
    assert_eq!(p.malformed.len(), 1);
}

#[test]
fn strip_removes_tags_only() {
    assert_eq!(
        strip_citations("30 days [clause: eu-v4#sec-3.2] from delivery [note]."),
        "30 days  from delivery [note]."
    );
    assert_eq!(strip_citations("café [clause: eu-v4#a]"), "café ");
}

#[test]
fn citation_tag_roundtrip() {
    let tag = citation_tag("br-v1#sec-2.1");
    assert_eq!(ids(&parse_citations(&tag)), ["br-v1#sec-2.1"]);
}

#[test]
fn references_to_other_clauses_by_number() {
    assert_eq!(
        referenced_clause_numbers("Refunds are made in the manner set out in clause 5.1."),
        ["5.1"]
    );
    assert_eq!(
        referenced_clause_numbers("Subject to clauses 3.2 and 3.3, goods may be returned."),
        ["3.2", "3.3"]
    );
    assert_eq!(
        referenced_clause_numbers("See section 10.4: fees apply."),
        ["10.4"]
    );
    // Amounts and versions are not clauses.
    assert!(referenced_clause_numbers("A fee of 2.5 % applies to orders in 2.5 days.").is_empty());
    assert!(referenced_clause_numbers("Prices rose by 1.5 percent.").is_empty());
}

#[test]
fn references_written_in_a_message_are_read_as_the_answers_cite_them() {
    let written = |message: &str| -> Vec<String> {
        written_references(message)
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(
        written("Per [clause: US-v9#sec-1.1], and us-v9 again: the corrected us-v3.1."),
        ["us-v9#sec-1.1", "us-v9", "us-v3.1"]
    );
    assert_eq!(
        written("You cited us-v2#sec-3.2; is us-v4 newer?"),
        ["us-v2#sec-3.2", "us-v4"]
    );
    // Version numbers of other things are not references: no region, or not in the notation.
    assert!(written("Firmware v2.1, Echo Buds v2, version 5, a re-v stamp, AB-12").is_empty());
    // A section written in words after its version.
    assert_eq!(
        written(
            "Per us-v4 §4.2a (rev. Feb 2027): refunds in 24 hours. Under EU-v2 section 3.2, too."
        ),
        ["us-v4 §4.2a", "eu-v2 §3.2"]
    );
    assert_eq!(
        written("us-v4 §12 and us-v4 § 3"),
        ["us-v4 §12", "us-v4 §3"]
    );
    // Not a section: across a sentence or a comma, a glued "§" split off, a range's first part.
    assert_eq!(
        written("I accepted us-v4. Section 12 of my warranty card says two years, eu-v2, §3"),
        ["us-v4", "eu-v2"]
    );
    assert_eq!(written("per us-v9§3.2"), ["us-v9 §3.2"]);
    assert_eq!(written("us-v4 clause 11 of my contract"), ["us-v4"]);
    // Not a section: a date, an amount, a word.
    assert_eq!(
        written("us-v4 section one; eu-v2 $40.00; us-v3 12/03"),
        ["us-v4", "eu-v2", "us-v3"]
    );
    let references = written_references("cite us-v4#sec-4.2a");
    assert_eq!(references[0].region(), "us");
    assert!(matches!(&references[0], WrittenReference::Clause(c) if c.anchor == "sec-4.2a"));
}
