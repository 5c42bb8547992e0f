//! Absolute times for `--begin` and `--deadline` (and sacct's `-S`/`-E`): Slurm's
//! `parse_time` (`src/common/parse_time.c`) with `arg_set_begin`/`arg_set_deadline`.
//!
//! Forms (case-insensitive words, blanks, `-` and `T` between parts are skipped):
//! `HH:MM[:SS][ AM|PM]`, `today`, `tomorrow`, `midnight`, `noon`, `fika` (15:00),
//! `teatime` (16:00), `now[{+|-}N[seconds|minutes|hours|days|weeks]]` (singular or
//! plural, default seconds), `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]`, `YYYY-MM-DD`,
//! combinations such as `YYYY-MM-DDTHH:MM:SS` or `MM/DD-HH:MM`, and `uts<unix seconds>`.
//! A time without a date is the next such time (today or tomorrow); a date without a year
//! is the next such date. `elevenses` came after 22.05 and is rejected here.
//!
//! On a malformed string Slurm prints, with no program prefix,
//! `Invalid time specification (pos=N): <string>` and then
//! `<prog>: error: Invalid --begin specification`; an empty or blank string only gets the
//! second line. Exit status 255.
//!
//! Differences: `now` after another word makes Slurm's parser jump past the end of the
//! string (it adds instead of assigning its position) and read unrelated memory; real
//! 22.05.8 then fails (`noon now` → `pos=13`), and we fail at the same position. Local times in a DST gap are moved one hour later
//! and ambiguous ones take the earlier instant, approximating glibc's `mktime`.

use super::{Note, ValueError};
use crate::model::cnum::{c_bytes, is_blank, is_space, starts_with_ci, strtol};
use chrono::{Datelike, Duration, Local, NaiveDate, TimeZone, Timelike};
use std::fmt;

/// A malformed time string: where Slurm's parser stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeSpecError {
    pub pos: i64,
    pub input: String,
}

impl fmt::Display for TimeSpecError {
    /// The line Slurm prints to stderr (without a newline).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Invalid time specification (pos={}): {}",
            self.pos, self.input
        )
    }
}

/// A broken-down local time (`struct tm`: month 0-11, year since 1900).
#[derive(Debug, Clone, Copy)]
struct Tm {
    sec: i32,
    min: i32,
    hour: i32,
    mday: i32,
    mon: i32,
    year: i32,
}

fn localtime<Tz: TimeZone>(t: i64, tz: &Tz) -> Option<Tm> {
    let dt = tz.timestamp_opt(t, 0).earliest()?;
    Some(Tm {
        sec: dt.second() as i32,
        min: dt.minute() as i32,
        hour: dt.hour() as i32,
        mday: dt.day() as i32,
        mon: dt.month0() as i32,
        year: dt.year() - 1900,
    })
}

/// `mktime` with `tm_isdst = -1`: out-of-range days roll into the next month.
fn mktime<Tz: TimeZone>(tm: Tm, tz: &Tz) -> Option<i64> {
    let first = NaiveDate::from_ymd_opt(tm.year + 1900, (tm.mon + 1) as u32, 1)?;
    let date = first.checked_add_signed(Duration::days(i64::from(tm.mday) - 1))?;
    let ndt = date.and_hms_opt(tm.hour as u32, tm.min as u32, tm.sec as u32)?;
    let local = tz.from_local_datetime(&ndt).earliest().or_else(|| {
        tz.from_local_datetime(&(ndt + Duration::hours(1)))
            .earliest()
    })?;
    let t = local.timestamp();
    (t != -1).then_some(t)
}

/// Byte at a possibly negative or past-the-end position, as NUL.
fn at(b: &[u8], i: i64) -> u8 {
    if i < 0 {
        0
    } else {
        b.get(i as usize).copied().unwrap_or(0)
    }
}

fn rest(b: &[u8], i: i64) -> &[u8] {
    if i < 0 || i as usize >= b.len() {
        &[]
    } else {
        &b[i as usize..]
    }
}

fn digit(c: u8) -> Option<i32> {
    c.is_ascii_digit().then(|| i32::from(c - b'0'))
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
    ("weeks", 604800),
    ("week", 604800),
];

