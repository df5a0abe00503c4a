//! `read_file` end to end on a real sandbox. Expected texts were taken from
//! Qwen Code 0.24.4 run on the same files (its `executeToolCall`), except
//! where a comment names a deliberate difference.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};
use toolpass_tools::faults::FaultPoint;
use toolpass_tools::read_cache::CacheState;
use toolpass_tools::result::ToolResult;
use toolpass_tools::session::SessionConfig;
use toolpass_tools::tool::Declared;
use toolpass_tools::tools::read_file::ReadFileTool;

use common::{Sandbox, ok};
use toolpass_tools::error_code::ToolErrorCode;

/// Reads `name` with the `read_file` tool, no range.
fn read(sb: &Sandbox, name: &str) -> ToolResult {
    sb.call("read_file", json!({"file_path": sb.arg(name)}))
}

/// (full, cacheable) as recorded for `name`, if any.
fn recorded(sb: &Sandbox, name: &str) -> Option<(bool, bool)> {
    let meta = fs::metadata(sb.path(name)).unwrap();
    match sb.session.read_cache().check(&meta) {
        CacheState::Fresh(e) => Some((e.last_read_was_full, e.last_read_cacheable)),
        _ => None,
    }
}

fn code(result: &ToolResult) -> ToolErrorCode {
    result.error.as_ref().expect("an error").code
}

fn message(result: &ToolResult) -> &str {
    &result.error.as_ref().expect("an error").message
}

#[test]
fn crlf_is_shown_as_lf_and_trailing_white_space_is_trimmed() {
    let sb = Sandbox::new();
    sb.write("crlf.txt", "one  \r\ntwo\t\r\nthree\r\n");
    assert_eq!(ok(&read(&sb, "crlf.txt")), "one\ntwo\nthree\n");
    assert_eq!(recorded(&sb, "crlf.txt"), Some((true, true)));
}

#[test]
fn bom_utf16_and_gbk_files_are_decoded() {
    let sb = Sandbox::new();
    sb.write("bom.txt", "\u{FEFF}hello\nworld\n");
    assert_eq!(ok(&read(&sb, "bom.txt")), "hello\nworld\n");
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(
        "héllo\r\nwörld\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    sb.write("u16.txt", utf16);
    assert_eq!(ok(&read(&sb, "u16.txt")), "héllo\nwörld\n");
    // Beyond Qwen: its chardet reads these GBK bytes as ISO-8859-7 mojibake
    // ("ΔγΊΓ£¬Κΐ½η"); chardetng decodes them.
    sb.write(
        "gbk.txt",
        b"\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7\n\xb5\xda\xb6\xfe\xd0\xd0\n",
    );
    assert_eq!(ok(&read(&sb, "gbk.txt")), "你好，世界\n第二行\n");
    assert_eq!(recorded(&sb, "gbk.txt"), Some((true, true)));
}

#[test]
fn the_line_limit_truncates_with_qwens_header() {
    let sb = Sandbox::new();
    let text: String = (1..=1500).map(|i| format!("line {i}\n")).collect();
    sb.write("many.txt", &text);
    let result = read(&sb, "many.txt");
    let content = ok(&result);
    assert!(content.starts_with("Showing lines 1-1000 of 1501 total lines.\n\n---\n\nline 1\n"));
    assert!(content.ends_with("\nline 1000"));
    assert_eq!(content.len(), 8940);
    // Truncated: a partial read, still text.
    assert_eq!(recorded(&sb, "many.txt"), Some((false, true)));

    let tail = sb.call(
        "read_file",
        json!({"file_path": sb.arg("many.txt"), "offset": 1495, "limit": 10}),
    );
    assert_eq!(
        ok(&tail),
        "Showing lines 1496-1501 of 1501 total lines.\n\n---\n\nline 1496\nline 1497\nline 1498\nline 1499\nline 1500\n"
    );
    let past = sb.call(
        "read_file",
        json!({"file_path": sb.arg("many.txt"), "offset": 2000, "limit": 10}),
    );
    assert_eq!(
        ok(&past),
        "Showing lines 2001-2001 of 1501 total lines.\n\n---\n\n"
    );
}

#[test]
fn a_partial_read_is_recorded_partial_and_cacheable() {
    let sb = Sandbox::new();
    sb.write("a.txt", "1\n2\n3\n");
    let result = sb.call(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "offset": 1, "limit": 1}),
    );
    insta::assert_snapshot!(ok(&result), @r"
    Showing lines 2-2 of 4 total lines.

    ---

    2
    ");
    assert_eq!(recorded(&sb, "a.txt"), Some((false, true)));
    // A range that happens to cover everything is still a ranged request.
    let all = sb.call(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "offset": 0, "limit": 10}),
    );
    assert_eq!(ok(&all), "1\n2\n3\n");
    assert_eq!(recorded(&sb, "a.txt"), Some((false, true)));
}

