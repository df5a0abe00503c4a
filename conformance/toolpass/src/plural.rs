//! Numbers in words, for every report and message the runner prints. Its own
//! module because the judge's messages and the reports both count things,
//! and the judge must not reach into the reports for it.

/// `n` and the noun in the number it takes: `1 scenario`, `2 scenarios`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
