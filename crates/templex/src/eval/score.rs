//! Per-page scores: precision, recall and F1 of the template and the content class over the
//! body elements of a key page.

use serde::{Deserialize, Serialize};

use crate::dom::Document;

/// Precision, recall and F1 of one class, with the counts they come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Prf {
    /// |pred ∩ gold| / |pred|, 0 when nothing is predicted.
    pub precision: f64,
    /// |pred ∩ gold| / |gold|, 0 when the gold class is empty.
    pub recall: f64,
    /// 2PR / (P + R), 0 when P + R = 0.
    pub f1: f64,
    /// Predicted and gold.
    pub tp: usize,
    /// Predicted, not gold.
    pub fp: usize,
    /// Gold, not predicted.
    #[serde(rename = "fn")]
    pub fn_: usize,
}

impl Prf {
    /// Scores from counts. Every undefined ratio is 0, as the gold standard's README
    /// prescribes; in particular an empty prediction scores 0 even against an empty gold
    /// class, so a detector cannot win by predicting nothing.
    pub fn from_counts(tp: usize, fp: usize, fn_: usize) -> Prf {
        let ratio = |num: usize, den: usize| {
            if den == 0 {
                0.0
            } else {
                num as f64 / den as f64
            }
        };
        let precision = ratio(tp, tp + fp);
        let recall = ratio(tp, tp + fn_);
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Prf {
            precision,
            recall,
            f1,
            tp,
            fp,
            fn_,
        }
    }
}

/// The scores of one key page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PageScore {
    /// Template class: predicted = body elements marked template; gold = body elements
    /// outside the gold content.
    pub template: Prf,
    /// Content class: predicted = body elements not marked template; gold = gold content.
    pub content: Prf,
    /// Element descendants of `<body>` (the scoring unit).
    pub body_elements: usize,
    /// Body elements that are gold template.
    pub gold_template: usize,
    /// Body elements predicted template.
    pub predicted_template: usize,
    /// Template class measured on visible text words instead of elements (the page-level
    /// paper's "Text" measure): a word is predicted template when its element is.
    #[serde(default)]
    pub template_words: Prf,
    /// Template class measured on links (`<a href>` elements; the paper's "Links").
    #[serde(default)]
    pub template_links: Prf,
}

/// Score a prediction against the gold standard on one page.
///
/// Both slices are indexed by node id of `doc`; missing entries count as `false` (a short
/// template vector predicts "content" for the rest). Only element descendants of `<body>`
/// (not `body` itself) are scored; a page without body scores all zeros.
pub fn score(doc: &Document, predicted_template: &[bool], gold_content: &[bool]) -> PageScore {
    let at = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    let (mut t_tp, mut t_fp, mut t_fn) = (0, 0, 0);
    let (mut c_tp, mut c_fp, mut c_fn) = (0, 0, 0);
    let mut body_elements = 0;
    let mut gold_template = 0;
    let mut n_predicted = 0;
    if let Some(body) = doc.body() {
        for id in doc.descendants(body) {
            if doc.element(id).is_none() {
                continue;
            }
            body_elements += 1;
            let pred_t = at(predicted_template, id.index());
            let gold_t = !at(gold_content, id.index());
            gold_template += usize::from(gold_t);
            n_predicted += usize::from(pred_t);
            match (pred_t, gold_t) {
                (true, true) => {
                    t_tp += 1;
                }
                (true, false) => {
                    t_fp += 1;
                    c_fn += 1;
                }
                (false, true) => {
                    t_fn += 1;
                    c_fp += 1;
                }
                (false, false) => {
                    c_tp += 1;
                }
            }
        }
    }
    let (template_words, template_links) = words_and_links(doc, predicted_template, gold_content);
    PageScore {
        template: Prf::from_counts(t_tp, t_fp, t_fn),
        content: Prf::from_counts(c_tp, c_fp, c_fn),
        body_elements,
        gold_template,
        predicted_template: n_predicted,
        template_words,
        template_links,
    }
}

