//! html5gum's tokenizer driving html5ever's tree builder.
//!
//! Both implement the WHATWG algorithms (html5gum passes html5lib's tokenizer tests), but
//! html5ever's tokenizer takes characters one at a time from a queue of tendrils and grows
//! every name and value a character at a time, while html5gum scans bytes and hands over
//! whole runs: a parse takes 0.62× the time (BENCHMARKS.md, "Parse throughput"). The tree
//! builder stays html5ever's, so trees are the same; the tree
//! builder tells the tokenizer which state to switch to after a start tag (`<title>`,
//! `<script>`, `<plaintext>`…) and whether CDATA sections are allowed, exactly as it does
//! html5ever's own tokenizer.
//!
//! One rule differs from the specification, as it does in browsers: the tree builder's stack
//! of open elements is kept to [`MAX_DEPTH`]. Several of its steps walk that stack (is a `<p>`
//! in button scope? an element of this name in scope?), so a page of 100,000 nested `<div>`s
//! costs 100,000² steps: a minute for one megabyte. Blink stops nesting at a depth of 512 and
//! appends deeper elements to the element at that depth, and so does this parser: a start tag
//! that would open an element deeper than that inserts the element, empty, where the tree
//! builder puts its next node, without telling the tree builder (which would walk its stack
//! for it); the element's contents follow it as siblings, and its end tag is dropped. (Where
//! the tree builder puts its next node is where it would put a comment; the sink usually
//! knows that place already, from the text just appended, and otherwise asks the tree
//! builder by sending it an empty comment: see `Sink::insert_flat`.) No page
//! a person reads nests that deep (the deepest of the 7,000 pages in the dev data nests 56),
//! so ordinary trees are unchanged.
//!
//! Where html5ever's own tokenizer parts from the specification, this parser follows the
//! specification: a line feed written as a character reference without its semicolon right
//! after `<pre>`, `<listing>` or `<textarea>` (`<pre>&#10x`) is dropped like a literal one
//! (html5ever's error token for the missing semicolon uses up the tree builder's look-ahead).

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{Tracer, TreeBuilder, TreeSink};
use html5ever::{Attribute, LocalName, ParseOpts, QualName, local_name, ns};

use super::sink::{Handle, Sink, Stop};
use super::tree::Document;
use html5gum::{Emitter, Readable, Reader, State, StringReader, Tokenizer};

/// The deepest the stack of open elements grows (Blink's limit on the tree's depth).
pub(crate) const MAX_DEPTH: usize = 512;

/// Parse `html` as a document into `sink` (html5ever's `parse_document(…).one(html)`, with
/// the stack of open elements kept to [`MAX_DEPTH`]).
///
/// Stops early if the sink's budget runs out (the tokenizer runs on to the end of the
/// input, which is linear, but the tree builder gets nothing more), and says why.
///
/// With `scripting` off, the page is read as by a browser without scripts: `<noscript>`
/// elements hold markup (crawler views of script-built pages, forum threads among them), and
/// the document shows them.
pub(crate) fn parse_document(sink: Sink, html: &str, scripting: bool) -> (Document, Option<Stop>) {
    // html5ever's tokenizer drops a leading byte order mark; html5gum would read it as text.
    let html = html.strip_prefix('\u{feff}').unwrap_or(html);
    let mut opts = ParseOpts::default().tree_builder;
    opts.scripting_enabled = scripting;
    let builder = TreeBuilder::new(sink, opts);
    let input = Input {
        rest: html.to_reader(),
        stop: &builder.sink.stop,
    };
    let tokenizer = Tokenizer::new_with_emitter(input, TreeEmitter::new(&builder));
    // Reading a string cannot fail.
    let Ok(()) = tokenizer.finish();
    let stop = builder.sink.stop.get();
    // A stopped parse's tree is thrown away (a budget ran out): it is not numbered first.
    let mut doc = match stop {
        Some(_) => Sink::default().finish(),
        None => builder.sink.finish(),
    };
    doc.noscript_shown = !scripting;
    (doc, stop)
}

