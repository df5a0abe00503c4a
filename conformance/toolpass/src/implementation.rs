//! How to launch an implementation: a command line, its environment and its
//! working directory, with `{root}` standing for the sandbox root of a plain
//! MCP server that takes its root on the command line.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{StartError, StartErrorKind};

/// The placeholder substituted with the sandbox root in a command line.
pub const ROOT_PLACEHOLDER: &str = "{root}";

/// A launch spec: what to run for one implementation process.
///
/// Nothing here runs a shell: a command line is split into words as a POSIX
/// shell would split it (quotes and backslashes), but nothing is expanded,
/// so `$HOME` or `*` reach the program as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Implementation {
    program: String,
    args: Vec<String>,
    env: Vec<(OsString, OsString)>,
    current_dir: Option<PathBuf>,
}

impl Implementation {
    /// Runs `program` (a path, or a name looked up in `PATH`) with no
    /// arguments.
    pub fn new(program: impl Into<String>) -> Implementation {
        Implementation {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            current_dir: None,
        }
    }

    /// Parses a command line such as `--impl "node adapter.js --root {root}"`.
    pub fn parse(command_line: &str) -> Result<Implementation, StartError> {
        let words = shlex::split(command_line).ok_or_else(|| {
            StartError::new(
                StartErrorKind::CommandLine,
                format!("split the command line {command_line:?}: its quotes do not balance"),
            )
        })?;
        let mut words = words.into_iter();
        let program = words.next().ok_or_else(|| {
            StartError::new(
                StartErrorKind::CommandLine,
                "split the command line: it names no program",
            )
        })?;
        Ok(Implementation::new(program).args(words))
    }

    /// Appends one argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<String>) -> Implementation {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    #[must_use]
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Implementation {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the process, on top of the
    /// runner's own environment.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Implementation {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the process's working directory (the runner's by default).
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Implementation {
        self.current_dir = Some(dir.into());
        self
    }

    /// The program, as given.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The arguments, as given (placeholders not substituted).
    pub fn arguments(&self) -> &[String] {
        &self.args
    }

    /// Whether the command line has `{root}`: such an implementation is
    /// started once per sandbox, with the root on its command line.
    pub fn needs_root(&self) -> bool {
        std::iter::once(&self.program)
            .chain(&self.args)
            .any(|word| word.contains(ROOT_PLACEHOLDER))
    }

    /// The program and arguments with `{root}` substituted.
    ///
    /// Fails when the command line has `{root}` and `root` is `None`, or
    /// when the root is not UTF-8 (a command line is text).
    pub fn command_line(&self, root: Option<&Path>) -> Result<(String, Vec<String>), StartError> {
        if !self.needs_root() {
            return Ok((self.program.clone(), self.args.clone()));
        }
        let root = root.ok_or_else(|| {
            StartError::new(
                StartErrorKind::Root,
                format!("start `{self}`: its command line has {ROOT_PLACEHOLDER} but no sandbox root was given"),
            )
        })?;
        let root = root.to_str().ok_or_else(|| {
            StartError::new(
                StartErrorKind::Root,
                format!(
                    "substitute {ROOT_PLACEHOLDER} with {}: the path is not UTF-8",
                    root.display()
                ),
            )
        })?;
        let substitute = |word: &String| word.replace(ROOT_PLACEHOLDER, root);
        Ok((
            substitute(&self.program),
            self.args.iter().map(substitute).collect(),
        ))
    }

    pub(crate) fn environment(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    pub(crate) fn working_dir(&self) -> Option<&Path> {
        self.current_dir.as_deref()
    }
}

impl fmt::Display for Implementation {
    /// The command line, quoted so that it parses back to the same words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = std::iter::once(&self.program).chain(&self.args);
        for (i, word) in words.enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            match shlex::try_quote(word) {
                Ok(quoted) => f.write_str(&quoted)?,
                // A NUL byte cannot be quoted for a shell; show it escaped.
                Err(_) => write!(f, "{word:?}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Implementation;
    use crate::StartErrorKind;

    fn check(command_line: &str, root: Option<&str>, expect: &[&str]) {
        let implementation = Implementation::parse(command_line).unwrap();
        let (program, args) = implementation.command_line(root.map(Path::new)).unwrap();
        let words: Vec<&str> = std::iter::once(program.as_str())
            .chain(args.iter().map(String::as_str))
            .collect();
        assert_eq!(words, expect);
        let reparsed = Implementation::parse(&implementation.to_string()).unwrap();
        assert_eq!(reparsed, implementation, "Display does not round-trip");
    }

    #[test]
    fn words_are_split_as_a_shell_would_without_expanding_anything() {
        check(
            r#"node "my adapter.js" --flag='a b' $HOME *.ts \"x"#,
            None,
            &[
                "node",
                "my adapter.js",
                "--flag=a b",
                "$HOME",
                "*.ts",
                "\"x",
            ],
        );
    }

    #[test]
    fn root_is_substituted_in_every_word() {
        check(
            "mcp-server --root {root} --cache={root}/.cache",
            Some("/tmp/sand box"),
            &[
                "mcp-server",
                "--root",
                "/tmp/sand box",
                "--cache=/tmp/sand box/.cache",
            ],
        );
    }

    #[test]
    fn a_command_line_without_root_ignores_the_root() {
        check("toolpass-server", Some("/tmp/x"), &["toolpass-server"]);
    }

    #[test]
    fn root_placeholder_without_a_root_is_an_error() {
        let implementation = Implementation::parse("srv {root}").unwrap();
        assert!(implementation.needs_root());
        let error = implementation.command_line(None).unwrap_err();
        assert_eq!(error.kind(), StartErrorKind::Root);
    }

    #[test]
    fn unbalanced_quotes_and_empty_lines_are_errors() {
        for line in ["node 'adapter.js", "", "   "] {
            let error = Implementation::parse(line).unwrap_err();
            assert_eq!(error.kind(), StartErrorKind::CommandLine, "{line:?}");
        }
    }
}
