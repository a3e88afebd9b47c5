//! DEFECTIVE on purpose (tests only): seed 002's chunker, where "max_chars was not a cap on
//! the emitted chunk": each window fills max_size bytes, then the previous window's last
//! `overlap` bytes are prepended on top of it, so a chunk reaches max_size + overlap.
//! Every offset it reports is exact: only the cap is broken.

#[path = "../../../chunk_contract_reference/rust/json.rs"]
mod json;

use json::{int, object, Value};
use std::io::{self, BufRead, Write};

fn chunks(document: &str, max_size: usize, overlap: usize) -> Vec<Value> {
    let bounds: Vec<usize> = document.char_indices().map(|(b, _)| b).chain([document.len()]).collect();
    let mut out = Vec::new();
    let (mut start, mut index) = (0usize, 0usize);
    while index + 1 < bounds.len() {
        let mut end = index + 1;
        while end + 1 < bounds.len() && bounds[end + 1] - bounds[index] <= max_size {
            end += 1;
        }
        // the bug: the overlap is added before the full window instead of coming out of it
        let mut first = index;
        while first > start && bounds[index] - bounds[first - 1] <= overlap {
            first -= 1;
        }
        let (sb, eb) = (bounds[first], bounds[end]);
        out.push(object(vec![
            ("text", Value::Str(document[sb..eb].to_string())),
            ("start", int(first as i64)),
            ("end", int(end as i64)),
            ("start_byte", int(sb as i64)),
            ("end_byte", int(eb as i64)),
        ]));
        start = index;
        index = end;
    }
    out
}

fn main() {
    let mut out = io::stdout().lock();
    writeln!(out, "{{\"chunk_contract\": 1, \"unit\": \"bytes\"}}").unwrap();
    out.flush().unwrap();
    for line in io::stdin().lock().lines() {
        let call = json::parse(&line.unwrap()).unwrap();
        let id = call.get("id").cloned().unwrap_or(Value::Null);
        let max_size = call.get("max_size").and_then(Value::as_i64).unwrap_or(0);
        let overlap = call.get("overlap").and_then(Value::as_i64).unwrap_or(0);
        let reply = if max_size < 1 || overlap < 0 || overlap >= max_size {
            let error = object(vec![("type", Value::Str("config".into())),
                                    ("message", Value::Str("bad config".into()))]);
            object(vec![("id", id), ("error", error)])
        } else {
            let document = call.get("document").and_then(Value::as_str).unwrap_or("");
            let found = chunks(document, max_size as usize, overlap as usize);
            object(vec![("id", id), ("chunks", Value::Array(found))])
        };
        writeln!(out, "{}", json::write(&reply)).unwrap();
        out.flush().unwrap();
    }
}
