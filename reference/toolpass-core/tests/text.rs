//! Byte-level fidelity of `toolpass_core::text`: Qwen's own decode and write
//! tests translated, round trips through the edit pipeline, the error cases,
//! and the write-back invariant as properties.

use proptest::prelude::*;
use toolpass_core::text::{
    Bom, Decoded, LineEnding, TextEncoding, TextErrorKind, decode, decode_as, encode,
    encode_borrowed, normalize_to_lf,
};

/// Decodes `bytes`, checks what came out, and checks that writing it back
/// gives the same bytes.
fn check_round_trip(bytes: &[u8], text: &str, encoding: TextEncoding, bom: Option<Bom>) {
    let decoded = decode(bytes).unwrap_or_else(|err| panic!("decode {bytes:02X?}: {err}"));
    assert_eq!(
        decoded,
        Decoded {
            text: text.to_owned(),
            encoding,
            bom
        }
    );
    let written = encode(&decoded.text, decoded.encoding, decoded.bom).unwrap();
    assert_eq!(written, bytes, "write-back changed the bytes");
    // The borrowing write-back is the same bytes, whatever the encoding.
    let borrowed = encode_borrowed(&decoded.text, decoded.encoding, decoded.bom).unwrap();
    assert_eq!(
        &*borrowed, bytes,
        "the borrowing write-back changed the bytes"
    );
}

/// Decodes `bytes` and checks it fails with `kind`.
fn check_decode_error(bytes: &[u8], kind: TextErrorKind) {
    match decode(bytes) {
        Ok(decoded) => panic!("expected {kind:?}, decoded {decoded:?}"),
        Err(err) => assert_eq!(err.kind(), &kind, "{err}"),
    }
}

fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn utf16be(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_be_bytes).collect()
}

fn with_prefix(prefix: &[u8], body: &[u8]) -> Vec<u8> {
    [prefix, body].concat()
}

const HELLO: &str = "Hello, 世界! 🌍";

// GBK of "你好世界这是中文内容用于测试编码检测", from Qwen's fileUtils.test.ts.
const GBK_CHINESE: [u8; 36] = [
    0xc4, 0xe3, 0xba, 0xc3, 0xca, 0xc0, 0xbd, 0xe7, 0xd5, 0xe2, 0xca, 0xc7, 0xd6, 0xd0, 0xce, 0xc4,
    0xc4, 0xda, 0xc8, 0xdd, 0xd3, 0xc3, 0xd3, 0xda, 0xb2, 0xe2, 0xca, 0xd4, 0xb1, 0xe0, 0xc2, 0xeb,
    0xbc, 0xec, 0xb2, 0xe2,
];

// --- Qwen's decode tests (fileUtils.test.ts) ---------------------------------

// upstream: fileUtils.test.ts "should read UTF-8 BOM file correctly"
#[test]
fn reads_utf8_bom() {
    let bytes = with_prefix(&[0xEF, 0xBB, 0xBF], HELLO.as_bytes());
    check_round_trip(&bytes, HELLO, TextEncoding::UTF_8, Some(Bom::Utf8));
}

// upstream: fileUtils.test.ts "should read UTF-16 LE BOM file correctly"
#[test]
fn reads_utf16le_bom() {
    let bytes = with_prefix(&[0xFF, 0xFE], &utf16le(HELLO));
    check_round_trip(&bytes, HELLO, TextEncoding::UTF_16LE, Some(Bom::Utf16Le));
}

// upstream: fileUtils.test.ts "should read UTF-16 BE BOM file correctly"
#[test]
fn reads_utf16be_bom() {
    let bytes = with_prefix(&[0xFE, 0xFF], &utf16be(HELLO));
    check_round_trip(&bytes, HELLO, TextEncoding::UTF_16BE, Some(Bom::Utf16Be));
}

