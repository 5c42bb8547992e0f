//! YAML as Slurm 22.05's `serializer/yaml` prints it: libyaml 0.2.5's emitter fed with a
//! `%YAML 1.1` document whose every node carries an explicit tag (`!!map`, `!!seq`,
//! `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`) and "any" style.
//!
//! This is a re-implementation of the parts of libyaml's emitter such a stream reaches:
//! block collections (empty ones become flow `[]`/`{}`), simple or `?` complex keys, and
//! scalars chosen plain, single-quoted or double-quoted by libyaml's own analysis,
//! including its line folding at column 80 and its escaping of every non-ASCII
//! character (Slurm never enables unicode output). Indentation is two spaces; a
//! sequence that is the value of a mapping key is not indented.

use super::num::yaml_double;
use super::value::Value;

const BEST_INDENT: i32 = 2;
const BEST_WIDTH: usize = 80;

/// The whole document, ending `...\n`.
pub fn to_string(v: &Value) -> String {
    let mut e = Emitter {
        out: String::with_capacity(4096),
        column: 0,
        whitespace: true,
        indention: true,
        indent: -1,
        indents: Vec::new(),
        flow_level: 0,
        mapping_context: false,
        simple_key_context: false,
    };
    e.write_indicator("%YAML", true, false, false);
    e.write_indicator("1.1", true, false, false);
    e.write_indent();
    e.write_indent();
    e.write_indicator("---", true, false, false);
    e.emit_node(v, false, true, false);
    e.write_indent();
    e.write_indicator("...", true, false, false);
    e.write_indent();
    e.out
}

struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: i32,
    indents: Vec<i32>,
    flow_level: u32,
    mapping_context: bool,
    simple_key_context: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
}

/// What `yaml_emitter_analyze_scalar` learns about a scalar.
struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
}

