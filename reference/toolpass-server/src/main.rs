//! `toolpass-server`: the reference tool layer behind toolpass/1 on stdio.
//!
//! The protocol loop arrives with issue 4. Until then this binary refuses to
//! run rather than pretend to serve anything.

use std::process::ExitCode;

fn main() -> ExitCode {
    #[allow(clippy::print_stderr)] // The only honest output a stub can give.
    {
        eprintln!("toolpass-server: not implemented yet (the protocol server lands with issue 4)");
    }
    ExitCode::from(2)
}