/// `_get_delta`: the number (and unit) after `+`/`-` at `*pos`.
fn get_delta(b: &[u8], pos: &mut i64) -> Option<i64> {
    let mut offset = *pos + 1;
    let mut cnt: i64 = 0;
    let mut digits = 0;
    while at(b, offset) != 0 && at(b, offset) != b'\n' {
        let c = at(b, offset);
        if is_space(c) {
            offset += 1;
            continue;
        }
        if let Some((name, mult)) = UNITS
            .iter()
            .find(|(n, _)| starts_with_ci(rest(b, offset), n))
        {
            offset += name.len() as i64;
            cnt = cnt.wrapping_mul(*mult);
            break;
        }
        if let Some(d) = digit(c) {
            cnt = cnt.wrapping_mul(10).wrapping_add(i64::from(d));
            digits += 1;
            offset += 1;
            continue;
        }
        *pos = offset - 1;
        return None;
    }
    if digits == 0 {
        return None;
    }
    *pos = offset - 1;
    Some(cnt)
}

/// `_get_time`: `HH:MM[:SS] [AM|PM]` at `*pos` → (hour, minute, second).
fn get_time(b: &[u8], pos: &mut i64) -> Option<(i32, i32, i32)> {
    let mut off = *pos;
    let fail = |pos: &mut i64, off: i64| {
        *pos = off;
        None
    };
    let Some(mut hr) = digit(at(b, off)) else {
        return fail(pos, off);
    };
    off += 1;
    if at(b, off) != b':' {
        let Some(d) = digit(at(b, off)) else {
            return fail(pos, off);
        };
        hr = hr * 10 + d;
        off += 1;
    }
    if hr > 23 {
        return fail(pos, off - 2);
    }
    if at(b, off) != b':' {
        return fail(pos, off);
    }
    off += 1;
    let two = |off: &mut i64| -> Result<i32, i64> {
        let a = digit(at(b, *off)).ok_or(*off)?;
        *off += 1;
        let c = digit(at(b, *off)).ok_or(*off)?;
        *off += 1;
        Ok(a * 10 + c)
    };
    let min = match two(&mut off) {
        Ok(m) => m,
        Err(o) => return fail(pos, o),
    };
    if min > 59 {
        return fail(pos, off - 2);
    }
    let mut sec = 0;
    if at(b, off) == b':' {
        off += 1;
        sec = match two(&mut off) {
            Ok(s) => s,
            Err(o) => return fail(pos, o),
        };
        if sec > 59 {
            return fail(pos, off - 2);
        }
    }
    while is_space(at(b, off)) {
        off += 1;
    }
    if starts_with_ci(rest(b, off), "pm") {
        hr += 12;
        if hr > 23 {
            if hr == 24 {
                hr = 12;
            } else {
                return fail(pos, off);
            }
        }
        off += 2;
    } else if starts_with_ci(rest(b, off), "am") {
        if hr > 11 {
            if hr == 12 {
                hr = 0;
            } else {
                return fail(pos, off);
            }
        }
        off += 2;
    }
    *pos = off - 1;
    Some((hr, min, sec))
}

