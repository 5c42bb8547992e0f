//! Slurm's `parse_time`: the time specifications of `sacct -S/-E` and `--begin`
//! (`HH:MM[:SS] [AM|PM]`, `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]`, `YYYY-MM-DD[THH:MM[:SS]]`,
//! `today`, `tomorrow`, `midnight`, `noon`, `fika`, `teatime`, `now[+|-count[unit]]`,
//! `uts<seconds>`), in local time.

use chrono::{Datelike, Local, NaiveDate, TimeZone, Timelike};

/// A specification Slurm rejects; `pos` is the position it reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTime {
    pub pos: usize,
}

impl BadTime {
    /// The line Slurm prints (no program prefix).
    pub fn message(&self, spec: &str) -> String {
        format!("Invalid time specification (pos={}): {spec}", self.pos)
    }
}

const UNITS: [(&str, i64); 10] = [
    ("seconds", 1),
    ("second", 1),
    ("minutes", 60),
    ("minute", 60),
    ("hours", 3600),
    ("hour", 3600),
    ("days", 86400),
    ("day", 86400),
    ("weeks", 604_800),
    ("week", 604_800),
];

fn starts_ci(b: &[u8], at: usize, word: &str) -> bool {
    b.len() >= at + word.len() && b[at..at + word.len()].eq_ignore_ascii_case(word.as_bytes())
}

fn digit(b: &[u8], at: usize) -> Option<i32> {
    b.get(at)
        .filter(|c| c.is_ascii_digit())
        .map(|c| i32::from(c - b'0'))
}

/// Local broken-down time of a unix time: (year, month0, mday, hour, minute, second).
fn local(t: i64) -> (i32, u32, u32, u32, u32, u32) {
    match Local.timestamp_opt(t, 0).earliest() {
        Some(dt) => (
            dt.year(),
            dt.month0(),
            dt.day(),
            dt.hour(),
            dt.minute(),
            dt.second(),
        ),
        None => (1970, 0, 1, 0, 0, 0),
    }
}

/// `_get_delta`: `+count[unit]` after `now`.
fn delta(b: &[u8], pos: &mut usize) -> Result<i64, ()> {
    let mut cnt: i64 = 0;
    let mut digits = 0;
    let mut off = *pos + 1;
    while off < b.len() && b[off] != b'\n' {
        if b[off].is_ascii_whitespace() {
            off += 1;
            continue;
        }
        if let Some((name, mult)) = UNITS.iter().find(|(n, _)| starts_ci(b, off, n)) {
            off += name.len();
            cnt = cnt.saturating_mul(*mult);
            break;
        }
        if b[off].is_ascii_digit() {
            cnt = cnt
                .saturating_mul(10)
                .saturating_add(i64::from(b[off] - b'0'));
            digits += 1;
            off += 1;
            continue;
        }
        *pos = off - 1;
        return Err(());
    }
    if digits == 0 {
        return Err(());
    }
    *pos = off - 1;
    Ok(cnt)
}

/// `_get_time`: `HH:MM[:SS] [AM|PM]`.
fn clock_time(b: &[u8], pos: &mut usize) -> Result<(i32, i32, i32), ()> {
    let mut off = *pos;
    let fail = |off: usize, pos: &mut usize| {
        *pos = off;
        Err(())
    };
    let Some(mut hr) = digit(b, off) else {
        return fail(off, pos);
    };
    off += 1;
    if b.get(off) != Some(&b':') {
        let Some(d) = digit(b, off) else {
            return fail(off, pos);
        };
        hr = hr * 10 + d;
        off += 1;
    }
    if hr > 23 {
        return fail(off - 2, pos);
    }
    if b.get(off) != Some(&b':') {
        return fail(off, pos);
    }
    off += 1;
    let (Some(m1), Some(m2)) = (digit(b, off), digit(b, off + 1)) else {
        return fail(off, pos);
    };
    off += 2;
    let min = m1 * 10 + m2;
    if min > 59 {
        return fail(off - 2, pos);
    }
    let mut sec = 0;
    if b.get(off) == Some(&b':') {
        off += 1;
        let (Some(s1), Some(s2)) = (digit(b, off), digit(b, off + 1)) else {
            return fail(off, pos);
        };
        off += 2;
        sec = s1 * 10 + s2;
        if sec > 59 {
            return fail(off - 2, pos);
        }
    }
    while b.get(off).is_some_and(u8::is_ascii_whitespace) {
        off += 1;
    }
    if starts_ci(b, off, "pm") {
        hr += 12;
        if hr > 23 {
            if hr == 24 {
                hr = 12;
            } else {
                return fail(off, pos);
            }
        }
        off += 2;
    } else if starts_ci(b, off, "am") {
        if hr > 11 {
            if hr == 12 {
                hr = 0;
            } else {
                return fail(off, pos);
            }
        }
        off += 2;
    }
    *pos = off - 1;
    Ok((hr, min, sec))
}