// upstream: fileUtils.test.ts "should read UTF-32 LE BOM file correctly" and
// "... UTF-32 BE ..." (Qwen decodes UTF-32; encoding_rs cannot, so it is
// refused rather than mis-decoded as UTF-16)
#[test]
fn utf32_boms_are_unsupported() {
    let le: Vec<u8> = HELLO
        .chars()
        .flat_map(|c| u32::from(c).to_le_bytes())
        .collect();
    let be: Vec<u8> = HELLO
        .chars()
        .flat_map(|c| u32::from(c).to_be_bytes())
        .collect();
    check_decode_error(
        &with_prefix(&[0xFF, 0xFE, 0x00, 0x00], &le),
        TextErrorKind::UnsupportedEncoding { name: "UTF-32LE" },
    );
    check_decode_error(
        &with_prefix(&[0x00, 0x00, 0xFE, 0xFF], &be),
        TextErrorKind::UnsupportedEncoding { name: "UTF-32BE" },
    );
}

// upstream: fileUtils.test.ts "should read file without BOM as UTF-8"
#[test]
fn reads_utf8_without_bom() {
    check_round_trip(
        "Hello, 世界!".as_bytes(),
        "Hello, 世界!",
        TextEncoding::UTF_8,
        None,
    );
}

// upstream: fileUtils.test.ts "should handle empty file"
#[test]
fn reads_empty_as_utf8() {
    check_round_trip(b"", "", TextEncoding::UTF_8, None);
}

// upstream: fileUtils.test.ts "should read GBK-encoded file with Chinese
// characters correctly" and readFileWithEncodingInfo "should return bom:
// false for GBK file (no BOM)". Qwen's chardet names it gb18030; chardetng
// names it GBK, which writes the same bytes back.
#[test]
fn reads_gbk_chinese() {
    check_round_trip(
        &GBK_CHINESE,
        "你好世界这是中文内容用于测试编码检测",
        TextEncoding::GBK,
        None,
    );
}

// upstream: fileUtils.test.ts "should read GBK-encoded file with mixed ASCII
// and Chinese correctly"
#[test]
fn reads_gbk_mixed_with_ascii() {
    let bytes = [
        0x2f, 0x2f, 0x20, 0xd5, 0xe2, 0xca, 0xc7, 0xd7, 0xa2, 0xca, 0xcd, 0xc4, 0xda, 0xc8, 0xdd,
        0xd3, 0xc3, 0xd3, 0xda, 0xb2, 0xe2, 0xca, 0xd4, 0x0a, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xc4,
        0xe3, 0xba, 0xc3, 0xca, 0xc0, 0xbd, 0xe7, 0xb2, 0xe2, 0xca, 0xd4, 0xd6, 0xd0, 0xce, 0xc4,
        0xb1, 0xe0, 0xc2, 0xeb, 0xbc, 0xec, 0xb2, 0xe2, 0x0a, 0xba, 0xaf, 0xca, 0xfd, 0xb7, 0xb5,
        0xbb, 0xd8, 0xd6, 0xb5, 0xd5, 0xfd, 0xc8, 0xb7,
    ];
    check_round_trip(
        &bytes,
        "// 这是注释内容用于测试\nhello你好世界测试中文编码检测\n函数返回值正确",
        TextEncoding::GBK,
        None,
    );
}

// upstream: fileUtils.test.ts readFileWithEncodingInfo "should return bom:
// true and encoding utf-16le for UTF-16LE BOM file"
#[test]
fn utf16le_reports_its_bom() {
    let bytes = with_prefix(&[0xFF, 0xFE], &utf16le("Hi"));
    check_round_trip(&bytes, "Hi", TextEncoding::UTF_16LE, Some(Bom::Utf16Le));
}

// upstream: fileUtils.test.ts isBinaryFile "should treat file with null bytes
// (no BOM) as binary" (the NUL rule is textUtils.ts isBinary's)
#[test]
fn nul_without_bom_is_binary() {
    check_decode_error(b"Hello\0world", TextErrorKind::Binary { offset: 5 });
}

// upstream: fileUtils.test.ts isBinaryFile "should still treat actual binary
// file as binary"
#[test]
fn png_is_binary() {
    let png = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52,
    ];
    check_decode_error(&png, TextErrorKind::Binary { offset: 8 });
}

// upstream: fileUtils.test.ts isBinaryFile "should not treat UTF-16 LE BOM
// file as binary" and "... UTF-8 BOM ..."
#[test]
fn a_bom_exempts_from_the_binary_check() {
    let bytes = with_prefix(&[0xFF, 0xFE], &utf16le("Hello, world!"));
    check_round_trip(
        &bytes,
        "Hello, world!",
        TextEncoding::UTF_16LE,
        Some(Bom::Utf16Le),
    );
    check_round_trip(
        b"\xEF\xBB\xBFa\0b",
        "a\0b",
        TextEncoding::UTF_8,
        Some(Bom::Utf8),
    );
}

