//! A site mirror on disk (wget, HTTrack, a static-site build) served as a page source.
//!
//! URLs map to files by the rules mirror tools leave behind: a URL whose `host/path` starts
//! with one of the site's prefixes maps to the mirror root (root-relative paths on the same
//! host too); then `path?query`, `path?query.html` (wget keeps queries in names, `@` on
//! Windows-safe mirrors), `path`, `path/index.html` and `path.html` are tried in turn.
//! HTTrack's decorative queries (`viewtopic9cc5.html?f=3`) fall out of trying `path`.

use std::path::{Component, Path, PathBuf};

use percent_encoding::percent_decode_str;
use url::Url;

use super::{LoadCounter, LoadError, LoadStats, Page, PageFileError, PageSource};

/// One `host/path` prefix that maps to the mirror root.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Prefix {
    /// Lower-cased host, with `:port` when the prefix named one.
    host: String,
    /// Path without leading or trailing slash (empty for the host root).
    path: String,
}

/// Pages of a site mirror directory.
#[derive(Debug)]
pub struct MirrorSource {
    root: PathBuf,
    prefixes: Vec<Prefix>,
    base: Url,
    max_bytes: u64,
    counter: LoadCounter,
}

impl MirrorSource {
    /// A mirror rooted at `root` for the site URL prefixes `prefixes` (`https://host/path/`,
    /// `host/path` or `host`). The first prefix (with its scheme, `https` if none) names the
    /// URLs of the mirror's files. Without prefixes, the directory name is used as host.
    pub fn new(root: impl AsRef<Path>, prefixes: &[impl AsRef<str>]) -> Result<Self, LoadError> {
        let root = root.as_ref();
        let root = root.canonicalize().map_err(|source| LoadError::Io {
            path: root.display().to_string(),
            source,
        })?;
        if !root.is_dir() {
            return Err(LoadError::Io {
                path: root.display().to_string(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        let mut raw: Vec<String> = prefixes
            .iter()
            .map(|p| p.as_ref().trim().to_string())
            .collect();
        raw.retain(|p| !p.is_empty());
        if raw.is_empty() {
            let name = root
                .file_name()
                .and_then(|n| n.to_str())
                .filter(|n| n.contains('.') && Url::parse(&format!("https://{n}/")).is_ok())
                .unwrap_or("mirror.localhost");
            raw.push(name.to_string());
        }
        let mut parsed = Vec::new();
        let mut base = None;
        for p in &raw {
            let with_scheme = if p.contains("://") {
                p.clone()
            } else {
                format!("https://{p}")
            };
            let url = Url::parse(&with_scheme)
                .map_err(|e| LoadError::Unsupported(format!("bad URL prefix {p:?}: {e}")))?;
            let prefix = Prefix {
                host: host_key(&url),
                path: url.path().trim_matches('/').to_string(),
            };
            if base.is_none() {
                let mut b = url.clone();
                b.set_query(None);
                b.set_fragment(None);
                if !b.path().ends_with('/') {
                    let path = format!("{}/", b.path());
                    b.set_path(&path);
                }
                base = Some(b);
            }
            parsed.push(prefix);
        }
        let base = base.ok_or_else(|| LoadError::Unsupported("no URL prefix".into()))?;
        Ok(MirrorSource {
            root,
            prefixes: parsed,
            base,
            max_bytes: super::MAX_PAGE_BYTES,
            counter: LoadCounter::default(),
        })
    }

    /// The mirror directory (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The URL of the mirror root.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The URL of a file inside the mirror (`None` if the path is outside it).
    pub fn url_for_path(&self, file: impl AsRef<Path>) -> Option<Url> {
        let file = file.as_ref();
        let abs = if file.is_absolute() {
            file.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(file)
        };
        let abs = abs.canonicalize().unwrap_or(abs);
        let rel = abs.strip_prefix(&self.root).ok()?;
        let mut url = self.base.clone();
        {
            let mut segs = url.path_segments_mut().ok()?;
            segs.pop_if_empty();
            for c in rel.components() {
                match c {
                    Component::Normal(s) => {
                        segs.push(s.to_str()?);
                    }
                    _ => return None,
                }
            }
        }
        Some(url)
    }

    /// Whether `url` is on one of the mirror's hosts (whether or not a file exists for it).
    pub fn covers(&self, url: &Url) -> bool {
        let host = host_key(url);
        self.prefixes
            .iter()
            .any(|p| p.host == host || strip_port(&p.host) == host)
    }

    /// The file a URL resolves to, if any (no load is counted).
    pub fn path_for_url(&self, url: &Url) -> Option<PathBuf> {
        let host = host_key(url);
        let path = url.path().trim_start_matches('/');
        let mut rels: Vec<&str> = Vec::new();
        for p in self
            .prefixes
            .iter()
            .filter(|p| p.host == host || strip_port(&p.host) == host)
        {
            if p.path.is_empty() {
                rels.push(path);
            } else if let Some(rest) = path.strip_prefix(p.path.as_str()) {
                if rest.is_empty() || rest.starts_with('/') {
                    rels.push(rest.trim_start_matches('/'));
                }
            }
        }
        if rels.is_empty() {
            // Root-relative links of a mirror whose prefix has a path map to the root too.
            if self
                .prefixes
                .iter()
                .any(|p| p.host == host || strip_port(&p.host) == host)
            {
                rels.push(path);
            } else {
                return None;
            }
        }
        rels.dedup();
        for rel in rels {
            let decoded = percent_decode_str(rel).decode_utf8_lossy().into_owned();
            let mut variants = vec![decoded.clone()];
            if decoded != rel {
                variants.push(rel.to_string());
            }
            for v in variants {
                if let Some(p) = self.try_candidates(&v, url.query()) {
                    return Some(p);
                }
            }
        }
        None
    }

    fn try_candidates(&self, rel: &str, query: Option<&str>) -> Option<PathBuf> {
        let rel_path = safe_relative(rel)?;
        let dir = self.root.join(&rel_path);
        let mut candidates: Vec<PathBuf> = Vec::with_capacity(7);
        if let Some(q) = query.filter(|_| !rel.is_empty() && !rel.ends_with('/')) {
            let q = percent_decode_str(q).decode_utf8_lossy();
            for sep in ['?', '@'] {
                let name = format!("{rel}{sep}{q}");
                if let Some(p) = safe_relative(&name) {
                    candidates.push(self.root.join(&p));
                    candidates.push(self.root.join(format!("{}.html", p.display())));
                }
            }
        }
        if !rel.is_empty() && !rel.ends_with('/') {
            candidates.push(dir.clone());
        }
        candidates.push(dir.join("index.html"));
        if !rel_path.as_os_str().is_empty() {
            // `x/` saved as `x.html` by mirrors that flatten directory URLs.
            candidates.push(self.root.join(format!("{}.html", rel_path.display())));
        }
        candidates.into_iter().find(|c| c.is_file())
    }

    /// Every HTML file of the mirror (names containing `.htm`), sorted, walked iteratively.
    pub fn html_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                let Ok(ft) = e.file_type() else { continue };
                if ft.is_dir() {
                    stack.push(p);
                } else if p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.to_ascii_lowercase().contains(".htm"))
                {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    /// Read a file of the mirror as a page at `url`.
    fn read(&self, url: &Url, path: &Path) -> Result<Page, LoadError> {
        let io = |source| LoadError::Io {
            path: path.display().to_string(),
            source,
        };
        let body = super::read_page_file(path, self.max_bytes).map_err(|e| match e {
            PageFileError::Io(e) => io(e),
            PageFileError::NotAFile => io(std::io::Error::other("not a file")),
            PageFileError::TooLarge { .. } => LoadError::TooLarge {
                url: url.to_string(),
                limit: self.max_bytes as usize,
            },
        })?;
        Ok(Page {
            url: url.clone(),
            final_url: self.url_for_path(path).unwrap_or_else(|| url.clone()),
            body,
            charset: None,
            content_type: None,
        })
    }

    /// The canonical URL of the page a URL resolves to (its file's URL), or the URL itself.
    pub fn canonical_url(&self, url: &Url) -> Url {
        self.path_for_url(url)
            .and_then(|p| self.url_for_path(p))
            .unwrap_or_else(|| {
                let mut u = url.clone();
                u.set_fragment(None);
                u
            })
    }
}

impl PageSource for MirrorSource {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        let result = match self.path_for_url(url) {
            Some(path) => self.read(url, &path),
            None => Err(LoadError::NotFound(url.to_string())),
        };
        self.counter.record(&result);
        result
    }

    fn resolves(&self, url: &Url) -> bool {
        self.path_for_url(url).is_some()
    }

    fn stats(&self) -> LoadStats {
        self.counter.stats()
    }

    fn canonical_url(&self, url: &Url) -> Url {
        MirrorSource::canonical_url(self, url)
    }

    fn page_urls(&self) -> Option<Vec<Url>> {
        Some(
            self.html_files()
                .iter()
                .filter_map(|p| self.url_for_path(p))
                .collect(),
        )
    }
}

fn host_key(url: &Url) -> String {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

fn strip_port(h: &str) -> &str {
    h.rsplit_once(':').map_or(h, |(h, _)| h)
}

/// A relative path with no component that could leave the mirror.
fn safe_relative(rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mirror() -> (tempfile::TempDir, MirrorSource) {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for f in [
            "index.html",
            "about/index.html",
            "news.html",
            "forum/viewtopic9cc5.html",
            "list.php?page=2.html",
            "index.html@p=12.html",
            "a b.html",
        ] {
            let p = r.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, format!("<title>{f}</title>")).unwrap();
        }
        let m = MirrorSource::new(r, &["https://example.org/", "www.example.org"]).unwrap();
        (dir, m)
    }

    fn resolve(m: &MirrorSource, u: &str) -> Option<String> {
        let p = m.path_for_url(&Url::parse(u).unwrap())?;
        Some(p.strip_prefix(m.root()).unwrap().display().to_string())
    }

    #[test]
    fn readme_rules() {
        let (_d, m) = mirror();
        assert_eq!(
            resolve(&m, "https://example.org/").as_deref(),
            Some("index.html")
        );
        assert_eq!(
            resolve(&m, "http://www.example.org/about").as_deref(),
            Some("about/index.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/about/").as_deref(),
            Some("about/index.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/news").as_deref(),
            Some("news.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/forum/viewtopic9cc5.html?f=3&t=1").as_deref(),
            Some("forum/viewtopic9cc5.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/list.php?page=2").as_deref(),
            Some("list.php?page=2.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/index.html?p=12").as_deref(),
            Some("index.html@p=12.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/index.html@p=12.html").as_deref(),
            Some("index.html@p=12.html")
        );
        assert_eq!(
            resolve(&m, "https://example.org/a%20b.html").as_deref(),
            Some("a b.html")
        );
        assert_eq!(resolve(&m, "https://example.org/missing.html"), None);
        assert_eq!(resolve(&m, "https://other.org/index.html"), None);
        assert_eq!(resolve(&m, "https://example.org/%2e%2e/etc/passwd"), None);
    }

    #[test]
    fn urls_of_files_round_trip() {
        let (d, m) = mirror();
        for f in [
            "index.html",
            "about/index.html",
            "a b.html",
            "index.html@p=12.html",
        ] {
            let u = m.url_for_path(d.path().join(f)).unwrap();
            assert!(u.as_str().starts_with("https://example.org/"));
            assert_eq!(resolve(&m, u.as_str()).as_deref(), Some(f), "{u}");
        }
        assert!(m.url_for_path("/etc/passwd").is_none());
    }

    #[test]
    fn prefix_with_path_and_root_relative() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("team")).unwrap();
        std::fs::write(dir.path().join("team/index.html"), "x").unwrap();
        let m = MirrorSource::new(dir.path(), &["lab.github.io/static-site"]).unwrap();
        assert_eq!(m.base_url().as_str(), "https://lab.github.io/static-site/");
        assert!(m.resolves(&Url::parse("https://lab.github.io/static-site/team/").unwrap()));
        assert!(m.resolves(&Url::parse("https://lab.github.io/team/").unwrap()));
        assert_eq!(m.stats().attempts, 0);
        assert!(
            m.load(&Url::parse("https://lab.github.io/nope").unwrap())
                .is_err()
        );
        assert_eq!(
            m.stats(),
            LoadStats {
                attempts: 1,
                loaded: 0
            }
        );
    }
}
