//! Timestamps as `slurm_make_time_str` prints them, governed by SLURM_TIME_FORMAT.

use chrono::{Datelike, Local, TimeZone};

/// The display style chosen by SLURM_TIME_FORMAT.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TimeFormat {
    #[default]
    Standard,
    Relative,
    Strftime(String),
}

impl TimeFormat {
    /// Reads the value of SLURM_TIME_FORMAT. Returns the format and, for a value Slurm refuses,
    /// the error line Slurm prints before falling back to the standard format.
    pub fn from_env_value(value: Option<&str>) -> (TimeFormat, Option<String>) {
        match value {
            None | Some("") | Some("standard") => (TimeFormat::Standard, None),
            Some("relative") => (TimeFormat::Relative, None),
            Some(v) if v.contains('%') && v.len() < 32 => {
                (TimeFormat::Strftime(v.to_string()), None)
            }
            Some(v) => (
                TimeFormat::Standard,
                Some(format!("invalid SLURM_TIME_FORMAT = '{v}'")),
            ),
        }
    }
}

/// Formats a unix time; `None`/0 prints `Unknown` as Slurm does for unset times.
pub fn format_time(t: Option<i64>, fmt: &TimeFormat, now: i64) -> String {
    let Some(t) = t.filter(|&t| t > 0) else {
        return "Unknown".to_string();
    };
    let Some(dt) = Local.timestamp_opt(t, 0).single() else {
        return "Unknown".to_string();
    };
    match fmt {
        TimeFormat::Standard => dt.format("%Y-%m-%dT%H:%M:%S").to_string(),
        TimeFormat::Strftime(f) => {
            let mut out = String::new();
            use std::fmt::Write;
            if write!(out, "{}", dt.format(f)).is_err() {
                return dt.format("%Y-%m-%dT%H:%M:%S").to_string();
            }
            out
        }
        TimeFormat::Relative => {
            let Some(today) = Local.timestamp_opt(now, 0).single() else {
                return dt.format("%Y-%m-%dT%H:%M:%S").to_string();
            };
            // Slurm measures the distance as 1000*year + day-of-year, so the days across a
            // new year count as far apart (`_relative_date_fmt`).
            let key = |d: chrono::NaiveDate| 1000 * d.year() + d.ordinal0() as i32;
            let days = key(dt.date_naive()) - key(today.date_naive());
            match days {
                0 => dt.format("%H:%M:%S").to_string(),
                -1 => dt.format("Ystday %H:%M").to_string(),
                1 => dt.format("Tomorr %H:%M").to_string(),
                2..=6 => dt.format("%a %H:%M").to_string(),
                d if (-365..=365).contains(&d) => dt.format("%-d %b %H:%M").to_string(),
                _ => dt.format("%-d %b %Y").to_string(),
            }
        }
    }
}

/// The date line squeue -l / sinfo -l print: `Mon Nov 30 14:19:00 2026`.
pub fn date_line(now: i64) -> String {
    match Local.timestamp_opt(now, 0).single() {
        Some(dt) => dt.format("%a %b %d %H:%M:%S %Y").to_string(),
        None => String::new(),
    }
}

/// Local midnight of the day containing `now` (sacct's default window start).
pub fn local_midnight(now: i64) -> i64 {
    Local
        .timestamp_opt(now, 0)
        .single()
        .and_then(|dt| dt.date_naive().and_hms_opt(0, 0, 0))
        .and_then(|naive| Local.from_local_datetime(&naive).earliest())
        .map(|dt| dt.timestamp())
        .unwrap_or(0)
}
