//! The part of a subtree that a reader sees: the one walk behind every visible text.

use super::tags::is_invisible;
use markup5ever::local_name;

use super::{Document, LocalName, NodeData, NodeId};

/// The nodes of a subtree in document order without the subtrees of hidden elements
/// ([`is_invisible`], or the set given to [`Visible::hiding`]); a caller leaves out more with
/// [`Visible::skip_subtree`]. A loop over ids: no recursion, no stack.
#[derive(Debug, Clone)]
pub struct Visible<'d, H> {
    doc: &'d Document,
    next: u32,
    end: u32,
    /// A type parameter rather than a function pointer: the walk runs over every node of a
    /// page, and the tag set is inlined into it.
    hidden: H,
}

impl<'d, H: Fn(&LocalName) -> bool> Visible<'d, H> {
    /// The same walk, hiding the subtrees of the elements `hidden` accepts instead.
    pub fn hiding<G: Fn(&LocalName) -> bool>(self, hidden: G) -> Visible<'d, G> {
        Visible {
            doc: self.doc,
            next: self.next,
            end: self.end,
            hidden,
        }
    }

    /// Leave out what is left of `id`'s subtree (`id` is usually the node just returned).
    pub fn skip_subtree(&mut self, id: NodeId) {
        self.next = self.next.max(self.doc.node(id).end.0);
    }
}

impl<H: Fn(&LocalName) -> bool> Iterator for Visible<'_, H> {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        while self.next < self.end {
            let id = NodeId(self.next);
            let node = self.doc.node(id);
            if let NodeData::Element(e) = &node.data {
                if (self.hidden)(&e.name.local)
                    && !(self.doc.noscript_shown && e.name.local == local_name!("noscript"))
                {
                    self.next = node.end.0;
                    continue;
                }
            }
            self.next += 1;
            return Some(id);
        }
        None
    }
}

impl Document {
    /// `root` and its descendants that a reader sees, in document order: the subtrees of
    /// invisible elements (`script`, `style`, … `is_invisible`) left out, `root`'s too.
    pub fn visible(&self, root: NodeId) -> Visible<'_, impl Fn(&LocalName) -> bool + use<>> {
        let range = self.subtree(root);
        Visible {
            doc: self,
            next: range.start,
            end: range.end,
            hidden: is_invisible,
        }
    }

    /// The descendants of `root` that a reader sees, in document order: [`Document::visible`]
    /// without `root` (even when `root` itself is invisible).
    pub fn visible_descendants(
        &self,
        root: NodeId,
    ) -> Visible<'_, impl Fn(&LocalName) -> bool + use<>> {
        let mut walk = self.visible(root);
        walk.next = root.0 + 1;
        walk
    }

    /// The text of `root`'s subtree that a reader sees, as it stands (not whitespace-collapsed):
    /// scripts, styles and other invisible elements left out, so a full and a lean parse give
    /// the same answer.
    pub fn visible_text(&self, root: NodeId) -> String {
        let mut out = String::new();
        for id in self.visible(root) {
            if let Some(t) = self.text(id) {
                out.push_str(t);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::dom::{NodeId, parse_str, tags::is_unrendered};

    #[test]
    fn invisible_subtrees_are_left_out() {
        let doc = parse_str(
            "<body><p>a<script>s</script>b</p><textarea>t</textarea><noscript><p>n</p></noscript>\
             <ruby>漢<rt>kan</rt></ruby></body>",
        );
        let body = doc.body().unwrap();
        assert_eq!(doc.visible_text(body), "ab漢");
        assert_eq!(doc.visible(body).next(), Some(body));
        assert!(doc.visible_descendants(body).all(|id| id != body));
        // The template text's narrower set keeps form controls and ruby annotations.
        let text: String = doc
            .visible(body)
            .hiding(is_unrendered)
            .filter_map(|id| doc.text(id))
            .collect();
        assert_eq!(text, "abt漢kan");
    }

    #[test]
    fn skipped_subtrees_are_left_out() {
        let doc = parse_str("<body><div>a<b>b</b></div><p>c</p></body>");
        let body = doc.body().unwrap();
        let mut walk = doc.visible(body);
        let mut text = String::new();
        while let Some(id) = walk.next() {
            if doc.element(id).is_some_and(|e| &*e.name.local == "div") {
                walk.skip_subtree(id);
            }
            text.extend(doc.text(id));
        }
        assert_eq!(text, "c");
        // An invisible root hides itself only from the walk that includes it.
        let doc = parse_str("<body><svg><text>x</text></svg></body>");
        let svg = doc
            .body()
            .and_then(|b| doc.element_children(b).next())
            .unwrap();
        assert_eq!(doc.visible(svg).count(), 0);
        assert_eq!(doc.visible_descendants(svg).count(), 2);
        assert_eq!(doc.visible(NodeId::ROOT).next(), Some(NodeId::ROOT));
    }
}
