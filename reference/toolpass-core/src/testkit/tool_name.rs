//! Models of Qwen's two tool-name rules over UTF-16 units, as JavaScript
//! runs them: `replace` one unit at a time, `slice` and `length` in units,
//! the hash a `Math.imul` loop and `toString(36)`.

/// `generateLegacyMcpToolName`, transcribed.
#[must_use]
pub fn model_middle_cut_name(name: &str) -> String {
    let units = sanitize(name, b"_.-");
    let legacy = if units.len() > 63 {
        let mut cut = units[..28].to_vec();
        cut.extend("___".encode_utf16());
        cut.extend_from_slice(&units[units.len() - 32..]);
        cut
    } else {
        units
    };
    String::from_utf16_lossy(&legacy)
}

/// `normalizeToolNameForProvider`, transcribed.
#[must_use]
pub fn model_hash_suffix_name(name: &str) -> String {
    let units: Vec<u16> = name.encode_utf16().collect();
    let word =
        |u: u16| u8::try_from(u).is_ok_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let letter = |u: Option<&u16>| {
        u.is_some_and(|&u| u8::try_from(u).is_ok_and(|b| b.is_ascii_alphabetic()))
    };
    if units.len() <= 63 && letter(units.first()) && units.iter().all(|&u| word(u)) {
        return name.to_owned();
    }
    let mut sanitized = sanitize(name, b"_-");
    if !letter(sanitized.first()) {
        let mut prefixed: Vec<u16> = "tool_".encode_utf16().collect();
        prefixed.extend(sanitized);
        sanitized = prefixed;
    }
    let suffix: Vec<u16> = format!("_{}", model_hash(&units)).encode_utf16().collect();
    let keep = (63 - suffix.len()).min(sanitized.len());
    let mut out = sanitized[..keep].to_vec();
    out.extend(suffix);
    String::from_utf16_lossy(&out)
}

/// `name.replace(/[^A-Za-z0-9<extra>]/g, '_')` over units.
fn sanitize(name: &str, extra: &[u8]) -> Vec<u16> {
    name.encode_utf16()
        .map(|u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() || extra.contains(&b) => u,
            _ => u16::from(b'_'),
        })
        .collect()
}

/// `stableToolNameHash`.
fn model_hash(units: &[u16]) -> String {
    let mut hash: u32 = 2_166_136_261;
    for &unit in units {
        hash = (hash ^ u32::from(unit)).wrapping_mul(16_777_619);
    }
    let mut digits = String::new();
    let mut n = hash;
    loop {
        digits.insert(0, char::from_digit(n % 36, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    format!("{digits:0>7}")
}
