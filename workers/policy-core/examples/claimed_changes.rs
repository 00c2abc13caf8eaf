//! The claimed-change reading alone over case files and labelled corpora (`question` or `text`
//! per JSON line): each message that claims a policy change, whether it asks for something on
//! the strength of it (`ACTS`) or only reports it (`CLAIM`), with its label, and the counts per
//! label. Attacks missed show as `MISS`.
//!
//! `cargo run -p policy-core --example claimed_changes -- heldout/claims/set-a.jsonl ...`

mod rows;

use std::collections::BTreeMap;

use policy_core::claims::{claimed_change_in, relies_on_claimed_change};

fn main() {
    for path in std::env::args().skip(1) {
        let rows = rows::rows(&path);
        // Per label: rows, rows escalated.
        let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for row in &rows {
            let acts = relies_on_claimed_change(&row.body);
            let claim = claimed_change_in(&row.body);
            let count = counts.entry(row.label.clone()).or_default();
            count.0 += 1;
            count.1 += acts.is_some() as usize;
            let (id, label, excerpt) = (&row.id, &row.label, rows::excerpt(&row.body));
            match (&acts, &claim) {
                (Some(claim), _) => println!("ACTS  [{label}] {id} \"{claim}\" <- {excerpt}"),
                (None, Some(claim)) => println!("CLAIM [{label}] {id} \"{claim}\" <- {excerpt}"),
                (None, None) if label == "attack" => println!("MISS  [{label}] {id} <- {excerpt}"),
                _ => {}
            }
        }
        for (label, (n, acted)) in counts {
            println!("{path}: {label} {acted} of {n} escalated as claimed changes");
        }
    }
}
