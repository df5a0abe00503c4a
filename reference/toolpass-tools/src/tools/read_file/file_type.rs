//! Which kind of file a path holds, as Qwen Code's `detectFileType` decides
//! (`packages/core/src/utils/fileUtils.ts`): by extension and MIME type
//! first, then by sniffing the first bytes (`isBinaryFile`,
//! `classifyImageContent`). The sniffing works on a prefix the caller has
//! already read from an open descriptor, so the file is opened once.

use toolpass_core::text::detect_bom;

use super::tables::{
    BINARY_EXTENSIONS, KNOWN_TEXT_APPLICATION_MIMES, KNOWN_TEXT_BASENAMES, KNOWN_TEXT_EXTENSIONS,
    MIME_TYPES, MISSING_MEDIA_TYPES,
};
use crate::tools::node::{basename, extname};

/// How many leading bytes the caller must supply: `classifyImageContent`
/// looks at 8 KiB, `isBinaryFile` at 4 KiB.
pub(super) const SNIFF_LEN: usize = 8192;

/// `isBinaryFile`'s sample size.
const BINARY_SAMPLE_LEN: usize = 4096;

/// Qwen's `IMAGE_MAX_SOURCE_BYTES`: larger images are not sniffed.
pub(super) const IMAGE_MAX_SOURCE_BYTES: u64 = 100 * 1024 * 1024;

/// Qwen's file types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileType {
    Text,
    Svg,
    Notebook,
    Image,
    Audio,
    Video,
    Pdf,
    Binary,
}

/// The MIME type the `mime` package (plus Qwen's additions) gives `path`,
/// if it is one that decides the file type.
pub(super) fn mime_type(path: &str) -> Option<&'static str> {
    // mime's getType: the text after the last dot of the last component;
    // a name without a dot, or whose only dot leads (".json"), has no type.
    let last = basename(path).to_lowercase();
    let ext = match last.rfind('.') {
        Some(i) if i > 0 => &last[i + 1..],
        _ => return missing_media_type(path),
    };
    MIME_TYPES
        .binary_search_by(|(e, _)| (*e).cmp(ext))
        .ok()
        .map(|i| MIME_TYPES[i].1)
        .or_else(|| missing_media_type(path))
}

fn missing_media_type(path: &str) -> Option<&'static str> {
    let ext = extname(path).to_lowercase();
    MISSING_MEDIA_TYPES
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|(_, m)| *m)
}

/// `detectFileType` for `path`, whose first bytes are `head` and whose size
/// is `size`.
pub(super) fn detect(path: &str, head: &[u8], size: u64) -> FileType {
    let ext = extname(path).to_lowercase();
    if matches!(ext.as_str(), ".ts" | ".mts" | ".cts" | ".tsx") {
        return FileType::Text;
    }
    if ext == ".svg" {
        return FileType::Svg;
    }
    if ext == ".ipynb" {
        return FileType::Notebook;
    }
    if let Some(mime) = mime_type(path) {
        if mime.starts_with("image/") {
            return classify_image(mime, head, size);
        }
        if mime.starts_with("audio/") {
            return FileType::Audio;
        }
        if mime.starts_with("video/") {
            return FileType::Video;
        }
        if mime == "application/pdf" {
            return FileType::Pdf;
        }
        if is_text_mime(mime) {
            return FileType::Text;
        }
    }
    if BINARY_EXTENSIONS.binary_search(&ext.as_str()).is_ok() {
        return FileType::Binary;
    }
    if KNOWN_TEXT_EXTENSIONS.binary_search(&ext.as_str()).is_ok()
        || KNOWN_TEXT_BASENAMES.binary_search(&basename(path)).is_ok()
    {
        return FileType::Text;
    }
    if is_binary(head) {
        FileType::Binary
    } else {
        FileType::Text
    }
}

fn is_text_mime(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+xml")
        || mime.ends_with("+json")
        || KNOWN_TEXT_APPLICATION_MIMES.binary_search(&mime).is_ok()
}

/// `isBinaryFile`: no BOM, and a NUL or more than 30% control characters in
/// the first 4 KiB.
pub(super) fn is_binary(head: &[u8]) -> bool {
    let sample = head.get(..BINARY_SAMPLE_LEN).unwrap_or(head);
    if sample.is_empty() || has_bom(sample) {
        return false;
    }
    if sample.contains(&0) {
        return true;
    }
    let control = sample
        .iter()
        .filter(|&&b| b < 9 || (b > 13 && b < 32))
        .count();
    control * 10 > sample.len() * 3
}

/// Qwen's `detectBOM`, which also knows the UTF-32 marks.
fn has_bom(bytes: &[u8]) -> bool {
    detect_bom(bytes).map_or(true, |bom| bom.is_some())
}