#[test]
fn nul_beyond_the_sniffed_prefix_is_text() {
    let mut bytes = vec![b'a'; 600];
    bytes.push(0);
    let text = String::from_utf8(bytes.clone()).unwrap();
    check_round_trip(&bytes, &text, TextEncoding::UTF_8, None);
    check_decode_error(&bytes[89..], TextErrorKind::Binary { offset: 511 });
}

#[test]
fn utf16_without_bom_is_binary() {
    check_decode_error(&utf16le("Hi"), TextErrorKind::Binary { offset: 1 });
}

// --- Qwen's write tests (fileSystemService.test.ts) --------------------------

// upstream: fileSystemService.test.ts "encodeTextFileContent returns final
// bytes for UTF-8 and CRLF metadata"
#[test]
fn writes_crlf_metadata() {
    let text = LineEnding::Crlf.restore("a\nb\n");
    assert_eq!(
        encode(&text, TextEncoding::UTF_8, None).unwrap(),
        b"a\r\nb\r\n"
    );
}

// upstream: fileSystemService.test.ts "encodeTextFileContent preserves UTF-8
// BOM in returned bytes"
#[test]
fn writes_utf8_bom() {
    let bytes = encode("Hello", TextEncoding::UTF_8, Some(Bom::Utf8)).unwrap();
    assert_eq!(bytes, b"\xEF\xBB\xBFHello");
}

// upstream: fileSystemService.test.ts "should write file without BOM when bom
// option is false" and "should write file as UTF-8 when encoding is utf-8"
#[test]
fn writes_plain_utf8() {
    assert_eq!(
        encode("Hello, World!", TextEncoding::UTF_8, None).unwrap(),
        b"Hello, World!"
    );
}

// upstream: fileSystemService.test.ts "should not duplicate BOM when content
// already has BOM character"
#[test]
fn does_not_double_the_bom() {
    let bytes = encode("\u{FEFF}Hello", TextEncoding::UTF_8, Some(Bom::Utf8)).unwrap();
    assert_eq!(bytes, b"\xEF\xBB\xBFHello");
}

// upstream: fileSystemService.test.ts "should write file with non-UTF-8
// encoding using iconv-lite"
#[test]
fn writes_gbk() {
    let bytes = encode("你好世界", TextEncoding::GBK, None).unwrap();
    assert_eq!(bytes, [0xC4, 0xE3, 0xBA, 0xC3, 0xCA, 0xC0, 0xBD, 0xE7]);
}

// upstream: fileSystemService.test.ts "should preserve UTF-16LE BOM when
// writing back a UTF-16LE file"
#[test]
fn writes_utf16le_bom() {
    let bytes = encode("Hello", TextEncoding::UTF_16LE, Some(Bom::Utf16Le)).unwrap();
    assert_eq!(bytes, with_prefix(&[0xFF, 0xFE], &utf16le("Hello")));
}

// upstream: fileSystemService.test.ts "should not add BOM when writing
// UTF-16LE file without bom flag"
#[test]
fn writes_utf16le_without_bom() {
    assert_eq!(
        encode("Hello", TextEncoding::UTF_16LE, None).unwrap(),
        utf16le("Hello")
    );
}

// --- Round trips through the edit pipeline -----------------------------------

#[test]
fn gbk_crlf_round_trips() {
    let (bytes, _, _) = encoding_rs::GBK.encode("你好，世界\r\n");
    check_round_trip(&bytes, "你好，世界\r\n", TextEncoding::GBK, None);
}

#[test]
fn shift_jis_round_trips() {
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("日本語のテキストです。\r\n");
    check_round_trip(
        &bytes,
        "日本語のテキストです。\r\n",
        TextEncoding::SHIFT_JIS,
        None,
    );
}

