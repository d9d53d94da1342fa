//! The templateness classifier: logistic regression, one model per node-size bucket (the
//! paper trains four by rendered area; without rendering, the subtree's HTML length stands in
//! for the area), trained by iteratively reweighted least squares with an L2 penalty.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::features::{FEATURE_NAMES, N_FEATURES, NodeFeatures};
use crate::dom::NodeId;

/// The model shipped with templex (`templex train`, see the README), loaded on first use.
const BUILTIN: &str = include_str!("model.json");

/// Why a model could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Not valid model JSON.
    #[error("invalid model JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Trained with other features than this build computes.
    #[error("model features do not match this build's ({0})")]
    Features(String),
    /// Inconsistent sizes.
    #[error("malformed model: {0}")]
    Malformed(String),
    /// Nothing to learn from.
    #[error("no training samples")]
    Empty,
}

/// One logistic regression over standardized features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    /// Feature means of the training samples (weighted).
    pub mean: Vec<f64>,
    /// Feature standard deviations (1 where a feature was constant).
    pub std: Vec<f64>,
    /// Coefficients of the standardized features.
    pub weights: Vec<f64>,
    /// Intercept.
    pub bias: f64,
    /// Training samples in this bucket.
    pub samples: usize,
    /// Weighted share of template samples.
    pub positive_share: f64,
    /// Weighted accuracy on its own training samples (at 0.5).
    #[serde(default)]
    pub training_accuracy: f64,
}

impl Logistic {
    /// Probability of "template" for one feature row.
    pub fn predict(&self, row: &[f32]) -> f64 {
        let z = row
            .iter()
            .zip(&self.weights)
            .zip(self.mean.iter().zip(&self.std))
            .fold(self.bias, |z, ((x, w), (m, s))| {
                z + w * (f64::from(*x) - m) / s
            });
        sigmoid(z)
    }
}

/// Facts about how a model was trained, kept with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingInfo {
    /// Sites the labels came from.
    pub sites: Vec<String>,
    /// Pages that gave samples.
    pub pages: usize,
    /// Samples (classified nodes).
    pub samples: usize,
    /// SITELEVEL θ of the labels.
    pub theta: f64,
    /// L2 penalty.
    pub l2: f64,
    /// Free-form notes (command line, data version).
    pub notes: Vec<String>,
}

/// A bucketed templateness classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Feature names, in the order the weights use; must equal this build's.
    pub features: Vec<String>,
    /// Upper bounds of the buckets on ln(1 + HTML length) (one fewer than buckets).
    pub bucket_bounds: Vec<f64>,
    /// One regression per bucket, smallest nodes first.
    pub buckets: Vec<Logistic>,
    /// Provenance.
    pub training: TrainingInfo,
}

impl Model {
    /// The model shipped with templex.
    pub fn builtin() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| {
            // The shipped file is checked by tests; a broken one is a build defect.
            Model::from_json(BUILTIN).expect("the built-in page-level model is valid")
        })
    }

    /// Parse and validate a model.
    pub fn from_json(json: &str) -> Result<Model, ModelError> {
        let m: Model = serde_json::from_str(json)?;
        m.validate()?;
        Ok(m)
    }

    /// Serialize (pretty, stable field order).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    fn validate(&self) -> Result<(), ModelError> {
        check_features(&self.features, "model")?;
        if self.buckets.is_empty() || self.bucket_bounds.len() + 1 != self.buckets.len() {
            return Err(ModelError::Malformed("bucket count".into()));
        }
        for b in &self.buckets {
            if b.mean.len() != N_FEATURES
                || b.std.len() != N_FEATURES
                || b.weights.len() != N_FEATURES
                || b.std.iter().any(|s| !(s.is_finite() && *s > 0.0))
                || b.weights.iter().chain(&b.mean).any(|w| !w.is_finite())
                || !b.bias.is_finite()
            {
                return Err(ModelError::Malformed("bucket coefficients".into()));
            }
        }
        Ok(())
    }

    /// The bucket of a node by its subtree's HTML length.
    pub fn bucket(&self, html_len: u64) -> usize {
        let x = (1.0 + html_len as f64).ln();
        self.bucket_bounds
            .iter()
            .position(|b| x <= *b)
            .unwrap_or(self.bucket_bounds.len())
    }

    /// Templateness of one classified node.
    pub fn score(&self, fx: &NodeFeatures, id: NodeId) -> f64 {
        self.buckets[self.bucket(fx.html_len[id.index()])].predict(fx.row(id))
    }
}