/// The page as the tokenizer reads it: it ends where the sink stopped the parse (a budget
/// ran out), so that the rest of the page, whose tokens would be thrown away, is not read
/// (at 10 MB that took 0.2–0.35 s past a time budget).
struct Input<'a> {
    rest: StringReader<'a>,
    stop: &'a std::cell::Cell<Option<super::sink::Stop>>,
}

impl Reader for Input<'_> {
    type Error = std::convert::Infallible;

    #[inline(always)]
    fn read_byte(&mut self) -> Result<Option<u8>, Self::Error> {
        if self.stop.get().is_some() {
            return Ok(None);
        }
        self.rest.read_byte()
    }

    #[inline(always)]
    fn try_read_string(&mut self, s: &[u8], case_sensitive: bool) -> Result<bool, Self::Error> {
        if self.stop.get().is_some() {
            return Ok(false);
        }
        self.rest.try_read_string(s, case_sensitive)
    }

    #[inline(always)]
    fn read_until<'b>(
        &'b mut self,
        needle: &[u8],
        char_buf: &'b mut [u8; 4],
    ) -> Result<Option<&'b [u8]>, Self::Error> {
        if self.stop.get().is_some() {
            return Ok(None);
        }
        self.rest.read_until(needle, char_buf)
    }
}

/// Text from the tokenizer: the input is a `&str` and tokens end at ASCII characters, so
/// it is UTF-8; anything else would be a tokenizer bug, repaired rather than trusted.
/// (`from_utf8` first: it checks valid text faster than `from_utf8_lossy`'s chunk walk.)
fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn tendril(bytes: &[u8]) -> StrTendril {
    StrTendril::from_slice(&text(bytes))
}

fn local_name(bytes: &[u8]) -> LocalName {
    LocalName::from(text(bytes))
}

type Builder = TreeBuilder<Handle, Sink>;

/// Counts the handles the tree builder holds: its stack of open elements, the list of
/// active formatting elements, and a few pointers.
struct Count(std::cell::Cell<usize>);

impl Tracer for Count {
    type Handle = Handle;

    fn trace_handle(&self, _node: &Handle) {
        self.0.set(self.0.get() + 1);
    }
}

/// Keeps the tree builder's stack of open elements to [`MAX_DEPTH`] (see the module docs).
///
/// The tree builder does not show its stack; it lets a tracer count what it holds, which
/// costs the stack's length. So a running estimate (start tags that open an element, less end
/// tags) stands in for the count. The estimate misses what the tree builder opens or closes by
/// itself (`<tbody>`, reopened formatting elements, implied end tags), so it is set from a
/// count whenever it has covered half the distance to the limit since the last one, and every
/// [`MAX_DEPTH`] start tags. Counts cost a few steps per start tag: linear in the page.
struct DepthGuard {
    estimate: usize,
    /// The estimate at which to count next.
    next_count: usize,
    since_count: usize,
    /// End tags to drop, by name: one for each start tag that was inserted flat.
    closed_early: Vec<(LocalName, usize)>,
}

impl Default for DepthGuard {
    fn default() -> Self {
        DepthGuard {
            estimate: 0,
            next_count: MAX_DEPTH / 2,
            since_count: 0,
            closed_early: Vec::new(),
        }
    }
}

