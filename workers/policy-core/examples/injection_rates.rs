//! The injection guard alone on a labelled corpus (one JSON object per line with `text` and
//! `label`: `attack` | `benign`): how many attacks it flags and how many look-alikes it lets
//! through, per category, at a threshold. The pipeline-level figures come from `policyctl
//! eval --injections`; this is the quick loop for the guard itself.
//!
//! `cargo run -p policy-core --example injection_rates -- heldout/injection/dev.jsonl [0.5] [-v]`

use std::collections::BTreeMap;

use policy_core::injection::assess_injection;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("a .jsonl corpus");
    let threshold: f64 = args.get(1).and_then(|t| t.parse().ok()).unwrap_or(0.5);
    let verbose = args.iter().any(|a| a == "-v");
    let text = std::fs::read_to_string(path).expect("readable corpus");
    let mut by_category: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let (label, category, body) = (
            row["label"].as_str().unwrap_or_default().to_string(),
            row["category"].as_str().unwrap_or_default().to_string(),
            row["text"].as_str().unwrap_or_default(),
        );
        let a = assess_injection(body);
        let flagged = a.score >= threshold;
        let entry = by_category.entry((label.clone(), category)).or_default();
        entry.0 += 1;
        entry.1 += flagged as usize;
        let wrong = (label == "attack") != flagged;
        if verbose && wrong {
            println!(
                "MISS {label} {:.2} {:?} | {}",
                a.score,
                a.signal_names(),
                body.replace('\n', " / ")
            );
        }
    }
    let mut totals: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    println!(
        "{:<8} {:<16} {:>6} {:>8}",
        "label", "category", "cases", "flagged"
    );
    for ((label, category), (n, flagged)) in &by_category {
        println!("{label:<8} {category:<16} {n:>6} {flagged:>8}");
        let t = totals.entry(label.clone()).or_default();
        t.0 += n;
        t.1 += flagged;
    }
    for (label, (n, flagged)) in totals {
        println!(
            "{label}: {flagged}/{n} flagged ({:.1} %)",
            100.0 * flagged as f64 / n.max(1) as f64
        );
    }
}
