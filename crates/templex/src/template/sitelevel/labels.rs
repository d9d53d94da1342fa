//! Training data from whole sites: SITELEVEL labels the nodes of sampled pages of a mirror,
//! and the labelled nodes' features become samples for the page-level classifier
//! ([`crate::pagelevel`], the paper's §5.1).

use std::path::Path;

use url::Url;

use super::{SiteLevel, SiteLevelConfig, node_hashes};
use crate::cluster::{ClusterConfig, Fingerprint, cluster};
use crate::dom::{Document, parse_bytes};
use crate::pagelevel::{TrainingSet, node_features};
use crate::source::{LoadError, MirrorSource};
use crate::stable_hash::sample_indices;

/// How pages of a site are sampled for SITELEVEL and for samples.
#[derive(Debug, Clone)]
pub struct SiteTrainConfig {
    /// SITELEVEL settings of the labels.
    pub sitelevel: SiteLevelConfig,
    /// Pages hashed for the document frequencies (the paper: at most 200 random pages).
    pub label_pages: usize,
    /// Pages (out of those) whose nodes become samples.
    pub sample_pages: usize,
    /// Seed of the page samples.
    pub seed: u64,
}

impl Default for SiteTrainConfig {
    fn default() -> Self {
        SiteTrainConfig {
            // Labels want the template's recall more than the method does: the classifier
            // learns what templates look like, and 0.3 does best leave-one-site-out.
            sitelevel: SiteLevelConfig {
                theta: 0.3,
                ..SiteLevelConfig::default()
            },
            label_pages: 200,
            sample_pages: 40,
            seed: 1,
        }
    }
}

/// The samples of one site.
#[derive(Debug, Clone)]
pub struct SiteSamples {
    /// Site name.
    pub site: String,
    /// The samples; their weights sum to 1, so that every site counts the same.
    pub set: TrainingSet,
    /// Pages hashed.
    pub label_pages: usize,
    /// Pages that gave samples.
    pub sample_pages: usize,
    /// Pages per template cluster of the hashed sample.
    pub clusters: Vec<usize>,
    /// Weighted share of template samples.
    pub template_share: f64,
    /// Files that could not be read.
    pub unreadable: Vec<String>,
}

/// A page of a mirror, parsed.
pub(crate) struct MirrorPage {
    /// Its URL in the mirror.
    pub url: Option<Url>,
    /// The parsed page.
    pub doc: Document,
}

fn read_page(source: &MirrorSource, path: &Path) -> Result<MirrorPage, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| LoadError::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    Ok(MirrorPage {
        url: source.url_for_path(path),
        doc: parse_bytes(&bytes, None),
    })
}

/// Settings for template clusters in training.
pub(crate) const MIN_CLUSTER_PAGES: usize = 5;

/// Label a site's sampled pages with SITELEVEL — run separately on each template cluster of
/// the sample, so that a forum beside a static site labels both — and turn their classified
/// nodes into samples. Pages in clusters too small for document frequencies to mean anything
/// give no samples.
pub fn site_samples(site: &str, source: &MirrorSource, config: &SiteTrainConfig) -> SiteSamples {
    let files = source.html_files();
    let picked = sample_indices(files.len(), config.label_pages, config.seed);
    let stride = picked.len().div_ceil(config.sample_pages.max(1)).max(1);
    let mut hashes = Vec::new();
    let mut prints = Vec::new();
    let mut kept: Vec<(usize, MirrorPage)> = Vec::new();
    let mut unreadable = Vec::new();
    for (k, i) in picked.into_iter().enumerate() {
        match read_page(source, &files[i]) {
            Ok(page) => {
                hashes.push(node_hashes(&page.doc));
                prints.push(Fingerprint::of(&page.doc));
                if k % stride == 0 {
                    kept.push((hashes.len() - 1, page));
                }
            }
            Err(e) => unreadable.push(e.to_string()),
        }
    }
    let clusters = cluster(&prints, ClusterConfig::default());
    let n_clusters = clusters.iter().max().map_or(0, |m| m + 1);
    let mut freq = vec![SiteLevel::new(); n_clusters];
    for (h, c) in hashes.iter().zip(&clusters) {
        freq[*c].add_hashes(h);
    }
    let usable: Vec<&(usize, MirrorPage)> = kept
        .iter()
        .filter(|(k, _)| freq[clusters[*k]].pages() >= MIN_CLUSTER_PAGES)
        .collect();
    let mut set = TrainingSet::default();
    let mut positive = 0.0;
    let mut total = 0.0;
    let sample_pages = usable.len();
    for (k, page) in &usable {
        let labels = freq[clusters[*k]].template_mask(&page.doc, &config.sitelevel);
        let fx = node_features(&page.doc, page.url.as_ref());
        let nodes: Vec<usize> = (0..page.doc.len()).filter(|i| fx.classified[*i]).collect();
        if nodes.is_empty() {
            continue;
        }
        let w = 1.0 / (nodes.len() as f64 * sample_pages as f64);
        for i in nodes {
            let id = crate::dom::NodeId(i as u32);
            set.push(fx.row(id), labels[i], w, fx.html_len[i]);
            total += w;
            if labels[i] {
                positive += w;
            }
        }
    }
    SiteSamples {
        site: site.to_string(),
        set,
        label_pages: hashes.len(),
        sample_pages,
        clusters: freq.iter().map(SiteLevel::pages).collect(),
        template_share: if total > 0.0 { positive / total } else { 0.0 },
        unreadable,
    }
}
