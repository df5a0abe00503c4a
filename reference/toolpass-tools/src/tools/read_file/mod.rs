//! `read_file`: Qwen Code's `ReadFileTool` (`packages/core/src/tools/
//! read-file.ts`, 0.24.4) and the `processSingleFileContent` pipeline behind
//! it (`packages/core/src/utils/fileUtils.ts`).
//!
//! - A full read of a file that is unchanged since the model last saw all
//!   of it as text returns the `file_unchanged` placeholder.
//! - The file type comes from the name, then from the first bytes
//!   ([`file_type`]). Text is decoded (BOM and legacy encodings, strictly),
//!   cut to `offset`/`limit` or the session's line limit, trimmed of
//!   trailing white space, and cut at the character budget ([`text`]);
//!   files of 10 MiB and more are streamed and must be UTF-8.
//! - The reference model has no image, audio, video or PDF input, so those
//!   get Qwen's text for a model without that modality: the "unsupported
//!   file" notice for media, `pdftotext` text for PDFs ([`pdf`]).
//!   Notebooks are rendered cell by cell ([`notebook`]).
//! - Every successful read is recorded in the read cache: `full` when the
//!   request had no range and nothing was cut, `cacheable` for text only.
//!
//! Beyond Qwen: the path must resolve inside the session root; the file is
//! opened once, non-blocking, and checked to be a regular file on the open
//! descriptor, so a FIFO or device never blocks the session; bytes that do
//! not decode to text that writes back unchanged are refused rather than
//! shown with replacement characters.

mod file_type;
mod notebook;
mod pdf;
mod tables;
mod text;

use std::fs::{File, Metadata};
use std::io::{self, Cursor, Read};
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use toolpass_core::text::{TextErrorKind, decode};

use self::file_type::{FileType, IMAGE_MAX_SOURCE_BYTES, SNIFF_LEN};
use self::pdf::{MAX_PAGES_PER_READ, PageRange, PdfTools, parse_page_range};
use self::text::{Budget, STREAMING_MIN_SIZE};
use super::ignore_files::QwenIgnore;
use super::node::{
    self, basename, extname, fs_error_message, make_relative, normalize, shorten_path,
};
use super::path_arg::{resolve_in_sandbox, unescape_path};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::fileio::stat;
use crate::kind::Kind;
use crate::located::Located;
use crate::prior_read::escaped;
use crate::read_cache::{CacheState, ReadKind};
use crate::result::{Display, Failure, ToolResult};
use crate::sandbox::is_escape;
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "read_file";

/// Qwen's limit on non-text files, in MB (`fileSizeInMB > 9.9`).
const MAX_NON_TEXT_MB: f64 = 9.9;
/// `PDF_FULL_TEXT_EXTRACTION_MAX_MB`.
const PDF_FULL_TEXT_MAX_MB: f64 = 100.0;
/// `PDF_PAGED_TEXT_EXTRACTION_MAX_MB`.
const PDF_PAGED_TEXT_MAX_MB: f64 = 512.0;
/// The SVG size Qwen still shows as text.
const SVG_MAX_BYTES: u64 = 1024 * 1024;

/// The `read_file` tool.
#[derive(Debug)]
pub struct ReadFileTool {
    pdf: Arc<PdfTools>,
}

impl ReadFileTool {
    /// The tool with other PDF programs than `pdftotext` and `pdfinfo`
    /// from `PATH`, for tests.
    #[doc(hidden)]
    #[must_use]
    pub fn with_pdf_programs(pdftotext: &str, pdfinfo: &str) -> Self {
        ReadFileTool {
            pdf: Arc::new(PdfTools::new(pdftotext, pdfinfo)),
        }
    }
}

impl Default for ReadFileTool {
    /// The tool using `pdftotext` and `pdfinfo` from `PATH` for PDFs.
    fn default() -> Self {
        Self::with_pdf_programs("pdftotext", "pdfinfo")
    }
}

/// The arguments. `offset` and `limit` are numbers, not integers, so that a
/// value like `2.0` reaches Qwen's own checks.
#[derive(Debug, Deserialize)]
pub struct ReadFileParams {
    file_path: String,
    #[serde(default)]
    offset: Option<f64>,
    #[serde(default)]
    limit: Option<f64>,
    #[serde(default)]
    pages: Option<String>,
    #[serde(skip)]
    resolved: PathBuf,
}