#[test]
fn a_long_line_is_cut_at_the_character_budget() {
    let sb = Sandbox::new();
    sb.write(
        "long.txt",
        format!("short\n{}\nafter\n", "x".repeat(30_000)),
    );
    let result = read(&sb, "long.txt");
    let content = ok(&result);
    assert_eq!(content.len(), 25_057);
    assert!(content.starts_with("Showing lines 1-2 of 4 total lines.\n\n---\n\nshort\nxxx"));
    assert!(content.ends_with("x... [truncated]"));
    assert_eq!(recorded(&sb, "long.txt"), Some((false, true)));
}

#[test]
fn an_unchanged_file_read_in_full_gets_the_placeholder() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x\n");
    ok(&read(&sb, "a.txt"));
    let again = read(&sb, "a.txt");
    insta::assert_snapshot!(ok(&again), @"[File a.txt unchanged since last read in this session — the full content was provided earlier in this conversation. If you cannot retrieve that prior content (e.g. after context compaction) or you suspect the file was modified outside the read/edit tools (shell command, MCP tool, another process), re-read with explicit offset/limit to fetch current content.]");
    // A ranged read never gets it.
    let ranged = sb.call(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "offset": 0}),
    );
    assert_eq!(ok(&ranged), "x\n");
    // After a change the content comes back.
    sb.write("a.txt", "changed\n");
    assert_eq!(ok(&read(&sb, "a.txt")), "changed\n");
}

#[test]
fn a_partial_read_does_not_earn_the_placeholder() {
    let sb = Sandbox::new();
    sb.write("a.txt", "1\n2\n");
    ok(&sb.call(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "limit": 1}),
    ));
    assert_eq!(ok(&read(&sb, "a.txt")), "1\n2\n");
}

#[test]
fn binary_files_are_described_and_recorded_as_not_cacheable() {
    let sb = Sandbox::new();
    sb.write("bin.dat", b"\x00\x01\x02binary");
    assert_eq!(
        ok(&read(&sb, "bin.dat")),
        "Cannot display content of binary file: bin.dat"
    );
    assert_eq!(recorded(&sb, "bin.dat"), Some((true, false)));
}

