//! Parsing entry points: bytes or text → [`Document`], through html5gum's tokenizer and
//! html5ever's tree builder (`tokenize.rs`) into the arena sink (`sink.rs`).

use html5ever::ParseOpts;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer};
use html5ever::tree_builder::{TreeBuilder, TreeSink};
use markup5ever::TokenizerResult;

use super::decode::decode;
use super::sink::Sink;
use super::tree::Document;

/// Parse a page from bytes: decode (see [`super::decode()`]), then parse as HTML.
///
/// Never fails: any byte sequence yields a document (possibly `<html><head></head><body>`).
pub fn parse_bytes(bytes: &[u8], transport_charset: Option<&str>) -> Document {
    let decoded = decode(bytes, transport_charset);
    let mut doc = parse_str(&decoded.text);
    doc.encoding = decoded.encoding;
    doc.encoding_source = decoded.source;
    doc
}

/// Parse a page that is already text.
///
/// html5gum tokenizes and html5ever builds the tree (see `dom/tokenize.rs`); the tree is
/// the one [`parse_str_html5ever`] builds, faster.
pub fn parse_str(html: &str) -> Document {
    super::tokenize::parse_document(Sink::for_input(html, usize::MAX), html, true).0
}

/// Parse a page that is already text with html5ever's own tokenizer: the reference
/// [`parse_str`] is tested against, about a third slower.
pub fn parse_str_html5ever(html: &str) -> Document {
    let opts = ParseOpts::default();
    let builder = Settled(TreeBuilder::new(Sink::default(), opts.tree_builder));
    let tokenizer = Tokenizer::new(builder, opts.tokenizer);
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // The feed pauses after each `</script>` and `<meta charset>` (a browser would run the
    // script, or decode again, there).
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    let Settled(builder) = tokenizer.sink;
    builder.sink.finish()
}

/// html5ever's tree builder, telling the sink after each token which links it reopened
/// ([`Sink::settle_links`]), as `dom/tokenize.rs`'s emitter does.
struct Settled(TreeBuilder<super::sink::Handle, Sink>);

impl TokenSink for Settled {
    type Handle = super::sink::Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Self::Handle> {
        let reopens = self.0.sink.before_token(&token);
        let result = self.0.process_token(token, line_number);
        self.0.sink.settle_links(reopens);
        result
    }

    fn end(&self) {
        self.0.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.0
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
