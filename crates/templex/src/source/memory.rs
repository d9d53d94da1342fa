//! An in-memory page source, for tests and for callers that already hold the pages.

use std::collections::HashMap;

use url::Url;

use super::{LoadCounter, LoadError, LoadStats, Page, PageSource};

/// Pages held in memory, keyed by URL (fragment ignored).
#[derive(Debug, Default)]
pub struct MemorySource {
    pages: HashMap<String, (Vec<u8>, Option<String>)>,
    counter: LoadCounter,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a page; replaces any page already at that URL.
    pub fn insert(&mut self, url: &Url, body: impl Into<Vec<u8>>) {
        self.pages.insert(key(url), (body.into(), None));
    }

    /// Add a page with a transport charset.
    pub fn insert_with_charset(&mut self, url: &Url, body: impl Into<Vec<u8>>, charset: &str) {
        self.pages
            .insert(key(url), (body.into(), Some(charset.to_string())));
    }

    /// Number of pages held.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether no page is held.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }
}

fn key(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.to_string()
}

impl PageSource for MemorySource {
    fn load(&self, url: &Url) -> Result<Page, LoadError> {
        let result = match self.pages.get(&key(url)) {
            Some((body, charset)) => Ok(Page {
                url: url.clone(),
                final_url: url.clone(),
                body: body.clone(),
                charset: charset.clone(),
                content_type: Some("text/html".into()),
            }),
            None => Err(LoadError::NotFound(url.to_string())),
        };
        self.counter.record(&result);
        result
    }

    fn resolves(&self, url: &Url) -> bool {
        self.pages.contains_key(&key(url))
    }

    fn stats(&self) -> LoadStats {
        self.counter.stats()
    }

    fn page_urls(&self) -> Option<Vec<Url>> {
        let mut urls: Vec<Url> = self
            .pages
            .keys()
            .filter_map(|k| Url::parse(k).ok())
            .collect();
        urls.sort();
        Some(urls)
    }
}