/// `_get_date`: `YYYY-MM-DD`, `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]` at `*pos` →
/// (month 0-11, day, year since 1900 if given).
fn get_date(b: &[u8], pos: &mut i64) -> Option<(i32, i32, Option<i32>)> {
    let mut off = *pos;
    let fail = |pos: &mut i64, off: i64| {
        *pos = off;
        None
    };
    let len = b.len() as i64;
    if len >= off + 7 && at(b, off + 4) == b'-' && at(b, off + 7) == b'-' {
        let mut yr = 0;
        for _ in 0..4 {
            let Some(d) = digit(at(b, off)) else {
                return fail(pos, off);
            };
            yr = yr * 10 + d;
            off += 1;
        }
        off += 1;
        // The first month character is not checked, as in Slurm.
        let mut mon = i32::from(at(b, off)) - i32::from(b'0');
        off += 1;
        if let Some(d) = digit(at(b, off)) {
            mon = mon * 10 + d;
            off += 1;
        }
        if !(1..=12).contains(&mon) {
            return fail(pos, off - 2);
        }
        off += 1;
        let Some(mut day) = digit(at(b, off)) else {
            return fail(pos, off);
        };
        off += 1;
        if let Some(d) = digit(at(b, off)) {
            day = day * 10 + d;
            off += 1;
        }
        if !(1..=31).contains(&day) {
            return fail(pos, off - 2);
        }
        *pos = off - 1;
        return Some((mon - 1, day, Some(yr - 1900)));
    }
    let mut mon = i32::from(at(b, off)) - i32::from(b'0');
    off += 1;
    if let Some(d) = digit(at(b, off)) {
        mon = mon * 10 + d;
        off += 1;
    }
    if !(1..=12).contains(&mon) {
        return fail(pos, off - 2);
    }
    if matches!(at(b, off), b'.' | b'/') {
        off += 1;
    }
    let Some(mut day) = digit(at(b, off)) else {
        return fail(pos, off);
    };
    off += 1;
    if let Some(d) = digit(at(b, off)) {
        day = day * 10 + d;
        off += 1;
    }
    if !(1..=31).contains(&day) {
        return fail(pos, off - 2);
    }
    if matches!(at(b, off), b'.' | b'/') {
        off += 1;
    }
    let mut yr = 0;
    if let Some(d) = digit(at(b, off)) {
        off += 1;
        let Some(d2) = digit(at(b, off)) else {
            return fail(pos, off);
        };
        yr = d * 10 + d2;
        off += 1;
    }
    *pos = off - 1;
    // "00" counts as no year, as in Slurm.
    Some((mon - 1, day, (yr != 0).then_some(yr + 100)))
}

/// `parse_time(time_str, past)` with `now` (unix seconds) and the time zone `tz`.
/// `Ok(0)` is Slurm's "nothing specified" (e.g. an empty string), which callers treat as
/// invalid without printing the diagnostic line.
pub fn parse_time_tz<Tz: TimeZone>(
    s: &str,
    now: i64,
    past: bool,
    tz: &Tz,
) -> Result<i64, TimeSpecError> {
    let b = c_bytes(s);
    let mut pos: i64 = 0;
    let err = |pos: i64| TimeSpecError {
        pos,
        input: String::from_utf8_lossy(b).into_owned(),
    };
    if starts_with_ci(b, "uts") {
        let p = strtol(&b[3..]);
        if p.value < 1_000_000 || p.value == i64::MAX || 3 + p.end != b.len() || !p.digits {
            return Err(err(0));
        }
        return Ok(p.value);
    }
    let now_tm = localtime(now, tz).ok_or_else(|| err(0))?;
    let tomorrow = || localtime(now + 86400, tz);
    let (mut hour, mut minute, mut second) = (-1, -1, 0);
    let (mut month, mut mday, mut year) = (-1, -1, -1);
    loop {
        if pos > b.len() as i64 {
            // Past the terminator (after `now` that followed another word): Slurm reads
            // whatever memory follows; 22.05.8 was seen to fail there, so do we.
            return Err(err(pos));
        }
        let c = at(b, pos);
        if c == 0 || c == b'\n' {
            break;
        }
        let here = rest(b, pos);
        if is_blank(c) || c == b'-' || c == b'T' {
        } else if starts_with_ci(here, "today") {
            (month, mday, year) = (now_tm.mon, now_tm.mday, now_tm.year);
            pos += 4;
        } else if starts_with_ci(here, "tomorrow") {
            let t = tomorrow().ok_or_else(|| err(pos))?;
            (month, mday, year) = (t.mon, t.mday, t.year);
            pos += 7;
        } else if starts_with_ci(here, "midnight") {
            (hour, minute, second) = (0, 0, 0);
            pos += 7;
        } else if starts_with_ci(here, "noon") {
            (hour, minute, second) = (12, 0, 0);
            pos += 3;
        } else if starts_with_ci(here, "fika") {
            (hour, minute, second) = (15, 0, 0);
            pos += 3;
        } else if starts_with_ci(here, "teatime") {
            (hour, minute, second) = (16, 0, 0);
            pos += 6;
        } else if starts_with_ci(here, "now") {
            let mut delta = 0;
            let mut i = pos + 3;
            loop {
                match at(b, i) {
                    sign @ (b'+' | b'-') => {
                        // Slurm adds the index instead of assigning it.
                        pos += i;
                        delta = get_delta(b, &mut pos).ok_or_else(|| err(pos))?;
                        if sign == b'-' {
                            delta = delta.wrapping_neg();
                        }
                        break;
                    }
                    c if is_blank(c) => i += 1,
                    0 | b'\n' => {
                        pos += i - 1;
                        break;
                    }
                    _ => {
                        pos += i;
                        return Err(err(pos));
                    }
                }
            }
            let later = localtime(now.wrapping_add(delta), tz).ok_or_else(|| err(pos))?;
            (month, mday, year) = (later.mon, later.mday, later.year);
            (hour, minute, second) = (later.hour, later.min, later.sec);
        } else if !c.is_ascii_digit() {
            return Err(err(pos));
        } else if at(b, pos + 1) == b':' || at(b, pos + 2) == b':' {
            let mut p = pos;
            let t = get_time(b, &mut p);
            pos = p;
            (hour, minute, second) = t.ok_or_else(|| err(pos))?;
        } else {
            let mut p = pos;
            let d = get_date(b, &mut p);
            pos = p;
            let (mo, da, yr) = d.ok_or_else(|| err(pos))?;
            (month, mday) = (mo, da);
            if let Some(y) = yr {
                year = y;
            }
        }
        pos += 1;
    }

    if hour == -1 && month == -1 {
        return Ok(0);
    } else if hour == -1 {
        (hour, minute) = (0, 0);
    } else if month == -1 {
        if past || hour > now_tm.hour || (hour == now_tm.hour && minute > now_tm.min) {
            (month, mday, year) = (now_tm.mon, now_tm.mday, now_tm.year);
        } else {
            let t = tomorrow().ok_or_else(|| err(pos))?;
            (month, mday, year) = (t.mon, t.mday, t.year);
        }
    }
    if year == -1 {
        let later_this_year =
            (month, mday, hour, minute) > (now_tm.mon, now_tm.mday, now_tm.hour, now_tm.min);
        year = if past {
            if month > now_tm.mon {
                now_tm.year - 1
            } else {
                now_tm.year
            }
        } else if later_this_year {
            now_tm.year
        } else {
            now_tm.year + 1
        };
    }
    let tm = Tm {
        sec: second,
        min: minute,
        hour,
        mday,
        mon: month,
        year,
    };
    mktime(tm, tz).ok_or_else(|| err(pos))
}

