//! TemEx's and HybEx's settings of the mapping and the vote.

use crate::mapping::Equality;

use super::TemplateRule;

/// How TemEx and HybEx map the key page onto its siblings and vote on its template
/// ([`TemplateConfig::mapping`](crate::TemplateConfig::mapping)). Their settings differ only
/// here: [`MappingConfig::temex`], [`MappingConfig::hybex`] (the default).
#[derive(Debug, Clone, PartialEq)]
pub struct MappingConfig {
    /// When a sibling's node maps onto the key page's: the weighted similarity (0.6 by
    /// default) tolerates what a template changes from page to page (the current menu
    /// item's class, a list's length), which the same tag, id and classes do not.
    pub equality: Equality,
    /// A node is mapped when at least this many siblings map it; `None`: all of them
    /// (TemEx). Fewer votes keep template parts that one sibling lacks, at the risk of
    /// content that siblings happen to share. Clamped to the number of siblings.
    pub votes: Option<usize>,
    /// A content container with the same tag and classes on every page maps, yet holds
    /// different text on each: by default a mapped node needs mapped text too.
    pub rule: TemplateRule,
    /// A sibling is used only when this share of its and the key page's `<body>` elements
    /// map (Dice coefficient) or their layouts are alike: pages of another template under
    /// the same host, or redirect stubs, would empty the template. 0 lets every sibling in.
    pub guard: f64,
    /// A node one vote short of the threshold is template when PAGELEVEL says so: the
    /// page-level detector breaks ties (BENCHMARKS.md: better for TemEx, neutral for HybEx,
    /// whose page-level step already relaxes the vote).
    pub prior: bool,
    /// With no sibling sharing the key page's template, PAGELEVEL finds the template rather
    /// than leaving it empty.
    pub fallback: bool,
}

impl MappingConfig {
    /// TemEx as the papers describe it (with templex's refinements): a node is template when
    /// every sibling maps it.
    pub fn temex() -> Self {
        MappingConfig {
            equality: Equality::weighted(0.6),
            votes: None,
            rule: TemplateRule::default(),
            guard: 0.2,
            // Measured: +0.02 template and content F1 for TemEx, leave-one-site-out too
            // (BENCHMARKS.md); neutral for HybEx, whose page-level step already relaxes votes.
            prior: true,
            fallback: true,
        }
    }

    /// HybEx: 2 votes as published, no page-level prior. The paper's node-similarity
    /// threshold (0.9) belongs to its own similarity measure; with templex's weighted
    /// similarity 0.9 refuses nearly every sibling (BENCHMARKS.md), so the TemEx threshold
    /// is kept.
    pub fn hybex() -> Self {
        MappingConfig {
            votes: Some(2),
            prior: false,
            ..MappingConfig::temex()
        }
    }
}

impl Default for MappingConfig {
    /// HybEx's ([`MappingConfig::hybex`]), as [`TemplateConfig`](crate::TemplateConfig)'s
    /// default method is HybEx.
    fn default() -> Self {
        MappingConfig::hybex()
    }
}