impl ReadFileParams {
    fn offset(&self) -> Option<usize> {
        self.offset.map(to_count)
    }

    fn limit(&self) -> Option<usize> {
        self.limit.map(to_count)
    }
}

/// A validated non-negative integer as a count.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn to_count(value: f64) -> usize {
    // Validation guarantees a non-negative integer; huge values saturate.
    value as usize
}

impl DeclarativeTool for ReadFileTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Read;
    const DECLARATION: &'static str = include_str!("../declarations/read_file.json");
    type Params = ReadFileParams;

    fn validate_values(
        &self,
        params: &mut ReadFileParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        let file_path = unescape_path(params.file_path.trim());
        params.file_path.clone_from(&file_path);
        if file_path.is_empty() {
            return Err(BuildError::invalid(
                "The 'file_path' parameter must be non-empty.",
            ));
        }
        if !file_path.starts_with('/') {
            return Err(BuildError::invalid(format!(
                "File path must be absolute, but was relative: {file_path}. You must provide an absolute path."
            )));
        }
        params.resolved = resolve_in_sandbox(workspace, &file_path)?;
        params.pages = params
            .pages
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned);
        if extname(&file_path).eq_ignore_ascii_case(".ipynb")
            && (params.offset.is_some() || params.limit.is_some() || params.pages.is_some())
        {
            return Err(BuildError::invalid(format!(
                "For Jupyter notebooks (.ipynb), omit 'offset', 'limit', and 'pages' or set them to null. Retry with: {{\"file_path\":{},\"offset\":null,\"limit\":null,\"pages\":null}}",
                serde_json::Value::from(file_path.as_str())
            )));
        }
        if params.offset.is_some_and(|o| o.fract() != 0.0 || o < 0.0) {
            return Err(BuildError::invalid("Offset must be a non-negative integer"));
        }
        if params.limit.is_some_and(|l| l.fract() != 0.0 || l <= 0.0) {
            return Err(BuildError::invalid("Limit must be a positive integer"));
        }
        if let Some(pages) = &params.pages {
            check_pages(pages).map_err(BuildError::invalid)?;
        }
        let ignore = QwenIgnore::load(workspace.sandbox());
        if let Some(file) = ignore.ignored_by(&params.resolved, false) {
            return Err(BuildError::invalid(format!(
                "File path '{file_path}' is ignored by {file} pattern(s)."
            )));
        }
        Ok(())
    }

    fn create_invocation(
        &self,
        params: ReadFileParams,
        workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(ReadFileInvocation {
            params,
            pdf: Arc::clone(&self.pdf),
            root: workspace.sandbox().root().to_string_lossy().into_owned(),
        })
    }

    /// Qwen's `maxOutputChars` is infinite: the tool pages by lines and
    /// bounds itself.
    fn max_output_chars(&self, _workspace: &Workspace) -> Option<usize> {
        Some(usize::MAX)
    }
}

/// The `pages` checks of `validateToolParamValues`.
fn check_pages(pages: &str) -> Result<PageRange, String> {
    let range = parse_page_range(pages).ok_or_else(|| {
        format!("Invalid pages parameter: '{pages}'. Use formats like '5' or '1-10'.")
    })?;
    let Some(last) = range.last else {
        return Err(format!(
            "Open-ended page ranges (e.g. '3-') are not supported; specify an explicit end page within the {MAX_PAGES_PER_READ}-page limit (e.g. '3-22')."
        ));
    };
    if last - range.first + 1 > MAX_PAGES_PER_READ {
        return Err(format!(
            "Pages range exceeds maximum of {MAX_PAGES_PER_READ} pages per request."
        ));
    }
    Ok(range)
}

struct ReadFileInvocation {
    params: ReadFileParams,
    pdf: Arc<PdfTools>,
    /// The session root, for descriptions.
    root: String,
}

/// What a read produced, before it becomes a [`ToolResult`].
enum Outcome {
    /// Shown to the model; recorded in the read cache.
    Read {
        llm_content: String,
        display: String,
        truncated: bool,
        cacheable: bool,
    },
    /// A failure with Qwen's three texts.
    Failed(Failure),
}

