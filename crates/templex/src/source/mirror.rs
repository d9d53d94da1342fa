//! stub
/// Mirror.
#[derive(Debug, Default)]
pub struct MirrorSource;
