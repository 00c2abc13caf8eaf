//! The MiniLM encoder (BERT architecture: embeddings, then self-attention + feed-forward layers)
//! on candle tensors, for the embedding model only. candle-transformers' BERT computes GELU with
//! a scalar libm `erf` per element: on this CPU that was a fifth of a query's embedding time.
//! Here GELU uses a branch-free rational `erf` the compiler vectorises (error below 1e-6, unit-
//! tested against libm), Q, K and V come out of one matrix product, and the vectors match the
//! reference sentence-transformers ones (tests/embedder_reference.rs).

use candle_core::{DType, Module, Result, Tensor, D};
use candle_nn::{embedding, layer_norm, Embedding, LayerNorm, VarBuilder};

/// The fields of the model's `config.json` the encoder needs (BERT naming).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct EncoderConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
    #[serde(default = "gelu")]
    pub hidden_act: String,
}

fn gelu() -> String {
    "gelu".into()
}

pub struct MiniLmEncoder {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
}

impl std::fmt::Debug for MiniLmEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEncoder").finish_non_exhaustive()
    }
}

struct Layer {
    qkv: Dense,
    attention_out: Dense,
    attention_norm: LayerNorm,
    intermediate: Dense,
    output: Dense,
    output_norm: LayerNorm,
}

/// A linear layer whose weight is stored transposed, (in, out) row-major, once at load time:
/// the matrix product then reads it as is instead of repacking it on every call.
struct Dense {
    weight: Tensor,
    bias: Tensor,
}

impl Dense {
    /// The linear layers under `names` side by side as one: their outputs are concatenated.
    fn load(vb: &VarBuilder, inputs: usize, outputs: usize, names: &[&str]) -> Result<Dense> {
        let mut weights = Vec::with_capacity(names.len());
        let mut biases = Vec::with_capacity(names.len());
        for name in names {
            weights.push(vb.get((outputs, inputs), &format!("{name}.weight"))?);
            biases.push(vb.get(outputs, &format!("{name}.bias"))?);
        }
        Ok(Dense {
            weight: Tensor::cat(&weights, 0)?.t()?.contiguous()?,
            bias: Tensor::cat(&biases, 0)?,
        })
    }

    fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let (batch, tokens, width) = xs.dims3()?;
        xs.reshape((batch * tokens, width))?
            .matmul(&self.weight)?
            .broadcast_add(&self.bias)?
            .reshape((batch, tokens, ()))
    }
}

impl MiniLmEncoder {
    /// Loads the weights (names as in Hugging Face's `BertModel`, with or without a `bert.`
    /// prefix). Only GELU models are supported: that is what sentence-transformers ships.
    pub fn load(vb: VarBuilder, config: &EncoderConfig) -> Result<MiniLmEncoder> {
        if config.hidden_act != "gelu" {
            candle_core::bail!("hidden_act {:?} is not supported (gelu)", config.hidden_act);
        }
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            candle_core::bail!("hidden_size is not a multiple of num_attention_heads");
        }
        let vb = if vb.contains_tensor("embeddings.word_embeddings.weight") {
            vb
        } else {
            vb.pp("bert")
        };
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let e = vb.pp("embeddings");
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for n in 0..config.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{n}"));
            let a = l.pp("attention");
            let (inner, self_attention) = (config.intermediate_size, a.pp("self"));
            layers.push(Layer {
                qkv: Dense::load(&self_attention, hidden, hidden, &["query", "key", "value"])?,
                attention_out: Dense::load(&a, hidden, hidden, &["output.dense"])?,
                attention_norm: layer_norm(hidden, eps, a.pp("output.LayerNorm"))?,
                intermediate: Dense::load(&l, hidden, inner, &["intermediate.dense"])?,
                output: Dense::load(&l, inner, hidden, &["output.dense"])?,
                output_norm: layer_norm(hidden, eps, l.pp("output.LayerNorm"))?,
            });
        }
        Ok(MiniLmEncoder {
            word: embedding(config.vocab_size, hidden, e.pp("word_embeddings"))?,
            position: embedding(
                config.max_position_embeddings,
                hidden,
                e.pp("position_embeddings"),
            )?,
            token_type: embedding(
                config.type_vocab_size,
                hidden,
                e.pp("token_type_embeddings"),
            )?,
            embeddings_norm: layer_norm(hidden, eps, e.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
        })
    }

    /// Hidden states (batch, tokens, hidden) for token ids, token types and the attention mask
    /// (1 = token, 0 = padding), each (batch, tokens).
    pub fn forward(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (_, tokens) = ids.dims2()?;
        let positions = Tensor::arange(0u32, tokens as u32, ids.device())?;
        let embedded = self
            .word
            .forward(ids)?
            .add(&self.token_type.forward(types)?)?
            .broadcast_add(&self.position.forward(&positions)?)?;
        let mut hidden = self.embeddings_norm.forward(&embedded)?;
        // Padding gets a large negative score before the softmax, so its weight is 0.
        let padding = mask
            .to_dtype(DType::F32)?
            .affine(1e4, -1e4)?
            .unsqueeze(1)?
            .unsqueeze(1)?;
        for layer in &self.layers {
            hidden = layer.forward(&hidden, &padding, self.heads)?;
        }
        Ok(hidden)
    }
}

