//! The data set's list of site mirrors (`sites.json`, see the data README).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::EvalError;

/// One site mirror of the data set.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DataSite {
    /// The site's name (`dostips.com`).
    pub name: String,
    /// Its mirror directory, relative to the data directory.
    pub dir: String,
    /// Start pages, relative to `dir`.
    #[serde(default)]
    pub start_pages: Vec<String>,
    /// URL prefixes (`host/path`) that map to the mirror root.
    #[serde(rename = "site_url_prefixes_mapped_to_dir_root", default)]
    pub prefixes: Vec<String>,
}

impl DataSite {
    /// The mirror directory under the data directory `data`.
    pub fn path(&self, data: &Path) -> PathBuf {
        data.join(&self.dir)
    }
}

/// Read `DATA/sites.json`.
pub fn read_sites(data: &Path) -> Result<Vec<DataSite>, EvalError> {
    let path = data.join("sites.json");
    let text = std::fs::read_to_string(&path).map_err(|source| EvalError::Io {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| EvalError::Json { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_site_list() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("sites.json"),
            r#"[{"name": "a.org", "dir": "sites/a", "start_pages": ["index.html"],
                "site_url_prefixes_mapped_to_dir_root": ["a.org"], "html_pages": 3}]"#,
        )
        .unwrap();
        let sites = read_sites(dir.path()).unwrap();
        assert_eq!(sites[0].name, "a.org");
        assert_eq!(sites[0].prefixes, ["a.org"]);
        assert_eq!(sites[0].path(dir.path()), dir.path().join("sites/a"));
        std::fs::write(dir.path().join("sites.json"), "[{").unwrap();
        assert!(matches!(
            read_sites(dir.path()),
            Err(EvalError::Json { .. })
        ));
        assert!(matches!(
            read_sites(&dir.path().join("no")),
            Err(EvalError::Io { .. })
        ));
    }
}
