//! The methods that tell a page's template from its content, under one name everywhere: the
//! command line, every JSON output, batch runs and the template store.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A way to tell a page's template from its content.
///
/// The serde names (`temex`, `hybex`, `sitelevel`, `pagelevel`, `tablechunk`,
/// `maincontent`) are the names on the command line, in outputs and in the template store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// TemEx: the template is what the mappings to the sibling pages of a complete subdigraph
    /// agree on.
    TemEx,
    /// HybEx: page-level main-content detection first (the detected content can never be
    /// template), then the sibling pages vote.
    HybEx,
    /// SITELEVEL: fragments that recur on many sampled pages of the site are template.
    SiteLevel,
    /// PAGELEVEL: the page alone, classified and smoothed (tree isotonic regression).
    PageLevel,
    /// Table text chunks: text chunks recurring on many sampled pages of the page's template
    /// are template.
    TableChunk,
    /// No template: the page-level main-content extractor's choice is the content, the rest
    /// of the page is template.
    MainContent,
}

impl Method {
    /// Every method, in the order of the list above.
    pub const ALL: [Method; 6] = [
        Method::TemEx,
        Method::HybEx,
        Method::SiteLevel,
        Method::PageLevel,
        Method::TableChunk,
        Method::MainContent,
    ];

    /// The method's name (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            Method::TemEx => "temex",
            Method::HybEx => "hybex",
            Method::SiteLevel => "sitelevel",
            Method::PageLevel => "pagelevel",
            Method::TableChunk => "tablechunk",
            Method::MainContent => "maincontent",
        }
    }

    /// Whether the method reads other pages of the site (siblings or a sample).
    pub fn uses_site(self) -> bool {
        matches!(
            self,
            Method::TemEx | Method::HybEx | Method::SiteLevel | Method::TableChunk
        )
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no method.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown method {0:?} (temex, hybex, sitelevel, pagelevel, tablechunk, maincontent)")]
pub struct UnknownMethod(pub String);

impl FromStr for Method {
    type Err = UnknownMethod;

    /// A method by its name, case-insensitively; `page-level`, batch mode's name for
    /// [`Method::MainContent`] before the names were unified, is accepted too.
    fn from_str(s: &str) -> Result<Method, UnknownMethod> {
        let lower = s.to_ascii_lowercase();
        if lower == "page-level" {
            return Ok(Method::MainContent);
        }
        Method::ALL
            .into_iter()
            .find(|m| m.name() == lower)
            .ok_or_else(|| UnknownMethod(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_from_str() {
        for m in Method::ALL {
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.name()));
            assert_eq!(serde_json::from_str::<Method>(&json).unwrap(), m);
            assert_eq!(m.name().parse::<Method>().unwrap(), m);
            assert_eq!(m.to_string(), m.name());
        }
        assert_eq!("page-level".parse::<Method>().unwrap(), Method::MainContent);
        assert_eq!("HybEx".parse::<Method>().unwrap(), Method::HybEx);
        assert!("temex2".parse::<Method>().is_err());
    }
}