/// Whether a stored model's feature names are this build's, in order.
pub(crate) fn check_features(names: &[String], what: &str) -> Result<(), ModelError> {
    if names
        .iter()
        .map(String::as_str)
        .ne(FEATURE_NAMES.iter().copied())
    {
        return Err(ModelError::Features(format!(
            "{what} has {} features, build has {}",
            names.len(),
            N_FEATURES
        )));
    }
    Ok(())
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// Labelled samples for [`train`].
#[derive(Debug, Clone, Default)]
pub struct TrainingSet {
    /// Row-major features, `N_FEATURES` per sample.
    pub rows: Vec<f32>,
    /// Template (true) or not.
    pub labels: Vec<bool>,
    /// Sample weights (e.g. so that every site counts the same).
    pub weights: Vec<f64>,
    /// HTML length of each sample's subtree (bucket choice).
    pub html_len: Vec<u64>,
}

impl TrainingSet {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Add one sample.
    pub fn push(&mut self, row: &[f32], label: bool, weight: f64, html_len: u64) {
        self.rows.extend_from_slice(&row[..N_FEATURES]);
        self.labels.push(label);
        self.weights.push(weight);
        self.html_len.push(html_len);
    }

    /// Append another set.
    pub fn extend(&mut self, other: TrainingSet) {
        self.rows.extend(other.rows);
        self.labels.extend(other.labels);
        self.weights.extend(other.weights);
        self.html_len.extend(other.html_len);
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.rows[i * N_FEATURES..(i + 1) * N_FEATURES]
    }
}

/// Settings of [`train`].
#[derive(Debug, Clone)]
pub struct TrainConfig {
    /// Number of size buckets (the paper: four).
    pub buckets: usize,
    /// L2 penalty on the standardized coefficients, relative to the total sample weight
    /// (weights are normalized to mean 1).
    pub l2: f64,
    /// Newton iterations at most.
    pub max_iter: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            buckets: 4,
            l2: 1.0,
            max_iter: 50,
        }
    }
}

/// Train one regression per size bucket; bucket bounds are the weighted quantiles of the
/// samples' sizes, so every bucket gets data.
pub fn train(
    set: &TrainingSet,
    config: &TrainConfig,
    info: TrainingInfo,
) -> Result<Model, ModelError> {
    if set.is_empty() {
        return Err(ModelError::Empty);
    }
    let k = config.buckets.max(1);
    let sizes: Vec<f64> = set
        .html_len
        .iter()
        .map(|l| (1.0 + *l as f64).ln())
        .collect();
    let mut order: Vec<usize> = (0..set.len()).collect();
    order.sort_by(|a, b| sizes[*a].total_cmp(&sizes[*b]));
    let total: f64 = set.weights.iter().sum();
    let mut bounds = Vec::new();
    let mut acc = 0.0;
    let mut next = 1;
    for &i in &order {
        acc += set.weights[i];
        if next < k && acc >= total * next as f64 / k as f64 {
            if bounds.last().is_none_or(|b| sizes[i] > *b) {
                bounds.push(sizes[i]);
            }
            next += 1;
        }
    }
    let proto = Model {
        features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
        bucket_bounds: bounds.clone(),
        buckets: Vec::new(),
        training: TrainingInfo::default(),
    };
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); bounds.len() + 1];
    for i in 0..set.len() {
        members[proto.bucket(set.html_len[i])].push(i);
    }
    let buckets = members
        .iter()
        .map(|m| fit_logistic(set, m, config))
        .collect();
    let model = Model {
        buckets,
        training: TrainingInfo {
            samples: set.len(),
            l2: config.l2,
            ..info
        },
        ..proto
    };
    model.validate()?;
    Ok(model)
}