impl Outcome {
    /// A non-text result: shown, never editable.
    fn notice(llm_content: String, display: String) -> Self {
        Outcome::Read {
            llm_content,
            display,
            truncated: false,
            cacheable: false,
        }
    }

    fn too_large(llm_content: String, message: String) -> Self {
        Outcome::Failed(
            Failure::new(ToolErrorCode::FileTooLarge, message)
                .llm_content(llm_content.clone())
                .display(llm_content),
        )
    }
}

impl Invocation for ReadFileInvocation {
    fn description(&self) -> String {
        let p = &self.params;
        let short = shorten_path(&make_relative(&p.file_path, &self.root));
        if let Some(pages) = &p.pages {
            return format!("{short} (pages {pages})");
        }
        match (p.offset(), p.limit()) {
            (Some(o), Some(l)) => format!("{short} (lines {}-{})", o + 1, o + l),
            (Some(o), None) => format!("{short} (from line {})", o + 1),
            (None, Some(l)) => format!("{short} (first {l} lines)"),
            (None, None) => short,
        }
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![self.params.resolved.clone()]
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let p = &self.params;
        let root = workspace.sandbox().root().to_string_lossy().into_owned();
        // Qwen's relativePathForDisplay: the path as given, relative to the
        // root.
        let shown = node::relative(&root, &p.file_path);
        let full_request = p.offset.is_none() && p.limit.is_none() && p.pages.is_none();
        let path = p.resolved.as_path();
        // Located again: the call may run long after it was built, and what
        // was inside then may lead outside now.
        let target = workspace
            .sandbox()
            .locate(&path.to_string_lossy())
            .map_err(|_| escaped(&shown))?;

        let meta = match stat(workspace.faults(), &target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Failure::new(
                    ToolErrorCode::FileNotFound,
                    format!("File not found: {}", p.file_path),
                )
                .llm_content("Could not read file because no file was found at the specified path.")
                .display("File not found."));
            }
            Err(e) if is_escape(&e) => return Err(escaped(&shown).into()),
            Err(e) => {
                return Err(read_failure(
                    &shown,
                    &fs_error_message(&e, "stat", &p.file_path),
                ));
            }
        };
        if full_request && unchanged_since_full_read(workspace, &meta) {
            let relative = shorten_path(&make_relative(&normalize(&p.file_path), &root));
            return Ok(ToolResult::new(
                format!(
                    "[File {relative} unchanged since last read in this session \u{2014} the full content was provided earlier in this conversation. If you cannot retrieve that prior content (e.g. after context compaction) or you suspect the file was modified outside the read/edit tools (shell command, MCP tool, another process), re-read with explicit offset/limit to fetch current content.]"
                ),
                Display::Text(format!("Unchanged: {relative}")),
            ));
        }
        if meta.is_dir() {
            return Err(directory_failure(&p.file_path));
        }
        if !meta.is_file() {
            return Err(special_file_failure(&p.file_path));
        }
        let (outcome, read_meta) = match self.read(workspace, &target, &shown) {
            Ok(pair) => pair,
            Err(e) if is_escape(&e) => return Err(escaped(&shown).into()),
            Err(e) => (
                Outcome::Failed(read_failure(
                    &shown,
                    &fs_error_message(&e, "open", &p.file_path),
                )),
                None,
            ),
        };
        if let (
            Outcome::Read {
                truncated,
                cacheable,
                ..
            },
            Some(read_meta),
        ) = (&outcome, &read_meta)
        {
            workspace.read_cache().record_read(
                path,
                read_meta,
                ReadKind {
                    full: full_request && !truncated,
                    cacheable: *cacheable,
                },
            );
        }
        outcome.into_result()
    }
}

/// The `file_unchanged` fast path's condition: the cache saw the whole
/// file as text at this fingerprint, after the last write by a tool.
fn unchanged_since_full_read(workspace: &Workspace, meta: &Metadata) -> bool {
    let cache = workspace.read_cache();
    match cache.check(meta) {
        CacheState::Fresh(entry) => {
            entry.last_read_was_full
                && entry.last_read_cacheable
                && entry.last_read_at.is_some()
                && entry
                    .last_write_at
                    .is_none_or(|w| entry.last_read_at > Some(w))
        }
        _ => false,
    }
}

