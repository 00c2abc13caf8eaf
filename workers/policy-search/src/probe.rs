//! A linear probe on embedding vectors: L2-regularised logistic regression of a binary label,
//! fitted by Newton's method. Lives beside [`crate::embed::dot`] because it is vector
//! arithmetic (built optimised even in development profiles, where a library of a few hundred
//! entries fits in well under a second).

/// Weights over the vector's dimensions, then the bias.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearProbe {
    weights: Vec<f64>,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl LinearProbe {
    /// Fits "positive" against "negative" vectors (all of one dimension). `c` is the inverse L2
    /// strength as in scikit-learn (the penalty is `|w|² / 2c` against the summed log-loss).
    /// `None` when either class is empty.
    pub fn fit(positive: &[Vec<f32>], negative: &[Vec<f32>], c: f64) -> Option<LinearProbe> {
        if positive.is_empty() || negative.is_empty() {
            return None;
        }
        // Each row with a constant 1 appended for the bias, converted once.
        let rows: Vec<(Vec<f64>, f64)> = positive
            .iter()
            .map(|v| (v, 1.0))
            .chain(negative.iter().map(|v| (v, 0.0)))
            .map(|(v, label)| {
                let mut row: Vec<f64> = v.iter().map(|x| *x as f64).collect();
                row.push(1.0);
                (row, label)
            })
            .collect();
        let n = rows.len() as f64;
        let dims = rows[0].0.len() - 1;
        let l2 = 1.0 / (c * n);
        let mut w = vec![0.0f64; dims + 1];
        // A few hundred rows of a few hundred dimensions converge in a handful of steps.
        for _ in 0..50 {
            let mut gradient = vec![0.0f64; dims + 1];
            let mut hessian = vec![vec![0.0f64; dims + 1]; dims + 1];
            for (row, label) in &rows {
                let p = sigmoid(dot64(&w, row));
                let curvature = p * (1.0 - p) / n;
                for (i, xi) in row.iter().enumerate() {
                    gradient[i] += (p - label) * xi / n;
                    let scaled = curvature * xi;
                    for (h, xj) in hessian[i][..=i].iter_mut().zip(&row[..=i]) {
                        *h += scaled * xj;
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
        Some(LinearProbe { weights: w })
    }

    /// The dimension of the vectors it was fitted on.
    pub fn dims(&self) -> usize {
        self.weights.len() - 1
    }

    /// The probability of the positive label for a vector.
    pub fn probability(&self, vector: &[f32]) -> f64 {
        let bias = self.weights.last().copied().unwrap_or(0.0);
        let score = self
            .weights
            .iter()
            .zip(vector)
            .map(|(w, x)| w * *x as f64)
            .sum::<f64>();
        sigmoid(score + bias)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_a_symmetric_system_and_refuses_an_indefinite_one() {
        // [[4, 2], [2, 3]] x = [2, 1] -> x = [0.5, 0]; only the lower triangle is read.
        let x = solve_symmetric(vec![vec![4.0, 99.0], vec![2.0, 3.0]], vec![2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12);
        assert!(solve_symmetric(vec![vec![1.0, 0.0], vec![2.0, 1.0]], vec![1.0, 1.0]).is_none());
    }

    #[test]
    fn a_probe_needs_both_classes() {
        assert!(LinearProbe::fit(&[vec![1.0, 0.0]], &[], 1.0).is_none());
        let probe = LinearProbe::fit(&[vec![1.0, 0.0]], &[vec![0.0, 1.0]], 1.0).unwrap();
        assert_eq!(probe.dims(), 2);
        assert!(probe.probability(&[1.0, 0.0]) > 0.5 && probe.probability(&[0.0, 1.0]) < 0.5);
    }
}