#[test]
fn media_files_get_qwens_text_for_a_model_without_that_input() {
    let sb = Sandbox::new();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend([0u8; 20]);
    sb.write("img.png", png);
    insta::assert_snapshot!(ok(&read(&sb, "img.png")), @r#"[Unsupported image file: "img.png". This model does not support image input. The read_file tool cannot process this type of file either. To handle this file, try using skills if applicable, or any tools installed at system wide, or let the user know you cannot process this type of file.]"#);
    assert_eq!(recorded(&sb, "img.png"), Some((true, false)));
    sb.write("song.mp3", "ID3fake");
    assert!(ok(&read(&sb, "song.mp3")).starts_with("[Unsupported audio file: \"song.mp3\"."));
}

#[test]
fn svg_is_text_and_notebooks_are_rendered() {
    let sb = Sandbox::new();
    sb.write("a.svg", "<svg>\n  <g/>  \n</svg>\n");
    assert_eq!(ok(&read(&sb, "a.svg")), "<svg>\n  <g/>  \n</svg>\n");
    assert_eq!(recorded(&sb, "a.svg"), Some((true, true)));
    let nb = json!({"metadata":{"language_info":{"name":"python"}},"nbformat":4,"nbformat_minor":5,"cells":[
        {"cell_type":"code","id":"c1","execution_count":1,"source":["x = 1\n","x"],
         "outputs":[{"output_type":"execute_result","data":{"text/plain":["1"]}}]},
        {"cell_type":"markdown","source":"# hi"}]});
    sb.write("nb.ipynb", nb.to_string());
    insta::assert_snapshot!(ok(&read(&sb, "nb.ipynb")), @r"
    Jupyter Notebook (python, 2 cells)

    --- Code Cell c1 [1] ---
    ```python
    x = 1
    x
    ```
    Output:
    1

    --- Markdown Cell cell-1 ---
    # hi
    ");
    assert_eq!(recorded(&sb, "nb.ipynb"), Some((true, false)));
    let ranged = sb.build_error(
        "read_file",
        json!({"file_path": sb.arg("nb.ipynb"), "offset": 1}),
    );
    assert_eq!(ranged.code, ToolErrorCode::InvalidToolParams);
    assert!(ranged.message.contains(&format!(
        "Retry with: {{\"file_path\":\"{}\",\"offset\":null,\"limit\":null,\"pages\":null}}",
        sb.arg("nb.ipynb")
    )));
}

#[test]
fn pdfs_without_pdftotext_say_how_to_get_it() {
    let sb = Sandbox::new();
    sb.write("doc.pdf", "%PDF-1.4 fake");
    let tool = Declared::new(ReadFileTool::with_pdf_programs(
        "/nonexistent/pdftotext",
        "/nonexistent/pdfinfo",
    ));
    let result = sb.call_tool(&tool, json!({"file_path": sb.arg("doc.pdf")}));
    assert_eq!(code(&result), ToolErrorCode::ReadContentFailure);
    assert_eq!(
        message(&result),
        "pdftotext is not installed. Install poppler-utils to enable PDF text extraction (e.g. `apt-get install poppler-utils` or `brew install poppler`)."
    );
}

#[test]
fn pdf_text_comes_from_pdftotext() {
    let sb = Sandbox::new();
    sb.write("doc.pdf", "%PDF-1.4 fake");
    // A stand-in pdftotext that prints the arguments it got.
    let bin = sb.path("bin");
    fs::create_dir(&bin).unwrap();
    let script = bin.join("pdftotext");
    fs::write(&script, "#!/bin/sh\necho \"text of $*\"\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let tool = Declared::new(ReadFileTool::with_pdf_programs(
        script.to_str().unwrap(),
        "/nonexistent/pdfinfo",
    ));
    let result = sb.call_tool(
        &tool,
        json!({"file_path": sb.arg("doc.pdf"), "pages": "2-3"}),
    );
    assert_eq!(
        ok(&result),
        "text of -layout -f 2 -l 3 -- fd://0 -\n".to_owned()
    );
    assert_eq!(recorded(&sb, "doc.pdf"), Some((false, false)));
}

#[test]
fn missing_files_and_directories_have_qwens_codes() {
    let sb = Sandbox::new();
    let missing = read(&sb, "nope.txt");
    assert_eq!(code(&missing), ToolErrorCode::FileNotFound);
    assert_eq!(
        message(&missing),
        format!("File not found: {}", sb.arg("nope.txt"))
    );
    assert_eq!(
        missing.llm_content,
        "Could not read file because no file was found at the specified path."
    );
    fs::create_dir(sb.path("sub")).unwrap();
    let dir = read(&sb, "sub");
    assert_eq!(code(&dir), ToolErrorCode::TargetIsDirectory);
    assert_eq!(
        message(&dir),
        format!("Path is a directory, not a file: {}", sb.arg("sub"))
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let sb = Sandbox::new();
    let fifo = sb.path("fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    // No writer ever opens it: a blocking open would hang this test.
    let result = read(&sb, "fifo");
    assert_eq!(code(&result), ToolErrorCode::ReadContentFailure);
    assert_eq!(
        message(&result),
        format!("Not a regular file: {}", sb.arg("fifo"))
    );
    assert_eq!(
        result.llm_content,
        "Cannot read file: fifo is not a regular file (e.g. device, socket, or pipe)."
    );
    let device = sb.call("read_file", json!({"file_path": "/dev/null"}));
    assert_eq!(code(&device), ToolErrorCode::PathNotInWorkspace);
}

#[test]
fn paths_outside_the_root_are_refused() {
    let sb = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), "s").unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.path("link")).unwrap();
    for path in [
        outside.path().join("secret").to_str().unwrap().to_owned(),
        sb.arg("link/secret"),
        format!("{}/../x", sb.root().display()),
    ] {
        let result = sb.call("read_file", json!({"file_path": path}));
        assert_eq!(code(&result), ToolErrorCode::PathNotInWorkspace, "{path}");
    }
}

