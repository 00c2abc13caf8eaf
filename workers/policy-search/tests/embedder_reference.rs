//! The in-process MiniLM reproduces sentence-transformers: vectors committed once from the
//! reference implementation (tests/fixtures/make_reference_vectors.py) match to cosine
//! ≥ 0.99999 (measured ≥ 0.9999993 with the encoder of `policy_search::minilm`).

use policy_search::embed::{default_model_dir, dot};
use policy_search::{Embedder, MiniLmEmbedder};

#[derive(serde::Deserialize)]
struct Reference {
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

fn model() -> MiniLmEmbedder {
    let dir = default_model_dir();
    MiniLmEmbedder::load(&dir)
        .unwrap_or_else(|e| panic!("{e} (run `make install` to fetch the model)"))
}

#[test]
fn matches_sentence_transformers() {
    let reference: Reference =
        serde_json::from_str(include_str!("fixtures/reference_vectors.json"))
            .expect("fixture parses");
    let model = model();
    let texts: Vec<&str> = reference.texts.iter().map(String::as_str).collect();
    let vectors = model.embed_batch(&texts).unwrap();
    for ((text, got), want) in texts.iter().zip(&vectors).zip(&reference.vectors) {
        assert_eq!(got.len(), 384);
        let cosine = dot(got, want);
        assert!(
            cosine >= 0.99999,
            "cosine {cosine:.5} for {:?}",
            &text[..text.len().min(40)]
        );
        let norm = dot(got, got).sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "unit length, got {norm}");
    }
}

#[test]
fn batching_and_padding_do_not_change_vectors() {
    let model = model();
    let short = "Return window";
    let long =
        "Most new, unopened items sold by Northwind can be returned within 45 days of delivery.";
    let alone = model.embed(short).unwrap();
    let batched = model.embed_batch(&[long, short]).unwrap();
    assert!(
        dot(&alone, &batched[1]) > 0.99999,
        "padding leaked into the pooled vector"
    );
    assert!(model.embed_batch(&[]).unwrap().is_empty());
}

#[test]
fn related_texts_are_closer_than_unrelated() {
    let model = model();
    let v = model
        .embed_batch(&[
            "How long do I have to return an item?",
            "You may return items within 30 days of delivery.",
            "Standard delivery is free for orders over EUR 35.",
        ])
        .unwrap();
    assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]) + 0.1);
}

#[test]
fn missing_model_is_a_clear_error() {
    let err =
        MiniLmEmbedder::load(std::path::Path::new("/nonexistent/model")).expect_err("must fail");
    assert!(err.to_string().contains("/nonexistent/model"), "{err}");
}
