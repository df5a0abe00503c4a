//! JSON as JavaScript's `JSON.parse` and `JSON.stringify(value, null,
//! indent)` see it, which is how Qwen Code reads and writes a notebook
//! (`parseNotebook`, `serializeNotebook` in `packages/core/src/utils/
//! notebook.ts`). A notebook edit must write the bytes Qwen writes, so the
//! three places where a Rust JSON library differs are done by hand:
//!
//! - every number is an IEEE double, parsed correctly rounded and printed as
//!   `Number.prototype.toString` prints it (`1.0` → `1`, `1e21` → `1e+21`,
//!   integers past 2^53 rounded);
//! - an object keeps its keys in insertion order, except that keys which are
//!   array indices (`"0"`, `"17"`) come first in ascending order, and a
//!   repeated key keeps its first place with its last value;
//! - strings are escaped as `JSON.stringify` escapes them (`\u001f`, no
//!   escape for `/` or non-ASCII).
//!
//! One JavaScript behaviour is refused rather than copied: a string holding
//! a lone UTF-16 surrogate (`"\ud800"`), which a Rust string cannot hold; the
//! edit fails and the file keeps its bytes.

use std::collections::HashMap;

/// A JSON value, in JavaScript's model of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Js {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Js>),
    Obj(Obj),
}

/// An object's members in their order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Obj(Vec<(String, Js)>);

impl Obj {
    /// The value of `key`, if present (JavaScript's `undefined` is `None`).
    pub(crate) fn get(&self, key: &str) -> Option<&Js> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of `key`, to change in place.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Js> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `object[key] = value`: the key keeps its place, or is appended.
    pub(crate) fn set(&mut self, key: &str, value: Js) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = value,
            None => self.0.push((key.to_owned(), value)),
        }
    }

    /// `delete object[key]`.
    pub(crate) fn remove(&mut self, key: &str) {
        self.0.retain(|(k, _)| k != key);
    }

    /// An object of these members, in this order.
    pub(crate) fn from_members(members: Vec<(String, Js)>) -> Self {
        Obj(members)
    }
}

/// Deepest nesting accepted; a notebook is a few levels deep, and a bound
/// keeps a hostile file from overflowing the stack.
const MAX_DEPTH: usize = 512;

/// `JSON.parse(text)`.
///
/// # Errors
/// What is wrong and at which character offset.
pub(crate) fn parse(text: &str) -> Result<Js, String> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        pos: 0,
    };
    parser.skip_ws();
    let value = parser.value(0)?;
    parser.skip_ws();
    if parser.pos < parser.bytes.len() {
        return Err(parser.unexpected("after the JSON value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn unexpected(&self, context: &str) -> String {
        match self.text[self.pos..].chars().next() {
            Some(c) => format!(
                "Unexpected token {c:?} {context} in JSON at position {}",
                self.pos
            ),
            None => "Unexpected end of JSON input".to_owned(),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Js, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "JSON nested deeper than {MAX_DEPTH} levels at position {}",
                self.pos
            ));
        }
        match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Js::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Js::Bool(true)),
            Some(b'f') => self.literal("false", Js::Bool(false)),
            Some(b'n') => self.literal("null", Js::Null),
            _ => Err(self.unexpected("where a value was expected")),
        }
    }

    fn literal(&mut self, word: &str, value: Js) -> Result<Js, String> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            // Point at the first character that breaks the word.
            let matched = self.text[self.pos..]
                .bytes()
                .zip(word.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            self.pos += matched;
            Err(self.unexpected("in a literal"))
        }
    }

    fn expect(&mut self, byte: u8, context: &str) -> Result<(), String> {
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(context))
        }
    }

    fn object(&mut self, depth: usize) -> Result<Js, String> {
        self.pos += 1;
        let mut members: Vec<(String, Js)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Js::Obj(Obj(members)));
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected("where a property name was expected"));
            }
            let key = self.string()?;
            self.expect(b':', "after a property name")?;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            // JSON.parse: a repeated key keeps its first place, last value.
            match index.get(&key) {
                Some(&i) => members[i].1 = value,
                None => {
                    index.insert(key.clone(), members.len());
                    members.push((key, value));
                }
            }
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Js::Obj(Obj(members)));
                }
                _ => return Err(self.unexpected("in an object")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Js, String> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Js::Arr(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Js::Arr(items));
                }
                _ => return Err(self.unexpected("in an array")),
            }
        }
    }

    fn number(&mut self) -> Result<Js, String> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while p.bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let int_digits = digits(self);
        if int_digits == 0 || (int_digits > 1 && self.bytes[int_start] == b'0') {
            self.pos = int_start + usize::from(int_digits > 0);
            return Err(self.unexpected("in a number"));
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.unexpected("in a number's fraction"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.unexpected("in a number's exponent"));
            }
        }
        // Rust's float parsing is correctly rounded, as JavaScript's is; a
        // literal too large for a double is Infinity there too.
        let value: f64 = self.text[start..self.pos]
            .parse()
            .map_err(|e| format!("{e} at position {start}"))?;
        Ok(Js::Num(value))
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run = self.bytes[self.pos..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map_or(self.bytes.len(), |i| self.pos + i);
            out.push_str(&self.text[self.pos..run]);
            self.pos = run;
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.unexpected("(a control character) in a string")),
                None => return Err("Unterminated string in JSON".to_owned()),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let c = match self.bytes.get(self.pos) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let at = self.pos - 1;
                let high = self.hex4()?;
                let c = if (0xD800..0xDC00).contains(&high)
                    && self.text[self.pos..].starts_with("\\u")
                {
                    self.pos += 1;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(lone_surrogate(at));
                    }
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    char::from_u32(high)
                };
                out.push(c.ok_or_else(|| lone_surrogate(at))?);
                return Ok(());
            }
            _ => return Err(self.unexpected("after a backslash in a string")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    /// `u` and four hex digits; `pos` is on the `u`.
    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .text
            .get(self.pos + 1..self.pos + 5)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        let Some(digits) = digits else {
            self.pos += 1;
            return Err(self.unexpected("in a \\u escape"));
        };
        self.pos += 5;
        u32::from_str_radix(digits, 16).map_err(|e| e.to_string())
    }
}

