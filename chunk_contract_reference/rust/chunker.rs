//! Fixed-size windows in UTF-8 bytes, in Rust (std only), speaking chunk-contract's
//! out-of-process protocol (SPEC §8; docs/protocol.md) on stdin/stdout.
//!
//! Build and run:  rustc -O -o chunker chunk_contract_reference/rust/chunker.rs
//!                 chunk-contract run "exec:./chunker"
//!
//! How it stays correct:
//! * Windows are measured in UTF-8 bytes (unit "bytes") but cut only between characters: a
//!   window takes as many whole characters as fit in max_size bytes, and at least one (a
//!   character wider than the cap is indivisible).
//! * Each window starts at a non-whitespace character (Python's str.isspace() set, SPACE
//!   below) and is trimmed at its end; a window that trims to lie inside the previous one is
//!   dropped, so starts and ends strictly increase.
//! * The next window starts at the earliest character whose run up to this window's end fits
//!   in `overlap` bytes (so consecutive chunks share at most `overlap` bytes), but always at
//!   least one character after this window's start: the loop advances on every config.
//! * Offsets are exact by construction: codepoint start/end, byte start_byte/end_byte and
//!   lines (only "\n" ends a line) all come from one table of the document's characters.
//! * Degenerate configs (max_size < 1, overlap < 0 or >= max_size, non-integers) are refused
//!   with an error of type "config".

mod json;

use json::{int, object, Value};
use std::io::{self, BufRead, Write};

/// Python's str.isspace() set.
const SPACE: [u32; 29] = [
    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000,
    0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
    0x2029, 0x202f, 0x205f, 0x3000,
];

fn is_space(c: char) -> bool {
    SPACE.contains(&(c as u32))
}

/// The document as characters, with the byte offset and line of every character boundary.
struct Text<'a> {
    text: &'a str,
    chars: Vec<char>,
    bytes: Vec<usize>, // bytes[i]: UTF-8 offset of character i (and the length at the end)
    lines: Vec<usize>, // lines[i]: "\n" before character i
}

impl<'a> Text<'a> {
    fn new(text: &'a str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let (mut bytes, mut lines) = (vec![0], vec![0]);
        for c in &chars {
            bytes.push(bytes.last().unwrap() + c.len_utf8());
            lines.push(lines.last().unwrap() + usize::from(*c == '\n'));
        }
        Text { text, chars, bytes, lines }
    }

    /// The end of the longest run of whole characters from `start` within `budget` bytes
    /// (at least one character).
    fn fit(&self, start: usize, budget: usize) -> usize {
        let limit = self.bytes[start] + budget;
        let end = self.bytes.partition_point(|&b| b <= limit) - 1;
        end.max(start + 1).min(self.chars.len())
    }

    /// The earliest character whose run up to `end` fits in `budget` bytes.
    fn back(&self, end: usize, budget: usize) -> usize {
        let floor = self.bytes[end].saturating_sub(budget);
        self.bytes.partition_point(|&b| b < floor).min(end)
    }

    fn next_non_space(&self, mut at: usize) -> Option<usize> {
        while at < self.chars.len() && is_space(self.chars[at]) {
            at += 1;
        }
        (at < self.chars.len()).then_some(at)
    }

    fn trim_end(&self, start: usize, mut end: usize) -> usize {
        while end > start && is_space(self.chars[end - 1]) {
            end -= 1;
        }
        end
    }

    fn chunk(&self, start: usize, end: usize) -> Value {
        let (sb, eb) = (self.bytes[start], self.bytes[end]);
        object(vec![
            ("text", Value::Str(self.text[sb..eb].to_string())),
            ("start", int(start as i64)),
            ("end", int(end as i64)),
            ("start_byte", int(sb as i64)),
            ("end_byte", int(eb as i64)),
            ("line_start", int(self.lines[start] as i64 + 1)),
            ("line_end", int(self.lines[end - 1] as i64 + 1)),
            ("id", Value::Str(format!("{}:{}", start, end))),
        ])
    }
}

/// The chunks of one split: (start, end) character spans, trimmed, in order.
fn spans(text: &Text, max_size: usize, overlap: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut found = text.next_non_space(0);
    while let Some(start) = found {
        let window = text.fit(start, max_size);
        let end = text.trim_end(start, window);
        if !matches!(out.last(), Some(&(s, e)) if start >= s && end <= e) {
            out.push((start, end));
        }
        if window >= text.chars.len() {
            break;
        }
        found = text.next_non_space(text.back(window, overlap).max(start + 1));
    }
    out
}

/// SPEC §2's valid configs, or the message refusing this one.
fn check_config(max_size: Option<i64>, overlap: Option<i64>) -> Result<(usize, usize), String> {
    match (max_size, overlap) {
        (Some(m), Some(o)) if m >= 1 && o >= 0 && o < m => Ok((m as usize, o as usize)),
        (Some(m), _) if m >= 1 => Err("overlap must be an integer with 0 <= overlap < max_size".into()),
        _ => Err("max_size must be an integer >= 1".into()),
    }
}

fn error(id: Value, kind: &str, message: &str) -> Value {
    let detail = object(vec![("type", Value::Str(kind.into())), ("message", Value::Str(message.into()))]);
    object(vec![("id", id), ("error", detail)])
}

/// The reply to one request line.
fn answer(line: &str) -> Value {
    let call = match json::parse(line) {
        Ok(call) => call,
        Err(e) => return error(Value::Null, "crash", &format!("bad request: {}", e)),
    };
    let id = call.get("id").cloned().unwrap_or(Value::Null);
    if call.get("op").and_then(Value::as_str) != Some("split") {
        return error(id, "crash", "only the split op is served (unit is bytes)");
    }
    let config = check_config(
        call.get("max_size").and_then(Value::as_i64),
        call.get("overlap").and_then(Value::as_i64),
    );
    let (max_size, overlap) = match config {
        Ok(pair) => pair,
        Err(message) => return error(id, "config", &message),
    };
    let Some(document) = call.get("document").and_then(Value::as_str) else {
        return error(id, "crash", "document must be a string");
    };
    let text = Text::new(document);
    let chunks = spans(&text, max_size, overlap).into_iter().map(|(s, e)| text.chunk(s, e));
    object(vec![("id", id), ("chunks", Value::Array(chunks.collect()))])
}

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let hello = object(vec![("chunk_contract", int(1)), ("unit", Value::Str("bytes".into()))]);
    writeln!(out, "{}", json::write(&hello)).and_then(|_| out.flush()).expect("stdout");
    for line in io::stdin().lock().lines() {
        let reply = match line {
            Ok(line) => answer(&line),
            Err(e) => error(Value::Null, "crash", &format!("unreadable request: {}", e)),
        };
        if writeln!(out, "{}", json::write(&reply)).and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}