/// Qwen's catch-all: one text for the model, the person and the error.
fn read_failure(shown: &str, message: &str) -> Failure {
    let text = format!("Error reading file {shown}: {message}");
    Failure::new(ToolErrorCode::ReadContentFailure, text)
}

fn directory_failure(file_path: &str) -> Failure {
    Failure::new(
        ToolErrorCode::TargetIsDirectory,
        format!("Path is a directory, not a file: {file_path}"),
    )
    .llm_content("Could not read file because the provided path is a directory, not a file.")
    .display("Path is a directory.")
}

fn special_file_failure(file_path: &str) -> Failure {
    Failure::new(
        ToolErrorCode::ReadContentFailure,
        format!("Not a regular file: {file_path}"),
    )
    .llm_content(format!(
        "Cannot read file: {} is not a regular file (e.g. device, socket, or pipe).",
        basename(file_path)
    ))
    .display("Not a regular file.")
}

impl ReadFileInvocation {
    /// Opens the file once and produces the outcome with the metadata of the
    /// descriptor the bytes came from (recorded on success).
    fn read(
        &self,
        workspace: &Workspace,
        target: &Located,
        shown: &str,
    ) -> io::Result<(Outcome, Option<Metadata>)> {
        let p = &self.params;
        let mut file = target.open_read()?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Ok((Outcome::Failed(directory_failure(&p.file_path)), None));
        }
        if !meta.is_file() {
            return Ok((Outcome::Failed(special_file_failure(&p.file_path)), None));
        }
        let mut head = Vec::with_capacity(SNIFF_LEN);
        (&mut file).take(SNIFF_LEN as u64).read_to_end(&mut head)?;
        let kind = file_type::detect(&p.file_path, &head, meta.len());
        let outcome = self.read_kind(workspace, kind, shown, head, file, &meta)?;
        Ok((outcome, Some(meta)))
    }

    /// `processSingleFileContent` from the file type on.
    fn read_kind(
        &self,
        workspace: &Workspace,
        kind: FileType,
        shown: &str,
        head: Vec<u8>,
        mut file: File,
        meta: &Metadata,
    ) -> io::Result<Outcome> {
        let p = &self.params;
        let name = basename(&p.file_path);
        #[allow(clippy::cast_precision_loss)] // Sizes are compared in MB, as Qwen does.
        let size_mb = meta.len() as f64 / (1024.0 * 1024.0);

        if kind == FileType::Pdf
            && let Some(outcome) = self.pdf_size_gate(&file, meta.len(), size_mb, name, shown)
        {
            return Ok(outcome);
        }
        let canonical_image = kind == FileType::Image
            && matches!(
                file_type::mime_type(&p.file_path),
                Some("image/jpeg" | "image/png" | "image/webp")
            );
        if canonical_image && meta.len() > IMAGE_MAX_SOURCE_BYTES {
            return Ok(Outcome::too_large(
                "Image file exceeds the 100 MB source limit.".to_owned(),
                format!(
                    "Image file exceeds the 100 MB source limit: {}",
                    p.file_path
                ),
            ));
        }
        if size_mb > MAX_NON_TEXT_MB
            && !matches!(kind, FileType::Text | FileType::Pdf)
            && !canonical_image
        {
            return Ok(Outcome::too_large(
                "File size exceeds the 10MB limit.".to_owned(),
                format!(
                    "File size exceeds the 10MB limit: {} ({size_mb:.2}MB)",
                    p.file_path
                ),
            ));
        }
        let modality = match kind {
            FileType::Image => Some("image"),
            FileType::Audio => Some("audio"),
            FileType::Video => Some("video"),
            _ => None,
        };
        if let Some(modality) = modality {
            let kind_name = modality;
            return Ok(Outcome::notice(
                format!(
                    "[Unsupported {modality} file: \"{name}\". This model does not support {modality} input. The read_file tool cannot process this type of file either. To handle this file, try using skills if applicable, or any tools installed at system wide, or let the user know you cannot process this type of file.]"
                ),
                format!(
                    "Skipped {kind_name} file: {shown} (model doesn't support {modality} input)"
                ),
            ));
        }
        match kind {
            FileType::Binary => Ok(binary_notice(shown)),
            FileType::Svg if meta.len() > SVG_MAX_BYTES => Ok(Outcome::notice(
                format!("Cannot display content of SVG file larger than 1MB: {shown}"),
                format!("Skipped large SVG file (>1MB): {shown}"),
            )),
            FileType::Svg => {
                let bytes = read_rest(head, &mut file)?;
                Ok(match decode(&bytes) {
                    Ok(decoded) => Outcome::Read {
                        llm_content: decoded.text,
                        display: format!("Read SVG as text: {shown}"),
                        truncated: false,
                        cacheable: true,
                    },
                    Err(e) => decode_failure(shown, e.kind(), &e.to_string()),
                })
            }
            FileType::Notebook => {
                let bytes = read_rest(head, &mut file)?;
                Ok(match notebook::render(&String::from_utf8_lossy(&bytes)) {
                    Ok(r) => Outcome::Read {
                        llm_content: r.content,
                        display: format!("Read notebook: {shown}"),
                        truncated: r.is_truncated,
                        cacheable: false,
                    },
                    Err(msg) => Outcome::Failed(
                        Failure::new(
                            ToolErrorCode::ReadContentFailure,
                            format!("Error parsing notebook {}: {msg}", p.file_path),
                        )
                        .llm_content(format!("Error parsing notebook {shown}: {msg}"))
                        .display(format!("Error reading notebook: {shown}")),
                    ),
                })
            }
            FileType::Pdf => Ok(self.read_pdf(&file, shown, name)),
            _ => self.read_text(workspace, shown, head, file, meta),
        }
    }

    /// The text case.
    fn read_text(
        &self,
        workspace: &Workspace,
        shown: &str,
        head: Vec<u8>,
        mut file: File,
        meta: &Metadata,
    ) -> io::Result<Outcome> {
        let p = &self.params;
        let config = workspace.config();
        let budget = Budget {
            offset: p.offset().unwrap_or(0),
            lines: match (p.limit(), config.truncate_lines) {
                (Some(limit), _) => Some(limit),
                (None, 0) => None,
                (None, lines) => Some(lines),
            },
            chars: (config.truncate_threshold > 0).then_some(config.truncate_threshold),
        };
        let range = if meta.len() < STREAMING_MIN_SIZE {
            let bytes = read_rest(head, &mut file)?;
            match decode(&bytes) {
                Ok(decoded) => text::slice_decoded(&decoded.text, budget),
                Err(e) => return Ok(decode_failure(shown, e.kind(), &e.to_string())),
            }
        } else {
            match text::read_large_utf8(Cursor::new(head).chain(file), budget)? {
                Ok(range) => range,
                Err(e) => return Ok(Outcome::Failed(read_failure(shown, &e.0))),
            }
        };
        let view = text::show(&range, budget, shown);
        let llm_content = match &view.header {
            Some(header) => format!("{header}\n\n---\n\n{}", view.content),
            None => view.content,
        };
        Ok(Outcome::Read {
            llm_content,
            display: view.display,
            truncated: view.is_truncated,
            cacheable: true,
        })
    }

    /// The size and page-count checks a PDF passes before extraction.
    fn pdf_size_gate(
        &self,
        file: &File,
        size: u64,
        size_mb: f64,
        name: &str,
        rel: &str,
    ) -> Option<Outcome> {
        let p = &self.params;
        let shown = &p.file_path;
        if p.pages.is_none() && size_mb > PDF_FULL_TEXT_MAX_MB {
            return Some(Outcome::Failed(Failure::new(ToolErrorCode::FileTooLarge, format!("PDF exceeds extraction size limit: {shown} ({size_mb:.2}MB)")).llm_content(format!(
                    "PDF file is too large for full text extraction: {size_mb:.2}MB exceeds the 100MB limit. Use the 'pages' parameter to read a narrower range, or split the document into smaller files before retrying."
                )).display(format!("PDF file too large ({size_mb:.2}MB > 100MB)."))));
        }
        if p.pages.is_some() && size_mb > PDF_PAGED_TEXT_MAX_MB {
            return Some(Outcome::Failed(Failure::new(ToolErrorCode::FileTooLarge, format!("PDF exceeds page-range extraction size limit: {shown} ({size_mb:.2}MB)")).llm_content(format!(
                    "PDF file is too large for page-range text extraction: {size_mb:.2}MB exceeds the 512MB limit. Split the document into smaller files before retrying."
                )).display(format!("PDF file too large ({size_mb:.2}MB > 512MB)."))));
        }
        if p.pages.is_none() {
            let (required, effective, had_info) =
                pdf::requires_range(self.pdf.page_count(file), size);
            if required {
                if !self.pdf.text_available() {
                    return Some(Outcome::Failed(
                        Failure::new(
                            ToolErrorCode::ReadContentFailure,
                            pdf::UNAVAILABLE.to_owned(),
                        )
                        .llm_content(format!(
                            "[Cannot extract text from PDF: \"{name}\". {}]",
                            pdf::UNAVAILABLE
                        ))
                        .display(format!("Failed to read pdf: {rel}")),
                    ));
                }
                let guidance = pdf::large_pdf_guidance(name, effective, had_info);
                return Some(Outcome::Failed(
                    Failure::new(ToolErrorCode::FileTooLarge, guidance)
                        .display(format!("PDF requires page range: {rel}")),
                ));
            }
        }
        None
    }

    /// The PDF case for a model without PDF input: extracted text.
    fn read_pdf(&self, file: &File, shown: &str, name: &str) -> Outcome {
        let p = &self.params;
        let range = p.pages.as_deref().and_then(parse_page_range);
        match self.pdf.extract_text(file, range) {
            Ok(text) => {
                let tokens = pdf::estimate_tokens(&text);
                if tokens <= pdf::TEXT_RESULT_MAX_TOKENS {
                    let label = p
                        .pages
                        .as_deref()
                        .map(|pages| format!(" (pages {pages})"))
                        .unwrap_or_default();
                    return Outcome::notice(text, format!("Read pdf as text{label}: {shown}"));
                }
                let guidance = pdf::text_too_large_guidance(name, tokens, p.pages.as_deref());
                Outcome::Failed(
                    Failure::new(ToolErrorCode::FileTooLarge, guidance)
                        .display(format!("PDF text too large: {shown}")),
                )
            }
            Err(error) => {
                let llm_content = format!("[Cannot extract text from PDF: \"{name}\". {error}]");
                Outcome::Failed(
                    Failure::new(ToolErrorCode::ReadContentFailure, error)
                        .llm_content(llm_content)
                        .display(format!("Failed to read pdf: {shown}")),
                )
            }
        }
    }
}

