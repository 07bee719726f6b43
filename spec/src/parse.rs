//! The parser: `.wire` text into the [`model`](crate::model), with every syntax error it can
//! find reported as a [`Diagnostic`].
//!
//! The grammar is the one in `LANGUAGE.md`. Tokens are recognised with nom 8 combinators; the
//! grammar on top of them is a hand-written recursive descent, because what matters here is
//! error recovery (nom stops at the first failure): after an error the parser skips to the next
//! entry of the enclosing block (a `,`, the closing `}`, or a new line starting a member) or,
//! failing that, to the next line that starts an item, and keeps going, so that one run reports
//! the errors of a whole file.
//!
//! Only syntax is checked here, including the ranges the model's field types impose (a bit
//! index fits a `u8`, a width is 1 to 64, a quant denominator is not 0). Whether names resolve,
//! widths fit their records or constants fit their types is the validator's business.
//!
//! The input is untrusted: tokens are produced lazily so memory stays proportional to the
//! model, not the text; type nesting is bounded (32 levels) so that no input can overflow the
//! stack; and a file stops being parsed after 50 diagnostics so that garbage produces a short
//! report in linear time.

use crate::diag::{line_col, Diagnostic};
use crate::model::{
    AckDecl, Age, Array, Ascending, Bit, BitKind, Bits, CodedForm, CodedProfile, CodedUse, Cond,
    Const, ConstValue, Count, Docs, Endian, Field, FieldBit, File, Form, FormField, FormKind,
    Group, GroupField, IntType, Item, Machine, MachineSchema, NameRef, Profile, ProfileMask,
    ProfileName, ProfileType, Record, RecordKind, RoleDecl, Selector, Span, State, StateFlagsField,
    StateMember, StateRecord, TablesPath, Type, Union, Variant,
};
use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while};
use nom::character::complete::{anychar, multispace0, satisfy};
use nom::combinator::{map, map_opt, recognize, value};
use nom::{IResult, Parser as _};

/// How deeply types may nest (`[[[u8; n]; m]; k]`, `quant(...)`) before the parser gives up on
/// the field. Real layouts nest two or three levels; the bound keeps hostile input off the
/// stack.
const MAX_TYPE_DEPTH: usize = 32;

/// How many diagnostics one file may produce before the parser stops (one more says so).
const MAX_ERRORS: usize = 50;

/// How many widths of a `bucket(...)` the parser keeps: one more than the 8 the validator
/// allows, so that a longer list is still reported as too long without growing the model.
const MAX_BUCKETS_PARSED: usize = 9;