/// Template-class scores over the body's visible words and its links.
fn words_and_links(doc: &Document, predicted: &[bool], gold_content: &[bool]) -> (Prf, Prf) {
    use markup5ever::local_name;
    let at = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    let mut words = [0usize; 3]; // tp, fp, fn
    let mut links = [0usize; 3];
    let tally = |c: &mut [usize; 3], pred: bool, gold: bool, n: usize| match (pred, gold) {
        (true, true) => c[0] += n,
        (true, false) => c[1] += n,
        (false, true) => c[2] += n,
        _ => {}
    };
    let Some(body) = doc.body() else {
        return (Prf::default(), Prf::default());
    };
    for id in doc.visible_descendants(body) {
        if let Some(e) = doc.element(id) {
            if e.is(&local_name!("a")) && e.attr("href").is_some() {
                tally(
                    &mut links,
                    at(predicted, id.index()),
                    !at(gold_content, id.index()),
                    1,
                );
            }
        } else if let Some(t) = doc.text(id) {
            let n = t.split_whitespace().count();
            if n > 0 {
                // Text follows its element: elements are what every detector marks.
                let owner = doc.parent(id).unwrap_or(id);
                tally(
                    &mut words,
                    at(predicted, owner.index()),
                    !at(gold_content, owner.index()),
                    n,
                );
            }
        }
    }
    (
        Prf::from_counts(words[0], words[1], words[2]),
        Prf::from_counts(links[0], links[1], links[2]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;
    use crate::eval_impl::gold_content;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn prf_from_counts() {
        let p = Prf::from_counts(3, 1, 2);
        assert!(close(p.precision, 0.75));
        assert!(close(p.recall, 0.6));
        assert!(close(p.f1, 2.0 * 0.75 * 0.6 / 1.35));
        // Undefined ratios are 0.
        let empty_pred = Prf::from_counts(0, 0, 5);
        assert_eq!(
            (empty_pred.precision, empty_pred.recall, empty_pred.f1),
            (0.0, 0.0, 0.0)
        );
        let empty_gold = Prf::from_counts(0, 4, 0);
        assert_eq!(
            (empty_gold.precision, empty_gold.recall, empty_gold.f1),
            (0.0, 0.0, 0.0)
        );
        let nothing = Prf::from_counts(0, 0, 0);
        assert_eq!(nothing.f1, 0.0);
        let perfect = Prf::from_counts(2, 0, 0);
        assert_eq!(
            (perfect.precision, perfect.recall, perfect.f1),
            (1.0, 1.0, 1.0)
        );
    }

    /// body > header(nav(a)), main#c(h1, p(b)), footer: 8 body elements, 4 content.
    const PAGE: &str = "<html><head><title>t</title></head><body><header><nav><a>m</a></nav></header>\
        <main id=c><h1>T</h1><p>x<b>y</b></p></main><footer>f</footer></body></html>";

    #[test]
    fn all_template_and_perfect() {
        let doc = parse_str(PAGE);
        let gold = gold_content(&doc, &["#c"]).unwrap();
        let all = vec![true; doc.len()];
        let s = score(&doc, &all, &gold);
        assert_eq!(s.body_elements, 8);
        assert_eq!(s.gold_template, 4);
        assert_eq!(s.predicted_template, 8);
        assert!(close(s.template.precision, 0.5));
        assert!(close(s.template.recall, 1.0));
        assert!(close(s.template.f1, 2.0 / 3.0));
        assert_eq!(s.content, Prf::from_counts(0, 0, 4));
        assert_eq!(s.content.f1, 0.0);

        // Marking exactly the gold template is perfect for both classes, whatever is
        // marked outside body (html, head, body itself are not scored).
        let perfect: Vec<bool> = gold.iter().map(|c| !c).collect();
        let s = score(&doc, &perfect, &gold);
        assert_eq!((s.template.f1, s.content.f1), (1.0, 1.0));
        assert_eq!((s.template.tp, s.content.tp), (4, 4));
    }

    #[test]
    fn partial_prediction() {
        let doc = parse_str(PAGE);
        let gold = gold_content(&doc, &["#c"]).unwrap();
        // Predict header, nav and h1 as template; a short vector ends before the footer.
        let mut pred = vec![false; doc.len()];
        for css in ["header", "nav", "h1"] {
            for id in crate::dom::select(&doc, css).unwrap() {
                pred[id.index()] = true;
            }
        }
        let footer = crate::dom::select(&doc, "footer").unwrap()[0];
        pred.truncate(footer.index());
        let s = score(&doc, &pred, &gold);
        assert_eq!(s.template, Prf::from_counts(2, 1, 2));
        assert_eq!(s.content, Prf::from_counts(3, 2, 1));
        assert_eq!(s.predicted_template, 3);
    }

    #[test]
    fn no_body_scores_zero() {
        let doc = parse_str("<frameset><frame src=a></frameset>");
        let s = score(&doc, &vec![true; doc.len()], &vec![false; doc.len()]);
        // The frameset counts as body; its frame is the only scored element.
        assert_eq!(s.body_elements, 1);
        let empty = score(&doc, &[], &[]);
        assert_eq!(empty.template.f1, 0.0);
    }
}
