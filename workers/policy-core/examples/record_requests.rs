//! The record-request detector alone over case files and labelled corpora (`question` or
//! `text` per JSON line): every message it reads as asking for what an account or order record
//! holds, with the row's label, and per file how many of each label it found, so false alarms
//! on questions and misses show at once. Each message is read as enrich reads it: sanitised,
//! personal data redacted.
//!
//! `cargo run -p policy-core --example record_requests -- heldout/records/*.jsonl ...`
//! (`--quiet`: the counts only).

mod rows;

use std::collections::BTreeMap;

use policy_core::guardrails::{detect_pii, redact, sanitize};
use policy_core::records::requested_record;

fn main() {
    let quiet = std::env::args().any(|a| a == "--quiet");
    for path in std::env::args().skip(1).filter(|a| a != "--quiet") {
        // label -> (rows, found)
        let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for row in rows::rows(&path) {
            let count = counts.entry(row.label.clone()).or_default();
            count.0 += 1;
            let sanitized = sanitize(&row.body, usize::MAX).text;
            let question = redact(&sanitized, &detect_pii(&sanitized));
            if let Some(asked) = requested_record(&question) {
                count.1 += 1;
                if !quiet {
                    let (id, label) = (&row.id, &row.label);
                    println!(
                        "{path}: {id} [{label}] \"{asked}\" <- {}",
                        rows::excerpt(&row.body)
                    );
                }
            }
        }
        let summary: Vec<String> = counts
            .iter()
            .map(|(label, (rows, found))| format!("{label} {found} of {rows}"))
            .collect();
        println!("{path}: {}", summary.join(", "));
    }
}
