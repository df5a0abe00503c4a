//! The `sed -i` property the fuzz target and the smoke test share: no
//! command or file makes [`plan`] or the emulation panic, and the fast
//! path (which runs the script only on lines a whole-file search says may
//! match) writes what running it on every line writes.

use crate::sed::{Call, Dialect, Options, Program, plan};

/// Scripts the smoke test and the fuzzer start from: every feature once.
pub const SED_SEEDS: &[&str] = &[
    "s/a/b/",
    "s/a*/x/g",
    "s/^/> /",
    "s/$/\\r/",
    "s/\\r$//",
    "s/.*/[&]/2",
    "s|a\\|b|x|gI",
    "s/\\(a\\|b\\)\\+/<\\1>/3g",
    "s/[^]a]\\{1,2\\}/\\n/",
    "s/(a|ab)(c|bcd)(d*)/\\3\\2\\1/g",
];

/// Decodes fuzz bytes into a command and a file. The first byte chooses
/// the dialect (bit 0), the syntax (bit 2) and the command: with bit 3, a
/// seed script (the high bits pick it) and all the rest is the file;
/// without, the rest up to the first `\n` is the script (bit 1) or the
/// whole command (no bit 1), and the bytes after the `\n` are the file.
#[must_use]
pub fn sed_input(data: &[u8]) -> (String, Dialect, Vec<u8>) {
    let Some((&control, rest)) = data.split_first() else {
        return (String::new(), Dialect::Gnu, Vec::new());
    };
    let dialect = if control & 1 == 0 {
        Dialect::Gnu
    } else {
        Dialect::Qwen0244
    };
    let extended = if control & 4 == 0 { "" } else { " -E" };
    let command = |script: &str| {
        let quoted = shlex::try_quote(script)
            .map(|q| q.into_owned())
            .unwrap_or_default();
        format!("sed -i{extended} {quoted} f")
    };
    if control & 8 != 0 {
        let seed = SED_SEEDS[usize::from(control >> 4) % SED_SEEDS.len()];
        return (command(seed), dialect, rest.to_vec());
    }
    let (first_line, file) = match rest.iter().position(|&b| b == b'\n') {
        Some(at) => (&rest[..at], rest[at + 1..].to_vec()),
        None => (rest, Vec::new()),
    };
    let text = String::from_utf8_lossy(first_line);
    let command = if control & 2 == 0 {
        text.into_owned()
    } else {
        command(&text)
    };
    (command, dialect, file)
}

/// Checks the property on one command and file.
///
/// # Errors
/// A description of the disagreement between the fast path and the model.
pub fn check_sed(command: &str, dialect: Dialect, file: &[u8]) -> Result<(), String> {
    let Ok(planned) = plan(command, Call::Foreground) else {
        return Ok(());
    };
    let options = Options {
        dialect,
        max_output_bytes: 1 << 20,
    };
    let program = Program::new(&planned.substitution, options)
        .map_err(|e| format!("{command:?} was planned but does not compile: {e}"))?;
    let fast = program.apply(file);
    let model = program.apply_every_line(file);
    if fast != model {
        return Err(format!(
            "fast path and model disagree on {command:?} ({dialect:?})\n file: {:?}\n fast: {fast:?}\n model: {model:?}",
            String::from_utf8_lossy(file)
        ));
    }
    Ok(())
}

/// Fuzz entry point: panics (the fuzzer's failure signal) when
/// [`check_sed`] finds a disagreement.
#[allow(clippy::panic)] // A fuzz oracle reports failure by panicking.
pub fn fuzz_sed(data: &[u8]) {
    let (command, dialect, file) = sed_input(data);
    if let Err(message) = check_sed(&command, dialect, &file) {
        panic!("{message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the fuzz target's logic over every seed and a deterministic
    /// spread of bytes, so `cargo test` exercises the property without the
    /// fuzzer.
    #[test]
    fn smoke() {
        let alphabet = b"ab A\r\n\n\\*.^$[]()|+?{}&1/";
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut planned = 0;
        for round in 0..3000_usize {
            let len = 2 + round % 48;
            let mut data: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let byte = state.to_le_bytes()[0];
                    alphabet[usize::from(byte) % alphabet.len()]
                })
                .collect();
            // Two in three inputs run a seed script; the rest parse
            // whatever the bytes say.
            let control = u8::try_from(round % 256).unwrap();
            data[0] = if round % 3 == 0 {
                control & !8 | 2
            } else {
                control | 8
            };
            let (command, dialect, file) = sed_input(&data);
            planned += usize::from(plan(&command, Call::Foreground).is_ok());
            if let Err(message) = check_sed(&command, dialect, &file) {
                panic!("{message}");
            }
        }
        // The property means little if hardly anything is planned.
        assert!(planned > 1500, "only {planned} of 3000 inputs were planned");
    }

    #[test]
    fn the_model_sees_the_line_the_candidate_search_skips() {
        // `[^a]` matches the `\n` between the lines in a whole-file search;
        // line by line, neither line has a match.
        assert_eq!(
            check_sed("sed -i 's/a[^a]b/x/' f", Dialect::Gnu, b"xa\nbx\n"),
            Ok(())
        );
        let program = Program::new(
            &plan("sed -i 's/a[^a]b/x/' f", Call::Foreground)
                .unwrap()
                .substitution,
            Options::default(),
        )
        .unwrap();
        assert_eq!(program.apply(b"xa\nbx\na-b\n").unwrap(), "xa\nbx\nx\n");
    }
}
