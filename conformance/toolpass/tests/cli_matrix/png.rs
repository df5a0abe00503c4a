//! Just enough PNG to read back chromium's screenshots: 8-bit RGB or RGBA,
//! not interlaced (what `--screenshot` writes), inflated with
//! `miniz_oxide` and unfiltered per scanline (PNG spec, section 9).

/// A decoded image: its size and its pixels as RGB, row by row.
pub(crate) struct Image {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) rgb: Vec<[u8; 3]>,
}

impl Image {
    /// How many pixels are exactly `colour` (`#rrggbb`).
    pub(crate) fn count(&self, colour: &str) -> usize {
        let hex = |at: usize| u8::from_str_radix(&colour[at..at + 2], 16).unwrap();
        let wanted = [hex(1), hex(3), hex(5)];
        self.rgb.iter().filter(|p| **p == wanted).count()
    }
}

/// Decodes `png`, or says what about it this reader does not handle.
pub(crate) fn decode(png: &[u8]) -> Result<Image, String> {
    let body = png
        .strip_prefix(b"\x89PNG\r\n\x1a\n".as_slice())
        .ok_or("not a PNG: no signature")?;
    let mut chunks = Vec::new();
    let mut rest = body;
    while rest.len() >= 12 {
        let length = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
        let kind = &rest[4..8];
        let data = rest.get(8..8 + length).ok_or("a chunk runs past the end")?;
        chunks.push((kind, data));
        // Length, type, data, CRC.
        rest = &rest[12 + length..];
    }
    let (_, header) = chunks
        .iter()
        .find(|(kind, _)| *kind == b"IHDR")
        .ok_or("no IHDR chunk")?;
    let word = |at: usize| u32::from_be_bytes(header[at..at + 4].try_into().unwrap()) as usize;
    let (width, height) = (word(0), word(4));
    let (depth, colour_type, interlace) = (header[8], header[9], header[12]);
    let channels = match (depth, colour_type, interlace) {
        (8, 2, 0) => 3,
        (8, 6, 0) => 4,
        _ => {
            return Err(format!(
                "depth {depth}, colour type {colour_type}, interlace {interlace}: not read here"
            ));
        }
    };
    let zlib: Vec<u8> = chunks
        .iter()
        .filter(|(kind, _)| *kind == b"IDAT")
        .flat_map(|(_, data)| data.iter().copied())
        .collect();
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&zlib)
        .map_err(|e| format!("the image data does not inflate: {e:?}"))?;
    let stride = width * channels;
    if raw.len() != height * (stride + 1) {
        return Err(format!(
            "{} bytes of image data for {width}×{height}",
            raw.len()
        ));
    }
    let mut previous = vec![0u8; stride];
    let mut rgb = Vec::with_capacity(width * height);
    for line in raw.chunks(stride + 1) {
        let (filter, data) = (line[0], &line[1..]);
        let mut row = data.to_vec();
        for i in 0..stride {
            let left = if i >= channels { row[i - channels] } else { 0 };
            let up = previous[i];
            let up_left = if i >= channels {
                previous[i - channels]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((u16::from(left) + u16::from(up)) / 2) as u8,
                4 => paeth(left, up, up_left),
                _ => return Err(format!("unknown filter type {filter}")),
            };
            row[i] = row[i].wrapping_add(predicted);
        }
        rgb.extend(row.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        previous = row;
    }
    Ok(Image { width, height, rgb })
}

/// The Paeth predictor: whichever neighbour is closest to `left + up - up_left`.
fn paeth(left: u8, up: u8, up_left: u8) -> u8 {
    let estimate = i16::from(left) + i16::from(up) - i16::from(up_left);
    let distance = |v: u8| (estimate - i16::from(v)).abs();
    if distance(left) <= distance(up) && distance(left) <= distance(up_left) {
        left
    } else if distance(up) <= distance(up_left) {
        up
    } else {
        up_left
    }
}