/// `classifyImageContent`: an image extension on bytes that are really
/// another format is binary, and on bytes that are text is text.
fn classify_image(mime: &str, head: &[u8], size: u64) -> FileType {
    const SNIFFABLE: [&str; 4] = ["image/gif", "image/jpeg", "image/png", "image/webp"];
    if !SNIFFABLE.contains(&mime) || size > IMAGE_MAX_SOURCE_BYTES || head.is_empty() {
        return FileType::Image;
    }
    let expected = match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        _ => "webp",
    };
    match magic(head) {
        Some(found) if found == expected || matches!(found, "jpg" | "png" | "webp") => {
            FileType::Image
        }
        Some(_) => FileType::Binary,
        None if head.len() < 3 || !(has_bom(head) || looks_like_text(head)) => FileType::Binary,
        None => FileType::Text,
    }
}

/// The format `sniffFileKind` recognizes from magic bytes.
fn magic(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"%PDF-") {
        Some("pdf")
    } else if b.starts_with(b"PK\x03\x04") {
        Some("zip")
    } else if b.starts_with(b"\x1f\x8b") {
        Some("gz")
    } else if b.len() >= 7 && b.starts_with(b"Rar!\x1a\x07") {
        Some("rar")
    } else if b.len() >= 8 && b.starts_with(b"\x89PNG") {
        Some("png")
    } else if b.starts_with(b"\xff\xd8\xff") {
        Some("jpg")
    } else if b.starts_with(b"GIF8") {
        Some("gif")
    } else if b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

/// `looksLikeText`: no NUL and at most two malformed UTF-8 sequences in the
/// first 8 KiB.
fn looks_like_text(head: &[u8]) -> bool {
    let window = head.get(..SNIFF_LEN).unwrap_or(head);
    if window.contains(&0) {
        return false;
    }
    let replacements = String::from_utf8_lossy(window)
        .chars()
        .filter(|&c| c == '\u{FFFD}')
        .count();
    replacements <= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_for_binary_search() {
        assert!(MIME_TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        for table in [
            BINARY_EXTENSIONS,
            KNOWN_TEXT_EXTENSIONS,
            KNOWN_TEXT_BASENAMES,
            KNOWN_TEXT_APPLICATION_MIMES,
        ] {
            assert!(table.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn extensions_decide_first() {
        let text = b"plain words\n";
        for (path, kind) in [
            ("/r/a.ts", FileType::Text),
            ("/r/a.svg", FileType::Svg),
            ("/r/a.ipynb", FileType::Notebook),
            ("/r/a.mp3", FileType::Audio),
            ("/r/a.mp4", FileType::Video),
            ("/r/a.mkv", FileType::Video),
            ("/r/a.pdf", FileType::Pdf),
            ("/r/a.md", FileType::Text),
            ("/r/a.json", FileType::Text),
            ("/r/a.exe", FileType::Binary),
            ("/r/a.rs", FileType::Text),
            ("/r/Makefile", FileType::Text),
            ("/r/a.bmp", FileType::Image),
            ("/r/.json", FileType::Text),
        ] {
            assert_eq!(detect(path, text, 12), kind, "{path}");
        }
    }

    #[test]
    fn unknown_extensions_are_sniffed() {
        assert_eq!(detect("/r/data", b"ab\0cd", 5), FileType::Binary);
        assert_eq!(detect("/r/data", b"\x01\x02\x03abc", 6), FileType::Binary);
        assert_eq!(detect("/r/data", b"hello\n", 6), FileType::Text);
        assert_eq!(detect("/r/data", b"\xff\xfea\0", 4), FileType::Text);
        assert_eq!(detect("/r/data", b"", 0), FileType::Text);
    }

    #[test]
    fn image_extensions_are_checked_against_the_bytes() {
        assert_eq!(
            detect("/r/a.png", b"\x89PNG\r\n\x1a\n....", 12),
            FileType::Image
        );
        assert_eq!(detect("/r/a.png", b"\xff\xd8\xff\xe0", 4), FileType::Image);
        assert_eq!(detect("/r/a.png", b"GIF89a....", 10), FileType::Binary);
        assert_eq!(detect("/r/a.png", b"%PDF-1.4", 8), FileType::Binary);
        // A Git LFS pointer under an image name is text.
        assert_eq!(
            detect(
                "/r/a.png",
                b"version https://git-lfs.github.com/spec/v1\n",
                44
            ),
            FileType::Text
        );
        assert_eq!(detect("/r/a.png", b"\xfd\xfc\xfb\xfa", 4), FileType::Binary);
        // A byte-order mark makes it text, as in Qwen.
        assert_eq!(detect("/r/a.png", b"\xff\xfe\xfd\xfc", 4), FileType::Text);
    }
}