/// A scalar node: its tag suffix (after `!!`) and its text.
fn scalar(v: &Value) -> Option<(&'static str, std::borrow::Cow<'_, str>)> {
    use std::borrow::Cow;
    Some(match v {
        Value::Null | Value::NullStr => ("null", Cow::Borrowed("null")),
        Value::Bool(b) => ("bool", Cow::Borrowed(if *b { "true" } else { "false" })),
        Value::Int(n) => ("int", Cow::Owned(n.to_string())),
        Value::Float(x) => ("float", Cow::Owned(yaml_double(*x))),
        Value::Str(s) => ("str", Cow::Borrowed(s.as_str())),
        Value::List(_) | Value::Dict(_) => return None,
    })
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blankz(c: Option<char>) -> bool {
    match c {
        None | Some('\0') => true,
        Some(c) => c == ' ' || c == '\t' || is_break(c),
    }
}

/// libyaml's `IS_PRINTABLE` on a whole character.
fn is_printable(c: char) -> bool {
    let c = c as u32;
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (0xA0..=0xD7FF).contains(&c)
        || ((0xE000..=0xFFFD).contains(&c) && c != 0xFEFF)
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let mut flow_indicators = block_indicators;
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let chars: Vec<char> = value.chars().collect();
    let n = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = is_blankz(chars.get(i + 1).copied());
        if i == 0 {
            if matches!(
                c,
                '#' | ','
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '&'
                    | '*'
                    | '!'
                    | '|'
                    | '>'
                    | '\''
                    | '"'
                    | '%'
                    | '@'
                    | '`'
            ) {
                flow_indicators = true;
                block_indicators = true;
            }
            if c == '?' || c == ':' {
                flow_indicators = true;
                if followed_by_whitespace {
                    block_indicators = true;
                }
            }
            if c == '-' && followed_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        } else {
            if matches!(c, ',' | '?' | '[' | ']' | '{' | '}') {
                flow_indicators = true;
            }
            if c == ':' {
                flow_indicators = true;
                if followed_by_whitespace {
                    block_indicators = true;
                }
            }
            if c == '#' && preceded_by_whitespace {
                flow_indicators = true;
                block_indicators = true;
            }
        }
        if !is_printable(c) || !c.is_ascii() {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if i + 1 == n {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            if i == 0 {
                leading_break = true;
            }
            if i + 1 == n {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(Some(c));
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if break_space {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if line_breaks {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if flow_indicators {
        a.flow_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `WRITE_BREAK`: a `\n` is a line break; another break character is copied.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// `!!` then the suffix; our tags are all letters, so nothing needs %-escaping.
    fn write_tag(&mut self, suffix: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        self.put('!');
        self.put('!');
        for c in suffix.chars() {
            self.put(c);
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn emit_node(&mut self, v: &Value, _sequence: bool, mapping: bool, simple_key: bool) {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match v {
            Value::List(items) => self.emit_sequence(items),
            Value::Dict(d) => self.emit_mapping(&d.0),
            other => {
                if let Some((tag, text)) = scalar(other) {
                    self.emit_scalar(tag, &text);
                }
            }
        }
    }

    /// `yaml_emitter_check_simple_key` for a key node.
    fn is_simple_key(v: &Value) -> bool {
        match v {
            Value::List(items) => items.is_empty(),
            Value::Dict(d) => d.0.is_empty(),
            other => match scalar(other) {
                Some((tag, text)) => !analyze(&text).multiline && 2 + tag.len() + text.len() <= 128,
                None => false,
            },
        }
    }

    fn emit_scalar(&mut self, tag: &str, value: &str) {
        let a = analyze(value);
        let mut style = Style::Plain;
        if self.simple_key_context && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            let flow = self.flow_level > 0;
            if (flow && !a.flow_plain_allowed) || (!flow && !a.block_plain_allowed) {
                style = Style::Single;
            }
            if value.is_empty() && (flow || self.simple_key_context) {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        self.write_tag(tag);
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            Style::Plain => self.write_plain(value, allow_breaks),
            Style::Single => self.write_single_quoted(value, allow_breaks),
            Style::Double => self.write_double_quoted(value, allow_breaks),
        }
        self.pop_indent();
    }

    fn emit_sequence(&mut self, items: &[Value]) {
        self.write_tag("seq");
        if self.flow_level > 0 || items.is_empty() {
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.write_indicator(",", false, false, false);
                }
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                self.emit_node(item, true, false, false);
            }
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("]", false, false, false);
            return;
        }
        let indentless = self.mapping_context && !self.indention;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.emit_node(item, true, false, false);
        }
        self.pop_indent();
    }

    fn emit_mapping(&mut self, entries: &[(String, Value)]) {
        self.write_tag("map");
        if self.flow_level > 0 || entries.is_empty() {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            for (i, (k, v)) in entries.iter().enumerate() {
                let key = Value::Str(k.clone());
                if i > 0 {
                    self.write_indicator(",", false, false, false);
                }
                if self.column > BEST_WIDTH {
                    self.write_indent();
                }
                if Self::is_simple_key(&key) {
                    self.emit_node(&key, false, true, true);
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indicator("?", true, false, false);
                    self.emit_node(&key, false, true, false);
                    if self.column > BEST_WIDTH {
                        self.write_indent();
                    }
                    self.write_indicator(":", true, false, false);
                }
                self.emit_node(v, false, true, false);
            }
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("}", false, false, false);
            return;
        }
        self.increase_indent(false, false);
        for (k, v) in entries {
            let key = Value::Str(k.clone());
            self.write_indent();
            if Self::is_simple_key(&key) {
                self.emit_node(&key, false, true, true);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.emit_node(&key, false, true, false);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.emit_node(v, false, true, false);
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace && (!value.is_empty() || self.flow_level > 0) {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let n = chars.len();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i != 0
                    && i + 1 != n
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if breaks {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str, allow_breaks: bool) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let n = chars.len();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            let escape = !is_printable(c)
                || !c.is_ascii()
                || c == '\u{feff}'
                || is_break(c)
                || c == '"'
                || c == '\\';
            if escape {
                self.put('\\');
                let short = match c as u32 {
                    0x00 => Some('0'),
                    0x07 => Some('a'),
                    0x08 => Some('b'),
                    0x09 => Some('t'),
                    0x0A => Some('n'),
                    0x0B => Some('v'),
                    0x0C => Some('f'),
                    0x0D => Some('r'),
                    0x1B => Some('e'),
                    0x22 => Some('"'),
                    0x5C => Some('\\'),
                    0x85 => Some('N'),
                    0xA0 => Some('_'),
                    0x2028 => Some('L'),
                    0x2029 => Some('P'),
                    _ => None,
                };
                match short {
                    Some(s) => self.put(s),
                    None => {
                        let v = c as u32;
                        let (letter, width) = if v <= 0xFF {
                            ('x', 2)
                        } else if v <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(letter);
                        for k in (0..width).rev() {
                            self.put(HEX[((v >> (k * 4)) & 0xF) as usize] as char);
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i != 0 && i + 1 != n {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::value::Dict;
    use super::*;

    fn doc(v: Value) -> String {
        to_string(&v)
    }

    #[test]
    fn document_frame_and_collections() {
        let mut meta = Dict::new();
        meta.push("type", Value::str("openapi/v0.0.38"));
        let mut job = Dict::new();
        job.push("account", Value::str("research"));
        job.push("admin_comment", Value::NullStr);
        job.push("flags", Value::List(vec![]));
        job.push("billable_tres", Value::Float(1.0));
        job.push("batch_flag", Value::Bool(true));
        job.push("show_flags", Value::strings(["SHOW_ALL", "SHOW_DETAIL"]));
        job.push("empty", Value::Dict(Dict::new()));
        let mut d = Dict::new();
        d.push("meta", meta.into());
        d.push("errors", Value::List(vec![]));
        d.push("jobs", Value::List(vec![job.into()]));
        assert_eq!(
            doc(d.into()),
            "%YAML 1.1\n--- !!map\n!!str meta: !!map\n  !!str type: !!str openapi/v0.0.38\n\
             !!str errors: !!seq []\n!!str jobs: !!seq\n- !!map\n  !!str account: !!str research\n  \
             !!str admin_comment: !!null null\n  !!str flags: !!seq []\n  \
             !!str billable_tres: !!float 1.000000\n  !!str batch_flag: !!bool true\n  \
             !!str show_flags: !!seq\n  - !!str SHOW_ALL\n  - !!str SHOW_DETAIL\n  \
             !!str empty: !!map {}\n...\n"
        );
    }

    #[test]
    fn long_plain_scalars_fold_after_column_80() {
        let mut d = Dict::new();
        d.push(
            "state_description",
            Value::str(
                "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions",
            ),
        );
        let mut top = Dict::new();
        top.push("jobs", Value::List(vec![d.into()]));
        assert_eq!(
            doc(top.into()),
            "%YAML 1.1\n--- !!map\n!!str jobs: !!seq\n- !!map\n  !!str state_description: !!str Nodes required for job are DOWN, DRAINED or reserved\n    for jobs in higher priority partitions\n...\n"
        );
    }

    #[test]
    fn quoting_follows_libyaml_analysis() {
        let scalar_doc = |s: &str| {
            let mut d = Dict::new();
            d.push("k", Value::text(s));
            doc(d.into())
        };
        let body = |s: &str| {
            let full = scalar_doc(s);
            full["%YAML 1.1\n--- !!map\n!!str k: ".len()..full.len() - "\n...\n".len()].to_string()
        };
        assert_eq!(body(""), "!!str");
        assert_eq!(body("a b"), "!!str a b");
        assert_eq!(body(" lead"), "!!str ' lead'");
        assert_eq!(body("it's"), "!!str it's");
        assert_eq!(body("#x"), "!!str '#x'");
        assert_eq!(body("a #b"), "!!str 'a #b'");
        assert_eq!(body("a: b"), "!!str 'a: b'");
        assert_eq!(body("a:b"), "!!str a:b");
        assert_eq!(body("- x"), "!!str '- x'");
        assert_eq!(body("-x"), "!!str -x");
        assert_eq!(body("---"), "!!str '---'");
        assert_eq!(body("'q'"), "!!str '''q'''");
        assert_eq!(body("tab\there"), "!!str \"tab\\there\"");
        assert_eq!(body("é"), "!!str \"\\xE9\"");
        assert_eq!(body("\u{20ac}"), "!!str \"\\u20AC\"");
        assert_eq!(body("\u{1F600}"), "!!str \"\\U0001F600\"");
        assert_eq!(body("a\nb"), "!!str 'a\n\n  b'");
        assert_eq!(body("x\"y\\"), "!!str x\"y\\");
    }
}
