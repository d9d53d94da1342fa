//! HybEx's page-level step: the main content the page-level detector finds is taken out of
//! the template, within what the compared pages and the detector's finer views agree on.

use crate::dom::tags::is_code;
use crate::dom::{Document, NodeId, deadline};
#[cfg(feature = "batch")]
use crate::extract::{ContentConfig, content_root};
use crate::mapping::{MapIndex, Mapping};

/// What [`protect_main_content`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protection {
    /// The page-level main content was taken out of the template.
    Applied,
    /// The detector's region holds most of the template (a wrapper, the body): left alone.
    Implausible,
    /// The page has no text to detect content in.
    NoContent,
}

/// HybEx's page-level step: the main content the page-level detector finds is never
/// template — unless that region holds most of what the site-level method calls template,
/// in which case the page-level guess is the implausible one and nothing changes.
#[cfg(feature = "batch")]
pub(crate) fn protect_main_content(doc: &Document, template: &mut [bool]) -> Protection {
    protect_content_root(doc, content_root(doc, &ContentConfig::default()), template)
}

/// [`protect_main_content`] with the page-level content root already found.
pub(super) fn protect_content_root(
    doc: &Document,
    root: Option<NodeId>,
    template: &mut [bool],
) -> Protection {
    let Some(root) = root else {
        return Protection::NoContent;
    };
    // Counted in elements (the scoring unit), scripts and styles left out: they show
    // nothing, and page builders put many inside the content region.
    let at = |i: u32| {
        template.get(i as usize).copied().unwrap_or(false)
            && doc.tag(NodeId(i)).is_some_and(|t| !is_code(t))
    };
    let tpl_total = (0..template.len() as u32).filter(|i| at(*i)).count();
    let tpl_inside = doc.subtree(root).filter(|i| at(*i)).count();
    if tpl_inside * 2 > tpl_total {
        return Protection::Implausible;
    }
    for i in doc.subtree(root) {
        if deadline::due(i as usize) {
            break;
        }
        if let Some(t) = template.get_mut(i as usize) {
            *t = false;
        }
    }
    Protection::Applied
}

/// Which nodes of HybEx's region `root` stay out of the template whatever the vote says
/// (`voted`: the vote with the region's text as evidence). The region is the page-level
/// container, coarser than the content: a forum's `#page-body` holds the thread and, after
/// it, the board's jump box. The page-level step has two finer views of the region, and a
/// node stays protected only when both call it content:
/// * the container's keep mask (`keep`): a top-level part of the region that holds nothing
///   the container keeps (a link cluster, a form, a boilerplate-named block its pruning
///   dropped whole) is not the page's content — unless it holds text of the page's own
///   (`own`: text no compared page has at its place, such as the page count of a listing's
///   pagination). Parts inside a kept part (a post's byline and tags inside its article)
///   belong to it and stay protected;
/// * the per-node page-level detector, PAGELEVEL (`chrome`, asked for only when the vote
///   calls some protected node template): a node it calls chrome is not protected.
///
/// What is not protected is template only when the vote says so: the site and the page
/// must both call a node of the region template.
pub(super) fn protected_in_region<'c>(
    doc: &Document,
    root: NodeId,
    keep: &[bool],
    own: impl Fn(NodeId) -> bool,
    voted: &[bool],
    chrome: impl FnOnce() -> &'c [bool],
) -> Vec<bool> {
    let kept = |i: usize| keep.get(i).copied().unwrap_or(false);
    // Reverse document order meets children before their parents.
    let mut holds = vec![false; doc.len()];
    for id in doc.subtree(root).rev().map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        let i = id.index();
        holds[i] |= kept(i) || own(id);
        if holds[i] && id != root {
            if let Some(p) = doc.parent(id) {
                holds[p.index()] = true;
            }
        }
    }
    // Document order: a node's top-level part is its parent's, or itself below the root.
    let mut protected = vec![false; doc.len()];
    for id in doc.subtree(root).map(NodeId) {
        if deadline::due(id.index()) {
            break;
        }
        protected[id.index()] = match doc.parent(id) {
            _ if id == root => true,
            Some(p) if p == root => holds[id.index()],
            Some(p) => protected[p.index()],
            None => true,
        };
    }
    let voted_inside = doc
        .subtree(root)
        .any(|i| protected[i as usize] && voted.get(i as usize).copied().unwrap_or(false));
    if voted_inside {
        let chrome = chrome();
        for i in doc.subtree(root) {
            if deadline::due(i as usize) {
                break;
            }
            let i = i as usize;
            protected[i] &= !chrome.get(i).copied().unwrap_or(false);
        }
    }
    protected
}

/// HybEx's region narrowed to the content slot the compared pages agree on: the node
/// strictly inside `root` that their own page-level regions (`theirs(j)`, of the target of
/// `mappings[j]`) map to. A page whose region maps outside `root` (its detector chose
/// something else) abstains; one that maps to `root` itself, or to another node, keeps
/// `root`; so does no page at all. `theirs` is asked page by page, and no more once the
/// answer is `root`: finding a page's region costs a page-level pass over it.
pub(super) fn narrow_region(
    doc: &Document,
    root: NodeId,
    mappings: &[&Mapping],
    mut theirs: impl FnMut(usize) -> Option<NodeId>,
) -> NodeId {
    let mut agreed: Option<NodeId> = None;
    for (j, m) in mappings.iter().enumerate() {
        let Some(theirs) = theirs(j) else {
            continue;
        };
        let Some(k) = doc
            .subtree(root)
            .map(NodeId)
            .find(|k| m.partner.get(k.index()).copied().flatten() == Some(theirs))
        else {
            continue;
        };
        if k == root || agreed.is_some_and(|a| a != k) {
            return root;
        }
        agreed = Some(k);
    }
    agreed.unwrap_or(root)
}

/// Whether every text under `root` (code aside) is mapped in every page compared, and there
/// is some: a region with no text of its own is not the page's main content.
pub(super) fn all_text_everywhere(
    index: &MapIndex<'_>,
    mappings: &[&Mapping],
    root: NodeId,
) -> bool {
    let mut texts = index
        .doc
        .subtree(root)
        .map(NodeId)
        .filter(|id| index.is_shown_text(*id));
    let mut any = false;
    let all = texts.all(|id| {
        any = true;
        mappings.iter().all(|m| m.is_mapped(id))
    });
    any && all
}
