use std::io::{BufRead, Write};
fn main() {
    let model =
        policy_search::MiniLmEmbedder::load(&policy_search::embed::default_model_dir()).unwrap();
    let lines: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map(|l| l.unwrap())
        .collect();
    let mut out = std::io::stdout().lock();
    for chunk in lines.chunks(64) {
        let refs: Vec<&str> = chunk.iter().map(|s| s.as_str()).collect();
        for v in policy_search::Embedder::embed_batch(&model, &refs).unwrap() {
            for x in v {
                out.write_all(&x.to_le_bytes()).unwrap();
            }
        }
    }
}
