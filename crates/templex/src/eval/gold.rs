//! The template gold standard: one JSON file per site naming its key pages and, per key page,
//! the CSS selectors of the content regions (see the data set's README, section `gold/`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use url::Url;

use super::EvalError;
use crate::dom::{Document, NodeId, Selector, SelectorError};
use crate::source::{LoadError, MirrorSource};

/// The gold standard of one site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldSite {
    /// Site name, e.g. `whizzy.org`.
    pub site: String,
    /// The site mirror, relative to the data directory.
    pub dir: PathBuf,
    /// URL prefixes that map to the mirror root.
    pub url_prefixes: Vec<String>,
    /// The annotated key pages.
    pub key_pages: Vec<KeyPage>,
}

/// One annotated key page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPage {
    /// The page file, relative to the site mirror.
    pub page: String,
    /// Page type (`home`, `article`, `listing`, …), for per-kind breakdowns.
    pub kind: String,
    /// CSS selectors of the content regions; everything else in `<body>` is template.
    pub content: Vec<String>,
    /// The annotator's description of the content.
    #[serde(default)]
    pub note: String,
}

impl GoldSite {
    /// The site's mirror directory under `data_dir`.
    pub fn mirror_dir(&self, data_dir: &Path) -> PathBuf {
        data_dir.join(&self.dir)
    }

    /// A page source over the site's mirror under `data_dir`, with the site's URL prefixes.
    pub fn mirror(&self, data_dir: &Path) -> Result<MirrorSource, LoadError> {
        MirrorSource::new(self.mirror_dir(data_dir), &self.url_prefixes)
    }
}

impl KeyPage {
    /// The URL of this key page in `source` (a mirror of its site), if the file exists.
    pub fn url(&self, source: &MirrorSource) -> Option<Url> {
        let file = source.root().join(&self.page);
        if !file.is_file() {
            return None;
        }
        source.url_for_path(file)
    }
}

/// Read every `*.json` file of `dir`, sorted by file name, as a [`GoldSite`].
pub fn load_gold(dir: &Path) -> Result<Vec<GoldSite>, EvalError> {
    let io = |source| EvalError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.extension().is_some_and(|e| e == "json") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    let mut sites = Vec::with_capacity(files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|source| EvalError::Io {
            path: path.clone(),
            source,
        })?;
        let site: GoldSite = serde_json::from_str(&text).map_err(|source| EvalError::Json {
            path: path.clone(),
            source,
        })?;
        sites.push(site);
    }
    Ok(sites)
}

/// Per node id of `doc`: whether it is gold content, i.e. matched by one of `selectors` or
/// inside such an element. (The scorer only looks at body elements; marks elsewhere, e.g. in
/// `<head>`, are harmless.)
pub fn gold_content(
    doc: &Document,
    selectors: &[impl AsRef<str>],
) -> Result<Vec<bool>, SelectorError> {
    let mut matched: Vec<NodeId> = Vec::new();
    for css in selectors {
        matched.extend(Selector::parse(css.as_ref())?.select(doc));
    }
    matched.sort_unstable();
    let mut content = vec![false; doc.len()];
    // Subtrees are id ranges, so the union is one sweep; a match nested in an earlier
    // match's range is already covered and skipped.
    let mut covered_to = 0u32;
    for id in matched {
        let range = doc.subtree(id);
        if range.end <= covered_to {
            continue;
        }
        for n in range.start.max(covered_to)..range.end {
            content[n as usize] = true;
        }
        covered_to = range.end;
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::parse_str;

    #[test]
    fn content_is_matches_plus_descendants() {
        let doc = parse_str(
            "<body><div id=h><a>x</a></div><div id=c><p>t<b>b</b></p><div class=c><i>i</i></div></div><p class=c>z</p></body>",
        );
        let content = gold_content(&doc, &["#c", ".c"]).unwrap();
        let marked: Vec<String> = doc
            .elements()
            .filter(|e| content[e.index()])
            .map(|e| doc.tag(e).unwrap().to_string())
            .collect();
        assert_eq!(marked, ["div", "p", "b", "div", "i", "p"]);
        // Text nodes inside content are content too (the whole id range).
        let c = select_one(&doc, "#c");
        assert!(doc.subtree(c).all(|n| content[n as usize]));
        assert!(!content[select_one(&doc, "#h").index()]);
        assert!(gold_content(&doc, &["p:hover"]).is_err());
        assert!(
            gold_content(&doc, &[] as &[&str])
                .unwrap()
                .iter()
                .all(|c| !c)
        );
    }

    fn select_one(doc: &Document, css: &str) -> NodeId {
        crate::dom::select(doc, css).unwrap()[0]
    }

    #[test]
    fn gold_json_shape() {
        let json = r#"{ "site": "whizzy.org", "dir": "sites/whizzy.org",
            "url_prefixes": ["https://whizzy.org/", "http://whizzy.org/"],
            "key_pages": [ { "page": "2020/05/x/index.html", "kind": "article",
                             "content": ["article .entry-content", "h1.entry-title"], "note": "..." },
                           { "page": "index.html", "kind": "home", "content": [] } ] }"#;
        let site: GoldSite = serde_json::from_str(json).unwrap();
        assert_eq!(site.key_pages.len(), 2);
        assert_eq!(site.key_pages[0].content[1], "h1.entry-title");
        assert_eq!(site.key_pages[1].note, "");
        assert_eq!(
            site.mirror_dir(Path::new("/d")),
            Path::new("/d/sites/whizzy.org")
        );
    }

    #[test]
    fn load_gold_sorted_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let site = |name: &str| {
            format!(r#"{{"site":"{name}","dir":"sites/{name}","url_prefixes":[],"key_pages":[]}}"#)
        };
        std::fs::write(dir.path().join("b.json"), site("b")).unwrap();
        std::fs::write(dir.path().join("a.json"), site("a")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not gold").unwrap();
        let sites = load_gold(dir.path()).unwrap();
        let names: Vec<&str> = sites.iter().map(|s| s.site.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        std::fs::write(dir.path().join("c.json"), "{").unwrap();
        let err = load_gold(dir.path()).unwrap_err();
        assert!(err.to_string().contains("c.json"), "{err}");
        assert!(load_gold(&dir.path().join("missing")).is_err());
    }
}
