//! JSON as Slurm 22.05's `serializer/json` prints it: json-c 0.16 with
//! `JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_PRETTY`, printed with `printf("%s")` (no
//! trailing newline).
//!
//! json-c's layout: two spaces per level; `"key": value`; an empty object or array still
//! breaks its line (`[` newline, indent, `]`); `/` is escaped as `\/`; control characters
//! become `\b \n \r \t \f` or `\u00xx` (lower-case hex); other bytes, UTF-8 included,
//! pass through. Integers are signed 64-bit; doubles use `%.17g` (see [`super::num`]).

use super::num::json_double;
use super::value::Value;

/// The whole document.
pub fn to_string(v: &Value) -> String {
    let mut out = String::with_capacity(4096);
    write_value(&mut out, v, 0, false);
    out
}

/// The whole document as Slurm 24.11 prints it (json-c 0.18): the same, except that an
/// empty object or array stays on its line (`[]`, `{}`).
pub fn to_string_24(v: &Value) -> String {
    let mut out = String::with_capacity(4096);
    write_value(&mut out, v, 0, true);
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, v: &Value, level: usize, inline_empty: bool) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => {
            use std::fmt::Write;
            let _ = write!(out, "{n}");
        }
        Value::Float(x) => out.push_str(&json_double(*x)),
        Value::Str(s) => write_string(out, s),
        Value::NullStr => out.push_str("\"\""),
        Value::List(items) if items.is_empty() && inline_empty => out.push_str("[]"),
        Value::Dict(d) if d.0.is_empty() && inline_empty => out.push_str("{}"),
        Value::List(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, level + 1);
                write_value(out, item, level + 1, inline_empty);
            }
            if !items.is_empty() {
                out.push('\n');
            }
            indent(out, level);
            out.push(']');
        }
        Value::Dict(d) => {
            out.push_str("{\n");
            for (i, (k, item)) in d.0.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                indent(out, level + 1);
                write_string(out, k);
                out.push_str(": ");
                write_value(out, item, level + 1, inline_empty);
            }
            if !d.0.is_empty() {
                out.push('\n');
            }
            indent(out, level);
            out.push('}');
        }
    }
}

/// json-c's `json_escape_str` (without `JSON_C_TO_STRING_NOSLASHESCAPE`).
fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'\x08' => Some("\\b"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            b'\x0c' => Some("\\f"),
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'/' => Some("\\/"),
            _ => None,
        };
        if esc.is_none() && b >= b' ' {
            continue;
        }
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                out.push_str("\\u00");
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 0xf)] as char);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::value::Dict;
    use super::*;

    #[test]
    fn layout_matches_json_c_pretty_spaced() {
        let mut inner = Dict::new();
        inner.push("type", Value::str("openapi/v0.0.38"));
        let mut d = Dict::new();
        d.push("meta", inner.into());
        d.push("errors", Value::List(vec![]));
        d.push("empty", Value::Dict(Dict::new()));
        d.push(
            "list",
            Value::List(vec![Value::Int(-2), Value::Null, Value::Bool(true)]),
        );
        d.push("f", Value::Float(2.0));
        d.push("nullstr", Value::NullStr);
        assert_eq!(
            to_string(&d.into()),
            "{\n  \"meta\": {\n    \"type\": \"openapi\\/v0.0.38\"\n  },\n  \"errors\": [\n  ],\n  \
             \"empty\": {\n  },\n  \"list\": [\n    -2,\n    null,\n    true\n  ],\n  \
             \"f\": 2.0,\n  \"nullstr\": \"\"\n}"
        );
    }

    #[test]
    fn strings_escape_as_json_c() {
        let mut out = String::new();
        write_string(&mut out, "a/b\"c\\d\te\u{1}f\u{7f}é");
        assert_eq!(out, "\"a\\/b\\\"c\\\\d\\te\\u0001f\u{7f}é\"");
    }

    #[test]
    fn top_level_scalars() {
        assert_eq!(to_string(&Value::Int(i64::MIN)), "-9223372036854775808");
        assert_eq!(to_string(&Value::List(vec![])), "[\n]");
    }
}