/// `_get_date`: `YYYY-MM-DD`, or `MMDD[YY]` with optional `.` or `/` separators.
/// Returns (month0, mday, year or None).
fn date(b: &[u8], pos: &mut usize) -> Result<(i32, i32, Option<i32>), ()> {
    let mut off = *pos;
    let fail = |off: usize, pos: &mut usize| {
        *pos = off;
        Err(())
    };
    if b.len() >= off + 7 && b.get(off + 4) == Some(&b'-') && b.get(off + 7) == Some(&b'-') {
        let mut yr = 0;
        for _ in 0..4 {
            let Some(d) = digit(b, off) else {
                return fail(off, pos);
            };
            yr = yr * 10 + d;
            off += 1;
        }
        off += 1;
        let mut mon = i32::from(b.get(off).copied().unwrap_or(0)) - i32::from(b'0');
        off += 1;
        if let Some(d) = digit(b, off) {
            mon = mon * 10 + d;
            off += 1;
        }
        if !(1..=12).contains(&mon) {
            return fail(off - 2, pos);
        }
        off += 1;
        let Some(mut day) = digit(b, off) else {
            return fail(off, pos);
        };
        off += 1;
        if let Some(d) = digit(b, off) {
            day = day * 10 + d;
            off += 1;
        }
        if !(1..=31).contains(&day) {
            return fail(off - 2, pos);
        }
        *pos = off - 1;
        return Ok((mon - 1, day, Some(yr)));
    }
    let mut mon = i32::from(b.get(off).copied().unwrap_or(0)) - i32::from(b'0');
    off += 1;
    if let Some(d) = digit(b, off) {
        mon = mon * 10 + d;
        off += 1;
    }
    if !(1..=12).contains(&mon) {
        return fail(off.saturating_sub(2), pos);
    }
    if matches!(b.get(off), Some(b'.' | b'/')) {
        off += 1;
    }
    let Some(mut day) = digit(b, off) else {
        return fail(off, pos);
    };
    off += 1;
    if let Some(d) = digit(b, off) {
        day = day * 10 + d;
        off += 1;
    }
    if !(1..=31).contains(&day) {
        return fail(off - 2, pos);
    }
    if matches!(b.get(off), Some(b'.' | b'/')) {
        off += 1;
    }
    let year = match digit(b, off) {
        Some(y1) => {
            off += 1;
            let Some(y2) = digit(b, off) else {
                return fail(off, pos);
            };
            off += 1;
            Some(2000 + y1 * 10 + y2)
        }
        None => None,
    };
    *pos = off - 1;
    Ok((mon - 1, day, year))
}

/// `slurm_mktime`: local time to unix seconds, normalizing days past a month's end.
fn mktime(year: i32, month0: i32, mday: i32, hour: i32, min: i32, sec: i32) -> Option<i64> {
    let first = NaiveDate::from_ymd_opt(year, u32::try_from(month0 + 1).ok()?, 1)?;
    let date = first.checked_add_signed(chrono::Duration::days(i64::from(mday - 1)))?;
    let naive = date.and_hms_opt(0, 0, 0)?
        + chrono::Duration::seconds(i64::from(hour * 3600 + min * 60 + sec));
    Local
        .from_local_datetime(&naive)
        .earliest()
        .map(|d| d.timestamp())
}