#[test]
fn crlf_and_lone_cr_survive_an_edit() {
    // A CRLF file with a lone CR inside a line: Qwen's pipeline matches on
    // the LF view, then ensure_crlf puts CRLF back and leaves the lone CR.
    let bytes = b"\xEF\xBB\xBFone\r\ntwo\rstill two\r\nthree\r\n";
    let decoded = decode(bytes).unwrap();
    assert_eq!(decoded.line_ending(), LineEnding::Crlf);
    let lf = normalize_to_lf(&decoded.text);
    assert_eq!(lf, "one\ntwo\rstill two\nthree\n");
    let edited = lf.replace("three", "3");
    let text = decoded.line_ending().restore(&edited);
    let written = encode(&text, decoded.encoding, decoded.bom).unwrap();
    assert_eq!(written, b"\xEF\xBB\xBFone\r\ntwo\rstill two\r\n3\r\n");
}

#[test]
fn gbk_edit_changes_only_the_span() {
    let (bytes, _, _) =
        encoding_rs::GBK.encode("// 这是注释\r\nlet 名字 = \"旧值\";\r\n// 结束\r\n");
    let decoded = decode(&bytes).unwrap();
    assert_eq!(
        (decoded.encoding, decoded.line_ending()),
        (TextEncoding::GBK, LineEnding::Crlf)
    );
    let edited = normalize_to_lf(&decoded.text).replace("旧值", "新的值");
    let text = decoded.line_ending().restore(&edited);
    let written = encode(&text, decoded.encoding, decoded.bom).unwrap();
    let (expect, _, _) =
        encoding_rs::GBK.encode("// 这是注释\r\nlet 名字 = \"新的值\";\r\n// 结束\r\n");
    assert_eq!(written, &*expect);
}

#[test]
fn gb18030_only_bytes_fall_back_from_gbk() {
    // The detector says GBK; the emoji's four-byte sequence and the euro's
    // A2 E3 write back only as GB18030.
    let text = "价格：１００€，从前有座山，山里有座庙，庙里有个老和尚😀";
    let (bytes, _, _) = encoding_rs::GB18030.encode(text);
    check_round_trip(&bytes, text, TextEncoding::GB18030, None);
}

#[test]
fn decode_as_uses_the_given_encoding() {
    let (bytes, _, _) = encoding_rs::GBK.encode("你好");
    let decoded = decode_as(&bytes, TextEncoding::GBK).unwrap();
    assert_eq!((decoded.text.as_str(), decoded.bom), ("你好", None));
    let decoded = decode_as(b"\xFE\xFF\x00H", TextEncoding::UTF_16BE).unwrap();
    assert_eq!(
        (decoded.text.as_str(), decoded.bom),
        ("H", Some(Bom::Utf16Be))
    );
    // Another encoding's mark is content, not a mark.
    let decoded = decode_as(b"\xEF\xBB\xBFx", TextEncoding::WINDOWS_1252).unwrap();
    assert_eq!((decoded.text.as_str(), decoded.bom), ("ï»¿x", None));
}

// --- Error cases -------------------------------------------------------------

#[test]
fn damaged_utf8_is_invalid_utf8() {
    // Japanese UTF-8 cut inside the last character: not a legacy encoding.
    let text = "日本語のテキストです";
    let bytes = &text.as_bytes()[..text.len() - 1];
    check_decode_error(
        bytes,
        TextErrorKind::InvalidUtf8 {
            offset: text.len() - 3,
        },
    );
    // A stray byte in the middle of otherwise valid UTF-8.
    let bytes = [
        "中文注释：".as_bytes(),
        b"\xFF",
        " and more 中文".as_bytes(),
    ]
    .concat();
    check_decode_error(&bytes, TextErrorKind::InvalidUtf8 { offset: 15 });
}

#[test]
fn bytes_no_legacy_encoding_explains_are_unknown() {
    // 0x81 is unassigned in windows-1252 (decoded as the C1 control U+0081)
    // and an incomplete lead byte in every CJK encoding.
    check_decode_error(b"abc\x81", TextErrorKind::UnknownEncoding { offset: 3 });
}

#[test]
fn malformed_in_the_declared_encoding() {
    check_decode_error(
        b"\xEF\xBB\xBFa\xFF",
        TextErrorKind::Malformed {
            encoding: TextEncoding::UTF_8,
            offset: 4,
        },
    );
    // An odd trailing byte, and a lone surrogate, in UTF-16LE.
    check_decode_error(
        b"\xFF\xFEA\x00B",
        TextErrorKind::Malformed {
            encoding: TextEncoding::UTF_16LE,
            offset: 4,
        },
    );
    check_decode_error(
        b"\xFF\xFEA\x00\x00\xD8A\x00",
        TextErrorKind::Malformed {
            encoding: TextEncoding::UTF_16LE,
            offset: 4,
        },
    );
}

