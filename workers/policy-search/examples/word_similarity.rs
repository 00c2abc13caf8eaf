//! Cosine between words (or short phrases) in the embedding model's space: how well the model
//! relates a customer's word to a policy's word. `cargo run -p policy-search --example
//! word_similarity -- hoodie:apparel busted:defective`
fn main() {
    let model = policy_search::MiniLmEmbedder::load(&policy_search::embed::default_model_dir())
        .expect("model (make install)");
    for pair in std::env::args().skip(1) {
        let (a, b) = pair.split_once(':').expect("a:b");
        let v = policy_search::Embedder::embed_batch(&model, &[a, b]).expect("embed");
        println!(
            "{a:>24} {b:<24} {:.3}",
            policy_search::embed::dot(&v[0], &v[1])
        );
    }
}