impl Layer {
    fn forward(&self, hidden: &Tensor, padding: &Tensor, heads: usize) -> Result<Tensor> {
        let (batch, tokens, width) = hidden.dims3()?;
        let head_width = width / heads;
        let split = |t: Tensor| {
            t.reshape((batch, tokens, heads, head_width))?
                .transpose(1, 2)?
                .contiguous()
        };
        let qkv = self.qkv.forward(hidden)?;
        let q = split(qkv.narrow(D::Minus1, 0, width)?)?;
        let k = split(qkv.narrow(D::Minus1, width, width)?)?;
        let v = split(qkv.narrow(D::Minus1, 2 * width, width)?)?;
        let scores =
            (q.matmul(&k.t()?)? * (1.0 / (head_width as f64).sqrt()))?.broadcast_add(padding)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = weights
            .matmul(&v)?
            .transpose(1, 2)?
            .reshape((batch, tokens, width))?;
        let attended = self
            .attention_norm
            .forward(&(self.attention_out.forward(&context)? + hidden)?)?;
        let expanded = gelu_erf(&self.intermediate.forward(&attended)?)?;
        self.output_norm
            .forward(&(self.output.forward(&expanded)? + attended)?)
    }
}

/// Exact (erf) GELU, `x/2 * (1 + erf(x/sqrt 2))`, element-wise on an f32 tensor.
fn gelu_erf(xs: &Tensor) -> Result<Tensor> {
    let mut values = xs.flatten_all()?.to_vec1::<f32>()?;
    for x in values.iter_mut() {
        *x = 0.5 * *x * (1.0 + erf(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
    Tensor::from_vec(values, xs.shape(), xs.device())
}

/// erf for f32 as a rational function of x (odd numerator of degree 13, even denominator of
/// degree 8), exact to f32 rounding beyond |x| = 4 where erf is ±1. No branches and no libm
/// call (not even `mul_add`, a libm call without FMA enabled), so loops over it vectorise.
#[inline]
pub fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10_f32;
    p = p * x2 + 2.770_681_4e-8;
    p = p * x2 - 2.101_024e-6;
    p = p * x2 - 5.692_506_6e-5;
    p = p * x2 - 7.349_906e-4;
    p = p * x2 - 2.954_600_1e-3;
    p = p * x2 - 1.609_603_3e-2;
    let mut q = -1.456_607_2e-5_f32;
    q = q * x2 - 2.133_740_6e-4;
    q = q * x2 - 1.682_827e-3;
    q = q * x2 - 7.373_329e-3;
    q = q * x2 - 1.426_474e-2;
    x * p / q
}

#[cfg(test)]
mod tests {
    use super::erf;

    #[test]
    fn erf_matches_libm_over_the_whole_range() {
        let mut worst = (0.0f64, 0.0f32);
        for i in -80_000..=80_000 {
            let x = i as f32 * 1e-4;
            let error = (erf(x) as f64 - libm::erf(x as f64)).abs();
            if error > worst.0 {
                worst = (error, x);
            }
        }
        assert!(worst.0 < 1e-6, "error {:e} at x = {}", worst.0, worst.1);
    }

    #[test]
    fn erf_is_odd_and_saturates() {
        for x in [0.1f32, 0.5, 1.0, 2.5, 3.9] {
            assert_eq!(erf(-x), -erf(x));
        }
        assert_eq!(erf(0.0), 0.0);
        assert!((erf(10.0) - 1.0).abs() < 1e-6 && (erf(-10.0) + 1.0).abs() < 1e-6);
    }
}
