//! The action-request detector alone over case files and labelled corpora (`question` or
//! `text` per JSON line): every message it reads as an order to act or to commit, with the
//! case's expectation, so false alarms on questions show at once.
//!
//! `cargo run -p policy-core --example action_requests -- golden/cases/answers.jsonl ...`

mod rows;

use policy_core::intent::demanded_action;

fn main() {
    for path in std::env::args().skip(1) {
        let rows = rows::rows(&path);
        let mut found = 0;
        for row in &rows {
            if let Some(order) = demanded_action(&row.body) {
                found += 1;
                let (id, expected) = (&row.id, &row.label);
                println!(
                    "{path}: {id} [{expected}] \"{order}\" <- {}",
                    rows::excerpt(&row.body)
                );
            }
        }
        println!("{path}: {found} of {}", rows.len());
    }
}
