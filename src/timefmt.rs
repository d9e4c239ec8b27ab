//! Durations from the command line and RFC 3339 timestamps, without a date crate.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::ParseError;

/// The longest duration accepted on the command line: 100 years of 365 days. Longer ones are
/// refused at parse, so that no deadline ever overflows what the clock can add.
pub const MAX_DURATION: Duration = Duration::from_secs(100 * 365 * 86_400);

/// Parses `90s`, `10m`, `8h`, `1d`, `1h30m` or plain seconds (`45`), at most
/// [`MAX_DURATION`].
///
/// # Errors
/// [`ParseError::Other`] naming the text.
pub fn parse_duration(text: &str) -> Result<Duration, ParseError> {
    let d = parse_any_duration(text)?;
    if d > MAX_DURATION {
        return Err(ParseError::Other(format!(
            "invalid duration '{}' (at most 100 years, 36500d)",
            text.trim()
        )));
    }
    Ok(d)
}

fn parse_any_duration(text: &str) -> Result<Duration, ParseError> {
    let bad = || {
        ParseError::Other(format!(
            "invalid duration '{text}' (expected e.g. 90s, 10m, 8h, 1h30m)"
        ))
    };
    let t = text.trim();
    if t.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = t.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let mut total = 0u64;
    let mut num = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
        let n: u64 = num.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
        num.clear();
    }
    if !num.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// `seconds` as a duration, saturating: negative or NaN is zero, past what a [`Duration`]
/// holds is [`Duration::MAX`] (sums of stored work can be anything a file says).
#[must_use]
pub fn secs(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds).unwrap_or(if seconds > 0.0 {
        Duration::MAX
    } else {
        Duration::ZERO
    })
}

/// `1h 02m 03s` style, for progress lines.
#[must_use]
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{:.1}s", d.as_secs_f64()),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m {:02}s", s / 3600, s / 60 % 60, s % 60),
    }
}

/// The current time as RFC 3339 in UTC, to the second: `2026-11-22T05:07:21Z`.
#[must_use]
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// `t` as RFC 3339 in UTC, to the second.
#[must_use]
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Checks that `text` is an RFC 3339 date-time: `2026-11-22T05:07:21Z`, with optional
/// fractional seconds and a `Z` or `+hh:mm`/`-hh:mm` offset (`T` and `Z` in either case), each
/// field in range (days per month, leap years, a leap second `60`).
///
/// # Errors
/// [`ParseError::Other`] quoting the text (escaped, so that it stays on one line).
pub fn check_rfc3339(text: &str) -> Result<(), ParseError> {
    if rfc3339_ok(text.as_bytes()) {
        Ok(())
    } else {
        Err(ParseError::Other(format!(
            "{text:?} is not an RFC 3339 time (expected e.g. 2026-11-22T05:07:21Z)"
        )))
    }
}

fn rfc3339_ok(b: &[u8]) -> bool {
    let num = |from: usize, len: usize| -> Option<u32> {
        let digits = b.get(from..from + len)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let at = |i: usize, c: u8| b.get(i).is_some_and(|x| x.eq_ignore_ascii_case(&c));
    let (Some(year), Some(month), Some(day), Some(hour), Some(min), Some(sec)) = (
        num(0, 4),
        num(5, 2),
        num(8, 2),
        num(11, 2),
        num(14, 2),
        num(17, 2),
    ) else {
        return false;
    };
    if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':') && at(16, b':')) {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if !(1..=days).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return false;
    }
    let mut i = 19;
    if at(i, b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if at(i, b'Z') {
        return i + 1 == b.len();
    }
    if !(at(i, b'+') || at(i, b'-')) || !at(i + 3, b':') || i + 6 != b.len() {
        return false;
    }
    matches!((num(i + 1, 2), num(i + 4, 2)), (Some(h), Some(m)) if h <= 23 && m <= 59)
}

/// CPU time this process has used (user + system, every thread), from `/proc/self/stat`;
/// `None` where the system has no such file. Its unit, `USER_HZ`, is 100 per second on
/// Linux whatever the kernel's tick.
#[must_use]
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("8h").unwrap(), Duration::from_secs(28_800));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("45").unwrap(), Duration::from_secs(45));
        for bad in ["", "h", "10x", "1.5h", "-3s", "10m5"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_duration("36500d").unwrap(), MAX_DURATION);
        // Past what `Instant` can add (about 292 billion years) and just past the bound.
        for long in ["106751991167301d", "36501d", "3153600001"] {
            let e = parse_duration(long).unwrap_err().to_string();
            assert!(e.contains("at most 100 years"), "{e}");
        }
    }

    #[test]
    fn saturating_seconds() {
        assert_eq!(secs(1.5), Duration::from_millis(1500));
        assert_eq!(secs(1e300), Duration::MAX);
        assert_eq!(secs(-1.0), Duration::ZERO);
        assert_eq!(secs(f64::NAN), Duration::ZERO);
    }

    #[test]
    fn rfc3339_times() {
        for good in [
            "2026-11-22T05:07:21Z",
            "2000-02-29T00:00:00z",
            "2026-11-22t05:07:21.123456+01:00",
            "2016-12-31T23:59:60-05:30",
            &rfc3339(SystemTime::now()),
        ] {
            assert!(check_rfc3339(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "2026-11-22",
            "2026-11-22T05:07:21",
            "2026-11-22 05:07:21Z",
            "2026-11-22T05:07:21Z\ncompile_error!(\"x\");",
            "2026-11-22T05:07:21Z */ #error x /*",
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:60:00Z",
            "2026-01-01T00:00:61Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00+1:00",
            "2026-01-01T00:00:00+01:60",
            "2026-01-01T00:00:00+01:00x",
            "２026-01-01T00:00:00Z",
        ] {
            let e = check_rfc3339(bad).unwrap_err().to_string();
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_324_041);
        assert_eq!(rfc3339(t), "2026-11-22T05:07:21Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }
}
