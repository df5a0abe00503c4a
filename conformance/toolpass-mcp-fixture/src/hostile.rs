//! The shapes of a broken MCP server, chosen on the command line so a
//! scenario's `mcpServers` entry can start each one. Neither speaks MCP at
//! all, so neither goes through `rmcp`: they read stdin line by line until
//! it ends, then exit 0, and never wait on a clock.

use std::io::{BufRead, Write};

/// Reads every line (the client's `initialize` among them) and answers none:
/// a client must give up on its own timeout rather than hang.
pub(crate) fn never_initialize(input: impl BufRead) -> std::io::Result<()> {
    for line in input.lines() {
        line?;
    }
    Ok(())
}

/// What `--invalid-json` answers every line with.
pub(crate) const NOT_JSON: &str = "this line is not JSON: toolpass-mcp-fixture --invalid-json";

/// Answers every line read (the client's `initialize` first) with a line
/// that is not JSON.
pub(crate) fn invalid_json(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        line?;
        writeln!(output, "{NOT_JSON}")?;
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_initialize_reads_to_the_end_of_its_input() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}\nmore\n";
        let mut reader = std::io::Cursor::new(input);
        never_initialize(&mut reader).unwrap();
        assert_eq!(reader.position(), input.len() as u64);
    }

    #[test]
    fn invalid_json_answers_each_line_with_one_that_does_not_parse() {
        let mut out = Vec::new();
        invalid_json("one\ntwo\n".as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 2);
        for line in text.lines() {
            assert!(
                serde_json::from_str::<serde_json::Value>(line).is_err(),
                "{line}"
            );
        }
    }
}