#[test]
fn invalid_parameters_use_qwens_messages() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x");
    let cases = [
        (
            json!({"file_path": "  "}),
            "The 'file_path' parameter must be non-empty.",
        ),
        (
            json!({"file_path": "a.txt"}),
            "File path must be absolute, but was relative: a.txt. You must provide an absolute path.",
        ),
        (
            json!({"file_path": sb.arg("a.txt"), "offset": -1}),
            "Offset must be a non-negative integer",
        ),
        (
            json!({"file_path": sb.arg("a.txt"), "limit": 0}),
            "Limit must be a positive integer",
        ),
        (
            json!({"file_path": sb.arg("a.txt"), "pages": "3-"}),
            "Open-ended page ranges (e.g. '3-') are not supported; specify an explicit end page within the 20-page limit (e.g. '3-22').",
        ),
        (
            json!({"file_path": sb.arg("a.txt"), "pages": "1-30"}),
            "Pages range exceeds maximum of 20 pages per request.",
        ),
        (
            json!({"file_path": sb.arg("a.txt"), "pages": "x"}),
            "Invalid pages parameter: 'x'. Use formats like '5' or '1-10'.",
        ),
    ];
    for (args, expected) in cases {
        let error = sb.build_error("read_file", args);
        assert_eq!(error.code, ToolErrorCode::InvalidToolParams);
        assert_eq!(error.message, expected);
    }
    // Nulls are "omitted".
    let nulls = sb.call(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "offset": null, "limit": null, "pages": null}),
    );
    assert_eq!(ok(&nulls), "x");
}

#[test]
fn qwenignored_files_are_refused() {
    let sb = Sandbox::new();
    sb.write(".qwenignore", "secret.txt\n");
    sb.write("secret.txt", "s");
    let error = sb.build_error("read_file", json!({"file_path": sb.arg("secret.txt")}));
    assert_eq!(error.code, ToolErrorCode::InvalidToolParams);
    assert_eq!(
        error.message,
        format!(
            "File path '{}' is ignored by .qwenignore pattern(s).",
            sb.arg("secret.txt")
        )
    );
}

#[test]
fn the_stat_fault_fails_the_read() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x");
    sb.session.faults().arm(FaultPoint::FsStat, 1);
    let result = read(&sb, "a.txt");
    assert_eq!(code(&result), ToolErrorCode::ReadContentFailure);
    assert_eq!(
        message(&result),
        format!(
            "Error reading file a.txt: EACCES: permission denied, stat '{}'",
            sb.arg("a.txt")
        )
    );
    assert_eq!(recorded(&sb, "a.txt"), None);
}

#[test]
fn undecodable_text_is_refused_not_shown_lossily() {
    let sb = Sandbox::new();
    // Mostly UTF-8 with one broken byte: Qwen shows it with U+FFFD.
    let mut bytes = "héllo wörld ünïcödé \u{2014} ".as_bytes().to_vec();
    bytes.extend(b"\xff end");
    sb.write("broken.txt", bytes);
    let result = read(&sb, "broken.txt");
    assert_eq!(code(&result), ToolErrorCode::ReadContentFailure);
    assert!(
        message(&result)
            .starts_with("Error reading file broken.txt: failed to decode file: invalid utf-8")
    );
    assert_eq!(recorded(&sb, "broken.txt"), None);
    // A NUL under a text name is binary.
    sb.write("nul.txt", b"abc\x00def");
    assert_eq!(
        ok(&read(&sb, "nul.txt")),
        "Cannot display content of binary file: nul.txt"
    );
}