#[test]
fn shift_jis_duplicate_codes_are_not_round_trippable() {
    // ED 40 (NEC-selected IBM extension) decodes to U+7E8A, which the
    // encoder writes as FA 5C: writing back would change the file.
    let (mut bytes, _, _) = encoding_rs::SHIFT_JIS.encode("吾輩は猫である。名前はまだ無い。");
    let at = bytes.len();
    bytes.to_mut().extend_from_slice(&[0xED, 0x40]);
    let kind = TextErrorKind::NotRoundTrippable {
        encoding: TextEncoding::SHIFT_JIS,
        offset: at,
    };
    check_decode_error(&bytes, kind.clone());
    assert_eq!(
        decode_as(&bytes, TextEncoding::SHIFT_JIS)
            .unwrap_err()
            .kind(),
        &kind
    );
}

#[test]
fn a_doubled_utf8_bom_is_not_round_trippable() {
    // Qwen's writer drops a leading U+FEFF under a BOM, so the second mark
    // would be lost on write-back.
    check_decode_error(
        b"\xEF\xBB\xBF\xEF\xBB\xBFHello",
        TextErrorKind::NotRoundTrippable {
            encoding: TextEncoding::UTF_8,
            offset: 3,
        },
    );
}

#[test]
fn unmappable_char_names_char_and_offset() {
    let err = encode("ab你😀c", TextEncoding::GBK, None).unwrap_err();
    assert_eq!(
        err.kind(),
        &TextErrorKind::Unmappable {
            ch: '😀',
            offset: 5,
            encoding: TextEncoding::GBK,
        }
    );
    assert_eq!(
        err.to_string(),
        "character '😀' (U+1F600) at byte offset 5 has no GBK representation"
    );
    // The offset is into the text as given, a dropped U+FEFF included.
    let err = encode("\u{FEFF}é", TextEncoding::SHIFT_JIS, Some(Bom::Utf8)).unwrap_err();
    assert!(
        matches!(err.kind(), TextErrorKind::BomMismatch { .. }),
        "{err}"
    );
    let err = encode("a\u{FEFF}é", TextEncoding::SHIFT_JIS, None).unwrap_err();
    assert!(matches!(
        err.kind(),
        TextErrorKind::Unmappable {
            ch: '\u{FEFF}',
            offset: 1,
            ..
        }
    ));
}

#[test]
fn emoji_into_gb18030_is_fine() {
    let bytes = encode("😀", TextEncoding::GB18030, None).unwrap();
    assert_eq!(bytes, [0x94, 0x39, 0xFC, 0x36]);
}

#[test]
fn bom_must_match_the_encoding() {
    let err = encode("x", TextEncoding::GBK, Some(Bom::Utf8)).unwrap_err();
    assert_eq!(
        err.kind(),
        &TextErrorKind::BomMismatch {
            bom: TextEncoding::UTF_8,
            encoding: TextEncoding::GBK,
        }
    );
}

#[test]
fn leading_feff_without_bom_reads_back_as_a_bom() {
    // The one ambiguity of the byte format itself: U+FEFF first in BOM-less
    // UTF-8 is the same bytes as a BOM.
    let bytes = encode("\u{FEFF}x", TextEncoding::UTF_8, None).unwrap();
    let decoded = decode(&bytes).unwrap();
    assert_eq!((decoded.text.as_str(), decoded.bom), ("x", Some(Bom::Utf8)));
}

// --- Properties ----------------------------------------------------------------

/// Strings `decode` can tell apart from a BOM and from binary: no NUL (a
/// binary marker without a BOM) and no leading U+FEFF (see
/// `leading_feff_without_bom_reads_back_as_a_bom`).
fn text_strategy() -> impl Strategy<Value = String> {
    any::<String>().prop_map(|s| {
        s.replace('\0', "")
            .trim_start_matches('\u{FEFF}')
            .to_owned()
    })
}

