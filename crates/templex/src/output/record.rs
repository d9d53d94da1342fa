//! One page's content as a JSON record: what `templex content --format json|jsonl` writes
//! and the server's `/v1/content` answers, built in one place so that they stay the same.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::method::Method;
use crate::page::PageContent;

/// How a record carries the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rendering {
    /// Plain text in `text`, one line per block.
    #[default]
    Text,
    /// Markdown in `text`.
    Markdown,
    /// HTML in `html`.
    Html,
}

/// Milliseconds spent on a record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordTimings {
    /// Decoding and parsing (with a site: loading and parsing the key page).
    pub parse_ms: f64,
    /// Everything after parsing, rendering included.
    pub extract_ms: f64,
    /// Both.
    pub total_ms: f64,
}

/// One input's content, or why there is none.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContentRecord {
    /// The input as the caller named it (file, URL, `-`).
    pub input: String,
    /// The page's URL, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The page's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The page's author or authors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The page's publication date, `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The language the page declares (primary subtag: `en`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The content as text or Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The content as HTML.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// The method that decided what is content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Method>,
    /// Pages loaded (site-aware content only, the key page included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_loaded: Option<usize>,
    /// Time spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<RecordTimings>,
    /// Notes (fallbacks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the input has no content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fingerprints of `text` for near-duplicate detection ([`Self::with_fingerprint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<crate::dedup::Fingerprint>,
}

impl ContentRecord {
    /// The record of `content`, rendered as `rendering` (rendering time counts as extraction).
    pub fn new(
        input: String,
        content: &PageContent,
        rendering: Rendering,
        pages_loaded: Option<usize>,
        notes: Vec<String>,
    ) -> ContentRecord {
        let te = Instant::now();
        let (text, html) = match rendering {
            Rendering::Html => (None, Some(content.html())),
            Rendering::Markdown => (Some(content.markdown()), None),
            Rendering::Text => (Some(content.text()), None),
        };
        let meta = content.metadata();
        let t = content.timings();
        let parse_ms = t.parse.as_secs_f64() * 1e3;
        let total_ms = (t.parse + t.extract + te.elapsed()).as_secs_f64() * 1e3;
        ContentRecord {
            input,
            url: content.url().map(|u| u.to_string()),
            title: meta.title,
            author: meta.author,
            date: meta.date,
            language: meta.language,
            text,
            html,
            method: Some(content.method()),
            pages_loaded,
            timings: Some(RecordTimings {
                parse_ms,
                extract_ms: total_ms - parse_ms,
                total_ms,
            }),
            notes,
            error: None,
            fingerprint: None,
        }
    }

    /// The same record with the fingerprints of its text (none without text).
    pub fn with_fingerprint(mut self, fingerprinter: &mut crate::dedup::Fingerprinter) -> Self {
        self.fingerprint = self.text.as_deref().map(|t| fingerprinter.fingerprint(t));
        self
    }

    /// The record of an input that failed.
    pub fn error(input: String, error: String) -> ContentRecord {
        ContentRecord {
            input,
            url: None,
            title: None,
            author: None,
            date: None,
            language: None,
            text: None,
            html: None,
            method: None,
            pages_loaded: None,
            timings: None,
            notes: Vec::new(),
            error: Some(error),
            fingerprint: None,
        }
    }
}