/// The bytes already read followed by the rest of the file.
fn read_rest(mut head: Vec<u8>, file: &mut File) -> io::Result<Vec<u8>> {
    file.read_to_end(&mut head)?;
    Ok(head)
}

fn binary_notice(shown: &str) -> Outcome {
    Outcome::notice(
        format!("Cannot display content of binary file: {shown}"),
        format!("Skipped binary file: {shown}"),
    )
}

/// Bytes that are not text that writes back unchanged. Qwen shows them
/// decoded lossily; here a NUL means binary and anything else is refused
/// as unreadable, so no edit can be based on replacement characters.
fn decode_failure(shown: &str, kind: &TextErrorKind, message: &str) -> Outcome {
    if matches!(kind, TextErrorKind::Binary { .. }) {
        return binary_notice(shown);
    }
    Outcome::Failed(read_failure(
        shown,
        &format!("failed to decode file: {message}"),
    ))
}

impl Outcome {
    /// What the call returns.
    fn into_result(self) -> Result<ToolResult, Failure> {
        match self {
            Outcome::Read {
                llm_content,
                display,
                ..
            } => Ok(ToolResult::new(llm_content, Display::Text(display))),
            Outcome::Failed(failure) => Err(failure),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{Declared, Tool};

    #[test]
    fn declaration_parses_and_matches_qwens_schema() {
        let tool = Declared::<ReadFileTool>::default();
        assert_eq!(tool.name(), NAME);
        assert_eq!(
            tool.declaration().schema["required"],
            serde_json::json!(["file_path"])
        );
        // Qwen lets the model send `pages: null` for a notebook.
        assert_eq!(
            tool.declaration().schema["properties"]["pages"]["type"],
            serde_json::json!(["string", "null"])
        );
    }
}
