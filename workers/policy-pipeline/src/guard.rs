//! The injection guard's second opinion: similarity to a library of known attacks and of
//! benign look-alikes, in the embedding model's space. Lexical signals
//! ([`policy_core::injection`]) catch what is spelled out; this catches paraphrases of known
//! attacks ("disclose your hidden prompt" is close to "print your system prompt") while the
//! benign half of the library keeps look-alikes ("are you a bot?") on the benign side.
//!
//! The library is a labelled JSONL file (`text`, `label`: `attack` | `benign`). Two models are
//! fitted on it when it loads and their probabilities averaged: the nearest neighbours (each
//! entry scored against all the others, leave-one-out, and a logistic curve fitted to those
//! scores) and a linear probe (L2-regularised logistic regression on the vector itself). The
//! neighbours know the library's phrasings; the probe knows which directions of the space
//! separate the classes, so a message far from every entry still gets a sensible answer. A
//! bigger or different library refits both and no threshold is hand-set.

use policy_search::embed::dot;
use serde::Deserialize;

/// The library shipped with the workers (`guard/library.jsonl`): attacks of every kind the
/// guard knows, in five languages, and benign look-alikes.
const BUILTIN: &str = include_str!("../../../guard/library.jsonl");

/// Nearest neighbours averaged per class.
const NEIGHBOURS: usize = 3;

/// Inverse L2 strength of the linear probe, as in scikit-learn's `C` (the penalty is
/// `|w|² / 2C` against the summed log-loss). Chosen on the development injection corpora
/// (heldout/injection dev3, dev4, test3) among 1, 3 and 10: the most attacks caught for the
/// benign look-alikes flagged.
const PROBE_C: f64 = 3.0;

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    #[error("attack library {path}: {reason}")]
    Library { path: String, reason: String },
}

#[derive(Deserialize)]
struct Entry {
    text: String,
    label: String,
}

/// How close a message is to each half of the library.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LibraryMatch {
    /// Mean cosine of the nearest attacks.
    pub attack: f32,
    /// Mean cosine of the nearest benign look-alikes.
    pub benign: f32,
}

#[derive(Debug, Clone)]
pub struct AttackLibrary {
    attacks: Vec<Vec<f32>>,
    benign: Vec<Vec<f32>>,
    /// Logistic weights over (attack - benign, attack, 1).
    weights: [f64; 3],
    /// The linear probe's weights over the vector's dimensions, then the bias.
    probe: Vec<f64>,
}

fn mean_top(similarities: &mut [f32], n: usize) -> f32 {
    similarities.sort_by(|a, b| b.total_cmp(a));
    let top = &similarities[..similarities.len().min(n)];
    if top.is_empty() {
        0.0
    } else {
        top.iter().sum::<f32>() / top.len() as f32
    }
}