/// [`parse_time_tz`] in the local time zone.
pub fn parse_time(s: &str, now: i64, past: bool) -> Result<i64, TimeSpecError> {
    parse_time_tz(s, now, past, &Local)
}

/// An absolute-time option (`--begin`, `--deadline`) in the zone `tz`: unix seconds, or
/// the two-line error Slurm prints (`Invalid <option> specification`, exit 255).
pub fn parse_time_option_tz<Tz: TimeZone>(
    s: &str,
    now: i64,
    option: &str,
    tz: &Tz,
) -> Result<i64, ValueError> {
    match parse_time_tz(s, now, false, tz) {
        Ok(0) => Err(ValueError::invalid_spec(option)),
        Ok(t) => Ok(t),
        Err(e) => Err(ValueError::Invalid {
            notes: vec![Note::Raw(e.to_string())],
            message: format!("Invalid {option} specification"),
        }),
    }
}

/// `--begin` in the local time zone.
pub fn parse_begin(s: &str, now: i64) -> Result<i64, ValueError> {
    parse_time_option_tz(s, now, "--begin", &Local)
}

/// `--deadline` in the local time zone.
pub fn parse_deadline(s: &str, now: i64) -> Result<i64, ValueError> {
    parse_time_option_tz(s, now, "--deadline", &Local)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;
    use chrono::{FixedOffset, Utc};

    /// 2025-03-15T10:30:20Z, a Saturday.
    const NOW: i64 = 1_742_034_620;

    fn t(s: &str) -> i64 {
        parse_time_tz(s, NOW, false, &Utc).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }
    fn at_utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, s)
            .unwrap()
            .timestamp()
    }
    fn err(s: &str) -> TimeSpecError {
        parse_time_tz(s, NOW, false, &Utc).unwrap_err()
    }

    #[test]
    fn clock_times_pick_the_next_occurrence() {
        assert_eq!(t("16:00"), at_utc(2025, 3, 15, 16, 0, 0));
        assert_eq!(t("16:00:05"), at_utc(2025, 3, 15, 16, 0, 5));
        assert_eq!(t("9:15"), at_utc(2025, 3, 16, 9, 15, 0));
        assert_eq!(t("10:30"), at_utc(2025, 3, 16, 10, 30, 0));
        assert_eq!(t("10:31"), at_utc(2025, 3, 15, 10, 31, 0));
        assert_eq!(t("4:00pm"), at_utc(2025, 3, 15, 16, 0, 0));
        assert_eq!(t("4:00 PM"), at_utc(2025, 3, 15, 16, 0, 0));
        assert_eq!(t("12:00am"), at_utc(2025, 3, 16, 0, 0, 0));
        assert_eq!(t("12:00pm"), at_utc(2025, 3, 15, 12, 0, 0));
        assert_eq!(t("11:00AM"), at_utc(2025, 3, 15, 11, 0, 0));
    }

    #[test]
    fn words() {
        assert_eq!(t("today"), at_utc(2025, 3, 15, 0, 0, 0));
        assert_eq!(t("tomorrow"), at_utc(2025, 3, 16, 0, 0, 0));
        assert_eq!(t("midnight"), at_utc(2025, 3, 16, 0, 0, 0));
        assert_eq!(t("noon"), at_utc(2025, 3, 15, 12, 0, 0));
        assert_eq!(t("fika"), at_utc(2025, 3, 15, 15, 0, 0));
        assert_eq!(t("teatime"), at_utc(2025, 3, 15, 16, 0, 0));
        assert_eq!(t("NOON"), at_utc(2025, 3, 15, 12, 0, 0));
        assert_eq!(t("tomorrow noon"), at_utc(2025, 3, 16, 12, 0, 0));
        assert_eq!(t("noon tomorrow"), at_utc(2025, 3, 16, 12, 0, 0));
        assert_eq!(t("today 9:00"), at_utc(2025, 3, 15, 9, 0, 0));
        assert_eq!(t("tomorrowT08:00"), at_utc(2025, 3, 16, 8, 0, 0));
    }

    #[test]
    fn now_with_offsets() {
        assert_eq!(t("now"), NOW);
        assert_eq!(t("NOW"), NOW);
        assert_eq!(t("now+60"), NOW + 60);
        assert_eq!(t("now+1hour"), NOW + 3600);
        assert_eq!(t("now+2hours"), NOW + 7200);
        assert_eq!(t("now + 3 minutes"), NOW + 180);
        assert_eq!(t("now+1day"), NOW + 86400);
        assert_eq!(t("now+2weeks"), NOW + 14 * 86400);
        assert_eq!(t("now+5seconds"), NOW + 5);
        assert_eq!(t("now-1minute"), NOW - 60);
        assert_eq!(t("now+1Hour"), NOW + 3600);
    }

    #[test]
    fn dates() {
        assert_eq!(t("2025-06-01"), at_utc(2025, 6, 1, 0, 0, 0));
        assert_eq!(t("2025-06-01T14:30"), at_utc(2025, 6, 1, 14, 30, 0));
        assert_eq!(t("2025-06-01T14:30:15"), at_utc(2025, 6, 1, 14, 30, 15));
        assert_eq!(t("2024-01-01"), at_utc(2024, 1, 1, 0, 0, 0));
        assert_eq!(t("0601"), at_utc(2025, 6, 1, 0, 0, 0));
        assert_eq!(t("060126"), at_utc(2026, 6, 1, 0, 0, 0));
        assert_eq!(t("06/01"), at_utc(2025, 6, 1, 0, 0, 0));
        assert_eq!(t("6/1/26"), at_utc(2026, 6, 1, 0, 0, 0));
        assert_eq!(t("06.01.26"), at_utc(2026, 6, 1, 0, 0, 0));
        assert_eq!(t("06/01-10:00"), at_utc(2025, 6, 1, 10, 0, 0));
        // A date already past this year means next year.
        assert_eq!(t("03/14"), at_utc(2026, 3, 14, 0, 0, 0));
        assert_eq!(t("03/15"), at_utc(2026, 3, 15, 0, 0, 0));
        assert_eq!(t("03/15 11:00"), at_utc(2025, 3, 15, 11, 0, 0));
        // Year 00 is "no year".
        assert_eq!(t("06/01/00"), at_utc(2025, 6, 1, 0, 0, 0));
        // mktime rolls day 31 of a 30-day month into the next month.
        assert_eq!(t("2025-06-31"), at_utc(2025, 7, 1, 0, 0, 0));
        assert_eq!(t("uts1700000000"), 1_700_000_000);
    }

    #[test]
    fn past_mode() {
        let p = |s| parse_time_tz(s, NOW, true, &Utc).unwrap();
        assert_eq!(p("9:00"), at_utc(2025, 3, 15, 9, 0, 0));
        assert_eq!(p("06/01"), at_utc(2024, 6, 1, 0, 0, 0));
        assert_eq!(p("03/01"), at_utc(2025, 3, 1, 0, 0, 0));
    }

    #[test]
    fn time_zone_applies() {
        let kst = FixedOffset::east_opt(9 * 3600).unwrap();
        let got = parse_time_tz("2025-06-01T09:00", NOW, false, &kst).unwrap();
        assert_eq!(got, at_utc(2025, 6, 1, 0, 0, 0));
    }

    #[test]
    fn errors_and_positions() {
        let e = err("bogus");
        assert_eq!(e.to_string(), "Invalid time specification (pos=0): bogus");
        assert_eq!(err("25:00").pos, 0);
        assert_eq!(err("10:5").pos, 4);
        assert_eq!(err("10:61").pos, 3);
        assert_eq!(err("13:00pm").pos, 5);
        assert_eq!(err("13:00am").pos, 5);
        // A capital T is skipped as a date/time separator, so only lower-case words work.
        assert_eq!(err("TeaTime").pos, 1);
        assert_eq!(err("Today").pos, 1);
        assert_eq!(err("now+1min").pos, 4);
        assert_eq!(err("now+").pos, 3);
        assert_eq!(err("now x").pos, 4);
        assert_eq!(err("13/01").pos, 0);
        assert_eq!(err("0").pos, -1);
        assert_eq!(err("01/32").pos, 3);
        assert_eq!(err("2025-13-01").pos, 5);
        assert_eq!(err("06/01/2").pos, 7);
        assert_eq!(err("elevenses").pos, 0);
        assert_eq!(err("todayx").pos, 5);
        assert_eq!(err("uts999").pos, 0);
        assert_eq!(err("uts17000000000x").pos, 0);
        // Observed on 22.05.8: `now` after a word jumps past the end of the string.
        assert_eq!(err("noon now").pos, 13);
        assert_eq!(err("now+1hour+2").pos, 9);
        // Nothing specified is Slurm's 0, with no diagnostic.
        assert_eq!(parse_time_tz("", NOW, false, &Utc), Ok(0));
        assert_eq!(parse_time_tz("  -T ", NOW, false, &Utc), Ok(0));
    }

    #[test]
    fn begin_option_errors() {
        let e = parse_time_option_tz("bogus", NOW, "--begin", &Utc).unwrap_err();
        assert_eq!(
            e.render("sbatch", ""),
            "Invalid time specification (pos=0): bogus\n\
             sbatch: error: Invalid --begin specification\n"
        );
        assert_eq!(e.exit_code(1), 255);
        let e = parse_time_option_tz("", NOW, "--begin", &Utc).unwrap_err();
        assert_eq!(
            e.render("sbatch", ""),
            "sbatch: error: Invalid --begin specification\n"
        );
        let e = parse_time_option_tz("x", NOW, "--deadline", &Utc).unwrap_err();
        assert_eq!(e.message(), "Invalid --deadline specification");
        assert_eq!(
            parse_time_option_tz("now+1hour", NOW, "--begin", &Utc),
            Ok(NOW + 3600)
        );
        assert!(parse_begin("now", NOW).is_ok());
        assert!(parse_deadline("bogus", NOW).is_err());
    }

    #[test]
    fn never_panics() {
        let kst = FixedOffset::east_opt(9 * 3600).unwrap();
        for s in fuzz::strings(43, "0123456789:-/.TnowtdayPAMhours+ ", 20, 30000) {
            let _ = parse_time_tz(&s, NOW, false, &Utc);
            let _ = parse_time_tz(&s, NOW, true, &kst);
        }
        for s in [
            "now+99999999999999999999weeks",
            "9999-12-31T23:59:59",
            "0000-01-01",
        ] {
            let _ = parse_time_tz(s, NOW, false, &Utc);
        }
    }
}
