//! HybEx at crawl scale: a cluster's pool of reference pages, each page mapped onto the pool
//! pages least like it that pass the template guard, with the cluster's SITELEVEL model for
//! pages no reference maps.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::mapped::Guard;
use super::protect::protect_main_content;
use super::vote::vote;
use crate::cluster::Fingerprint;
use crate::dom::{Document, parse_bytes_lean};
use crate::mapping::{MapIndex, Mapping};
use crate::stable_hash::hash_bytes;
use crate::template::TemplateConfig;
use crate::template::sitelevel::SiteLevelModel;

/// A page kept as a reference of its template cluster: pages of the cluster are mapped
/// against it (TemEx/HybEx without the search).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferencePage {
    /// Its URL, when known.
    pub url: Option<String>,
    /// Its undecoded body.
    #[serde(skip)]
    pub body: Vec<u8>,
    /// Its transport charset.
    pub charset: Option<String>,
}

/// A page a model is applied to.
#[derive(Debug, Clone, Copy)]
pub struct ModelPage<'a> {
    /// The parsed page.
    pub doc: &'a Document,
    /// Its template fingerprint (HybEx prefers references least like it).
    pub print: &'a Fingerprint,
    /// Its undecoded body (HybEx never maps a page onto itself).
    pub body: &'a [u8],
}

/// HybEx's learned template: a pool of the cluster's pages (each page is mapped onto the pool
/// pages least like it that pass the template guard, as HybEx's menu siblings are pages of
/// other types), with the cluster's SITELEVEL model for pages no reference maps. The pool is
/// parsed once, when the model is made.
#[derive(Debug, Clone)]
pub struct HybExModel {
    references: Vec<ReferencePage>,
    sitelevel: SiteLevelModel,
    /// The references parsed (as batch parses pages for HybEx), their fingerprints, and the
    /// hashes of their bodies: a page never votes on itself.
    docs: Vec<Document>,
    prints: Vec<Fingerprint>,
    bodies: Vec<u64>,
}

impl PartialEq for HybExModel {
    /// Models are equal when they were learned alike (the parses follow from the pages).
    fn eq(&self, other: &Self) -> bool {
        self.references == other.references && self.sitelevel == other.sitelevel
    }
}

/// HybEx's settings for mapping pages onto references: CS size 3, 2 votes.
static HYBEX: LazyLock<TemplateConfig> = LazyLock::new(TemplateConfig::hybex);

impl HybExModel {
    /// The model of a reference pool and the SITELEVEL model of the same sample.
    pub fn new(references: Vec<ReferencePage>, sitelevel: SiteLevelModel) -> Self {
        let docs: Vec<Document> = references
            .iter()
            .map(|r| parse_bytes_lean(&r.body, r.charset.as_deref()))
            .collect();
        HybExModel {
            prints: docs.iter().map(Fingerprint::of).collect(),
            bodies: references.iter().map(|r| hash_bytes(&r.body)).collect(),
            docs,
            references,
            sitelevel,
        }
    }

    /// The reference pool.
    pub fn references(&self) -> &[ReferencePage] {
        &self.references
    }

    /// SITELEVEL over the sample the pool came from.
    pub fn sitelevel(&self) -> &SiteLevelModel {
        &self.sitelevel
    }

    /// Mapping indexes of the references, built once for many pages.
    pub(crate) fn index(&self) -> Vec<MapIndex<'_>> {
        self.docs.iter().map(MapIndex::new).collect()
    }

    /// The page's template: mapped onto the references least like it that pass the guard
    /// (never onto itself), voted as HybEx does; when no reference passes, the SITELEVEL
    /// model with HybEx's page-level step. `references` are [`Self::index`]'s.
    pub(crate) fn template_mask(
        &self,
        references: &[MapIndex<'_>],
        page: &ModelPage<'_>,
    ) -> Vec<bool> {
        // Like the CS of HybEx (menu pages: other page types of the same layout), the
        // references are the pool's pages least like this one that still pass the template
        // guard: pages of its own type would share its type's content ("Add to cart",
        // "Reviews") and vote it template. Never itself.
        let own = hash_bytes(page.body);
        let mut order: Vec<(f64, usize)> = self
            .prints
            .iter()
            .enumerate()
            .filter(|(i, _)| self.bodies[*i] != own)
            .map(|(i, p)| (p.jaccard(page.print), i))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let config = &*HYBEX;
        let index = MapIndex::new(page.doc);
        let guard = Guard::new(&index, config);
        let mappings: Vec<Mapping> = order
            .iter()
            .filter_map(|(_, i)| guard.check(&references[*i]).map(|c| c.mapping))
            .take(config.search.size.max(1))
            .collect();
        if mappings.is_empty() {
            // No reference shares enough structure: the cluster's SITELEVEL model.
            let mut mask = self.sitelevel.template_mask(page.doc);
            protect_main_content(page.doc, &mut mask);
            return mask;
        }
        let refs: Vec<&Mapping> = mappings.iter().collect();
        vote(&index, &refs, config, None).0
    }
}