impl DepthGuard {
    /// Whether a start tag of `name` must not open an element (but be inserted flat).
    fn too_deep(&mut self, builder: &Builder, name: &LocalName, self_closing: bool) -> bool {
        if opens_nothing(name) {
            return false;
        }
        self.since_count += 1;
        if self.since_count >= MAX_DEPTH
            || (self.estimate >= self.next_count && self.estimate < MAX_DEPTH)
        {
            let count = Count(std::cell::Cell::new(0));
            builder.trace_handles(&count);
            let depth = count.0.get();
            self.estimate = depth;
            self.since_count = 0;
            // Below the limit, count again halfway to it; at the limit, as soon as end tags
            // take the estimate below it.
            self.next_count = if depth < MAX_DEPTH {
                depth + (MAX_DEPTH - depth).div_ceil(2)
            } else {
                0
            };
        }
        if self.estimate < MAX_DEPTH {
            if !self_closing {
                self.estimate += 1;
            }
            return false;
        }
        match self.closed_early.iter_mut().find(|(n, _)| n == name) {
            Some((_, k)) => *k += 1,
            None => self.closed_early.push((name.clone(), 1)),
        }
        true
    }

    /// Whether an end tag of `name` answers a start tag that was inserted flat.
    fn drop_end(&mut self, name: &LocalName) -> bool {
        if let Some(i) = self.closed_early.iter().position(|(n, _)| n == name) {
            let k = &mut self.closed_early[i].1;
            *k -= 1;
            if *k == 0 {
                self.closed_early.swap_remove(i);
            }
            return true;
        }
        self.estimate = self.estimate.saturating_sub(1);
        false
    }
}

/// Start tags that never deepen the stack, or whose contents are text (the tokenizer, not
/// the stack, finds their end), or that the tree builder merges into an open element.
fn opens_nothing(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("keygen")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
            | local_name!("html")
            | local_name!("head")
            | local_name!("body")
            | local_name!("frameset")
            | local_name!("script")
            | local_name!("style")
            | local_name!("title")
            | local_name!("textarea")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript")
            | local_name!("plaintext")
    )
}

/// Collects html5gum's token parts into html5ever tokens and feeds them to the tree builder.
struct TreeEmitter<'a> {
    builder: &'a Builder,
    depth: DepthGuard,
    /// Tokens sent (the clock is read every 1,024).
    sent: u64,
    /// Characters not yet sent (they go out as one token before the next other token).
    chars: Vec<u8>,
    kind: TagKind,
    name: Vec<u8>,
    self_closing: bool,
    attrs: Vec<Attribute>,
    duplicate_attrs: bool,
    /// The names in `attrs`, once a tag has many: the first of two attributes of one name
    /// wins, and a linear search per attribute would make a tag of 100,000 attributes cost
    /// 100,000² steps.
    attr_names: std::collections::HashSet<LocalName>,
    /// An attribute is being read into `attr_name` and `attr_value`.
    in_attr: bool,
    attr_name: Vec<u8>,
    attr_value: Vec<u8>,
    /// For the tokenizer's "appropriate end tag" test in raw text states.
    last_start_tag: Vec<u8>,
    comment: Vec<u8>,
    doctype_name: Vec<u8>,
    public_id: Option<Vec<u8>>,
    system_id: Option<Vec<u8>>,
    force_quirks: bool,
}

impl<'a> TreeEmitter<'a> {
    fn new(builder: &'a Builder) -> Self {
        TreeEmitter {
            builder,
            depth: DepthGuard::default(),
            sent: 0,
            chars: Vec::new(),
            kind: TagKind::StartTag,
            name: Vec::new(),
            self_closing: false,
            attrs: Vec::new(),
            duplicate_attrs: false,
            attr_names: std::collections::HashSet::new(),
            in_attr: false,
            attr_name: Vec::new(),
            attr_value: Vec::new(),
            last_start_tag: Vec::new(),
            comment: Vec::new(),
            doctype_name: Vec::new(),
            public_id: None,
            system_id: None,
            force_quirks: false,
        }
    }