/// Parses a time specification relative to `now`. `past` resolves a time or date without
/// a year towards the past (sacct) rather than the future (`--begin`). An empty
/// specification gives 0.
pub fn parse_time(spec: &str, past: bool, now: i64) -> Result<i64, BadTime> {
    let b = spec.as_bytes();
    if starts_ci(b, 0, "uts") {
        let rest = &spec[3..];
        return match rest.parse::<i64>() {
            Ok(uts) if uts >= 1_000_000 => Ok(uts),
            _ => Err(BadTime { pos: 0 }),
        };
    }
    let (ny, nmon, nday, nhour, nmin, _) = local(now);
    let (mut hour, mut minute, mut second) = (-1, -1, 0);
    let (mut month, mut mday, mut year) = (-1, -1, None::<i32>);
    let mut pos = 0;
    while pos < b.len() && b[pos] != b'\n' {
        let c = b[pos];
        if c == b' ' || c == b'\t' || c == b'-' || c == b'T' {
            pos += 1;
            continue;
        }
        let named = [
            ("today", 0),
            ("tomorrow", 1),
            ("midnight", 2),
            ("noon", 3),
            ("fika", 4),
            ("teatime", 5),
        ];
        if let Some((word, which)) = named.iter().find(|(w, _)| starts_ci(b, pos, w)) {
            match which {
                0 | 1 => {
                    let (y, m, d, ..) = local(now + if *which == 1 { 86400 } else { 0 });
                    (year, month, mday) = (Some(y), m as i32, d as i32);
                }
                _ => {
                    hour = [0, 12, 15, 16][*which - 2];
                    minute = 0;
                    second = 0;
                }
            }
            pos += word.len();
            continue;
        }
        if starts_ci(b, pos, "now") {
            let mut d = 0;
            let mut i = pos + 3;
            loop {
                match b.get(i) {
                    Some(b'+') | Some(b'-') => {
                        let neg = b[i] == b'-';
                        pos += i;
                        d = delta(b, &mut pos).map_err(|_| BadTime { pos })?;
                        if neg {
                            d = -d;
                        }
                        break;
                    }
                    Some(b' ' | b'\t') => i += 1,
                    None | Some(b'\n') => {
                        pos += i - 1;
                        break;
                    }
                    Some(_) => return Err(BadTime { pos: pos + i }),
                }
            }
            let (y, m, dd, h, mi, s) = local(now.saturating_add(d));
            (year, month, mday) = (Some(y), m as i32, dd as i32);
            (hour, minute, second) = (h as i32, mi as i32, s as i32);
            pos += 1;
            continue;
        }
        if !c.is_ascii_digit() {
            return Err(BadTime { pos });
        }
        if b.get(pos + 1) == Some(&b':') || b.get(pos + 2) == Some(&b':') {
            let (h, m, s) = clock_time(b, &mut pos).map_err(|_| BadTime { pos })?;
            (hour, minute, second) = (h, m, s);
        } else {
            let (m, d, y) = date(b, &mut pos).map_err(|_| BadTime { pos })?;
            month = m;
            mday = d;
            if y.is_some() {
                year = y;
            }
        }
        pos += 1;
    }
    if hour == -1 && month == -1 {
        return Ok(0);
    }
    if hour == -1 {
        hour = 0;
        minute = 0;
    } else if month == -1 {
        let today = past || hour > nhour as i32 || (hour == nhour as i32 && minute > nmin as i32);
        let (y, m, d, ..) = local(now + if today { 0 } else { 86400 });
        (year, month, mday) = (Some(y), m as i32, d as i32);
    }
    let year = match year {
        Some(y) => y,
        None if past => {
            if month > nmon as i32 {
                ny - 1
            } else {
                ny
            }
        }
        None => {
            let later =
                (month, mday, hour, minute) > (nmon as i32, nday as i32, nhour as i32, nmin as i32);
            if later { ny } else { ny + 1 }
        }
    };
    mktime(year, month, mday, hour, minute, second).ok_or(BadTime { pos })
}

#[cfg(test)]
mod tests {
    use super::*;

    // These tests run with the machine's time zone; they only check differences, or
    // use forms that do not depend on it.

    #[test]
    fn unix_seconds_and_now() {
        assert_eq!(parse_time("uts1796048340", true, 0), Ok(1_796_048_340));
        let now = 1_796_048_340;
        assert_eq!(parse_time("now", true, now), Ok(now));
        assert_eq!(parse_time("now-1hour", true, now), Ok(now - 3600));
        assert_eq!(parse_time("now+2days", true, now), Ok(now + 2 * 86400));
        assert_eq!(parse_time("", true, now), Ok(0));
    }

    #[test]
    fn dates_and_times() {
        let now = 1_796_048_340;
        let a = parse_time("2026-11-30T14:00:00", true, now).unwrap();
        let b = parse_time("2026-11-30", true, now).unwrap();
        assert_eq!(a - b, 14 * 3600);
        let c = parse_time("11/30/26", true, now).unwrap();
        assert_eq!(b, c);
        let d = parse_time("midnight", true, now).unwrap();
        assert_eq!(d, b);
        let e = parse_time("2:30pm", true, now).unwrap();
        assert_eq!(e - d, 14 * 3600 + 1800);
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_time("yesterday", true, 0).is_err());
        assert!(parse_time("13/01", true, 0).is_err());
        assert!(parse_time("25:00", true, 0).is_err());
        assert!(parse_time("now+", true, 0).is_err());
    }
}
