//! Development aid: where does the site-level method go wrong on one gold key page?
//!
//! `cargo run --release -p templex --example explain -- GOLD.json PAGE [DATA_DIR]` prints the
//! CS, then the roots of the misclassified subtrees (gold template predicted as content,
//! and the reverse) with their element counts.

use std::path::PathBuf;

use templex::eval::{GoldSite, gold_content};
use templex::{NodeId, TemplateConfig, extract_template};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let gold_file = PathBuf::from(args.get(1).ok_or("usage: explain GOLD.json PAGE [DATA]")?);
    let page = args.get(2).ok_or("usage: explain GOLD.json PAGE [DATA]")?;
    let data = args.get(3).map(PathBuf::from).unwrap_or_else(|| {
        gold_file
            .parent()
            .and_then(|p| p.parent())
            .map(PathBuf::from)
            .unwrap_or_default()
    });
    let site: GoldSite = serde_json::from_slice(&std::fs::read(&gold_file)?)?;
    let key = site
        .key_pages
        .iter()
        .find(|k| &k.page == page)
        .ok_or("no such key page")?;
    let source = site.mirror(&data)?;
    let url = key.url(&source).ok_or("key page outside mirror")?;
    let r = extract_template(&source, &url, &TemplateConfig::default())?;
    println!(
        "CS: {:?}\nloads: {}  notes: {:?}",
        r.cs_pages.iter().map(|u| u.path()).collect::<Vec<_>>(),
        r.loads.attempts,
        r.notes
    );
    let doc = &r.doc;
    let gold = gold_content(doc, &key.content)?;
    let key_index = templex::dev::MapIndex::new(doc);
    let cs_docs: Vec<_> = r
        .cs_pages
        .iter()
        .filter_map(|u| templex::PageSource::load(&source, u).ok())
        .map(|p| p.parse())
        .collect();
    let maps: Vec<_> = cs_docs
        .iter()
        .map(|d| {
            let idx = templex::dev::MapIndex::new(d);
            templex::dev::etdm(
                &key_index,
                &idx,
                &TemplateConfig::default().mapping.equality,
            )
        })
        .collect();
    let votes = |id: NodeId| {
        maps.iter()
            .map(|m| if m.is_mapped(id) { '1' } else { '0' })
            .collect::<String>()
    };
    let Some(body) = doc.body() else {
        return Ok(());
    };
    let wrong = |id: NodeId| doc.element(id).is_some() && r.is_template(id) == gold[id.index()];
    let mut i = body.0 + 1;
    while i < doc.node(body).end.0 {
        let id = NodeId(i);
        if wrong(id) {
            // Report the topmost wrong element and how many wrong elements its subtree holds.
            let n = doc.descendants(id).filter(|d| wrong(*d)).count() + 1;
            let kind = if gold[id.index()] {
                "content→template"
            } else {
                "template→content"
            };
            let e = doc.element(id).map(|e| {
                format!(
                    "{}{}{}",
                    e.tag(),
                    e.id().map(|x| format!("#{x}")).unwrap_or_default(),
                    e.classes().map(|c| format!(".{c}")).collect::<String>()
                )
            });
            let text: String = doc
                .text_content(id)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(60)
                .collect();
            println!(
                "{kind:18} {n:5}  {}  {}  votes={} «{text}»",
                doc.dom_path(id),
                e.unwrap_or_default(),
                votes(id)
            );
            if std::env::var_os("EXPLAIN_DEEP").is_some() {
                for c in doc
                    .descendants(id)
                    .filter(|c| doc.element(*c).is_some())
                    .take(
                        std::env::var("EXPLAIN_DEEP")
                            .ok()
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(40),
                    )
                {
                    println!(
                        "      {:60} tpl={} gold_content={} votes={}",
                        doc.dom_path(c),
                        r.is_template(c),
                        gold[c.index()],
                        votes(c)
                    );
                }
            }
            if n > 1 {
                i = doc.node(id).end.0;
                continue;
            }
        }
        i += 1;
    }
    Ok(())
}