/// Parses the layout file `source`, named `name` in diagnostics and in [`File::name`].
///
/// Returns the model when the file is syntactically valid, otherwise every syntax error found
/// (at most 50, and a last one saying that the parser stopped). Spans in the model
/// and in the diagnostics are byte offsets into `source`. Never panics, whatever the input.
pub fn parse_file(name: &str, source: &str) -> Result<File, Vec<Diagnostic>> {
    let mut parser = Parser {
        name,
        src: source,
        pos: 0,
        peeked: None,
        depth: 0,
        diags: Vec::new(),
        aborted: false,
    };
    let file = parser.file();
    if parser.diags.is_empty() {
        Ok(file)
    } else {
        Err(parser.diags)
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'s> {
    Ident(&'s str),
    /// The literal's text as written (digits, `0x`, `_`), without a sign.
    Int(&'s str),
    Punct(&'static str),
    /// `///`: the text after the marker and one space.
    Doc(&'s str),
    /// `//!`: the text after the marker and one space.
    InnerDoc(&'s str),
    /// `//`: the text after the marker and one space.
    Comment(&'s str),
    /// `"text"` on one line: the text between the quotes (a coded frame's tables path).
    Str(&'s str),
    Unknown(char),
    Eof,
}

#[derive(Debug, Clone, Copy)]
struct Token<'s> {
    tok: Tok<'s>,
    span: Span,
    /// Only whitespace precedes the token on its line: comments must be so placed, and a new
    /// line is where recovery expects the next member.
    line_start: bool,
    /// The token is the first character of its line: an item keyword there most likely starts
    /// an item even inside a block whose `}` was forgotten.
    column0: bool,
}

type LexResult<'s, T> = IResult<&'s str, T>;

fn ident(i: &str) -> LexResult<'_, &str> {
    recognize((
        satisfy(|c| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(i)
}

/// A literal runs on over letters so that `12ab` or `0xZZ` is one bad literal, not a literal
/// followed by a name.
fn int_literal(i: &str) -> LexResult<'_, &str> {
    recognize((
        satisfy(|c| c.is_ascii_digit()),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(i)
}

fn comment(i: &str) -> LexResult<'_, Tok<'_>> {
    map(
        (tag("//"), take_till(|c| c == '\n')),
        |(_, body): (&str, &str)| {
            // A CRLF file leaves the `\r` on the line; it is not part of the text.
            let body = body.strip_suffix('\r').unwrap_or(body);
            if let Some(rest) = body.strip_prefix('!') {
                Tok::InnerDoc(strip_space(rest))
            } else if let Some(rest) = body.strip_prefix('/').filter(|r| !r.starts_with('/')) {
                Tok::Doc(strip_space(rest))
            } else {
                Tok::Comment(strip_space(body))
            }
        },
    )
    .parse(i)
}

/// `"text"`, closed on its line; an unclosed quote lexes as an unknown character.
fn string_literal(i: &str) -> LexResult<'_, Tok<'_>> {
    map(
        (tag("\""), take_till(|c| c == '"' || c == '\n'), tag("\"")),
        |(_, body, _): (&str, &str, &str)| Tok::Str(body),
    )
    .parse(i)
}

fn strip_space(s: &str) -> &str {
    s.strip_prefix(' ').unwrap_or(s)
}

fn punct(i: &str) -> LexResult<'_, &'static str> {
    // Longer tokens first: `=>` before `=`, `..=` before `.`.
    match i.as_bytes().first() {
        Some(b'=') => alt((value("=>", tag("=>")), value("=", tag("=")))).parse(i),
        Some(b'.') => alt((value("..=", tag("..=")), value(".", tag(".")))).parse(i),
        Some(b'&') => value("&&", tag("&&")).parse(i),
        _ => map_opt(anychar, single_punct).parse(i),
    }
}

fn single_punct(c: char) -> Option<&'static str> {
    Some(match c {
        '{' => "{",
        '}' => "}",
        '[' => "[",
        ']' => "]",
        '(' => "(",
        ')' => ")",
        ';' => ";",
        ':' => ":",
        ',' => ",",
        '!' => "!",
        '>' => ">",
        '?' => "?",
        '/' => "/",
        '-' => "-",
        _ => return None,
    })
}

fn token(i: &str) -> LexResult<'_, Tok<'_>> {
    // Dispatching on the first byte keeps lexing cheap per token, which matters for
    // megabytes of hostile single-character tokens.
    match i.as_bytes().first() {
        Some(b'/') if i.starts_with("//") => comment(i),
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => map(ident, Tok::Ident).parse(i),
        Some(b) if b.is_ascii_digit() => map(int_literal, Tok::Int).parse(i),
        Some(b'"') => alt((string_literal, map(anychar, Tok::Unknown))).parse(i),
        _ => alt((map(punct, Tok::Punct), map(anychar, Tok::Unknown))).parse(i),
    }
}

// ---------------------------------------------------------------------------------------------
// Keywords and type names

/// A type name recognised by its spelling (`u7`, `i64be`, `f32`, `varint`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeWord {
    /// `bits` may be out of range: the caller reports it against the token.
    Int {
        signed: bool,
        bits: u64,
        endian: Option<Endian>,
    },
    Float {
        bits: u64,
        endian: Option<Endian>,
    },
    Bool,
    Varint,
    Zigzag,
    Bytes,
    Quant,
    Quat,
    Bucket {
        signed: bool,
    },
}

fn type_word(word: &str) -> Option<TypeWord> {
    match word {
        "bool" => return Some(TypeWord::Bool),
        "varint" => return Some(TypeWord::Varint),
        "zigzag" => return Some(TypeWord::Zigzag),
        "bytes" => return Some(TypeWord::Bytes),
        "quant" => return Some(TypeWord::Quant),
        "quat" => return Some(TypeWord::Quat),
        "bucket" => return Some(TypeWord::Bucket { signed: false }),
        "zbucket" => return Some(TypeWord::Bucket { signed: true }),
        _ => {}
    }
    let (base, endian) = if let Some(b) = word.strip_suffix("le") {
        (b, Some(Endian::Little))
    } else if let Some(b) = word.strip_suffix("be") {
        (b, Some(Endian::Big))
    } else {
        (word, None)
    };
    let mut chars = base.chars();
    let kind = chars.next()?;
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturating: `u99999999999999999999` is still an integer type, just an invalid one.
    let bits = digits.bytes().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    match kind {
        'u' => Some(TypeWord::Int {
            signed: false,
            bits,
            endian,
        }),
        'i' => Some(TypeWord::Int {
            signed: true,
            bits,
            endian,
        }),
        'f' => Some(TypeWord::Float { bits, endian }),
        _ => None,
    }
}

const KEYWORDS: &[&str] = &[
    "endian",
    "little",
    "big",
    "const",
    "bits",
    "reserved",
    "requires",
    "record",
    "packed",
    "frame",
    "union",
    "select",
    "if",
    "ascending",
    "max_offset",
    "state",
    "group",
];

/// Whether `word` is reserved: it cannot name an item, bit or variant (fields may use it).
pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word) || type_word(word).is_some()
}

fn is_item_keyword(word: &str) -> bool {
    matches!(
        word,
        "const" | "bits" | "record" | "packed" | "frame" | "union" | "endian" | "state" | "schema"
    )
}

/// Parses an integer literal's text (decimal or `0x` hex, `_` separators).
fn int_value(text: &str) -> Result<u128, IntError> {
    let (digits, radix) = match text.strip_prefix("0x") {
        Some(hex) => (hex, 16),
        None => (text, 10),
    };
    let mut seen = false;
    let mut n: u128 = 0;
    for c in digits.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(radix).ok_or(IntError::Invalid)?;
        seen = true;
        n = n
            .checked_mul(u128::from(radix))
            .and_then(|n| n.checked_add(u128::from(d)))
            .ok_or(IntError::TooLarge)?;
    }
    if seen {
        Ok(n)
    } else {
        Err(IntError::Invalid)
    }
}

enum IntError {
    Invalid,
    TooLarge,
}

// ---------------------------------------------------------------------------------------------
// The parser

/// An error was reported; the caller recovers.
struct Failed;

type PResult<T> = Result<T, Failed>;

/// Docs and comments collected before an element.
#[derive(Default)]
struct Pending {
    docs: Docs,
    /// Where the first `///` line is, for "doc comment documents nothing".
    first_doc: Option<Span>,
}

/// One parsed entry of a block, and what follows it.
struct Entry<T> {
    items: Vec<T>,
    /// Comments that belong to the next entry (those at the end of a select block).
    carry: Vec<String>,
    /// A select block needs no comma after its `}`.
    comma_optional: bool,
    /// "field `tick`", for "expected `,` after field `tick`".
    what: String,
}

/// One member of a state's frame block, kept until the block ends.
enum ProfileEntry {
    Change(ProfileName, Span),
    Mask(ProfileMask, Span),
    Body(ProfileName, Span),
    Eid(ProfileType, Span),
    Prefix(ProfileName, Span),
}

impl ProfileEntry {
    /// Stores the member in `profile`; a member given twice is reported.
    fn store(self, profile: &mut Profile, p: &mut Parser<'_>) {
        fn set<T>(slot: &mut Option<T>, v: T, span: Span, word: &str, p: &mut Parser<'_>) {
            if slot.is_some() {
                p.error(
                    span,
                    format!("`{word}` given twice in a frame"),
                    "remove this member",
                );
            } else {
                *slot = Some(v);
            }
        }
        match self {
            ProfileEntry::Change(v, s) => set(&mut profile.change, v, s, "change", p),
            ProfileEntry::Mask(v, s) => set(&mut profile.mask, v, s, "mask", p),
            ProfileEntry::Body(v, s) => set(&mut profile.body, v, s, "body", p),
            ProfileEntry::Eid(v, s) => set(&mut profile.eid, v, s, "eid", p),
            ProfileEntry::Prefix(v, s) => set(&mut profile.prefix, v, s, "prefix", p),
        }
    }
}

struct Parser<'s> {
    name: &'s str,
    src: &'s str,
    pos: usize,
    peeked: Option<Token<'s>>,
    /// `{` opened and not closed, counted as tokens are consumed: recovery skips to the
    /// enclosing block's level.
    depth: usize,
    diags: Vec<Diagnostic>,
    /// Set after [`MAX_ERRORS`]: every token is then end of file and every loop unwinds.
    aborted: bool,
}

impl<'s> Parser<'s> {
    // -- tokens --------------------------------------------------------------------------------

    fn lex_at(&self, pos: usize) -> Token<'s> {
        let rest = &self.src[pos..];
        let after_ws =
            multispace0::<&str, nom::error::Error<&str>>(rest).map_or(rest, |(after, _)| after);
        let start = self.src.len() - after_ws.len();
        let before = &self.src.as_bytes()[..start];
        let column0 = before.last().is_none_or(|&b| b == b'\n');
        let line_start = before
            .iter()
            .rev()
            .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r'))
            .is_none_or(|&b| b == b'\n');
        let (tok, end) = if after_ws.is_empty() {
            (Tok::Eof, start)
        } else {
            match token(after_ws) {
                Ok((after, tok)) => (tok, self.src.len() - after.len()),
                // `anychar` accepts any non-empty input, so this is unreachable; treating it as
                // the end keeps the parser total.
                Err(_) => (Tok::Eof, self.src.len()),
            }
        };
        Token {
            tok,
            span: Span::new(start, end),
            line_start,
            column0,
        }
    }

    fn eof(&self) -> Token<'s> {
        let n = self.src.len();
        Token {
            tok: Tok::Eof,
            span: Span::new(n, n),
            line_start: true,
            column0: false,
        }
    }

    /// The next token, comments included.
    fn peek_raw(&mut self) -> Token<'s> {
        if self.aborted {
            return self.eof();
        }
        if let Some(t) = self.peeked {
            return t;
        }
        let t = self.lex_at(self.pos);
        self.peeked = Some(t);
        t
    }

    /// The next token, after reporting and skipping any comment that follows code on its line.
    /// A comment on a line of its own is returned: where [`Self::docs`] does not collect it, it
    /// ends an optional part (`= value`, `if ...`) and is unexpected where a token is required.
    fn peek(&mut self) -> Token<'s> {
        loop {
            let t = self.peek_raw();
            match t.tok {
                Tok::Doc(_) | Tok::InnerDoc(_) | Tok::Comment(_) if !t.line_start => {
                    self.bump();
                    self.comment_after_code(t.span);
                }
                _ => return t,
            }
        }
    }

    /// The next token where one is required: a comment on its own line there sits inside a
    /// declaration, which the model cannot keep; it is reported and skipped.
    fn peek_required(&mut self) -> Token<'s> {
        let mut reported = false;
        loop {
            let t = self.peek();
            if !matches!(t.tok, Tok::Doc(_) | Tok::InnerDoc(_) | Tok::Comment(_)) {
                return t;
            }
            self.bump();
            if !reported {
                reported = true;
                self.error(
                    t.span,
                    "comment inside a declaration",
                    "move the comment before the item, field, bit or variant it is about",
                );
            }
        }
    }

    /// The token after the next one, without consuming anything.
    fn peek_second(&mut self) -> Tok<'s> {
        let first = self.peek_raw();
        if matches!(first.tok, Tok::Eof) {
            return Tok::Eof;
        }
        self.lex_at(first.span.end).tok
    }

    fn bump(&mut self) {
        let t = self.peek_raw();
        match t.tok {
            Tok::Punct("{") => self.depth += 1,
            Tok::Punct("}") => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        self.pos = t.span.end;
        self.peeked = None;
    }

    fn at_word(&mut self, w: &str) -> bool {
        matches!(self.peek().tok, Tok::Ident(v) if v == w)
    }

    /// Consumes `p` if it is next.
    fn eat(&mut self, p: &str) -> Option<Span> {
        let t = self.peek();
        if matches!(t.tok, Tok::Punct(q) if q == p) {
            self.bump();
            Some(t.span)
        } else {
            None
        }
    }

    /// Consumes `p`, or reports `message` ("expected `:` after ...") at what is there instead.
    fn expect(&mut self, p: &'static str, message: impl FnOnce() -> String) -> PResult<Span> {
        let t = self.peek_required();
        if matches!(t.tok, Tok::Punct(q) if q == p) {
            self.bump();
            return Ok(t.span);
        }
        Err(self.unexpected(t, &message(), &format!("expected `{p}`")))
    }

    // -- diagnostics ---------------------------------------------------------------------------

    fn error(
        &mut self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Failed {
        if self.aborted {
            return Failed;
        }
        if self.diags.len() >= MAX_ERRORS {
            self.diags.push(Diagnostic::new(
                self.name,
                span,
                format!("too many errors; stopped after {MAX_ERRORS}"),
                "parsing stopped here",
            ));
            self.aborted = true;
            self.peeked = None;
            return Failed;
        }
        self.diags
            .push(Diagnostic::new(self.name, span, message, label));
        Failed
    }

    /// "expected X, found Y" at token `t`.
    fn unexpected(&mut self, t: Token<'s>, expected: &str, label: &str) -> Failed {
        let message = format!("{expected}, found {}", describe(t.tok));
        self.error(t.span, message, label)
    }

    fn comment_after_code(&mut self, span: Span) {
        self.error(
            span,
            "move the comment to its own line",
            "a comment cannot follow code on the same line",
        );
    }

    fn note_at(&self, what: &str, offset: usize) -> String {
        let (line, col) = line_col(self.src, offset);
        format!("{what} at {}:{line}:{col}", self.name)
    }

    // -- recovery ------------------------------------------------------------------------------

    /// Skips to where the next item can start: a line beginning with an item keyword or a
    /// comment outside any block, or an item keyword in the first column (a block whose `}`
    /// was forgotten must not swallow the rest of the file).
    fn recover_item(&mut self) {
        loop {
            let t = self.peek_raw();
            match t.tok {
                Tok::Eof => return,
                Tok::Ident(w)
                    if is_item_keyword(w) && t.line_start && (self.depth == 0 || t.column0) =>
                {
                    self.depth = 0;
                    return;
                }
                Tok::Doc(_) | Tok::InnerDoc(_) | Tok::Comment(_)
                    if t.line_start && self.depth == 0 =>
                {
                    return
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the next entry of the block whose contents are at `block_depth`: past a `,`,
    /// or to the closing `}`, or to a new line that starts with a name or a comment.
    fn recover_entry(&mut self, block_depth: usize) {
        loop {
            let t = self.peek_raw();
            if self.depth == block_depth {
                match t.tok {
                    Tok::Punct(",") => {
                        self.bump();
                        return;
                    }
                    Tok::Punct("}") => return,
                    Tok::Ident(_) | Tok::Doc(_) | Tok::Comment(_) | Tok::InnerDoc(_)
                        if t.line_start =>
                    {
                        return
                    }
                    _ => {}
                }
            }
            match t.tok {
                Tok::Eof => return,
                Tok::Ident(w) if t.column0 && is_item_keyword(w) => return,
                _ => {}
            }
            self.bump();
        }
    }

    // -- docs ----------------------------------------------------------------------------------

    /// Collects the `///` and `//` lines before an element. `//!` lines go to `file_doc` when
    /// given (before the first item), and are an error otherwise.
    fn docs(&mut self, mut file_doc: Option<&mut Vec<String>>) -> Pending {
        let mut pending = Pending::default();
        loop {
            let t = self.peek_raw();
            if !matches!(t.tok, Tok::Doc(_) | Tok::InnerDoc(_) | Tok::Comment(_)) {
                return pending;
            }
            self.bump();
            if !t.line_start {
                self.comment_after_code(t.span);
                continue;
            }
            match t.tok {
                Tok::Doc(text) => {
                    pending.first_doc.get_or_insert(t.span);
                    pending.docs.doc.push(text.to_string());
                }
                Tok::Comment(text) => pending.docs.comments.push(text.to_string()),
                Tok::InnerDoc(text) => match file_doc.as_deref_mut() {
                    Some(doc) => doc.push(text.to_string()),
                    None => {
                        self.error(
                            t.span,
                            "`//!` after the first item",
                            "`//!` documents the file and goes before the first item; use `///` or `//` here",
                        );
                    }
                },
                _ => {}
            }
        }
    }

    /// Reports `///` lines that nothing follows. Plain comments there are fine: they are the
    /// block's or file's trailing comments.
    fn dangling(&mut self, pending: &Pending, expected: &str) {
        if let Some(span) = pending.first_doc {
            self.error(
                span,
                "doc comment documents nothing",
                format!("expected {expected} after the doc comment; use `//` for a comment"),
            );
        }
    }

    // -- file and items ------------------------------------------------------------------------

    fn file(&mut self) -> File {
        let mut file = File {
            name: self.name.to_string(),
            doc: Vec::new(),
            endian: Endian::Little,
            items: Vec::new(),
            trailing_comments: Vec::new(),
        };
        let mut seen_item = false;
        let mut endian_at: Option<Span> = None;
        // Comments written before `endian`: the model has no place for them there, so they
        // move to the next item rather than being lost.
        let mut carried: Vec<String> = Vec::new();
        loop {
            if self.aborted {
                break;
            }
            self.depth = 0;
            let mut pending = self.docs((!seen_item).then_some(&mut file.doc));
            if !carried.is_empty() {
                carried.append(&mut pending.docs.comments);
                pending.docs.comments = std::mem::take(&mut carried);
            }
            let t = self.peek();
            let start = t.span.start;
            let result = match t.tok {
                Tok::Eof => {
                    self.dangling(&pending, "an item");
                    file.trailing_comments = pending.docs.comments;
                    break;
                }
                Tok::Ident("endian") => {
                    carried = std::mem::take(&mut pending.docs.comments);
                    self.endian(&pending, seen_item, &mut endian_at).map(|e| {
                        if let Some(e) = e {
                            file.endian = e;
                        }
                        None
                    })
                }
                Tok::Ident("const") => {
                    seen_item = true;
                    self.constant(pending.docs).map(|c| Some(Item::Const(c)))
                }
                Tok::Ident("bits") => {
                    seen_item = true;
                    self.bits(pending.docs).map(|b| Some(Item::Bits(b)))
                }
                Tok::Ident("record" | "frame" | "packed") => {
                    seen_item = true;
                    self.record(pending.docs).map(|r| Some(Item::Record(r)))
                }
                Tok::Ident("union") => {
                    seen_item = true;
                    self.union(pending.docs).map(|u| Some(Item::Union(u)))
                }
                Tok::Ident("state") => {
                    seen_item = true;
                    self.state(pending.docs).map(|s| Some(Item::State(s)))
                }
                Tok::Ident("schema") => {
                    seen_item = true;
                    self.machine_schema(pending.docs)
                        .map(|s| Some(Item::Schema(s)))
                }
                _ => Err(self.unexpected(
                    t,
                    "expected an item",
                    "expected `const`, `bits`, `record`, `packed`, `frame`, `union`, `state` or `schema`",
                )),
            };
            match result {
                Ok(Some(item)) => file.items.push(item),
                Ok(None) => {}
                Err(Failed) => {
                    self.recover_item();
                    if self.pos <= start && !matches!(self.peek_raw().tok, Tok::Eof) {
                        self.bump();
                    }
                }
            }
        }
        file.trailing_comments.splice(0..0, carried);
        file
    }

    fn endian(
        &mut self,
        pending: &Pending,
        seen_item: bool,
        endian_at: &mut Option<Span>,
    ) -> PResult<Option<Endian>> {
        let kw = self.peek();
        self.bump();
        if let Some(span) = pending.first_doc {
            self.error(
                span,
                "doc comment documents nothing",
                "`endian` takes no documentation; use `//!` for the file or `//` for a comment",
            );
        }
        let t = self.peek_required();
        let endian = match t.tok {
            Tok::Ident("little") => Endian::Little,
            Tok::Ident("big") => Endian::Big,
            _ => {
                return Err(self.unexpected(
                    t,
                    "expected `little` or `big` after `endian`",
                    "expected `little` or `big`",
                ))
            }
        };
        self.bump();
        self.expect(";", || "expected `;` after the byte order".into())?;
        let span = Span::new(kw.span.start, self.pos);
        if seen_item {
            self.error(
                kw.span,
                "`endian` after the first item",
                "expected `endian` before every item, after the `//!` docs",
            );
            return Ok(None);
        }
        if let Some(first) = *endian_at {
            let note = self.note_at("the byte order is first given", first.start);
            self.error(kw.span, "`endian` given twice", "remove this declaration");
            if let Some(d) = self.diags.last_mut() {
                d.notes.push(note);
            }
            return Ok(None);
        }
        *endian_at = Some(span);
        Ok(Some(endian))
    }

    /// A name that is not a keyword: of an item, a bit or a variant.
    fn name(&mut self, what: &str) -> PResult<(String, Span)> {
        let t = self.peek_required();
        match t.tok {
            Tok::Ident(w) if !is_keyword(w) => {
                self.bump();
                Ok((w.to_string(), t.span))
            }
            Tok::Ident(w) => {
                self.bump();
                Err(self.error(
                    t.span,
                    format!("`{}` is a keyword and cannot name {what}", truncate(w)),
                    "expected a name that is not a keyword",
                ))
            }
            _ => Err(self.unexpected(
                t,
                &format!("expected the name of {what}"),
                "expected a name",
            )),
        }
    }

    /// Any identifier, keywords included: a field name or a reference to one.
    fn ident(&mut self, expected: &str) -> PResult<(String, Span)> {
        let t = self.peek_required();
        match t.tok {
            Tok::Ident(w) => {
                self.bump();
                Ok((w.to_string(), t.span))
            }
            _ => Err(self.unexpected(t, &format!("expected {expected}"), "expected a name")),
        }
    }

    fn constant(&mut self, docs: Docs) -> PResult<Const> {
        self.bump();
        let (name, name_span) = self.name("a constant")?;
        self.expect(":", || format!("expected `:` after constant name `{name}`"))?;
        let ty = self.int_type(&format!("constant `{name}`"))?;
        self.expect("=", || {
            format!("expected `=` and a value for constant `{name}`")
        })?;
        let t = self.peek();
        let (value, value_span) = if matches!(t.tok, Tok::Ident("max_offset")) {
            self.bump();
            self.expect("(", || "expected `(` after `max_offset`".into())?;
            let (record, _) = self.ident("a record name in `max_offset(Record.field)`")?;
            self.expect(".", || {
                format!("expected `.` and a field name after `max_offset({record}`")
            })?;
            let (field, _) = self.ident("a field name in `max_offset(Record.field)`")?;
            self.expect(")", || "expected `)` to close `max_offset(`".into())?;
            (
                ConstValue::MaxOffset { record, field },
                Span::new(t.span.start, self.pos),
            )
        } else {
            let (v, span) = self.signed_literal("an integer or `max_offset(Record.field)`")?;
            (ConstValue::Int(v), span)
        };
        self.expect(";", || format!("expected `;` after constant `{name}`"))?;
        Ok(Const {
            docs,
            name,
            name_span,
            ty,
            value,
            value_span,
        })
    }

    /// A type that must be a fixed-width integer (a constant's type, a union's tag).
    fn int_type(&mut self, of: &str) -> PResult<IntType> {
        let start = self.peek_required().span.start;
        let ty = self.ty(0)?;
        match ty {
            Type::Int(it) => Ok(it),
            _ => Err(self.error(
                Span::new(start, self.pos),
                format!("expected an integer type for {of}"),
                "expected `u8`, `u16`, `u32`, `u64`, `i8`, ... here",
            )),
        }
    }

    fn bits(&mut self, docs: Docs) -> PResult<Bits> {
        self.bump();
        let (name, name_span) = self.name("a bit set")?;
        self.expect(":", || {
            format!("expected `:` and a width after bit set name `{name}`")
        })?;
        let start = self.peek_required().span.start;
        let ty = self.ty(0)?;
        let width = match ty {
            Type::Int(IntType {
                signed: false,
                bits,
                endian: None,
            }) => bits,
            _ => {
                // The model keeps only a width: a sign or a byte order would be lost.
                return Err(self.error(
                    Span::new(start, self.pos),
                    format!("expected an unsigned integer type for bit set `{name}`"),
                    "expected `u8`, `u16`, `u32`, `u64` or another `uN`, without `le`/`be`",
                ));
            }
        };
        let open = self.expect("{", || format!("expected `{{` to open bit set `{name}`"))?;
        let (bits, trailing_comments) =
            self.block(open, &format!("bit set `{name}`"), "a bit", |p, pending| {
                p.bit(pending).map(|(bit, what)| Entry {
                    items: vec![bit],
                    carry: Vec::new(),
                    comma_optional: false,
                    what,
                })
            })?;
        Ok(Bits {
            docs,
            name,
            name_span,
            width,
            bits,
            trailing_comments,
            derived_from: None,
        })
    }

    fn bit(&mut self, pending: Pending) -> PResult<(Bit, String)> {
        let start = self.peek_required().span.start;
        if self.at_word("reserved") {
            self.bump();
            let (lo, _) = self.bit_index()?;
            let hi = if self.eat("..=").is_some() {
                self.bit_index()?.0
            } else {
                let t = self.peek();
                if t.tok == Tok::Punct(".") {
                    return Err(self.unexpected(
                        t,
                        "expected `..=` in a range of reserved bits",
                        "write the range as `lo..=hi`",
                    ));
                }
                lo
            };
            let bit = Bit {
                docs: pending.docs,
                kind: BitKind::Reserved { lo, hi },
                span: Span::new(start, self.pos),
            };
            return Ok((bit, "reserved bits".into()));
        }
        let (name, _) = self.name("a bit")?;
        self.expect("=", || {
            format!("expected `=` and a bit index after bit name `{name}`")
        })?;
        let (index, _) = self.bit_index()?;
        let requires = if self.at_word("requires") {
            self.bump();
            Some(self.ident("the name of the required bit")?.0)
        } else {
            None
        };
        let what = format!("bit `{name}`");
        let bit = Bit {
            docs: pending.docs,
            kind: BitKind::Named {
                name,
                index,
                requires,
            },
            span: Span::new(start, self.pos),
        };
        Ok((bit, what))
    }

    fn bit_index(&mut self) -> PResult<(u8, Span)> {
        let (v, span) = self.literal("a bit index")?;
        match u8::try_from(v) {
            Ok(v) => Ok((v, span)),
            Err(_) => {
                self.error(
                    span,
                    format!("bit index `{}` is out of range", self.text(span)),
                    "expected a bit index from 0 to 255",
                );
                Ok((u8::MAX, span))
            }
        }
    }

    fn record(&mut self, docs: Docs) -> PResult<Record> {
        let packed = if self.at_word("packed") {
            self.bump();
            true
        } else {
            false
        };
        let t = self.peek_required();
        let kind = match t.tok {
            Tok::Ident("record") => RecordKind::Record,
            Tok::Ident("frame") => RecordKind::Frame,
            _ => {
                return Err(self.unexpected(
                    t,
                    "expected `record` or `frame` after `packed`",
                    "expected `record` or `frame`",
                ))
            }
        };
        self.bump();
        let what = match kind {
            RecordKind::Record => "record",
            RecordKind::Frame => "frame",
        };
        let (name, name_span) = self.name(&format!("a {what}"))?;
        let open = self.expect("{", || format!("expected `{{` to open {what} `{name}`"))?;
        let (fields, trailing_comments) = self.block(
            open,
            &format!("{what} `{name}`"),
            "a field",
            |p, pending| p.member(pending),
        )?;
        Ok(Record {
            docs,
            kind,
            packed,
            name,
            name_span,
            fields,
            trailing_comments,
            derived_from: None,
        })
    }

    fn member(&mut self, pending: Pending) -> PResult<Entry<Field>> {
        // `select mask {` starts a block; `select: u8` is a field called `select`.
        if self.at_word("select") && matches!(self.peek_second(), Tok::Ident(_)) {
            return self.select(pending);
        }
        let field = self.field(pending.docs, None)?;
        Ok(Entry {
            what: format!("field `{}`", field.name),
            items: vec![field],
            carry: Vec::new(),
            comma_optional: false,
        })
    }

    fn select(&mut self, pending: Pending) -> PResult<Entry<Field>> {
        self.bump();
        let (mask, _) = self.ident("the name of the mask field after `select`")?;
        let open = self.expect("{", || format!("expected `{{` after `select {mask}`"))?;
        let first_doc = pending.first_doc;
        let mut before = Some(pending.docs);
        let (fields, carry) = self.block(
            open,
            &format!("`select {mask}`"),
            "a field",
            |p, mut arm| {
                // Docs written before `select` have no place of their own in the model: they
                // document the block's first field, which is where the formatter prints them.
                if let Some(mut docs) = before.take() {
                    docs.doc.append(&mut arm.docs.doc);
                    docs.comments.append(&mut arm.docs.comments);
                    arm.docs = docs;
                }
                let (bit, span) = p.ident("a bit name")?;
                p.expect("=>", || {
                    format!("expected `=>` after bit `{bit}` in `select {mask}`")
                })?;
                let selector = Selector {
                    mask: mask.clone(),
                    bit,
                    span,
                };
                let field = p.field(arm.docs, Some(selector))?;
                Ok(Entry {
                    what: format!("field `{}`", field.name),
                    items: vec![field],
                    carry: Vec::new(),
                    comma_optional: false,
                })
            },
        )?;
        let mut carry = carry;
        if let Some(docs) = before {
            // An empty block: the docs before it document nothing.
            if let Some(span) = first_doc {
                self.error(
                    span,
                    "doc comment documents nothing",
                    "the select block has no field for the doc comment before it",
                );
            }
            carry.splice(0..0, docs.comments);
        }
        Ok(Entry {
            items: fields,
            carry,
            comma_optional: true,
            what: format!("`select {mask}`"),
        })
    }

    fn field(&mut self, docs: Docs, selector: Option<Selector>) -> PResult<Field> {
        let (name, name_span) = self.ident("a field name")?;
        self.expect(":", || format!("expected `:` after field name `{name}`"))?;
        let ty = self.ty(0)?;
        let constant = if self.eat("=").is_some() {
            Some(self.signed_literal("a constant value")?.0)
        } else {
            None
        };
        let cond = if self.at_word("if") {
            self.bump();
            Some(self.cond()?)
        } else {
            None
        };
        Ok(Field {
            docs,
            name,
            name_span,
            ty,
            constant,
            selector,
            cond,
        })
    }

    fn cond(&mut self) -> PResult<Cond> {
        let mut all = vec![self.operand()?];
        while self.eat("&&").is_some() {
            all.push(self.operand()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Cond::All(all)
        })
    }

    fn operand(&mut self) -> PResult<Cond> {
        let start = self.peek_required().span.start;
        let negated = self.eat("!").is_some();
        let (field, _) = self.ident("a field name in the condition")?;
        if self.eat(".").is_some() {
            let (bit, _) = self.ident(&format!("a bit name after `{field}.`"))?;
            return Ok(Cond::Bit {
                field,
                bit,
                negated,
                span: Span::new(start, self.pos),
            });
        }
        if !negated && self.eat(">").is_some() {
            let value = self.u64_literal("an integer after `>`")?;
            return Ok(Cond::Greater {
                field,
                value,
                span: Span::new(start, self.pos),
            });
        }
        Ok(Cond::Set {
            field,
            negated,
            span: Span::new(start, self.pos),
        })
    }

    fn union(&mut self, docs: Docs) -> PResult<Union> {
        self.bump();
        let (name, name_span) = self.name("a union")?;
        self.expect(":", || {
            format!("expected `:` and a tag type after union name `{name}`")
        })?;
        let tag = self.int_type(&format!("the tag of union `{name}`"))?;
        let open = self.expect("{", || format!("expected `{{` to open union `{name}`"))?;
        let (variants, trailing_comments) = self.block(
            open,
            &format!("union `{name}`"),
            "a variant",
            |p, pending| {
                let (record, span) = p.name("a variant")?;
                p.expect("=", || {
                    format!("expected `=` and a tag after variant `{record}`")
                })?;
                let tag = p.u64_literal("a tag value")?;
                Ok(Entry {
                    what: format!("variant `{record}`"),
                    items: vec![Variant {
                        docs: pending.docs,
                        record,
                        span,
                        tag,
                    }],
                    carry: Vec::new(),
                    comma_optional: false,
                })
            },
        )?;
        Ok(Union {
            docs,
            name,
            name_span,
            tag,
            variants,
            trailing_comments,
        })
    }

    // -- replicated state ----------------------------------------------------------------------

    /// `state Name { ... }` (LANGUAGE.md, "Replicated state").
    fn state(&mut self, docs: Docs) -> PResult<State> {
        self.bump();
        let (name, name_span) = self.name("a state")?;
        let open = self.expect("{", || format!("expected `{{` to open state `{name}`"))?;
        let (members, trailing_comments) = self.block(
            open,
            &format!("state `{name}`"),
            "a member",
            |p, pending| p.state_member(pending),
        )?;
        Ok(State {
            docs,
            name,
            name_span,
            members,
            trailing_comments,
        })
    }

    /// `schema Name for machine { role: Item, ... }` (LANGUAGE.md, "Machine schemas").
    fn machine_schema(&mut self, docs: Docs) -> PResult<MachineSchema> {
        self.bump();
        let (name, name_span) = self.name("a schema")?;
        if !self.at_word("for") {
            let t = self.peek_required();
            return Err(self.unexpected(
                t,
                &format!("expected `for` and the machines schema `{name}` binds"),
                "expected `for`",
            ));
        }
        self.bump();
        let t = self.peek_required();
        let machine = match t.tok {
            Tok::Ident(w) => Machine::ALL.into_iter().find(|m| m.word() == w),
            _ => None,
        };
        let Some(machine) = machine else {
            return Err(self.unexpected(
                t,
                "expected the machines a schema binds",
                "expected `datagram`, `baseline` or `delta`",
            ));
        };
        self.bump();
        let open = self.expect("{", || format!("expected `{{` to open schema `{name}`"))?;
        let (roles, trailing_comments) =
            self.block(open, &format!("schema `{name}`"), "a role", |p, pending| {
                let (role, span) = p.ident("a role")?;
                p.expect(":", || {
                    format!("expected `:` and an item after role `{role}`")
                })?;
                let target = p.name_ref("the item that plays the role")?;
                Ok(Self::one(
                    format!("role `{role}`"),
                    RoleDecl {
                        docs: pending.docs,
                        role: NameRef::new(role, span),
                        target,
                    },
                    false,
                ))
            })?;
        Ok(MachineSchema {
            docs,
            name,
            name_span,
            machine,
            machine_span: t.span,
            roles,
            trailing_comments,
        })
    }

    fn one<T>(what: String, item: T, comma_optional: bool) -> Entry<T> {
        Entry {
            items: vec![item],
            carry: Vec::new(),
            comma_optional,
            what,
        }
    }

    fn name_ref(&mut self, what: &str) -> PResult<NameRef> {
        let (name, span) = self.name(what)?;
        Ok(NameRef::new(name, span))
    }

    /// A kind byte after `=`.
    fn kind_byte(&mut self, of: &str) -> PResult<(u8, Span)> {
        self.expect("=", || format!("expected `=` and a kind after {of}"))?;
        let (v, span) = self.literal("a kind byte")?;
        match u8::try_from(v) {
            Ok(v) => Ok((v, span)),
            Err(_) => {
                self.out_of_range(span, "u8");
                Ok((0, span))
            }
        }
    }

    fn state_member(&mut self, pending: Pending) -> PResult<Entry<StateMember>> {
        let docs = pending.docs;
        let t = self.peek_required();
        let keyword = match t.tok {
            // `group: T` and the like are not members of a state: every member but the flags
            // field starts with its keyword.
            Tok::Ident(w) if self.peek_second() != Tok::Punct(":") => w,
            Tok::Ident(w) => {
                let (field, span) = self.ident("a member")?;
                self.expect(":", || format!("expected `:` after `{field}`"))?;
                let target = self.name_ref("a declared type")?;
                let member = match w {
                    "events" => StateMember::Events {
                        docs,
                        union: target,
                    },
                    "inputs" => StateMember::Inputs {
                        docs,
                        record: target,
                    },
                    _ => StateMember::Flags(StateFlagsField {
                        docs,
                        name: NameRef::new(field.clone(), span),
                        bits: target,
                    }),
                };
                return Ok(Self::one(format!("`{field}`"), member, false));
            }
            _ => {
                return Err(self.unexpected(
                    t,
                    "expected a member of the state",
                    "expected `record`, `frame`, `packed frame`, `coded frame`, `ack`, `group`, `events:`, `inputs:` or a flags field",
                ))
            }
        };
        match keyword {
            "record" => {
                self.bump();
                let name = self.name_ref("the state's record")?;
                let mut order = Vec::new();
                if self.eat("(").is_some() {
                    loop {
                        if self.eat(")").is_some() {
                            break;
                        }
                        let (f, span) = self.ident("a field name")?;
                        order.push(NameRef::new(f, span));
                        if self.eat(",").is_none() {
                            self.expect(")", || {
                                "expected `,` or `)` in the record's field order".into()
                            })?;
                            break;
                        }
                    }
                }
                let what = format!("record `{}`", name.name);
                Ok(Self::one(
                    what,
                    StateMember::Record(StateRecord { docs, name, order }),
                    false,
                ))
            }
            "frame" | "packed" => {
                let packed = keyword == "packed";
                self.bump();
                if packed && !self.at_word("frame") {
                    let t = self.peek_required();
                    return Err(self.unexpected(
                        t,
                        "expected `frame` after `packed` in a state",
                        "expected `frame`",
                    ));
                }
                if packed {
                    self.bump();
                }
                let name = self.name_ref("a frame")?;
                let (kind, kind_span) = self.kind_byte(&format!("frame `{}`", name.name))?;
                let mut profile = Profile {
                    docs,
                    packed,
                    name,
                    kind,
                    kind_span,
                    change: None,
                    mask: None,
                    body: None,
                    eid: None,
                    prefix: None,
                    trailing_comments: Vec::new(),
                };
                let open = self.expect("{", || {
                    format!("expected `{{` to open frame `{}`", profile.name.name)
                })?;
                let what = format!("frame `{}`", profile.name.name);
                let (members, trailing) =
                    self.block(open, &what, "a frame member", |p, pending| {
                        p.profile_member(pending)
                    })?;
                profile.trailing_comments = trailing;
                for m in members {
                    m.store(&mut profile, self);
                }
                Ok(Self::one(what, StateMember::Frame(Box::new(profile)), true))
            }
            "coded" => {
                self.bump();
                if !self.at_word("frame") {
                    let t = self.peek_required();
                    return Err(self.unexpected(
                        t,
                        "expected `frame` after `coded` in a state",
                        "expected `frame`",
                    ));
                }
                self.bump();
                let name = self.name_ref("a frame")?;
                let (kind, kind_span) = self.kind_byte(&format!("frame `{}`", name.name))?;
                let open = self.expect("{", || {
                    format!("expected `{{` to open frame `{}`", name.name)
                })?;
                let what = format!("frame `{}`", name.name);
                let (members, trailing_comments) =
                    self.block(open, &what, "a frame member", |p, pending| {
                        p.coded_member(pending)
                    })?;
                let mut tables: Option<TablesPath> = None;
                for t in members {
                    if tables.is_some() {
                        self.error(
                            t.span,
                            format!("frame `{}` names two tables files", name.name),
                            "a coded frame has one `tables` member",
                        );
                    } else {
                        tables = Some(t);
                    }
                }
                Ok(Self::one(
                    what,
                    StateMember::Coded(Box::new(CodedProfile {
                        docs,
                        name,
                        kind,
                        kind_span,
                        tables,
                        trailing_comments,
                    })),
                    true,
                ))
            }
            "ack" => {
                self.bump();
                let name = self.name_ref("a frame")?;
                let (kind, kind_span) = self.kind_byte(&format!("frame `{}`", name.name))?;
                let what = format!("ack `{}`", name.name);
                Ok(Self::one(
                    what,
                    StateMember::Ack(AckDecl {
                        docs,
                        name,
                        kind,
                        kind_span,
                    }),
                    false,
                ))
            }
            "group" => {
                self.bump();
                let group = self.group(docs)?;
                Ok(Self::one(
                    format!("group `{}`", group.name),
                    StateMember::Group(group),
                    true,
                ))
            }
            _ => {
                // Consumed, so that recovery does not take the word for the next member.
                self.bump();
                let next = self.peek();
                Err(self.unexpected(
                    next,
                    &format!("expected `:` and a declared type after `{keyword}`"),
                    "a state member is `record`, `frame`, `packed frame`, `coded frame`, `ack`, `group` or `name: Type`",
                ))
            }
        }
    }

    /// A member of a coded frame's block: `tables "file.tables"`.
    fn coded_member(&mut self, pending: Pending) -> PResult<Entry<TablesPath>> {
        let t = self.peek_required();
        if !self.at_word("tables") {
            let e = self.unexpected(
                t,
                "expected a member of the coded frame",
                "expected `tables \"file.tables\"`",
            );
            // A misspelt `tables` and its path are one fault: recovery resumes after both.
            if matches!(t.tok, Tok::Ident(_)) {
                self.bump();
                if matches!(self.peek().tok, Tok::Str(_)) {
                    self.bump();
                }
            }
            return Err(e);
        }
        self.bump();
        let p = self.peek_required();
        let Tok::Str(path) = p.tok else {
            return Err(self.unexpected(
                p,
                "expected the tables file's path in quotes after `tables`",
                "expected `\"file.tables\"`, a path relative to the layout file",
            ));
        };
        self.bump();
        Ok(Self::one(
            "`tables`".into(),
            TablesPath {
                docs: pending.docs,
                path: path.to_string(),
                span: p.span,
                probs: Vec::new(),
            },
            false,
        ))
    }

    /// `coded velocity` or `coded base`, when next.
    fn coded_use(&mut self) -> PResult<Option<CodedUse>> {
        if !self.at_word("coded") {
            return Ok(None);
        }
        let start = self.peek_required().span.start;
        self.bump();
        let t = self.peek_required();
        let form = match t.tok {
            Tok::Ident("velocity") => CodedForm::Velocity,
            Tok::Ident("base") => CodedForm::Base,
            _ => {
                return Err(self.unexpected(
                    t,
                    "expected `velocity` or `base` after `coded`",
                    "`coded velocity` (a step field) or `coded base` (a `quat`)",
                ))
            }
        };
        self.bump();
        Ok(Some(CodedUse {
            form,
            span: Span::new(start, self.pos),
        }))
    }

    fn profile_member(&mut self, pending: Pending) -> PResult<Entry<ProfileEntry>> {
        let docs = pending.docs;
        let t = self.peek_required();
        let word = match t.tok {
            Tok::Ident(w) => w,
            _ => "",
        };
        let entry = match word {
            "change" | "body" | "prefix" => {
                self.bump();
                let name = self.name_ref(match word {
                    "change" => "the change record",
                    "body" => "the packed body record",
                    _ => "a name prefix",
                })?;
                match word {
                    "change" => ProfileEntry::Change(ProfileName { docs, name }, t.span),
                    "body" => ProfileEntry::Body(ProfileName { docs, name }, t.span),
                    _ => ProfileEntry::Prefix(ProfileName { docs, name }, t.span),
                }
            }
            "mask" => {
                self.bump();
                let name = self.name_ref("the change mask's bit set")?;
                let width = if self.eat(":").is_some() {
                    let start = self.peek_required().span.start;
                    match self.ty(0)? {
                        Type::Int(IntType {
                            signed: false,
                            bits,
                            endian: None,
                        }) => Some(bits),
                        _ => {
                            return Err(self.error(
                                Span::new(start, self.pos),
                                format!("expected an unsigned width for mask `{}`", name.name),
                                "expected `u8`, `u16` or another `uN`",
                            ))
                        }
                    }
                } else {
                    None
                };
                ProfileEntry::Mask(ProfileMask { docs, name, width }, t.span)
            }
            "eid" => {
                self.bump();
                self.expect(":", || "expected `:` and a type after `eid`".into())?;
                let start = self.peek_required().span.start;
                let ty = self.ty(0)?;
                ProfileEntry::Eid(
                    ProfileType {
                        docs,
                        ty,
                        span: Span::new(start, self.pos),
                    },
                    t.span,
                )
            }
            _ => {
                return Err(self.unexpected(
                    t,
                    "expected a member of the frame",
                    "expected `change`, `mask`, `body`, `eid:` or `prefix`",
                ))
            }
        };
        Ok(Self::one(format!("`{word}`"), entry, false))
    }

    fn group(&mut self, docs: Docs) -> PResult<Group> {
        let (name, name_span) = self.ident("the group's name")?;
        let record = if self.eat(":").is_some() {
            Some(self.name_ref("the group's record")?)
        } else {
            None
        };
        let presence = if self.at_word("if") {
            self.bump();
            Some(self.field_bit()?)
        } else {
            None
        };
        let open = self.expect("{", || format!("expected `{{` to open group `{name}`"))?;
        let mut forms = Vec::new();
        let (fields, trailing_comments) =
            self.block(open, &format!("group `{name}`"), "a field", |p, pending| {
                let second = p.peek_second();
                let form_kind = match p.peek_required().tok {
                    Tok::Ident("full") if matches!(second, Tok::Ident(_)) => Some(FormKind::Full),
                    Tok::Ident("step") if matches!(second, Tok::Ident(_)) => Some(FormKind::Step),
                    _ => None,
                };
                if let Some(kind) = form_kind {
                    p.bump();
                    let form = p.form(kind, pending.docs)?;
                    let what = format!("form `{}`", form.name);
                    forms.push(form);
                    return Ok(Entry {
                        items: Vec::new(),
                        carry: Vec::new(),
                        comma_optional: true,
                        what,
                    });
                }
                let field = p.group_field(pending.docs)?;
                Ok(Self::one(format!("field `{}`", field.name), field, false))
            })?;
        Ok(Group {
            docs,
            name,
            name_span,
            record,
            presence,
            fields,
            forms,
            trailing_comments,
        })
    }

    /// `field.BIT`.
    fn field_bit(&mut self) -> PResult<FieldBit> {
        let start = self.peek_required().span.start;
        let (field, _) = self.ident("the flags field")?;
        self.expect(".", || {
            format!("expected `.` and a bit name after `{field}`")
        })?;
        let (bit, _) = self.ident(&format!("a bit name after `{field}.`"))?;
        Ok(FieldBit {
            field,
            bit,
            span: Span::new(start, self.pos),
        })
    }

    /// `packed T`, when next.
    fn packed_code(&mut self) -> PResult<Option<Type>> {
        if self.at_word("packed") {
            self.bump();
            Ok(Some(self.ty(0)?))
        } else {
            Ok(None)
        }
    }

    fn group_field(&mut self, docs: Docs) -> PResult<GroupField> {
        let (name, name_span) = self.ident("a field name")?;
        self.expect(":", || format!("expected `:` after field name `{name}`"))?;
        // `tick(age: T)`: a field named `tick` is still a field (`tick: u32`).
        if self.at_word("tick") && self.peek_second() == Tok::Punct("(") {
            self.bump();
            self.bump();
            let (age, age_span) = self.ident("the name of the age field")?;
            self.expect(":", || format!("expected `:` and a type after `{age}`"))?;
            let ty = self.ty(0)?;
            let packed = self.packed_code()?;
            self.expect(")", || "expected `)` to close `tick(`".into())?;
            let coded = self.coded_use()?;
            return Ok(GroupField {
                docs,
                name,
                name_span,
                ty: Type::Int(IntType::unsigned(32)),
                age: Some(Age {
                    name: age,
                    name_span: age_span,
                    ty,
                    packed,
                }),
                packed: None,
                coded,
            });
        }
        let ty = self.ty(0)?;
        let packed = self.packed_code()?;
        let coded = self.coded_use()?;
        Ok(GroupField {
            docs,
            name,
            name_span,
            ty,
            age: None,
            packed,
            coded,
        })
    }

    fn form(&mut self, kind: FormKind, docs: Docs) -> PResult<Form> {
        let (name, name_span) = self.ident("the form's field name")?;
        self.expect(":", || {
            format!("expected `:` and the form's record after `{name}`")
        })?;
        let record = self.name_ref("the form's record")?;
        let mut tier = None;
        let mut reach = None;
        match kind {
            FormKind::Full if self.at_word("if") => {
                self.bump();
                tier = Some(self.field_bit()?);
            }
            FormKind::Step if self.at_word("reach") => {
                self.bump();
                reach = Some(self.u64_literal("the reach of a step")?);
            }
            _ => {}
        }
        let open = self.expect("{", || format!("expected `{{` to open form `{name}`"))?;
        let (fields, trailing_comments) =
            self.block(open, &format!("form `{name}`"), "a field", |p, pending| {
                let (fname, fspan) = p.ident("a field name")?;
                p.expect(":", || format!("expected `:` after field name `{fname}`"))?;
                let ty = p.ty(0)?;
                let step = if p.at_word("step") {
                    p.bump();
                    Some(p.name_ref("the field stepped")?)
                } else {
                    None
                };
                let packed = p.packed_code()?;
                let coded = p.coded_use()?;
                Ok(Self::one(
                    format!("field `{fname}`"),
                    FormField {
                        docs: pending.docs,
                        name: fname,
                        name_span: fspan,
                        ty,
                        step,
                        packed,
                        coded,
                    },
                    false,
                ))
            })?;
        Ok(Form {
            docs,
            kind,
            name,
            name_span,
            record,
            tier,
            reach,
            fields,
            trailing_comments,
        })
    }

    /// The entries of a `{ ... }` block whose `{` (at `open`) was just consumed, up to and
    /// including the `}`; returns them and the block's trailing comments. A bad entry is
    /// reported and skipped. Fails only when the block is never closed.
    fn block<T>(
        &mut self,
        open: Span,
        what: &str,
        entry_name: &str,
        mut entry: impl FnMut(&mut Self, Pending) -> PResult<Entry<T>>,
    ) -> PResult<(Vec<T>, Vec<String>)> {
        let block_depth = self.depth;
        let mut out = Vec::new();
        let mut carry: Vec<String> = Vec::new();
        // The entry before the comments just collected had no comma: fine if the block ends.
        let mut missing_comma: Option<String> = None;
        loop {
            if self.aborted {
                return Err(Failed);
            }
            let mut pending = self.docs(None);
            if !carry.is_empty() {
                carry.append(&mut pending.docs.comments);
                pending.docs.comments = std::mem::take(&mut carry);
            }
            let t = self.peek();
            if let Some(what) = missing_comma.take() {
                if !matches!(t.tok, Tok::Punct("}")) {
                    self.unexpected(
                        t,
                        &format!("expected `,` after {what}"),
                        "expected `,` or `}`",
                    );
                }
            }
            let unclosed = match t.tok {
                Tok::Punct("}") => {
                    self.dangling(&pending, entry_name);
                    self.bump();
                    return Ok((out, pending.docs.comments));
                }
                Tok::Eof => true,
                Tok::Ident(w) => {
                    t.column0 && is_item_keyword(w) && self.peek_second() != Tok::Punct(":")
                }
                _ => false,
            };
            if unclosed {
                let note = self.note_at("the block opens", open.start);
                let f =
                    self.unexpected(t, &format!("expected `}}` to close {what}"), "expected `}`");
                if let Some(d) = self.diags.last_mut() {
                    d.notes.push(note);
                }
                return Err(f);
            }
            let before = self.pos;
            match entry(self, pending) {
                Ok(e) => {
                    out.extend(e.items);
                    carry = e.carry;
                    let raw = self.peek_raw();
                    if e.comma_optional {
                        self.eat(",");
                        continue;
                    }
                    if raw.line_start
                        && matches!(raw.tok, Tok::Doc(_) | Tok::Comment(_) | Tok::InnerDoc(_))
                    {
                        missing_comma = Some(e.what);
                        continue;
                    }
                    let t = self.peek();
                    match t.tok {
                        Tok::Punct(",") => self.bump(),
                        Tok::Punct("}") => {}
                        _ => {
                            self.unexpected(
                                t,
                                &format!("expected `,` after {}", e.what),
                                "expected `,` or `}`",
                            );
                            self.recover_entry(block_depth);
                        }
                    }
                }
                Err(Failed) => {
                    self.recover_entry(block_depth);
                    if self.pos == before
                        && !matches!(self.peek_raw().tok, Tok::Punct("}") | Tok::Eof)
                    {
                        self.bump();
                    }
                }
            }
        }
    }

    // -- types ---------------------------------------------------------------------------------

    fn ty(&mut self, depth: usize) -> PResult<Type> {
        let t = self.peek_required();
        if depth >= MAX_TYPE_DEPTH {
            return Err(self.error(
                t.span,
                "type nested too deeply",
                format!("at most {MAX_TYPE_DEPTH} levels of nested types are allowed"),
            ));
        }
        match t.tok {
            Tok::Punct("[") => self.array(depth),
            Tok::Ident(w) => match type_word(w) {
                Some(word) => {
                    self.bump();
                    self.type_word(word, t, depth)
                }
                None if is_keyword(w) => {
                    self.bump();
                    Err(self.error(
                        t.span,
                        format!("expected a type, found keyword `{w}`"),
                        "expected a type",
                    ))
                }
                None => {
                    self.bump();
                    Ok(Type::Named {
                        name: w.to_string(),
                        span: t.span,
                    })
                }
            },
            _ => Err(self.unexpected(t, "expected a type", "expected a type")),
        }
    }

    fn type_word(&mut self, word: TypeWord, t: Token<'s>, depth: usize) -> PResult<Type> {
        let text = truncate(self.text(t.span));
        Ok(match word {
            TypeWord::Int {
                signed,
                bits,
                endian,
            } => {
                if !(1..=64).contains(&bits) {
                    self.error(
                        t.span,
                        format!("invalid integer width in `{text}`"),
                        "expected `u1` to `u64` or `i2` to `i64`",
                    );
                } else if signed && bits < 2 {
                    self.error(
                        t.span,
                        format!("`{text}` has no room for a sign"),
                        "expected `i2` to `i64`",
                    );
                }
                let int = IntType {
                    signed,
                    bits: u8::try_from(bits).unwrap_or(u8::MAX),
                    endian,
                };
                if self.at_word("in") {
                    self.bump();
                    self.range(int, t.span)?
                } else {
                    Type::Int(int)
                }
            }
            TypeWord::Float { bits, endian } => {
                if bits != 32 && bits != 64 {
                    self.error(
                        t.span,
                        format!("invalid float width in `{text}`"),
                        "expected `f32` or `f64`",
                    );
                }
                Type::Float {
                    bits: u8::try_from(bits).unwrap_or(u8::MAX),
                    endian,
                }
            }
            TypeWord::Bool => Type::Bool,
            TypeWord::Bytes => {
                if self.eat("?").is_some() {
                    Type::OptBytes
                } else {
                    Type::Bytes
                }
            }
            TypeWord::Varint => Type::Varint {
                bits: self.varint_width("varint")?,
            },
            TypeWord::Zigzag => Type::Zigzag {
                bits: self.varint_width("zigzag")?,
            },
            TypeWord::Quant => {
                self.expect("(", || "expected `(` after `quant`".into())?;
                let wire = self.ty(depth + 1)?;
                self.expect(",", || {
                    "expected `,` and a scale after the quant's wire type".into()
                })?;
                let num = self.u64_literal("the scale's numerator")?;
                let den = if self.eat("/").is_some() {
                    let (den, span) = self.literal("the scale's denominator")?;
                    match u64::try_from(den) {
                        Ok(0) => {
                            self.error(
                                span,
                                "quant denominator is 0",
                                "expected a denominator of at least 1",
                            );
                            1
                        }
                        Ok(den) => den,
                        Err(_) => {
                            self.out_of_range(span, "u64");
                            1
                        }
                    }
                } else {
                    1
                };
                self.expect(")", || "expected `)` to close `quant(`".into())?;
                Type::Quant {
                    wire: Box::new(wire),
                    num,
                    den,
                }
            }
            TypeWord::Quat => {
                self.expect("(", || {
                    "expected `(` and the bits of a component after `quat`".into()
                })?;
                let bits = self.small_literal("the bits of each component sent")?;
                let close = self.expect(")", || "expected `)` to close `quat(`".into())?;
                Type::Quat {
                    bits,
                    span: Span::new(t.span.start, close.end),
                }
            }
            TypeWord::Bucket { signed } => {
                let word = if signed { "zbucket" } else { "bucket" };
                self.expect("(", || {
                    format!("expected `(` and the bucket widths after `{word}`")
                })?;
                let mut widths = vec![self.small_literal("a bucket width in bits")?];
                // At most 8 buckets are valid (the validator says so); the parser stops
                // collecting long before a hostile list could cost anything.
                while self.eat(",").is_some() {
                    let w = self.small_literal("a bucket width in bits")?;
                    if widths.len() < MAX_BUCKETS_PARSED {
                        widths.push(w);
                    }
                }
                let close = self.expect(")", || {
                    format!("expected `,` and a width, or `)` to close `{word}(`")
                })?;
                Type::Bucket {
                    signed,
                    widths,
                    span: Span::new(t.span.start, close.end),
                }
            }
        })
    }

    /// A literal of at most 255 (a width in bits); a larger one is reported and read as 255,
    /// which the validator then refuses where it stands.
    fn small_literal(&mut self, expected: &str) -> PResult<u8> {
        let (v, span) = self.literal(expected)?;
        Ok(u8::try_from(v).unwrap_or_else(|_| {
            self.out_of_range(span, "u8");
            u8::MAX
        }))
    }

    /// The optional `(N)` after `varint` or `zigzag`; 64 when absent.
    fn varint_width(&mut self, word: &str) -> PResult<u8> {
        if self.eat("(").is_none() {
            return Ok(64);
        }
        let (bits, span) = self.literal("a width in bits")?;
        let bits = match u8::try_from(bits) {
            Ok(b @ 1..=64) => b,
            _ => {
                self.error(
                    span,
                    format!("invalid width `{}` for `{word}`", self.text(span)),
                    "expected a width from 1 to 64",
                );
                64
            }
        };
        self.expect(")", || format!("expected `)` to close `{word}(`"))?;
        Ok(bits)
    }

    fn array(&mut self, depth: usize) -> PResult<Type> {
        self.bump();
        let elem = self.ty(depth + 1)?;
        self.expect(";", || {
            "expected `;` and a count after the array's element type".into()
        })?;
        let t = self.peek_required();
        let count = match t.tok {
            Tok::Ident(w) if type_word(w).is_some() => Count::Prefix(Box::new(self.ty(depth + 1)?)),
            Tok::Ident(w) => {
                self.bump();
                Count::Field {
                    name: w.to_string(),
                    span: t.span,
                }
            }
            _ => {
                return Err(self.unexpected(
                    t,
                    "expected the array's count",
                    "expected a count field or an integer type such as `u16` or `varint`",
                ))
            }
        };
        self.expect("]", || "expected `]` to close the array type".into())?;
        let t = self.peek();
        let ascending = if matches!(t.tok, Tok::Ident("ascending")) {
            self.bump();
            if self.eat("(").is_some() {
                let (key, span) = self.ident("the name of the ascending key field")?;
                self.expect(")", || "expected `)` to close `ascending(`".into())?;
                Some(Ascending {
                    key: Some(key),
                    span,
                })
            } else {
                Some(Ascending {
                    key: None,
                    span: t.span,
                })
            }
        } else {
            None
        };
        Ok(Type::Array(Box::new(Array {
            elem,
            count,
            ascending,
        })))
    }

    // -- literals ------------------------------------------------------------------------------

    fn text(&self, span: Span) -> &'s str {
        self.src.get(span.start..span.end).unwrap_or("")
    }

    /// An unsigned integer literal, any size up to `u128`.
    fn literal(&mut self, expected: &str) -> PResult<(u128, Span)> {
        let t = self.peek_required();
        let Tok::Int(text) = t.tok else {
            return Err(self.unexpected(t, &format!("expected {expected}"), "expected an integer"));
        };
        self.bump();
        match int_value(text) {
            Ok(v) => Ok((v, t.span)),
            Err(IntError::Invalid) => Err(self.error(
                t.span,
                format!("invalid integer literal `{}`", truncate(text)),
                "expected decimal digits, or `0x` and hex digits",
            )),
            Err(IntError::TooLarge) => Err(self.error(
                t.span,
                "integer literal is too large",
                "expected at most 128 bits",
            )),
        }
    }

    fn out_of_range(&mut self, span: Span, ty: &str) {
        let text = truncate(self.text(span));
        self.error(
            span,
            format!("integer literal `{text}` is out of range"),
            format!("expected a value that fits in `{ty}`"),
        );
    }

    fn u64_literal(&mut self, expected: &str) -> PResult<u64> {
        let (v, span) = self.literal(expected)?;
        Ok(u64::try_from(v).unwrap_or_else(|_| {
            self.out_of_range(span, "u64");
            0
        }))
    }

    /// `MIN..=MAX` after `uN in`: the range of a ranged integer (its bounds within `i64`; the
    /// validator checks them against the type).
    fn range(&mut self, int: IntType, start: Span) -> PResult<Type> {
        let bound = |p: &mut Self, what: &str| -> PResult<(i64, Span)> {
            let (v, span) = p.signed_literal(what)?;
            Ok((
                i64::try_from(v).unwrap_or_else(|_| {
                    p.out_of_range(span, "i64");
                    0
                }),
                span,
            ))
        };
        let (min, _) = bound(self, "the range's least value after `in`")?;
        self.expect("..=", || {
            "expected `..=` and the greatest value after the range's least".into()
        })?;
        let (max, end) = bound(self, "the range's greatest value after `..=`")?;
        Ok(Type::Ranged {
            int,
            min,
            max,
            span: Span::new(start.start, end.end),
        })
    }

    /// An integer literal with an optional leading `-`, as an `i128`.
    fn signed_literal(&mut self, expected: &str) -> PResult<(i128, Span)> {
        let minus = self.eat("-");
        let (magnitude, span) = self.literal(expected)?;
        let span = Span::new(minus.map_or(span.start, |m| m.start), span.end);
        let value = if minus.is_some() {
            0i128.checked_sub_unsigned(magnitude)
        } else {
            i128::try_from(magnitude).ok()
        };
        match value {
            Some(v) => Ok((v, span)),
            None => {
                self.out_of_range(span, "i128");
                Ok((0, span))
            }
        }
    }
}

/// How a token is named in "found ..." (bounded, since a token can be megabytes long).
fn describe(tok: Tok<'_>) -> String {
    match tok {
        Tok::Ident(w) if KEYWORDS.contains(&w) => format!("keyword `{w}`"),
        Tok::Ident(w) | Tok::Int(w) => format!("`{}`", truncate(w)),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Doc(_) => "a doc comment".into(),
        Tok::InnerDoc(_) => "a `//!` doc comment".into(),
        Tok::Comment(_) => "a comment".into(),
        Tok::Str(t) => format!("`\"{}\"`", truncate(t)),
        Tok::Unknown(c) => format!("`{}`", c.escape_debug()),
        Tok::Eof => "end of file".into(),
    }
}

fn truncate(s: &str) -> String {
    const MAX: usize = 40;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Span = Span { start: 0, end: 0 };

    fn ok(src: &str) -> File {
        parse_file("t.wire", src).unwrap_or_else(|diags| {
            let text: String = diags.iter().map(|d| d.render(src)).collect();
            panic!("unexpected errors:\n{text}")
        })
    }

    /// `(line, col, message)` of every diagnostic.
    fn errs(src: &str) -> Vec<(usize, usize, String)> {
        match parse_file("t.wire", src) {
            Ok(f) => panic!("expected errors, parsed {f:?}"),
            Err(diags) => diags
                .iter()
                .map(|d| {
                    let (l, c) = d.line_col(src);
                    (l, c, d.message.clone())
                })
                .collect(),
        }
    }

    fn err(line: usize, col: usize, message: &str) -> (usize, usize, String) {
        (line, col, message.to_string())
    }

    fn fields(body: &str) -> Vec<Field> {
        let file = ok(&format!("record R {{\n{body}\n}}\n"));
        match file.items.into_iter().next() {
            Some(Item::Record(r)) => r.fields,
            other => panic!("{other:?}"),
        }
    }

    fn ty(text: &str) -> Type {
        fields(&format!("f: {text},")).remove(0).ty
    }

    fn field(name: &str, ty: Type) -> Field {
        Field {
            docs: Docs::default(),
            name: name.into(),
            name_span: S,
            ty,
            constant: None,
            selector: None,
            cond: None,
        }
    }

    fn int(signed: bool, bits: u8, endian: Option<Endian>) -> Type {
        Type::Int(IntType {
            signed,
            bits,
            endian,
        })
    }

    fn u(bits: u8) -> Type {
        int(false, bits, None)
    }

    fn named(name: &str) -> Type {
        Type::Named {
            name: name.into(),
            span: S,
        }
    }

    fn array(elem: Type, count: Count, key: Option<Option<&str>>) -> Type {
        Type::Array(Box::new(Array {
            elem,
            count,
            ascending: key.map(|k| Ascending {
                key: k.map(String::from),
                span: S,
            }),
        }))
    }

    fn count_field(name: &str) -> Count {
        Count::Field {
            name: name.into(),
            span: S,
        }
    }

    fn docs(doc: &[&str], comments: &[&str]) -> Docs {
        Docs {
            doc: doc.iter().map(|s| s.to_string()).collect(),
            comments: comments.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn integer_types() {
        for (text, signed, bits) in [
            ("u8", false, 8),
            ("u16", false, 16),
            ("u32", false, 32),
            ("u64", false, 64),
            ("i8", true, 8),
            ("i16", true, 16),
            ("i32", true, 32),
            ("i64", true, 64),
            ("u1", false, 1),
            ("u7", false, 7),
            ("i2", true, 2),
            ("i24", true, 24),
        ] {
            assert_eq!(ty(text), int(signed, bits, None), "{text}");
        }
        assert_eq!(ty("u16le"), int(false, 16, Some(Endian::Little)));
        assert_eq!(ty("u32be"), int(false, 32, Some(Endian::Big)));
        assert_eq!(ty("i64be"), int(true, 64, Some(Endian::Big)));
    }

    #[test]
    fn float_bool_varint_bytes() {
        assert_eq!(
            ty("f32"),
            Type::Float {
                bits: 32,
                endian: None
            }
        );
        assert_eq!(
            ty("f64"),
            Type::Float {
                bits: 64,
                endian: None
            }
        );
        assert_eq!(
            ty("f32be"),
            Type::Float {
                bits: 32,
                endian: Some(Endian::Big)
            }
        );
        assert_eq!(
            ty("f64le"),
            Type::Float {
                bits: 64,
                endian: Some(Endian::Little)
            }
        );
        assert_eq!(ty("bool"), Type::Bool);
        assert_eq!(ty("varint"), Type::Varint { bits: 64 });
        assert_eq!(ty("varint(21)"), Type::Varint { bits: 21 });
        assert_eq!(ty("zigzag"), Type::Zigzag { bits: 64 });
        assert_eq!(ty("zigzag(32)"), Type::Zigzag { bits: 32 });
        assert_eq!(ty("bytes"), Type::Bytes);
        assert_eq!(ty("bytes?"), Type::OptBytes);
    }

    #[test]
    fn quaternions_and_bucket_codes() {
        assert_eq!(ty("quat(9)"), Type::Quat { bits: 9, span: S });
        assert_eq!(
            ty("bucket(0, 4, 8)"),
            Type::Bucket {
                signed: false,
                widths: vec![0, 4, 8],
                span: S
            }
        );
        assert_eq!(
            ty("zbucket(2,5,9)"),
            Type::Bucket {
                signed: true,
                widths: vec![2, 5, 9],
                span: S
            }
        );
        // The span covers the whole type, for the validator's diagnostics.
        let f = parse_file("t.wire", "packed record P { q: quat(9), }").unwrap();
        let Item::Record(r) = &f.items[0] else {
            panic!("a record")
        };
        let Type::Quat { span, .. } = &r.fields[0].ty else {
            panic!("a quat")
        };
        assert_eq!((span.start, span.end), (21, 28));
        // A hostile list of widths is not kept whole.
        let long = format!(
            "packed record P {{ b: bucket({}0), }}",
            "0, ".repeat(10_000)
        );
        let f = parse_file("t.wire", &long).unwrap();
        let Item::Record(r) = &f.items[0] else {
            panic!("a record")
        };
        assert!(matches!(&r.fields[0].ty, Type::Bucket { widths, .. } if widths.len() == 9));
    }

    #[test]
    fn quaternion_and_bucket_syntax_errors_are_located() {
        let one = |body: &str| {
            let e = errs(&format!("packed record A {{\n    {body}\n}}\n"));
            assert_eq!(e.len(), 1, "{body}: {e:?}");
            (e[0].1, e[0].2.clone())
        };
        assert_eq!(
            one("a: quat,"),
            (
                12,
                "expected `(` and the bits of a component after `quat`, found `,`".into()
            )
        );
        assert_eq!(
            one("a: bucket(1 2),"),
            (
                17,
                "expected `,` and a width, or `)` to close `bucket(`, found `2`".into()
            )
        );
        assert_eq!(
            one("a: zbucket(300),"),
            (16, "integer literal `300` is out of range".into())
        );
    }

    #[test]
    fn quant_and_named() {
        assert_eq!(
            ty("quant(i16, 1/100)"),
            Type::Quant {
                wire: Box::new(int(true, 16, None)),
                num: 1,
                den: 100
            }
        );
        assert_eq!(
            ty("quant(u8, 5)"),
            Type::Quant {
                wire: Box::new(u(8)),
                num: 5,
                den: 1
            }
        );
        assert_eq!(ty("PoseFull"), named("PoseFull"));
    }

    #[test]
    fn arrays() {
        assert_eq!(
            ty("[u16; removed_count]"),
            array(u(16), count_field("removed_count"), None)
        );
        assert_eq!(
            ty("[Change; u16]"),
            array(named("Change"), Count::Prefix(Box::new(u(16))), None)
        );
        assert_eq!(
            ty("[u8; varint]"),
            array(
                u(8),
                Count::Prefix(Box::new(Type::Varint { bits: 64 })),
                None
            )
        );
        assert_eq!(
            ty("[u8; varint(21)]"),
            array(
                u(8),
                Count::Prefix(Box::new(Type::Varint { bits: 21 })),
                None
            )
        );
        assert_eq!(
            ty("[u16; n] ascending"),
            array(u(16), count_field("n"), Some(None))
        );
        assert_eq!(
            ty("[Entity; varint] ascending(eid)"),
            array(
                named("Entity"),
                Count::Prefix(Box::new(Type::Varint { bits: 64 })),
                Some(Some("eid"))
            )
        );
        assert_eq!(
            ty("[[u8; u8]; n]"),
            array(
                array(u(8), Count::Prefix(Box::new(u(8))), None),
                count_field("n"),
                None
            )
        );
    }

    #[test]
    fn spans_point_at_names() {
        let src = "record Abc {\n    tick: u32 if flags.CHECK,\n    xs: [u8; n] ascending(k),\n}\n";
        let file = ok(src);
        let Item::Record(r) = &file.items[0] else {
            panic!()
        };
        let at = |s: Span| &src[s.start..s.end];
        assert_eq!(at(r.name_span), "Abc");
        assert_eq!(at(r.fields[0].name_span), "tick");
        let Some(Cond::Bit { span, .. }) = &r.fields[0].cond else {
            panic!()
        };
        assert_eq!(at(*span), "flags.CHECK");
        let Type::Array(a) = &r.fields[1].ty else {
            panic!()
        };
        let Count::Field { span, .. } = &a.count else {
            panic!()
        };
        assert_eq!(at(*span), "n");
        assert_eq!(at(a.ascending.as_ref().unwrap().span), "k");
    }

    #[test]
    fn constants() {
        let file = ok(
            "/// Ring size.\nconst SENT_RING: u32 = 32;\nconst MIN: i16 = -32768;\n\
             const HEX: u16be = 0x2A_2a;\nconst BIG: u64 = 1_000_000;\n\
             const MAX_HEADER_LEN: u16 = max_offset(Datagram.payload);\n",
        );
        let c = |docs: Docs, name: &str, ty: IntType, value: ConstValue| {
            Item::Const(Const {
                docs,
                name: name.into(),
                name_span: S,
                ty,
                value,
                value_span: S,
            })
        };
        assert_eq!(
            file.items,
            vec![
                c(
                    docs(&["Ring size."], &[]),
                    "SENT_RING",
                    IntType::unsigned(32),
                    ConstValue::Int(32)
                ),
                c(
                    Docs::default(),
                    "MIN",
                    IntType {
                        signed: true,
                        bits: 16,
                        endian: None
                    },
                    ConstValue::Int(-32768)
                ),
                c(
                    Docs::default(),
                    "HEX",
                    IntType {
                        signed: false,
                        bits: 16,
                        endian: Some(Endian::Big)
                    },
                    ConstValue::Int(0x2A2A)
                ),
                c(
                    Docs::default(),
                    "BIG",
                    IntType::unsigned(64),
                    ConstValue::Int(1_000_000)
                ),
                c(
                    Docs::default(),
                    "MAX_HEADER_LEN",
                    IntType::unsigned(16),
                    ConstValue::MaxOffset {
                        record: "Datagram".into(),
                        field: "payload".into()
                    }
                ),
            ]
        );
        let src = "const X: i8 = -5;";
        let Item::Const(x) = &ok(src).items[0] else {
            panic!()
        };
        assert_eq!(&src[x.value_span.start..x.value_span.end], "-5");
    }

    #[test]
    fn bit_sets() {
        let file = ok(
            "bits ChangeMask: u16 {\n    /// Pose group.\n    POSE = 0,\n    \
             POSE_FULL = 1 requires POSE,\n    reserved 2,\n    // later\n    reserved 3..=15\n    \
             // end\n}\n",
        );
        assert_eq!(
            file.items,
            vec![Item::Bits(Bits {
                docs: Docs::default(),
                name: "ChangeMask".into(),
                name_span: S,
                width: 16,
                bits: vec![
                    Bit {
                        docs: docs(&["Pose group."], &[]),
                        kind: BitKind::Named {
                            name: "POSE".into(),
                            index: 0,
                            requires: None
                        },
                        span: S
                    },
                    Bit {
                        docs: Docs::default(),
                        kind: BitKind::Named {
                            name: "POSE_FULL".into(),
                            index: 1,
                            requires: Some("POSE".into())
                        },
                        span: S
                    },
                    Bit {
                        docs: Docs::default(),
                        kind: BitKind::Reserved { lo: 2, hi: 2 },
                        span: S
                    },
                    Bit {
                        docs: docs(&[], &["later"]),
                        kind: BitKind::Reserved { lo: 3, hi: 15 },
                        span: S
                    },
                ],
                trailing_comments: strings(&["end"]),
                derived_from: None,
            })]
        );
        let Item::Bits(b) = &ok("bits P: u3 {}").items[0] else {
            panic!()
        };
        assert_eq!((b.width, b.bits.len()), (3, 0));
    }

    #[test]
    fn records_packed_and_frames() {
        let file = ok(
            "record A { x: u8 }\npacked record B { y: u1, z: i7, }\nframe C {\n    \
             kind: u8 = 6,\n    delta: i8 = -1,\n}\npacked frame D { w: bool }\n",
        );
        let rec = |kind, packed, name: &str, fields| {
            Item::Record(Record {
                docs: Docs::default(),
                kind,
                packed,
                name: name.into(),
                name_span: S,
                fields,
                trailing_comments: vec![],
                derived_from: None,
            })
        };
        let konst = |name: &str, ty, v| Field {
            constant: Some(v),
            ..field(name, ty)
        };
        assert_eq!(
            file.items,
            vec![
                rec(RecordKind::Record, false, "A", vec![field("x", u(8))]),
                rec(
                    RecordKind::Record,
                    true,
                    "B",
                    vec![field("y", u(1)), field("z", int(true, 7, None))]
                ),
                rec(
                    RecordKind::Frame,
                    false,
                    "C",
                    vec![
                        konst("kind", u(8), 6),
                        konst("delta", int(true, 8, None), -1)
                    ]
                ),
                rec(RecordKind::Frame, true, "D", vec![field("w", Type::Bool)]),
            ]
        );
    }

    #[test]
    fn keywords_as_field_names() {
        let names: Vec<String> =
            fields("type: u8, frame: u8, select: u8, if: u8, u8: u8, record: u8")
                .into_iter()
                .map(|f| f.name)
                .collect();
        assert_eq!(
            names,
            strings(&["type", "frame", "select", "if", "u8", "record"])
        );
    }

    #[test]
    fn select_blocks() {
        let got = fields(
            "eid: u16,\n// pre\nselect mask {\n    /// Full.\n    POSE => pose_full: PoseFull if mask.POSE_FULL,\n    \
             POSE => pose_step: PoseStep if !mask.POSE_FULL,\n    HEALTH => health: Health\n    // tail\n}\nlast: u8,",
        );
        let sel = |bit: &str| {
            Some(Selector {
                mask: "mask".into(),
                bit: bit.into(),
                span: S,
            })
        };
        let bit = |negated| {
            Some(Cond::Bit {
                field: "mask".into(),
                bit: "POSE_FULL".into(),
                negated,
                span: S,
            })
        };
        assert_eq!(
            got,
            vec![
                field("eid", u(16)),
                Field {
                    docs: docs(&["Full."], &["pre"]),
                    selector: sel("POSE"),
                    cond: bit(false),
                    ..field("pose_full", named("PoseFull"))
                },
                Field {
                    selector: sel("POSE"),
                    cond: bit(true),
                    ..field("pose_step", named("PoseStep"))
                },
                Field {
                    selector: sel("HEALTH"),
                    ..field("health", named("Health"))
                },
                Field {
                    docs: docs(&[], &["tail"]),
                    ..field("last", u(8))
                },
            ]
        );
        // A comma after the block is allowed too.
        assert_eq!(fields("select m { A => a: u8, }, b: u8").len(), 2);
    }

    #[test]
    fn conditions() {
        let cond = |text: &str| fields(&format!("f: u8 if {text}")).remove(0).cond.unwrap();
        assert_eq!(
            cond("flags.CHECK"),
            Cond::Bit {
                field: "flags".into(),
                bit: "CHECK".into(),
                negated: false,
                span: S
            }
        );
        assert_eq!(
            cond("!flags.CHECK"),
            Cond::Bit {
                field: "flags".into(),
                bit: "CHECK".into(),
                negated: true,
                span: S
            }
        );
        assert_eq!(
            cond("alive"),
            Cond::Set {
                field: "alive".into(),
                negated: false,
                span: S
            }
        );
        assert_eq!(
            cond("!alive"),
            Cond::Set {
                field: "alive".into(),
                negated: true,
                span: S
            }
        );
        assert_eq!(
            cond("count > 0x10"),
            Cond::Greater {
                field: "count".into(),
                value: 16,
                span: S
            }
        );
        assert_eq!(
            cond("a.B && !c.D && e > 0 && f && !g"),
            Cond::All(vec![
                Cond::Bit {
                    field: "a".into(),
                    bit: "B".into(),
                    negated: false,
                    span: S
                },
                Cond::Bit {
                    field: "c".into(),
                    bit: "D".into(),
                    negated: true,
                    span: S
                },
                Cond::Greater {
                    field: "e".into(),
                    value: 0,
                    span: S
                },
                Cond::Set {
                    field: "f".into(),
                    negated: false,
                    span: S
                },
                Cond::Set {
                    field: "g".into(),
                    negated: true,
                    span: S
                },
            ])
        );
        let f = fields("f: u8 = 3 if x").remove(0);
        assert_eq!((f.constant, f.cond.is_some()), (Some(3), true));
    }

    #[test]
    fn unions() {
        let file = ok(
            "/// Events.\nunion Event: u8 {\n    Shot = 1,\n    /// Boom.\n    Blast = 0x2\n}\n",
        );
        assert_eq!(
            file.items,
            vec![Item::Union(Union {
                docs: docs(&["Events."], &[]),
                name: "Event".into(),
                name_span: S,
                tag: IntType::unsigned(8),
                variants: vec![
                    Variant {
                        docs: Docs::default(),
                        record: "Shot".into(),
                        span: S,
                        tag: 1
                    },
                    Variant {
                        docs: docs(&["Boom."], &[]),
                        record: "Blast".into(),
                        span: S,
                        tag: 2
                    },
                ],
                trailing_comments: vec![],
            })]
        );
    }

    #[test]
    fn docs_comments_and_endian() {
        let src = "//! The file.\r\n//!\r\n//!  Indented.\n\n// before endian\nendian big;\n\n\
                   // note\n///Doc without space.\n/// Doc.\nrecord R {\n    // c\n    /// d\n    \
                   a: u8,\n    // trailing\n}\n// the end\n//\n";
        let file = ok(src);
        assert_eq!(file.name, "t.wire");
        assert_eq!(file.doc, strings(&["The file.", "", " Indented."]));
        assert_eq!(file.endian, Endian::Big);
        let Item::Record(r) = &file.items[0] else {
            panic!()
        };
        assert_eq!(
            r.docs,
            docs(&["Doc without space.", "Doc."], &["before endian", "note"])
        );
        assert_eq!(r.fields[0].docs, docs(&["d"], &["c"]));
        assert_eq!(r.trailing_comments, strings(&["trailing"]));
        assert_eq!(file.trailing_comments, strings(&["the end", ""]));

        assert_eq!(ok("endian little;").endian, Endian::Little);
        assert_eq!(ok("record A {}").endian, Endian::Little);
        // Four slashes are a plain comment, as in Rust.
        assert_eq!(ok("//// x\n").trailing_comments, strings(&["// x"]));
    }

    #[test]
    fn the_language_reference_example() {
        let src = include_str!("../LANGUAGE.md");
        let start = src.find("```wire\n").unwrap() + 8;
        let end = start + src[start..].find("```").unwrap();
        let file = ok(&src[start..end]);
        let names: Vec<&str> = file.items.iter().map(Item::name).collect();
        assert_eq!(
            names,
            ["SENT_RING", "AckedFlags", "Acked", "Change", "Event"]
        );
        assert_eq!(file.doc, strings(&["The acked snapshot frame (ACK-2)."]));
    }

    #[test]
    fn syntax_errors_are_located() {
        assert_eq!(
            errs("record A {\n    tick u32,\n}\n"),
            vec![err(
                2,
                10,
                "expected `:` after field name `tick`, found `u32`"
            )]
        );
        assert_eq!(
            errs("record A {\n    a: u8\n    b: u8,\n}\n"),
            vec![err(3, 5, "expected `,` after field `a`, found `b`")]
        );
        assert_eq!(
            errs("record A {\n    a: u8, // why\n}\n"),
            vec![err(2, 12, "move the comment to its own line")]
        );
        assert_eq!(
            errs("record A {}\n//! late\n"),
            vec![err(2, 1, "`//!` after the first item")]
        );
        assert_eq!(
            errs("record A {\n    a: u8,\n    /// nothing\n}\n/// nothing either\n"),
            vec![
                err(3, 5, "doc comment documents nothing"),
                err(5, 1, "doc comment documents nothing"),
            ]
        );
        assert_eq!(
            errs("const record: u8 = 1;"),
            vec![err(
                1,
                7,
                "`record` is a keyword and cannot name a constant"
            )]
        );
        assert_eq!(
            errs("record A { a: frame }"),
            vec![err(1, 15, "expected a type, found keyword `frame`")]
        );
        assert_eq!(
            errs("\u{0}record A {}"),
            vec![err(1, 1, "expected an item, found `\\0`")]
        );
        assert_eq!(
            errs("record A {}\nendian big;\nendian little;\n"),
            vec![
                err(2, 1, "`endian` after the first item"),
                err(3, 1, "`endian` after the first item")
            ]
        );
        assert_eq!(
            errs("record A {\n    /// lost\n    select m {}\n}"),
            vec![err(2, 5, "doc comment documents nothing")]
        );
        assert_eq!(
            errs("bits B: u8 { reserved 1..5 }"),
            vec![err(
                1,
                24,
                "expected `..=` in a range of reserved bits, found `.`"
            )]
        );
        let d = parse_file("t.wire", "endian big;\nendian big;").unwrap_err();
        assert_eq!(d[0].message, "`endian` given twice");
        assert_eq!(
            d[0].notes,
            strings(&["the byte order is first given at t.wire:1:1"])
        );
    }

    #[test]
    fn out_of_range_literals_and_widths() {
        let one = |body: &str| {
            let e = errs(&format!("record A {{\n    {body}\n}}"));
            assert_eq!(e.len(), 1, "{body}: {e:?}");
            let (line, col, m) = e.into_iter().next().unwrap();
            assert_eq!(line, 2, "{body}");
            (col, m)
        };
        assert_eq!(one("a: u65,"), (8, "invalid integer width in `u65`".into()));
        assert_eq!(one("a: u0,"), (8, "invalid integer width in `u0`".into()));
        assert_eq!(one("a: i1,"), (8, "`i1` has no room for a sign".into()));
        assert_eq!(one("a: f16,"), (8, "invalid float width in `f16`".into()));
        assert_eq!(
            one("a: varint(0),"),
            (15, "invalid width `0` for `varint`".into())
        );
        assert_eq!(
            one("a: zigzag(65),"),
            (15, "invalid width `65` for `zigzag`".into())
        );
        assert_eq!(
            one("a: quant(i16, 1/0),"),
            (21, "quant denominator is 0".into())
        );
        assert_eq!(
            one("a: u8 if n > 18446744073709551616,"),
            (
                18,
                "integer literal `18446744073709551616` is out of range".into()
            )
        );
        assert_eq!(
            one("a: u8 = 170141183460469231731687303715884105728,"),
            (
                13,
                "integer literal `170141183460469231731687303715884105728` is out of range".into()
            )
        );
        assert_eq!(
            one("a: u8 = 12ab,"),
            (13, "invalid integer literal `12ab`".into())
        );
        assert_eq!(
            one("a: u8 = 0x1000000000000000000000000000000000,"),
            (13, "integer literal is too large".into())
        );
        // i128::MIN itself fits.
        assert_eq!(
            fields("a: i8 = -170141183460469231731687303715884105728")[0].constant,
            Some(i128::MIN)
        );
        assert_eq!(
            errs("bits B: u8 {\n    A = 256,\n    reserved 1..=300,\n}"),
            vec![
                err(2, 9, "bit index `256` is out of range"),
                err(3, 18, "bit index `300` is out of range"),
            ]
        );
        assert_eq!(
            errs("bits B: i8 {}\nbits C: u8be {}"),
            vec![
                err(1, 9, "expected an unsigned integer type for bit set `B`"),
                err(2, 9, "expected an unsigned integer type for bit set `C`"),
            ]
        );
        assert_eq!(
            errs("union U: u8 { A = 18446744073709551616 }"),
            vec![err(
                1,
                19,
                "integer literal `18446744073709551616` is out of range"
            )]
        );
        assert_eq!(
            errs("const C: Foo = 1;"),
            vec![err(1, 10, "expected an integer type for constant `C`")]
        );
    }

    #[test]
    fn several_errors_in_one_file() {
        let src = "const A u8 = 1;\n\nrecord R {\n    a u8,\n    b: u8,\n    c: [u8; ],\n    d: u8 if,\n}\n\n\
                   union U: u8 { X = 1 }\n\nbits B: u8 { A = }\n";
        assert_eq!(
            errs(src),
            vec![
                err(1, 9, "expected `:` after constant name `A`, found `u8`"),
                err(4, 7, "expected `:` after field name `a`, found `u8`"),
                err(6, 13, "expected the array's count, found `]`"),
                err(7, 13, "expected a field name in the condition, found `,`"),
                err(12, 18, "expected a bit index, found `}`"),
            ]
        );
    }

    #[test]
    fn an_unclosed_block_does_not_swallow_the_next_item() {
        let src = "record A {\n    a: u8,\n\nrecord B {\n    b u8,\n}\n";
        let e = parse_file("t.wire", src).unwrap_err();
        let got: Vec<_> = e
            .iter()
            .map(|d| (d.line_col(src), d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    (4, 1),
                    "expected `}` to close record `A`, found keyword `record`"
                ),
                ((5, 7), "expected `:` after field name `b`, found `u8`"),
            ]
        );
        assert_eq!(e[0].notes, strings(&["the block opens at t.wire:1:10"]));
        assert_eq!(
            errs("record A {\n    a: u8,\n"),
            vec![err(
                3,
                1,
                "expected `}` to close record `A`, found end of file"
            )]
        );
    }

    #[test]
    fn comments_inside_declarations_are_errors() {
        assert_eq!(
            errs("record A {\n    a:\n    // what\n    u8,\n}"),
            vec![err(3, 5, "comment inside a declaration")]
        );
        assert_eq!(
            errs("record A { // x\n}"),
            vec![err(1, 12, "move the comment to its own line")]
        );
    }

    #[test]
    fn type_nesting_is_bounded() {
        let deep = |n: usize| format!("record A {{ a: {}u8{}, }}", "[".repeat(n), "; n]".repeat(n));
        ok(&deep(MAX_TYPE_DEPTH - 1));
        let e = errs(&deep(MAX_TYPE_DEPTH));
        assert_eq!(
            e,
            vec![err(1, 15 + MAX_TYPE_DEPTH, "type nested too deeply")]
        );
    }

    #[test]
    fn errors_are_capped() {
        let src = "record A {\n".to_string() + &"    a u8,\n".repeat(1000) + "}";
        let d = parse_file("t.wire", &src).unwrap_err();
        assert_eq!(d.len(), MAX_ERRORS + 1);
        assert_eq!(d[MAX_ERRORS].message, "too many errors; stopped after 50");
    }

    fn prompt(src: &str) -> Result<File, Vec<Diagnostic>> {
        // What these inputs cost in time is measured by `cargo bench -p ackwire-spec --bench
        // parse`, not here: a shared machine makes a timed test fail for its load alone.
        let r = parse_file("t.wire", src);
        if let Err(d) = &r {
            assert!(d.len() <= MAX_ERRORS + 1);
            let text: usize = d.iter().map(|d| d.message.len() + d.label.len()).sum();
            assert!(text < 20_000, "{text} bytes of diagnostics");
        }
        r
    }

    #[test]
    fn empty_file() {
        let f = prompt("").unwrap();
        assert!(f.items.is_empty() && f.doc.is_empty() && f.trailing_comments.is_empty());
        assert!(prompt(" \n\t\r\n").unwrap().items.is_empty());
    }

    #[test]
    fn binary_garbage() {
        let garbage: String = (0u8..=255).map(char::from).collect();
        assert!(prompt(&garbage).is_err());
        let repeated = garbage.repeat(2000);
        assert!(prompt(&repeated).is_err());
        let mut lcg = 12345u64;
        let random: String = (0..200_000)
            .map(|_| {
                lcg = lcg
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from((lcg >> 56) as u8)
            })
            .collect();
        let _ = prompt(&random);
    }

    #[test]
    fn ten_megabyte_lines() {
        const N: usize = 10 * 1024 * 1024;
        assert!(prompt(&"a".repeat(N)).is_err());
        assert!(prompt(&format!("const A: u8 = {};", "9".repeat(N))).is_err());
        assert!(prompt(&format!("// {}", "x".repeat(N))).is_ok());
        assert!(prompt(&format!("{}record A {{}}", " ".repeat(N))).is_ok());
        // Ten million one-byte tokens: the slowest kind of line.
        assert!(prompt(&format!("record A {{ a: u8 if {}", "[".repeat(N))).is_err());
    }

    #[test]
    fn deeply_nested_brackets() {
        let src = format!("record A {{\n    a: {}\n}}\n", "[".repeat(100_000));
        assert_eq!(
            prompt(&src).unwrap_err()[0].message,
            "type nested too deeply"
        );
        assert!(prompt(&"[".repeat(100_000)).is_err());
        assert!(prompt(&format!("record A {{ a: {} }}", "quant(".repeat(100_000))).is_err());
    }
}
