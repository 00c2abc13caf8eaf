//! The action-request detector alone over case files and labelled corpora (`question` or
//! `text` per JSON line): every message it reads as an order to act or to commit, with the
//! case's expectation, so false alarms on questions show at once.
//!
//! `cargo run -p policy-core --example action_requests -- golden/cases/answers.jsonl ...`

use policy_core::intent::demanded_action;

fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let (mut lines, mut found) = (0, 0);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let row: serde_json::Value = serde_json::from_str(line).expect("JSON");
            let body = row["question"]
                .as_str()
                .or(row["text"].as_str())
                .unwrap_or_default();
            let expected = row["label"]
                .as_str()
                .or(row["expected_outcome"].as_str())
                .unwrap_or_default();
            lines += 1;
            if let Some(order) = demanded_action(body) {
                found += 1;
                let id = row["id"].as_str().unwrap_or_default();
                println!(
                    "{path}: {id} [{expected}] \"{order}\" <- {}",
                    body.replace('\n', " / ")
                        .chars()
                        .take(140)
                        .collect::<String>()
                );
            }
        }
        println!("{path}: {found} of {lines}");
    }
}
