//! Development aid: PAGELEVEL on the gold key pages under a grid of settings, and where its
//! errors are.
//!
//! `cargo run --release -p templex --example pagelevel_dev -- DATA_DIR [MODEL.json] [PAGE]`
//! prints macro template/content F1 per setting (threshold × penalty × smoothing ×
//! wrappers); with PAGE (a key page file name), the classified nodes of that page with score,
//! smoothed score and gold label.

use std::path::PathBuf;

use templex::eval::{gold_content, load_gold, score};
use templex::page_level::{
    PageLevelConfig, PageLevelModel as Model, Wrappers, detect_page_level as detect,
};
use templex::{NodeId, PageSource};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let data = PathBuf::from(
        args.get(1)
            .ok_or("usage: pagelevel_dev DATA [MODEL] [PAGE]")?,
    );
    let model = match args.get(2).filter(|m| *m != "-") {
        Some(p) => Model::from_json(&std::fs::read_to_string(p)?)?,
        None => Model::builtin().clone(),
    };
    let focus = args.get(3);
    let sites = load_gold(&data.join("gold"))?;
    let mut pages = Vec::new();
    for site in &sites {
        let source = site.mirror(&data)?;
        for key in &site.key_pages {
            let url = key.url(&source).ok_or("key page outside mirror")?;
            let page = source.load(&url)?;
            let doc = page.parse();
            let gold = gold_content(&doc, &key.content)?;
            pages.push((
                site.site.clone(),
                key.page.clone(),
                page.final_url,
                doc,
                gold,
            ));
        }
    }
    if let Some(focus) = focus {
        let config = PageLevelConfig {
            penalty: 0.1,
            threshold: 0.4,
            wrappers: Wrappers::Mixed,
            ..PageLevelConfig::default()
        };
        for (_, name, url, doc, gold) in pages.iter().filter(|p| &p.1 == focus) {
            let r = detect(doc, Some(url), &model, &config);
            println!("{name}");
            if let Ok(css) = std::env::var("FEATURES") {
                let fx = templex::dev::node_features(doc, Some(url));
                for id in templex::eval::select(doc, &css)? {
                    let b = model.bucket(fx.html_len[id.index()]);
                    println!(
                        "{} bucket {b} classified {}",
                        label(doc, id),
                        fx.classified[id.index()]
                    );
                    for (k, (n, v)) in templex::dev::FEATURE_NAMES
                        .iter()
                        .zip(fx.row(id))
                        .enumerate()
                    {
                        let m = &model.buckets[b];
                        let z = (f64::from(*v) - m.mean[k]) / m.std[k];
                        println!(
                            "  {n:<24} {v:>8.3}  z {z:>6.2}  contrib {:>6.2}",
                            z * m.weights[k]
                        );
                    }
                }
            }
            for id in doc.elements() {
                if r.segments.iter().any(|s| s.root == id)
                    || doc.tag(id).is_some_and(|t| {
                        matches!(
                            &**t,
                            "div"
                                | "ul"
                                | "nav"
                                | "header"
                                | "footer"
                                | "aside"
                                | "section"
                                | "article"
                                | "main"
                                | "table"
                                | "form"
                        )
                    })
                {
                    let depth = doc.node(id).depth as usize;
                    println!(
                        "{:width$}{} x={:.2} y={:.2} T={} gold={}",
                        "",
                        label(doc, id),
                        r.scores[id.index()],
                        r.smoothed[id.index()],
                        u8::from(r.template[id.index()]),
                        if gold[id.index()] { "C" } else { "T" },
                        width = depth.min(40)
                    );
                }
            }
        }
        return Ok(());
    }
    {
        // Baselines: the page-level content extractor alone (root subtree / kept nodes).
        let (mut t1, mut c1, mut t2, mut c2) = (0.0, 0.0, 0.0, 0.0);
        for (_, _, _, doc, gold) in &pages {
            let c = templex::dev::page_content(doc, &Default::default());
            let mut root_tpl = vec![true; doc.len()];
            if let Some(r) = c.root {
                for i in doc.subtree(r) {
                    root_tpl[i as usize] = false;
                }
            }
            let s = score(doc, &root_tpl, gold);
            t1 += s.template.f1;
            c1 += s.content.f1;
            let keep_tpl: Vec<bool> = c.keep.iter().map(|k| !k).collect();
            let s = score(doc, &keep_tpl, gold);
            t2 += s.template.f1;
            c2 += s.content.f1;
        }
        let n = pages.len() as f64;
        println!(
            "extractor root subtree: T-F1 {:.3} C-F1 {:.3}",
            t1 / n,
            c1 / n
        );
        println!(
            "extractor kept nodes:   T-F1 {:.3} C-F1 {:.3}",
            t2 / n,
            c2 / n
        );
    }
    if std::env::var_os("PER_PAGE").is_some() {
        let config = PageLevelConfig {
            threshold: 0.4,
            penalty: 0.1,
            wrappers: Wrappers::Mixed,
            ..PageLevelConfig::default()
        };
        for (site, name, url, doc, gold) in &pages {
            let r = detect(doc, Some(url), &model, &config);
            let s = score(doc, &r.template, gold);
            println!(
                "{site:<24} {name:<50} T {:.3} {:.3} {:.3}  C {:.3} {:.3} {:.3}",
                s.template.precision,
                s.template.recall,
                s.template.f1,
                s.content.precision,
                s.content.recall,
                s.content.f1
            );
        }
        return Ok(());
    }
    println!("thresh penalty smooth wrap   T-F1  C-F1");
    for smooth in [false, true] {
        for wrappers in [
            Wrappers::Keep,
            Wrappers::Mixed,
            Wrappers::Chain,
            Wrappers::Ancestors,
        ] {
            for threshold in [0.4, 0.5, 0.6] {
                for penalty in [0.03, 0.1, 0.3] {
                    if !smooth && penalty != 0.1 {
                        continue;
                    }
                    let config = PageLevelConfig {
                        smooth,
                        penalty,
                        threshold,
                        wrappers,
                        ..PageLevelConfig::default()
                    };
                    let (mut t, mut c) = (0.0, 0.0);
                    for (_, _, url, doc, gold) in &pages {
                        let r = detect(doc, Some(url), &model, &config);
                        let s = score(doc, &r.template, gold);
                        t += s.template.f1;
                        c += s.content.f1;
                    }
                    let n = pages.len() as f64;
                    println!(
                        "{threshold:>6} {penalty:>7} {smooth:>6} {:>9}  {:.3} {:.3}",
                        format!("{wrappers:?}"),
                        t / n,
                        c / n
                    );
                }
            }
        }
    }
    Ok(())
}

fn label(doc: &templex::Document, id: NodeId) -> String {
    let e = doc.element(id).unwrap();
    let mut s = e.name.local.to_string();
    if let Some(i) = e.id() {
        s.push('#');
        s.push_str(i);
    }
    for c in e.classes().take(2) {
        s.push('.');
        s.push_str(c);
    }
    s
}
