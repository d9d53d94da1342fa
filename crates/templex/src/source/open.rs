//! From "a key page and where its site is" to an opened [`PageSource`] and the key page's
//! URL in it: the CLI, the Python package and the server name sites the same way.

use std::path::{Path, PathBuf};

use url::Url;

#[cfg(feature = "http")]
use super::{HttpConfig, HttpSource};
use super::{LoadError, MirrorSource, PageSource};

/// Where a key page's site is.
#[derive(Debug, Clone, Default)]
pub struct SiteSpec {
    /// A site mirror directory: the page is a file inside it or a URL under a prefix.
    pub mirror: Option<PathBuf>,
    /// URL prefixes that map to the mirror root (`https://host/path/`, `host/path`).
    pub url_prefixes: Vec<String>,
    /// A WARC file holding the site's pages: the page is a URL in it.
    #[cfg(feature = "warc")]
    pub warc: Option<PathBuf>,
    /// Live fetching of http(s) pages with these settings; `None`: never fetch.
    #[cfg(feature = "http")]
    pub http: Option<HttpConfig>,
}

/// An opened source and the URL of the key page in it.
pub struct OpenedSite {
    /// The source the key page and its siblings load from.
    pub source: Box<dyn PageSource>,
    /// The key page's URL.
    pub page_url: Url,
    /// Whether the source is the live web (loads are slow and polite).
    pub live: bool,
}

impl std::fmt::Debug for OpenedSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedSite")
            .field("page_url", &self.page_url.as_str())
            .field("live", &self.live)
            .finish_non_exhaustive()
    }
}

/// Why a site could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The mirror directory or WARC file could not be opened.
    #[error("cannot open {what} {path}: {source}")]
    Source {
        /// "site mirror", "WARC", "directory".
        what: &'static str,
        /// Its path.
        path: String,
        /// Why.
        #[source]
        source: LoadError,
    },
    /// The page is not a page of the named site (or no such file).
    #[error("{0}")]
    Page(String),
    /// The page is a live URL, and fetching is off.
    #[error("{0} is a live URL and fetching is off")]
    FetchingOff(String),
    /// The HTTP client could not be set up.
    #[error("cannot set up the HTTP client: {0}")]
    Http(String),
}

/// Open the source that `page` (a path or an http(s) URL) and `spec` name: the WARC, else
/// the mirror, else the live web for a URL, else the page's own directory as a mirror.
pub fn open_site(spec: &SiteSpec, page: &str) -> Result<OpenedSite, OpenError> {
    let as_url = Url::parse(page)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    #[cfg(feature = "warc")]
    if let Some(warc) = &spec.warc {
        let source = super::WarcSource::open(warc).map_err(|source| OpenError::Source {
            what: "WARC",
            path: warc.display().to_string(),
            source,
        })?;
        let page_url = as_url.ok_or_else(|| {
            OpenError::Page(format!("with a WARC, the page must be a URL, got {page:?}"))
        })?;
        return Ok(OpenedSite {
            source: Box::new(source),
            page_url,
            live: false,
        });
    }
    if let Some(dir) = &spec.mirror {
        let source =
            MirrorSource::new(dir, &spec.url_prefixes).map_err(|source| OpenError::Source {
                what: "site mirror",
                path: dir.display().to_string(),
                source,
            })?;
        let page_url = match as_url {
            Some(u) => u,
            None => mirror_page_url(&source, Path::new(page))?,
        };
        return Ok(OpenedSite {
            source: Box::new(source),
            page_url,
            live: false,
        });
    }
    if let Some(url) = as_url {
        #[cfg(feature = "http")]
        if let Some(config) = &spec.http {
            let source =
                HttpSource::new(config.clone()).map_err(|e| OpenError::Http(e.to_string()))?;
            return Ok(OpenedSite {
                source: Box::new(source),
                page_url: url,
                live: true,
            });
        }
        return Err(OpenError::FetchingOff(url.to_string()));
    }
    // A lone file: its directory is the site.
    let path = Path::new(page);
    if !path.is_file() {
        return Err(OpenError::Page(format!(
            "{page}: no such file (and not an http/https URL)"
        )));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let source = MirrorSource::new(dir, &[] as &[&str]).map_err(|source| OpenError::Source {
        what: "directory",
        path: dir.display().to_string(),
        source,
    })?;
    let page_url = mirror_page_url(&source, path)?;
    Ok(OpenedSite {
        source: Box::new(source),
        page_url,
        live: false,
    })
}

fn mirror_page_url(source: &MirrorSource, path: &Path) -> Result<Url, OpenError> {
    if !path.is_file() {
        return Err(OpenError::Page(format!("{}: no such file", path.display())));
    }
    source.url_for_path(path).ok_or_else(|| {
        OpenError::Page(format!(
            "{} is not inside the site directory {}",
            path.display(),
            source.root().display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
    }

    #[test]
    // Without the `http` and `warc` features the spec has no other fields.
    #[allow(clippy::needless_update)]
    fn opens_mirror_pages_lone_files_and_refuses_what_it_must() {
        let spec = SiteSpec {
            mirror: Some(example()),
            url_prefixes: vec!["https://www.riverbend-garden.example/".into()],
            ..SiteSpec::default()
        };
        let page = example().join("garden/compost-guide.html");
        let o = open_site(&spec, page.to_str().unwrap()).unwrap();
        assert_eq!(
            o.page_url.as_str(),
            "https://www.riverbend-garden.example/garden/compost-guide.html"
        );
        assert!(!o.live && o.source.load(&o.page_url).is_ok());
        // A URL under the prefix names the same page.
        let o = open_site(&spec, o.page_url.as_str()).unwrap();
        assert!(o.source.load(&o.page_url).is_ok());
        // A file outside the mirror, a missing file.
        let outside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        assert!(matches!(
            open_site(&spec, outside.to_str().unwrap()),
            Err(OpenError::Page(_))
        ));
        assert!(matches!(
            open_site(&SiteSpec::default(), "/no/such/page.html"),
            Err(OpenError::Page(_))
        ));
        // A lone file: its directory is the site.
        let o = open_site(&SiteSpec::default(), page.to_str().unwrap()).unwrap();
        assert!(o.source.load(&o.page_url).is_ok());
        // A live URL without fetching.
        assert!(matches!(
            open_site(&SiteSpec::default(), "https://example.com/"),
            Err(OpenError::FetchingOff(_))
        ));
    }
}