fn lone_surrogate(at: usize) -> String {
    format!(
        "a lone UTF-16 surrogate escape at position {at} cannot be kept; the notebook was not changed"
    )
}

/// `JSON.stringify(value, null, indent)`: `indent` is the gap string (empty
/// for the compact form).
pub(crate) fn stringify(value: &Js, indent: &str) -> String {
    let mut out = String::new();
    write_value(&mut out, value, indent, 0);
    out
}

fn newline(out: &mut String, indent: &str, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str(indent);
    }
}

fn write_value(out: &mut String, value: &Js, indent: &str, level: usize) {
    match value {
        Js::Null => out.push_str("null"),
        Js::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Js::Num(n) => out.push_str(&number_to_string(*n)),
        Js::Str(s) => quote(out, s),
        Js::Arr(items) if items.is_empty() => out.push_str("[]"),
        Js::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !indent.is_empty() {
                    newline(out, indent, level + 1);
                }
                write_value(out, item, indent, level + 1);
            }
            if !indent.is_empty() {
                newline(out, indent, level);
            }
            out.push(']');
        }
        Js::Obj(Obj(members)) if members.is_empty() => out.push_str("{}"),
        Js::Obj(Obj(members)) => {
            out.push('{');
            for (i, (key, item)) in js_key_order(members).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !indent.is_empty() {
                    newline(out, indent, level + 1);
                }
                quote(out, key);
                out.push_str(if indent.is_empty() { ":" } else { ": " });
                write_value(out, item, indent, level + 1);
            }
            if !indent.is_empty() {
                newline(out, indent, level);
            }
            out.push('}');
        }
    }
}

/// JavaScript's property order: array-index keys ascending, then the rest
/// in insertion order.
fn js_key_order(members: &[(String, Js)]) -> Vec<(&str, &Js)> {
    let mut indexed: Vec<(u32, &str, &Js)> = Vec::new();
    let mut named: Vec<(&str, &Js)> = Vec::new();
    for (key, value) in members {
        match array_index(key) {
            Some(i) => indexed.push((i, key, value)),
            None => named.push((key, value)),
        }
    }
    if indexed.is_empty() {
        return named;
    }
    indexed.sort_by_key(|(i, _, _)| *i);
    indexed
        .into_iter()
        .map(|(_, k, v)| (k, v))
        .chain(named)
        .collect()
}

/// A canonical array index: decimal without a leading zero, below 2^32 - 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|&i| i != u32::MAX)
}

