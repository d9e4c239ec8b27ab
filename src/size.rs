//! Sizes and units: what a table entry weighs and how sizes are written for people.
//!
//! Every command that reports a table size (export, compare, pack, verify) uses these, so a
//! size reads the same everywhere.

/// Bytes per table entry (one `u64` attack set).
pub const ENTRY_BYTES: u64 = 8;

/// `entries` at [`ENTRY_BYTES`] each in KiB: whole numbers plain, otherwise one decimal.
///
/// ```
/// use magichunt::size::kib;
/// assert_eq!(kib(89_280), "697.5"); // the best published bits, 2^bits per square
/// assert_eq!(kib(107_648), "841"); // the popcount bits
/// ```
#[must_use]
pub fn kib(entries: u64) -> String {
    let bytes = entries * ENTRY_BYTES;
    if bytes.is_multiple_of(1024) {
        (bytes / 1024).to_string()
    } else {
        format!("{:.1}", bytes as f64 / 1024.0)
    }
}

/// `bytes` in KiB to one decimal, a whole number without it (so that the JSON documents'
/// number reads back as the same text).
///
/// ```
/// use magichunt::size::kib_bytes;
/// assert_eq!(kib_bytes(131_072), "128");
/// assert_eq!(kib_bytes(90_000), "87.9");
/// assert_eq!(kib_bytes(98_254), "96");
/// ```
#[must_use]
pub fn kib_bytes(bytes: u64) -> String {
    let text = format!("{:.1}", bytes as f64 / 1024.0);
    text.strip_suffix(".0")
        .map_or_else(|| text.clone(), str::to_string)
}

/// [`kib`] as a number, for the JSON documents: the same figure the text writes.
#[must_use]
pub fn kib_number(entries: u64) -> f64 {
    kib(entries).parse().expect("kib writes a number")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kib_is_exact_or_one_decimal() {
        assert_eq!(kib(89_280), "697.5");
        assert_eq!(kib(107_648), "841");
        assert_eq!(kib(1), "0.0");
        assert_eq!(kib(13), "0.1");
    }
}