    /// Send a token; returns the tokenizer state the tree builder asks for. Once a budget
    /// has run out, nothing is sent.
    fn send(&mut self, token: Token) -> Option<State> {
        if !self.tick() {
            return None;
        }
        let sink = &self.builder.sink;
        sink.forget_insertion();
        // Only text leaves the place of the next text known: a tag or a comment may flush
        // pending table text (the place is set) and then pop elements (`</template>` after
        // text in a template's row), which tells the sink nothing.
        let text = matches!(token, Token::CharacterTokens(_));
        let reopens = sink.before_token(&token);
        let result = self.builder.process_token(token, 0);
        sink.settle_links(reopens);
        if !text {
            sink.forget_insertion();
        }
        match result {
            TokenSinkResult::RawData(RawKind::Rcdata) => Some(State::RcData),
            TokenSinkResult::RawData(RawKind::Rawtext) => Some(State::RawText),
            TokenSinkResult::RawData(RawKind::ScriptData | RawKind::ScriptDataEscaped(_)) => {
                Some(State::ScriptData)
            }
            TokenSinkResult::Plaintext => Some(State::PlainText),
            // A script end tag (there is no script to run) and a `<meta charset>` (the
            // page was decoded before parsing) change nothing.
            TokenSinkResult::Continue
            | TokenSinkResult::Script(_)
            | TokenSinkResult::EncodingIndicator(_) => None,
        }
    }

    /// Count a token (the thread's deadline is asked every 1,024); whether the parse goes on
    /// (no budget has run out).
    fn tick(&mut self) -> bool {
        let sink = &self.builder.sink;
        if sink.stop.get().is_some() {
            return false;
        }
        self.sent += 1;
        if self.sent % 1024 == 0 && super::deadline::passed() {
            sink.stop.set(Some(Stop::Time));
            return false;
        }
        true
    }

    fn flush_chars(&mut self) {
        if self.chars.is_empty() {
            return;
        }
        // Text the sink knows the place of needs no token (see `Sink::append_known_text`);
        // NULs are the tree builder's to decide.
        if memchr::memchr(0, &self.chars).is_none()
            && self.builder.sink.knows_text_place()
            && self.tick()
        {
            let sink = &self.builder.sink;
            if sink.append_known_text(&text(&self.chars)) {
                self.chars.clear();
                return;
            }
        }
        let chars = std::mem::take(&mut self.chars);
        // The tokenizer passes U+0000 through only where the tree builder decides what it
        // becomes (dropped, or U+FFFD in foreign content): html5ever's own tokenizer sends
        // it as a token of its own.
        for (i, part) in chars.split(|&b| b == 0).enumerate() {
            if i > 0 {
                self.send(Token::NullCharacterToken);
            }
            if !part.is_empty() {
                self.send(Token::CharacterTokens(tendril(part)));
            }
        }
        self.chars = chars;
        self.chars.clear();
    }

    fn end_attr(&mut self) {
        if !std::mem::replace(&mut self.in_attr, false) {
            return;
        }
        let name = local_name(&self.attr_name);
        // The first of two attributes of one name wins.
        const FEW: usize = 32;
        let seen = if self.attrs.len() < FEW {
            self.attrs.iter().any(|a| a.name.local == name)
        } else {
            if self.attr_names.is_empty() {
                self.attr_names
                    .extend(self.attrs.iter().map(|a| a.name.local.clone()));
            }
            !self.attr_names.insert(name.clone())
        };
        if seen {
            self.duplicate_attrs = true;
        } else {
            self.attrs.push(Attribute {
                name: QualName::new(None, ns!(), name),
                value: tendril(&self.attr_value),
            });
        }
        self.attr_name.clear();
        self.attr_value.clear();
    }

    fn init_tag(&mut self, kind: TagKind) {
        self.kind = kind;
        self.name.clear();
        self.self_closing = false;
        self.attrs.clear();
        self.duplicate_attrs = false;
        // (Clearing walks the set's capacity: only after a tag that used it.)
        if !self.attr_names.is_empty() {
            self.attr_names.clear();
        }
        self.in_attr = false;
        self.attr_name.clear();
        self.attr_value.clear();
    }
}