/// `JSON.stringify`'s `QuoteJSONString`, the core's, which the
/// deferred-tools reminder uses too.
fn quote(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        toolpass_core::js_string::push_escaped(out, c);
    }
    out.push('"');
}

/// `Number.prototype.toString()` of a finite double, as `JSON.stringify`
/// prints it (`-0` as `0`; a non-finite number as `null`).
pub(crate) fn number_to_string(n: f64) -> String {
    if !n.is_finite() {
        return "null".to_owned();
    }
    if n == 0.0 {
        return "0".to_owned();
    }
    let sign = if n < 0.0 { "-" } else { "" };
    // Rust's `{:e}` prints the shortest digits that round-trip, as
    // ECMAScript's Number::toString requires: `d.ddde±x`.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let n_exp = exponent.parse::<i64>().unwrap_or(0) + 1;
    let zeros = |count: i64| "0".repeat(usize::try_from(count).unwrap_or(0));
    let body = if k <= n_exp && n_exp <= 21 {
        format!("{digits}{}", zeros(n_exp - k))
    } else if 0 < n_exp && n_exp <= 21 {
        let split = usize::try_from(n_exp).unwrap_or(0);
        format!("{}.{}", &digits[..split], &digits[split..])
    } else if -6 < n_exp && n_exp <= 0 {
        format!("0.{}{digits}", zeros(-n_exp))
    } else {
        let e = n_exp - 1;
        let e_sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        if rest.is_empty() {
            format!("{first}e{e_sign}{}", e.abs())
        } else {
            format!("{first}.{rest}e{e_sign}{}", e.abs())
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        // Expected values are what node's String(x) prints.
        for (text, js) in [
            ("1.0", "1"),
            ("-0", "0"),
            ("0.1", "0.1"),
            ("1e21", "1e+21"),
            ("123456789012345678901", "123456789012345680000"),
            ("1e-7", "1e-7"),
            ("0.000001", "0.000001"),
            ("1.5e300", "1.5e+300"),
            ("-2.5E-10", "-2.5e-10"),
            ("9007199254740993", "9007199254740992"),
            ("12.340", "12.34"),
            ("1e400", "null"),
        ] {
            let Js::Num(n) = parse(text).unwrap() else {
                panic!("{text}")
            };
            assert_eq!(number_to_string(n), js, "{text}");
        }
    }

    #[test]
    fn stringify_matches_json_stringify_layout() {
        let v = parse(r#"{"b":[],"a":{},"c":[1,{"x":"y\u001f\/é"}],"2":true,"10":null,"01":0}"#)
            .unwrap();
        assert_eq!(
            stringify(&v, " "),
            "{\n \"2\": true,\n \"10\": null,\n \"b\": [],\n \"a\": {},\n \"c\": [\n  1,\n  {\n   \"x\": \"y\\u001f/é\"\n  }\n ],\n \"01\": 0\n}"
        );
        assert_eq!(
            stringify(&v, ""),
            "{\"2\":true,\"10\":null,\"b\":[],\"a\":{},\"c\":[1,{\"x\":\"y\\u001f/é\"}],\"01\":0}"
        );
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(stringify(&v, ""), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn surrogate_pairs_decode_and_lone_ones_are_refused() {
        assert_eq!(
            parse(r#""\ud83d\ude00""#).unwrap(),
            Js::Str("😀".to_owned())
        );
        assert!(
            parse(r#""\ud800""#)
                .unwrap_err()
                .contains("lone UTF-16 surrogate")
        );
        assert!(
            parse(r#""\udc00x""#)
                .unwrap_err()
                .contains("lone UTF-16 surrogate")
        );
    }

    #[test]
    fn malformed_json_is_an_error_naming_where() {
        assert_eq!(
            parse("not json").unwrap_err(),
            "Unexpected token 'o' in a literal in JSON at position 1"
        );
        assert_eq!(
            parse("{\"a\":").unwrap_err(),
            "Unexpected end of JSON input"
        );
        assert!(parse("[1,]").unwrap_err().contains("position 3"));
        assert!(parse("01").is_err());
        assert!(parse("{} x").unwrap_err().contains("after the JSON value"));
        let deep = "[".repeat(600) + &"]".repeat(600);
        assert!(parse(&deep).unwrap_err().contains("nested deeper"));
    }
}