#[test]
fn large_files_are_streamed_and_counted_as_a_lower_bound() {
    let sb = Sandbox::new();
    let line = format!("{}\n", "y".repeat(99));
    sb.write("big.txt", line.repeat(110_000));
    let result = sb.call(
        "read_file",
        json!({"file_path": sb.arg("big.txt"), "offset": 5, "limit": 2}),
    );
    let y = "y".repeat(99);
    assert_eq!(
        ok(&result),
        format!("Showing lines 6-7 of at least 8 total lines.\n\n---\n\n{y}\n{y}")
    );
    assert_eq!(recorded(&sb, "big.txt"), Some((false, true)));
}

#[test]
fn a_zero_threshold_means_no_character_budget() {
    let sb = Sandbox::with_config(SessionConfig {
        truncate_threshold: 0,
        truncate_lines: 0,
        ..SessionConfig::default()
    });
    let text = format!("{}\n", "z".repeat(40_000)).repeat(3);
    sb.write("a.txt", &text);
    assert_eq!(ok(&read(&sb, "a.txt")), text);
}

#[test]
fn descriptions_are_qwens() {
    let sb = Sandbox::new();
    let describe = |args: Value| sb.build("read_file", &args).unwrap().description();
    let path = sb.arg("src/a.rs");
    assert_eq!(describe(json!({"file_path": path})), "src/a.rs");
    assert_eq!(
        describe(json!({"file_path": path, "offset": 9, "limit": 5})),
        "src/a.rs (lines 10-14)"
    );
    assert_eq!(
        describe(json!({"file_path": path, "offset": 9})),
        "src/a.rs (from line 10)"
    );
    assert_eq!(
        describe(json!({"file_path": path, "limit": 5})),
        "src/a.rs (first 5 lines)"
    );
    let invocation = sb
        .build("write_file", &json!({"file_path": path, "content": ""}))
        .unwrap();
    assert_eq!(invocation.description(), "Writing to src/a.rs");
}

#[test]
fn large_non_text_files_are_too_large() {
    let sb = Sandbox::new();
    // Sparse: 11 MiB that take no space.
    let file = fs::File::create(sb.path("blob.bin")).unwrap();
    file.set_len(11 * 1024 * 1024).unwrap();
    let result = read(&sb, "blob.bin");
    assert_eq!(code(&result), ToolErrorCode::FileTooLarge);
    assert_eq!(result.llm_content, "File size exceeds the 10MB limit.");
    assert_eq!(
        message(&result),
        format!(
            "File size exceeds the 10MB limit: {} (11.00MB)",
            sb.arg("blob.bin")
        )
    );
    assert_eq!(recorded(&sb, "blob.bin"), None);
}

#[test]
fn a_long_pdf_needs_a_page_range() {
    let sb = Sandbox::new();
    sb.write("doc.pdf", "%PDF-1.4 fake");
    let bin = sb.path("bin");
    fs::create_dir(&bin).unwrap();
    let script = |name: &str, body: &str| {
        let path = bin.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let pdftotext = script("pdftotext", "echo text");
    let pdfinfo = script("pdfinfo", "echo 'Title: x'; echo 'Pages:          50'");
    let tool = Declared::new(ReadFileTool::with_pdf_programs(&pdftotext, &pdfinfo));
    let result = sb.call_tool(&tool, json!({"file_path": sb.arg("doc.pdf")}));
    assert_eq!(code(&result), ToolErrorCode::FileTooLarge);
    insta::assert_snapshot!(result.llm_content, @r#"PDF "doc.pdf" has 50 pages, which is too many to read at once. Use the 'pages' parameter to read a specific page range such as '1-5'. Maximum 20 pages per request."#);
    let ranged = sb.call_tool(
        &tool,
        json!({"file_path": sb.arg("doc.pdf"), "pages": "1-2"}),
    );
    assert_eq!(ok(&ranged), "text\n");
}