impl Emitter for TreeEmitter<'_> {
    type Token = std::convert::Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_chars();
        self.send(Token::EOFToken);
        self.builder.end();
    }

    fn emit_error(&mut self, _error: html5gum::Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Self::Token> {
        None
    }

    fn emit_string(&mut self, c: &[u8]) {
        self.chars.extend_from_slice(c);
    }

    fn init_start_tag(&mut self) {
        self.init_tag(TagKind::StartTag);
    }

    fn init_end_tag(&mut self) {
        self.init_tag(TagKind::EndTag);
    }

    fn init_comment(&mut self) {
        self.comment.clear();
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        self.end_attr();
        self.flush_chars();
        let start = self.kind == TagKind::StartTag;
        self.last_start_tag.clear();
        if start {
            self.last_start_tag.extend_from_slice(&self.name);
        }
        let name = local_name(&self.name);
        if start && self.depth.too_deep(self.builder, &name, self.self_closing) {
            if !self.tick() {
                return None;
            }
            let builder = self.builder;
            let attrs = self.attrs.drain(..).collect();
            builder
                .sink
                .insert_flat(QualName::new(None, ns!(html), name), attrs, || {
                    let _ = builder.process_token(Token::CommentToken(StrTendril::new()), 0);
                });
            return None;
        }
        if !start && self.depth.drop_end(&name) {
            return None;
        }
        let tag = Tag {
            kind: self.kind,
            name,
            self_closing: start && self.self_closing,
            // An end tag's attributes mean nothing (a parse error). The scratch vector
            // stays for the next tag; the element gets one of the exact size.
            attrs: if start {
                self.attrs.drain(..).collect()
            } else {
                Vec::new()
            },
            had_duplicate_attributes: self.duplicate_attrs,
        };
        self.send(Token::TagToken(tag))
    }

    fn emit_current_comment(&mut self) {
        self.flush_chars();
        let comment = tendril(&self.comment);
        self.send(Token::CommentToken(comment));
    }

    fn emit_current_doctype(&mut self) {
        self.flush_chars();
        let doctype = Doctype {
            name: (!self.doctype_name.is_empty()).then(|| tendril(&self.doctype_name)),
            public_id: self.public_id.as_deref().map(tendril),
            system_id: self.system_id.as_deref().map(tendril),
            force_quirks: self.force_quirks,
        };
        self.send(Token::DoctypeToken(doctype));
    }

    fn set_self_closing(&mut self) {
        self.self_closing = true;
    }

    fn set_force_quirks(&mut self) {
        self.force_quirks = true;
    }

    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }

    fn push_comment(&mut self, s: &[u8]) {
        self.comment.extend_from_slice(s);
    }

    fn push_doctype_name(&mut self, s: &[u8]) {
        self.doctype_name.extend_from_slice(s);
    }

    fn init_doctype(&mut self) {
        self.doctype_name.clear();
        self.public_id = None;
        self.system_id = None;
        self.force_quirks = false;
    }

    fn init_attribute(&mut self) {
        self.end_attr();
        self.in_attr = true;
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        self.attr_name.extend_from_slice(s);
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        self.attr_value.extend_from_slice(s);
    }

    fn set_doctype_public_identifier(&mut self, value: &[u8]) {
        self.public_id = Some(value.to_vec());
    }

    fn set_doctype_system_identifier(&mut self, value: &[u8]) {
        self.system_id = Some(value.to_vec());
    }

    fn push_doctype_public_identifier(&mut self, s: &[u8]) {
        if let Some(id) = &mut self.public_id {
            id.extend_from_slice(s);
        }
    }

    fn push_doctype_system_identifier(&mut self, s: &[u8]) {
        if let Some(id) = &mut self.system_id {
            id.extend_from_slice(s);
        }
    }

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.kind == TagKind::EndTag
            && !self.last_start_tag.is_empty()
            && self.name == self.last_start_tag
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
