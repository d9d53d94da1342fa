//! Development aid: `cargo run --release -p templex --example content_debug -- FILE[.gz]`
//! prints the detected main-content container and the top candidates.

use std::io::Read;

use templex::ContentConfig;
use templex::dev::page_content;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: content_debug FILE")?;
    let raw = std::fs::read(&path)?;
    let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out)?;
        out
    } else {
        raw
    };
    let doc = templex::html::parse_bytes(&bytes, None);
    let c = page_content(&doc, &ContentConfig::default());
    match c.root {
        Some(r) => {
            let e = doc.element(r);
            println!(
                "root {} {:?} {:?}",
                doc.dom_path(r),
                e.and_then(|e| e.id()),
                e.and_then(|e| e.attr("class"))
            );
            let kept = doc.subtree(r).filter(|i| c.keep[*i as usize]).count();
            println!(
                "kept {kept} of {} nodes in the container",
                doc.subtree_size(r)
            );
        }
        None => println!("no root"),
    }
    if let Some(snippet) = std::env::args().nth(2) {
        let hit = doc
            .ids()
            .find(|i| doc.text(*i).is_some_and(|t| t.contains(&snippet)));
        if let Some(t) = hit {
            for a in std::iter::once(t).chain(doc.ancestors(t)) {
                let e = doc.element(a);
                println!(
                    "  keep={} {} {:?} {:?}",
                    c.keep[a.index()],
                    doc.dom_path(a),
                    e.and_then(|e| e.id()),
                    e.and_then(|e| e.attr("class"))
                );
            }
        }
    }
    Ok(())
}
