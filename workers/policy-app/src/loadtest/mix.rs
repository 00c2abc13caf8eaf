//! What a load test offers: golden questions with Zipf-distributed repeats (or all unique),
//! a share of prompt injections and a share of undecodable garbage, deterministically.

use std::path::Path;

use policy_avro::ChatTurn;
use policy_core::golden::ExpectedOutcome;
use policy_core::GoldenCase;
use policy_pipeline::golden_turn::turn_for_case;

/// Deterministic xorshift: the same run offers the same turns.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Cumulative Zipf weights over `n` ranks.
fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let weights: Vec<f64> = (1..=n).map(|k| 1.0 / (k as f64).powf(s)).collect();
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect()
}

/// One thing to send.
#[derive(Debug)]
pub enum Offer {
    Turn(Box<ChatTurn>),
    /// Bytes no decoder accepts: must become a dead letter.
    Garbage(Vec<u8>),
}

#[derive(Debug)]
pub struct TurnMix {
    answerable: Vec<GoldenCase>,
    injections: Vec<GoldenCase>,
    cdf: Vec<f64>,
    rng: Rng,
    unique: bool,
    injection_share: f64,
    garbage_share: f64,
    run_id: String,
}

impl TurnMix {
    pub fn load(
        golden: &Path,
        zipf_s: f64,
        unique: bool,
        injection_share: f64,
        garbage_share: f64,
    ) -> anyhow::Result<TurnMix> {
        let cases = policy_core::load_cases(golden)?;
        let (injections, rest): (Vec<_>, Vec<_>) = cases
            .into_iter()
            .partition(|c| c.tags.iter().any(|t| t == "injection"));
        let answerable: Vec<GoldenCase> = rest
            .into_iter()
            .filter(|c| {
                c.expected_outcome == ExpectedOutcome::Answer
                    || c.tags.iter().any(|t| t == "out_of_scope")
            })
            .collect();
        anyhow::ensure!(
            !answerable.is_empty(),
            "no answerable case in {}",
            golden.display()
        );
        Ok(TurnMix {
            cdf: zipf_cdf(answerable.len(), zipf_s),
            answerable,
            injections,
            rng: Rng(0x9E37_79B9_7F4A_7C15),
            unique,
            injection_share,
            garbage_share,
            run_id: uuid::Uuid::new_v4().simple().to_string(),
        })
    }

    /// The key of the `n`-th offer: 500 conversations, so lanes stay busy and ordered.
    pub fn key(&self, n: usize) -> String {
        format!("lt-{}-{}", self.run_id, n % 500)
    }

    pub fn next(&mut self, n: usize) -> anyhow::Result<Offer> {
        let roll = self.rng.next();
        if roll < self.garbage_share {
            return Ok(Offer::Garbage(vec![0xde, 0xad, (n % 256) as u8, 0xef]));
        }
        let case =
            if roll < self.garbage_share + self.injection_share && !self.injections.is_empty() {
                &self.injections[n % self.injections.len()]
            } else {
                let u = self.rng.next();
                &self.answerable[self
                    .cdf
                    .partition_point(|c| *c < u)
                    .min(self.answerable.len() - 1)]
            };
        let mut turn = turn_for_case(case).map_err(anyhow::Error::msg)?;
        turn.turn_id = format!("lt-{}-{n}", self.run_id);
        turn.conversation_id = self.key(n);
        if self.unique {
            turn.question = format!("{} (ref {n})", turn.question);
        }
        Ok(Offer::Turn(Box::new(turn)))
    }
}