fn gbk_text(max: usize) -> impl Strategy<Value = String> {
    let chars: Vec<char> =
        "你好世界中文测试编码注释函数返回值正确这是一个，。！？abcxyz 019\n\r;{}()\""
            .chars()
            .collect();
    proptest::collection::vec(proptest::sample::select(chars), 0..max)
        .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #[test]
    fn utf8_round_trips(s in text_strategy(), bom in prop_oneof![Just(None), Just(Some(Bom::Utf8))]) {
        let bytes = encode(&s, TextEncoding::UTF_8, bom).unwrap();
        let decoded = decode(&bytes).unwrap();
        prop_assert_eq!(decoded, Decoded { text: s, encoding: TextEncoding::UTF_8, bom });
    }

    #[test]
    fn utf16_round_trips(s in any::<String>(), big in any::<bool>()) {
        let s = s.trim_start_matches('\u{FEFF}').to_owned();
        let (encoding, bom) = if big {
            (TextEncoding::UTF_16BE, Bom::Utf16Be)
        } else {
            (TextEncoding::UTF_16LE, Bom::Utf16Le)
        };
        let bytes = encode(&s, encoding, Some(bom)).unwrap();
        let decoded = decode(&bytes).unwrap();
        prop_assert_eq!(decoded, Decoded { text: s, encoding, bom: Some(bom) });
    }

    #[test]
    fn gbk_edit_keeps_bytes_around_the_span(
        before in gbk_text(40),
        old in gbk_text(8),
        new in gbk_text(8),
        after in gbk_text(40),
    ) {
        let original = encode(&format!("{before}{old}{after}"), TextEncoding::GBK, None).unwrap();
        let edited = encode(&format!("{before}{new}{after}"), TextEncoding::GBK, None).unwrap();
        let prefix = encode(&before, TextEncoding::GBK, None).unwrap();
        let suffix = encode(&after, TextEncoding::GBK, None).unwrap();
        prop_assert!(original.starts_with(&prefix) && edited.starts_with(&prefix));
        prop_assert!(original.ends_with(&suffix) && edited.ends_with(&suffix));
        let decoded = decode_as(&original, TextEncoding::GBK).unwrap();
        prop_assert_eq!(decoded.text, format!("{before}{old}{after}"));
    }

    #[test]
    fn whatever_decodes_writes_back_unchanged(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(decoded) = decode(&bytes) {
            prop_assert_eq!(encode(&decoded.text, decoded.encoding, decoded.bom).unwrap(), bytes);
        }
    }

    #[test]
    fn legacy_files_decode_back_exactly(
        text in "[a-z \n。、你好世界中文日本語のテキストです한국어Привет€¥]{1,40}",
        label in proptest::sample::select(vec!["gbk", "gb18030", "shift_jis", "euc-jp", "euc-kr",
            "big5", "windows-1251", "windows-1252"]),
        damage in proptest::option::of((any::<prop::sample::Index>(), any::<u8>())),
    ) {
        let encoding = TextEncoding::for_label(label).unwrap();
        let Ok(mut bytes) = encode(&text, encoding, None) else {
            return Ok(());
        };
        if let Some((at, byte)) = damage {
            let at = at.index(bytes.len());
            bytes[at] = byte;
        }
        if let Ok(decoded) = decode(&bytes) {
            prop_assert_eq!(encode(&decoded.text, decoded.encoding, decoded.bom).unwrap(), bytes);
        }
    }

    #[test]
    fn high_bytes_decode_or_fail_cleanly(
        bytes in proptest::collection::vec(prop_oneof![0x20u8..0x7F, 0x80u8..=0xFF], 0..256),
    ) {
        if let Ok(decoded) = decode(&bytes) {
            prop_assert_eq!(encode(&decoded.text, decoded.encoding, decoded.bom).unwrap(), bytes);
        }
    }

    #[test]
    fn encoded_text_reads_back_the_same(
        s in any::<String>(),
        label in proptest::sample::select(vec!["utf-8", "gbk", "gb18030", "shift_jis", "big5",
            "euc-kr", "euc-jp", "iso-2022-jp", "windows-1251", "koi8-u", "x-user-defined"]),
    ) {
        let encoding = TextEncoding::for_label(label).unwrap();
        if let Ok(bytes) = encode(&s, encoding, None) {
            prop_assert_eq!(decode_as(&bytes, encoding).map(|d| d.text).ok(), Some(s));
        }
    }
}