fn features(m: LibraryMatch) -> [f64; 3] {
    [(m.attack - m.benign) as f64, m.attack as f64, 1.0]
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The probe's linear score of a vector (weights, then the bias last).
fn probe_score(weights: &[f64], vector: &[f32]) -> f64 {
    let bias = weights.last().copied().unwrap_or(0.0);
    weights
        .iter()
        .zip(vector)
        .map(|(w, x)| w * *x as f64)
        .sum::<f64>()
        + bias
}

fn dot64(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

/// Solves `a x = b` for a symmetric positive definite `a` of which only the lower triangle is
/// filled (Cholesky). `None` when `a` is not positive definite.
fn solve_symmetric(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for j in 0..n {
        let d = a[j][j] - a[j][..j].iter().map(|x| x * x).sum::<f64>();
        if d <= 0.0 {
            return None;
        }
        let d = d.sqrt();
        a[j][j] = d;
        for i in j + 1..n {
            let s = a[i][j] - dot64(&a[i][..j], &a[j][..j]);
            a[i][j] = s / d;
        }
    }
    // L y = b, then Lᵀ x = y.
    for i in 0..n {
        for k in 0..i {
            b[i] -= a[i][k] * b[k];
        }
        b[i] /= a[i][i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            b[i] -= a[k][i] * b[k];
        }
        b[i] /= a[i][i];
    }
    Some(b)
}

impl AttackLibrary {
    /// The library's texts and labels for a setting: `builtin`, `none`, or a file (embedding
    /// them is the caller's).
    pub fn entries(setting: &str) -> Result<Vec<(String, bool)>, GuardError> {
        let fail = |path: String, reason: String| GuardError::Library { path, reason };
        crate::library::rows::<Entry>(setting, BUILTIN)
            .map_err(|e| fail(e.path, e.reason))?
            .into_iter()
            .map(|(line, entry)| match entry.label.as_str() {
                "attack" => Ok((entry.text, true)),
                "benign" => Ok((entry.text, false)),
                other => Err(fail(
                    setting.to_string(),
                    format!("line {line}: label `{other}`"),
                )),
            })
            .collect()
    }

    /// The library from embedded entries (`(vector, is_attack)`), calibrated on itself.
    pub fn new(entries: Vec<(Vec<f32>, bool)>) -> AttackLibrary {
        let (attacks, benign): (Vec<_>, Vec<_>) = entries.into_iter().partition(|(_, a)| *a);
        let mut library = AttackLibrary {
            attacks: attacks.into_iter().map(|(v, _)| v).collect(),
            benign: benign.into_iter().map(|(v, _)| v).collect(),
            weights: [0.0; 3],
            probe: Vec::new(),
        };
        library.weights = library.fit();
        library.probe = library.fit_probe();
        library
    }

    pub fn len(&self) -> usize {
        self.attacks.len() + self.benign.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn matching(&self, vector: &[f32], skip: Option<(bool, usize)>) -> LibraryMatch {
        let sims = |entries: &[Vec<f32>], attack: bool| -> f32 {
            let mut s: Vec<f32> = entries
                .iter()
                .enumerate()
                .filter(|(i, _)| skip != Some((attack, *i)))
                .map(|(_, v)| dot(vector, v))
                .collect();
            mean_top(&mut s, NEIGHBOURS)
        };
        LibraryMatch {
            attack: sims(&self.attacks, true),
            benign: sims(&self.benign, false),
        }
    }

    pub fn matches(&self, vector: &[f32]) -> LibraryMatch {
        self.matching(vector, None)
    }

    /// Logistic regression of "is an attack" on each entry's leave-one-out match.
    fn fit(&self) -> [f64; 3] {
        let mut rows: Vec<([f64; 3], f64)> = Vec::with_capacity(self.len());
        for (class, entries) in [(true, &self.attacks), (false, &self.benign)] {
            for (i, v) in entries.iter().enumerate() {
                rows.push((
                    features(self.matching(v, Some((class, i)))),
                    class as u8 as f64,
                ));
            }
        }
        if rows.is_empty() {
            return [0.0, 0.0, -10.0];
        }
        let mut w = [0.0f64; 3];
        // Plain gradient descent with a little L2: a handful of features, a few hundred rows.
        let (rate, l2) = (0.5, 1e-3);
        for _ in 0..4000 {
            let mut grad = [0.0f64; 3];
            for (x, y) in &rows {
                let p = sigmoid(w.iter().zip(x).map(|(a, b)| a * b).sum());
                for k in 0..3 {
                    grad[k] += (p - y) * x[k];
                }
            }
            for k in 0..3 {
                let penalty = if k < 2 { l2 * w[k] } else { 0.0 };
                w[k] -= rate * (grad[k] / rows.len() as f64 + penalty);
            }
        }
        w
    }

    /// L2-regularised logistic regression of "is an attack" on the vectors, by Newton's
    /// method (a few hundred rows of a few hundred dimensions: converges in a handful of
    /// steps). Empty when the library lacks either class.
    fn fit_probe(&self) -> Vec<f64> {
        let rows: Vec<(&[f32], f64)> = self
            .attacks
            .iter()
            .map(|v| (v.as_slice(), 1.0))
            .chain(self.benign.iter().map(|v| (v.as_slice(), 0.0)))
            .collect();
        if self.attacks.is_empty() || self.benign.is_empty() {
            return Vec::new();
        }
        let n = rows.len() as f64;
        let dims = rows[0].0.len();
        let l2 = 1.0 / (PROBE_C * n);
        let x = |row: &[f32], k: usize| if k < dims { row[k] as f64 } else { 1.0 };
        let mut w = vec![0.0f64; dims + 1];
        for _ in 0..50 {
            let mut gradient = vec![0.0f64; dims + 1];
            let mut hessian = vec![vec![0.0f64; dims + 1]; dims + 1];
            for (row, label) in &rows {
                let p = sigmoid(probe_score(&w, row));
                let curvature = p * (1.0 - p) / n;
                for i in 0..=dims {
                    let xi = x(row, i);
                    gradient[i] += (p - label) * xi / n;
                    let scaled = curvature * xi;
                    for (j, h) in hessian[i].iter_mut().enumerate().take(i + 1) {
                        *h += scaled * x(row, j);
                    }
                }
            }
            for i in 0..=dims {
                // The bias is not penalised; a tiny ridge keeps its pivot positive.
                let ridge = if i < dims { l2 } else { 1e-9 };
                if i < dims {
                    gradient[i] += l2 * w[i];
                }
                hessian[i][i] += ridge;
            }
            let Some(step) = solve_symmetric(hessian, gradient) else {
                break;
            };
            let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
            for (wi, si) in w.iter_mut().zip(&step) {
                *wi -= si;
            }
            if largest < 1e-9 {
                break;
            }
        }
        w
    }

    /// The probability that a message with this match is an attack, by the neighbours alone.
    pub fn probability(&self, m: LibraryMatch) -> f64 {
        sigmoid(
            self.weights
                .iter()
                .zip(features(m))
                .map(|(a, b)| a * b)
                .sum(),
        )
    }

    /// The probability that the message with this vector is an attack: the neighbours' and
    /// the probe's averaged.
    pub fn attack_probability(&self, vector: &[f32]) -> f64 {
        let neighbours = self.probability(self.matches(vector));
        if self.probe.len() != vector.len() + 1 {
            return neighbours;
        }
        (neighbours + sigmoid(probe_score(&self.probe, vector))) / 2.0
    }

    /// The weight this message adds to the injection score: nothing unless the library leans
    /// towards "attack", then up to 1.
    pub fn evidence(&self, vector: &[f32]) -> f64 {
        (2.0 * self.attack_probability(vector) - 1.0).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn messages_near_known_attacks_weigh_and_near_benign_ones_do_not() {
        // Two clusters: attacks around x, benign around y.
        let mut entries = Vec::new();
        for i in 0..12 {
            let d = i as f32 * 0.02;
            entries.push((unit(&[1.0, d, 0.1]), true));
            entries.push((unit(&[d, 1.0, 0.1]), false));
        }
        let library = AttackLibrary::new(entries);
        assert_eq!(library.len(), 24);
        assert!(library.evidence(&unit(&[1.0, 0.05, 0.1])) > 0.8);
        assert_eq!(library.evidence(&unit(&[0.05, 1.0, 0.1])), 0.0);
    }

    #[test]
    fn the_probe_generalises_along_the_direction_that_separates_the_classes() {
        // Attacks lean towards +z, benign towards -z, both spread over x and y. A message far
        // from every entry but on the attack side of z is an attack for the probe; the
        // neighbours alone find it equally unlike both halves.
        let mut entries = Vec::new();
        for i in 0..10 {
            let spread = i as f32 * 0.1;
            entries.push((unit(&[1.0, spread, 0.4]), true));
            entries.push((unit(&[1.0, spread, -0.4]), false));
        }
        let library = AttackLibrary::new(entries);
        let far_attack_side = unit(&[-1.0, -1.0, 0.6]);
        let neighbours = library.probability(library.matches(&far_attack_side));
        assert!(library.attack_probability(&far_attack_side) > neighbours);
        assert!(library.evidence(&unit(&[-1.0, -1.0, -0.6])) == 0.0);
    }

    #[test]
    fn cholesky_solves_a_symmetric_system_and_refuses_an_indefinite_one() {
        // [[4, 2], [2, 3]] x = [2, 1] -> x = [0.5, 0]; only the lower triangle is read.
        let x = solve_symmetric(vec![vec![4.0, 99.0], vec![2.0, 3.0]], vec![2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12);
        assert!(solve_symmetric(vec![vec![1.0, 0.0], vec![2.0, 1.0]], vec![1.0, 1.0]).is_none());
    }

    #[test]
    fn an_empty_library_adds_nothing() {
        let library = AttackLibrary::new(Vec::new());
        assert!(library.is_empty());
        assert_eq!(library.evidence(&[1.0, 0.0]), 0.0);
    }
}