/// Newton–Raphson (IRLS) for L2-penalized logistic regression on the samples `idx`.
fn fit_logistic(set: &TrainingSet, idx: &[usize], config: &TrainConfig) -> Logistic {
    let d = N_FEATURES;
    let wsum: f64 = idx.iter().map(|i| set.weights[*i]).sum();
    let mut mean = vec![0.0; d];
    let mut std = vec![1.0; d];
    let mut positive_share = 0.0;
    if wsum > 0.0 {
        for &i in idx {
            let w = set.weights[i] / wsum;
            for (k, m) in mean.iter_mut().enumerate() {
                *m += w * f64::from(set.row(i)[k]);
            }
            if set.labels[i] {
                positive_share += w;
            }
        }
        let mut var = vec![0.0; d];
        for &i in idx {
            let w = set.weights[i] / wsum;
            for (k, v) in var.iter_mut().enumerate() {
                let x = f64::from(set.row(i)[k]) - mean[k];
                *v += w * x * x;
            }
        }
        for k in 0..d {
            std[k] = if var[k] > 1e-12 { var[k].sqrt() } else { 1.0 };
        }
    }
    // Weights normalized to mean 1 so that `l2` means the same for every bucket size.
    let scale = if wsum > 0.0 {
        idx.len() as f64 / wsum
    } else {
        0.0
    };
    let mut beta = vec![0.0; d + 1]; // last = bias
    let p0 = positive_share.clamp(1e-6, 1.0 - 1e-6);
    beta[d] = (p0 / (1.0 - p0)).ln();
    let mut x = vec![0.0; d + 1];
    for _ in 0..config.max_iter {
        let mut h = vec![0.0; (d + 1) * (d + 1)];
        let mut g = vec![0.0; d + 1];
        for &i in idx {
            for k in 0..d {
                x[k] = (f64::from(set.row(i)[k]) - mean[k]) / std[k];
            }
            x[d] = 1.0;
            let z: f64 = x.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let p = sigmoid(z);
            let sw = set.weights[i] * scale;
            let y = if set.labels[i] { 1.0 } else { 0.0 };
            let r = sw * (p - y);
            let c = sw * (p * (1.0 - p)).max(1e-9);
            for a in 0..=d {
                g[a] += r * x[a];
                let row = &mut h[a * (d + 1)..(a + 1) * (d + 1)];
                for b in 0..=a {
                    row[b] += c * x[a] * x[b];
                }
            }
        }
        for a in 0..=d {
            for b in 0..a {
                h[b * (d + 1) + a] = h[a * (d + 1) + b];
            }
        }
        for a in 0..d {
            g[a] += config.l2 * beta[a];
            h[a * (d + 1) + a] += config.l2;
        }
        h[d * (d + 1) + d] += 1e-9;
        let Some(step) = cholesky_solve(&h, &g, d + 1) else {
            break;
        };
        let mut change: f64 = 0.0;
        for a in 0..=d {
            beta[a] -= step[a];
            change = change.max(step[a].abs());
        }
        if change < 1e-7 {
            break;
        }
    }
    let mut fitted = Logistic {
        mean,
        std,
        weights: beta[..d].to_vec(),
        bias: beta[d],
        samples: idx.len(),
        positive_share,
        training_accuracy: 0.0,
    };
    if wsum > 0.0 {
        fitted.training_accuracy = idx
            .iter()
            .filter(|i| (fitted.predict(set.row(**i)) >= 0.5) == set.labels[**i])
            .map(|i| set.weights[*i])
            .sum::<f64>()
            / wsum;
    }
    fitted
}

/// Solve `A x = b` for a symmetric positive definite `A` (row-major `n × n`).
fn cholesky_solve(a: &[f64], b: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * n + k] * y[k];
        }
        y[i] = s / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = y[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn synthetic(n: usize) -> TrainingSet {
        let mut set = TrainingSet::default();
        let mut state = 12345u64;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as f64) / (1u64 << 31) as f64
        };
        for i in 0..n {
            let mut row = vec![0f32; N_FEATURES];
            for v in row.iter_mut() {
                *v = rnd() as f32;
            }
            // Template iff feature 2 (anchor text share) is high, with noise.
            let label = row[2] + 0.1 * (rnd() as f32 - 0.5) > 0.5;
            set.push(&row, label, 1.0, (i % 1000) as u64 * 10);
        }
        set
    }

    #[test]
    fn learns_a_separable_rule_and_round_trips() {
        let set = synthetic(4000);
        let m = train(&set, &TrainConfig::default(), TrainingInfo::default()).unwrap();
        assert_eq!(m.buckets.len(), 4);
        let mut correct = 0;
        for i in 0..set.len() {
            let p = m.buckets[m.bucket(set.html_len[i])].predict(set.row(i));
            if (p >= 0.5) == set.labels[i] {
                correct += 1;
            }
        }
        assert!(correct as f64 / set.len() as f64 > 0.9, "{correct}");
        let back = Model::from_json(&m.to_json()).unwrap();
        assert_eq!(back.buckets.len(), m.buckets.len());
        assert!(Model::from_json("{}").is_err());
    }

    #[test]
    fn empty_set_is_an_error() {
        assert!(matches!(
            train(
                &TrainingSet::default(),
                &TrainConfig::default(),
                TrainingInfo::default()
            ),
            Err(ModelError::Empty)
        ));
    }

    #[test]
    fn builtin_model_loads() {
        let m = Model::builtin();
        assert_eq!(m.features.len(), N_FEATURES);
        assert!(!m.training.sites.is_empty());
    }

    #[test]
    fn cholesky() {
        let a = [4.0, 2.0, 2.0, 3.0];
        let x = cholesky_solve(&a, &[2.0, 1.0], 2).unwrap();
        assert!((4.0 * x[0] + 2.0 * x[1] - 2.0).abs() < 1e-12);
        assert!((2.0 * x[0] + 3.0 * x[1] - 1.0).abs() < 1e-12);
        assert!(cholesky_solve(&[0.0], &[1.0], 1).is_none());
    }
}
