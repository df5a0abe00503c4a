//! `kill`, `killall` and `pkill`: Qwen's `processSafety`. Its own file
//! because a plain command and a `find -exec` both reach it.

use super::safety::{Safety, before_terminator, has_help};

/// Qwen's `processSafety` for `kill`, `killall` and `pkill`: a write
/// (it signals a process) unless it only lists signals, probes with signal
/// 0, prints help, or its signal is not literal.
pub(super) fn process_safety(root: &str, args: &[String]) -> Safety {
    let options = before_terminator(args);
    let mut signal_options = vec!["--signal"];
    if root != "pkill" {
        signal_options.push("-s");
    }
    if root == "kill" {
        signal_options.push("-n");
    }
    if args.is_empty()
        || has_help(args, &[])
        || options
            .iter()
            .any(|a| matches!(a.as_str(), "-h" | "-V" | "-help" | "-version"))
    {
        return Safety::Unknown;
    }
    let value_of_signal_option = |i: usize| {
        i.checked_sub(1)
            .and_then(|p| options.get(p))
            .is_some_and(|p| signal_options.contains(&p.as_str()))
    };
    let doubtful = options.iter().enumerate().any(|(i, arg)| {
        let dynamic = arg.contains(['$', '`', '*', '?', '(', ')', '[', ']', '{', '}'])
            && (arg.starts_with('-') || value_of_signal_option(i));
        let lists = arg.starts_with("-l")
            || arg.starts_with("-L")
            || arg.starts_with("-0")
            || arg.strip_prefix("--").is_some_and(lists_signals);
        let zero_flag = arg.strip_prefix('-').is_some_and(is_signal_zero)
            || (root == "kill" && flag_value(arg, &['s', 'n']).is_some_and(is_signal_zero))
            || (root == "killall" && flag_value(arg, &['s']).is_some_and(is_signal_zero))
            || arg.strip_prefix("--signal=").is_some_and(is_signal_zero);
        dynamic || lists || zero_flag || (value_of_signal_option(i) && is_signal_zero(arg))
    });
    if doubtful {
        Safety::Unknown
    } else {
        Safety::Write
    }
}

/// `--…list` or `--table`, alone or with `=`: kill listing signals.
fn lists_signals(long: &str) -> bool {
    let ends_option = |rest: &str| rest.is_empty() || rest.starts_with('=');
    long.strip_prefix("table").is_some_and(ends_option)
        || long
            .match_indices("list")
            .any(|(at, _)| long.get(at + 4..).is_some_and(ends_option))
}

/// The value written together with a short flag of `letters` in either
/// case (`-s0`, `-N0`).
fn flag_value<'a>(arg: &'a str, letters: &[char]) -> Option<&'a str> {
    let rest = arg.strip_prefix('-')?;
    let flag = rest.chars().next()?;
    letters
        .contains(&flag.to_ascii_lowercase())
        .then(|| rest.get(1..))
        .flatten()
        .filter(|v| !v.is_empty())
}

/// `0`, `00`, `SIG0` in any case: the signal that only probes.
fn is_signal_zero(signal: &str) -> bool {
    let digits = match signal.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("SIG") => signal.get(3..).unwrap_or_default(),
        _ => signal,
    };
    !digits.is_empty() && digits.bytes().all(|b| b == b'0')
}
