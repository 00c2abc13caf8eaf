//! The rows of a case file or a labelled corpus, for the examples that run one detector over
//! them: the message (`question` or `text`), its label (`label` or `expected_outcome`), its id.

pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) body: String,
    pub(crate) label: String,
}

pub(crate) fn rows(path: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(path).expect("readable file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("JSON");
            let field = |a: &str, b: &str| {
                row[a]
                    .as_str()
                    .or(row[b].as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            Row {
                id: row["id"].as_str().unwrap_or_default().to_string(),
                body: field("question", "text"),
                label: field("label", "expected_outcome"),
            }
        })
        .collect()
}

/// The first 140 characters of a message on one line.
pub(crate) fn excerpt(body: &str) -> String {
    body.replace('\n', " / ").chars().take(140).collect()
}
