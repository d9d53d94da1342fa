//! Links (stub).
/// Link.
#[derive(Debug)]
pub struct Link;
/// Extract.
pub fn extract_links() {}
