//! stub
/// Config.
#[derive(Debug, Default)]
pub struct HttpConfig;
/// Source.
#[derive(Debug, Default)]
pub struct HttpSource;
