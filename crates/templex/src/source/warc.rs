//! stub
/// Warc.
#[derive(Debug, Default)]
pub struct WarcSource;
